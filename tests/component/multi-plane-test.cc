// Multi-plane fabrics (fabric/helper/multi-plane.h, RdmaNic::AddPlanePort): `topology.planes =
// N` builds N complete copies of a leaf-spine or fat tree, every host NIC has one port per
// plane, and the NIC sends a frame on plane `UDP source port mod N`. Checked here: names and
// rates of the graph, that a host's bytes over its N ports are exactly what it sent, that no
// frame ever reaches a switch of another plane than the one its entropy chose (so no frame
// crosses planes), the completion times of one flow on the idle fabric (spraying uses all N
// ports: S / rate; ECMP keeps the QP on one port: S / (rate / N)), and the refused inputs.

#include "cli-helpers.h"
#include "host-port-log.h"
#include "run-helpers.h"

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

constexpr uint64_t kGbps = 1'000'000'000ULL;

/** A 2 x 2 leaf-spine, 2 hosts per leaf, host NICs of 400 Gb/s split into `planes` ports. */
tusk::ScenarioSpec
Planes(uint32_t planes, const std::string& policy)
{
    auto s = LeafSpine(2, 2, 2, 400);
    s.topology.leafSpine.fabricRateBps = 400 * kGbps / planes; // every plane alike
    s.topology.leafSpine.planes = planes;
    s.lb.policy = policy;
    return s;
}

} // namespace

TEST_CASE("multi-plane: N copies of the fabric, named p<k>., host ports at rate / N",
          "[component][planes]")
{
    ns3::LeafSpineParams p;
    p.leaves = 2;
    p.spines = 3;
    p.hostsPerLeaf = 2;
    const auto one = ns3::BuildLeafSpine(p);
    p.planes = 4;
    const auto four = ns3::BuildLeafSpine(p);
    CHECK(one.vertices[4].name == "leaf0"); // one plane: today's names
    REQUIRE(four.numHosts == 4);
    REQUIRE(four.vertices.size() == 4 + 4 * 5);
    CHECK(four.links.size() == 4 * one.links.size());
    CHECK(four.vertices[4].name == "p0.leaf0");
    CHECK(four.vertices[4 + 2 * 5 + 3].name == "p2.spine1");
    CHECK(four.vertices[4 + 2 * 5 + 3].plane == 2);
    const auto ports = ns3::IncidentLinks(four);
    for (uint32_t h = 0; h < 4; ++h)
    {
        REQUIRE(ports[h].size() == 4);
        for (uint32_t k = 0; k < 4; ++k)
        {
            const auto& l = four.links[ports[h][k]];
            CHECK(l.rateBps == p.hostRateBps / 4);
            CHECK(four.vertices[l.a == h ? l.b : l.a].plane == k); // port k is in plane k
        }
    }
    // Every link joins two vertices of one plane (hosts belong to all).
    for (const auto& l : four.links)
    {
        if (l.a >= four.numHosts && l.b >= four.numHosts)
        {
            CHECK(four.vertices[l.a].plane == four.vertices[l.b].plane);
        }
    }
    p.planeRateBps = 200 * kGbps;
    CHECK(ns3::BuildLeafSpine(p).links[0].rateBps == 200 * kGbps);

    ns3::FatTreeParams ft;
    ft.k = 4;
    ft.planes = 2;
    const auto t = ns3::BuildFatTree(ft);
    CHECK(t.numHosts == 16);
    CHECK(t.NumSwitches() == 2 * 20);
    CHECK(t.vertices[16 + 20].name == "p1.tor0");
    // Equal-cost routes: a host's plane-1 leaf reaches every other host only inside plane 1.
    CHECK(ns3::CountShortestPaths(four, 0, 3) == 4 * 3); // 3 spines in each of 4 planes
}

TEST_CASE("multi-plane: a host's bytes over its ports are what it sent, and no frame crosses "
          "planes",
          "[component][planes]")
{
    const uint32_t planes = GENERATE(2u, 4u);
    const std::string policy =
        GENERATE(std::string("host-spray"), std::string("ecmp"), std::string("mrc"));
    INFO(planes << " planes, " << policy);
    auto s = Planes(planes, policy);
    if (policy == "mrc")
    {
        s.nic.receiver = "selective-repeat"; // the preset refuses an in-order receiver
    }
    const uint64_t bytes = 256 * 4096;
    AddFlow(s, 0, 3, bytes);
    AddFlow(s, 0, 1, bytes); // under the same leaf, too
    HostPortLog log;
    auto r = RunWatched(s, log);
    REQUIRE(r.finished);
    uint64_t frames = 0;
    uint64_t sent = 0;
    uint32_t used = 0;
    for (uint32_t k = 0; k < planes; ++k)
    {
        frames += log.txFrames[k];
        sent += log.txBytes[k];
        used += log.txFrames[k] > 0;
    }
    for (const auto& f : r.flows)
    {
        CHECK(f.deliveredBytes == bytes);
        CHECK(f.retxPackets == 0);
    }
    // Every DATA frame once (no loss, no retransmission): MTU payload + 62 B of headers
    // (Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4).
    CHECK(frames == 2 * 256);
    CHECK(sent == 2 * 256 * (4096 + 62));
    CHECK(log.portMismatch == 0);
    CHECK(log.switchRx > 0);
    CHECK(log.wrongPlane == 0);
    if (policy != "ecmp")
    {
        CHECK(used == planes); // spraying (MRC: over the path set) reaches every plane
    }
    else
    {
        CHECK(used <= 2); // each QP stays on one plane
    }
}

// Rail-optimised multi-plane: every GPU NIC split into N ports, each plane its own copy of the
// rail switches and spines ("p<k>.rail<g>.<i>").
TEST_CASE("multi-plane rail-optimised: planes of rails and spines, a host's bytes over its "
          "ports are what it sent, and no frame crosses planes",
          "[component][planes]")
{
    ns3::RailOptimisedParams p;
    p.servers = 2;
    p.gpusPerServer = 2;
    p.spines = 2;
    p.planes = 2;
    const auto g = ns3::BuildRailOptimised(p);
    REQUIRE(g.numHosts == 4);
    REQUIRE(g.NumSwitches() == 2 * (2 + 2));
    CHECK(g.vertices[4].name == "p0.rail0.0");
    CHECK(g.vertices[4 + 4 + 1].name == "p1.rail0.1");
    CHECK(g.vertices[4 + 4 + 3].name == "p1.spine1");
    const auto ports = ns3::IncidentLinks(g);
    for (uint32_t h = 0; h < 4; ++h)
    {
        REQUIRE(ports[h].size() == 2);
        for (uint32_t k = 0; k < 2; ++k)
        {
            const auto& l = g.links[ports[h][k]];
            CHECK(l.rateBps == p.hostRateBps / 2);
            CHECK(g.vertices[l.a == h ? l.b : l.a].plane == k);
        }
    }

    const std::string policy = GENERATE(std::string("host-spray"), std::string("ecmp"));
    INFO(policy);
    tusk::ScenarioSpec s;
    s.name = "rail-planes";
    s.topology.kind = "rail-optimised";
    s.topology.rail = p;
    s.workload.kind = "flows";
    s.buffer.totalBytes = 32ULL << 20;
    s.lb.policy = policy;
    if (policy != "ecmp")
    {
        s.nic.receiver = "selective-repeat";
    }
    const uint64_t bytes = 256 * 4096;
    AddFlow(s, 0, 3, bytes); // another rail: rail -> spine -> rail
    AddFlow(s, 0, 2, bytes); // the same rail (GPU 0 of server 1)
    HostPortLog log;
    auto r = RunWatched(s, log);
    REQUIRE(r.finished);
    for (const auto& f : r.flows)
    {
        CHECK(f.deliveredBytes == bytes);
    }
    CHECK(log.txFrames[0] + log.txFrames[1] == 2 * 256);
    CHECK(log.txBytes[0] + log.txBytes[1] == 2 * 256 * (4096 + 62));
    CHECK(log.switchRx > 0);
    CHECK(log.wrongPlane == 0);
    CHECK(log.portMismatch == 0);
    if (policy != "ecmp")
    {
        CHECK((log.txFrames[0] > 0 && log.txFrames[1] > 0));
    }
}

// Closed forms for one flow of F MTU frames on the idle fabric, each frame w = 4178 B on the
// wire (4096 payload, 62 headers, 20 PHY) at port rate R / N, 4 links of delay d: one path
// takes F w / (R/N) + 3 w / (R/N) + 4 d (store and forward at 3 switches); spraying over the N
// planes, each carries F / N frames: F w / R + 3 w / (R/N) + 4 d when the planes get equal
// shares. The ideal FCT is that of the N planes as one: (F + 3) w / R + 4 d. The NIC's scheduler sends frame i on plane (entropy_i mod N); the pool's entropies
// are not exactly balanced, so spraying is held to within 5 % of the even split.
TEST_CASE("multi-plane: one flow sprayed over N planes takes S / rate, pinned S / (rate / N)",
          "[component][planes]")
{
    const uint32_t planes = GENERATE(2u, 4u);
    INFO(planes << " planes");
    const uint64_t frames = 512;
    const double w = 4178 * 8.0;                // bits per frame on the wire
    const double portBps = 400e9 / planes;      // R / N
    const double tail = 3 * w / portBps * 1e12 + 4 * 1e6; // ps
    {
        auto s = Planes(planes, "ecmp");
        AddFlow(s, 0, 3, frames * 4096);
        auto r = Run(s);
        REQUIRE(r.finished);
        const double expected = frames * w / portBps * 1e12 + tail;
        CHECK(static_cast<double>(r.flows[0].fctPs) == Approx(expected).epsilon(1e-6));
        // The ideal of a multi-plane fabric sends on all N ports: every hop at N x (R / N).
        CHECK(static_cast<double>(r.flows[0].idealFctPs) ==
              Approx((frames + 3) * w / 400e9 * 1e12 + 4e6).epsilon(1e-6));
    }
    {
        auto s = Planes(planes, "host-spray");
        s.nic.receiver = "selective-repeat"; // sprayed frames arrive out of order
        AddFlow(s, 0, 3, frames * 4096);
        auto r = Run(s);
        REQUIRE(r.finished);
        const double even = frames * w / 400e9 * 1e12 + tail;
        CHECK(static_cast<double>(r.flows[0].fctPs) >= even * (1 - 1e-6));
        CHECK(static_cast<double>(r.flows[0].fctPs) == Approx(even).epsilon(0.05));
        CHECK(r.flows[0].slowdown >= 1.0);
    }
}

TEST_CASE("multi-plane: planes = 0, planes on a kind without planes, planes on InfiniBand "
          "are refused",
          "[component][planes][cli]")
{
    const auto dir = Scratch("planes-refused");
    auto run = [&](const std::string& name, const std::string& text) {
        Write(dir / name, text);
        return Tusk("run -q " + (dir / name).string() + " --out " + (dir / "out").string());
    };
    {
        const Outcome o = run("zero.toml", "name = \"zero\"\n[topology]\nplanes = 0\n");
        INFO(o.output);
        CHECK(o.status == 2);
        CHECK(o.output.find("zero.toml:3: topology.planes:") != std::string::npos);
    }
    {
        const Outcome o = run("many.toml", "name = \"many\"\n[topology]\nplanes = 17\n");
        INFO(o.output);
        CHECK(o.status == 2);
        CHECK(o.output.find("many.toml:3: topology.planes:") != std::string::npos);
    }
    {
        const Outcome o = run("ring.toml", "name = \"ring\"\n[topology]\nkind = \"ring\"\n"
                                           "planes = 2\n");
        INFO(o.output);
        CHECK(o.status == 2);
        CHECK(o.output.find("ring.toml:4: topology.planes:") != std::string::npos);
    }
    {
        const Outcome o = run("ib.toml", "name = \"ib\"\n[topology]\nplanes = 2\n"
                                         "[fabric]\nkind = \"infiniband\"\n");
        INFO(o.output);
        CHECK(o.status == 2);
        CHECK(o.output.find("ib.toml:3: topology.planes:") != std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

} // namespace TUSK_TEST_FILE
