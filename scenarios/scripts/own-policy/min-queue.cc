// A switch policy of one's own, outside tusk's tree (docs/scripting.md): join the shortest
// queue. Every packet takes the equal-cost egress with the fewest bytes queued, skipping ports
// that are paused or down; ties go to the first such port after the one chosen last. The
// policy registers its short name "min-queue" from this file, exactly as the built-in ones
// do: linked into own-policy (own-policy.cc), or built into the plugin libmin-queue.so that
// `tusk --plugin` loads (docs/extending.md), it runs by that name next to them.

// [policy]
#include "fabric/model/load-balancer.h"
#include "lb-policies/policy-registry.h"

namespace ns3
{

/** \brief Join the shortest queue among the equal-cost egress ports (per packet). */
class MinQueueLoadBalancer : public LoadBalancer
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::MinQueueLoadBalancer")
                                .SetParent<LoadBalancer>()
                                .SetGroupName("OwnPolicies")
                                .AddConstructor<MinQueueLoadBalancer>();
        return tid;
    }

  private:
    uint32_t DoSelectEgress(const LbContext&,
                            const FrameMeta&,
                            const EgressCandidate* candidates,
                            uint32_t count) override
    {
        uint32_t best = count; // none usable yet
        for (uint32_t k = 1; k <= count; ++k)
        {
            const uint32_t i = (m_last + k) % count; // ties: round robin from the last choice
            const EgressCandidate& c = candidates[i];
            if (c.linkUp && !c.paused &&
                (best == count || c.queueBytes < candidates[best].queueBytes))
            {
                best = i;
            }
        }
        m_last = best == count ? (m_last + 1) % count : best;
        return m_last;
    }

    uint32_t m_last = 0;
};

NS_OBJECT_ENSURE_REGISTERED(MinQueueLoadBalancer);

namespace
{
const PolicyRegistration kRegistration{
    {"min-queue", "ns3::MinQueueLoadBalancer", "join the shortest queue, per packet (own policy)"},
    "Winston, Optimality of the shortest line discipline, J. Appl. Prob. 1977"};
} // namespace

} // namespace ns3
// [/policy]
