#include "ib-static-load-balancer.h"

#include "lb-policies/policy-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(IbStaticLoadBalancer);

namespace
{
constexpr uint8_t kHostTtl = 64; //!< the TTL a NIC sends (FrameMeta::ttl)

const PolicyRegistration kRegistration{
    WithoutState({"ib-static", "ns3::IbStaticLoadBalancer",
                  "InfiniBand subnet-manager routing: destination-based LFT, d-mod-k over the "
                  "up-ports",
                  {}, "", 0, "", "", "infiniband"}),
    "Zahavi et al., CCPE 2010 (d-mod-k); OpenSM fat-tree routing (ftree)"};
} // namespace

TypeId
IbStaticLoadBalancer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IbStaticLoadBalancer")
                            .SetParent<LoadBalancer>()
                            .SetGroupName("LbPolicies")
                            .AddConstructor<IbStaticLoadBalancer>();
    return tid;
}

IbStaticLoadBalancer::IbStaticLoadBalancer() = default;

uint32_t
IbStaticLoadBalancer::DModK(uint32_t dst, uint32_t hops, uint32_t count)
{
    uint64_t divisor = 1;
    for (uint32_t i = 0; i < hops && divisor <= dst; ++i)
    {
        divisor *= count;
    }
    return static_cast<uint32_t>((dst / divisor) % count);
}

uint32_t
IbStaticLoadBalancer::DoSelectEgress(const LbContext&,
                                     const FrameMeta& frame,
                                     const EgressCandidate*,
                                     uint32_t count)
{
    const uint32_t hops = frame.ttl <= kHostTtl ? kHostTtl - frame.ttl : 0;
    return DModK(frame.dstHost, hops, count);
}

bool
IbStaticLoadBalancer::DoProbeEgress(const LbContext&,
                                    const FrameMeta& frame,
                                    const EgressCandidate*,
                                    uint32_t count,
                                    uint32_t& index) const
{
    const uint32_t hops = frame.ttl <= kHostTtl ? kHostTtl - frame.ttl : 0;
    index = DModK(frame.dstHost, hops, count);
    return true;
}

} // namespace ns3
