// scenarios/one-slow-cable (README.md there): "if one cable is slow, how many chips wait and
// for how long". The direction of the README's answer on its 256-GPU all-to-all at a smaller
// buffer (1 MiB: 4 KiB per pair, so that the two runs take seconds on 2 cores): one leaf uplink
// at 1/4 of its rate makes the collective slower than on the healthy fabric (ECMP), and makes
// more of the 256 ranks wait more than 10 % of the step's ideal time: most of them. The
// straggler of the critical path crossed the slow cable.

#include "run-helpers.h"

#include "scenario/scenario-toml.h"

#include <algorithm>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

tusk::RunResult
RunAllToAll(bool degraded)
{
    std::vector<std::string> set = {
        "jobs=[{name=\"moe\", ranks=256, ep=256, collectives=[{kind=\"all-to-all\", "
        "name=\"dispatch\", group=\"ep\", bytes=\"1MiB\"}]}]"};
    if (!degraded)
    {
        set.push_back("failures=[]");
    }
    return Run(tusk::LoadScenarioFile(
        std::string(TUSK_SOURCE_DIR) + "/scenarios/one-slow-cable/all-to-all.toml", set));
}

} // namespace

TEST_CASE("one slow cable: a 256-GPU all-to-all slows and most ranks wait (one-slow-cable README)",
          "[regression][waits]")
{
    const auto healthy = RunAllToAll(false);
    const auto slow = RunAllToAll(true);
    REQUIRE(healthy.finished);
    REQUIRE(slow.finished);
    const auto& h = healthy.collectives.at(0);
    const auto& s = slow.collectives.at(0);
    REQUIRE(h.ranks == 256);
    CAPTURE(h.cctPs, s.cctPs, h.ranksDelayed[1], s.ranksDelayed[1]);
    CHECK(s.cctPs > h.cctPs);
    CHECK(s.ranksDelayed[1] > h.ranksDelayed[1]);
    CHECK(s.ranksDelayed[1] > 128); // "most ranks wait": more than half of the 256
    // The straggler of the critical path crossed leaf5 <-> spine3.
    REQUIRE(s.criticalFlow >= 0);
    std::vector<uint32_t> slowIds;
    for (const auto& l : slow.links)
    {
        if ((l.from == "leaf5" && l.to == "spine3") || (l.from == "spine3" && l.to == "leaf5"))
        {
            slowIds.push_back(l.link);
        }
    }
    REQUIRE(!slowIds.empty());
    bool crossed = false;
    for (const auto& [links, frames] : slow.flows[s.criticalFlow].paths)
    {
        for (uint32_t id : slowIds)
        {
            crossed |= std::find(links.begin(), links.end(), id) != links.end();
        }
    }
    CHECK(crossed);
}

} // namespace TUSK_TEST_FILE
