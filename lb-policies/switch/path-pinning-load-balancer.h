/*
 * tusk: path pinning, static destination-based uplink choice (the "path pinning" / slice
 * routing baseline of Gangidi et al., "RDMA over Ethernet for Distributed AI Training at Meta
 * Scale", SIGCOMM 2024, section 5.1).
 */
#ifndef TUSK_PATH_PINNING_LOAD_BALANCER_H
#define TUSK_PATH_PINNING_LOAD_BALANCER_H

#include "fabric/model/load-balancer.h"

namespace ns3
{

/**
 * \brief Every frame to destination host h leaves on candidate (h / Stride) mod count: all
 * traffic to one host takes one path, whoever sends it. With hosts numbered rack by rack
 * and as many hosts per rack as uplinks (Stride 1), each host of a destination rack owns one
 * uplink, the "slice" Meta pinned it to; that balances a fully allocated rack and collides
 * as soon as a job holds only part of a rack, or a link fails (the remaining candidates are
 * renumbered, so pinned destinations pile onto the same uplinks). Stateless.
 */
class PathPinningLoadBalancer : public LoadBalancer
{
  public:
    static TypeId GetTypeId();
    /** Reads none of the candidates' state. */
    uint8_t GetCandidateFields() const override { return 0; }
    PathPinningLoadBalancer();

  private:
    uint32_t DoSelectEgress(const LbContext& ctx,
                            const FrameMeta& frame,
                            const EgressCandidate* candidates,
                            uint32_t count) override;
    /** A pure function of the headers: a probe takes the frame's egress. */
    bool DoProbeEgress(const LbContext& ctx,
                       const FrameMeta& frame,
                       const EgressCandidate* candidates,
                       uint32_t count,
                       uint32_t& index) const override;

    uint32_t m_stride = 1;
};

} // namespace ns3

#endif
