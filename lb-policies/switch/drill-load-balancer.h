/*
 * tusk: DRILL(d, m), per-packet micro load balancing on local queues (Ghorbani et al.,
 * "DRILL: Micro Load Balancing for Low-latency Data Center Networks", SIGCOMM 2017).
 */
#ifndef TUSK_DRILL_LOAD_BALANCER_H
#define TUSK_DRILL_LOAD_BALANCER_H

#include "fabric/model/load-balancer.h"

#include "ns3/random-variable-stream.h"

#include <array>
#include <vector>

namespace ns3
{

/**
 * \brief For every packet, compare the egress queue bytes of d candidates sampled uniformly
 * at random (without replacement) and of the m least-loaded ports remembered from the
 * previous decision; send the packet to the least loaded, ties broken uniformly at random,
 * and remember the m least loaded of those compared. With d = 2, m = 1 (the paper's choice)
 * this is the power of two choices with memory. One memory per switch (the paper's single
 * forwarding engine); remembered ports that are not candidates of the current packet are
 * skipped. State: m port numbers (m <= 8) and a scratch array of the switch's group size.
 */
class DrillLoadBalancer : public LoadBalancer
{
  public:
    static constexpr uint32_t kMaxMemory = 8;

    static TypeId GetTypeId();
    /** Reads queue bytes only of the candidates' state. */
    uint8_t GetCandidateFields() const override { return QUEUE_BYTES; }
    DrillLoadBalancer();
    int64_t AssignStreams(int64_t stream) override;

  private:
    uint32_t DoSelectEgress(const LbContext& ctx,
                            const FrameMeta& frame,
                            const EgressCandidate* candidates,
                            uint32_t count) override;

    uint32_t m_samples = 2;
    uint32_t m_memorySize = 1;
    std::array<uint16_t, kMaxMemory> m_memory{};
    uint32_t m_remembered = 0;
    std::vector<uint32_t> m_order; //!< scratch for sampling without replacement
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif
