// Multi-homed hosts (DualHomeHosts in fabric/helper/multi-plane.h, NicPlanePort): `topology.
// dual_tor = true` pairs leaves 2i and 2i+1 and links every host to both ToRs of its pair in one
// fabric; the NIC sends a frame on port `UDP source port mod 2`, and on the surviving port when
// one port's link is down. Checked here: the graph (links, names, rates, equal-cost routes to a
// host behind two ToRs), that routing delivers everything and a host's bytes over its ports are
// what it sent, ECMP keeping a QP on one port and spraying using both, failover of a host link
// mid-transfer (dual-ToR and multi-plane), an HPCC simulator topology file with dual-ToR hosts,
// and the refused inputs.

#include "cli-helpers.h"
#include "host-port-log.h"
#include "run-helpers.h"

#include "fabric/helper/source-routes.h"
#include "fabric/helper/topology-builders.h"

#include <map>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

constexpr uint64_t kGbps = 1'000'000'000ULL;
constexpr uint64_t kDataFrameBytes = 4096 + 62; // MTU payload + RoCEv2 headers (see multi-plane)

/** A dual-ToR leaf-spine: 4 leaves (pairs {0,1}, {2,3}) x 2 spines, 2 hosts per leaf (8 hosts,
 *  4 per pair), host NICs of 400 Gb/s as two 200 Gb/s ports. */
tusk::ScenarioSpec
DualTor(const std::string& policy)
{
    auto s = LeafSpine(4, 2, 2, 400);
    s.topology.leafSpine.dualTor = true;
    s.lb.policy = policy;
    if (policy != "ecmp")
    {
        s.nic.receiver = "selective-repeat"; // sprayed frames arrive out of order
    }
    return s;
}

} // namespace

TEST_CASE("dual-ToR: every host on both ToRs of its pair, names unchanged, ports at rate / 2",
          "[component][dualtor]")
{
    ns3::LeafSpineParams p;
    p.leaves = 4;
    p.spines = 2;
    p.hostsPerLeaf = 2;
    p.dualTor = true;
    const auto g = ns3::BuildLeafSpine(p);
    REQUIRE(g.numHosts == 8);
    REQUIRE(g.vertices.size() == 8 + 4 + 2);
    CHECK(g.vertices[8].name == "leaf0");
    CHECK(g.vertices[13].name == "spine1");
    CHECK(g.links.size() == 8 * 2 + 4 * 2);
    const auto ports = ns3::IncidentLinks(g);
    for (uint32_t h = 0; h < 8; ++h)
    {
        REQUIRE(ports[h].size() == 2);
        const uint32_t pair = h / 2 / 2; // home leaf h / hostsPerLeaf, pair = leaf / 2
        for (uint32_t k = 0; k < 2; ++k)
        {
            const auto& l = g.links[ports[h][k]];
            CHECK(l.rateBps == p.hostRateBps / 2);
            CHECK((l.a == h ? l.b : l.a) == 8 + 2 * pair + k); // port 0 even ToR, port 1 odd
        }
    }
    for (uint32_t leaf = 0; leaf < 4; ++leaf)
    {
        CHECK(ports[8 + leaf].size() == 4 + 2); // the pair's 4 hosts + 2 spines
    }
    // A host is behind both ToRs of its pair at equal cost: each spine has two ports towards
    // it, and between pairs there are 2 (first ToR) x 2 (spine) x 2 (last ToR) paths.
    const auto table = ns3::ComputeEqualCostPorts(g);
    CHECK(table.Ports(12 - 8, 0).size() == 2);
    CHECK(ns3::CountShortestPaths(g, 0, 7) == 8);
    CHECK(ns3::CountShortestPaths(g, 0, 2) == 2); // same pair, other home leaf: either ToR
    p.planeRateBps = 300 * kGbps;
    CHECK(ns3::BuildLeafSpine(p).links[0].rateBps == 300 * kGbps);

    ns3::FatTreeParams ft;
    ft.k = 4;
    ft.dualTor = true;
    const auto t = ns3::BuildFatTree(ft);
    CHECK(t.numHosts == 16);
    CHECK(t.NumSwitches() == 20);
    const auto tp = ns3::IncidentLinks(t);
    for (uint32_t h = 0; h < 16; ++h)
    {
        REQUIRE(tp[h].size() == 2);
        const auto& a = t.links[tp[h][0]];
        const auto& b = t.links[tp[h][1]];
        // Pod h / 4 has ToRs 2 (h / 4), 2 (h / 4) + 1.
        CHECK(t.vertices[a.a == h ? a.b : a.a].name == "tor" + std::to_string(2 * (h / 4)));
        CHECK(t.vertices[b.a == h ? b.b : b.a].name == "tor" + std::to_string(2 * (h / 4) + 1));
    }
}

// PortOfEntropy (multi-plane.h): the entropy's own port while it is up, else the
// (entropy mod u)-th of the u ports that are up, else (none up) the entropy's own port.
// Source routing on dual-ToR hosts (source-routes.h): the route's first digit is the host
// port (the NIC sends on port entropy mod 2), the switch digits follow, so the path set covers
// 2 ports x 2 spines x 2 last ToRs = 8 routes. Numbering the spine by route mod spines while
// the NIC takes the port by route mod 2 ties the spine's parity to the ToR with an even spine
// count: each ToR would use half its uplinks.
TEST_CASE("dual-ToR: source-routed paths use every leaf uplink and both ports of every host",
          "[component][dualtor][source-route][ethereal]")
{
    const std::string policy = GENERATE(std::string("source-route"), std::string("ethereal"));
    INFO(policy);
    auto s = DualTor(policy); // 2 spines: even
    for (uint32_t h = 0; h < 8; ++h)
    {
        AddFlow(s, h, (h + 4) % 8, 64 * 4096); // every host to the other pair
    }
    using Trace = ns3::Callback<void, ns3::Ptr<const ns3::Packet>, const ns3::FrameMeta&>;
    std::map<std::string, uint64_t> uplinkFrames; // "leaf>spine" -> DATA frames
    std::vector<std::vector<uint64_t>> portFrames(8, std::vector<uint64_t>(2, 0));
    uint32_t routes = 0;
    tusk::RunOptions o;
    o.beforeRun = [&](ns3::Fabric& f, const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics) {
        routes = ns3::SourceRouteLayoutOf(f.graph, ns3::ComputeEqualCostPorts(f.graph)).Routes();
        const auto& g = f.graph;
        for (const auto& l : f.links)
        {
            const uint32_t a = g.links[l.graphLink].a;
            const uint32_t b = g.links[l.graphLink].b;
            if (a < g.numHosts || b < g.numHosts)
            {
                continue;
            }
            const bool aIsSpine = g.vertices[a].name.rfind("spine", 0) == 0;
            const std::string key = g.vertices[aIsSpine ? b : a].name + ">" +
                                    g.vertices[aIsSpine ? a : b].name;
            uplinkFrames[key] = 0;
            (aIsSpine ? l.devA : l.devB)
                ->TraceConnectWithoutContext(
                    "Rx", Trace([&uplinkFrames, key](ns3::Ptr<const ns3::Packet>,
                                                     const ns3::FrameMeta& m) {
                        uplinkFrames[key] += m.kind == ns3::FrameKind::DATA;
                    }));
        }
        for (uint32_t h = 0; h < 8; ++h)
        {
            for (uint32_t k = 0; k < nics[h]->GetNPlanes(); ++k)
            {
                nics[h]->GetPlanePort(k)->TraceConnectWithoutContext(
                    "Tx", Trace([&portFrames, h, k](ns3::Ptr<const ns3::Packet>,
                                                    const ns3::FrameMeta& m) {
                        portFrames[h][k] += m.kind == ns3::FrameKind::DATA;
                    }));
            }
        }
    };
    const auto r = Run(s, o);
    REQUIRE(r.finished);
    CHECK(routes == 2 * 2 * 2); // ports x spines x last ToRs: CountShortestPaths(g, 0, 7)
    REQUIRE(uplinkFrames.size() == 4 * 2);
    for (const auto& [link, frames] : uplinkFrames)
    {
        INFO(link);
        CHECK(frames > 0);
    }
    for (uint32_t h = 0; h < 8; ++h)
    {
        INFO("host " << h);
        CHECK(portFrames[h][0] > 0);
        CHECK(portFrames[h][1] > 0);
    }
}

TEST_CASE("PortOfEntropy: a port that is down hands its entropies to the survivors",
          "[component][dualtor][planes]")
{
    for (uint16_t e = 0; e < 64; ++e)
    {
        INFO("entropy " << e);
        CHECK(ns3::PortOfEntropy(e, 4, 0xF) == ns3::PlaneOfEntropy(e, 4)); // all up
        CHECK(ns3::PortOfEntropy(e, 2, 0x2) == 1u);                        // port 0 down
        CHECK(ns3::PortOfEntropy(e, 2, 0x0) == ns3::PlaneOfEntropy(e, 2)); // none up
        const uint32_t q = ns3::PortOfEntropy(e, 4, 0xB); // port 2 down: 0, 1, 3 up
        CHECK(q != 2u);
        if (e % 4 == 2)
        {
            CHECK(q == std::vector<uint32_t>{0, 1, 3}[e % 3]);
        }
        else
        {
            CHECK(q == e % 4u);
        }
    }
}

TEST_CASE("dual-ToR: everything is delivered, a host's bytes over its ports are what it sent, "
          "ECMP keeps a QP on one port, spraying uses both",
          "[component][dualtor]")
{
    const std::string policy = GENERATE(std::string("ecmp"), std::string("host-spray"));
    INFO(policy);
    auto s = DualTor(policy);
    const uint64_t bytes = 256 * 4096;
    AddFlow(s, 0, 7, bytes); // the other pair
    AddFlow(s, 0, 1, bytes); // the same home leaf
    AddFlow(s, 0, 2, bytes); // the same pair, the other home leaf
    HostPortLog log;
    auto r = RunWatched(s, log);
    REQUIRE(r.finished);
    for (const auto& f : r.flows)
    {
        CHECK(f.deliveredBytes == bytes);
        CHECK(f.retxPackets == 0);
    }
    REQUIRE(log.ports == 2);
    CHECK(log.txFrames[0] + log.txFrames[1] == 3 * 256);
    CHECK(log.txBytes[0] + log.txBytes[1] == 3 * 256 * kDataFrameBytes);
    CHECK(log.portMismatch == 0);
    REQUIRE(log.portsByDst.size() == 3);
    for (const auto& [dst, mask] : log.portsByDst)
    {
        INFO("to host " << dst);
        CHECK((policy == "ecmp" ? (mask == 1 || mask == 2) : mask == 3));
    }
}

// The ideal FCT of a dual-ToR host counts both of its ports: one flow of F = 256 MTU frames
// across the spines (4 links of d = 1 us, 3 store-and-forward switches) ideally takes
// (F + 3) w / 400 Gb/s + 4 d, w = 4178 B on the wire (4096 payload, 62 headers, 20 PHY), as
// with one 400 Gb/s port (ns3::IdealFctPs; the multi-plane test states the same closed form).
TEST_CASE("dual-ToR: the ideal FCT sends and receives over both of a host's ports",
          "[component][dualtor]")
{
    auto s = DualTor("ecmp");
    AddFlow(s, 0, 7, 256 * 4096);
    auto r = Run(s);
    REQUIRE(r.finished);
    const double w = 4178 * 8.0;
    CHECK(static_cast<double>(r.flows[0].idealFctPs) ==
          Approx((256 + 3) * w / 400e9 * 1e12 + 4e6).epsilon(1e-6));
    CHECK(r.flows[0].slowdown >= 1.0);
}

// The route check before a run (a link down from 0 us for the whole run that cuts hosts off is
// an input error) looks at every port of a multi-port host: host 0 keeps its link to leaf1.
TEST_CASE("dual-ToR: a host's link to one ToR down for the whole run leaves it a route",
          "[component][dualtor]")
{
    auto s = DualTor("ecmp");
    AddFlow(s, 0, 7, 64 * 4096);
    AddFlow(s, 7, 0, 64 * 4096);
    tusk::FailureEntry down;
    down.kind = "link_down";
    down.link = "host0-leaf0";
    s.failures.push_back(down);
    auto r = Run(s);
    REQUIRE(r.failure.empty());
    REQUIRE(r.finished);
    for (const auto& f : r.flows)
    {
        CHECK(f.deliveredBytes == 64 * 4096);
    }
}

namespace
{

/** Host 0 sends 4 MB to host 7 (the other pair) over two 200 Gb/s ports, with `link` failing
 *  for good at 20 us, a quarter of the way; dual-ToR, or two planes. What host 0's ports sent. */
HostPortLog
Failover(const std::string& policy, bool planes, const std::string& link)
{
    auto s = DualTor(policy);
    if (planes)
    {
        s.topology.leafSpine.dualTor = false;
        s.topology.leafSpine.planes = 2;
    }
    s.nic.qpsPerConnection = 4; // ECMP: QPs of both ports' entropies
    s.nic.rtoPs = 50'000'000;   // 50 us: a lost tail is resent soon
    s.fabric.reconvergencePs = 5'000'000;
    const uint64_t bytes = 4ULL << 20;
    AddFlow(s, 0, 7, bytes);
    tusk::FailureEntry down;
    down.kind = "link_down";
    down.link = link;
    down.atPs = 20'000'000;
    s.failures.push_back(down);
    HostPortLog log;
    log.afterPs = down.atPs;
    auto r = RunWatched(s, log);
    REQUIRE(r.finished);
    CHECK(r.flows[0].deliveredBytes == bytes);
    REQUIRE(log.ports == 2);
    return log;
}

} // namespace

// The source's own link to one ToR (its port 0) fails: the transfer completes and no DATA frame
// leaves on port 0 from then on. Without failover the NIC keeps staging the frames of port 0's
// entropies for a port that never sends again, and the transfer stalls.
TEST_CASE("dual-ToR and planes: a host link fails mid-transfer, the transfer completes on the "
          "surviving port",
          "[component][dualtor][planes]")
{
    const std::string policy = GENERATE(std::string("ecmp"), std::string("host-spray"));
    const bool planes = GENERATE(false, true);
    INFO(policy << (planes ? ", 2 planes" : ", dual-ToR"));
    const auto log = Failover(policy, planes, planes ? "host0-p0.leaf0" : "host0-leaf0");
    CHECK(log.txFrames[0] > 0);       // before the failure
    CHECK(log.txFramesAfter[0] == 0); // none after it
    CHECK(log.txFramesAfter[1] > 0);
}

// In a multi-plane fabric the destination's port failing cuts it off in that plane: the other
// NICs must leave that plane out for frames to it (HostPortStates), or every frame of an entropy
// of that plane is dropped for lack of a route. In a dual-ToR fabric routing goes round it.
TEST_CASE("planes and dual-ToR: the destination's link to one ToR fails, the transfer completes",
          "[component][dualtor][planes]")
{
    const std::string policy = GENERATE(std::string("ecmp"), std::string("host-spray"));
    const bool planes = GENERATE(false, true);
    INFO(policy << (planes ? ", 2 planes" : ", dual-ToR"));
    const auto log = Failover(policy, planes, planes ? "host7-p0.leaf3" : "host7-leaf3");
    if (planes)
    {
        CHECK(log.txFrames[0] > 0);
        CHECK(log.txFramesAfter[0] == 0); // plane 0 does not reach host 7 any more
        CHECK(log.txFramesAfter[1] > 0);
    }
}

// tests/data/hpcc-dual-tor/: 8 hosts, each on two ToRs of a pair (the shape of the dual-ToR
// single-plane files Alibaba's SimAI generator writes for HPN), host i sends 1 MB to host
// (i + 4) mod 8. As the HPCC simulator binds a QP to one of its host's NICs (GetNicIdxOfQp: a
// hash of the 5-tuple), tusk's ECMP keeps each QP on the port of its entropy: every host's
// data leaves on one of its two ToR links, and across the 8 QPs both ToRs of the pairs carry
// data.
TEST_CASE("HPCC topology files with dual-ToR hosts run, one port per QP, both ToRs used",
          "[component][dualtor][hpcc]")
{
    const std::string dir = std::string(TUSK_SOURCE_DIR) + "/tests/data/hpcc-dual-tor/";
    tusk::ScenarioSpec s;
    s.name = "hpcc-dual-tor";
    s.topology.kind = "hpcc";
    s.topology.file = dir + "topology.txt";
    s.workload.kind = "hpcc";
    s.workload.file = dir + "flow.txt";
    s.buffer.totalBytes = 32ULL << 20;
    auto r = Run(s);
    REQUIRE(r.failure.empty());
    REQUIRE(r.finished);
    REQUIRE(r.flows.size() == 8);
    for (const auto& f : r.flows)
    {
        CHECK(f.deliveredBytes == 1'000'000);
    }
    // DATA bytes leave a host on its ToR links; ACKs (a few % of it) too.
    std::map<std::string, uint64_t> tx; // "hostH-nodeN" -> bytes
    for (const auto& l : r.links)
    {
        tx[l.from + "-" + l.to] = l.txBytes;
    }
    uint32_t onFirst = 0;
    uint32_t onSecond = 0;
    for (uint32_t h = 0; h < 8; ++h)
    {
        const std::string host = "host" + std::to_string(h);
        const uint64_t a = tx.at(host + "-node" + std::to_string(8 + h / 4));
        const uint64_t b = tx.at(host + "-node" + std::to_string(10 + h / 4));
        INFO(host << ": " << a << " B to its first ToR, " << b << " B to its second");
        CHECK(std::max(a, b) > 1'000'000);   // the QP's data, on one port
        CHECK(std::min(a, b) < 1'000'000 / 10); // the other carries ACKs at most
        onFirst += a > b;
        onSecond += b > a;
    }
    CHECK(onFirst > 0);
    CHECK(onSecond > 0);
}

TEST_CASE("dual-ToR: odd leaves, dual_tor with planes, on another kind, with fat-tree k = 6, "
          "on InfiniBand, and an HPCC dual-ToR file on InfiniBand are refused",
          "[component][dualtor][cli]")
{
    const auto dir = Scratch("dual-tor-refused");
    auto run = [&](const std::string& name, const std::string& text) {
        Write(dir / name, text);
        return Tusk("run -q " + (dir / name).string() + " --out " + (dir / "out").string());
    };
    const std::string hpcc = std::string(TUSK_SOURCE_DIR) + "/tests/data/hpcc-dual-tor/";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"odd.toml", "name = \"odd\"\n[topology]\nleaves = 3\ndual_tor = true\n"},
        {"planes.toml", "name = \"planes\"\n[topology]\nplanes = 2\ndual_tor = true\n"},
        {"ring.toml", "name = \"ring\"\n[topology]\nkind = \"ring\"\ndual_tor = true\n"},
        {"rail.toml", "name = \"rail\"\n[topology]\nkind = \"rail-optimised\"\ndual_tor = true\n"},
        {"k6.toml", "name = \"k6\"\n[topology]\nkind = \"fat-tree\"\nk = 6\ndual_tor = true\n"},
        {"ib.toml", "name = \"ib\"\n[topology]\ndual_tor = true\n[fabric]\nkind = \"infiniband\"\n"},
        {"hpcc-ib.toml", "name = \"hpcc-ib\"\n[topology]\nkind = \"hpcc\"\nfile = \"" + hpcc +
                             "topology.txt\"\n[workload]\nkind = \"hpcc\"\nfile = \"" + hpcc +
                             "flow.txt\"\n[fabric]\nkind = \"infiniband\"\n"},
    };
    const std::vector<std::string> expected = {
        "odd.toml:3: topology.leaves:",    "planes.toml:4: topology.dual_tor:",
        "ring.toml:4: topology.dual_tor:", "rail.toml:4: topology.dual_tor:",
        "k6.toml:4: topology.k:",          "ib.toml:3: topology.dual_tor:",
        "hpcc-ib.toml:4: topology.file:",
    };
    for (size_t i = 0; i < cases.size(); ++i)
    {
        const Outcome o = run(cases[i].first, cases[i].second);
        INFO(o.output);
        CHECK(o.status == 2);
        CHECK(o.output.find(expected[i]) != std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

} // namespace TUSK_TEST_FILE
