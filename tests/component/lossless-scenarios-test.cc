// DCQCN fairness (oracle 17), congestion spreading (a victim flow), and PFC deadlock detection
// and the PFC watchdog on a ring with cyclic routes.

#include "run-helpers.h"
#include "scenario/scenario-toml.h"

#include "fabric/helper/fabric-helper.h"
#include "rdma/model/rdma-nic.h"

#include "ns3/simulator.h"

#include <set>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;
using namespace ns3;

TEST_CASE("DCQCN: two flows share a 100G bottleneck fairly and the survivor climbs back "
          "(oracle 17, in seed 1)",
          "[component][dcqcn][oracle17]")
{
    // The default seed. Oracle 17's 50 +- 5 G within 10 ms holds in 3 of seeds 1-10 only
    // (scenarios/papers/dcqcn/README.md, item 3: the first cuts split the flows at random and
    // later cycles close ~1 % of the gap each); this run pins seed 1, one that converges, so a
    // change of the rate rules shows here. The survivor's recovery holds in every seed.
    auto spec = LeafSpine(1, 1, 3, 100, 1000);
    spec.nic.congestionControl = "dcqcn";
    spec.ecn.enabled = true; // Kmin 100 KB, Kmax 400 KB, Pmax 0.2 (oracle 14's curve)
    // The paper's values (tuned for 40G) with R_AI and R_HAI scaled by 100/40 and a 1 MB byte
    // counter, as scenarios/dcqcn-fairness.toml: with the 40G values the flows recover from the
    // initial cut too slowly to share a 100G link within 10 ms (see docs in rdma/doc).
    spec.dcqcn.preset = "paper";
    spec.dcqcn.rateAiBps = 100'000'000;
    spec.dcqcn.rateHaiBps = 500'000'000;
    spec.dcqcn.byteCounterBytes = 1'000'000;
    spec.stopTimePs = 200'000'000'000ULL;
    AddFlow(spec, 0, 2, 1'000'000'000); // long: ~ 85 ms
    AddFlow(spec, 1, 2, 60'000'000);    // stops after ~ 10 ms at 50 G
    // Delivered bytes of each flow, sampled at the receiver's two QPs (the first two QPNs,
    // created in transfer order).
    std::vector<std::pair<double, std::array<uint64_t, 2>>> samples;
    tusk::RunOptions o;
    o.beforeRun = [&](Fabric&, const std::vector<Ptr<RdmaNic>>& nics) {
        Ptr<RdmaNic> rx = nics[2];
        for (int ms = 1; ms <= 80; ++ms)
        {
            Simulator::Schedule(MilliSeconds(ms), [rx, &samples]() {
                std::array<uint64_t, 2> d{0, 0};
                for (uint32_t q = 0; q < 2 && q < rx->GetNQps(); ++q)
                {
                    d[q] = rx->GetQp(RdmaNic::kFirstQpn + q)->GetCounters().deliveredBytes;
                }
                samples.emplace_back(Simulator::Now().GetSeconds() * 1e3, d);
            });
        }
    };
    auto r = Run(spec, o);
    REQUIRE(r.finished);
    REQUIRE(samples.size() == 80);
    auto rateGbps = [&](int fromMs, int toMs, int flow) {
        return (samples[toMs - 1].second[flow] - samples[fromMs - 1].second[flow]) * 8.0 /
               ((toMs - fromMs) * 1e-3) / 1e9;
    };
    // Within 10 ms both flows converge to ~50 G each (window 5-9 ms, both still active).
    const double a = rateGbps(5, 9, 0);
    const double b = rateGbps(5, 9, 1);
    INFO("flow A " << a << " G, flow B " << b << " G");
    CHECK(a == Approx(50).margin(5));
    CHECK(b == Approx(50).margin(5));
    // Link utilisation >= 95 % of the payload capacity (100 G x 4096 / 4178 B on the wire).
    CHECK(a + b >= 0.95 * 100 * 4096 / 4178);
    // After B ends the survivor climbs back to >= 95 G; it must not stay at 50 G.
    const double late = rateGbps(60, 70, 0);
    INFO("flow A alone, 60-70 ms: " << late << " G");
    CHECK(late >= 95 * 4096.0 / 4178);
    CHECK(r.summary.ecnMarks > 0);
}

TEST_CASE("congestion spreading: an incast paused upstream slows an innocent victim flow",
          "[component][pfc]")
{
    // Leaf 0 hosts 0..7, leaf 1 hosts 8..15, one spine. Hosts 0..5 send to host 8 (incast);
    // host 6 sends to host 9, whose link is idle: its only fault is sharing leaf 0's uplink
    // and the spine's downlink with the incast.
    auto spec = LeafSpine(2, 1, 8, 100, 1000);
    spec.topology.leafSpine.fabricRateBps = 400'000'000'000ULL; // the bottleneck is host 8's link
    spec.buffer.totalBytes = 4ULL << 20;
    for (uint32_t h = 0; h < 6; ++h)
    {
        AddFlow(spec, h, 8, 4'000'000);
    }
    AddFlow(spec, 6, 9, 4'000'000);
    auto r = Run(spec);
    REQUIRE(r.finished);
    CHECK(r.summary.drops == 0);
    const auto& victim = r.flows.back();
    INFO("victim slowdown " << victim.slowdown << ", pause depth " << r.summary.pfcMaxDepth);
    // Without spreading, the victim would share the 100G uplink 7 ways at worst until the
    // incast's 24 MB drain at 100G; with PFC it is held back with the incast at the incast's
    // pace: far slower than alone.
    CHECK(victim.slowdown > 3.0);
    CHECK(r.summary.pfcMaxDepth >= 2); // the pause spread beyond the congested switch
    bool uplinkPaused = false;
    for (const auto& l : r.links)
    {
        uplinkPaused = uplinkPaused || (l.from == "leaf0" && l.to == "spine0" && l.pausedPs > 0);
    }
    CHECK(uplinkPaused);
    // The report shows it: the victim's row, and a PFC event table with depth >= 2.
    bool deep = false;
    for (const auto& e : r.pfcEvents)
    {
        deep = deep || (e.event.sent && e.event.depth >= 2);
    }
    CHECK(deep);
}

namespace
{

tusk::ScenarioSpec
DeadlockRing()
{
    tusk::ScenarioSpec s;
    s.name = "pfc-deadlock";
    s.topology.kind = "ring";
    s.topology.ring.switches = 4;
    s.topology.ring.hostsPerSwitch = 2;
    s.topology.ring.clockwiseRoutes = true;
    s.buffer.totalBytes = 4ULL << 20;
    s.buffer.dynamicThreshold = false;
    s.buffer.staticThresholdBytes = 64 * 1024;
    s.pfc.deadlockDetectPs = 500'000'000; // 500 us
    s.stopTimePs = 50'000'000'000ULL;
    s.workload.kind = "flows";
    // Every host sends two switches ahead, clockwise: each ring link carries two flows, and
    // every switch's ring egress waits on the next switch's: a cyclic buffer dependency.
    for (uint32_t h = 0; h < 8; ++h)
    {
        AddFlow(s, h, (h + 4) % 8, 20'000'000);
    }
    return s;
}

} // namespace

TEST_CASE("PFC deadlock on a four-switch ring with cyclic routes is detected and reported",
          "[component][pfc][deadlock]")
{
    auto r = Run(DeadlockRing());
    CHECK_FALSE(r.finished);
    INFO(r.failure);
    REQUIRE(r.failure.find("PFC deadlock") != std::string::npos);
    // The cycle names every switch of the ring.
    for (const char* sw : {"sw0", "sw1", "sw2", "sw3"})
    {
        CHECK(r.failure.find(sw) != std::string::npos);
    }
}

TEST_CASE("the PFC watchdog (forward action) breaks the deadlock and the run finishes",
          "[component][pfc][deadlock]")
{
    auto spec = DeadlockRing();
    spec.pfc.watchdogPs = 200'000'000;         // storm after 200 us paused
    spec.pfc.watchdogRecoveryPs = 100'000'000; // then ignore the pause for 100 us
    spec.pfc.watchdogAction = "forward";
    spec.nic.rtoPs = 100'000'000;
    // Forwarding through a pause overruns the next switch's headroom (drops, then go-back-N):
    // progress is slow but sure; here it finishes in ~70 ms.
    spec.stopTimePs = 500'000'000'000ULL;
    auto r = Run(spec);
    INFO(r.failure);
    CHECK(r.finished);
    CHECK(r.failure.empty());
    uint64_t triggers = 0;
    for (const auto& l : r.links)
    {
        triggers += l.watchdogTriggers;
    }
    CHECK(triggers > 0);
    for (const auto& f : r.flows)
    {
        CHECK(f.deliveredBytes == f.bytes);
    }
}

TEST_CASE("the PFC watchdog (drop action) drops what is queued in a storm, and counts it",
          "[component][pfc][deadlock]")
{
    auto spec = DeadlockRing();
    spec.pfc.watchdogPs = 200'000'000;
    spec.pfc.watchdogRecoveryPs = 100'000'000;
    spec.pfc.watchdogAction = "drop";
    spec.stopTimePs = 3'000'000'000ULL;
    spec.requireFinish = false;
    auto r = Run(spec);
    uint64_t watchdogDrops = 0;
    uint64_t triggers = 0;
    for (const auto& l : r.links)
    {
        watchdogDrops += l.drops[static_cast<int>(DropReason::PFC_WATCHDOG)];
        triggers += l.watchdogTriggers;
    }
    CHECK(triggers > 0);
    CHECK(watchdogDrops > 0);
    CHECK(r.failure.find("PFC deadlock") == std::string::npos); // the watchdog acted first
}

namespace
{

/** A 4 x 4 leaf-spine at 100 Gb/s with go-back-N receivers and
 *  HPCC web-search background traffic at 50 % load, under a per-packet adaptive policy. PFC
 *  pauses spread in both directions between leaves and spines, but shortest-path routing on
 *  a leaf-spine has no cyclic buffer dependency. */
tusk::ScenarioSpec
BusyLeafSpine(const std::string& policy)
{
    // Buffers, PFC thresholds and the NIC as a user's scenario gets them by default.
    const std::string toml = R"(
name = "busy-leaf-spine"
stop_time_ms = 10
require_finish = false
[topology]
kind = "leaf-spine"
leaves = 4
spines = 4
hosts_per_leaf = 4
host_link_gbps = 100
fabric_link_gbps = 100
link_delay_ns = 1000
[nic]
receiver = "go-back-n"
[pfc]
deadlock_detect_us = 100   # the old detector reported a false cycle after 5-10 ms here
[workload]
kind = "flows"
flows = [{ src = 0, dst = 5, bytes = 1000 }]
[[background]]
cdf_file = "data/hpcc/WebSearch_distribution.txt"
load = 0.5
duration_us = 2000
)";
    return tusk::LoadScenarioString(toml, std::string(TUSK_SOURCE_DIR) + "/busy-leaf-spine.toml",
                                    {"lb.policy=" + policy});
}

} // namespace

TEST_CASE("no PFC deadlock is reported on a busy leaf-spine under adaptive routing and the "
          "pause depth stays within the 3-switch path",
          "[component][pfc][deadlock]")
{
    // The case the old detector mistook for a cycle, a leaf and a spine pausing each other's
    // direction of one link, must happen in these runs. Since the switches hand the policies
    // the backlog (queued + on the wire), AR and DRILL spread this traffic so evenly
    // that no spine pauses a leaf that pauses it back (measured: spines pause leaves 1-3, leaf
    // 0 pauses the spines); random per-packet spraying, blind to queues, still does it.
    bool mutualSeen = false;
    for (const char* policy : {"ar", "drill", "spray"})
    {
        INFO(policy);
        auto r = Run(BusyLeafSpine(policy));
        INFO(r.failure);
        CHECK(r.failure.find("PFC deadlock") == std::string::npos);
        std::set<std::pair<std::string, std::string>> pausers;
        for (const auto& e : r.pfcEvents)
        {
            if (e.event.sent && e.event.quanta > 0)
            {
                pausers.emplace(e.at, e.peer);
            }
        }
        for (const auto& [a, b] : pausers)
        {
            mutualSeen = mutualSeen || pausers.count({b, a}) > 0;
        }
        // A leaf-spine path crosses 3 switches: the destination leaf's congested host port
        // pauses a spine (depth 1), the spine the source leaf (2), the leaf a host (3).
        CHECK(r.summary.pfcMaxDepth >= 2);
        CHECK(r.summary.pfcMaxDepth <= 3);
    }
    CHECK(mutualSeen);
}

TEST_CASE("the shipped scenarios/pfc-deadlock.toml is reported as a deadlock on the ring",
          "[component][pfc][deadlock]")
{
    auto spec = tusk::LoadScenarioFile(std::string(TUSK_SOURCE_DIR) + "/scenarios/pfc-deadlock.toml");
    auto r = Run(spec);
    CHECK_FALSE(r.finished);
    INFO(r.failure);
    REQUIRE(r.failure.find("PFC deadlock") != std::string::npos);
    for (const char* hop : {"sw0 port", "sw1 port", "sw2 port", "sw3 port"})
    {
        CHECK(r.failure.find(hop) != std::string::npos);
    }
}

} // namespace TUSK_TEST_FILE
