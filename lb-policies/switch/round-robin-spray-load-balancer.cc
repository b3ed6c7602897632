#include "round-robin-spray-load-balancer.h"

#include "lb-policies/policy-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoundRobinSprayLoadBalancer);

namespace
{
const PolicyRegistration kRegistration{
    {"rr-spray", "ns3::RoundRobinSprayLoadBalancer",
     "per-packet round-robin spraying at every switch"},
    "Cao et al., Per-packet Load-balanced Routing for Clos DCNs, CoNEXT 2013"};
} // namespace

TypeId
RoundRobinSprayLoadBalancer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoundRobinSprayLoadBalancer")
                            .SetParent<LoadBalancer>()
                            .SetGroupName("LbPolicies")
                            .AddConstructor<RoundRobinSprayLoadBalancer>();
    return tid;
}

RoundRobinSprayLoadBalancer::RoundRobinSprayLoadBalancer() = default;

uint32_t
RoundRobinSprayLoadBalancer::DoSelectEgress(const LbContext&,
                                            const FrameMeta&,
                                            const EgressCandidate*,
                                            uint32_t count)
{
    return static_cast<uint32_t>(m_next++ % count);
}

} // namespace ns3
