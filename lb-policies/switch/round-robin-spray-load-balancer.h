/*
 * tusk: per-packet round-robin spraying at the switch (the deterministic variant of packet
 * spraying; Dixit et al., "On the impact of packet spraying in data center networks",
 * INFOCOM 2013, and Cao et al., "Per-packet load-balanced, low-latency routing for Clos-based
 * data center networks" (DRB), CoNEXT 2013).
 */
#ifndef TUSK_ROUND_ROBIN_SPRAY_LOAD_BALANCER_H
#define TUSK_ROUND_ROBIN_SPRAY_LOAD_BALANCER_H

#include "fabric/model/load-balancer.h"

namespace ns3
{

/**
 * \brief Consecutive packets (of any flow) leave on consecutive candidates: one counter per
 * switch, index = counter mod count. Every candidate gets the same number of packets to
 * within one, whatever the flows.
 */
class RoundRobinSprayLoadBalancer : public LoadBalancer
{
  public:
    static TypeId GetTypeId();
    /** Reads none of the candidates' state. */
    uint8_t GetCandidateFields() const override { return 0; }
    RoundRobinSprayLoadBalancer();

  private:
    uint32_t DoSelectEgress(const LbContext& ctx,
                            const FrameMeta& frame,
                            const EgressCandidate* candidates,
                            uint32_t count) override;

    uint64_t m_next = 0;
};

} // namespace ns3

#endif
