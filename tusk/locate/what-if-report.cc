/*
 * tusk locate --what-if: the text of what a hidden fault costs (the numbers come from a
 * WhatIfRunner, results/what-if.h; docs/locate.md, "What a hidden fault costs").
 */
#include "locate/locate-command.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace tusk
{
namespace locate
{

namespace
{

std::string
Mb(double bytes)
{
    return fmt::format("{:.3f} MB", bytes / 1e6);
}

/** A number of the JSON, or NaN for null. */
double
Num(const nlohmann::json& j, const char* key)
{
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::nan("");
}

std::string
Cell(double x, int decimals)
{
    return std::isnan(x) ? std::string("-") : fmt::format("{:.{}f}", x, decimals);
}

std::string
LinkName(const nlohmann::json& l)
{
    return l["from"].get<std::string>() + "->" + l["to"].get<std::string>();
}

} // namespace

void
PrintWhatIf(const nlohmann::json& w, std::ostream& out)
{
    if (w.is_null())
    {
        out << "what-if: no suspect to cost (nothing named; --what-if-link names one)\n";
        return;
    }
    out << fmt::format("\nwhat-if for {} (link {}), rate {:.2f} of nominal, {:.2f} % of frames "
                       "lost, as found from {} evidence\n",
                       LinkName(w["link"]), w["link"]["link_id"].get<uint32_t>(),
                       w["rate_factor"].get<double>(), 100 * w.value("loss_rate", 0.0),
                       w["evidence"].get<std::string>());
    const auto& b = w["bytes"];
    // Plain words either way: a positive "avoided" went to the siblings; a negative one means
    // the suspect carried more than its even share (nothing went elsewhere).
    const double avoided = Num(b, "avoided_bytes");
    const double share = 100 * std::fabs(avoided) / std::max(1.0, Num(b, "even_share_bytes"));
    const double extra = Num(b, "siblings_extra_bytes");
    out << fmt::format("traffic moved ({}): an even split over it and its {} sibling(s) gives "
                       "it {} of {}; it carried {}: {}; its siblings carried {} {} their even "
                       "shares\n",
                       b["source"].get<std::string>(), b["siblings"].size(),
                       Mb(Num(b, "even_share_bytes")), Mb(Num(b, "group_bytes")),
                       Mb(Num(b, "carried_bytes")),
                       avoided >= 0 ? fmt::format("{} ({:.0f} % of its share) less, which its "
                                                  "siblings carried instead",
                                                  Mb(avoided), share)
                                    : fmt::format("{} ({:.0f} % of its share) more than its "
                                                  "share, none of it moved elsewhere",
                                                  Mb(-avoided), share),
                       Mb(std::fabs(extra)), extra >= 0 ? "above" : "below");
    if (b.contains("healthy") && !b["healthy"].is_null())
    {
        const auto& h = b["healthy"];
        out << fmt::format("  against the no-fault run: it carried {} less, its siblings {} "
                           "more\n",
                           Mb(Num(h, "suspect_lost_bytes")), Mb(Num(h, "siblings_gained_bytes")));
    }
    const auto& q = w["queueing"];
    if (q.contains("paths"))
    {
        out << fmt::format("queueing on the {} paths that avoid it (RTT - base RTT): median {} "
                           "µs, p99 {} µs",
                           q["paths"].get<size_t>(), Cell(Num(q, "queue_median_us"), 2),
                           Cell(Num(q, "queue_p99_us"), 2));
        if (q.contains("healthy") && !q["healthy"].is_null())
        {
            out << fmt::format("; no-fault run {} / {} µs: added {} / {} µs",
                               Cell(Num(q["healthy"], "queue_median_us"), 2),
                               Cell(Num(q["healthy"], "queue_p99_us"), 2),
                               Cell(Num(q, "added_median_us"), 2), Cell(Num(q, "added_p99_us"), 2));
        }
        out << "\n";
    }
    else
    {
        out << "queueing: " << q.value("note", std::string("-")) << "\n";
    }
    out << fmt::format("{:<36} {:>9} {:>12} {:>11} {:>11} {:>9}\n", "run", "finished", "CCT_us",
                       "fct_p99_us", "fct_max_us", "sd_mean");
    for (const auto& r : w["runs"])
    {
        out << fmt::format("{:<36} {:>9} {:>12} {:>11} {:>11} {:>9}\n",
                           r["name"].get<std::string>(), r["finished"].get<bool>() ? "yes" : "no",
                           Cell(Num(r, "cct_us"), 1), Cell(Num(r, "fct_p99_us"), 1),
                           Cell(Num(r, "fct_max_us"), 1), Cell(Num(r, "slowdown_mean"), 3));
    }
    for (const auto& r : w["runs"])
    {
        // Why a run did not finish (the watchdog stopped it, the stop time came first): its
        // CCT and FCTs above are then of what it completed.
        if (!r["finished"].get<bool>())
        {
            const std::string failure = r.value("failure", std::string());
            out << fmt::format("  {} did not finish (status {}){}{}\n",
                               r["name"].get<std::string>(),
                               r.value("status", std::string("unknown")),
                               failure.empty() ? "" : ": ", failure);
        }
    }
    out << fmt::format("derived runs in {}\n", w["out_dir"].get<std::string>());
}

} // namespace locate
} // namespace tusk
