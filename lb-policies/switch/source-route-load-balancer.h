/*
 * tusk: SourceRouteLoadBalancer, forwarding by the route the sending host carried in the frame.
 */
#ifndef TUSK_SOURCE_ROUTE_LOAD_BALANCER_H
#define TUSK_SOURCE_ROUTE_LOAD_BALANCER_H

#include "fabric/model/load-balancer.h"

#include <vector>

namespace ns3
{

/**
 * \brief Static source routing: no hash, no switch state. The frame's route number (the low 14
 * bits of its UDP source port, fabric/helper/source-routes.h) names one candidate at every
 * switch: at hop h = 64 - ttl the switch takes candidate
 * (route / Planes / (radix_0 ... radix_{h-1})) mod count. The MRC design carries the path as
 * an SRv6 micro-SID list in the IPv6 destination address, which each switch shifts and looks
 * up in a static table (OCP Multipath Reliable Connection, companion API mrc_ctl.h: EV
 * profiles in SRv6 modes); tusk's frames are IPv4, so the route travels in the entropy field,
 * and the switch's work is the same: read its hop's digit, forward, no hashing.
 *
 * A switch forwards among the equal-cost ports whose link is up (as for every policy), so a
 * carried hop whose own port is down is taken modulo the live ports (local repair at the
 * switch that sees the failure); a failure further on (a spine's link down to the
 * destination leaf) drops the frame: only the sender can route around it. The runner sets
 * Planes and HopRadices from the topology (policy preset `source-route`, `mrc`).
 */
class SourceRouteLoadBalancer : public LoadBalancer
{
  public:
    static TypeId GetTypeId();
    SourceRouteLoadBalancer();
    /** Reads none of the candidates' state. */
    uint8_t GetCandidateFields() const override { return 0; }

    /** The candidate index of `frame` among `count` (exposed for tests). */
    uint32_t Choice(const FrameMeta& frame, uint32_t count) const;

  private:
    uint32_t DoSelectEgress(const LbContext& ctx, const FrameMeta& frame,
                            const EgressCandidate* candidates, uint32_t count) override;
    /** A pure function of the headers: a probe takes the frame's egress. */
    bool DoProbeEgress(const LbContext& ctx,
                       const FrameMeta& frame,
                       const EgressCandidate* candidates,
                       uint32_t count,
                       uint32_t& index) const override;
    void SetRadices(const std::string& text);
    std::string GetRadices() const;

    uint32_t m_planes = 1;
    std::vector<uint32_t> m_radices;
    std::vector<uint32_t> m_divisors{1};
};

} // namespace ns3

#endif
