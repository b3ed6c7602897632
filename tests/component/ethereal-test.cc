// The `ethereal` policy preset: application-split single-path subflows (Addanki et al.,
// Ethereal, arXiv 2407.00550, 2024) on a small 4-plane leaf-spine. A transfer is split over
// k QPs (QP scaling Split), each QP carries one source route for its whole life, and the QPs
// a host creates take the fabric's routes in turn from route (host x k) on. Checked here:
// every frame of a subflow arrives by exactly the links its route names (no spraying inside a
// subflow), the subflows of one host (and of one leaf) cover the routes evenly, every byte of
// a permutation is delivered, and on an idle fabric a transfer split over every route
// finishes in about its bytes over the NIC's aggregate rate (4 planes x 100 Gb/s), a quarter
// of the one-route time. Failover: when one plane's spine link fails mid-transfer, the
// subflows pinned to the dead route move to another route (after a retransmission timeout,
// or after FailoverTime of silence when that is set) and every byte arrives; with the
// selector's Failover off they stay and the run stalls.

#include "dead-route-watch.h"
#include "run-helpers.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/helper/multi-plane.h"
#include "fabric/helper/source-routes.h"
#include "lb-policies/host/ethereal-path-selector.h"
#include "rdma/model/rdma-nic.h"
#include "rdma/model/rdma-queue-pair.h"

#include "ns3/callback.h"

#include <map>
#include <set>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

constexpr uint64_t kGbps = 1'000'000'000ULL;

using FrameCallback = ns3::Callback<void, ns3::Ptr<const ns3::Packet>, const ns3::FrameMeta&>;

/** A 4-plane 2 x 2 leaf-spine of 400 G NICs (100 G per plane), 2 hosts per leaf: 8 routes
 *  between hosts of different leaves (4 planes x 2 spines). */
tusk::ScenarioSpec
FourPlanes()
{
    auto s = LeafSpine(2, 2, 2, 400);
    s.topology.leafSpine.fabricRateBps = 100 * kGbps;
    s.topology.leafSpine.planes = 4;
    s.lb.policy = "ethereal";
    return s;
}

/** Per receiving host: for every entropy (route) seen, the distinct link sequences its data
 *  frames took and how many frames; filled by the Rx traces Watch connects. */
struct Observed
{
    std::map<std::pair<uint32_t, uint16_t>, std::set<std::vector<uint32_t>>> paths;
    std::map<std::pair<uint32_t, uint16_t>, uint64_t> frames;
    std::map<std::pair<uint32_t, uint16_t>, std::vector<uint32_t>> expected;
    uint32_t routes = 0;
};

/** Trace the data frames arriving at every host of `senderOf` (dst -> its only sender). */
tusk::RunOptions
Watch(Observed& obs, const std::map<uint32_t, uint32_t>& senderOf)
{
    tusk::RunOptions o;
    o.beforeRun = [&obs, senderOf](ns3::Fabric& f,
                                   const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics) {
        const ns3::TopologyGraph* g = &f.graph;
        auto ports = std::make_shared<std::vector<std::vector<uint32_t>>>(ns3::IncidentLinks(*g));
        auto table = std::make_shared<ns3::EqualCostTable>(ns3::ComputeEqualCostPorts(*g));
        const ns3::SourceRouteLayout layout = ns3::SourceRouteLayoutOf(*g, *table);
        obs.routes = layout.Routes();
        for (const auto& [dst, src] : senderOf)
        {
            for (uint32_t k = 0; k < nics[dst]->GetNPlanes(); ++k)
            {
                nics[dst]->GetPlanePort(k)->TraceConnectWithoutContext(
                    "Rx",
                    FrameCallback([&obs, g, ports, table, layout, src = src, dst = dst](
                                      ns3::Ptr<const ns3::Packet>, const ns3::FrameMeta& m) {
                        if (m.kind != ns3::FrameKind::DATA)
                        {
                            return;
                        }
                        const auto key = std::make_pair(dst, m.srcPort);
                        std::vector<uint32_t> links;
                        ns3::DecodeHostPortPath(*g, *ports, src,
                                                ns3::PlaneOfEntropy(m.srcPort, layout.planes),
                                                m.path, links);
                        obs.paths[key].insert(links);
                        ++obs.frames[key];
                        obs.expected[key] = ns3::RouteLinks(*g, *ports, *table, layout, src, dst,
                                                            ns3::RouteOfEntropy(m.srcPort));
                    }));
            }
        }
    };
    return o;
}

} // namespace

TEST_CASE("ethereal: each subflow keeps one route, a host's subflows cover the routes evenly, "
          "a permutation delivers every byte",
          "[component][planes][ethereal]")
{
    auto s = FourPlanes();
    const uint64_t bytes = 64 * 4096;
    // A permutation across the two leaves: 0 -> 2, 1 -> 3, 2 -> 0, 3 -> 1.
    const std::map<uint32_t, uint32_t> senderOf{{2, 0}, {3, 1}, {0, 2}, {1, 3}};
    for (const auto& [dst, src] : senderOf)
    {
        AddFlow(s, src, dst, bytes);
    }
    Observed obs;
    auto r = Run(s, Watch(obs, senderOf));
    REQUIRE(r.finished);
    REQUIRE(obs.routes == 8);
    // Without nic.qps_per_connection: one subflow per route.
    CHECK(r.qpsPerConnection == 8);
    CHECK(r.pathSelectorTypeId == "ns3::EtherealPathSelector");
    for (const auto& f : r.flows)
    {
        CHECK(f.finished);
        CHECK(f.deliveredBytes == bytes);
        CHECK(f.qps == 8);
        CHECK(f.retxPackets == 0);
    }
    std::map<uint32_t, std::set<uint32_t>> routesOf; // per receiving host
    for (const auto& [key, paths] : obs.paths)
    {
        INFO("dst " << key.first << " entropy " << key.second);
        REQUIRE(paths.size() == 1); // no spraying inside a subflow
        CHECK(*paths.begin() == obs.expected[key]);
        CHECK(!obs.expected[key].empty());
        CHECK(obs.frames[key] == bytes / 4096 / 8); // Split: an equal part per subflow
        routesOf[key.first].insert(ns3::RouteOfEntropy(key.second));
    }
    REQUIRE(routesOf.size() == 4);
    for (const auto& [dst, routes] : routesOf)
    {
        CHECK(routes == std::set<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}); // every route, once
    }
}

TEST_CASE("ethereal: with k below the route count, the subflows of all flows of one host "
          "take the routes in turn",
          "[component][planes][ethereal]")
{
    auto s = FourPlanes();
    s.nic.qpsPerConnection = 2;
    s.keyLines["nic.qps_per_connection"] = 1; // as if the scenario file set it
    const uint64_t bytes = 32 * 4096;
    // Host 0 sends to both hosts of the other leaf: 2 connections x 2 subflows. Its QPs get
    // routes (0 x 2 + j) mod 8, j = 0..3: routes 0..3, each once, two connections together.
    const std::map<uint32_t, uint32_t> senderOf{{2, 0}, {3, 0}};
    AddFlow(s, 0, 2, bytes);
    AddFlow(s, 0, 3, bytes);
    Observed obs;
    auto r = Run(s, Watch(obs, senderOf));
    REQUIRE(r.finished);
    CHECK(r.qpsPerConnection == 2);
    std::multiset<uint32_t> routes;
    std::set<uint32_t> planes;
    for (const auto& [key, paths] : obs.paths)
    {
        REQUIRE(paths.size() == 1);
        CHECK(*paths.begin() == obs.expected[key]);
        routes.insert(ns3::RouteOfEntropy(key.second));
        planes.insert(ns3::PlaneOfEntropy(key.second, 4));
    }
    CHECK(routes == std::multiset<uint32_t>{0, 1, 2, 3});
    CHECK(planes.size() == 4); // routes 0..3: one per plane
    for (const auto& f : r.flows)
    {
        CHECK(f.deliveredBytes == bytes);
    }
}

TEST_CASE("ethereal: on an idle fabric a transfer split over every route finishes in its bytes "
          "over the aggregate rate",
          "[component][planes][ethereal]")
{
    // One 4 MiB transfer 0 -> 2. Split over the 8 routes, the NIC's 4 plane ports (100 Gb/s
    // each, 2 subflows per port) all carry it: the payload alone needs 4 MiB x 8 / 400 Gb/s =
    // 83.886 us on the wire; with RoCEv2 framing (1,024 packets of 4,096 + 62 + 20 bytes:
    // ideal-fct.h) 85.56 us, plus 4 links of 1 us and 3 store-and-forward hops of 0.33 us:
    // about 90.6 us, under the 94.1 us bound checked. On one route (k = 1) the same transfer
    // gets one 100 Gb/s port: over 4 x 83.886 = 335.5 us.
    const uint64_t bytes = 4ULL << 20;
    const double payloadUs = bytes * 8.0 / (400.0 * kGbps) * 1e6; // 83.886
    const bool split = GENERATE(true, false);
    auto s = FourPlanes();
    if (!split)
    {
        s.nic.qpsPerConnection = 1;
        s.keyLines["nic.qps_per_connection"] = 1;
    }
    AddFlow(s, 0, 2, bytes);
    auto r = Run(s);
    REQUIRE(r.finished);
    REQUIRE(r.flows.size() == 1);
    const double fctUs = r.flows[0].fctPs / 1e6;
    INFO("split " << split << ": FCT " << fctUs << " us, payload at 400 Gb/s " << payloadUs
                  << " us, ideal " << r.flows[0].idealFctPs / 1e6 << " us");
    if (split)
    {
        CHECK(fctUs > payloadUs);
        CHECK(fctUs < payloadUs * 1.05 + 6.0);
        // tusk's ideal FCT of a 4-plane NIC is the same aggregate (every rate x 4).
        CHECK(fctUs < r.flows[0].idealFctPs / 1e6 * 1.03);
    }
    else
    {
        CHECK(fctUs > 4 * payloadUs);
    }
}

namespace
{

constexpr uint64_t kFailAtUs = 30;
constexpr uint64_t kRtoUs = 200;
constexpr uint64_t kFlowBytes = 4ULL << 20;

/** What the failover run saw at the senders (hosts 0 and 1). */
struct FailoverLog : DeadRouteLog
{
    std::vector<std::pair<uint64_t, uint16_t>> repins; //!< (time ps, entropy left)
    std::vector<std::pair<uint64_t, uint16_t>> acks;   //!< receivers' ACK frames: (time ps, entropy)
};

/**
 * Hosts 0 and 1 (leaf 0) each send 4 MiB to hosts 2 and 3 (leaf 1), split over the 8 routes
 * (`reverse`: hosts 2 and 3 to hosts 0 and 1); plane 2's link leaf 1 - spine 1 fails at 30 us.
 * As scenarios/multi-plane/spine-failure.toml: static routes (no reconvergence), no PFC,
 * trimming behind 64 KiB, a selective-repeat receiver, a 200 us retransmission timer. `ns3`
 * sets EtherealPathSelector attributes.
 */
tusk::RunResult
RunFailover(const std::map<std::string, std::string>& ns3, FailoverLog& log, bool reverse = false)
{
    const std::vector<std::pair<uint32_t, uint32_t>> pairs =
        reverse ? std::vector<std::pair<uint32_t, uint32_t>>{{2, 0}, {3, 1}}
                : std::vector<std::pair<uint32_t, uint32_t>>{{0, 2}, {1, 3}};
    auto s = FourPlanes();
    s.nic.receiver = "selective-repeat";
    s.nic.rtoPs = kRtoUs * 1'000'000;
    s.pfc.enabled = false;
    s.fabric.reconvergencePs = 0;
    s.ns3Defaults["ns3::SwitchNode::TrimThresholdBytes"] = "65536";
    for (const auto& [k, v] : ns3)
    {
        s.ns3Defaults["ns3::EtherealPathSelector::" + k] = v;
    }
    s.stopTimePs = 20'000'000'000ULL;
    AddLinkDown(s, "p2.leaf1-p2.spine1", kFailAtUs * 1'000'000);
    for (const auto& [src, dst] : pairs)
    {
        AddFlow(s, src, dst, kFlowBytes);
    }
    tusk::RunOptions o;
    o.beforeRun = [&log, pairs](ns3::Fabric& fab, const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics) {
        WatchDeadRoutes(log, fab, nics, pairs, "p2.leaf1", "p2.spine1", kFailAtUs * 1'000'000);
        for (const auto& [src, dst] : pairs)
        {
            for (uint32_t k = 0; k < nics[dst]->GetNPlanes(); ++k)
            {
                nics[dst]->GetPlanePort(k)->TraceConnectWithoutContext(
                    "Tx", FrameCallback([&log](ns3::Ptr<const ns3::Packet>, const ns3::FrameMeta& m) {
                        if (m.kind == ns3::FrameKind::ACK)
                        {
                            log.acks.emplace_back(ns3::Simulator::Now().GetPicoSeconds(), m.srcPort);
                        }
                    }));
            }
            nics[src]->TraceConnectWithoutContext(
                "QpCreated",
                ns3::Callback<void, ns3::Ptr<ns3::RdmaQueuePair>>(
                    [&log](ns3::Ptr<ns3::RdmaQueuePair> qp) {
                        qp->GetPathSelector()->TraceConnectWithoutContext(
                            "Repinned", ns3::Callback<void, uint16_t, uint16_t>(
                                            [&log](uint16_t from, uint16_t) {
                                                log.repins.emplace_back(
                                                    ns3::Simulator::Now().GetPicoSeconds(), from);
                                            }));
                    }));
        }
    };
    return Run(s, o);
}

} // namespace

TEST_CASE("ethereal: when a spine link fails, the subflows on its route move to another route "
          "within the bound and every transfer completes, without failover the run stalls",
          "[component][planes][ethereal][failover]")
{
    SECTION("failover after a retransmission timeout (the default)")
    {
        // The dead route's subflow of each sender (route 6: plane 2, spine 1) keeps sending
        // its 512 KiB share (an eighth of 4 MiB; at least 50 Gb/s, its half of a 100 G plane
        // port: under 84 us) into the dead link; nothing comes back, so its retransmission
        // timer, 200 us after its last feedback (one round trip, under 10 us, after the
        // failure at the latest), fires: TIMEOUT moves it. Bound: 30 + 84 + 10 + 200 us.
        const uint64_t boundPs = (kFailAtUs + 84 + 10 + kRtoUs) * 1'000'000;
        FailoverLog log;
        auto r = RunFailover({}, log);
        REQUIRE(log.deadEntropies.size() == 1);
        INFO("last frame on the dead route " << log.lastDeadSendPs / 1e6 << " us, failure at "
                                             << kFailAtUs << " us");
        CHECK(log.deadFramesAfterFailure > 0);
        REQUIRE(r.finished);
        for (const auto& fl : r.flows)
        {
            CHECK(fl.deliveredBytes == kFlowBytes);
        }
        // One move per sender, off the dead route, within the bound.
        REQUIRE(log.repins.size() == 2);
        for (const auto& [t, from] : log.repins)
        {
            CHECK(log.deadEntropies.count(from) == 1);
            CHECK(t > kFailAtUs * 1'000'000);
            CHECK(t <= boundPs);
        }
        CHECK(log.lastDeadSendPs <= boundPs);
    }
    SECTION("failover after FailoverTime of silence")
    {
        // The subflow moves at its first packet 20 us after its last feedback, which is at
        // most one round trip (under 10 us) after the failure: the last frame on the dead
        // route leaves by 30 + 20 + 10 us, long before any retransmission timer.
        const uint64_t boundPs = (kFailAtUs + 20 + 10) * 1'000'000;
        FailoverLog log;
        auto r = RunFailover({{"FailoverTime", "20us"}}, log);
        INFO("last frame on the dead route " << log.lastDeadSendPs / 1e6 << " us");
        CHECK(log.deadFramesAfterFailure > 0);
        CHECK(log.lastDeadSendPs <= boundPs);
        REQUIRE(log.repins.size() == 2);
        REQUIRE(r.finished);
        for (const auto& fl : r.flows)
        {
            CHECK(fl.deliveredBytes == kFlowBytes);
            CHECK(fl.retxTimeoutPackets == 0);
        }
    }
    SECTION("without failover the subflows stay on the dead route and the run stalls")
    {
        FailoverLog log;
        auto r = RunFailover({{"Failover", "false"}}, log);
        CHECK(log.repins.empty());
        CHECK_FALSE(r.finished);
        uint64_t delivered = 0;
        for (const auto& fl : r.flows)
        {
            delivered += fl.deliveredBytes;
        }
        CHECK(delivered < 2 * kFlowBytes);
        // It kept resending on the dead route after the bound failover meets.
        CHECK(log.lastDeadSendPs > (kFailAtUs + 84 + 10 + kRtoUs) * 1'000'000);
    }
}

TEST_CASE("ethereal: when a failure kills only a subflow's acknowledgements, it moves after a "
          "timeout and its acknowledgements move with it",
          "[component][planes][ethereal][failover]")
{
    // Hosts 2 and 3 (leaf 1) send to hosts 0 and 1 (leaf 0). Their subflows on route 6
    // (plane 2, spine 1) still deliver (leaf 1 skips its own dead uplink: local repair), but
    // the acknowledgements travel route 6 back, spine 1 -> leaf 1, and die: each sender's
    // retransmission timer fires (200 us after its last acknowledgement), the subflow moves,
    // and from then on the receiver answers on the new route.
    FailoverLog log;
    auto r = RunFailover({}, log, true);
    REQUIRE(r.finished);
    for (const auto& fl : r.flows)
    {
        CHECK(fl.deliveredBytes == kFlowBytes);
    }
    // Route 6's data, repaired onto spine 0 by leaf 1, doubles the load there: trims, and
    // the subflows of route 2 may move after RepinLosses NACKs (congestion moves, any time).
    // The moves off route 6 are one per sender, after the timeout.
    uint32_t offDead = 0;
    uint64_t lastRepinPs = 0;
    for (const auto& [t, from] : log.repins)
    {
        if (from != ns3::EntropyOfRoute(6))
        {
            continue;
        }
        ++offDead;
        CHECK(t > (kFailAtUs + kRtoUs) * 1'000'000);
        CHECK(t <= (kFailAtUs + 10 + kRtoUs) * 1'000'000);
        lastRepinPs = std::max(lastRepinPs, t);
    }
    CHECK(offDead == 2);
    // Every acknowledgement names one of the 8 routes (the subflow's; the default selector's
    // responder answers on a random port of 49152..65535), and none takes route 6 once both
    // subflows have left it.
    REQUIRE(!log.acks.empty());
    uint64_t offRoute = 0;
    uint64_t onDeadAfterMove = 0;
    for (const auto& [t, entropy] : log.acks)
    {
        offRoute += entropy < ns3::EntropyOfRoute(0) || entropy > ns3::EntropyOfRoute(7);
        onDeadAfterMove += t > lastRepinPs && entropy == ns3::EntropyOfRoute(6);
    }
    INFO(log.acks.size() << " ACKs");
    CHECK(offRoute == 0);
    CHECK(onDeadAfterMove == 0);
}

} // namespace TUSK_TEST_FILE
