/*
 * tusk: the metric catalogue (metric-catalogue.h). The values are computed in Summarize
 * (run-summary.cc); docs/results-format.md, "The summary", lists the rows.
 */
#include "results/metric-catalogue.h"
#include "run/fabric-kinds.h"

#include <algorithm>

namespace tusk
{

namespace
{

MetricValue
Real(double v)
{
    MetricValue m;
    m.real = v;
    return m;
}

MetricValue
Count(uint64_t v)
{
    MetricValue m;
    m.isCount = true;
    m.count = v;
    return m;
}

using S = const RunSummary&;
constexpr Better kLower = Better::LOWER;
constexpr Better kHigher = Better::HIGHER;
constexpr Better kNone = Better::NONE;

/** A column of the printed table; `coll`: only when some run has a collective; `valued`: only
 *  when some run has a value (not NaN). */
TableColumn
Col(const char* header, int width, int decimals, int position, bool coll = false, bool valued = false)
{
    return TableColumn{header, width, decimals, position, coll, valued};
}

const TableColumn kNoColumn{};

std::vector<const MetricInfo*>
Ordered(int (*position)(const MetricInfo&))
{
    std::vector<const MetricInfo*> out;
    for (const auto& m : MetricCatalogue())
    {
        if (position(m) > 0)
        {
            out.push_back(&m);
        }
    }
    std::stable_sort(out.begin(), out.end(), [position](const MetricInfo* a, const MetricInfo* b) {
        return position(*a) < position(*b);
    });
    return out;
}

} // namespace

const char*
BetterName(Better b)
{
    return b == Better::LOWER ? "lower" : b == Better::HIGHER ? "higher" : "none";
}

const std::vector<MetricInfo>&
MetricCatalogue()
{
    // name, unit, better, meaning, value, comparison.csv position, printed column.
    static const std::vector<MetricInfo> rows = {
        {"cct_us", "us", kLower,
         "largest CCT over the finished collectives (collectives.csv cct_us); NaN if none",
         [](S s) { return Real(s.cctUs); }, 1, Col("CCT_us", 10, 1, 1, true)},
        {"algbw_GBps", "GB/s", kHigher, "algorithm bandwidth of that collective (nccl-tests)",
         [](S s) { return Real(s.algbwGBps); }, 2, Col("algbw", 8, 2, 2, true)},
        {"busbw_GBps", "GB/s", kHigher, "bus bandwidth of that collective (nccl-tests)",
         [](S s) { return Real(s.busbwGBps); }, 3, Col("busbw", 8, 2, 3, true)},
        {"lower_bound_us", "us", kNone, "byte bound of that collective (collectives.csv)",
         [](S s) { return Real(s.lowerBoundUs); }, 0, kNoColumn},
        {"slowdown_mean", "ratio", kLower, "mean FCT slowdown (FCT / ideal FCT) of finished flows",
         [](S s) { return Real(s.meanSlowdown); }, 4, Col("sd_mean", 8, 3, 6)},
        {"slowdown_p50", "ratio", kLower, "median FCT slowdown, nearest rank",
         [](S s) { return Real(s.p50Slowdown); }, 5, kNoColumn},
        {"slowdown_p99", "ratio", kLower, "99th percentile FCT slowdown, nearest rank",
         [](S s) { return Real(s.p99Slowdown); }, 6, Col("sd_p99", 8, 3, 7)},
        {"slowdown_p999", "ratio", kLower, "99.9th percentile FCT slowdown, nearest rank",
         [](S s) { return Real(s.p999Slowdown); }, 0, kNoColumn},
        {"slowdown_max", "ratio", kLower, "largest FCT slowdown",
         [](S s) { return Real(s.maxSlowdown); }, 7, Col("sd_max", 8, 3, 8)},
        // Printed before sd_mean, and only when
        // some run has a value: a run of background traffic alone has none.
        {"fair_slowdown_mean", "ratio", kLower,
         "mean collective-aware slowdown (flows.csv fair_slowdown: FCT / the max-min fair share "
         "ideal of the transfer's collective step or release group); NaN if no flow has one",
         [](S s) { return Real(s.meanFairSlowdown); }, 25, Col("fsd_mean", 8, 3, 4, false, true)},
        {"fair_slowdown_p99", "ratio", kLower,
         "99th percentile collective-aware slowdown, nearest rank",
         [](S s) { return Real(s.p99FairSlowdown); }, 26, Col("fsd_p99", 8, 3, 5, false, true)},
        {"fct_p99_us", "us", kLower, "99th percentile FCT of finished flows (flows.csv fct_us)",
         [](S s) { return Real(s.p99FctUs); }, 8, Col("fct_p99_us", 10, 1, 9)},
        {"fct_max_us", "us", kLower, "largest FCT of finished flows",
         [](S s) { return Real(s.maxFctUs); }, 9, Col("fct_max_us", 10, 1, 10)},
        {"uplink_util_max", "fraction", kNone, "largest mean_util over uplinks (links.csv)",
         [](S s) { return Real(s.uplinkMaxUtil); }, 10, Col("up_max", 7, 3, 11)},
        {"uplink_util_mean", "fraction", kNone, "mean of mean_util over uplinks",
         [](S s) { return Real(s.uplinkMeanUtil); }, 11, Col("up_mean", 7, 3, 12)},
        {"uplink_jain", "ratio", kHigher,
         "Jain's index of each switch's uplink tx bytes, weighted by its uplink bytes",
         [](S s) { return Real(s.uplinkJain); }, 12, kNoColumn},
        {"drops", "frames", kLower, "fabric drops of every reason but nic_stale (links.csv)",
         [](S s) { return Count(s.drops); }, 13, Col("drops", 6, 0, 14)},
        {"pfc_pauses", "frames", kLower, "PFC XOFF frames sent by all ports (links.csv)",
         [](S s) { return Count(s.pfcPauses); }, 0, Col("pauses", 7, 0, 15)},
        {"pfc_paused_fraction", "fraction", kLower,
         "mean over link directions of paused time / run duration",
         [](S s) { return Real(s.pausedFraction); }, 0, kNoColumn},
        {"pfc_max_depth", "hops", kLower, "deepest pause propagation (pfc_events.csv depth)",
         [](S s) { return Count(s.pfcMaxDepth); }, 0, kNoColumn},
        {"ecn_marks", "frames", kLower, "frames CE-marked by switches (links.csv)",
         [](S s) { return Count(s.ecnMarks); }, 23, Col("ecn", 7, 0, 16)},
        {"cnps", "packets", kLower, "CNPs sent by receivers' notification points, out-of-order CNPs included",
         [](S s) { return Count(s.cnps); }, 24, Col("cnps", 7, 0, 17)},
        {"trimmed_frames", "frames", kLower, "data frames cut to their headers by switches",
         [](S s) { return Count(s.trimmedFrames); }, 0, kNoColumn},
        {"retx_packets", "packets", kLower, "packets retransmitted (flows.csv)",
         [](S s) { return Count(s.retxPackets); }, 14, Col("retx", 7, 0, 18)},
        {"ooo_packets", "packets", kLower, "packets that arrived out of order (flows.csv)",
         [](S s) { return Count(s.oooPackets); }, 15, Col("ooo", 7, 0, 21)},
        {"retx_bytes", "bytes", kLower, "payload bytes retransmitted (flows.csv)",
         [](S s) { return Count(s.retxBytes); }, 18, kNoColumn},
        {"retx_timeout_packets", "packets", kLower,
         "of retx_packets, those sent after a retransmission timeout",
         [](S s) { return Count(s.retxTimeoutPackets); }, 0, kNoColumn},
        {"naks", "packets", kLower, "NAKs and SACK-NAKs sent by receivers (flows.csv)",
         [](S s) { return Count(s.naks); }, 19, Col("naks", 7, 0, 20)},
        {"spurious_retx", "packets", kLower, "packets that arrived although already received",
         [](S s) { return Count(s.spuriousRetx); }, 20, Col("spur", 7, 0, 19)},
        {"reorder_max", "packets", kLower, "largest reorder distance (PSN - ePSN)",
         [](S s) { return Count(s.reorderMax); }, 21, kNoColumn},
        {"reorder_mean", "packets", kLower, "mean reorder distance over out-of-order arrivals",
         [](S s) { return Real(s.reorderMean); }, 22, kNoColumn},
        {"uplink_imbalance", "ratio", kLower,
         "sum over switches of max / sum of mean uplink tx bytes (1 = even); NaN if no uplinks",
         [](S s) { return Real(s.uplinkImbalance); }, 17, Col("up_imb", 6, 2, 13)},
        {"unfinished", "flows", kLower, "flows that did not finish (flows.csv finished = 0)",
         [](S s) { return Count(s.unfinished); }, 16, Col("unfinish", 8, 0, 22)},
        {"credit_stall_fraction", "fraction", kLower,
         "mean over link directions of credit-stall time / run duration (InfiniBand)",
         [](S s) { return Real(s.creditStallFraction); }, 0, kNoColumn, true},
    };
    return rows;
}

const MetricInfo*
FindMetric(const std::string& name)
{
    for (const auto& m : MetricCatalogue())
    {
        if (name == m.name)
        {
            return &m;
        }
    }
    return nullptr;
}

std::vector<std::string>
MetricNames()
{
    std::vector<std::string> names;
    for (const auto& m : MetricCatalogue())
    {
        names.emplace_back(m.name);
    }
    return names;
}

bool
HasMetric(const MetricInfo& m, const ScenarioSpec& spec)
{
    return !m.onlyCredits || FabricKindOf(spec).UsesCredits();
}

std::vector<const MetricInfo*>
MetricsInCsvOrder()
{
    return Ordered([](const MetricInfo& m) { return m.csvColumn; });
}

std::vector<const MetricInfo*>
MetricsInTableOrder()
{
    return Ordered([](const MetricInfo& m) { return m.table.position; });
}

} // namespace tusk
