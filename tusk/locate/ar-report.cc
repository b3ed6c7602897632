/*
 * tusk locate: the table and JSON of a ranking from switch AR telemetry (ar-signals.h).
 */
#include "locate/ar-signals.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace tusk
{
namespace locate
{

void
PrintArTable(const Observations& obs, const ArLocateResult& r, const std::string& resultsDir,
             uint32_t top, std::ostream& out)
{
    const auto& dl = obs.links.Links();
    out << fmt::format("{}: evidence: switch adaptive-routing telemetry (ar.csv), {} switches, "
                       "{} egress link directions, {} decisions\n",
                       resultsDir, r.switches, r.egresses, r.decisions);
    out << fmt::format("named: share of an even choice below {:.2f} (deficit {:.3f}), not "
                       "chance, not explained downstream\n",
                       std::exp(-r.deficitCut), r.deficitCut);
    const uint32_t shown = std::min<uint32_t>(r.named, top);
    if (shown == 0)
    {
        out << "no suspect";
        if (!r.ranking.empty() && r.ranking.front().expected >= r.minExpected)
        {
            const auto& s = r.ranking.front();
            out << fmt::format(" (lowest share: {} at {:.2f} of an even one)", dl[s.link].Name(),
                               std::exp(-s.deficit));
        }
        else
        {
            out << fmt::format(" (no egress had the {:.0f} decisions an even choice needs to be "
                               "judged)",
                               r.minExpected);
        }
        out << "\n";
        return;
    }
    size_t width = 4;
    for (uint32_t i = 0; i < shown; ++i)
    {
        width = std::max(width, dl[r.ranking[i].link].Name().size());
    }
    out << fmt::format("{:>4}  {:<{}} {:>7} {:>10} {:>10} {:>7} {:>7} {:>6} {:>9} {:>7}\n", "rank",
                       "link", width, "link_id", "decisions", "expected", "dshare", "bshare",
                       "rate", "lost_cap", "z");
    for (uint32_t i = 0; i < shown; ++i)
    {
        const ArSuspect& s = r.ranking[i];
        out << fmt::format("{:>4}  {:<{}} {:>7} {:>10} {:>10.1f} {:>7.2f} {:>7.2f} {:>6.2f} "
                           "{:>8.0f}% {:>7.1f}\n",
                           i + 1, dl[s.link].Name(), width, dl[s.link].linkId, s.decisions,
                           s.expected, s.decisionShare, s.byteShare, s.rateFactor,
                           100 * s.capacityLost, s.z);
    }
    if (r.named > shown)
    {
        out << fmt::format("({} more named: --top)\n", r.named - shown);
    }
    out << "dshare / bshare = its decisions / bytes over an even choice's; rate = estimated rate / "
           "nominal (bshare); lost_cap = capacity lost (1 - rate); z = decision deficit in "
           "binomial deviations (over every decision or those not drawn uniformly, the larger)\n";
}

std::string
ArJson(const Observations& obs, const ArLocateResult& r, const std::string& resultsDir,
       uint32_t top)
{
    using nlohmann::json;
    const auto& dl = obs.links.Links();
    json doc = {{"results_dir", resultsDir},
                {"evidence", "ar"},
                {"switches", r.switches},
                {"link_directions", dl.size()},
                {"egresses", r.egresses},
                {"decisions", r.decisions},
                {"deficit_cut", r.deficitCut},
                {"named", r.named}};
    json ranking = json::array();
    for (uint32_t i = 0; i < std::min<size_t>(top, r.ranking.size()); ++i)
    {
        const ArSuspect& s = r.ranking[i];
        const auto& d = dl[s.link];
        ranking.push_back({{"rank", i + 1},
                           {"named", s.named},
                           {"explained_downstream", s.explained},
                           {"links", json::array({{{"link_id", d.linkId},
                                                   {"from", d.from},
                                                   {"to", d.to}}})},
                           {"kind", s.named ? "slow" : "-"},
                           {"decisions", s.decisions},
                           {"offered", s.offered},
                           {"candidates", s.candidates},
                           {"expected_decisions", s.expected},
                           {"decision_share", s.decisionShare},
                           {"byte_share", s.byteShare},
                           {"deficit", s.deficit},
                           {"z", s.z},
                           {"rate_factor", s.rateFactor},
                           {"capacity_lost", s.capacityLost},
                           {"score", r.deficitCut > 0 ? s.deficit / r.deficitCut : 0.0}});
    }
    doc["ranking"] = ranking;
    return doc.dump(2) + "\n";
}

} // namespace locate
} // namespace tusk
