/*
 * tusk: per-packet random spraying at the switch (Dixit et al., "On the impact of packet
 * spraying in data center networks", INFOCOM 2013).
 */
#ifndef TUSK_RANDOM_SPRAY_LOAD_BALANCER_H
#define TUSK_RANDOM_SPRAY_LOAD_BALANCER_H

#include "fabric/model/load-balancer.h"

#include "ns3/random-variable-stream.h"

namespace ns3
{

/** \brief Every packet goes to a uniformly random equal-cost port, regardless of its flow. */
class RandomSprayLoadBalancer : public LoadBalancer
{
  public:
    static TypeId GetTypeId();
    /** Reads none of the candidates' state. */
    uint8_t GetCandidateFields() const override { return 0; }
    RandomSprayLoadBalancer();
    int64_t AssignStreams(int64_t stream) override;

  private:
    uint32_t DoSelectEgress(const LbContext& ctx,
                            const FrameMeta& frame,
                            const EgressCandidate* candidates,
                            uint32_t count) override;

    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif
