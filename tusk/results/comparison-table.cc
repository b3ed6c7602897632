/*
 * tusk: the comparison table `tusk run` and `tusk compare` print, and comparison.csv.
 */
#include "results/comparison-table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tusk
{

namespace
{

std::string
Fmt(double v, int decimals)
{
    return std::isnan(v) ? "-" : fmt::format("{:.{}f}", v, decimals);
}

std::string
Priorities(const std::vector<uint8_t>& p)
{
    std::string s;
    for (uint8_t x : p)
    {
        s += (s.empty() ? "" : ",") + std::to_string(x);
    }
    return s.empty() ? "none" : s;
}

/** The settings as comparison.csv's last columns: transport, receiver, cc, ecn, pfc. */
struct Settings
{
    std::string transport;
    std::string receiver;
    std::string cc;
    std::string ecn;
    std::string pfc;
};

Settings
SettingsOf(const ScenarioSpec& spec)
{
    Settings s;
    s.transport = spec.nic.transport;
    s.receiver = spec.nic.receiver;
    s.cc = spec.nic.congestionControl;
    if (!spec.ecn.enabled)
    {
        s.ecn = "off";
    }
    else if (spec.ecn.byRate.empty())
    {
        const EcnThresholds& t = spec.ecn.fallback;
        s.ecn = fmt::format("on (Kmin {} B, Kmax {} B, Pmax {})", t.kminBytes, t.kmaxBytes,
                            t.pmax);
    }
    else
    {
        s.ecn = "on (thresholds per port rate)";
    }
    if (spec.fabric.IsInfiniband())
    {
        s.pfc = "none (InfiniBand credits)";
    }
    else if (!spec.pfc.enabled)
    {
        s.pfc = "off";
    }
    else
    {
        s.pfc = "on (lossless priorities " + Priorities(spec.pfc.losslessPriorities) + ")";
    }
    return s;
}

} // namespace

std::string
SettingsLine(const ScenarioSpec& spec)
{
    const Settings s = SettingsOf(spec);
    return fmt::format("settings: transport {}, {} receivers; cc {}; ECN {}; PFC {}\n",
                       s.transport, s.receiver, s.cc, s.ecn, s.pfc);
}

void
PrintComparisonTable(const std::vector<RunResult>& runs, std::ostream& os)
{
    const bool anyCollective = std::any_of(runs.begin(), runs.end(), [](const RunResult& r) {
        return !r.collectives.empty();
    });
    size_t width = 11; // wider only for long policy names (host-random-spray)
    for (const auto& r : runs)
    {
        width = std::max(width, r.summary.policy.size());
    }
    os << fmt::format("{:<{}}", "policy", width);
    if (anyCollective)
    {
        os << fmt::format(" {:>10} {:>8} {:>8}", "CCT_us", "algbw", "busbw");
    }
    os << fmt::format(" {:>8} {:>8} {:>8} {:>10} {:>10} {:>7} {:>7} {:>6} {:>6} {:>7} {:>7} "
                      "{:>7} {:>7} {:>7} {:>7} {:>7} {:>8}\n",
                      "sd_mean", "sd_p99", "sd_max", "fct_p99_us", "fct_max_us", "up_max",
                      "up_mean", "up_imb", "drops", "pauses", "ecn", "cnps", "retx", "spur",
                      "naks", "ooo", "unfinish");
    for (const auto& r : runs)
    {
        const RunSummary& s = r.summary;
        os << fmt::format("{:<{}}", s.policy, width);
        if (anyCollective)
        {
            os << fmt::format(" {:>10} {:>8} {:>8}", Fmt(s.cctUs, 1), Fmt(s.algbwGBps, 2),
                              Fmt(s.busbwGBps, 2));
        }
        os << fmt::format(" {:>8} {:>8} {:>8} {:>10} {:>10} {:>7} {:>7} {:>6} {:>6} {:>7} {:>7} "
                          "{:>7} {:>7} {:>7} {:>7} {:>7} {:>8}\n",
                          Fmt(s.meanSlowdown, 3), Fmt(s.p99Slowdown, 3), Fmt(s.maxSlowdown, 3),
                          Fmt(s.p99FctUs, 1), Fmt(s.maxFctUs, 1), Fmt(s.uplinkMaxUtil, 3),
                          Fmt(s.uplinkMeanUtil, 3), Fmt(s.uplinkImbalance, 2), s.drops,
                          s.pfcPauses, s.ecnMarks, s.cnps, s.retxPackets, s.spuriousRetx, s.naks,
                          s.oooPackets, s.unfinished);
    }
    if (anyCollective)
    {
        os << "CCT in µs; algbw/busbw in GB/s (1e9 B/s, nccl-tests definitions); ";
    }
    os << "sd = FCT slowdown (FCT / ideal FCT), p99 by nearest rank; up = uplink mean utilisation (max / mean over "
          "uplinks), up_imb = max / mean uplink bytes; pauses = PFC XOFF frames sent; ecn = frames "
          "CE-marked by switches; cnps = CNPs sent by receivers; retx, spur (spurious: arrived "
          "twice), naks, ooo in packets\n";
}

std::string
ComparisonCsv(const std::vector<RunResult>& runs)
{
    std::string s = "policy,seed,status,cct_us,algbw_GBps,busbw_GBps,slowdown_mean,slowdown_p50,"
                    "slowdown_p99,slowdown_max,fct_p99_us,fct_max_us,uplink_util_max,"
                    "uplink_util_mean,uplink_jain,drops,retx_packets,ooo_packets,unfinished,"
                    "uplink_imbalance,retx_bytes,naks,spurious_retx,reorder_max,reorder_mean,"
                    "ecn_marks,cnps,transport,receiver,congestion_control,ecn,pfc\n";
    auto n = [](double v) { return std::isnan(v) ? std::string() : fmt::format("{:.6f}", v); };
    // Settings hold commas and spaces: quoted as CSV text.
    auto q = [](const std::string& v) { return "\"" + v + "\""; };
    for (const auto& r : runs)
    {
        const RunSummary& x = r.summary;
        const Settings set = SettingsOf(r.spec);
        s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},"
                         "{},{},{},{},{},{},{}\n",
                         x.policy, r.spec.seed, r.failure.empty() ? "ok" : "failed", n(x.cctUs),
                         n(x.algbwGBps), n(x.busbwGBps), n(x.meanSlowdown), n(x.p50Slowdown),
                         n(x.p99Slowdown), n(x.maxSlowdown), n(x.p99FctUs), n(x.maxFctUs),
                         n(x.uplinkMaxUtil), n(x.uplinkMeanUtil), n(x.uplinkJain), x.drops,
                         x.retxPackets, x.oooPackets, x.unfinished, n(x.uplinkImbalance),
                         x.retxBytes, x.naks, x.spuriousRetx, x.reorderMax, n(x.reorderMean),
                         x.ecnMarks, x.cnps, set.transport, set.receiver, set.cc, q(set.ecn),
                         q(set.pfc));
    }
    return s;
}

} // namespace tusk
