// The steady-state probe (`simulator.steady_probe`, tusk/run/steady-probe.h) on tiny fabrics:
// what it finds where the answer is known (two line-rate flows: steady but for the ramp and
// the margin; an incast under PFC: never steady, for PFC), and that it changes no result.

#include "cli-helpers.h"
#include "run-helpers.h"
#include "scratch-dir.h"

#include "results/results-writer.h"
#include "scenario/scenario-toml.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

constexpr uint64_t kWindowPs = 10'000'000; // 10 µs

/** Two flows of `bytes` on disjoint paths through one switch (0 -> 1, 2 -> 3), at line rate:
 *  nothing shares a port, no congestion control. */
tusk::ScenarioSpec
TwoFlows(uint64_t bytes)
{
    auto s = LeafSpine(1, 1, 4, 100);
    AddFlow(s, 0, 1, bytes);
    AddFlow(s, 2, 3, bytes);
    s.simulator.steadyProbe = true;
    s.simulator.steadyWindowPs = kWindowPs;
    s.simulator.steadyWindows = 3;
    return s;
}

/** Hosts 0..n-2 each send `bytes` to host n-1 through one switch of a 4 MiB buffer: PFC must
 *  pause them (pfc-test.cc, oracle 12). */
tusk::ScenarioSpec
PausingIncast(uint32_t n, uint64_t bytes)
{
    auto s = LeafSpine(1, 1, n, 100);
    s.buffer.totalBytes = 4ULL << 20;
    for (uint32_t h = 0; h + 1 < n; ++h)
    {
        AddFlow(s, h, n - 1, bytes);
    }
    s.simulator.steadyProbe = true;
    s.simulator.steadyWindowPs = kWindowPs;
    return s;
}

/** The manifest without what differs from run to run (wall times) and what the probe adds:
 *  its section and its keys in the scenario's echo. */
nlohmann::json
ComparableManifest(const std::filesystem::path& dir)
{
    nlohmann::json m = nlohmann::json::parse(std::ifstream(dir / "manifest.json"));
    for (const char* k : {"wall_time_s", "setup_time_s", "run_time_s", "steady_probe"})
    {
        m.erase(k);
    }
    if (m["scenario"].contains("simulator"))
    {
        for (const char* k :
             {"steady_probe", "steady_window_us", "steady_windows", "steady_tolerance",
              "steady_jump", "steady_jump_spans"})
        {
            m["scenario"]["simulator"].erase(k);
        }
    }
    return m;
}

} // namespace

TEST_CASE("two line-rate flows on disjoint paths are steady but for the ramp and the margin, "
          "the skippable time is their duration less 2K + 1 windows",
          "[component][steady]")
{
    const uint64_t bytes = 10'000'000;
    const auto spec = TwoFlows(bytes);
    const auto r = Run(spec);
    REQUIRE(r.finished);
    REQUIRE(r.flows.size() == 2);
    const tusk::SteadyProbeStats& s = r.steady;
    REQUIRE(s.active);
    CHECK(s.windowPs == kWindowPs);
    const uint64_t k = s.windows;
    REQUIRE(k == 3);

    // Each flow runs alone at line rate: its duration from its FCT, its rate from its bytes.
    const double fctPs = static_cast<double>(std::max(r.flows[0].fctPs, r.flows[1].fctPs));
    const double bytesPerPs = static_cast<double>(bytes) / fctPs;
    INFO("FCT " << fctPs / 1e6 << " us, W " << kWindowPs / 1e6 << " us, windows "
                << s.probed << ", steady " << s.steady << ", jumps " << s.jumps
                << ", skippable " << s.skippablePs / 1e6 << " us");
    // Every window is probed until the last acknowledgement stops the run.
    const uint64_t ackedPs = std::max(r.flows[0].fctSenderPs, r.flows[1].fctSenderPs);
    CHECK(s.probed == ackedPs / kWindowPs);
    // Not steady: the first K - 1 windows (warming), the one whose last K hold the flows'
    // start, and the last, in which their bytes were all delivered before the acknowledgement
    // (their rate fell); the window of the acknowledgement is never probed (the run stops).
    CHECK(s.probed - s.steady == k + 1);
    CHECK(s.notSteady.at("warming") == k - 1);
    CHECK(s.notSteady.at("flow_start") == 1);
    CHECK(s.notSteady.at("rate_varies") == 1);
    CHECK(static_cast<double>(s.steady) / static_cast<double>(s.probed) > 0.9);

    // Analytic: steady at the end of window K + 1 (the start's window and K clean ones), a
    // jump to K windows before the end at the flows' rate: the duration less 2K + 1 windows,
    // within a window (delivery and acknowledgement lag the start by a fraction of one).
    const double expectedPs = fctPs - static_cast<double>((2 * k + 1) * kWindowPs);
    CHECK(s.jumps == 1);
    CHECK(static_cast<double>(s.skippablePs) ==
          Approx(expectedPs).margin(static_cast<double>(kWindowPs)));
    // The bytes both flows would have been credited over the jump, at their rate.
    const double expectedBytes = 2 * bytesPerPs * static_cast<double>(s.skippablePs);
    CHECK(static_cast<double>(s.skippableBytes) == Approx(expectedBytes).epsilon(0.02));
    CHECK(s.startedBytes == 2 * bytes);
    // The printed lines: the third gives each rule's skipped share and worst credit error.
    const std::string line = tusk::SteadyProbeLine(r);
    CHECK(line.find("  jumps unbounded: skip ") != std::string::npos);
    CHECK(line.find("; bounded to 1024 spans and checked again: ") != std::string::npos);
}

TEST_CASE("per component, two line-rate flows are steady beside flows that start and end "
          "every window elsewhere, and skip their duration less 2K + 1 windows each",
          "[component][steady]")
{
    // Hosts 0 -> 1 and 2 -> 3 send `bytes` at line rate through one switch; hosts 4 -> 5 and
    // 6 -> 7 send 100 kB flows one after another (each triggered by the previous one's last
    // ACK, so no timed arrival caps the horizon), a start and an end in every 10 µs window.
    const tusk_test::ScratchDir scratch("steady-probe-churn");
    const uint64_t bytes = 10'000'000;
    const uint32_t churn = 120;
    std::string cm = fmt::format("Nodes 8\nConnections {}\nTriggers {}\n", churn + 2, churn - 1);
    cm += fmt::format("0->1 id 1 start 0 size {}\n2->3 id 2 start 0 size {}\n", bytes, bytes);
    for (uint32_t i = 0; i < churn; ++i)
    {
        const uint32_t src = i % 2 == 0 ? 4 : 6;
        cm += fmt::format("{}->{} id {} ", src, src + 1, 3 + i);
        cm += i == 0 ? std::string("start 0") : fmt::format("trigger {}", i);
        cm += " size 100000";
        cm += i + 1 < churn ? fmt::format(" send_done_trigger {}\n", i + 1) : std::string("\n");
    }
    for (uint32_t i = 1; i < churn; ++i)
    {
        cm += fmt::format("trigger id {} oneshot\n", i);
    }
    const std::filesystem::path file = scratch.Root() / "churn.cm";
    std::ofstream(file) << cm;
    auto spec = LeafSpine(1, 1, 8, 100);
    spec.workload.kind = "htsim";
    spec.workload.file = file.string();
    spec.simulator.steadyProbe = true;
    spec.simulator.steadyWindowPs = kWindowPs;
    spec.simulator.steadyWindows = 3;
    const auto r = Run(spec);
    REQUIRE(r.finished);
    REQUIRE(r.flows.size() == churn + 2);
    const tusk::SteadyProbeStats& s = r.steady;
    REQUIRE(s.active);
    const uint64_t k = s.windows;
    const tusk::SteadyComponentStats& c = s.components;
    // The churn's last flow ends after the line-rate pair: a start in every window of theirs.
    const uint64_t pairEndPs = std::max(r.flows[0].fctSenderPs, r.flows[1].fctSenderPs);
    REQUIRE(r.flows.back().startPs > pairEndPs);
    INFO("windows " << s.probed << ", component-windows " << c.probed << ", components seen "
                    << c.seen << ", jumps " << c.jumps << ", skippable " << c.skippablePs / 1e6
                    << " us of component-time");

    // The fabric as one component: a start or an end in every window, never steady.
    CHECK(s.steady == 0);
    CHECK(s.jumps == 0);
    // Per component: each line-rate flow is a component of its own (no shared port), steady
    // but for its ramp and margin; each jumps once, to K windows before its end, skipping its
    // FCT less 2K + 1 windows within a window (as the fabric does without the churn, above).
    CHECK(c.jumps == 2);
    double expectedPs = 0;
    double expectedBytes = 0;
    for (size_t f = 0; f < 2; ++f)
    {
        const double fctPs = static_cast<double>(r.flows[f].fctPs);
        const double skipPs = fctPs - static_cast<double>((2 * k + 1) * kWindowPs);
        expectedPs += skipPs;
        expectedBytes += static_cast<double>(bytes) / fctPs * skipPs;
    }
    CHECK(static_cast<double>(c.skippablePs) ==
          Approx(expectedPs).margin(2.0 * static_cast<double>(kWindowPs)));
    CHECK(static_cast<double>(c.skippableBytes) == Approx(expectedBytes).epsilon(0.03));
    CHECK(c.steady > 0);
    CHECK(c.windowsUnattributed == 0);
    // The churn's flows: a new component each (its set changes every window), none steady.
    CHECK(c.seen >= churn);
    CHECK(c.mostInWindow >= 3);
    CHECK(c.jumpsBroken == 0);
}

TEST_CASE("an incast under PFC pauses: never steady while pausing, for PFC", "[component][steady]")
{
    const auto r = Run(PausingIncast(9, 2ULL << 20));
    REQUIRE(r.finished);
    const tusk::SteadyProbeStats& s = r.steady;
    REQUIRE(s.active);
    uint64_t pauses = 0;
    for (const auto& e : r.pfcEvents)
    {
        pauses += e.event.quanta > 0 && e.event.sent ? 1 : 0;
    }
    REQUIRE(pauses > 0);
    INFO("windows " << s.probed << ", steady " << s.steady);
    REQUIRE(s.notSteady.count("pfc") == 1);
    // The windows with a pause frame, and the K - 1 after each: PFC is the reason most often.
    uint64_t most = 0;
    std::string top;
    for (const auto& [reason, n] : s.notSteady)
    {
        if (n > most)
        {
            most = n;
            top = reason;
        }
    }
    CHECK(top == "pfc");
    CHECK(s.jumps == 0);
    CHECK(s.skippablePs == 0);
    // Per component: every flow takes the port into host n - 1, so they are one component
    // (from their start: the destination's port is known before any frame arrives), judged
    // as the fabric is while they all run.
    const tusk::SteadyComponentStats& c = s.components;
    CHECK(c.mostInWindow == 1);
    CHECK(c.notSteady.count("pfc") == 1);
    CHECK(c.steady == 0);
    CHECK(c.jumps == 0);
    for (const auto& b : s.bounded)
    {
        CHECK(b.fabric.jumps == 0);
    }
    CHECK(tusk::SteadyProbeLine(r).find("  jumps: none, unbounded or bounded\n") !=
          std::string::npos);
}

TEST_CASE("a start scheduled after a compute delay caps the horizon: no jump passes over the "
          "next iteration",
          "[component][steady]")
{
    // A long all-reduce (hosts 2, 3) runs steady beside a short job (hosts 0, 1) whose four
    // iterations each start after 300 µs of compute: the iteration's transfers are triggered,
    // not timed, so only the executor knows their start once the compute began
    // (WorkloadExecutor::NextPendingStartPs). Before, the first jump ran from the long job's
    // first steady window over every iteration of the short one (2 jumps, 16 transfer ends and
    // 17 windows with a start inside them).
    const char* const toml = R"(
stop_time_ms = 20
[topology]
kind = "leaf-spine"
leaves = 1
spines = 1
hosts_per_leaf = 6
host_link_gbps = 100
fabric_link_gbps = 100
[simulator]
steady_probe = true
steady_window_us = 10
[workload]
kind = "jobs"
[[jobs]]
name = "short"
placement = "explicit"
hosts = [0, 1]
iterations = 4
compute_us = 300
[[jobs.collectives]]
kind = "all-reduce"
bytes = "64KiB"
[[jobs]]
name = "long"
placement = "explicit"
hosts = [2, 3]
iterations = 1
[[jobs.collectives]]
kind = "all-reduce"
bytes = "40MB"
)";
    const auto r = Run(tusk::LoadScenarioString(toml, "compute-gaps.toml"));
    REQUIRE(r.finished);
    const tusk::SteadyProbeStats& s = r.steady;
    INFO("jumps " << s.jumps << ", skippable " << s.skippablePs / 1e6 << " us, ends in jumps "
                  << s.endsInJumps << ", jumped windows not steady " << s.jumpedNotSteady);
    // A jump in each of the four compute gaps (each stopped by the next iteration's start),
    // and the long job's after the short one is done.
    CHECK(s.jumps >= 5);
    CHECK(s.endsInJumps == 0);
    // At most the window ending where a jump stopped may hold the start it stopped at (the
    // start and the window's end are the same instant).
    CHECK(s.jumpedNotSteady <= s.jumps);
    CHECK(s.components.endsInJumps == 0);
}

TEST_CASE("the automatic window covers two periods of the congestion control's rate timers",
          "[component][steady]")
{
    // DCQCN raises its rate in steps one timer period apart (T and the alpha period K): over
    // less than a period, three windows can sit between two steps and look steady.
    auto s = LeafSpine(1, 1, 2, 100);
    AddFlow(s, 0, 1, 200'000);
    s.simulator.steadyProbe = true;
    const auto none = Run(s);
    REQUIRE(none.steady.active);
    CHECK(none.steady.windowPs < 20'000'000); // four base RTTs of one switch
    s.nic.congestionControl = "dcqcn";
    s.ecn.enabled = true;
    CHECK(Run(s).steady.windowPs == 2 * 55'000'000ULL); // the paper preset: T = K = 55 µs
    s.dcqcn.timerPs = 300'000'000;
    CHECK(Run(s).steady.windowPs == 2 * 300'000'000ULL); // the longer of T and K
    s.dcqcn.timerPs = 10'000'000;
    s.dcqcn.alphaUpdatePs = 80'000'000;
    CHECK(Run(s).steady.windowPs == 2 * 80'000'000ULL);
    s.simulator.steadyWindowPs = 7'000'000; // an explicit window is taken as it is
    CHECK(Run(s).steady.windowPs == 7'000'000ULL);
}

TEST_CASE("results with the probe on are the results with it off, byte for byte",
          "[component][steady]")
{
    struct Case
    {
        std::string name;
        tusk::ScenarioSpec spec;
    };
    // Line-rate flows; an incast under PFC; DCQCN on ECN marks over a sprayed leaf-spine; a
    // job's iterations replayed in fast mode (the progress tick stretches on event counts).
    auto dcqcn = LeafSpine(2, 2, 4, 100);
    dcqcn.workload.kind = "permutation";
    dcqcn.workload.bytes = 1'000'000;
    dcqcn.lb.policy = "spray";
    dcqcn.nic.receiver = "selective-repeat";
    dcqcn.nic.congestionControl = "dcqcn";
    dcqcn.ecn.enabled = true;
    auto job = LeafSpine(2, 2, 2, 100);
    job.workload.kind = "jobs";
    job.simulator.mode = "fast";
    tusk::JobEntry j;
    j.name = "ring";
    j.iterations = 12;
    j.computePs = 20'000'000;
    tusk::JobCollectiveEntry c;
    c.kind = "all-reduce";
    c.bytes = 256 * 1024;
    j.collectives.push_back(c);
    job.jobs.push_back(j);
    // A standalone ring's steps replayed in fast mode: its replay agenda joins actions only
    // while nothing else was scheduled in between (WorkloadExecutor::NoteReadOnlyEvent).
    auto ring = LeafSpine(4, 4, 4, 100);
    ring.workload.kind = "ring-allreduce";
    ring.workload.bytes = 4 << 20;
    ring.workload.channels = 1;
    ring.simulator.mode = "fast";
    ring.ns3Defaults["ns3::RingStepMemo::SampleTransfers"] = "0";
    const std::vector<Case> cases = {{"two-flows", TwoFlows(2'000'000)},
                                     {"incast", PausingIncast(9, 1ULL << 20)},
                                     {"dcqcn-spray", dcqcn},
                                     {"job-fast", job},
                                     {"ring-fast", ring}};
    for (const Case& c : cases)
    {
        CAPTURE(c.name);
        const tusk_test::ScratchDir scratch("steady-probe-" + c.name);
        const std::filesystem::path& base = scratch.Root();
        tusk::RunResult runs[2];
        for (const bool on : {false, true})
        {
            tusk::ScenarioSpec s = c.spec;
            s.simulator.steadyProbe = on;
            s.simulator.steadyWindowPs = on ? 5'000'000 : 0;
            s.simulator.steadyJump = "off"; // fast mode's jumps follow the window: not compared
            tusk::RunOptions o;
            o.progress = false;
            o.streamRows = true;
            runs[on] = tusk::RunInto(s, (base / (on ? "on" : "off")).string(), o);
            REQUIRE(runs[on].finished);
            REQUIRE(runs[on].steady.active == on);
        }
        REQUIRE(runs[1].steady.probed > 10);
        CHECK(runs[0].events == runs[1].events);
        size_t compared = 0;
        for (const auto& e : std::filesystem::directory_iterator(base / "off"))
        {
            const std::string name = e.path().filename().string();
            if (name == "manifest.json" || name == ".tusk-results")
            {
                continue;
            }
            CAPTURE(name);
            REQUIRE(std::filesystem::exists(base / "on" / name));
            CHECK(tusk_test::Slurp(e.path()) == tusk_test::Slurp(base / "on" / name));
            ++compared;
        }
        CHECK(compared >= 6);
        const nlohmann::json off = ComparableManifest(base / "off");
        const nlohmann::json on = ComparableManifest(base / "on");
        CHECK(off.dump(1) == on.dump(1));
        // The probe's section is in its run's manifest only.
        CHECK(nlohmann::json::parse(std::ifstream(base / "on" / "manifest.json"))
                  .contains("steady_probe"));
        CHECK_FALSE(nlohmann::json::parse(std::ifstream(base / "off" / "manifest.json"))
                        .contains("steady_probe"));
    }
}

} // namespace TUSK_TEST_FILE
