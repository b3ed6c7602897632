/*
 * tusk: least-loaded adaptive routing, as switch vendors ship it (AR on local egress state:
 * e.g. NVIDIA Spectrum-X adaptive routing, Broadcom dynamic load balancing), per packet or
 * per flowlet.
 */
#ifndef TUSK_LEAST_LOADED_LOAD_BALANCER_H
#define TUSK_LEAST_LOADED_LOAD_BALANCER_H

#include "flowlet-table.h"

#include "fabric/model/load-balancer.h"

#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * \brief Sends traffic to the candidate with the least load, where
 * load = floor((queue bytes + UtilisationWeight x DRE utilisation) / QuantumBytes), at every
 * switch, from local state only. With PauseAware, PFC-paused candidates are avoided unless
 * every candidate is paused.
 *
 * Two modes, as in switch ASICs' dynamic load balancing:
 * - FlowletGap = 0 (the `ar` preset): every packet decides; ties are broken uniformly at
 *   random (oracle 11). Stateless apart from its random stream.
 * - FlowletGap > 0 (the `flowlet-ar` preset, DLB's flowlet mode, htsim's flowlet-sticky AR):
 *   a packet that follows the previous packet of its flow within FlowletGap takes the same
 *   port; a packet after a longer gap starts a new flowlet and decides afresh, keeping its
 *   old port if no candidate is strictly less loaded (a flow moves only for a better port),
 *   else a uniformly random one of the least loaded. The flowlet table is bounded
 *   (TableSize entries indexed by the flow hash under Seed; flows that collide share one).
 *   If the gap exceeds the largest path-delay difference, no packet overtakes its flowlet's
 *   predecessor (oracle 18), so a go-back-N receiver sees no reordering from it.
 */
class LeastLoadedLoadBalancer : public LoadBalancer
{
  public:
    static TypeId GetTypeId();
    LeastLoadedLoadBalancer();
    int64_t AssignStreams(int64_t stream) override;

    /** The load the policy compares for a candidate. */
    uint64_t Load(const EgressCandidate& c) const;
    /** Flowlets started so far (flowlet mode; every packet counts in per-packet mode). */
    uint64_t GetFlowlets() const { return m_flowlets; }
    /** Flowlets that moved to another port than their flow's previous one. */
    uint64_t GetMoves() const { return m_moves; }

  private:
    uint32_t DoSelectEgress(const LbContext& ctx,
                            const FrameMeta& frame,
                            const EgressCandidate* candidates,
                            uint32_t count) override;
    /** The least loaded candidate; `keep` (or -1) wins ties, else uniformly at random. */
    uint32_t LeastLoaded(const EgressCandidate* candidates, uint32_t count, int keep);

    bool m_pauseAware = true;
    double m_utilWeight = 0;
    uint64_t m_quantum = 1;
    Time m_gap;
    uint32_t m_tableSize = 65536;
    uint32_t m_seed = 0;
    FlowletTable m_table;
    Ptr<UniformRandomVariable> m_rng;
    uint64_t m_flowlets = 0;
    uint64_t m_moves = 0;
};

} // namespace ns3

#endif
