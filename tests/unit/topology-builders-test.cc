/*
 * Unit tests for the pure topology builders (leaf-spine, k-ary fat tree), the equal-cost
 * port computation and shortest-path counting (the htsim .topo importer: htsim-topo-reader-test.cc).
 *
 * Every expected number is derived in a comment next to it, from the construction rules:
 * - leaf-spine: L leaves, S spines, H hosts per leaf, P parallel links per leaf-spine pair.
 * - k-ary fat tree: Al-Fares, Loukissas, Vahdat, "A Scalable, Commodity Data Center Network
 *   Architecture", SIGCOMM 2008, section 3.3: k pods, each with k/2 edge (ToR) and k/2
 *   aggregation switches; (k/2)^2 core switches; every switch has k ports; k^3/4 hosts.
 * - htsim .topo: uet-htsim htsim/sim/datacenter/fat_tree_topology.cpp, set_custom_params()
 *   and init_network(); the formulas are repeated in htsim-topo-reader.cc.
 */

#include "fabric/helper/topology-builders.h"
#include "fabric/model/input-error.h"

#include "topology-helpers.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;
using namespace tusktest;


// ---------------------------------------------------------------------------------------
// Leaf-spine
// ---------------------------------------------------------------------------------------

TEST_CASE("leaf-spine counts, names, tiers and rates", "[unit][topology]")
{
    LeafSpineParams p;
    p.leaves = 4;
    p.spines = 3;
    p.hostsPerLeaf = 5;
    p.hostRateBps = 100'000'000'000ULL;
    p.fabricRateBps = 400'000'000'000ULL;
    p.linkDelayPs = 750'000;
    p.switchLatencyPs = 300'000;
    const auto g = BuildLeafSpine(p);

    // hosts = L*H = 4*5 = 20; switches = L + S = 7; links = L*H + L*S*P = 20 + 12 = 32.
    CHECK(g.numHosts == 20);
    CHECK(g.NumSwitches() == 7);
    CHECK(g.vertices.size() == 27);
    CHECK(g.links.size() == 32);
    CHECK(CountTier(g, 1) == 4);
    CHECK(CountTier(g, 2) == 3);
    CHECK(CountLinksBetweenTiers(g, 0, 1) == 20);
    CHECK(CountLinksBetweenTiers(g, 1, 2) == 12);
    CHECK(LinksPointUp(g));
    CHECK(g.switchLatencyPs == 300'000);

    // Hosts first, then leaves, then spines.
    CHECK(g.vertices[12].name == "host12");
    CHECK(g.vertices[12].kind == TopoVertex::HOST);
    CHECK(g.vertices[12].tier == 0);
    CHECK(g.vertices[20 + 3].name == "leaf3");
    CHECK(g.vertices[20 + 3].tier == 1);
    CHECK(g.vertices[24].name == "spine0");
    CHECK(g.vertices[24].tier == 2);
    // host 12 is on leaf 12/5 = 2, i.e. vertex 20 + 2.
    CHECK(TorOf(g, 12) == 22);

    for (const auto& l : g.links)
    {
        const bool hostLink = l.a < g.numHosts;
        CHECK(l.rateBps == (hostLink ? p.hostRateBps : p.fabricRateBps));
        CHECK(l.delayPs == 750'000);
    }
}

TEST_CASE("leaf-spine with oversubscription and parallel links", "[unit][topology]")
{
    // 8 leaves x 2 spines, 16 hosts per leaf, 2 parallel links per leaf-spine pair, all
    // links at the same rate: oversubscription = 16 / (2*2) = 4:1.
    LeafSpineParams p;
    p.leaves = 8;
    p.spines = 2;
    p.hostsPerLeaf = 16;
    p.linksPerSpine = 2;
    const auto g = BuildLeafSpine(p);

    // hosts = 8*16 = 128; switches = 8 + 2 = 10; links = 128 + 8*2*2 = 160.
    CHECK(g.numHosts == 128);
    CHECK(g.NumSwitches() == 10);
    CHECK(g.links.size() == 160);
    CHECK(CountLinksBetweenTiers(g, 1, 2) == 32);

    const auto ports = IncidentLinks(g);
    // A leaf has H + S*P = 16 + 4 = 20 ports, a spine L*P = 16.
    CHECK(ports[128].size() == 20);
    CHECK(ports[128 + 8].size() == 16);
    // Host h's only port is link h (host links come first).
    CHECK(ports[37] == std::vector<uint32_t>{37});

    // Paths are link sequences: leaf -> one of S spines over one of P links, then back down
    // over one of P links: S*P*P = 2*2*2 = 8 between hosts on different leaves; 1 on the
    // same leaf. (With P = 1 this is the familiar S.)
    CHECK(CountShortestPaths(g, 0, 16) == 8);
    CHECK(CountShortestPaths(g, 0, 15) == 1);
    CHECK(CountShortestPaths(g, 5, 5) == 1);

    const auto table = ComputeEqualCostPorts(g);
    REQUIRE(table.size() == 10);
    // Leaf 0 toward host 16 (leaf 1): all S*P = 4 uplinks, ports 16..19 (after its 16 host
    // ports), sorted.
    CHECK(table[0][16] == std::vector<uint16_t>{16, 17, 18, 19});
    // Leaf 0 toward its own host 3: the single port to it, port 3.
    CHECK(table[0][3] == std::vector<uint16_t>{3});
    // Spine 0 toward host 16: the P = 2 parallel links to leaf 1. Spine 0's ports are its
    // links in index order: leaf 0's two links (ports 0, 1), then leaf 1's (ports 2, 3).
    CHECK(table[8][16] == std::vector<uint16_t>{2, 3});
}

TEST_CASE("leaf-spine equal-cost ports and path counts with single links", "[unit][topology]")
{
    LeafSpineParams p; // 4 leaves, 4 spines, 4 hosts per leaf, 1 link per pair
    const auto g = BuildLeafSpine(p);
    // hosts 16, switches 8, links 16 + 16 = 32.
    CHECK(g.numHosts == 16);
    CHECK(g.NumSwitches() == 8);
    CHECK(g.links.size() == 32);

    // Different leaves: spines * linksPerSpine^2 = 4 * 1 = 4 paths.
    CHECK(CountShortestPaths(g, 0, 4) == 4);
    CHECK(CountShortestPaths(g, 0, 1) == 1);

    const auto table = ComputeEqualCostPorts(g);
    for (uint32_t leaf = 0; leaf < 4; ++leaf)
    {
        for (uint32_t h = 0; h < 16; ++h)
        {
            // `spines` candidates toward a host on another leaf, 1 toward its own host.
            CHECK(table[leaf][h].size() == (h / 4 == leaf ? 1u : 4u));
        }
    }
    for (uint32_t spine = 4; spine < 8; ++spine)
    {
        for (uint32_t h = 0; h < 16; ++h)
        {
            // A spine has one link to each leaf; port index = leaf index.
            CHECK(table[spine][h] == std::vector<uint16_t>{static_cast<uint16_t>(h / 4)});
        }
    }
}

TEST_CASE("leaf-spine rejects bad parameters", "[unit][topology]")
{
    const auto expectKey = [](LeafSpineParams p, const std::string& key) {
        try
        {
            BuildLeafSpine(p);
            FAIL("expected an InputError for " << key);
        }
        catch (const InputError& e)
        {
            CHECK(e.File().empty());
            CHECK(e.Line() == 0);
            CHECK(e.Key() == key);
        }
    };
    LeafSpineParams p;
    p.leaves = 0;
    expectKey(p, "LeafSpineParams.leaves");
    p = LeafSpineParams{};
    p.spines = 0;
    expectKey(p, "LeafSpineParams.spines");
    p = LeafSpineParams{};
    p.hostsPerLeaf = 0;
    expectKey(p, "LeafSpineParams.hostsPerLeaf");
    p = LeafSpineParams{};
    p.linksPerSpine = 0;
    expectKey(p, "LeafSpineParams.linksPerSpine");
    p = LeafSpineParams{};
    p.hostRateBps = 0;
    expectKey(p, "LeafSpineParams.hostRateBps");
    p = LeafSpineParams{};
    p.fabricRateBps = 0;
    expectKey(p, "LeafSpineParams.fabricRateBps");
    // 70000 spines: a leaf would have 4 + 70000 > 65535 ports (uint16_t port indices).
    p = LeafSpineParams{};
    p.spines = 70000;
    expectKey(p, "LeafSpineParams.spines");
}

// ---------------------------------------------------------------------------------------
// Fat tree (Al-Fares et al. 2008)
// ---------------------------------------------------------------------------------------

TEST_CASE("fat tree k=4 and k=8 counts", "[unit][topology]")
{
    for (uint32_t k : {4u, 8u})
    {
        INFO("k = " << k);
        FatTreeParams p;
        p.k = k;
        const auto g = BuildFatTree(p);
        // Al-Fares 2008 sec. 3.3: k^3/4 hosts; k*(k/2) ToRs, k*(k/2) aggs, (k/2)^2 cores,
        // total 5k^2/4 switches; links: k^3/4 host links, k * (k/2)^2 = k^3/4 ToR-agg and
        // k^3/4 agg-core, 3k^3/4 in total.
        // k=4: 16 hosts, 8+8+4 = 20 switches, 48 links.
        // k=8: 128 hosts, 32+32+16 = 80 switches, 384 links.
        const uint32_t hosts = k * k * k / 4;
        CHECK(g.numHosts == (k == 4 ? 16u : 128u));
        CHECK(g.numHosts == hosts);
        CHECK(g.NumSwitches() == (k == 4 ? 20u : 80u));
        CHECK(g.NumSwitches() == 5 * k * k / 4);
        CHECK(CountTier(g, 1) == k * k / 2);
        CHECK(CountTier(g, 2) == k * k / 2);
        CHECK(CountTier(g, 3) == k * k / 4);
        CHECK(g.links.size() == (k == 4 ? 48u : 384u));
        CHECK(g.links.size() == 3 * hosts);
        CHECK(CountLinksBetweenTiers(g, 0, 1) == hosts);
        CHECK(CountLinksBetweenTiers(g, 1, 2) == hosts);
        CHECK(CountLinksBetweenTiers(g, 2, 3) == hosts);
        CHECK(LinksPointUp(g));

        // Every switch has exactly k ports (the whole point of the construction).
        const auto ports = IncidentLinks(g);
        for (uint32_t s = g.numHosts; s < g.vertices.size(); ++s)
        {
            CHECK(ports[s].size() == k);
        }
        // Pods: k^2/4 hosts per pod; ToR t and agg a in pod t/(k/2), a/(k/2).
        const uint32_t hostsPerPod = k * k / 4;
        CHECK(g.vertices[hosts - 1].pod == k - 1);
        CHECK(g.vertices[hostsPerPod].pod == 1);
        CHECK(g.vertices[hosts + k / 2].pod == 1);             // tor(k/2)
        CHECK(g.vertices[hosts + k * k / 2 + k / 2].pod == 1); // agg(k/2)
        CHECK(g.vertices[hosts].name == "tor0");
        CHECK(g.vertices[hosts + k * k / 2 + 2].name == "agg2");
        CHECK(g.vertices[hosts + k * k + 1].name == "core1");
        CHECK(g.vertices[hosts + k * k + 1].tier == 3);
    }
}

TEST_CASE("fat tree path counts and equal-cost ports", "[unit][topology]")
{
    FatTreeParams p;
    p.k = 4;
    const auto g = BuildFatTree(p);
    // k=4: 2 hosts per ToR, 4 hosts per pod. Hosts 0,1 on tor0; 2,3 on tor1 (pod 0);
    // host 4 in pod 1.
    // Inter-pod: up to one of k/2 aggs, then one of its k/2 cores; the core has one link to
    // the destination pod: (k/2)^2 = 4.
    CHECK(CountShortestPaths(g, 0, 4) == 4);
    CHECK(CountShortestPaths(g, 0, 15) == 4);
    // Same pod, different ToR: through any of the k/2 = 2 aggs.
    CHECK(CountShortestPaths(g, 0, 2) == 2);
    // Same ToR: 1.
    CHECK(CountShortestPaths(g, 0, 1) == 1);

    FatTreeParams p8;
    p8.k = 8;
    const auto g8 = BuildFatTree(p8);
    // k=8: 4 hosts per ToR, 16 per pod. (k/2)^2 = 16 inter-pod, k/2 = 4 intra-pod.
    CHECK(CountShortestPaths(g8, 0, 16) == 16);
    CHECK(CountShortestPaths(g8, 0, 4) == 4);

    const auto table = ComputeEqualCostPorts(g);
    // Switch offsets: tor t at t, agg a at 8 + a, core c at 16 + c (minus numHosts).
    // tor0 toward host 4 (pod 1): its k/2 = 2 uplinks, ports 2 and 3 after 2 host ports.
    CHECK(table[0][4] == std::vector<uint16_t>{2, 3});
    // tor0 toward host 2 (tor1, same pod): also both uplinks.
    CHECK(table[0][2] == std::vector<uint16_t>{2, 3});
    // tor0 toward its own host 1: port 1.
    CHECK(table[0][1] == std::vector<uint16_t>{1});
    // agg0 (pod 0) toward host 4 in pod 1: its k/2 = 2 core uplinks (ports 2, 3 after the
    // two ToR ports).
    CHECK(table[8][4] == std::vector<uint16_t>{2, 3});
    // agg0 toward host 2 on tor1 of its own pod: one port, the one to tor1 (port 1).
    CHECK(table[8][2] == std::vector<uint16_t>{1});
    // A core reaches any host over exactly one link (its link to the host's pod).
    for (uint32_t c = 16; c < 20; ++c)
    {
        for (uint32_t h = 0; h < 16; ++h)
        {
            CHECK(table[c][h].size() == 1);
            // Core ports are in link order: pod 0's agg first, so port index = pod.
            CHECK(table[c][h][0] == h / 4);
        }
    }
}

TEST_CASE("fat tree with ToR oversubscription", "[unit][topology]")
{
    FatTreeParams p;
    p.k = 4;
    p.oversubscription = 3;
    p.hostRateBps = 25'000'000'000ULL;
    p.fabricRateBps = 100'000'000'000ULL;
    const auto g = BuildFatTree(p);
    // hosts per ToR = k/2 * 3 = 6; hosts = 8 ToRs * 6 = 48 = k^3/4 * 3.
    CHECK(g.numHosts == 48);
    CHECK(g.NumSwitches() == 20);
    // links = 48 + 16 + 16 = 80.
    CHECK(g.links.size() == 80);
    const auto ports = IncidentLinks(g);
    CHECK(ports[48].size() == 8); // tor0: 6 hosts + 2 uplinks
    CHECK(TorOf(g, 47) == 48 + 7);
    for (const auto& l : g.links)
    {
        CHECK(l.rateBps == (l.a < g.numHosts ? p.hostRateBps : p.fabricRateBps));
    }
}

TEST_CASE("fat tree rejects bad parameters", "[unit][topology]")
{
    const auto expectKey = [](FatTreeParams p, const std::string& key) {
        try
        {
            BuildFatTree(p);
            FAIL("expected an InputError for " << key);
        }
        catch (const InputError& e)
        {
            CHECK(e.Key() == key);
            CHECK(e.Line() == 0);
        }
    };
    FatTreeParams p;
    p.k = 3;
    expectKey(p, "FatTreeParams.k");
    p.k = 0;
    expectKey(p, "FatTreeParams.k");
    p = FatTreeParams{};
    p.oversubscription = 0;
    expectKey(p, "FatTreeParams.oversubscription");
    p = FatTreeParams{};
    p.hostRateBps = 0;
    expectKey(p, "FatTreeParams.hostRateBps");
    p = FatTreeParams{};
    p.fabricRateBps = 0;
    expectKey(p, "FatTreeParams.fabricRateBps");
    // k = 1000: k^3/4 = 250 million hosts, over the 2^24 limit.
    p = FatTreeParams{};
    p.k = 1000;
    expectKey(p, "FatTreeParams.k");
}

// ---------------------------------------------------------------------------------------
// Shortest paths on hand-made graphs
// ---------------------------------------------------------------------------------------

TEST_CASE("hosts never transit, unreachable hosts have no ports", "[unit][topology]")
{
    // host0 - sw3 - host1 - sw4 - host2; host1 is dual-homed. The only route from host0 to
    // host2 transits host1, which is not allowed.
    TopologyGraph g;
    g.numHosts = 3;
    for (int i = 0; i < 3; ++i)
    {
        g.vertices.push_back(TopoVertex{TopoVertex::HOST, 0, 0, "host" + std::to_string(i)});
    }
    g.vertices.push_back(TopoVertex{TopoVertex::SWITCH, 1, 0, "sw3"});
    g.vertices.push_back(TopoVertex{TopoVertex::SWITCH, 1, 0, "sw4"});
    g.links = {{0, 3, 1, 1}, {1, 3, 1, 1}, {1, 4, 1, 1}, {2, 4, 1, 1}};

    CHECK(CountShortestPaths(g, 0, 2) == 0);
    CHECK(CountShortestPaths(g, 0, 1) == 1);
    CHECK(CountShortestPaths(g, 1, 2) == 1);
    const auto table = ComputeEqualCostPorts(g);
    CHECK(table[0][2].empty()); // sw3 cannot reach host2
    CHECK(table[1][0].empty()); // sw4 cannot reach host0
    CHECK(table[0][1] == std::vector<uint16_t>{1});
    CHECK(table[1][2] == std::vector<uint16_t>{1});

    try
    {
        CountShortestPaths(g, 0, 3); // vertex 3 is a switch
        FAIL("expected an InputError");
    }
    catch (const InputError& e)
    {
        CHECK(e.Key() == "TopologyGraph.host");
    }
}

namespace
{

/** The definition, one breadth-first search per destination host: the ports of switch s
 *  whose far end is h or a switch one hop closer to h (over links that are up, in their
 *  routing direction; hosts never transit). */
std::vector<std::vector<std::vector<uint16_t>>>
PerHostEqualCostPorts(const TopologyGraph& g, const std::vector<bool>& up)
{
    const auto ports = IncidentLinks(g);
    const uint32_t n = static_cast<uint32_t>(g.vertices.size());
    const uint32_t none = 0xFFFFFFFFu;
    auto other = [&](uint32_t l, uint32_t v) { return g.links[l].a == v ? g.links[l].b : g.links[l].a; };
    std::vector<std::vector<std::vector<uint16_t>>> table(
        n - g.numHosts, std::vector<std::vector<uint16_t>>(g.numHosts));
    for (uint32_t h = 0; h < g.numHosts; ++h)
    {
        std::vector<uint32_t> dist(n, none);
        std::vector<uint32_t> queue{h};
        dist[h] = 0;
        for (size_t i = 0; i < queue.size(); ++i)
        {
            const uint32_t v = queue[i];
            if (v != h && v < g.numHosts)
            {
                continue;
            }
            for (uint32_t l : ports[v])
            {
                const uint32_t u = other(l, v);
                if (up[l] && !(g.links[l].oneWay && u != g.links[l].a) && dist[u] == none)
                {
                    dist[u] = dist[v] + 1;
                    queue.push_back(u);
                }
            }
        }
        for (uint32_t s = g.numHosts; s < n; ++s)
        {
            for (size_t p = 0; s < n && dist[s] != none && p < ports[s].size(); ++p)
            {
                const uint32_t l = ports[s][p];
                const uint32_t u = other(l, s);
                if (up[l] && !(g.links[l].oneWay && s != g.links[l].a) &&
                    (u == h || u >= g.numHosts) && dist[u] + 1 == dist[s])
                {
                    table[s - g.numHosts][h].push_back(static_cast<uint16_t>(p));
                }
            }
        }
    }
    return table;
}

/** Every (switch, host) entry of the compact table equals the per-host definition. */
void
CheckAgainstDefinition(const TopologyGraph& g, const std::vector<bool>& up)
{
    const auto expected = PerHostEqualCostPorts(g, up);
    const auto table = ComputeEqualCostPorts(g, up);
    REQUIRE(table.NumSwitches() == g.NumSwitches());
    REQUIRE(table.NumHosts() == g.numHosts);
    uint64_t mismatches = 0;
    for (uint32_t s = 0; s < g.NumSwitches(); ++s)
    {
        for (uint32_t h = 0; h < g.numHosts; ++h)
        {
            mismatches += !(table[s][h] == expected[s][h]);
        }
    }
    CHECK(mismatches == 0);
}

/** One switch, `hosts` hosts: the one-switch star of the setup-time goal. */
TopologyGraph
Star(uint32_t hosts)
{
    TopologyGraph g;
    g.numHosts = hosts;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        g.vertices.push_back(TopoVertex{TopoVertex::HOST, 0, 0, "host" + std::to_string(h)});
        g.links.push_back(TopoLink{h, hosts, 100'000'000'000ULL, 1'000'000});
    }
    g.vertices.push_back(TopoVertex{TopoVertex::SWITCH, 1, 0, "sw0"});
    return g;
}

} // namespace

TEST_CASE("equal-cost table by destination group equals the per-host definition",
          "[unit][topology]")
{
    // Leaf-spine with parallel links, a fat tree, a ring with one-way routes, and the same
    // fabrics with links down (a host link: that host is unreachable and routed per host; a
    // leaf-spine link: fewer candidates), a host with two links and a host-to-host link.
    LeafSpineParams ls;
    ls.leaves = 4;
    ls.spines = 3;
    ls.hostsPerLeaf = 3;
    ls.linksPerSpine = 2;
    const TopologyGraph leafSpine = BuildLeafSpine(ls);
    FatTreeParams ft;
    ft.k = 4;
    const TopologyGraph fatTree = BuildFatTree(ft);
    RingParams rp;
    rp.switches = 4;
    rp.hostsPerSwitch = 2;
    rp.clockwiseRoutes = true;
    const TopologyGraph ring = BuildRing(rp);
    for (const TopologyGraph* g : {&leafSpine, &fatTree, &ring})
    {
        std::vector<bool> up(g->links.size(), true);
        CheckAgainstDefinition(*g, up);
        up[0] = false;                    // host 0's link
        up[g->links.size() - 1] = false;  // a switch-to-switch link
        CheckAgainstDefinition(*g, up);
    }
    TopologyGraph odd = leafSpine;
    odd.links.push_back(TopoLink{1, odd.numHosts + 1, 1, 1}); // host 1 on two leaves
    odd.links.push_back(TopoLink{2, 5, 1, 1});                // host 2 - host 5
    CheckAgainstDefinition(odd, std::vector<bool>(odd.links.size(), true));
}

TEST_CASE("equal-cost table work grows linearly on a one-switch star", "[unit][topology]")
{
    // A one-switch star has one destination group: one search of V + E steps plus the
    // switch's ports, so 4x the hosts is 4x the work (the per-host search was 16x).
    const uint64_t w1 = ComputeEqualCostPorts(Star(256)).GetWork();
    const uint64_t w4 = ComputeEqualCostPorts(Star(1024)).GetWork();
    INFO("work at 256 hosts " << w1 << ", at 1024 hosts " << w4);
    CHECK(w4 >= 4 * w1 - 16);
    CHECK(w4 <= 4 * w1 + 16);
    // A fat tree: one search per edge switch (k^2/2 groups), not per host.
    FatTreeParams ft;
    ft.k = 8;
    const auto table = ComputeEqualCostPorts(BuildFatTree(ft));
    CHECK(table.NumGroups() == 32);
    CHECK(table.NumHosts() == 128);
}

} // namespace TUSK_TEST_FILE
