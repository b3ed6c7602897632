/*
 * tusk: [probes], active monitoring probes between NICs (tusk/run/probe-mesh.h).
 */
#include "scenario/scenario-sections.h"

#include <fmt/format.h>

namespace tusk
{

namespace
{

using namespace knob;
using S = ProbesSection;
const char* const kP = "probes";

/** Frames a probe may be: the 64-byte Ethernet minimum to a 9,216-byte jumbo frame. */
constexpr uint32_t kMinProbeBytes = 64;
constexpr uint32_t kMaxProbeBytes = 9216;
/** UDP source ports a probe stream may draw: 49152..65535 (RFC 6335's dynamic range). */
constexpr uint32_t kDynamicPorts = 16384;

const std::vector<Knob<S>>&
Rows()
{
    static const std::vector<Knob<S>> rows = {
        Time<S>("interval_us", &S::intervalPs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kSampleInterval,
                "Each host sends one probe per interval, to its targets and entropies in turn "
                "(the hosts' first probes spread over the first interval). `0` = no probes, "
                "nothing sent, no `probes.csv`. The probes are traffic: they share the links "
                "and the NIC's control class (ACKs, CNPs) with the run. 1 µs on a 100 Gb/s "
                "fabric with 64-byte probes is 0.5 % of each host link."),
        Count<S>("targets", &S::targets, 1,
                 "Hosts each host probes, drawn at random (the run's seed) among the others; "
                 "every other host when there are fewer."),
        Integer<S>("entropies", &S::entropies, 1, kDynamicPorts,
                   "UDP source ports per target, drawn at random from the 16,384 of "
                   "49152..65535: each pins one path, since switches forward probes by a hash "
                   "of their 5-tuple whatever the policy."),
        Integer<S>("bytes", &S::frameBytes, kMinProbeBytes, kMaxProbeBytes,
                   "A probe's bytes on the wire (Ethernet frame). A link at 1/D of its rate "
                   "adds (D - 1) times a probe's serialisation time to the probes that cross "
                   "it, which `tusk locate` sees in their smallest delays when that is at "
                   "least half an MTU frame's: probes of an MTU show a link at 2/3 of its "
                   "rate, 64-byte ones mostly its losses."),
        Integer<S>("large_bytes", &S::largeBytes, 0, kMaxProbeBytes,
                   "A second, larger probe (bytes on the wire, more than `bytes`) each host "
                   "sends every `large_interval_us` over the same streams, counted in probes.csv "
                   "rows of its own (`bytes`). Losses want many probes (each one draw) and a "
                   "slow link wants big ones (each shows (D - 1) serialisation times): small "
                   "probes often and large ones seldom give both from one run. `0` = none."),
        Time<S>("large_interval_us", &S::largeIntervalPs, kPsPerUs, "µs", Sign::NON_NEGATIVE,
                Clock::ANY, bounds::kSampleInterval,
                "Each host sends one large probe per interval, to its streams in turn; given "
                "with `large_bytes` (both or neither). Its load adds to the small probes'."),
        Choice<S>("spacing", &S::spacing, {"periodic", "poisson"},
                  "How a host spaces its probes of each size: `periodic`, one every interval "
                  "(the hosts' first probes spread over the first interval); or `poisson`, "
                  "exponential gaps of mean the interval (RFC 2330 section 11.1.1 and RFC "
                  "7679's Poisson sampling: probes then see the queues as they are on average, "
                  "where periodic probes of fixed phase can meet the same other probes at "
                  "every hop each time, which inflates the smallest delays of large probes)."),
        Time<S>("timeout_us", &S::timeoutPs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kSimTime,
                "A probe that has not arrived this long after it was sent when the run ends "
                "is lost; one sent later, and not overtaken by a later probe of its stream "
                "that arrived, is not judged (still in flight). `0` = four of the fabric's "
                "longest base RTTs, at least 100 µs (a probe queues only behind its own "
                "class; a long-haul link's delay is milliseconds)."),
        Time<S>("until_us", &S::untilPs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kSimTime,
                "No probe is sent from this run time on; `0` = until every transfer of the "
                "workload is done. A run that waits for a retransmission timeout (tens of ms "
                "at the NIC's default) probes all that time: a bound keeps such runs cheap."),
    };
    return rows;
}

/** A [probes] table without interval_us sends nothing: say so rather than run silently.
 *  large_bytes and large_interval_us come together, and a large probe is larger. */
void
CheckInterval(ScenarioReader& r, const toml::table& t, ScenarioSpec& spec)
{
    if (!t.empty() && t.get("interval_us") == nullptr)
    {
        r.Fail(&t, "probes.interval_us",
               "expected interval_us in a [probes] table (the other keys say nothing without "
               "it; `interval_us = 0` to keep the table and send no probe)");
    }
    const ProbesSection& p = spec.probes;
    const toml::node* lb = t.get("large_bytes");
    const toml::node* li = t.get("large_interval_us");
    const toml::node* iv = t.get("interval_us");
    const toml::node* by = t.get("bytes");
    // Two keys that disagree: the error names the one a `--set` gave when the other is the
    // file's (the change just made), else the first named here.
    const auto fromSet = [&](const toml::node* n) { return n != nullptr && r.FromOverride(n); };
    if (p.intervalPs == 0 && (p.largeBytes > 0 || p.largeIntervalPs > 0))
    {
        const toml::node* large = fromSet(lb) ? lb : li;
        if (fromSet(large) && !fromSet(iv))
        {
            r.Fail(large, large == lb ? "probes.large_bytes" : "probes.large_interval_us",
                   "expected interval_us > 0 beside large_bytes and large_interval_us; "
                   "interval_us is 0 (with `interval_us = 0` no probe of either size is sent)");
        }
        r.Fail(iv, "probes.interval_us",
               "expected interval_us > 0 beside large_bytes and large_interval_us (with "
               "`interval_us = 0` no probe of either size is sent)");
    }
    if ((p.largeBytes > 0) != (p.largeIntervalPs > 0))
    {
        const bool bytesOnly = p.largeBytes > 0;
        r.Fail(bytesOnly ? lb : li, bytesOnly ? "probes.large_bytes" : "probes.large_interval_us",
               bytesOnly ? "expected large_interval_us beside large_bytes (how often each host "
                           "sends a large probe)"
                         : "expected large_bytes beside large_interval_us (the large probes' "
                           "bytes on the wire)");
    }
    if (p.largeBytes > 0 && p.largeBytes <= p.frameBytes)
    {
        if (fromSet(by) && !fromSet(lb))
        {
            r.Fail(by, "probes.bytes",
                   fmt::format("expected less than large_bytes ({}); got {}", p.largeBytes,
                               p.frameBytes));
        }
        r.Fail(lb, "probes.large_bytes",
               fmt::format("expected more than bytes ({}) and at most {}; got {}", p.frameBytes,
                           kMaxProbeBytes, p.largeBytes));
    }
}

} // namespace

Section
ProbesKeys()
{
    PlainSectionOptions options;
    options.check = &CheckInterval;
    Section s = PlainSection(kP, &Rows, &ScenarioSpec::probes, options);
    // Echoed only when on: a run without probes keeps its manifest.
    s.write = [](const ScenarioSpec& spec, nlohmann::json& root) {
        if (spec.probes.intervalPs > 0)
        {
            root[kP] = WriteKnobs(Rows(), spec.probes);
        }
    };
    return s;
}

} // namespace tusk
