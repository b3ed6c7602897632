/*
 * tusk: InfiniBand subnet-manager routing, d-mod-k destination-based forwarding as OpenSM's
 * fat-tree routing computes it.
 */
#ifndef TUSK_IB_STATIC_LOAD_BALANCER_H
#define TUSK_IB_STATIC_LOAD_BALANCER_H

#include "fabric/model/load-balancer.h"

namespace ns3
{

/**
 * \brief The linear forwarding table (LFT) an InfiniBand subnet manager installs for a fat
 * tree: destination d leaves a switch of tier t (1 = leaf) going up on its up-port
 * floor(d / k^(t-1)) mod k, k the switch's number of up-ports towards d ("d-mod-k": Zahavi et
 * al., "Optimized InfiniBand fat-tree routing for shift all-to-all communication patterns",
 * CCPE 2010; OpenSM's ftree/updn routing spreads destinations over up-ports in this order).
 * Deterministic and destination-only: no per-flow hash, every source's traffic to d takes one
 * path. On a leaf-spine with as many hosts per leaf as spines, a shift permutation uses every
 * uplink once; traffic from many sources to destinations that share d mod k collides.
 *
 * The LFT is a function of (tier, d), so it is evaluated per frame instead of stored: the tier
 * on the way up is the switches the frame has crossed + 1, read from its IPv4 TTL (every
 * switch decrements it; hosts send 64). On the way down there is one candidate (or parallel
 * links, spread the same way). Candidates whose link is down are left out before the choice,
 * as a subnet manager's sweep reroutes around them. Valid only on an InfiniBand fabric
 * (fabric.kind = "infiniband"); Ethernet's counterpart is `pinning`.
 */
class IbStaticLoadBalancer : public LoadBalancer
{
  public:
    static TypeId GetTypeId();
    /** Reads none of the candidates' state. */
    uint8_t GetCandidateFields() const override { return 0; }
    IbStaticLoadBalancer();

    /** The LFT entry: the candidate index of destination `dst` at a switch that the frame
     *  reaches after `hops` switches, among `count` candidates (pure; for tests). */
    static uint32_t DModK(uint32_t dst, uint32_t hops, uint32_t count);

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
};

} // namespace ns3

#endif
