// A NIC numbers at most 2^24 - 2 QPs (24-bit BTH QPN, IBA
// Vol. 1 9.2, less QP0/QP1). A scenario that needs more at one NIC is an input error found
// before anything is built (exit 2 in the CLI), not an abort in the middle of the run.

#include "run/run-stages.h"
#include "scenario/scenario-toml.h"

#include <catch2/catch.hpp>

#include <optional>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;

namespace
{

const std::string kName = std::string(TUSK_SOURCE_DIR) + "/scenarios/qp-budget-test.toml";

/** A 4-host permutation (every host one connection out and one in) with `extra` appended. */
ScenarioSpec
Permutation(const std::string& extra)
{
    return LoadScenarioString(R"(name = "qps"
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
[workload]
kind = "permutation"
bytes = "1MB"
)" + extra, kName);
}

/** The QP-budget check of Permutation(extra); nothing if it passes. */
std::optional<ns3::InputError>
BudgetError(const std::string& extra)
{
    const ScenarioSpec s = Permutation(extra);
    const ns3::TopologyGraph g = BuildGraph(s);
    const ns3::WorkloadSpec w = BuildWorkload(s, g);
    try
    {
        CheckQpBudget(s, ValidateRun(s), g, w);
    }
    catch (const ns3::InputError& e)
    {
        return e;
    }
    return std::nullopt;
}

} // namespace

TEST_CASE("QPs per host: each connection's QP count at both ends, once per connection, none "
          "inside a scale-up server",
          "[unit][qp]")
{
    ns3::WorkloadSpec w;
    const auto add = [&](uint32_t src, uint32_t dst, uint32_t group, uint32_t qps) {
        ns3::TransferSpec t;
        t.src = src;
        t.dst = dst;
        t.qpGroup = group;
        t.qps = qps;
        w.transfers.push_back(t);
    };
    add(0, 3, 0, 0); // default count (3)
    add(0, 3, 0, 5); // same connection: keeps its first count, adds nothing
    add(0, 2, 0, 5);
    add(2, 0, 7, 0);
    add(4, 5, 0, 9); // hosts 4 and 5 share a server of 2: scale-up, no QPs
    const auto q = ns3::WorkloadExecutor::QpsPerHost(w, 6, 3, 2);
    CHECK(q == std::vector<uint64_t>{3 + 5 + 3, 0, 5 + 3, 3, 0, 0});
    // Without a scale-up domain the same pair needs 9 QPs at each end.
    CHECK(ns3::WorkloadExecutor::QpsPerHost(w, 6, 3, 1)[4] == 9);
}

TEST_CASE("A scenario needing more QPs at one NIC than the 24-bit QPN space is an input error "
          "naming the key",
          "[unit][qp]")
{
    // 2 connections per host x 8388607 QPs = 16777214 = kMaxQps exactly: accepted.
    CHECK_FALSE(BudgetError("[nic]\nqps_per_connection = 8388607\n").has_value());

    // One more QP per connection: 16777216 at every host.
    const auto err = BudgetError("[nic]\nqps_per_connection = 8388608\n");
    REQUIRE(err.has_value());
    const ns3::InputError& e = *err;
    CHECK(e.Key() == "nic.qps_per_connection");
    CHECK(e.Line() == 11);
    CHECK(e.Message().find("16777216 QPs") != std::string::npos);
    CHECK(e.Message().find("16777214") != std::string::npos);
}

} // namespace TUSK_TEST_FILE
