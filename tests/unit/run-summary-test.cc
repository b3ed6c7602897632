// The run summary (tusk/run/run-summary.cc), computed once in C++ and read by the analysis from the
// manifest: uplink balance per switch, slowdown quantiles, the slowest collective, fabric
// drops, on hand-made tables.

#include "run/run-stages.h"

#include <catch2/catch.hpp>

#include <cmath>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;

namespace
{

tusk::LinkRow
Uplink(const std::string& from, uint64_t txBytes, double util)
{
    tusk::LinkRow l;
    l.from = from;
    l.to = "spine";
    l.uplink = true;
    l.txBytes = txBytes;
    l.meanUtilisation = util;
    return l;
}

tusk::FlowRow
Flow(double slowdown, uint64_t fctPs, bool finished = true)
{
    tusk::FlowRow f;
    f.finished = finished;
    f.slowdown = slowdown;
    f.fctPs = fctPs;
    return f;
}

} // namespace

TEST_CASE("uplink balance is judged per switch and combined over switches by bytes",
          "[unit][stats][summary]")
{
    RunResult r;
    r.simEndPs = 50'000'000;
    r.links = {Uplink("leaf0", 300, 0.6), Uplink("leaf0", 100, 0.2), Uplink("leaf1", 50, 0.1),
               Uplink("leaf1", 50, 0.1)};
    tusk::LinkRow host; // not an uplink: ignored by the balance, counted for drops
    host.drops[static_cast<int>(ns3::DropReason::BUFFER_OVERFLOW)] = 2;
    host.drops[static_cast<int>(ns3::DropReason::NIC_STALE)] = 9; // not a fabric drop
    host.pausedPs = 25'000'000;
    r.links.push_back(host);
    const RunSummary s = Summarize(r, "ecmp", 7);
    // Σ max / Σ mean = (300 + 50) / (200 + 50).
    CHECK(s.uplinkImbalance == Approx(350.0 / 250.0));
    // leaf0: 400^2 / (2 * 100000) = 0.8 over 400 B; leaf1: 1.0 over 100 B.
    CHECK(s.uplinkJain == Approx((0.8 * 400 + 1.0 * 100) / 500));
    CHECK(s.uplinkMaxUtil == 0.6);
    CHECK(s.uplinkMeanUtil == Approx(0.25));
    CHECK(s.drops == 2);
    CHECK(s.pausedFraction == Approx(0.5 / 5)); // one of 5 link directions paused half the run
    CHECK(s.trimmedFrames == 7);
    CHECK(s.policy == "ecmp");
    // No uplinks (one switch, a ring): no balance to report, not a perfect-looking 1.
    RunResult single;
    single.links = {host};
    CHECK(std::isnan(Summarize(single, "ecmp", 0).uplinkImbalance));
    CHECK(std::isnan(Summarize(single, "ecmp", 0).uplinkMaxUtil));
}

TEST_CASE("slowdown quantiles over finished flows and the slowest collective",
          "[unit][stats][summary]")
{
    RunResult r;
    r.flows = {Flow(2.0, 10'000'000), Flow(2.0, 12'000'000), Flow(4.0, 20'000'000),
               Flow(0, 0, false)};
    tusk::CollectiveRow fast;
    fast.finished = true;
    fast.cctPs = 10'000'000;
    fast.lowerBoundPs = 4'000'000;
    tusk::CollectiveRow slow = fast;
    slow.cctPs = 30'000'000;
    slow.lowerBoundPs = 8'000'000;
    slow.busbwGBps = 0.5;
    r.collectives = {fast, slow};
    const RunSummary s = Summarize(r, "spray", 0);
    CHECK(s.meanSlowdown == Approx(8.0 / 3));
    // Nearest rank (type 1): rank ceil(0.99 * 3) = 3 of [2, 2, 4]; the p50 is rank 2.
    CHECK(s.p50Slowdown == 2.0);
    CHECK(s.p99Slowdown == 4.0);
    CHECK(s.p999Slowdown == 4.0);
    CHECK(s.quantileMethod == "nearest-rank");
    CHECK(s.maxFctUs == 20.0);
    CHECK(s.unfinished == 1);
    CHECK(s.cctUs == 30.0);
    CHECK(s.lowerBoundUs == 8.0);
    CHECK(s.busbwGBps == 0.5);
}

TEST_CASE("a watchdog stop says why a frame waited for the retransmission timeout: out-of-order "
          "discards under go-back-N or a loss",
          "[unit][run]")
{
    ScenarioSpec spec;
    spec.nic.rtoPs = 67'108'864'000; // 67.1 ms: a deployed NIC's Local ACK Timeout
    spec.nic.receiver = "go-back-n";
    RunSummary summary;
    summary.oooPackets = 1'057'667;
    const uint64_t watchdogPs = 20'000'000'000; // 20 ms

    // Spraying over go-back-N: no drop, arrivals discarded out of order.
    std::string hint = WatchdogTimeoutHint(spec, summary, watchdogPs);
    CHECK(hint.find("no frame was dropped") != std::string::npos);
    CHECK(hint.find("discarded 1057667 out-of-order arrivals") != std::string::npos);
    CHECK(hint.find("nic.receiver = \"selective-repeat\"") != std::string::npos);
    CHECK(hint.find("nic.rto_us = 67108.864 us") != std::string::npos);

    // A drop: the frame was lost, whatever else was reordered.
    summary.drops = 1;
    hint = WatchdogTimeoutHint(spec, summary, watchdogPs);
    CHECK(hint.find("a frame lost without a NACK") != std::string::npos);
    CHECK(hint.find("no frame was dropped") == std::string::npos);

    // Selective repeat keeps what arrives out of order: not the go-back-N explanation.
    summary.drops = 0;
    spec.nic.receiver = "selective-repeat";
    CHECK(WatchdogTimeoutHint(spec, summary, watchdogPs).find("a frame lost without a NACK") !=
          std::string::npos);

    // A timeout within the watchdog explains nothing about the stop.
    spec.nic.rtoPs = watchdogPs;
    CHECK(WatchdogTimeoutHint(spec, summary, watchdogPs).empty());
}

TEST_CASE("an unfinished run under go-back-N with out-of-order arrivals names what was discarded "
          "and resent, and selective repeat",
          "[unit][summary]")
{
    ScenarioSpec spec;
    spec.nic.receiver = "go-back-n";
    RunSummary summary;
    CHECK(GoBackNResendNote(spec, summary).empty()); // nothing reordered: nothing to say
    summary.oooPackets = 286'321;
    summary.retxPackets = 381'185;
    summary.retxBytes = 1'561'333'760;
    const std::string note = GoBackNResendNote(spec, summary);
    CHECK(note.find("discarded 286321 out-of-order arrivals") != std::string::npos);
    CHECK(note.find("resent 381185 packets (1561333760 B of payload)") != std::string::npos);
    CHECK(note.find("nic.receiver = \"selective-repeat\"") != std::string::npos);
    spec.nic.receiver = "selective-repeat"; // keeps what arrives out of order
    CHECK(GoBackNResendNote(spec, summary).empty());
}

TEST_CASE("a retransmission timeout shorter than the longest base RTT is warned of, naming the "
          "pair",
          "[unit][summary]")
{
    ScenarioSpec spec;
    PairRtt longest;
    longest.src = 2;
    longest.dst = 4;
    longest.links = 6;
    longest.rttPs = 2'012'853'000; // 2 ms: DiLoCo's cross-site path
    spec.nic.rtoPs = 10'000'000;   // 10 us
    std::string w = RtoBelowRttWarning(spec, longest);
    CHECK(w.find("nic.rto_us (10.000 µs) is shorter than the longest base RTT (2012.853 µs, "
                 "host 2 -> 4, 6 links)") != std::string::npos);
    CHECK(w.find("a deployed NIC's timeout is 67108.864 µs") != std::string::npos);
    spec.nic.rtoPs = longest.rttPs; // equal: an ACK can come back in time
    CHECK(RtoBelowRttWarning(spec, longest).empty());
    CHECK(RtoBelowRttWarning(spec, PairRtt{}).empty()); // no path measured: nothing to compare
    // Beyond the deployed timeout (a 100 ms long haul), the default is no advice.
    longest.rttPs = 100'012'853'000;
    spec.nic.rtoPs = 67'108'864'000;
    w = RtoBelowRttWarning(spec, longest);
    CHECK_FALSE(w.empty());
    CHECK(w.find("deployed") == std::string::npos);
}

TEST_CASE("the go-back-N notes follow the transport: none under UEC RUD, RUD named under ROD",
          "[unit][summary]")
{
    ScenarioSpec spec;
    RunSummary summary;
    summary.oooPackets = 7'509;
    summary.retxPackets = 100;
    spec.nic.transport = "uec-rud"; // SACK bitmaps: keeps what arrives out of order
    CHECK(GoBackNResendNote(spec, summary).empty());
    CHECK(WatchdogTimeoutHint(spec, summary, 1).find("no frame was dropped") == std::string::npos);
    spec.nic.transport = "uec-rod"; // go-back-N, and nic.receiver cannot change that
    const std::string note = GoBackNResendNote(spec, summary);
    CHECK(note.find("nic.transport = \"uec-rud\"") != std::string::npos);
    CHECK(note.find("selective-repeat") == std::string::npos);
    const std::string hint = WatchdogTimeoutHint(spec, summary, 1);
    CHECK(hint.find("no frame was dropped") != std::string::npos);
    CHECK(hint.find("nic.transport = \"uec-rud\"") != std::string::npos);
}

} // namespace TUSK_TEST_FILE
