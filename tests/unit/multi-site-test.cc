/*
 * Unit tests of multi-site fabrics: the multi-site builder (fabric/helper/multi-site.h),
 * the MMU's lossy long-haul ports (oracle 22: a lossless class over a long haul would need
 * 2 x (delay x rate) + 2 x MTU of headroom) and the "site" / "cross-site" process groups of a
 * DiLoCo job (Douillard et al. 2023). Every expected number is derived next to it.
 */

#include "fabric/helper/fabric-helper.h"
#include "fabric/helper/multi-site.h"
#include "fabric/model/input-error.h"
#include "fabric/model/shared-buffer-mmu.h"
#include "workload/model/job-model.h"

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

MultiSiteParams
ThreeSites()
{
    MultiSiteParams p;
    p.sites = 3;
    p.leaves = 2;
    p.spines = 2;
    p.hostsPerLeaf = 2;
    p.dciSwitches = 1;
    p.longHaulLinks = 2;
    p.longHaulRateBps = 100'000'000'000ULL;
    p.longHaulDelayPs = 1'000'000'000ULL; // 1 ms
    return p;
}

} // namespace

TEST_CASE("multi-site: vertices, names, links and long-haul flags", "[unit][multi-site]")
{
    const TopologyGraph g = BuildMultiSite(ThreeSites());
    // 3 sites x 2 leaves x 2 hosts = 12 hosts; per site 2 leaves + 2 spines + 1 DCI = 5 switches.
    REQUIRE(g.numHosts == 12);
    REQUIRE(g.NumSwitches() == 15);
    // Links: per site 4 host links + 2x2 leaf-spine = 8, so 24; DCI-spine 3 x 2 = 6; long haul:
    // 3 site pairs x 2 parallel links = 6. Total 36.
    REQUIRE(g.links.size() == 36);
    size_t longHaul = 0;
    for (const auto& l : g.links)
    {
        if (l.longHaul)
        {
            ++longHaul;
            CHECK(l.rateBps == 100'000'000'000ULL);
            CHECK(l.delayPs == 1'000'000'000ULL);
            // Both ends DCI switches of different sites, tier 3.
            CHECK(g.vertices[l.a].tier == 3);
            CHECK(g.vertices[l.b].tier == 3);
            CHECK(g.vertices[l.a].pod != g.vertices[l.b].pod);
            CHECK(g.vertices[l.a].name.find(".dci0") != std::string::npos);
        }
        else
        {
            CHECK(g.vertices[l.a].pod == g.vertices[l.b].pod); // no other link leaves a site
        }
    }
    CHECK(longHaul == 6);
    // Host h on site h / 4, keeping the name every tool expects; switches carry the site.
    CHECK(g.vertices[5].name == "host5");
    CHECK(g.vertices[5].pod == 1);
    CHECK(g.vertices[12].name == "s0.leaf0");
    CHECK(g.vertices[12 + 5 + 2].name == "s1.spine0");
    CHECK(g.vertices[12 + 5 * 2 + 4].name == "s2.dci0");
    CHECK(g.vertices[12 + 5 * 2 + 4].bufferBytes == 8'000'000'000ULL);
    CHECK(g.vertices[12].bufferBytes == 0);
}

TEST_CASE("multi-site: routes stay inside a site and cross one long haul between sites",
          "[unit][multi-site]")
{
    const TopologyGraph g = BuildMultiSite(ThreeSites());
    // Same leaf: one path (host-leaf-host); same site, other leaf: one per spine, 2; other site: leaf -> 2 spines -> DCI -> 2 long-haul links ->
    // DCI -> 2 spines -> leaf: 2 x 2 x 2 = 8 minimum-hop paths of 8 links.
    CHECK(CountShortestPaths(g, 0, 1) == 1);
    CHECK(CountShortestPaths(g, 0, 2) == 2);
    CHECK(CountShortestPaths(g, 0, 4) == 8);
    CHECK(CountShortestPaths(g, 0, 11) == 8);
}

TEST_CASE("multi-site: bad parameters name their field", "[unit][multi-site]")
{
    MultiSiteParams p = ThreeSites();
    p.sites = 1;
    CHECK_THROWS_WITH(BuildMultiSite(p), Catch::Contains("at least 2 sites"));
    auto keyOf = [](const MultiSiteParams& bad) -> std::string {
        try
        {
            BuildMultiSite(bad);
        }
        catch (const InputError& e)
        {
            return e.Key();
        }
        return "no error";
    };
    p = ThreeSites();
    p.longHaulRateBps = 0;
    CHECK(keyOf(p) == "MultiSiteParams.longHaulRateBps");
    p = ThreeSites();
    p.hostsPerLeaf = 0;
    CHECK(keyOf(p) == "LeafSpineParams.hostsPerLeaf");
}

TEST_CASE("oracle 22: headroom over distance is 2 x (delay x rate) + 2 x MTU",
          "[unit][multi-site][oracle22]")
{
    // 400 Gb/s over 100 km at 5 us/km: delay 500 us; 2 x 500 us x 400 Gb/s = 50 MB, plus two
    // jumbo frames (2 x 9216 B) and the PAUSE frame (84 B): about 51 MB, oracle 22.
    const uint64_t h = FabricHelper::AutoHeadroomBytes(400'000'000'000ULL, 100 * kFiberPsPerKm);
    CHECK(h == 50'000'000ULL + 2 * 9216 + 84);
    // About 0.5 MB per km at 400 Gb/s.
    const uint64_t perKm = FabricHelper::AutoHeadroomBytes(400'000'000'000ULL, kFiberPsPerKm) - 2 * 9216 - 84;
    CHECK(perKm == 500'000);
}

TEST_CASE("MMU: a lossy port ends the lossless domain", "[unit][mmu][multi-site]")
{
    // 1 MB buffer, 3 ports, priority 3 lossless, 100 kB headroom on ports 0 and 1; port 2 is
    // a long-haul port run lossy: no headroom, so the shared pool is 1 MB - 200 kB = 800 kB.
    auto m = CreateObject<SharedBufferMmu>();
    m->SetAttribute("BufferBytes", UintegerValue(1'000'000));
    m->SetAttribute("Alpha", DoubleValue(1.0));
    m->SetAttribute("EgressAlpha", DoubleValue(1.0));
    m->SetPorts(3);
    for (uint16_t p = 0; p < 3; ++p)
    {
        m->SetHeadroom(p, 100'000);
    }
    m->SetLossyPort(2);
    CHECK(m->IsLossyPort(2));
    CHECK(m->GetHeadroom(2) == 0);
    REQUIRE(m->GetSharedPoolBytes() == 800'000);
    // Priority-3 frames from port 0 to the long haul (port 2): admitted as lossy, so dropped at
    // the egress threshold (e = 800k - e: 400 kB), never charged to headroom, and port 0 is
    // never asked to pause for them.
    uint64_t admitted = 0;
    SharedBufferMmu::Verdict v;
    while ((v = m->Admit(0, 2, 3, 1000)) == SharedBufferMmu::ADMIT)
    {
        admitted += 1000;
        REQUIRE_FALSE(m->ShouldPause(0, 3));
        REQUIRE(m->CheckInvariants());
    }
    CHECK(v == SharedBufferMmu::DROP_EGRESS);
    CHECK(admitted == 400'000);
    CHECK(m->GetHeadroomPoolUsed() == 0);
    // Frames arriving on the long haul: never paused either.
    CHECK(m->Admit(2, 1, 3, 1000) != SharedBufferMmu::ADMIT_HEADROOM);
    CHECK_FALSE(m->ShouldPause(2, 3));
    // Between two lossless ports priority 3 stays lossless: pause, then headroom.
    auto n = CreateObject<SharedBufferMmu>();
    n->SetAttribute("BufferBytes", UintegerValue(1'000'000));
    n->SetAttribute("Alpha", DoubleValue(1.0));
    n->SetPorts(3);
    n->SetHeadroom(0, 100'000);
    n->SetHeadroom(1, 100'000);
    n->SetLossyPort(2);
    while (n->Admit(0, 1, 3, 1000) == SharedBufferMmu::ADMIT)
    {
    }
    CHECK(n->ShouldPause(0, 3));
    CHECK(n->Admit(0, 1, 3, 1000) == SharedBufferMmu::ADMIT_HEADROOM);
    // Release of everything returns every counter to zero.
    for (int i = 0; i < 400; ++i)
    {
        m->Release(0, 2, 3, 1000);
    }
    m->Release(2, 1, 3, 1000);
    CHECK(m->GetTotalUsed() == 0);
    CHECK(m->CheckInvariants());
}

TEST_CASE("DiLoCo groups: site and cross-site", "[unit][multi-site][jobs]")
{
    // 8 ranks on hosts 0..7, sites of 4 hosts: site groups {0..3}, {4..7}; cross-site groups
    // pair the i-th rank of each site: {0,4}, {1,5}, {2,6}, {3,7}.
    const std::vector<uint32_t> hosts = {0, 1, 2, 3, 4, 5, 6, 7};
    const std::vector<uint32_t> siteOf = {0, 0, 0, 0, 1, 1, 1, 1};
    const auto site = SiteGroups(hosts, siteOf, "site");
    REQUIRE(site.size() == 2);
    CHECK(site[0] == std::vector<uint32_t>{0, 1, 2, 3});
    CHECK(site[1] == std::vector<uint32_t>{4, 5, 6, 7});
    const auto cross = SiteGroups(hosts, siteOf, "cross-site");
    REQUIRE(cross.size() == 4);
    CHECK(cross[0] == std::vector<uint32_t>{0, 4});
    CHECK(cross[3] == std::vector<uint32_t>{3, 7});
    // Ranks placed out of site order: rank 0 on site 1 (host 5).
    const auto mixed = SiteGroups({5, 0, 6, 1}, siteOf, "cross-site");
    REQUIRE(mixed.size() == 2);
    CHECK(mixed[0] == std::vector<uint32_t>{0, 1});
    CHECK(mixed[1] == std::vector<uint32_t>{2, 3});
    CHECK_THROWS_WITH(SiteGroups(hosts, {}, "site"), Catch::Contains("multi-site topology"));
}

} // namespace TUSK_TEST_FILE
