#include "locate/pool.h"

#include "fabric/model/input-error.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>
#include <utility>

namespace tusk
{
namespace locate
{

void
CheckSameFabric(const Observations& first, const std::string& firstDir, const Observations& run,
                const std::string& dir)
{
    namespace fs = std::filesystem;
    const std::string links = (fs::path(dir) / "links.csv").string();
    const std::string firstLinks = (fs::path(firstDir) / "links.csv").string();
    const auto& a = first.links.Links();
    const auto& b = run.links.Links();
    if (a.size() != b.size())
    {
        throw ns3::InputError(links, 0, "",
                              fmt::format("a different fabric: {} link directions where {} has "
                                          "{} (locate pools runs of one fabric only)",
                                          b.size(), firstLinks, a.size()));
    }
    for (size_t i = 0; i < a.size(); ++i)
    {
        if (a[i].linkId != b[i].linkId || a[i].from != b[i].from || a[i].to != b[i].to)
        {
            throw ns3::InputError(
                links, 0, "",
                fmt::format("a different fabric: link direction {} is link_id {} {} where {} "
                            "has link_id {} {} (locate pools runs of one fabric only)",
                            i + 1, b[i].linkId, b[i].Name(), firstLinks, a[i].linkId,
                            a[i].Name()));
        }
    }
    const std::string manifest = (fs::path(dir) / "manifest.json").string();
    if (first.mtuBytes != run.mtuBytes)
    {
        throw ns3::InputError(manifest, 0, "scenario.nic.mtu_bytes",
                              fmt::format("{} where {} has {} (locate pools runs of one fabric "
                                          "only; 0: not given)",
                                          run.mtuBytes, firstDir, first.mtuBytes));
    }
    // Every link direction's configured rate (not only the lower of the two: a run whose
    // fabric links were 200 Gb/s is another fabric), named by the first link that differs.
    for (size_t i = 0; i < a.size(); ++i)
    {
        const double ra = ConfiguredLinkGbps(first, a[i]);
        const double rb = ConfiguredLinkGbps(run, b[i]);
        if (ra != rb)
        {
            const bool host = IsHostLink(b[i]);
            throw ns3::InputError(
                manifest, 0,
                fmt::format("scenario.topology.{}", host ? "host_link_gbps" : "fabric_link_gbps"),
                fmt::format("a different fabric: link_id {} {} is configured at {} Gb/s in {} "
                            "and {} Gb/s in {} (locate pools runs of one fabric only; 0: not "
                            "given)",
                            b[i].linkId, b[i].Name(), ra, firstDir, rb, dir));
        }
    }
    // The rest of the topology (planes, delays, long-haul rates, ...): key by key.
    std::set<std::string> keys;
    for (const auto* t : {&first.topology, &run.topology})
    {
        for (const auto& [key, value] : *t)
        {
            keys.insert(key);
        }
    }
    for (const auto& key : keys)
    {
        const auto ia = first.topology.find(key);
        const auto ib = run.topology.find(key);
        const std::string va = ia == first.topology.end() ? "(not given)" : ia->second;
        const std::string vb = ib == run.topology.end() ? "(not given)" : ib->second;
        if (va != vb)
        {
            throw ns3::InputError(manifest, 0, "scenario.topology." + key,
                                  fmt::format("a different fabric: {} in {} and {} in {} (locate "
                                              "pools runs of one fabric only)",
                                              va, firstDir, vb, dir));
        }
    }
    // One policy: a fault's signature depends on it (a slow cable costs an ECMP flow pinned to
    // it its whole rate, a DRILL or sprayed flow only what its other paths do not absorb), and
    // the fits assume every flow of the pool was routed alike.
    if (first.policy != run.policy)
    {
        throw ns3::InputError(
            manifest, 0, "policy",
            fmt::format("load-balancing policy \"{}\" in {} and \"{}\" in {}: locate pools runs "
                        "of one policy only (a fault shows differently under each; locate each "
                        "policy's runs apart)",
                        first.policy, firstDir, run.policy, dir));
    }
}

Observations
PoolObservations(std::vector<Observations> runs)
{
    if (runs.size() == 1)
    {
        return std::move(runs.front());
    }
    Observations out;
    out.flowsFile = runs.front().flowsFile;
    out.links = runs.front().links;
    out.mtuBytes = runs.front().mtuBytes;
    out.nominalRateBps = runs.front().nominalRateBps;
    // The configured rates, which the size excess of probes reads per link (one fabric: the
    // same in every run, CheckSameFabric).
    out.hostLinkGbps = runs.front().hostLinkGbps;
    out.fabricLinkGbps = runs.front().fabricLinkGbps;
    out.topology = runs.front().topology;
    // Run k starts 1 ms after run k - 1's last start or finish: its flows share no link with
    // an earlier run's (the load-explained slowdown counts the flows on a link at a time).
    constexpr double gapUs = 1000.0;
    double offset = 0.0;
    for (uint32_t k = 0; k < runs.size(); ++k)
    {
        Observations& r = runs[k];
        out.skippedFlows += r.skippedFlows;
        out.skippedReductionFlows += r.skippedReductionFlows;
        out.notStartedFlows += r.notStartedFlows;
        out.runHorizonUs.push_back(offset + r.horizonUs);
        for (auto& f : r.flows)
        {
            f.run = k;
            f.flowId = fmt::format("run{}/{}", k + 1, f.flowId);
            f.startUs += offset;
            if (f.finished)
            {
                f.finishUs += offset;
            }
            out.flows.push_back(std::move(f));
        }
        out.horizonUs = offset + r.horizonUs;
        offset += r.horizonUs + gapUs;
    }
    return out;
}

std::vector<PathObservation>
PoolPathRows(std::vector<std::vector<PathObservation>> runs)
{
    std::vector<PathObservation> out;
    for (uint32_t k = 0; k < runs.size(); ++k)
    {
        for (auto& p : runs[k])
        {
            p.run = k;
            out.push_back(std::move(p));
        }
    }
    return out;
}

std::vector<ArObservation>
PoolArRows(std::vector<std::vector<ArObservation>> runs)
{
    if (runs.size() == 1)
    {
        return std::move(runs.front());
    }
    std::vector<ArObservation> out;
    std::map<std::pair<uint32_t, uint32_t>, size_t> at; // (egress, candidates) -> row of out
    for (auto& rows : runs)
    {
        for (const auto& a : rows)
        {
            const auto [it, fresh] = at.emplace(std::make_pair(a.link, a.candidates), out.size());
            if (fresh)
            {
                out.push_back(a);
                continue;
            }
            ArObservation& s = out[it->second];
            s.offered += a.offered;
            s.decisions += a.decisions;
            s.packets += a.packets;
            s.bytes += a.bytes;
            s.steeredPackets += a.steeredPackets;
        }
    }
    return out;
}

} // namespace locate
} // namespace tusk
