// A switch policy of one's own, outside tusk's tree (docs/scripting.md): join the shortest
// queue. Every packet takes the equal-cost egress with the fewest bytes queued, skipping ports
// that are paused or down; ties go to the first such port after the one chosen last. The
// policy registers its short name "min-queue" from this file, exactly as the built-in ones
// do, and runs by that name next to them.
//
// Usage: own-policy [SCENARIO.toml]   (default: a permutation on a 2x4 leaf-spine)
// Exit 0 if min-queue ran as ns3::MinQueueLoadBalancer and every flow ended within 1.2 x its
// ideal FCT (four flows per leaf over four spines: no collisions; ECMP's hash collides), else 1.

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

// [run]
#include <tusk/scripting.h>

#include <cstdio>

int
main(int argc, char** argv)
{
    try
    {
        tusk::Scenario s = argc > 1 ? tusk::Scenario::Load(argv[1]) : tusk::Scenario::FromString(R"(
name = "own-policy"
[topology]
kind = "leaf-spine"
leaves = 2
spines = 4
hosts_per_leaf = 4
host_link_gbps = 100
fabric_link_gbps = 100
[nic]
receiver = "selective-repeat"   # per-packet choices reorder: IRN-style receivers
[workload]
kind = "permutation"
bytes = "1MB"
)");
        std::printf("%-10s %-28s %12s %10s\n", "policy", "switch TypeId", "max_fct_us", "max_slow");
        tusk::RunResult r;
        for (const char* policy : {"ecmp", "min-queue"})
        {
            r = s.Set("lb.policy", policy).Run();
            std::printf("%-10s %-28s %12.1f %10.2f\n", policy, r.policyTypeId.c_str(),
                        r.summary.maxFctUs, r.summary.maxSlowdown);
            if (!r.failure.empty())
            {
                std::fprintf(stderr, "own-policy: run failed: %s\n", r.failure.c_str());
                return 1;
            }
        }
        return r.policyTypeId == "ns3::MinQueueLoadBalancer" && r.summary.maxSlowdown < 1.2 ? 0 : 1;
    }
    catch (const ns3::InputError& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}
// [/run]
