#include "locate/path-report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace tusk
{
namespace locate
{

namespace
{

std::string
ClassLabel(const Observations& obs, const Suspect& s)
{
    std::string name = obs.links.Links()[s.links.front()].Name();
    if (s.links.size() > 1)
    {
        name += fmt::format(" (+{} alike)", s.links.size() - 1);
    }
    return name;
}

/** A fitted delay, µs, or "n/a" for a class its QPs' intercepts absorb (NaN). */
std::string
DelayText(double us)
{
    return std::isnan(us) ? std::string("n/a") : fmt::format("{:.3f}", us);
}

} // namespace

void
PrintPathTable(const Observations& obs, const PathLocateResult& r, const std::string& resultsDir,
               uint32_t top, std::ostream& out)
{
    if (r.probeStreams > 0)
    {
        const size_t telemetry = r.paths - r.probeStreams;
        out << fmt::format("{}: evidence: probes (probes.csv, {}{}), {} link directions "
                           "in {} classes",
                           resultsDir,
                           r.probeSizes > 1
                               ? fmt::format("{} rows: streams x {} probe sizes", r.probeStreams,
                                             r.probeSizes)
                               : fmt::format("{} streams", r.probeStreams),
                           telemetry > 0 ? fmt::format(") and per-path telemetry (paths.csv{}, "
                                                       "{} paths",
                                                       r.perRoute ? ", per route" : "", telemetry)
                                         : std::string(),
                           obs.links.Links().size(), r.classes);
    }
    else
    {
        out << fmt::format("{}: evidence: per-path telemetry (paths.csv{}), {} paths, {} link "
                           "directions in {} classes",
                           resultsDir, r.perRoute ? ", per route" : "", r.paths,
                           obs.links.Links().size(), r.classes);
    }
    if (r.unusedLinks)
    {
        out << fmt::format(" ({} carried no path: not observable)", r.unusedLinks);
    }
    if (r.sequentialPaths)
    {
        out << fmt::format("; {} routes used one after the other (rerouted QPs): their losses "
                           "only, not their delays",
                           r.sequentialPaths);
    }
    if (r.spreadLossyQps)
    {
        out << fmt::format("; {} QPs lost copies spread per packet over routes used side by "
                           "side: counted per QP, a group of links that carry the same QPs "
                           "named as one",
                           r.spreadLossyQps);
    }
    out << "\n";
    const bool probes = r.probeStreams > 0;
    out << fmt::format("slow paths: {} (smallest {} > {:.3f} µs above their {}'s common "
                       "level); lossy paths: {}\n",
                       r.slowPaths, probes ? "delay" : "RTT", r.delayFloorUs,
                       probes ? "QP's or probe stream" : "QP", r.lossyPaths);
    std::string tiers;
    for (const auto& [t, cut] : r.tierDelayCutUs)
    {
        tiers += fmt::format("{}{} {:.3f}", tiers.empty() ? "" : ", ", t, cut);
    }
    out << fmt::format("delay cut: {:.3f} µs{} and {:.1f} standard errors (residual sigma {:.3f} "
                       "µs), slow-path count p <= {:.2g}; {} classes every path of their QPs "
                       "crosses: not identifiable from per-path delays\n",
                       r.delayCutUs,
                       tiers.empty() ? std::string()
                                     : " (or its tier's, the larger: " + tiers + ")",
                       r.zCut, r.residualSigmaUs, r.slowCountAlpha, r.unidentifiable);
    if (r.sizeRoutes > 0)
    {
        out << fmt::format("size excess: {} routes with {} B and {} B probes (the large ones' "
                           "smallest delay over the small ones', less the nominal "
                           "serialisation of {} B on each link); a class is slow when three "
                           "in four of its routes' excess is at least {:.3f} µs and their "
                           "count p <= {:.2g}; rate from the lower quartile; per route "
                           "{:g} large and {:g} small probes (medians)\n",
                           r.sizeRoutes, r.sizeSmallBytes, r.sizeLargeBytes,
                           r.sizeLargeBytes - r.sizeSmallBytes, r.delayFloorUs, r.sizeAlpha,
                           r.sizeLargePerRoute, r.sizeSmallPerRoute);
        if (r.SizeFewLarge())
        {
            out << fmt::format("warning: few large probes per route ({:g}; {} or more wanted): "
                               "a route's least large-probe delay keeps waits that its small "
                               "probes' least escaped, and a busy healthy link may be named "
                               "slow for its size excess; probe longer, or over fewer streams "
                               "(docs/locate.md, \"Two sizes: the size excess\")\n",
                               r.sizeLargePerRoute, r.sizeMinLargePerRoute);
        }
        if (r.nominalByProbes > 0)
        {
            out << fmt::format("{} classes above the delay cuts have their nominal rate by the "
                               "size excess: their delay is queueing, not a slower link; not "
                               "named\n",
                               r.nominalByProbes);
        }
    }
    const uint32_t shown = std::min<uint32_t>(r.named, top);
    if (shown == 0)
    {
        out << "no suspect";
        if (!r.ranking.empty())
        {
            out << fmt::format(" (highest: {}, {} µs added)", ClassLabel(obs, r.ranking.front()),
                               DelayText(r.delayUs.front()));
        }
        out << "\n";
        return;
    }
    size_t width = 4;
    for (uint32_t i = 0; i < shown; ++i)
    {
        width = std::max(width, ClassLabel(obs, r.ranking[i]).size());
    }
    out << fmt::format("{:>4}  {:<{}} {:>7}  {:<10} {:>8} {:>6} {:>7} {:>9} {:>7} {:>10} {:>11}\n",
                       "rank", "link", width, "link_id", "kind", "delay_us", "rate", "loss",
                       "lost_cap", "marks", "slow/paths", "lossy/paths");
    for (uint32_t i = 0; i < shown; ++i)
    {
        const Suspect& s = r.ranking[i];
        out << fmt::format(
            "{:>4}  {:<{}} {:>7}  {:<10} {:>8} {:>6.2f} {:>6.2f}% {:>8.0f}% {:>6.1f}% {:>10} "
            "{:>11}\n",
            i + 1, ClassLabel(obs, s), width, obs.links.Links()[s.links.front()].linkId, s.Kind(),
            DelayText(r.delayUs[i]), s.rateFactor, 100 * s.lossRate, 100 * (1 - s.rateFactor * (1 - s.lossRate)),
            100 * r.markRate[i], fmt::format("{}/{}", s.slowFlows, s.flows),
            fmt::format("{}/{}", s.lossyFlows, s.flows));
    }
    for (const LossTie& t : r.lossTies)
    {
        if (t.named >= shown)
        {
            continue;
        }
        out << fmt::format("rank {}: tied on losses with {} (rank {}): the same {:.4g} lost "
                           "copies on {} paths crossed both, which of the two lost them the "
                           "copies cannot say; named for its higher loss rate ({:.2f}% against "
                           "{:.2f}%: the other carried more delivered packets)\n",
                           t.named + 1, ClassLabel(obs, r.ranking[t.tied]), t.tied + 1, t.lost,
                           t.lossyPaths, 100 * t.namedRate, 100 * t.tiedRate);
    }
    std::string bySize;
    for (uint32_t i = 0; i < shown && r.sizeRoutes > 0; ++i)
    {
        if (r.sizeNamed[i])
        {
            bySize += fmt::format("{}rank {} (at least {:.3f} µs on three in four of its {} "
                                  "routes)",
                                  bySize.empty() ? "" : ", ", i + 1, r.sizeExcessQ1Us[i],
                                  r.sizeExcessRoutes[i]);
        }
    }
    if (!bySize.empty())
    {
        out << "named slow for the size excess, rate from it: " << bySize << "\n";
    }
    if (probes)
    {
        out << "delay_us = added one-way delay fitted to the link (smallest probe delays and "
               "RTTs; n/a: every path of its streams and QPs crosses it); rate = estimated rate "
               "/ nominal (1 when it is named for losses alone; with probes of two sizes "
               "measured from the size excess); loss = estimated fraction of "
               "its probes lost (probes.csv losses); lost_cap = capacity lost (1 - rate x (1 - "
               "loss)); marks = ECN-echoing ACKs of its paths\n";
        return;
    }
    out << "delay_us = added one-way delay fitted to the link (smallest RTTs; n/a: every path "
           "of its QPs crosses it); rate = estimated "
           "rate / nominal (1 when it is named for losses alone); loss = estimated fraction of its "
           "frames lost (paths.csv trims + losses); lost_cap = capacity lost (1 - rate x (1 - "
           "loss)); marks = ECN-echoing ACKs of its paths\n";
}

std::string
PathJson(const Observations& obs, const PathLocateResult& r, const std::string& resultsDir,
         uint32_t top)
{
    using nlohmann::json;
    json doc = {{"results_dir", resultsDir},
                {"evidence", r.probeStreams > 0 ? "probes" : "paths"},
                {"path_rows", r.perRoute ? "route" : "entropy"},
                {"paths", r.paths},
                {"probe_streams", r.probeStreams},
                {"link_directions", obs.links.Links().size()},
                {"classes", r.classes},
                {"unobserved_link_directions", r.unusedLinks},
                {"slow_paths", r.slowPaths},
                {"lossy_paths", r.lossyPaths},
                {"frame_us", r.frameUs},
                {"delay_floor_us", r.delayFloorUs},
                {"delay_cut_us", r.delayCutUs},
                {"delay_cut_tier_us", r.tierDelayCutUs},
                {"delay_z_cut", r.zCut},
                {"residual_sigma_us", r.residualSigmaUs},
                {"slow_count_p_cut", r.slowCountAlpha},
                {"unidentifiable_classes", r.unidentifiable},
                {"named", r.named}};
    if (r.sequentialPaths)
    {
        doc["sequential_paths_losses_only"] = r.sequentialPaths; // not in the delay fit
    }
    if (r.spreadLossyQps)
    {
        doc["spread_lossy_qps"] = r.spreadLossyQps; // their copies fitted per QP
    }
    if (r.sizeRoutes > 0)
    {
        doc["size_excess"] = {{"small_bytes", r.sizeSmallBytes},
                              {"large_bytes", r.sizeLargeBytes},
                              {"routes", r.sizeRoutes},
                              {"p_cut", r.sizeAlpha},
                              {"nominal_by_size", r.nominalByProbes},
                              {"large_per_route", r.sizeLargePerRoute},
                              {"small_per_route", r.sizeSmallPerRoute},
                              {"few_large", r.SizeFewLarge()},
                              {"min_large_per_route", r.sizeMinLargePerRoute}};
    }
    json ranking = json::array();
    for (uint32_t i = 0; i < std::min<size_t>(top, r.ranking.size()); ++i)
    {
        const Suspect& s = r.ranking[i];
        json links = json::array();
        for (uint32_t l : s.links)
        {
            const auto& d = obs.links.Links()[l];
            links.push_back({{"link_id", d.linkId}, {"from", d.from}, {"to", d.to}});
        }
        ranking.push_back({{"rank", i + 1},
                           {"named", s.named},
                           {"links", links},
                           {"kind", s.Kind()},
                           {"delay_us", std::isnan(r.delayUs[i]) ? json(nullptr)
                                                                 : json(r.delayUs[i])},
                           {"delay_identifiable", !std::isnan(r.delayUs[i])},
                           {"delay_z", r.delayZ[i]},
                           {"slow_count_p", r.slowCountP[i]},
                           {"rate_factor", s.rateFactor},
                           {"loss_rate", s.lossRate},
                           {"capacity_lost", 1 - s.rateFactor * (1 - s.lossRate)},
                           {"mark_rate", r.markRate[i]},
                           {"score", s.score},
                           {"confidence", s.confidence},
                           {"paths", s.flows},
                           {"slow_paths", s.slowFlows},
                           {"lossy_paths", s.lossyFlows}});
        if (r.sizeRoutes > 0)
        {
            json& e = ranking.back();
            e["size_excess_us"] =
                std::isnan(r.sizeExcessUs[i]) ? json(nullptr) : json(r.sizeExcessUs[i]);
            e["size_excess_q1_us"] =
                std::isnan(r.sizeExcessQ1Us[i]) ? json(nullptr) : json(r.sizeExcessQ1Us[i]);
            e["size_routes"] = r.sizeExcessRoutes[i];
            e["size_p"] = r.sizeExcessP[i];
            e["named_for_size"] = static_cast<bool>(r.sizeNamed[i]);
        }
    }
    doc["ranking"] = ranking;
    if (!r.lossTies.empty())
    {
        auto linksOf = [&](const Suspect& s) {
            json links = json::array();
            for (uint32_t l : s.links)
            {
                const auto& d = obs.links.Links()[l];
                links.push_back({{"link_id", d.linkId}, {"from", d.from}, {"to", d.to}});
            }
            return links;
        };
        json ties = json::array();
        for (const LossTie& t : r.lossTies)
        {
            ties.push_back({{"named_rank", t.named + 1},
                            {"tied_rank", t.tied + 1},
                            {"named_links", linksOf(r.ranking[t.named])},
                            {"tied_links", linksOf(r.ranking[t.tied])},
                            {"lost_copies", t.lost},
                            {"lossy_paths", t.lossyPaths},
                            {"named_loss_rate", t.namedRate},
                            {"tied_loss_rate", t.tiedRate},
                            {"named_p_value", t.namedPValue},
                            {"tied_p_value", t.tiedPValue}});
        }
        doc["loss_ties"] = ties;
    }
    return doc.dump(2) + "\n";
}

} // namespace locate
} // namespace tusk
