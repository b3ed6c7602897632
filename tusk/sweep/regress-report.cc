/*
 * tusk: what `tusk regress` prints: the table of checks, and the measured baselines that are far
 * outliers among the policies of their scenario (regress.h).
 */
#include "sweep/regress.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace tusk
{

std::vector<Outlier>
MeasuredOutliers(const RegressSuite& suite)
{
    // The baselines of every (scenario, metric), one per policy.
    std::map<std::pair<std::string, std::string>, std::vector<const Baseline*>> groups;
    for (const auto& b : suite.baselines)
    {
        groups[{b.scenario, b.metric}].push_back(&b);
    }
    std::vector<Outlier> out;
    for (const auto& [key, group] : groups)
    {
        if (group.size() < 3)
        {
            continue; // a median of one other policy says nothing
        }
        for (const Baseline* b : group)
        {
            if (!b->Measured() || (b->better != "lower" && b->better != "higher"))
            {
                continue;
            }
            std::vector<double> others;
            for (const Baseline* o : group)
            {
                if (o != b)
                {
                    others.push_back(o->value);
                }
            }
            std::sort(others.begin(), others.end());
            const size_t n = others.size();
            const double median =
                n % 2 == 1 ? others[n / 2] : (others[n / 2 - 1] + others[n / 2]) / 2;
            if (!(median > 0))
            {
                continue;
            }
            const double ratio = b->value / median;
            const bool far = b->better == "lower" ? ratio > suite.outlierFactor
                                                  : ratio * suite.outlierFactor < 1;
            if (far)
            {
                out.push_back(Outlier{b, median, ratio});
            }
        }
    }
    std::sort(out.begin(), out.end(), [](const Outlier& x, const Outlier& y) {
        return std::tie(x.baseline->scenario, x.baseline->metric, x.baseline->policy) <
               std::tie(y.baseline->scenario, y.baseline->metric, y.baseline->policy);
    });
    return out;
}

void
MarkOutliers(std::vector<Check>& checks, const std::vector<Outlier>& outliers)
{
    for (auto& c : checks)
    {
        for (const auto& o : outliers)
        {
            if (c.baseline == o.baseline)
            {
                c.outlierRatio = o.ratio;
            }
        }
    }
}

std::string
CheckTable(const std::vector<Check>& checks)
{
    size_t ws = 8, wp = 6, wm = 6;
    for (const auto& c : checks)
    {
        ws = std::max(ws, c.scenario.size());
        wp = std::max(wp, c.policy.size());
        wm = std::max(wm, c.metric.size());
    }
    const char* const kRow = "{:<{}} {:<{}} {:<{}} {:>12} {:>16} {:>12} {:<11} {:>7} {}\n";
    std::string out = fmt::format(kRow, "scenario", ws, "policy", wp, "metric", wm, "baseline",
                                  "band", "now", "verdict", "outlier", "source / note");
    for (const auto& c : checks)
    {
        if (c.metric.empty())
        {
            if (c.verdict != "pass")
            {
                out += fmt::format(kRow, c.scenario, ws, c.policy, wp, "(runs)", wm, "", "", "",
                                   c.verdict, "", c.note);
            }
            continue;
        }
        const std::string base = c.baseline ? NumberText(c.baseline->value, c.baseline->integer) : "-";
        const std::string now = std::isnan(c.now) ? "-" : fmt::format("{:.6g}", c.now);
        const std::string note = c.verdict == "pass" && c.baseline ? c.baseline->source : c.note;
        const std::string outlier =
            std::isnan(c.outlierRatio) ? "" : fmt::format("{:.3g}x", c.outlierRatio);
        out += fmt::format(kRow, c.scenario, ws, c.policy, wp, c.metric, wm, base,
                           BandText(c.band), now, c.verdict, outlier, note);
    }
    return out;
}

std::string
OutlierWarnings(const std::vector<Outlier>& outliers)
{
    std::string out;
    for (const auto& o : outliers)
    {
        const Baseline& b = *o.baseline;
        out += fmt::format("warning: {} {}.{}: the measured baseline {} is {:.3g}x the median of "
                           "the other policies ({:.6g}); a measured baseline records what the "
                           "simulator did, not that it is right: explain it or fix it (line {})\n",
                           b.scenario, b.policy, b.metric, NumberText(b.value, b.integer),
                           o.ratio, o.median, b.line);
    }
    return out;
}

} // namespace tusk
