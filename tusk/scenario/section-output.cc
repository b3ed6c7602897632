/*
 * tusk: [output], where results go and what is recorded besides the tables.
 */
#include "scenario/scenario-sections.h"

#include <algorithm>

namespace tusk
{

namespace
{

using namespace knob;
using S = OutputSection;
const char* const kP = "output";

/** A boolean that asks for one more output file: in the manifest's scenario only when on, so
 *  that runs without it keep their manifests. */
Knob<S>
OptIn(const char* name, bool S::*member, const char* doc)
{
    return Custom<S>(
               name, "boolean", "", doc,
               [member](ScenarioReader& r, const toml::node& n, const std::string& key, S& o) {
                   o.*member = r.Bool(&n, key);
               },
               [member](const S& o) { return o.*member ? nlohmann::json(true) : nlohmann::json(); })
        .Default("false");
}

const std::vector<Knob<S>>&
Rows()
{
    static const std::vector<Knob<S>> rows = {
        Text<S>("dir", &S::dir,
                "Results directory, relative to the current directory; `\"\"` = "
                "`results/<name>/<policy>-s<seed>`."),
        Boolean<S>("pcap", &S::pcap,
                   "Write one pcap per host NIC (opens in Wireshark as RoCEv2)."),
        Time<S>("sample_us", &S::samplePs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kSampleInterval,
                "Sampling interval of `timeseries.csv`: every switch egress port's transmitted "
                "bytes, utilisation, queue occupancy and PFC-paused time per interval "
                "([results-format.md](results-format.md)). `0` = off. One periodic event, off "
                "the forwarding path; the simulation itself is unchanged. 10 µs suits the "
                "report's heatmap; 1 ms of a 128-host fat tree (640 switch ports) at 10 µs is "
                "~3 MB. Also writes `switch_timeseries.csv`: each switch's MMU pools "
                "(reserved, shared, headroom) at each instant."),
        Boolean<S>("cc_trace", &S::ccTrace,
                   "Write `cc_trace.csv`: a row each time a QP's congestion control changes its "
                   "state (rate Rc, target rate Rt, α, window: what the CC in use has; "
                   "[results-format.md](results-format.md)), from the CC's `CcState` trace "
                   "source, connected only when this is `true`. Rows per QP: DCQCN one per CNP, "
                   "rate-increase event and α update (every 55 µs while α > 0); HPCC, Swift, "
                   "DCTCP, NSCC and TIMELY one per window or rate update (up to one per ACK)."),
        Custom<S>(
            "path_telemetry", "boolean or `\"route\"`", "",
            "Write `paths.csv`: per sending QP and entropy value (UDP source port: the path a "
            "packet-spraying NIC chose), the data packets and bytes sent on it, its RTT "
            "samples (count, min, median, p99), ECN-echoing ACKs, trims, other losses and "
            "timeouts, the links its frames took and, for an entropy whose copies were all "
            "lost, the path a probe with its headers takes (a traceroute on resend) "
            "([results-format.md](results-format.md), "
            "\"paths.csv\"): what a UEC NIC's path selector keeps, for `tusk locate` to find a "
            "slow link that spraying hides ([locate.md](locate.md)). `\"route\"`: one row per "
            "QP, entropy and *route* its frames arrived by (the ACK echoes the path its data "
            "frame took, as INT / path tracing gives it), with that route's own packets, RTTs "
            "and ECN echoes, plus a `route` column; the copies no route can be given (lost "
            "ones, NACKs, timeouts) stay on a row per entropy with an empty `route`: under "
            "switch-side adaptive routing (flowlet-ar, DRILL, ConWeave), where a QP keeps one "
            "entropy value, the routes the switches spread it over become siblings that "
            "`tusk locate` can compare. Connects trace sources only when `true` or "
            "`\"route\"`; the simulation itself is unchanged.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& o) {
                if (n.is_string())
                {
                    if (r.String(&n, key) != "route")
                    {
                        r.Fail(&n, key, "expected true, false or \"route\"; got \"" +
                                            r.String(&n, key) + "\"");
                    }
                    o.pathTelemetry = true;
                    o.pathTelemetryRoutes = true;
                    return;
                }
                if (!n.is_boolean())
                {
                    r.Fail(&n, key, "expected true, false or \"route\"");
                }
                o.pathTelemetry = r.Bool(&n, key);
                o.pathTelemetryRoutes = false;
            },
            [](const S& o) {
                return o.pathTelemetryRoutes ? nlohmann::json("route")
                       : o.pathTelemetry     ? nlohmann::json(true)
                                             : nlohmann::json();
            })
            .Default("false"),
        OptIn("ar_telemetry", &S::arTelemetry,
              "Write `ar.csv`: per switch, egress port, candidate-set size and reason, how often "
              "the switch's load balancer chose that port among two or more equal-cost ports "
              "(fresh decisions), the frames and the bytes sent there, and why (the policy's "
              "reason: `least_backlog`, `flowlet`, `random`, `hash`, `conga_metric`, "
              "`conweave_reroute`, `policy`; [results-format.md](results-format.md), "
              "\"ar.csv\"): what a switch with adaptive routing counts of its member choices, "
              "for `tusk locate --evidence ar` to find a slow link the switches steer around "
              "([locate.md](locate.md)). Off, the switches log nothing; the simulation itself "
              "is unchanged either way."),
        OptIn("drop_log", &S::dropLog,
              "Write `drops.csv`: one row per frame any port dropped (fabric and NIC, every "
              "reason, data and control frames), with its time, the link and direction "
              "(links.csv's `link_id`, `from`, `to`), the reason, the frame kind, its source, "
              "destination and entropy ([results-format.md](results-format.md), "
              "\"drops.csv\"): when a failure stopped losing traffic, which routes a dead "
              "link swallowed. A bound callback per port, connected only when `true`; the "
              "simulation itself is unchanged."),
        Custom<S>(
            "formats", "array of strings", "",
            "Other tools' per-flow outputs, written next to tusk's tables so that a run can be "
            "diffed against the tool a reviewer trusts: `\"hpcc\"` writes `fct.txt` and "
            "`pfc.txt` with the HPCC simulator's field order, units and base-FCT convention, "
            "`\"htsim\"` writes `htsim_flows.txt`, htsim's flow-finish lines "
            "([results-format.md](results-format.md), \"Other tools' formats\"). `[]` = none.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& o) {
                const toml::array* a = n.as_array();
                if (a == nullptr)
                {
                    r.Fail(&n, key, "expected an array of \"hpcc\" and \"htsim\", e.g. [\"hpcc\"]");
                }
                o.formats.clear();
                for (const auto& e : *a)
                {
                    const std::string f = r.Choice(&e, key, {"hpcc", "htsim"});
                    if (std::find(o.formats.begin(), o.formats.end(), f) == o.formats.end())
                    {
                        o.formats.push_back(f);
                    }
                }
            },
            [](const S& o) { return nlohmann::json(o.formats); }),
        Custom<S>(
            "flow_rows", "string", "",
            "Which per-transfer rows are written: `\"all\"` writes `flows.csv` (a row per "
            "transfer) and `waits.csv` (a row per collective step and receiving rank); "
            "`\"summary\"` writes neither and skips building their text, while the run "
            "summary (the manifest's flow statistics: slowdown mean, p50, p99, p99.9 and max, "
            "FCT p99 and max, counters), `collectives.csv` (CCT, per-step ends and slowest "
            "flows, the critical flow, ranks delayed), `jobs.csv`, `links.csv` and the "
            "rest are the same values as with `\"all\"`: for a collective at a scale where "
            "the rows are tens of GB (a ring all-reduce on 8,192 hosts: 134 M transfers, "
            "23 GB of rows). `formats`' files are still written (from the flow rows, then "
            "kept in memory to the end). ([results-format.md](results-format.md), \"Without the per-transfer rows\").",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& o) {
                if (!n.is_string())
                {
                    r.Fail(&n, key, "expected \"all\" or \"summary\" (a string)");
                }
                o.flowRows = r.Choice(&n, key, {"all", "summary"});
            },
            // In the manifest's scenario only when not the default, so that runs without it
            // keep their manifests.
            [](const S& o) {
                return o.flowRows == "all" ? nlohmann::json() : nlohmann::json(o.flowRows);
            })
            .Default("`\"all\"`"),
    };
    return rows;
}

} // namespace

Section
OutputKeys()
{
    return PlainSection(kP, &Rows, &ScenarioSpec::output);
}

} // namespace tusk
