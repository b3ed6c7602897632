/*
 * ReverseRoute and SourceRouteReplies (fabric/helper/source-routes.h): the route a reply
 * carries to retrace a data frame's links, checked against the oracle of every source-route
 * test, RouteLinks (the route walked on the forwarding table, as the switches forward it):
 * for every pair of hosts and every route of the fabric, the reply's route walked from the
 * destination back is the data's links in reverse order. Leaf-spine and fat tree, with planes
 * and with dual-ToR hosts. In a symmetric Clos the reply's route is the data's own number; on
 * dual-ToR hosts it is not whenever the data left by one ToR and arrived through the other.
 */

#include "fabric/helper/multi-plane.h"
#include "fabric/helper/source-routes.h"
#include "fabric/helper/topology-builders.h"
#include "fabric/model/frame-meta.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

struct Tally
{
    uint64_t pairs = 0;      //!< (src, dst, route) walked
    uint64_t reversed = 0;   //!< of them, reversed exactly
    uint64_t renumbered = 0; //!< of them, with a reply route other than the data's
};

/** Every (src, dst, route): RouteLinks back along ReverseRoute's answer == the links reversed. */
Tally
CheckAllRoutes(const TopologyGraph& g)
{
    const auto ports = IncidentLinks(g);
    const auto table = ComputeEqualCostPorts(g);
    const auto layout = SourceRouteLayoutOf(g, table);
    Tally t;
    for (uint32_t src = 0; src < g.numHosts; ++src)
    {
        for (uint32_t dst = 0; dst < g.numHosts; ++dst)
        {
            if (src == dst)
            {
                continue;
            }
            for (uint32_t r = 0; r < layout.Routes(); ++r)
            {
                const auto links = RouteLinks(g, ports, table, layout, src, dst, r);
                REQUIRE(!links.empty());
                ++t.pairs;
                uint32_t back = r; // the data's own route, kept if it retraces the links
                if (!ReverseRoute(g, ports, table, layout, src, dst, links, back))
                {
                    continue;
                }
                const std::vector<uint32_t> expected(links.rbegin(), links.rend());
                t.reversed += RouteLinks(g, ports, table, layout, dst, src, back) == expected;
                t.renumbered += back != r;
            }
        }
    }
    return t;
}

} // namespace

TEST_CASE("source-route reverse: a symmetric Clos answers on the data's own route number",
          "[unit][source-route]")
{
    LeafSpineParams ls;
    ls.leaves = 3;
    ls.spines = 4;
    ls.hostsPerLeaf = 2;
    ls.planes = 2;
    const Tally a = CheckAllRoutes(BuildLeafSpine(ls));
    CHECK(a.pairs == 6 * 5 * 8); // 6 hosts, 8 routes (2 planes x 4 spines)
    CHECK(a.reversed == a.pairs);
    CHECK(a.renumbered == 0);
    FatTreeParams ft;
    ft.k = 4;
    ft.planes = 2;
    const Tally b = CheckAllRoutes(BuildFatTree(ft));
    CHECK(b.pairs == 16 * 15 * 8); // 16 hosts, 8 routes (2 planes x 2 aggregations x 2 cores)
    CHECK(b.reversed == b.pairs);
    CHECK(b.renumbered == 0);
}

TEST_CASE("source-route reverse: on dual-ToR hosts the reply leaves by the ToR the data "
          "arrived through",
          "[unit][source-route][dualtor]")
{
    LeafSpineParams ls;
    ls.leaves = 4;
    ls.spines = 2;
    ls.hostsPerLeaf = 2;
    ls.dualTor = true;
    const auto g = BuildLeafSpine(ls);
    const Tally a = CheckAllRoutes(g);
    CHECK(a.pairs == 8 * 7 * 8); // 8 hosts, 8 routes (2 ports x 2 spines x 2 last ToRs)
    CHECK(a.reversed == a.pairs);
    // Between pairs (4 x 4 x 2 ordered host pairs), half the routes leave by one ToR and
    // arrive through the other: their reply swaps the port and last-ToR digits. Inside a
    // pair (the first switch is the last) every route retraces itself.
    CHECK(a.renumbered == 32 * 8 / 2);
    FatTreeParams ft;
    ft.k = 4;
    ft.dualTor = true;
    const Tally b = CheckAllRoutes(BuildFatTree(ft));
    CHECK(b.reversed == b.pairs);
    CHECK(b.renumbered > 0);
}

TEST_CASE("source-route reverse: SourceRouteReplies follows the links a frame took, else its "
          "route, and refuses what is no path back",
          "[unit][source-route][dualtor]")
{
    LeafSpineParams ls;
    ls.leaves = 4;
    ls.spines = 2;
    ls.hostsPerLeaf = 2;
    ls.dualTor = true;
    const auto g = BuildLeafSpine(ls);
    const auto ports = IncidentLinks(g);
    const auto table = ComputeEqualCostPorts(g);
    const auto layout = SourceRouteLayoutOf(g, table);
    REQUIRE(layout.planes == 2);
    REQUIRE(layout.RadixText() == "2,2");
    SourceRouteReplies replies(g, std::make_shared<const EqualCostTable>(table));
    // Host 0 (pair 0) to host 4 (pair 1): route 1 leaves by port 1 (ToR 1), crosses spine 0,
    // and arrives through the first ToR of pair 1 (digit 0): host 4's port 0.
    const auto links = RouteLinks(g, ports, table, layout, 0, 4, 1);
    REQUIRE(links.size() == 4);
    CHECK(links.front() == ports[0][1]);
    CHECK(links.back() == ports[4][0]);
    // Without the frame's recorded path: the route's links. The reply leaves host 4 by port 0
    // and ends at host 0's ToR 1: route 0 + 2 x (spine 0 + 2 x ToR digit 1) = 4.
    const uint16_t reply = replies.ReplyEntropy(0, 4, EntropyOfRoute(1), kUnknownPath);
    CHECK(reply == EntropyOfRoute(4));
    const std::vector<uint32_t> back(links.rbegin(), links.rend());
    CHECK(RouteLinks(g, ports, table, layout, 4, 0, RouteOfEntropy(reply)) == back);
    // With it: a frame of route 1 that a ToR sent over spine 1 instead (local repair around
    // a dead port) is answered over spine 1. The path as the switches record it: each one's
    // egress port in PathHopBits(its ports) bits, leaf1 to spine 1, spine 1 to leaf2, leaf2
    // to host 4.
    auto portOf = [&](uint32_t v, const std::string& peer) {
        for (uint32_t p = 0; p < ports[v].size(); ++p)
        {
            const auto& l = g.links[ports[v][p]];
            const uint32_t other = l.a == v ? l.b : l.a;
            if (g.vertices[other].name == peer || (peer == "host4" && other == 4))
            {
                return p;
            }
        }
        FAIL("no port from " << g.vertices[v].name << " to " << peer);
        return 0u;
    };
    const uint32_t leaf1 = g.numHosts + 1;
    const uint32_t leaf2 = g.numHosts + 2;
    const uint32_t spine1 = g.numHosts + 5;
    REQUIRE(g.vertices[spine1].name == "spine1");
    const uint8_t leafBits = PathHopBits(static_cast<uint32_t>(ports[leaf1].size()));
    const uint8_t spineBits = PathHopBits(static_cast<uint32_t>(ports[spine1].size()));
    CHECK(leafBits == 3);  // 4 hosts of the pair + 2 spines
    CHECK(spineBits == 2); // 4 leaves
    const uint64_t path = portOf(leaf1, "spine1") |
                          uint64_t{portOf(spine1, "leaf2")} << leafBits |
                          uint64_t{portOf(leaf2, "host4")} << (leafBits + spineBits);
    std::vector<uint32_t> taken;
    REQUIRE(DecodeHostPortPath(g, ports, 0, 1, path, taken));
    REQUIRE(taken.size() == 4);
    const uint16_t repaired = replies.ReplyEntropy(0, 4, EntropyOfRoute(1), path);
    CHECK(RouteLinks(g, ports, table, layout, 4, 0, RouteOfEntropy(repaired)) ==
          std::vector<uint32_t>(taken.rbegin(), taken.rend()));
    CHECK(repaired != reply);
    // A path that does not end at the replying host has no route back (77: the hint kept).
    uint32_t none = 77;
    CHECK_FALSE(ReverseRoute(g, ports, table, layout, 0, 5, links, none));
    CHECK(none == 77);
}

} // namespace TUSK_TEST_FILE
