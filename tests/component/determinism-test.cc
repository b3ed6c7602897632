// Determinism (docs/architecture.md): the same scenario and seed give byte-identical results files; a
// different seed gives a different ECMP outcome.

#include "run-helpers.h"

#include "results/results-writer.h"

#include "ns3/type-id.h"

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

tusk::ScenarioSpec
Permutation(uint64_t seed, const std::string& policy)
{
    auto spec = LeafSpine(4, 4, 4, 100);
    spec.seed = seed;
    spec.lb.policy = policy;
    spec.workload.kind = "permutation";
    spec.workload.bytes = 500'000;
    return spec;
}

} // namespace

TEST_CASE("same scenario and seed twice: byte-identical flows.csv, links.csv, collectives.csv",
          "[component][determinism]")
{
    const std::string policy = GENERATE(std::string("ecmp"), std::string("spray"));
    auto a = Run(Permutation(7, policy));
    auto b = Run(Permutation(7, policy));
    REQUIRE(a.finished);
    CHECK(tusk::FlowsCsv(a) == tusk::FlowsCsv(b));
    CHECK(tusk::LinksCsv(a) == tusk::LinksCsv(b));
    CHECK(tusk::CollectivesCsv(a) == tusk::CollectivesCsv(b));
    CHECK(a.events == b.events);
}

TEST_CASE("a different seed changes the random choices", "[component][determinism]")
{
    auto a = Run(Permutation(1, "ecmp"));
    auto b = Run(Permutation(2, "ecmp"));
    CHECK(tusk::FlowsCsv(a) != tusk::FlowsCsv(b));
}

TEST_CASE("[ns3] defaults of one run do not leak into the next run in the same process",
          "[component][determinism]")
{
    auto defaultOf = [](const std::string& tidName, const std::string& attr) {
        ns3::TypeId::AttributeInformation info;
        REQUIRE(ns3::TypeId::LookupByName(tidName).LookupAttributeByName(attr, &info));
        return info.initialValue->SerializeToString(info.checker);
    };
    const std::string before = defaultOf("ns3::SwitchPort", "DreAlpha");
    auto spec = Permutation(3, "ecmp");
    spec.ns3Defaults["ns3::SwitchPort::DreAlpha"] = "0.5";
    auto r = Run(spec);
    REQUIRE(r.finished);
    CHECK(before != "0.5");
    CHECK(defaultOf("ns3::SwitchPort", "DreAlpha") == before);
}

} // namespace TUSK_TEST_FILE
