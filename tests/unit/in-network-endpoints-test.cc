// In-network aggregation endpoints (fabric/helper/in-network-endpoints.h) on the pure topology
// graphs: one host vertex per leaf and one at the root, after the real hosts, each on one
// link at the sum of its switch's link rates; rank host ids unchanged, switch vertices moved
// up by the endpoint count; multi-plane graphs refused; endpoints outside every server of the
// scale-up domain.

#include "fabric/helper/in-network-endpoints.h"
#include "fabric/helper/topology-builders.h"
#include "fabric/model/input-error.h"
#include "workload/model/scale-up-domain.h"

#include "ns3/uinteger.h"

#include "input-error-helpers.h"

#include <catch2/catch.hpp>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

TEST_CASE("aggregation endpoints on a fat tree: one per ToR and the first core",
          "[unit][topology][in-network]")
{
    FatTreeParams p; // k = 4: 16 hosts, 8 ToRs, 8 aggregation switches, 4 cores, 100 Gb/s
    const TopologyGraph before = BuildFatTree(p);
    TopologyGraph g = before;
    AddAggregationEndpoints(g);
    // 8 ToR endpoints + 1 root = 9, hosts 16..24.
    CHECK(g.aggregationEndpoints == 9);
    CHECK(g.numHosts == 25);
    CHECK(g.NumRankHosts() == 16);
    CHECK(g.NumSwitches() == before.NumSwitches());
    CHECK(g.vertices.size() == before.vertices.size() + 9);
    CHECK(g.vertices[16].name == "agg." + before.vertices[16].name); // the first ToR
    CHECK(g.vertices[16].kind == TopoVertex::HOST);
    CHECK(g.vertices[24].name == "agg.core0");
    CHECK_FALSE(g.IsAggregationEndpoint(15));
    CHECK(g.IsAggregationEndpoint(16));
    CHECK_FALSE(g.IsAggregationEndpoint(25)); // the first switch
    // The old links, their switch ends moved up by 9; then one link per endpoint.
    REQUIRE(g.links.size() == before.links.size() + 9);
    for (size_t i = 0; i < before.links.size(); ++i)
    {
        CHECK(g.links[i].a == before.links[i].a + (before.links[i].a >= 16 ? 9 : 0));
        CHECK(g.links[i].b == before.links[i].b + (before.links[i].b >= 16 ? 9 : 0));
    }
    // A ToR has 2 hosts and 2 aggregation uplinks: 4 x 100 Gb/s; a core has 4 pods' links.
    CHECK(g.links[before.links.size()].rateBps == 400'000'000'000ULL);
    CHECK(g.links[before.links.size()].delayPs == 0);
    CHECK(g.links.back().rateBps == 400'000'000'000ULL);
    const AggregationTree t = AggregationTreeOf(g);
    CHECK(t.rootEndpoint == 24);
    CHECK(t.leafEndpointOf.size() == 16);
    CHECK(t.leafEndpointOf[0] == 16); // hosts 0, 1 on the first ToR
    CHECK(t.leafEndpointOf[1] == 16);
    CHECK(t.leafEndpointOf[15] == 23);
    CHECK(AggregationQpRateBps(g, 16) == 100'000'000'000ULL);
    CHECK(AggregationQpRateBps(g, 3) == 0);
}

TEST_CASE("aggregation endpoints need one switch port per host", "[unit][topology][in-network]")
{
    LeafSpineParams p;
    p.planes = 2;
    TopologyGraph g = BuildLeafSpine(p);
    CHECK(tusk_test::ExpectInputError([&] { AddAggregationEndpoints(g); }).Key() ==
          "topology.in_network_reduction");
    LeafSpineParams one;
    TopologyGraph h = BuildLeafSpine(one);
    AddAggregationEndpoints(h);
    CHECK(tusk_test::ExpectInputError([&] { AddAggregationEndpoints(h); }).Key() ==
          "topology.in_network_reduction");
}

TEST_CASE("scale-up domain: aggregation endpoints are on no server", "[unit][in-network]")
{
    // 16 GPUs in servers of 4, endpoints from host 16 up: without RankHosts hosts 16 and 17
    // would count as GPUs of a fifth server and talk over the scale-up domain.
    auto d = CreateObject<ScaleUpDomain>();
    d->SetAttribute("GpusPerServer", UintegerValue(4));
    CHECK(d->SameServer(16, 17));
    d->SetAttribute("RankHosts", UintegerValue(16));
    CHECK_FALSE(d->SameServer(16, 17));
    CHECK_FALSE(d->SameServer(15, 16));
    CHECK(d->SameServer(12, 15));
}

} // namespace TUSK_TEST_FILE
