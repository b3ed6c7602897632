/*
 * tusk: switch adaptive-routing telemetry ([output] ar_telemetry = true, ar.csv): per switch,
 * egress port and candidate-set size, how often the switch's load balancer had the port among
 * two or more equal-cost candidates and chose it, the frames and the bytes sent there, and the
 * frames by the policy's reason, as a switch with dynamic load balancing counts its member
 * choices.
 *
 * The counts come from each switch's LoadBalancer decision log (EgressDecisionLog), enabled
 * only when the option is on: a run without it keeps one pointer test per decision and its
 * results are unchanged.
 */
#ifndef TUSK_RUN_AR_TELEMETRY_H
#define TUSK_RUN_AR_TELEMETRY_H

#include "fabric/model/load-balancer.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
struct Fabric;
}

namespace tusk
{

/** One row of ar.csv. */
struct ArTelemetryRow
{
    std::string switchName;  //!< the deciding switch (vertex name: "agg0.1", "leaf3")
    uint32_t port = 0;       //!< egress port index on it
    uint32_t link = 0;       //!< links.csv link_id of the port's link
    std::string to;          //!< the vertex at the other end
    uint32_t candidates = 0; //!< usable equal-cost ports the choice was among (>= 2)
    /** fresh decisions (reason neither "flowlet" nor "hash") among `candidates` ports that
     *  had this one */
    uint64_t offered = 0;
    uint64_t decisions = 0;  //!< of those, the ones that chose it
    uint64_t packets = 0;    //!< frames sent to it (flowlet continuations included)
    uint64_t bytes = 0;      //!< their bytes on the wire
    /** `packets` by ns3::EgressReason (ns3::EgressReasonName names them). */
    std::array<uint64_t, ns3::kEgressReasons> packetsByReason{};
};

/** Start every switch's decision log (LoadBalancer::EnableDecisionLog). */
void EnableArTelemetry(const ns3::Fabric& fabric);

/** The rows, in switch order then (port, candidates); none for a switch that never
 *  chose among two or more ports, or whose log was not enabled. */
std::vector<ArTelemetryRow> CollectArTelemetry(const ns3::Fabric& fabric);

} // namespace tusk

#endif
