// scenarios/papers/dcqcn/README.md in CI (Zhu et al., "Congestion Control for Large-Scale RDMA
// Deployments", SIGCOMM 2015): PFC alone shares a port by input port, not by flow; DCQCN
// restores per-flow fairness; a flow whose competitor leaves climbs back to line rate. The README
// measures Jain's index 0.82 (PFC only) against 0.998 (DCQCN), the local flow 2.5x each remote
// one under PFC, and recovery within 1.5-3.3 ms. Reduced here: 20 MB per flow, seed 1.

#include "run-helpers.h"

#include "scenario/scenario-toml.h"

#include <string>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

tusk::ScenarioSpec
Load(const std::string& file, const std::vector<std::string>& overrides = {})
{
    return tusk::LoadScenarioFile(std::string(TUSK_SOURCE_DIR) + "/scenarios/papers/dcqcn/" + file,
                                  overrides);
}

double
GbpsOf(const tusk::FlowRow& f)
{
    return static_cast<double>(f.bytes) * 8 / (static_cast<double>(f.fctPs) * 1e-3);
}

} // namespace

TEST_CASE("DCQCN paper: PFC alone is unfair to flows behind a shared input port, DCQCN is fair "
          "(scenarios/papers/dcqcn/README.md)",
          "[regression][dcqcn]")
{
    struct Share
    {
        double jain;
        double localOverRemote;
    };
    auto measure = [](const tusk::RunResult& r) {
        double sum = 0, sq = 0, remote = 0, local = 0;
        for (const auto& f : r.flows)
        {
            const double g = GbpsOf(f);
            sum += g;
            sq += g * g;
            if (f.src == 4)
            {
                local = g; // the sender on the receiver's own leaf
            }
            else
            {
                remote += g / 4; // the mean of the four behind the spine link
            }
        }
        return Share{sum * sum / (r.flows.size() * sq), local / remote};
    };
    std::vector<std::string> smaller = {
        "workload.flows=[{src=0,dst=5,bytes=20000000},{src=1,dst=5,bytes=20000000},"
        "{src=2,dst=5,bytes=20000000},{src=3,dst=5,bytes=20000000},{src=4,dst=5,bytes=20000000}]"};
    const auto dcqcn = Run(Load("pfc-unfairness.toml", smaller));
    smaller.push_back("nic.congestion_control=none");
    smaller.push_back("ecn.enabled=false");
    const auto pfc = Run(Load("pfc-unfairness.toml", smaller));
    REQUIRE(dcqcn.finished);
    REQUIRE(pfc.finished);
    const Share d = measure(dcqcn);
    const Share p = measure(pfc);
    INFO("Jain: DCQCN " << d.jain << ", PFC only " << p.jain << "; local / remote: DCQCN "
                        << d.localOverRemote << ", PFC only " << p.localOverRemote);
    CHECK(d.jain > 0.95);
    CHECK(p.jain < 0.9);
    CHECK(p.localOverRemote > 2.0);
    CHECK(d.localOverRemote < 1.5);
    CHECK(pfc.summary.pfcPauses > 0);
}

TEST_CASE("DCQCN paper: the survivor of two flows climbs back to line rate after the other ends "
          "(scenarios/papers/dcqcn/README.md)",
          "[regression][dcqcn]")
{
    const auto r = Run(Load("two-flows.toml"));
    REQUIRE(r.finished);
    REQUIRE(r.flows.size() == 2);
    const auto& shortFlow = r.flows[0].bytes < r.flows[1].bytes ? r.flows[0] : r.flows[1];
    // The receiver's port (leaf0 -> host2): the first 500 us sample after the short flow's end
    // in which it is at least 90 % busy.
    const auto& ts = r.timeSeries;
    REQUIRE(ts.intervalPs > 0);
    uint64_t recoveredPs = 0;
    for (const auto& row : ts.rows)
    {
        const auto& port = ts.ports[row.port];
        if (port.from == "leaf0" && port.to == "host2" &&
            row.timePs - ts.intervalPs >= shortFlow.finishPs && row.utilisation >= 0.9)
        {
            recoveredPs = row.timePs;
            break;
        }
    }
    INFO("short flow ends at " << shortFlow.finishPs * 1e-6 << " us, port back at 90 % at "
                               << recoveredPs * 1e-6 << " us");
    REQUIRE(recoveredPs > 0);
    CHECK(recoveredPs - shortFlow.finishPs < 5'000'000'000ULL);
}

} // namespace TUSK_TEST_FILE
