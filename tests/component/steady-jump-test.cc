// Steady-state jumps (`simulator.steady_jump`, tusk/run/steady-probe.h, steady-jumper.h,
// fabric/model/kernel/run-clock.h) on tiny fabrics, against packet mode: the time they skip,
// the FCTs they keep, the packets and link bytes they count, the times a scenario gave (timed
// starts, failures) kept, determinism, and where they are refused.

#include "cli-helpers.h"
#include "run-helpers.h"
#include "scratch-dir.h"

#include "results/results-writer.h"

#include "rdma/model/cc/rdma-congestion-control.h"

#include "ns3/object-factory.h"

#include <filesystem>
#include <fstream>
#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

constexpr uint64_t kWindowPs = 10'000'000; // 10 µs

/** `spec` with jumps on or off, windows of 10 µs, K = 3. */
tusk::ScenarioSpec
Jumping(tusk::ScenarioSpec s, bool on)
{
    s.simulator.steadyJump = on ? "on" : "off";
    s.simulator.steadyWindowPs = kWindowPs;
    s.simulator.steadyWindows = 3;
    return s;
}

/** |a - b| / b. */
double
Rel(double a, double b)
{
    return std::abs(a - b) / b;
}

const tusk::FlowRow&
FlowOf(const tusk::RunResult& r, uint32_t src)
{
    for (const auto& f : r.flows)
    {
        if (f.src == src)
        {
            return f;
        }
    }
    FAIL("no flow from host " << src);
    return r.flows.front();
}

/** The bytes the link from `from` to `to` sent (links.csv). */
uint64_t
LinkTxBytes(const tusk::RunResult& r, const std::string& from, const std::string& to)
{
    for (const auto& l : r.links)
    {
        if (l.from == from && l.to == to)
        {
            return l.txBytes;
        }
    }
    FAIL("no link " << from << " -> " << to);
    return 0;
}

std::string
Slurp(const std::filesystem::path& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST_CASE("two line-rate flows: jumps skip most of their time, FCTs within 0.5 % of packet "
          "mode, every packet and link byte counted",
          "[component][steady-jump]")
{
    auto s = LeafSpine(1, 1, 4, 100);
    AddFlow(s, 0, 1, 20'000'000);
    AddFlow(s, 2, 3, 20'000'000);
    const auto packet = Run(Jumping(s, false));
    const auto jump = Run(Jumping(s, true));
    REQUIRE(packet.finished);
    REQUIRE(jump.finished);
    CHECK_FALSE(packet.steadyJump.active);
    const tusk::SteadyJumpStats& j = jump.steadyJump;
    REQUIRE(j.active);
    INFO(tusk::SteadyJumpLine(jump));
    CHECK(j.jumps >= 2);
    // Each flow alone at line rate for about 1.6 ms: all but the history of 4K windows, the
    // K windows before the end and the K windows re-checked after each jump (at most 72 % in
    // 10 jumps), less what the trend test holds back for a packet's jitter per window.
    CHECK(static_cast<double>(j.skippedPs) > 0.6 * static_cast<double>(jump.simEndPs));
    CHECK(j.rechecksOff == 0);
    CHECK(jump.events < packet.events / 2);
    for (const uint32_t src : {0u, 2u})
    {
        const auto& p = FlowOf(packet, src);
        const auto& f = FlowOf(jump, src);
        CHECK(Rel(static_cast<double>(f.fctPs), static_cast<double>(p.fctPs)) < 0.005);
        // Every data packet of the message: simulated or skipped, counted once.
        CHECK(f.pktsSent == p.pktsSent);
        CHECK(f.pktsReceived == p.pktsReceived);
        CHECK(f.deliveredBytes == p.deliveredBytes);
    }
    CHECK(j.skippedBytes == j.skippedPackets * s.nic.mtuBytes);
    // The links count the skipped frames at their rates (rounded per jump).
    const double hostTx = static_cast<double>(LinkTxBytes(packet, "host0", "leaf0"));
    CHECK(Rel(static_cast<double>(LinkTxBytes(jump, "host0", "leaf0")), hostTx) < 0.002);
    CHECK(Rel(static_cast<double>(jump.simEndPs), static_cast<double>(packet.simEndPs)) < 0.005);
}

TEST_CASE("a timed start after jumps starts at its given time, and a failure at its given "
          "time acts then",
          "[component][steady-jump]")
{
    auto s = LeafSpine(1, 1, 4, 100);
    AddFlow(s, 0, 1, 20'000'000);
    AddFlow(s, 2, 3, 2'000'000, 900'000'000); // starts at 900 µs
    tusk::FailureEntry degrade;               // host 0's link at half rate from 600 µs
    degrade.kind = "degrade";
    degrade.link = "host0-leaf0";
    degrade.rateDivisor = 2;
    degrade.atPs = 600'000'000;
    s.failures.push_back(degrade);
    const auto packet = Run(Jumping(s, false));
    const auto jump = Run(Jumping(s, true));
    REQUIRE(packet.finished);
    REQUIRE(jump.finished);
    INFO(tusk::SteadyJumpLine(jump));
    // Jumps before the failure (it caps them, then breaks the steady state).
    REQUIRE(jump.steadyJump.jumps >= 1);
    CHECK(FlowOf(jump, 2).startPs == 900'000'000);
    CHECK(FlowOf(packet, 2).startPs == 900'000'000);
    for (const uint32_t src : {0u, 2u})
    {
        CAPTURE(src, FlowOf(jump, src).fctPs, FlowOf(packet, src).fctPs);
        CHECK(Rel(static_cast<double>(FlowOf(jump, src).fctPs),
                  static_cast<double>(FlowOf(packet, src).fctPs)) < 0.005);
    }
}

TEST_CASE("DCQCN flows sharing a bottleneck: FCTs within the 2 % tolerance of packet mode, "
          "and the same seed gives the same bytes",
          "[component][steady-jump]")
{
    auto s = LeafSpine(1, 1, 3, 100);
    s.nic.congestionControl = "dcqcn";
    s.ecn.enabled = true;
    AddFlow(s, 0, 2, 40'000'000);
    AddFlow(s, 1, 2, 10'000'000);
    s.simulator.steadyWindowPs = 0; // automatic: two of DCQCN's rate-timer periods
    const auto packet = Run(Jumping(s, false));
    auto on = Jumping(s, true);
    on.simulator.steadyWindowPs = 0;
    const tusk_test::ScratchDir scratch("steady-jump-dcqcn");
    tusk::RunOptions o;
    o.progress = false;
    const auto a = tusk::RunInto(on, (scratch.Root() / "a").string(), o);
    const auto b = tusk::RunInto(on, (scratch.Root() / "b").string(), o);
    REQUIRE(a.finished);
    INFO(tusk::SteadyJumpLine(a));
    CHECK(a.steadyJump.jumps >= 1);
    for (const uint32_t src : {0u, 1u})
    {
        CHECK(Rel(static_cast<double>(FlowOf(a, src).fctPs),
                  static_cast<double>(FlowOf(packet, src).fctPs)) < on.simulator.steadyTolerance);
    }
    for (const char* file : {"flows.csv", "links.csv", "pfc_events.csv"})
    {
        CAPTURE(file);
        CHECK(Slurp(scratch.Root() / "a" / file) == Slurp(scratch.Root() / "b" / file));
    }
}

TEST_CASE("an output that counts every packet refuses every jump, and the results are packet "
          "mode's",
          "[component][steady-jump]")
{
    auto s = LeafSpine(1, 1, 4, 100);
    AddFlow(s, 0, 1, 5'000'000);
    s.output.pathTelemetry = true;
    const auto packet = Run(Jumping(s, false));
    const auto jump = Run(Jumping(s, true));
    CHECK(jump.steadyJump.jumps == 0);
    CHECK(jump.steadyJump.refused.at("path_telemetry") >= 1);
    CHECK(FlowOf(jump, 0).fctPs == FlowOf(packet, 0).fctPs);
    CHECK(jump.events == packet.events);
}

TEST_CASE("a control that steps on sparse feedback (TIMELY) refuses every jump, by its own "
          "word",
          "[component][steady-jump]")
{
    // RdmaCongestionControl::StepsOnSparseFeedback: TIMELY says so, DCQCN does not.
    CHECK(ns3::ObjectFactory("ns3::TimelyCongestionControl")
              .Create<ns3::RdmaCongestionControl>()
              ->StepsOnSparseFeedback());
    CHECK(!ns3::ObjectFactory("ns3::DcqcnCongestionControl")
               .Create<ns3::RdmaCongestionControl>()
               ->StepsOnSparseFeedback());
    auto s = LeafSpine(1, 1, 4, 100);
    s.nic.congestionControl = "timely";
    AddFlow(s, 0, 1, 5'000'000);
    const auto packet = Run(Jumping(s, false));
    const auto jump = Run(Jumping(s, true));
    CHECK(jump.steadyJump.jumps == 0);
    CHECK(jump.steadyJump.refused.at("cc_sparse_feedback") >= 1);
    CHECK(FlowOf(jump, 0).fctPs == FlowOf(packet, 0).fctPs);
}

TEST_CASE("steady_jump = \"on\" needs the lean kernel: exit 2 naming the key",
          "[component][steady-jump]")
{
    const tusk_test::ScratchDir scratch("steady-jump-kernel");
    const auto file = scratch.Root() / "s.toml";
    std::ofstream(file) << "name = \"k\"\n[topology]\nkind = \"leaf-spine\"\nleaves = 1\n"
                           "spines = 1\nhosts_per_leaf = 2\n[workload]\nkind = \"flows\"\n"
                           "flows = [{ src = 0, dst = 1, bytes = 100000 }]\n[simulator]\n"
                           "implementation = \"default\"\nsteady_jump = \"on\"\n";
    const auto r = Tusk("run " + file.string() + " -q --out " + (scratch.Root() / "out").string());
    CHECK(r.status == 2);
    CHECK(r.output.find("steady_jump") != std::string::npos);
    CHECK(r.output.find("lean") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(scratch.Root() / "out"));
}

} // namespace TUSK_TEST_FILE
