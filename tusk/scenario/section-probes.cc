/*
 * tusk: [probes], active monitoring probes between NICs (tusk/run/probe-mesh.h).
 */
#include "scenario/scenario-sections.h"

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

/** A [probes] table without interval_us sends nothing: say so rather than run silently. */
void
CheckInterval(ScenarioReader& r, const toml::table& t, ScenarioSpec&)
{
    if (!t.empty() && t.get("interval_us") == nullptr)
    {
        r.Fail(&t, "probes.interval_us",
               "expected interval_us in a [probes] table (the other keys say nothing without "
               "it; `interval_us = 0` to keep the table and send no probe)");
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
