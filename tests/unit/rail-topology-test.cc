// Unit tests of the rail-optimised and pod-Clos builders, including the Llama 3 cluster
// arithmetic ("The Llama 3 Herd of Models", 2024, sec. 3.3.1: 24K GPUs; 16 GPUs per rack,
// 192 racks per pod with full bisection, 8 pods joined at 1:7 oversubscription). No Simulator.
#include "fabric/helper/topology-builders.h"
#include "fabric/model/input-error.h"

#include <catch2/catch.hpp>

#include <map>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

TEST_CASE("rail-optimised: GPU i of every server on rail switch i", "[unit][topology][rail]")
{
    RailOptimisedParams p;
    p.servers = 8;
    p.gpusPerServer = 8;
    p.serversPerGroup = 4; // 2 groups
    p.spines = 4;
    const auto g = BuildRailOptimised(p);
    CHECK(g.numHosts == 64);
    CHECK(g.NumSwitches() == 2 * 8 + 4);
    CHECK(g.links.size() == 64 + 16 * 4);
    const auto ports = IncidentLinks(g);
    for (uint32_t h = 0; h < 64; ++h)
    {
        REQUIRE(ports[h].size() == 1);
        const auto& l = g.links[ports[h][0]];
        const auto& rail = g.vertices[l.b];
        const uint32_t server = h / 8;
        CHECK(rail.name == "rail" + std::to_string(server / 4) + "." + std::to_string(h % 8));
        CHECK(g.vertices[h].pod == server / 4);
    }
    // Same rail, same group: host - rail - host (1 path); any other pair crosses a spine:
    // 4 spines = 4 paths of 4 links.
    CHECK(CountShortestPaths(g, 0, 8) == 1);   // server 0 GPU 0 -> server 1 GPU 0
    CHECK(CountShortestPaths(g, 0, 1) == 4);   // GPU 0 -> GPU 1 of the same server
    CHECK(CountShortestPaths(g, 0, 32) == 4);  // GPU 0 of server 0 -> GPU 0 of server 4
    const auto table = ComputeEqualCostPorts(g);
    // A rail switch forwards to a host of another group over every spine.
    const uint32_t rail00 = 64;
    CHECK(table[rail00 - 64][32].size() == 4);
    // Errors.
    p.serversPerGroup = 3;
    CHECK_THROWS_AS(BuildRailOptimised(p), InputError);
    p.serversPerGroup = 4;
    p.spines = 0;
    CHECK_THROWS_AS(BuildRailOptimised(p), InputError);
}

TEST_CASE("Llama 3 cluster: 8 pods x 192 racks x 16 GPUs = 24,576 GPUs, 57.1 Gb/s per GPU "
          "across pods at 1:7",
          "[unit][topology][llama3]")
{
    PodClosParams p; // the defaults are the Llama 3 numbers
    p.pods = 8;
    p.racksPerPod = 192;
    p.hostsPerRack = 16;
    p.oversubscription = 7;
    p.hostRateBps = 400'000'000'000ULL;
    const auto g = BuildPodClos(p);
    CHECK(g.numHosts == 24576); // 8 * 192 * 16
    // Capacity per GPU at each layer, read off the built graph: the bytes a pod can push
    // through the links leaving it, divided by its GPUs.
    std::map<uint32_t, double> podUp;    // pod -> rate of its csw - agg links
    std::map<uint32_t, double> podHosts; // pod -> rate of its host links
    std::map<uint32_t, double> torUp;    // ToR -> rate of its uplinks
    for (const auto& l : g.links)
    {
        const auto& a = g.vertices[l.a];
        const auto& b = g.vertices[l.b];
        if (a.kind == TopoVertex::HOST)
        {
            podHosts[a.pod] += static_cast<double>(l.rateBps);
        }
        else if (a.tier == 1 && b.tier == 2)
        {
            torUp[l.a] += static_cast<double>(l.rateBps);
        }
        else if (a.tier == 2 && b.tier == 3)
        {
            podUp[a.pod] += static_cast<double>(l.rateBps);
        }
    }
    REQUIRE(podUp.size() == 8);
    for (const auto& [pod, up] : podUp)
    {
        const double gpus = podHosts[pod] / 400e9;
        CHECK(gpus == 3072);
        // 400 Gb/s / 7 = 57.142857 Gb/s per GPU leaves the pod (the paper's 1:7).
        CHECK(up / gpus / 1e9 == Approx(400.0 / 7).epsilon(1e-9));
        CHECK(up / gpus / 1e9 == Approx(57.1).epsilon(1e-3));
    }
    // Inside a pod: full bisection, every ToR can send 16 x 400 Gb/s up.
    for (const auto& [tor, up] : torUp)
    {
        CHECK(up == Approx(16 * 400e9).epsilon(1e-12));
    }
    // Removing the oversubscription gives 400 Gb/s per GPU across pods.
    PodClosParams full = p;
    full.pods = 2;
    full.racksPerPod = 4;
    full.oversubscription = 1;
    const auto f = BuildPodClos(full);
    double up = 0;
    for (const auto& l : f.links)
    {
        if (f.vertices[l.a].tier == 2 && f.vertices[l.a].pod == 0)
        {
            up += static_cast<double>(l.rateBps);
        }
    }
    CHECK(up / (4 * 16) == Approx(400e9).epsilon(1e-12));
    full.oversubscription = 0.5;
    CHECK_THROWS_AS(BuildPodClos(full), InputError);
}

} // namespace TUSK_TEST_FILE
