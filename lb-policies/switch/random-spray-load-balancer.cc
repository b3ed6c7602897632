#include "random-spray-load-balancer.h"

#include "fabric/model/random-draws.h"
#include "lb-policies/policy-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RandomSprayLoadBalancer);

namespace
{
const PolicyRegistration kRegistration{
    {"spray", "ns3::RandomSprayLoadBalancer", "per-packet random spraying at every switch"},
    "Dixit et al., On the Impact of Packet Spraying, INFOCOM 2013"};
} // namespace

TypeId
RandomSprayLoadBalancer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RandomSprayLoadBalancer")
                            .SetParent<LoadBalancer>()
                            .SetGroupName("LbPolicies")
                            .AddConstructor<RandomSprayLoadBalancer>();
    return tid;
}

RandomSprayLoadBalancer::RandomSprayLoadBalancer()
    : m_rng(CreateObject<UniformRandomVariable>())
{
}

int64_t
RandomSprayLoadBalancer::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

uint32_t
RandomSprayLoadBalancer::DoSelectEgress(const LbContext&,
                                        const FrameMeta&,
                                        const EgressCandidate*,
                                        uint32_t count)
{
    SetReason(EgressReason::RANDOM);
    return RandomDraws::Integer(*m_rng, 0, count - 1);
}

} // namespace ns3
