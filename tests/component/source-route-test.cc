// Source-routed paths (fabric/helper/source-routes.h, SourceRouteLoadBalancer) and MRC-style
// failover (MrcPathSelector) on small multi-plane fabrics. Checked here: every data frame
// arrives by exactly the links its route names (the route's plane, then at every switch the
// candidate its route digit picks: RouteLinks walks the forwarding table, the frame's own
// FrameMeta::path records the egress ports it took), the path set has the size asked for and
// covers every plane; and when one plane's spine link fails mid-transfer, the MRC-style
// sender stops sending on the paths through it within FailoverTime plus one round trip and,
// with trimming on, delivers every byte without a retransmission timeout, where plain
// source-routed spraying keeps losing frames on them until the end.

#include "dead-route-watch.h"
#include "run-helpers.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/helper/multi-plane.h"
#include "fabric/helper/source-routes.h"
#include "fabric/helper/topology-builders.h"
#include "fabric/model/input-error.h"
#include "rdma/model/rdma-nic.h"

#include "ns3/callback.h"

#include <algorithm>
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

/** The links a frame from `src` took: the host's link into `plane`, then at each switch the
 *  egress port read from FrameMeta::path. */
std::vector<uint32_t>
ObservedLinks(const ns3::TopologyGraph& g, const std::vector<std::vector<uint32_t>>& ports,
              uint32_t src, uint32_t plane, uint64_t path)
{
    std::vector<uint32_t> links;
    return ns3::DecodeHostPortPath(g, ports, src, plane, path, links) ? links
                                                                      : std::vector<uint32_t>{};
}

/** A 4-plane 2 x 2 leaf-spine of 400 G NICs (100 G per plane), 2 hosts per leaf. */
tusk::ScenarioSpec
FourPlanes(const std::string& policy)
{
    auto s = LeafSpine(2, 2, 2, 400);
    s.topology.leafSpine.fabricRateBps = 100 * kGbps;
    s.topology.leafSpine.planes = 4;
    s.lb.policy = policy;
    s.nic.receiver = "selective-repeat";
    return s;
}

} // namespace

TEST_CASE("source-route: every frame follows its carried route hop by hop, over the whole "
          "path set",
          "[component][planes][source-route]")
{
    const std::string kind = GENERATE(std::string("leaf-spine"), std::string("fat-tree"));
    // routed = false: the same path set hashed by ECMP switches, which must not match the
    // routes (the check below can fail).
    const bool routed = GENERATE(true, false);
    INFO(kind << (routed ? ", source-routed" : ", ECMP switches"));
    tusk::ScenarioSpec s;
    uint32_t dst = 0;
    if (kind == "leaf-spine")
    {
        s = FourPlanes("source-route");
        dst = 3; // under the other leaf: 4 planes x 2 spines = 8 routes
    }
    else
    {
        s = FatTree(4, 200, 100);
        s.topology.fatTree.planes = 2;
        s.lb.policy = "source-route";
        s.nic.receiver = "selective-repeat";
        dst = 15; // another pod: 2 planes x 2 aggregations x 2 cores = 8 routes
    }
    s.ns3Defaults["ns3::MrcPathSelector::PathSetSize"] = "6"; // fewer than the 8 routes
    if (!routed)
    {
        s.lb.policy = "ecmp";
        s.lb.pathSelector = "path-set-spray";
    }
    AddFlow(s, 0, dst, 96 * 4096);
    s.output.pathTelemetry = true; // per-path counters: paths.csv
    std::map<uint16_t, uint64_t> framesByEntropy;
    std::map<uint16_t, std::vector<uint32_t>> expectedByEntropy;
    std::set<std::vector<uint32_t>> distinct; // the paths frames took
    uint64_t checked = 0;
    uint64_t mismatched = 0;
    std::vector<std::vector<uint32_t>> ports;
    ns3::EqualCostTable table;
    ns3::SourceRouteLayout layout;
    const ns3::TopologyGraph* graph = nullptr;
    tusk::RunOptions o;
    o.beforeRun = [&](ns3::Fabric& f, const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics) {
        graph = &f.graph;
        ports = ns3::IncidentLinks(f.graph);
        table = ns3::ComputeEqualCostPorts(f.graph);
        layout = ns3::SourceRouteLayoutOf(f.graph, table);
        for (uint32_t k = 0; k < nics[dst]->GetNPlanes(); ++k)
        {
            nics[dst]->GetPlanePort(k)->TraceConnectWithoutContext(
                "Rx", FrameCallback([&, k](ns3::Ptr<const ns3::Packet>, const ns3::FrameMeta& m) {
                    if (m.kind != ns3::FrameKind::DATA)
                    {
                        return;
                    }
                    ++framesByEntropy[m.srcPort];
                    const uint32_t route = ns3::RouteOfEntropy(m.srcPort);
                    const auto expected = ns3::RouteLinks(*graph, ports, table, layout, 0, dst, route);
                    const auto observed =
                        ObservedLinks(*graph, ports, 0, ns3::PlaneOfEntropy(m.srcPort, layout.planes),
                                      m.path);
                    ++checked;
                    distinct.insert(observed);
                    expectedByEntropy[m.srcPort] = expected;
                    mismatched += expected.empty() || expected != observed;
                    CHECK(ns3::PlaneOfEntropy(m.srcPort, layout.planes) == k);
                }));
        }
    };
    auto r = Run(s, o);
    REQUIRE(r.finished);
    CHECK(layout.Routes() == 8);
    CHECK(checked == 96);
    if (!routed)
    {
        CHECK(mismatched > 0);
        return;
    }
    CHECK(mismatched == 0);
    // The path set: routes 0..5 (PathSetSize 6 of 8), each used 96 / 6 = 16 times (round robin).
    REQUIRE(framesByEntropy.size() == 6);
    std::set<uint32_t> planes;
    for (const auto& [entropy, frames] : framesByEntropy)
    {
        CHECK(ns3::RouteOfEntropy(entropy) < 6);
        CHECK(frames == 16);
        planes.insert(ns3::PlaneOfEntropy(entropy, layout.planes));
    }
    CHECK(planes.size() == layout.planes); // the set covers every plane
    CHECK(distinct.size() == 6);           // and names 6 different paths
    // paths.csv: one row per route of the sending QP, its packets and bytes, and the one path
    // its frames took, decoded through the route's plane.
    uint32_t rows = 0;
    for (const auto& row : r.pathTelemetry)
    {
        if (row.src != 0 || row.entropy < ns3::kRouteEntropyBase)
        {
            continue;
        }
        ++rows;
        CHECK(row.packets == 16);
        CHECK(row.bytes == 16 * 4096);
        REQUIRE(row.paths.size() == 1);
        CHECK(row.paths[0].first == expectedByEntropy[row.entropy]);
        CHECK(row.paths[0].second == 16);
    }
    CHECK(rows == 6);
}

TEST_CASE("source-route: the layout of leaf-spine and fat-tree planes, and too many routes "
          "refused",
          "[component][planes][source-route]")
{
    ns3::LeafSpineParams p;
    p.leaves = 2;
    p.spines = 16;
    p.hostsPerLeaf = 2;
    p.planes = 8;
    const auto ls = ns3::BuildLeafSpine(p);
    const auto l = ns3::SourceRouteLayoutOf(ls, ns3::ComputeEqualCostPorts(ls));
    CHECK(l.planes == 8);
    CHECK(l.RadixText() == "16");
    CHECK(l.Routes() == 128); // = CountShortestPaths between hosts of different leaves
    CHECK(l.Routes() == ns3::CountShortestPaths(ls, 0, 2));
    ns3::FatTreeParams ft;
    ft.k = 8;
    ft.planes = 4;
    const auto t = ns3::BuildFatTree(ft);
    const auto tl = ns3::SourceRouteLayoutOf(t, ns3::ComputeEqualCostPorts(t));
    CHECK(tl.RadixText() == "4,4");
    CHECK(tl.Routes() == 64);
    CHECK(tl.Routes() == ns3::CountShortestPaths(t, 0, t.numHosts - 1));
    p.spines = 512;
    p.planes = 16; // 8192 routes fit; 16 x 2048 do not
    CHECK_NOTHROW(ns3::SourceRouteAttributes(ns3::BuildLeafSpine(p), "topology"));
    p.spines = 2048;
    CHECK_THROWS_AS(ns3::SourceRouteAttributes(ns3::BuildLeafSpine(p), "topology"),
                    ns3::InputError);
}

namespace
{

using FailoverLog = DeadRouteLog;

constexpr uint64_t kFailAtUs = 30;

tusk::RunResult
RunFailover(const std::string& policy, FailoverLog& log)
{
    auto s = FourPlanes(policy);
    s.ns3Defaults["ns3::SwitchNode::TrimThresholdBytes"] = "65536";
    s.ns3Defaults["ns3::MrcPathSelector::FailoverTime"] = "20us";
    s.ns3Defaults["ns3::MrcPathSelector::ProbeInterval"] = "1ms"; // no probe in this run
    s.fabric.reconvergencePs = 0; // static routes: no routing protocol moves traffic
    s.stopTimePs = 20'000'000'000ULL;
    AddLinkDown(s, "p2.leaf1-p2.spine1", kFailAtUs * 1'000'000);
    AddFlow(s, 0, 2, 4 << 20); // both cross from leaf 0 to leaf 1
    AddFlow(s, 1, 3, 4 << 20);
    tusk::RunOptions o;
    o.beforeRun = [&log](ns3::Fabric& fab, const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics) {
        WatchDeadRoutes(log, fab, nics, {{0, 2}, {1, 3}}, "p2.leaf1", "p2.spine1",
                        kFailAtUs * 1'000'000);
    };
    return Run(s, o);
}

} // namespace

TEST_CASE("source-route: MRC-style failover leaves a failed spine link's paths within "
          "FailoverTime plus a round trip, losing nothing under trimming",
          "[component][planes][source-route][mrc]")
{
    // The bound: a path is retired once it has been silent (packets outstanding, no feedback)
    // for FailoverTime = 20 us, counted from its last feedback, which may be one round trip
    // after the failure: base RTT = 8 links of 1 us + store and forward of a 4 KiB frame at
    // 3 switches each way at 100 G (< 2 us), so 10 us of allowance.
    const uint64_t boundPs = (kFailAtUs + 20 + 10) * 1'000'000;
    FailoverLog mrc;
    auto r = RunFailover("mrc", mrc);
    REQUIRE(mrc.deadEntropies.size() == 1); // plane 2 via spine 1 (one route number for both)
    INFO("MRC: last frame on a failed path " << mrc.lastDeadSendPs / 1e6 << " us, failure at "
                                             << kFailAtUs << " us");
    CHECK(mrc.deadFramesAfterFailure > 0); // the paths carried traffic after the failure
    CHECK(mrc.lastDeadSendPs <= boundPs);
    REQUIRE(r.finished);
    for (const auto& f : r.flows)
    {
        CHECK(f.deliveredBytes == 4u << 20);
        CHECK(f.retxTimeoutPackets == 0);
    }
    // Without failover the sprayer keeps using them until the end.
    FailoverLog plain;
    auto p = RunFailover("source-route", plain);
    INFO("source-route: last frame on a failed path " << plain.lastDeadSendPs / 1e6 << " us");
    CHECK(plain.lastDeadSendPs > boundPs + 50'000'000);
}

namespace
{

/** The links of frame `m` that host `src` sent, decoded from the path its receiver saw, on the
 *  host port the NIC's rule gives its entropy; empty if it does not decode. */
std::vector<uint32_t>
FrameLinks(const ns3::TopologyGraph& g, const std::vector<std::vector<uint32_t>>& ports,
           uint32_t src, const ns3::FrameMeta& m)
{
    std::vector<uint32_t> links;
    const auto hostPorts = static_cast<uint32_t>(ports[src].size());
    return ns3::DecodeHostPortPath(g, ports, src, ns3::PlaneOfEntropy(m.srcPort, hostPorts),
                                   ns3::ReceivedPath(m), links)
               ? links
               : std::vector<uint32_t>{};
}

/** Per path, the data frames that took it backwards and the ACKs and NAKs that took it. */
struct ReplyPaths
{
    std::map<std::vector<uint32_t>, uint64_t> dataBack;
    std::map<std::vector<uint32_t>, uint64_t> replies;
    uint64_t undecoded = 0;
};

/** Trace every host's ports: each arriving data frame's links reversed, each ACK's or NAK's. */
void
WatchReplyPaths(ReplyPaths& log, ns3::Fabric& f, const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics)
{
    const ns3::TopologyGraph* g = &f.graph;
    const std::vector<std::vector<uint32_t>>* ports = &f.ports;
    for (const auto& nic : nics)
    {
        for (uint32_t k = 0; k < nic->GetNPlanes(); ++k)
        {
            nic->GetPlanePort(k)->TraceConnectWithoutContext(
                "Rx", FrameCallback([&log, g, ports](ns3::Ptr<const ns3::Packet>,
                                                     const ns3::FrameMeta& m) {
                    if (m.kind != ns3::FrameKind::DATA && m.kind != ns3::FrameKind::ACK &&
                        m.kind != ns3::FrameKind::NAK)
                    {
                        return;
                    }
                    auto links = FrameLinks(*g, *ports, m.srcHost, m);
                    if (links.empty())
                    {
                        ++log.undecoded;
                        return;
                    }
                    if (m.kind == ns3::FrameKind::DATA)
                    {
                        std::reverse(links.begin(), links.end());
                        ++log.dataBack[links];
                    }
                    else
                    {
                        ++log.replies[links];
                    }
                }));
        }
    }
}

} // namespace

TEST_CASE("source-route: with nic.ack_route reverse every ACK and NAK retraces the links of the "
          "data packet it answers, across planes and dual-ToR ports",
          "[component][planes][source-route][dualtor]")
{
    // Selective-repeat receivers answer every data packet once (an ACK in order, a NAK with a
    // SACK out of order), so per path the answers that arrive are the data packets that took
    // it the other way, less the few still in flight when the last transfer completed (the
    // run stops there). Under "fixed" a QP answers on one route whatever the data took: some
    // path carries more answers than data came the other way.
    const std::string fabric = GENERATE(std::string("planes"), std::string("dual-tor"));
    const std::string ackRoute = GENERATE(std::string("reverse"), std::string("fixed"));
    INFO(fabric << ", nic.ack_route " << ackRoute);
    tusk::ScenarioSpec s;
    if (fabric == "planes")
    {
        s = FourPlanes("mrc"); // 8 routes: 4 planes x 2 spines
        AddFlow(s, 0, 3, 64 * 4096);
        AddFlow(s, 2, 1, 64 * 4096);
    }
    else
    {
        s = LeafSpine(4, 2, 2, 400); // pairs {leaf0, leaf1}, {leaf2, leaf3}, 4 hosts each
        s.topology.leafSpine.dualTor = true;
        s.lb.policy = "mrc"; // 8 routes: 2 ports x 2 spines x 2 last ToRs
        s.nic.receiver = "selective-repeat";
        AddFlow(s, 0, 4, 64 * 4096); // across pairs
        AddFlow(s, 5, 1, 64 * 4096);
        AddFlow(s, 2, 3, 64 * 4096); // inside a pair
    }
    s.nic.ackRoute = ackRoute == "reverse" ? ns3::RdmaNic::ACK_REVERSE : ns3::RdmaNic::ACK_FIXED;
    ReplyPaths log;
    tusk::RunOptions o;
    o.beforeRun = [&log](ns3::Fabric& f, const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics) {
        WatchReplyPaths(log, f, nics);
    };
    auto r = Run(s, o);
    REQUIRE(r.finished);
    CHECK(log.undecoded == 0);
    uint64_t data = 0;
    uint64_t replies = 0;
    for (const auto& [path, n] : log.dataBack)
    {
        data += n;
    }
    for (const auto& [path, n] : log.replies)
    {
        replies += n;
    }
    const uint64_t flows = s.workload.flows.size();
    CHECK(data == flows * 64);
    CHECK(replies <= data);
    CHECK(replies + flows >= data);
    CHECK(log.dataBack.size() >= 8); // the data took every route of a pair
    uint64_t overfull = 0;           // paths with more answers than data the other way
    for (const auto& [path, n] : log.replies)
    {
        const auto it = log.dataBack.find(path);
        overfull += it == log.dataBack.end() || n > it->second;
    }
    if (ackRoute == "reverse")
    {
        CHECK(overfull == 0);
        CHECK(log.replies.size() + flows >= log.dataBack.size());
    }
    else
    {
        CHECK(overfull > 0);
        CHECK(log.replies.size() < log.dataBack.size()); // one route per responder QP
    }
}

namespace
{

/** ACKs and NAKs lost, and the last of them, from the run's drops.csv rows. */
struct ReplyLosses
{
    uint64_t lost = 0;
    uint64_t lastPs = 0;
};

ReplyLosses
LostReplies(const tusk::RunResult& r)
{
    ReplyLosses l;
    for (const auto& d : r.dropEvents)
    {
        if (d.kind == ns3::FrameKind::ACK || d.kind == ns3::FrameKind::NAK)
        {
            ++l.lost;
            l.lastPs = std::max(l.lastPs, d.timePs);
        }
    }
    return l;
}

tusk::RunResult
RunAckFailover(const std::string& ackRoute)
{
    auto s = FourPlanes("mrc");
    s.ns3Defaults["ns3::SwitchNode::TrimThresholdBytes"] = "65536";
    s.ns3Defaults["ns3::MrcPathSelector::FailoverTime"] = "20us";
    s.ns3Defaults["ns3::MrcPathSelector::ProbeInterval"] = "1ms"; // no probe in this run
    s.fabric.reconvergencePs = 0; // static routes
    s.pfc.enabled = false;
    s.nic.rtoPs = 100'000'000; // 100 us
    s.nic.ackRoute = ackRoute == "reverse" ? ns3::RdmaNic::ACK_REVERSE : ns3::RdmaNic::ACK_FIXED;
    s.nic.qpsPerConnection = 32; // 64 responder QPs on each leaf
    s.output.dropLog = true;
    s.stopTimePs = 2'000'000'000ULL;
    AddLinkDown(s, "p2.leaf1-p2.spine1", kFailAtUs * 1'000'000);
    // Data both ways across the failed link's leaf: acknowledgements to hosts 2 and 3 must
    // come down from a spine into leaf 1.
    AddFlow(s, 2, 0, 4 << 20);
    AddFlow(s, 3, 1, 4 << 20);
    AddFlow(s, 0, 2, 4 << 20);
    AddFlow(s, 1, 3, 4 << 20);
    return Run(s);
}

} // namespace

TEST_CASE("source-route: MRC's acknowledgements leave a failed leaf-spine link with the data, "
          "so every transfer is acknowledged, where fixed acknowledgement routes lose them "
          "for good",
          "[component][planes][source-route][mrc]")
{
    // Reverse (the mrc preset): a data packet that reached its receiver came over live links,
    // and its ACK goes back over the same ones. The only replies lost answer data that was
    // already past the link when it failed (in flight for at most one round trip, 10 us
    // here: see the bound of the test above), so none is lost later than that.
    auto r = RunAckFailover("reverse");
    const ReplyLosses rev = LostReplies(r);
    INFO("reverse: " << rev.lost << " ACKs / NAKs lost, the last at " << rev.lastPs / 1e6
                     << " us");
    REQUIRE(r.finished);
    CHECK(rev.lastPs <= (kFailAtUs + 10) * 1'000'000);
    for (const auto& f : r.flows)
    {
        CHECK(f.deliveredBytes == 4u << 20);
    }
    // Fixed (the old behaviour): each responder QP answers on one route drawn at connection;
    // those whose route comes down the dead link lose every acknowledgement, the sender times
    // out and resends, and the transfer is never acknowledged.
    auto f = RunAckFailover("fixed");
    const ReplyLosses fixed = LostReplies(f);
    INFO("fixed: " << fixed.lost << " ACKs / NAKs lost, the last at " << fixed.lastPs / 1e6
                   << " us");
    CHECK_FALSE(f.finished);
    CHECK(fixed.lastPs > (kFailAtUs + 500) * 1'000'000);
    CHECK(fixed.lost > 10 * rev.lost);
}

} // namespace TUSK_TEST_FILE
