/*
 * tusk: the comparison table `tusk run` and `tusk compare` print, and comparison.csv.
 */
#include "results/comparison-table.h"
#include "run/fabric-kinds.h"

#include "results/metric-catalogue.h"

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
    s.receiver = ReceiverInEffect(spec.nic);
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
    if (const FabricKindInfo& fabric = FabricKindOf(spec); !fabric.UsesPfc())
    {
        s.pfc = "none (" + fabric.flowControlLabel + ")";
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

namespace
{

/** PrintComparisonTable over runs held elsewhere (nothing copied: a run's flows can be
 *  hundreds of MB). */
void
PrintTable(const std::vector<const RunResult*>& runs, std::ostream& os)
{
    const bool anyCollective = std::any_of(runs.begin(), runs.end(), [](const RunResult* r) {
        return CollectiveCount(*r) > 0;
    });
    size_t width = 11; // wider only for long policy names (host-random-spray)
    for (const RunResult* r : runs)
    {
        width = std::max(width, r->summary.policy.size());
    }
    std::vector<const MetricInfo*> columns;
    for (const MetricInfo* m : MetricsInTableOrder())
    {
        const bool valued = std::any_of(runs.begin(), runs.end(), [m](const RunResult* r) {
            const MetricValue v = m->value(r->summary);
            return v.isCount || !std::isnan(v.real);
        });
        if ((anyCollective || !m->table.onlyWithCollectives) && (valued || !m->table.onlyWithValues))
        {
            columns.push_back(m);
        }
    }
    os << fmt::format("{:<{}}", "policy", width);
    for (const MetricInfo* m : columns)
    {
        os << fmt::format(" {:>{}}", m->table.header, m->table.width);
    }
    os << "\n";
    for (const RunResult* r : runs)
    {
        os << fmt::format("{:<{}}", r->summary.policy, width);
        for (const MetricInfo* m : columns)
        {
            const MetricValue v = m->value(r->summary);
            os << fmt::format(" {:>{}}", v.isCount ? std::to_string(v.count) : Fmt(v.real, m->table.decimals),
                              m->table.width);
        }
        os << "\n";
    }
    if (anyCollective)
    {
        os << "CCT in µs; algbw/busbw in GB/s (1e9 B/s, nccl-tests definitions); ";
    }
    if (std::any_of(columns.begin(), columns.end(),
                    [](const MetricInfo* m) { return std::string(m->name) == "fair_slowdown_mean"; }))
    {
        os << "fsd = collective-aware slowdown (FCT / the ideal at the flow's max-min fair share of "
              "the traffic released with it, docs/analysis.md); ";
    }
    os << "sd = FCT slowdown (FCT / ideal FCT), p99 by nearest rank; up = uplink mean utilisation (max / mean over "
          "uplinks), up_imb = max / mean uplink bytes; pauses = PFC XOFF frames sent; ecn = frames "
          "CE-marked by switches; cnps = CNPs sent by receivers; retx, spur (spurious: arrived "
          "twice), naks, ooo in packets\n";
}

} // namespace

void
PrintComparisonTable(const std::vector<RunResult>& runs, std::ostream& os)
{
    std::vector<const RunResult*> held;
    held.reserve(runs.size());
    for (const auto& r : runs)
    {
        held.push_back(&r);
    }
    PrintTable(held, os);
}

void
PrintComparisonTable(const RunResult& run, std::ostream& os)
{
    PrintTable({&run}, os);
}

std::string
ComparisonCsv(const std::vector<RunResult>& runs)
{
    // policy, seed, status, the catalogue's comparison.csv columns, then the settings.
    const std::vector<const MetricInfo*> metrics = MetricsInCsvOrder();
    std::string s = "policy,seed,status";
    for (const MetricInfo* m : metrics)
    {
        s += std::string(",") + m->name;
    }
    s += ",transport,receiver,congestion_control,ecn,pfc\n";
    // Settings hold commas and spaces: quoted as CSV text.
    auto q = [](const std::string& v) { return "\"" + v + "\""; };
    for (const auto& r : runs)
    {
        const RunSummary& x = r.summary;
        s += fmt::format("{},{},{}", x.policy, r.spec.seed, r.failure.empty() ? "ok" : "failed");
        for (const MetricInfo* m : metrics)
        {
            const MetricValue v = m->value(x);
            s += "," + (v.isCount ? std::to_string(v.count)
                                  : std::isnan(v.real) ? std::string() : fmt::format("{:.6f}", v.real));
        }
        const Settings set = SettingsOf(r.spec);
        s += fmt::format(",{},{},{},{},{}\n", set.transport, set.receiver, set.cc, q(set.ecn),
                         q(set.pfc));
    }
    return s;
}

} // namespace tusk
