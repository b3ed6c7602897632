/*
 * tusk: [scale_up], the NVLink-like domain inside servers (ns3::ScaleUpDomain).
 */
#include "scenario/scenario-sections.h"
#include "scenario/topology-kinds.h"

namespace tusk
{

namespace
{

using namespace knob;
using S = ScaleUpSection;
const char* const kP = "scale_up";

const std::vector<Knob<S>>&
Rows()
{
    static const std::vector<Knob<S>> rows = {
        Count<S>("gpus_per_server", &S::gpusPerServer, 1,
                 "GPUs per server; must divide the host count, and equal "
                 "`topology.gpus_per_server` on a rail-optimised fabric.")
            .Note("(none)")
            .Attr({"ns3::ScaleUpDomain::GpusPerServer"}),
        Rate<S>("link_gbps", &S::rateBps, kBpsPerGbps, Sign::POSITIVE, bounds::kLinkRate,
                "Per GPU port and direction (H100 NVLink: 900 GB/s both ways = 3.6 Tb/s each "
                "way).")
            .Attr({"ns3::ScaleUpDomain::Rate"}),
        Time<S>("latency_ns", &S::latencyPs, kPsPerNs, "ns", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kLinkDelay,
                "GPU-to-GPU latency.")
            .Attr({"ns3::ScaleUpDomain::Latency"}),
    };
    return rows;
}

/** gpus_per_server divides the hosts, and is the one the topology kind fixes (rail-optimised). */
void
CheckServers(ScenarioReader& r, const toml::table& t, ScenarioSpec& spec)
{
    const auto& su = spec.scaleUp;
    const toml::node* gn = t.get("gpus_per_server");
    const std::string key = "scale_up.gpus_per_server";
    const TopologyKindInfo* kind = FindTopologyKind(spec.topology.kind);
    const uint32_t fixed = kind && kind->gpusPerServer ? kind->gpusPerServer(spec.topology) : 0;
    if (gn != nullptr && fixed > 0 && su.gpusPerServer > 1 && su.gpusPerServer != fixed)
    {
        r.Fail(gn, key,
               "expected the " + spec.topology.kind + " topology's gpus_per_server (" +
                   std::to_string(fixed) + ") or 1; got " + std::to_string(su.gpusPerServer));
    }
    if (gn != nullptr && r.HostCount() > 0 && r.HostCount() % su.gpusPerServer != 0)
    {
        r.Fail(gn, key,
               "expected a divisor of the topology's " + std::to_string(r.HostCount()) +
                   " hosts (servers are hosts h / gpus_per_server); got " +
                   std::to_string(su.gpusPerServer));
    }
}

} // namespace

Section
ScaleUpKeys()
{
    PlainSectionOptions options;
    options.check = &CheckServers;
    return PlainSection(kP, &Rows, &ScenarioSpec::scaleUp, options);
}

} // namespace tusk
