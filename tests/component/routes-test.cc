// A workload between hosts the fabric cannot connect is refused at load time, naming the host
// pairs, instead of a run whose frames are all dropped for want of a route (drops_no_route)
// and that never finishes: a topology file in two pieces, or failures at 0 us that cut hosts
// off for the whole run.

#include "input-error-helpers.h"
#include "run-helpers.h"

#include "scenario/scenario-toml.h"

#include <filesystem>
#include <fstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

bool
Contains(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("routes: a disconnected HPCC topology is refused at load time, naming the host pairs "
          "without a route",
          "[component][routes]")
{
    // Hosts 0, 1 on switch 4; hosts 2, 3 on switch 5; no link between the switches.
    const auto dir = std::filesystem::path(TUSK_BINARY_DIR) / "test-scratch" / "routes-test";
    std::filesystem::create_directories(dir);
    const std::string topo = (dir / "topology.txt").string();
    std::ofstream(topo) << "6 2 4\n4 5\n"
                           "0 4 100Gbps 0.001ms 0\n1 4 100Gbps 0.001ms 0\n"
                           "2 5 100Gbps 0.001ms 0\n3 5 100Gbps 0.001ms 0\n";
    const std::string text = "name = \"split\"\n"
                             "[topology]\n"
                             "kind = \"hpcc\"\n"
                             "file = \"" + topo + "\"\n"
                             "[workload]\n"
                             "kind = \"flows\"\n"
                             "[[workload.flows]]\nsrc = 0\ndst = 2\nbytes = \"100KB\"\n"
                             "[[workload.flows]]\nsrc = 3\ndst = 1\nbytes = \"100KB\"\n"
                             "[[workload.flows]]\nsrc = 1\ndst = 0\nbytes = \"100KB\"\n";
    const tusk::ScenarioSpec spec = tusk::LoadScenarioString(text, "split.toml");
    const ns3::InputError e = ExpectInputError([&] { tusk::RunScenario(spec); });
    CHECK(e.File() == "split.toml");
    CHECK(e.Key() == "topology.file");
    CHECK(e.Line() == 4);
    INFO(e.Message());
    CHECK(Contains(e.Message(), "not connected"));
    // Data and ACKs of 0 -> 2 and 3 -> 1; 1 -> 0 shares a switch and is fine.
    CHECK(Contains(e.Message(), "4 ordered host pairs"));
    CHECK(Contains(e.Message(), "host0 -> host2, host1 -> host3, host2 -> host0, host3 -> host1"));
    CHECK_FALSE(Contains(e.Message(), "host1 -> host0"));

    // The same hosts within one piece run.
    auto connected = spec;
    connected.workload.flows.resize(0);
    tusk::FlowEntry f;
    f.src = 1;
    f.dst = 0;
    f.bytes = 100'000;
    connected.workload.flows.push_back(f);
    const auto r = tusk::RunScenario(connected);
    CHECK(r.finished);

    // With a scale-up domain of 4 GPUs per server, 0 -> 2 stays inside server 0 (its own
    // links, not the fabric's): it runs.
    auto scaleUp = connected;
    scaleUp.scaleUp.gpusPerServer = 4;
    scaleUp.workload.flows[0].src = 0;
    scaleUp.workload.flows[0].dst = 2;
    CHECK(tusk::RunScenario(scaleUp).finished);
    std::filesystem::remove_all(dir);
}

TEST_CASE("routes: failures at 0 us that cut a host off for the whole run are refused, with a "
          "repair the run goes ahead",
          "[component][routes][failures]")
{
    // Two leaves, one spine: leaf0-spine0 down cuts leaf0's hosts off from leaf1's.
    auto spec = LeafSpine(2, 1, 1, 100);
    AddFlow(spec, 0, 1, 100'000);
    tusk::FailureEntry down;
    down.kind = "link_down";
    down.link = "leaf0-spine0";
    down.line = 7;
    spec.failures.push_back(down);
    const ns3::InputError e = ExpectInputError([&] { Run(spec); });
    CHECK(e.Key() == "failures[0]");
    CHECK(e.Line() == 7);
    INFO(e.Message());
    CHECK(Contains(e.Message(), "link_down at 0 us for the whole run"));
    CHECK(Contains(e.Message(), "2 ordered host pairs"));
    CHECK(Contains(e.Message(), "host0 -> host1, host1 -> host0"));

    // Repaired at 20 us, or brought up by a later link_up: the traffic has a route again, and
    // the run goes ahead (what it delivers is the failure tests' business).
    spec.failures[0].untilPs = 20'000'000;
    CHECK_NOTHROW(Run(spec));
    spec.failures[0].untilPs.reset();
    tusk::FailureEntry up = down;
    up.kind = "link_up";
    up.atPs = 20'000'000;
    spec.failures.push_back(up);
    CHECK_NOTHROW(Run(spec));
}

} // namespace TUSK_TEST_FILE
