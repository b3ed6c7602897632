// scenarios/ethernet-vs-infiniband (README.md there): the directions of its table, on the
// shipped files with smaller transfers (1 MiB per rank for the all-to-all, 2 MB flows and
// 300 us of background for the permutation) so that the eight runs take seconds.
//  - all-to-all: InfiniBand's d-mod-k routing finishes before RoCE's ECMP (hash collisions),
//  - permutation with background: UEC spraying has a lower tail than RoCE with DCQCN and
//    ECMP (at this size it is within 5 % of IB static, so that is not asserted); InfiniBand adaptive
//    routing without congestion control a worse tail than static routing (it spreads the
//    background incasts' congestion trees over every spine: more credit stall),
//  - InfiniBand drops nothing and sends no PAUSE; its ports report credit stalls.

#include "run-helpers.h"

#include "scenario/scenario-toml.h"

#include <map>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

const std::map<std::string, std::vector<std::string>> kStacks = {
    {"roce-dcqcn-ecmp", {"nic.congestion_control=dcqcn", "ecn.enabled=true"}},
    {"uec-rud-spray",
     {"nic.transport=uec-rud", "lb.policy=host-spray", "nic.congestion_control=nscc",
      "ecn.enabled=true"}},
    {"ib-static", {"fabric.kind=infiniband", "lb.policy=ib-static"}},
    {"ib-ar", {"fabric.kind=infiniband", "lb.policy=ib-ar", "nic.receiver=selective-repeat"}},
};

tusk::RunResult
RunStack(const std::string& workload, const std::string& stack)
{
    auto spec = tusk::LoadScenarioFile(std::string(TUSK_SOURCE_DIR) +
                                           "/scenarios/ethernet-vs-infiniband/" + workload +
                                           ".toml",
                                       kStacks.at(stack));
    if (workload == "alltoall")
    {
        spec.jobs.at(0).collectives.at(0).bytes = 1 << 20;
    }
    else
    {
        spec.workload.bytes = 2'000'000;
        spec.background.at(0).durationPs = 300'000'000;
    }
    auto r = Run(spec);
    REQUIRE(r.finished);
    return r;
}

double
CreditStallUs(const tusk::RunResult& r)
{
    double us = 0;
    for (const auto& l : r.links)
    {
        us += l.creditStallPs / 1e6;
    }
    return us;
}

} // namespace

TEST_CASE("ethernet-vs-infiniband: d-mod-k beats ECMP on the all-to-all, and on the "
          "permutation tail spraying beats RoCE and IB static beats IB AR without CC "
          "(ethernet-vs-infiniband README)",
          "[regression][ib]")
{
    const auto roce = RunStack("alltoall", "roce-dcqcn-ecmp");
    const auto ibs = RunStack("alltoall", "ib-static");
    CAPTURE(roce.collectives.at(0).cctPs, ibs.collectives.at(0).cctPs);
    CHECK(ibs.collectives.at(0).cctPs < roce.collectives.at(0).cctPs);

    std::map<std::string, tusk::RunResult> perm;
    for (const auto& [stack, sets] : kStacks)
    {
        perm.emplace(stack, RunStack("permutation", stack));
    }
    auto p99 = [&](const std::string& s) { return perm.at(s).summary.p99Slowdown; };
    CAPTURE(p99("roce-dcqcn-ecmp"), p99("uec-rud-spray"), p99("ib-static"), p99("ib-ar"));
    CHECK(p99("uec-rud-spray") < p99("roce-dcqcn-ecmp"));
    CHECK(p99("ib-static") < p99("ib-ar"));
    CAPTURE(CreditStallUs(perm.at("ib-static")), CreditStallUs(perm.at("ib-ar")));
    CHECK(CreditStallUs(perm.at("ib-static")) < CreditStallUs(perm.at("ib-ar")));
    for (const std::string s : {"ib-static", "ib-ar"})
    {
        CHECK(perm.at(s).summary.drops == 0);
        CHECK(perm.at(s).summary.pfcPauses == 0);
        CHECK(CreditStallUs(perm.at(s)) > 0);
    }
}

} // namespace TUSK_TEST_FILE
