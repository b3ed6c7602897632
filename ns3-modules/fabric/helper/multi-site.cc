/*
 * tusk: the multi-site builder (multi-site.h).
 */
#include "fabric/helper/multi-site.h"

#include "fabric/model/input-error.h"

#include <limits>
#include <string>

namespace ns3
{

namespace
{

[[noreturn]] void
Fail(const std::string& param, const std::string& expected, const std::string& got)
{
    throw InputError("", 0, param, "expected " + expected + "; got " + got);
}

} // namespace

TopologyGraph
BuildMultiSite(const MultiSiteParams& p)
{
    if (p.sites < 2)
    {
        Fail("MultiSiteParams.sites", "at least 2 sites", std::to_string(p.sites));
    }
    if (p.dciSwitches == 0)
    {
        Fail("MultiSiteParams.dciSwitches", "a positive value", "0");
    }
    if (p.longHaulLinks == 0)
    {
        Fail("MultiSiteParams.longHaulLinks", "a positive value", "0");
    }
    if (p.longHaulRateBps == 0)
    {
        Fail("MultiSiteParams.longHaulRateBps", "a positive value", "0");
    }
    // One site, checked (and its vertex and link order fixed) by the leaf-spine builder.
    const TopologyGraph site = BuildLeafSpine(p);
    const uint64_t siteHosts = site.numHosts;
    if (siteHosts * p.sites > (1ULL << 24))
    {
        Fail("MultiSiteParams.sites", "sites * hosts per site <= 2^24",
             std::to_string(p.sites) + " * " + std::to_string(siteHosts));
    }
    const uint64_t dciPorts =
        uint64_t{p.spines} + uint64_t{p.sites - 1} * p.longHaulLinks;
    if (dciPorts > std::numeric_limits<uint16_t>::max() ||
        uint64_t{p.leaves} * p.linksPerSpine + p.dciSwitches > std::numeric_limits<uint16_t>::max())
    {
        Fail("MultiSiteParams.longHaulLinks", "at most 65535 ports per DCI switch and spine",
             std::to_string(dciPorts) + " DCI ports");
    }
    const uint32_t siteSwitches = site.NumSwitches();
    const uint32_t perSite = siteSwitches + p.dciSwitches; // switches per site
    TopologyGraph g;
    g.numHosts = static_cast<uint32_t>(siteHosts * p.sites);
    g.switchLatencyPs = p.switchLatencyPs;
    g.description = std::to_string(p.sites) + " sites of " + site.description + ", " +
                    std::to_string(p.dciSwitches) + " DCI switch(es) per site, " +
                    std::to_string(p.longHaulLinks) + " long-haul link(s) of " +
                    std::to_string(p.longHaulRateBps / 1'000'000'000ULL) + " Gb/s, " +
                    std::to_string(p.longHaulDelayPs / 1'000'000ULL) + " us per DCI pair";
    // Vertex index of site s's vertex v (v indexes the single-site graph), and of its DCIs.
    auto mapV = [&](uint32_t s, uint32_t v) -> uint32_t {
        if (v < siteHosts)
        {
            return static_cast<uint32_t>(s * siteHosts + v);
        }
        return g.numHosts + s * perSite + (v - static_cast<uint32_t>(siteHosts));
    };
    auto dciV = [&](uint32_t s, uint32_t d) { return g.numHosts + s * perSite + siteSwitches + d; };
    const std::string prefix = "s";
    g.vertices.resize(g.numHosts + uint64_t{perSite} * p.sites);
    for (uint32_t s = 0; s < p.sites; ++s)
    {
        const std::string sp = prefix + std::to_string(s) + ".";
        for (uint32_t v = 0; v < site.vertices.size(); ++v)
        {
            TopoVertex tv = site.vertices[v];
            tv.pod = s;
            // Hosts keep "host<h>" (h the global id: flows.csv, pcaps and tusk locate name
            // hosts so); switches carry their site.
            tv.name = tv.kind == TopoVertex::HOST ? "host" + std::to_string(mapV(s, v))
                                                  : sp + tv.name;
            g.vertices[mapV(s, v)] = tv;
        }
        for (uint32_t d = 0; d < p.dciSwitches; ++d)
        {
            TopoVertex tv;
            tv.kind = TopoVertex::SWITCH;
            tv.tier = 3;
            tv.pod = s;
            tv.name = sp + "dci" + std::to_string(d);
            tv.bufferBytes = p.dciBufferBytes;
            g.vertices[dciV(s, d)] = tv;
        }
    }
    for (uint32_t s = 0; s < p.sites; ++s)
    {
        for (const TopoLink& l : site.links)
        {
            TopoLink m = l;
            m.a = mapV(s, l.a);
            m.b = mapV(s, l.b);
            g.links.push_back(m);
        }
    }
    const uint32_t firstSpine = static_cast<uint32_t>(siteHosts) + p.leaves;
    for (uint32_t s = 0; s < p.sites; ++s)
    {
        for (uint32_t d = 0; d < p.dciSwitches; ++d)
        {
            for (uint32_t j = 0; j < p.spines; ++j)
            {
                g.links.push_back(TopoLink{mapV(s, firstSpine + j), dciV(s, d), p.fabricRateBps,
                                           p.linkDelayPs});
            }
        }
    }
    for (uint32_t s = 0; s < p.sites; ++s)
    {
        for (uint32_t t = s + 1; t < p.sites; ++t)
        {
            for (uint32_t d = 0; d < p.dciSwitches; ++d)
            {
                for (uint32_t k = 0; k < p.longHaulLinks; ++k)
                {
                    TopoLink l{dciV(s, d), dciV(t, d), p.longHaulRateBps, p.longHaulDelayPs};
                    l.longHaul = true;
                    g.links.push_back(l);
                }
            }
        }
    }
    return g;
}

} // namespace ns3
