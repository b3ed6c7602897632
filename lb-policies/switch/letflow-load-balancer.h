/*
 * tusk: LetFlow, flowlet switching with a random port per flowlet (Vanini et al., "Let It
 * Flow: Resilient Asymmetric Load Balancing with Flowlet Switching", NSDI 2017).
 */
#ifndef TUSK_LETFLOW_LOAD_BALANCER_H
#define TUSK_LETFLOW_LOAD_BALANCER_H

#include "flowlet-table.h"

#include "fabric/model/load-balancer.h"

#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * \brief A packet whose flow has been idle for more than FlowletGap starts a new flowlet,
 * sent to a uniformly random candidate; the other packets follow their flowlet's port. If
 * the flowlet gap exceeds the largest difference in path delay, no packet can overtake the
 * previous flowlet (oracle 18). Flowlets adapt to asymmetry by themselves: flowlets on a
 * congested path slow down, produce gaps and move. The table is bounded (TableSize) and aged
 * (FlowletTable).
 */
class LetFlowLoadBalancer : public LoadBalancer
{
  public:
    static TypeId GetTypeId();
    /** Reads none of the candidates' state. */
    uint8_t GetCandidateFields() const override { return 0; }
    LetFlowLoadBalancer();
    int64_t AssignStreams(int64_t stream) override;

    /** New flowlets started so far. */
    uint64_t GetFlowlets() const { return m_flowlets; }
    const FlowletTable& GetTable() const { return m_table; }

  private:
    uint32_t DoSelectEgress(const LbContext& ctx,
                            const FrameMeta& frame,
                            const EgressCandidate* candidates,
                            uint32_t count) override;

    Time m_gap;
    uint32_t m_tableSize = 65536;
    uint32_t m_seed = 0;
    FlowletTable m_table;
    Ptr<UniformRandomVariable> m_rng;
    uint64_t m_flowlets = 0;
};

} // namespace ns3

#endif
