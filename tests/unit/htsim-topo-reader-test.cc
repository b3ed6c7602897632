/*
 * Unit tests for the htsim .topo importer: the example files htsim ships, then every kind of
 * bad input. Expected numbers: uet-htsim htsim/sim/datacenter/fat_tree_topology.cpp,
 * set_custom_params() and init_network(); the formulas are repeated in htsim-topo-reader.cc.
 */

#include "fabric/helper/topology-builders.h"
#include "importers/model/htsim-topo-reader.h"
#include "fabric/model/input-error.h"

#include "scratch-dir.h"
#include "topology-helpers.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;
using namespace tusktest;
using tusk_test::ScratchDir;

namespace
{

/** The folder for this file's .topo files, removed at the end of the run. */
const ScratchDir&
Temp()
{
    static ScratchDir dir("topo-test");
    return dir;
}

/**
 * A valid 3-tier .topo equal to a k=4 fat tree (16 hosts, 4 pods of 4 hosts):
 * pods = 16/4 = 4; ToRs/pod = 4/2 = 2; ToR uplinks = 16*100/(100*1) = 16;
 * aggs/pod = 16/(4 pods * 2) = 2 (== Radix_Up[0] 2 / Bundle 1); agg uplinks = 16;
 * cores = 16/4 = 4; cores/aggs-per-pod * Bundle[2] = 2 == Radix_Up[1].
 */
std::vector<std::string>
ValidFatTree16()
{
    return {
        "Nodes 16",                 // 1
        "Tiers 3",                  // 2
        "Podsize 4",                // 3
        "",                         // 4
        "Tier 0",                   // 5
        "Downlink_speed_Gbps 100",  // 6
        "Radix_Down 2",             // 7
        "Radix_Up 2",               // 8
        "Downlink_Latency_ns 1000", // 9
        "Switch_Latency_ns 0",      // 10
        "",                         // 11
        "Tier 1",                   // 12
        "Downlink_speed_Gbps 100",  // 13
        "Radix_Down 2",             // 14
        "Radix_Up 2",               // 15
        "Downlink_Latency_ns 1000", // 16
        "Switch_Latency_ns 0",      // 17
        "",                         // 18
        "Tier 2",                   // 19
        "Downlink_speed_Gbps 100",  // 20
        "Radix_Down 4",             // 21
        "Downlink_Latency_ns 1000", // 22
        "Switch_Latency_ns 0",      // 23
    };
}

/** Read a .topo that must fail; check the error names file, line and key. */
void
CheckTopoError(const std::string& name,
               const std::vector<std::string>& lines,
               unsigned expectedLine,
               const std::string& expectedKey)
{
    const std::string path = Temp().WriteLines(name, lines);
    INFO("file " << name);
    try
    {
        ReadHtsimTopo(path);
        FAIL("expected an InputError");
    }
    catch (const InputError& e)
    {
        INFO("what(): " << e.what());
        CHECK(e.File() == path);
        CHECK(e.Line() == expectedLine);
        CHECK(e.Key() == expectedKey);
        CHECK(e.Message().find("expected") != std::string::npos);
    }
}

/** Replace line n (1-based) of a copy of lines. */
std::vector<std::string>
With(std::vector<std::string> lines, size_t n, const std::string& text)
{
    lines.at(n - 1) = text;
    return lines;
}

/** The five htsim example files, copied byte for byte into data/htsim (sources in its README). */
const std::string kRepoData = TUSK_SOURCE_DIR "/data/htsim/";

} // namespace

// ---------------------------------------------------------------------------------------
// htsim .topo importer: the example files
// ---------------------------------------------------------------------------------------

TEST_CASE("htsim fat_tree_128_1os.topo matches htsim's construction", "[unit][topology]")
{
    const auto g = ReadHtsimTopo(kRepoData + "fat_tree_128_1os.topo");
    // Nodes 128, Podsize 16, Tier 0: Radix_Down 4 / Radix_Up 4, Tier 1: 4 / 4, Tier 2: 8.
    // pods = 128/16 = 8; ToRs/pod = 16/4 = 4 -> 32 ToRs.
    // ToR uplinks = 128*100/(100*1) = 128; aggs/pod = 128/(8*4) = 4 -> 32 aggs (4*1 == 4).
    // agg uplinks = 128*100/(100*1) = 128; cores = 128/8 = 16 (16 % 4 == 0; 16*1/4 == 4).
    // switches = 32 + 32 + 16 = 80; links = 128 hosts + 32 ToRs*4 aggs*1 + 32 aggs*4 = 384.
    // This is the k=8 fat tree ("supposed to match the default auto-generated topology").
    CHECK(g.numHosts == 128);
    CHECK(CountTier(g, 1) == 32);
    CHECK(CountTier(g, 2) == 32);
    CHECK(CountTier(g, 3) == 16);
    CHECK(g.NumSwitches() == 80);
    CHECK(g.links.size() == 384);
    CHECK(CountLinksBetweenTiers(g, 0, 1) == 128);
    CHECK(CountLinksBetweenTiers(g, 1, 2) == 128);
    CHECK(CountLinksBetweenTiers(g, 2, 3) == 128);
    CHECK(LinksPointUp(g));
    CHECK(g.switchLatencyPs == 0);
    for (const auto& l : g.links)
    {
        CHECK(l.rateBps == 100'000'000'000ULL); // 100 Gb/s
        CHECK(l.delayPs == 1'000'000);          // 1000 ns
    }
    // Same counts as BuildFatTree(k=8).
    FatTreeParams p;
    p.k = 8;
    const auto ft = BuildFatTree(p);
    CHECK(ft.NumSwitches() == g.NumSwitches());
    CHECK(ft.links.size() == g.links.size());

    // Every switch has 8 ports: ToR 4+4, agg 4+4, core 8 pods * Bundle 1.
    const auto ports = IncidentLinks(g);
    for (uint32_t s = g.numHosts; s < g.vertices.size(); ++s)
    {
        CHECK(ports[s].size() == 8);
    }
    // host h on ToR h/4 (htsim: srv = tor * Radix_Down[0] + l); pod = h/16.
    CHECK(TorOf(g, 37) == 128 + 9);
    CHECK(g.vertices[37].pod == 2);
    // Inter-pod: 4 aggs * 4 cores each = 16; intra-pod different ToR: 4 aggs.
    CHECK(CountShortestPaths(g, 0, 16) == 16);
    CHECK(CountShortestPaths(g, 0, 4) == 4);
    const auto table = ComputeEqualCostPorts(g);
    CHECK(table[0][16].size() == 4); // tor0: all 4 uplinks
}

TEST_CASE("htsim leaf_spine_tiny.topo matches htsim's construction", "[unit][topology]")
{
    const auto g = ReadHtsimTopo(kRepoData + "leaf_spine_tiny.topo");
    // Nodes 32, Tiers 2, Podsize 32; Tier 0: Radix_Down 8, Radix_Up 2, Oversubscribed 4;
    // Tier 1: Radix_Down 4.
    // pods = 1; leaves = 32/8 = 4; ToR uplinks = 32*100/(100*4) = 8 (8/2 == 4 == os);
    // spines = 8/(1*4) = 2 (2*1 == Radix_Up 2). switches 6; links = 32 + 4*2 = 40.
    CHECK(g.numHosts == 32);
    CHECK(CountTier(g, 1) == 4);
    CHECK(CountTier(g, 2) == 2);
    CHECK(CountTier(g, 3) == 0);
    CHECK(g.links.size() == 40);
    CHECK(g.vertices[32].name == "leaf0");
    CHECK(g.vertices[37].name == "spine1");
    const auto ports = IncidentLinks(g);
    CHECK(ports[32].size() == 10); // leaf: 8 hosts + 2 spines
    CHECK(ports[36].size() == 4);  // spine: 4 leaves
    // Different leaves: 2 spines; the leaf has 2 candidates toward a remote host.
    CHECK(CountShortestPaths(g, 0, 8) == 2);
    CHECK(ComputeEqualCostPorts(g)[0][8].size() == 2);
}

TEST_CASE("htsim example files: the larger fat trees and leaf-spine", "[unit][topology]")
{
    struct Case
    {
        const char* file;
        uint32_t hosts, tors, aggs, cores, links;
        uint32_t remoteHost;  //!< a host in another pod (or on another leaf) than host 0
        uint64_t remotePaths; //!< shortest paths from host 0 to it
    };
    const Case cases[] = {
        // pods 8, ToRs 32, ToR uplinks 128, aggs/pod 128/(8*4) = 4 -> 32;
        // agg uplinks = 128*100/(100*4) = 32; cores = 32/8 = 4 (4 % 4 == 0; 4*1/4 == 1 ==
        // Radix_Up[1]). links = 128 + 32*4 + 32*1 = 288. Inter-pod: 4 aggs * 1 core = 4.
        {"fat_tree_128_4os.topo", 128, 32, 32, 4, 288, 16, 4},
        // pods 1024/64 = 16; ToRs/pod 64/8 = 8 -> 128; ToR uplinks 1024; aggs/pod
        // 1024/(16*8) = 8 -> 128; agg uplinks 1024; cores 1024/16 = 64 (64/8 == 8 ==
        // Radix_Up[1]). links = 1024*3 = 3072: the k=16 fat tree (16^3/4 = 1024 hosts,
        // 5*16^2/4 = 320 switches). Inter-pod: 8 aggs * 8 cores = 64.
        {"fat_tree_1024.topo", 1024, 128, 128, 64, 3072, 64, 64},
        // pods 1; leaves 1024/32 = 32; ToR uplinks 1024; spines 1024/32 = 32 (32 == Radix_Up).
        // links = 1024 + 32*32 = 2048. Different leaves: 32 spines.
        {"leaf_spine_1024.topo", 1024, 32, 32, 0, 2048, 32, 32},
        // The two files the other cases read, again (same counts as above).
        {"fat_tree_128_1os.topo", 128, 32, 32, 16, 384, 16, 16},
        {"leaf_spine_tiny.topo", 32, 4, 2, 0, 40, 8, 2},
    };
    for (const auto& c : cases)
    {
        const std::string path = kRepoData + c.file;
        INFO(c.file);
        const auto g = ReadHtsimTopo(path);
        CHECK(g.numHosts == c.hosts);
        CHECK(CountTier(g, 1) == c.tors);
        CHECK(CountTier(g, 2) == c.aggs);
        CHECK(CountTier(g, 3) == c.cores);
        CHECK(g.links.size() == c.links);
        CHECK(LinksPointUp(g));
        CHECK(CountShortestPaths(g, 0, c.remoteHost) == c.remotePaths);
    }
}

// ---------------------------------------------------------------------------------------
// htsim .topo importer: syntax and bundles
// ---------------------------------------------------------------------------------------

TEST_CASE("htsim topo: comments, blank lines, case, CRLF, key order, per-tier values",
          "[unit][topology]")
{
    const auto path = Temp().WriteLines("ok_variants.topo",
                                   {
                                       "# a comment",
                                       "\tnodes 16   # inline comment",
                                       "TIERS 3\r",
                                       "",
                                       "Podsize 4",
                                       "tier 2",
                                       "Switch_Latency_ns 250",
                                       "downlink_latency_ns 3000",
                                       "Radix_Down 4",
                                       "Downlink_speed_Gbps 200",
                                       "Tier 0",
                                       "Radix_Up 2",
                                       "Downlink_Latency_ns 1000",
                                       "Oversubscribed 1",
                                       "Radix_Down 2",
                                       "Downlink_speed_Gbps 100",
                                       "Switch_Latency_ns 250",
                                       "Queue_Down 1000000",
                                       "   ",
                                       "Tier 1",
                                       "Bundle 1",
                                       "Radix_Up 1",
                                       "Radix_Down 2",
                                       "Downlink_speed_Gbps 100",
                                       "Downlink_Latency_ns 2000",
                                       "Switch_Latency_ns 250",
                                   });
    const auto g = ReadHtsimTopo(path);
    // pods = 16/4 = 4; ToRs/pod = 4/2 = 2 -> 8 ToRs; ToR uplinks = 16*100/(100*1) = 16;
    // aggs/pod = 16/(4*2) = 2 -> 8 aggs (2*1 == Radix_Up[0] 2);
    // agg uplinks = 16*100/(200*1) = 8 (counted in 200G links); cores = 8/4 = 2;
    // 2 % 2 == 0; 2/2 * Bundle 1 = 1 == Radix_Up[1]. Each agg: 2 x 100G down, 1 x 200G up.
    // links = 16 + 8*2 + 8*1 = 40.
    CHECK(g.numHosts == 16);
    CHECK(CountTier(g, 1) == 8);
    CHECK(CountTier(g, 2) == 8);
    CHECK(CountTier(g, 3) == 2);
    CHECK(g.links.size() == 40);
    CHECK(g.switchLatencyPs == 250'000); // 250 ns
    // A tier's Downlink_* keys describe the links below it: Tier 0 = host-ToR.
    for (const auto& l : g.links)
    {
        const uint8_t upper = g.vertices[l.b].tier; // 1 = ToR, 2 = agg, 3 = core
        CHECK(l.rateBps == (upper == 3 ? 200'000'000'000ULL : 100'000'000'000ULL));
        CHECK(l.delayPs == upper * 1'000'000ULL); // 1000, 2000, 3000 ns
    }
    // Core degree = 4 pods * Bundle 1 = 4 = Radix_Down[2].
    const auto ports = IncidentLinks(g);
    CHECK(ports[16 + 8 + 8].size() == 4);
    // Inter-pod: 2 aggs * 1 core each = 2 paths.
    CHECK(CountShortestPaths(g, 0, 4) == 2);
}

TEST_CASE("htsim topo: bundles give parallel links", "[unit][topology]")
{
    const auto path = Temp().WriteLines("bundles.topo",
                                   {
                                       "Nodes 16",
                                       "Tiers 3",
                                       "Podsize 8",
                                       "Tier 0",
                                       "Downlink_speed_Gbps 100",
                                       "Radix_Down 4",
                                       "Radix_Up 4",
                                       "Downlink_Latency_ns 500",
                                       "Tier 1",
                                       "Downlink_speed_Gbps 100",
                                       "Radix_Down 4",
                                       "Radix_Up 4",
                                       "Downlink_Latency_ns 500",
                                       "Bundle 2",
                                       "Tier 2",
                                       "Downlink_speed_Gbps 100",
                                       "Radix_Down 4",
                                       "Downlink_Latency_ns 500",
                                       "Bundle 2",
                                   });
    const auto g = ReadHtsimTopo(path);
    // pods = 2; ToRs/pod = 8/4 = 2 -> 4; ToR uplinks = 16; aggs/pod = 16/(2*4) = 2 -> 4
    // (2 aggs * Bundle 2 == Radix_Up[0] 4); agg uplinks = 16; cores = 16/4 = 4
    // (4 % 2 == 0; 4/2 * Bundle 2 = 4 == Radix_Up[1]).
    // links = 16 hosts + 4 ToRs * 2 aggs * 2 + 4 aggs * 4 = 16 + 16 + 16 = 48.
    CHECK(g.numHosts == 16);
    CHECK(g.NumSwitches() == 12);
    CHECK(g.links.size() == 48);
    const auto ports = IncidentLinks(g);
    for (uint32_t s = 16; s < 24; ++s)
    {
        // ToR: 4 hosts + 2 aggs * 2; agg: 2 ToRs * 2 + 2 cores * 2.
        CHECK(ports[s].size() == 8);
    }
    for (uint32_t s = 24; s < 28; ++s)
    {
        CHECK(ports[s].size() == 4); // core: 2 pods * Bundle 2 = Radix_Down[2]
    }
    // Inter-pod (host 0 -> host 8): ToR->agg 2 aggs * 2 links = 4; agg->core 2 cores * 2
    // links = 4; core->agg 2 links; agg->ToR 2 links: 4*4*2*2 = 64.
    CHECK(CountShortestPaths(g, 0, 8) == 64);
    // Same pod, other ToR (host 0 -> host 4): 2 aggs * 2 up * 2 down = 8.
    CHECK(CountShortestPaths(g, 0, 4) == 8);
    const auto table = ComputeEqualCostPorts(g);
    CHECK(table[0][8] == std::vector<uint16_t>{4, 5, 6, 7}); // tor0: its 4 uplinks
    CHECK(table[8][0].size() == 2);                          // core0 -> pod 0: Bundle 2
}

// ---------------------------------------------------------------------------------------
// htsim .topo importer: malformed files
// ---------------------------------------------------------------------------------------

TEST_CASE("htsim topo: the valid template reads", "[unit][topology]")
{
    // Guards the malformed-file cases below: they differ from this file in one line.
    const auto g = ReadHtsimTopo(Temp().WriteLines("template.topo", ValidFatTree16()));
    CHECK(g.numHosts == 16);
    CHECK(g.NumSwitches() == 20); // the k=4 fat tree: 5*4^2/4
    CHECK(g.links.size() == 48);  // 3*4^3/4
}

TEST_CASE("htsim topo: unknown key names the closest valid key", "[unit][topology]")
{
    const auto base = ValidFatTree16();
    CheckTopoError("unknown.topo", With(base, 14, "Radix_Dwn 2"), 14, "Radix_Dwn");
    const std::string path = Temp().WriteLines("unknown2.topo", With(base, 9, "Downlink_Latency 1000"));
    try
    {
        ReadHtsimTopo(path);
        FAIL("expected an InputError");
    }
    catch (const InputError& e)
    {
        CHECK(e.Line() == 9);
        CHECK(e.Key() == "Downlink_Latency");
        CHECK(e.Message().find("did you mean 'Downlink_Latency_ns'") != std::string::npos);
    }
    // No key within a typo's distance: no suggestion, the valid keys only.
    const std::string far = Temp().WriteLines("unknown3.topo", With(base, 9, "Foo 1000"));
    try
    {
        ReadHtsimTopo(far);
        FAIL("expected an InputError");
    }
    catch (const InputError& e)
    {
        CHECK(e.Key() == "Foo");
        CHECK(e.Message().find("did you mean") == std::string::npos);
        CHECK(e.Message().find("valid keys: ") != std::string::npos);
    }
}

TEST_CASE("htsim topo: missing keys and blocks", "[unit][topology]")
{
    const auto base = ValidFatTree16();
    // A missing tier key is reported at its block's `Tier n` line.
    CheckTopoError("miss_speed.topo", With(base, 13, ""), 12, "Downlink_speed_Gbps");
    CheckTopoError("miss_radix_up.topo", With(base, 8, "# none"), 5, "Radix_Up");
    CheckTopoError("miss_latency.topo", With(base, 22, ""), 19, "Downlink_Latency_ns");
    CheckTopoError("miss_radix_down.topo", With(base, 21, ""), 19, "Radix_Down");
    // A missing header key is reported at the first Tier line, where the header ends.
    CheckTopoError("miss_nodes.topo", With(base, 1, ""), 5, "Nodes");
    CheckTopoError("miss_podsize.topo", With(base, 3, ""), 5, "Podsize");
    // A missing Tier block is reported at the Tiers line.
    std::vector<std::string> noTier2(base.begin(), base.begin() + 18);
    CheckTopoError("miss_tier2.topo", noTier2, 2, "Tier");
    // An empty file: no Tier line to point at.
    CheckTopoError("empty.topo", {}, 0, "Nodes");
}

TEST_CASE("htsim topo: non-numeric and out-of-range values", "[unit][topology]")
{
    const auto base = ValidFatTree16();
    CheckTopoError("nan_nodes.topo", With(base, 1, "Nodes 1x6"), 1, "Nodes");
    CheckTopoError("nan_radix.topo", With(base, 21, "Radix_Down four"), 21, "Radix_Down");
    CheckTopoError(
        "neg_speed.topo", With(base, 6, "Downlink_speed_Gbps -100"), 6, "Downlink_speed_Gbps");
    CheckTopoError(
        "dec_speed.topo", With(base, 13, "Downlink_speed_Gbps 12.5"), 13, "Downlink_speed_Gbps");
    CheckTopoError("no_value.topo", With(base, 1, "Nodes"), 1, "Nodes");
    CheckTopoError("two_values.topo", With(base, 3, "Podsize 4 4"), 3, "Podsize");
    CheckTopoError("zero_radix.topo", With(base, 7, "Radix_Down 0"), 7, "Radix_Down");
    CheckTopoError("huge_nodes.topo", With(base, 1, "Nodes 99999999999999999999"), 1, "Nodes");
    CheckTopoError("tiers4.topo", With(base, 2, "Tiers 4"), 2, "Tiers");
    CheckTopoError("tier_word.topo", With(base, 12, "Tier one"), 12, "Tier");
}

TEST_CASE("htsim topo: counts that do not divide", "[unit][topology]")
{
    const auto base = ValidFatTree16();
    // Nodes 18 is not a multiple of Podsize 4.
    CheckTopoError("nodes_podsize.topo", With(base, 1, "Nodes 18"), 3, "Podsize");
    // Podsize 3 is not a multiple of hosts per ToR (Tier 0 Radix_Down 2).
    CheckTopoError(
        "podsize_radix.topo", With(With(base, 1, "Nodes 12"), 3, "Podsize 3"), 7, "Radix_Down");
    // Tier 0 Radix_Down / Radix_Up = 2/1 = 2 != Oversubscribed 1.
    CheckTopoError("tor_oversub.topo", With(base, 8, "Radix_Up 1"), 8, "Radix_Up");
    // Oversubscribed 3: 16*100 ToR-uplink capacity / (100 * 3) is not whole.
    CheckTopoError("oversub3.topo", With(base, 10, "Oversubscribed 3"), 10, "Oversubscribed");
    // Tier 1 Radix_Up 3 != 4 cores / 2 aggs per pod * Bundle 1 = 2.
    CheckTopoError("agg_up.topo", With(base, 15, "Radix_Up 3"), 15, "Radix_Up");
    // Tier 2 Radix_Down 3 does not divide the 16 aggregation uplinks.
    CheckTopoError("core_down.topo", With(base, 21, "Radix_Down 3"), 21, "Radix_Down");
    // Tier 1 Radix_Down 3 does not divide 16 ToR uplinks over 4 pods.
    CheckTopoError("agg_down.topo", With(base, 14, "Radix_Down 3"), 14, "Radix_Down");
    // Tier 1 Bundle 3 does not divide Tier 1 Radix_Down 2.
    CheckTopoError("bundle3.topo", With(base, 17, "Bundle 3"), 17, "Bundle");
    // Host links are never bundled.
    CheckTopoError("bundle_t0.topo", With(base, 10, "Bundle 2"), 10, "Bundle");
}

TEST_CASE("htsim topo: misplaced, duplicate and inconsistent keys", "[unit][topology]")
{
    const auto base = ValidFatTree16();
    CheckTopoError("header_in_tier.topo", With(base, 11, "Nodes 16"), 11, "Nodes");
    CheckTopoError("tier_key_in_header.topo", With(base, 4, "Radix_Up 2"), 4, "Radix_Up");
    CheckTopoError("dup_key.topo", With(base, 11, "Radix_Down 2"), 11, "Radix_Down");
    CheckTopoError("dup_tier.topo", With(base, 19, "Tier 1"), 19, "Tier");
    CheckTopoError("dup_header.topo", With(base, 4, "Tiers 3"), 4, "Tiers");
    // Tiers 2 but a Tier 2 block.
    CheckTopoError("tier_over.topo", With(base, 2, "Tiers 2"), 19, "Tier");
    // Core switches have no uplinks.
    CheckTopoError("core_up.topo", With(base, 23, "Radix_Up 1"), 23, "Radix_Up");
    // tusk has one per-switch latency.
    CheckTopoError(
        "switch_lat.topo", With(base, 17, "Switch_Latency_ns 100"), 17, "Switch_Latency_ns");

    const std::vector<std::string> leafSpine = {
        "Nodes 32",                 // 1
        "Tiers 2",                  // 2
        "Podsize 32",               // 3
        "",                         // 4
        "Tier 0",                   // 5
        "Downlink_speed_Gbps 100",  // 6
        "Radix_Down 8",             // 7
        "Radix_Up 2",               // 8
        "Downlink_Latency_ns 1000", // 9
        "Oversubscribed 4",         // 10
        "",                         // 11
        "Tier 1",                   // 12
        "Downlink_speed_Gbps 100",  // 13
        "Radix_Down 4",             // 14
        "Downlink_Latency_ns 1000", // 15
    };
    CHECK(ReadHtsimTopo(Temp().WriteLines("ls_ok.topo", leafSpine)).links.size() == 40);
    // A 2-tier fabric is one pod.
    CheckTopoError("ls_pods.topo", With(leafSpine, 3, "Podsize 16"), 3, "Podsize");
    // 8 ToR uplinks are not a multiple of spine Radix_Down 3.
    CheckTopoError("ls_spine.topo", With(leafSpine, 14, "Radix_Down 3"), 14, "Radix_Down");
    // 8/4 = 2 != Oversubscribed 4.
    CheckTopoError("ls_up.topo", With(leafSpine, 8, "Radix_Up 4"), 8, "Radix_Up");
}

TEST_CASE("htsim topo: missing file or directory", "[unit][topology]")
{
    for (const std::string& path : {Temp().Path("does_not_exist.topo"), Temp().Path("")})
    {
        try
        {
            ReadHtsimTopo(path);
            FAIL("expected an InputError for " << path);
        }
        catch (const InputError& e)
        {
            CHECK(e.File() == path);
            CHECK(e.Line() == 0);
            CHECK(e.Key().empty());
        }
    }
}

} // namespace TUSK_TEST_FILE
