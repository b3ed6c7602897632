/*
 * tusk: least-loaded adaptive routing, as switch vendors ship it (per-packet AR on local
 * egress state: e.g. NVIDIA Spectrum-X adaptive routing, Broadcom dynamic load balancing).
 */
#ifndef TUSK_LEAST_LOADED_LOAD_BALANCER_H
#define TUSK_LEAST_LOADED_LOAD_BALANCER_H

#include "fabric/model/load-balancer.h"

#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * \brief Every packet goes to the candidate with the least load, where
 * load = floor((queue bytes + UtilisationWeight x DRE utilisation) / QuantumBytes);
 * ties are broken uniformly at random (oracle 11). With PauseAware, PFC-paused candidates
 * are avoided unless every candidate is paused. Stateless apart from its random stream.
 */
class LeastLoadedLoadBalancer : public LoadBalancer
{
  public:
    static TypeId GetTypeId();
    LeastLoadedLoadBalancer();
    int64_t AssignStreams(int64_t stream) override;

    /** The load the policy compares for a candidate. */
    uint64_t Load(const EgressCandidate& c) const;

  private:
    uint32_t DoSelectEgress(const LbContext& ctx,
                            const FrameMeta& frame,
                            const EgressCandidate* candidates,
                            uint32_t count) override;

    bool m_pauseAware = true;
    double m_utilWeight = 0;
    uint64_t m_quantum = 1;
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif
