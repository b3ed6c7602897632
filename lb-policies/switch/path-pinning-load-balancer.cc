#include "path-pinning-load-balancer.h"

#include "lb-policies/policy-registry.h"

#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PathPinningLoadBalancer);

namespace
{
const PolicyRegistration kRegistration{
    WithoutState({"pinning", "ns3::PathPinningLoadBalancer",
                  "path pinning: uplink = destination host mod uplinks (Meta's slice routing)"}),
    "Gangidi et al., RoCE at Meta scale, SIGCOMM 2024, 5.1 (path pinning)"};
} // namespace

TypeId
PathPinningLoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PathPinningLoadBalancer")
            .SetParent<LoadBalancer>()
            .SetGroupName("LbPolicies")
            .AddConstructor<PathPinningLoadBalancer>()
            .AddAttribute("Stride",
                          "Consecutive destination hosts pinned to the same uplink (hosts, >= 1).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&PathPinningLoadBalancer::m_stride),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

PathPinningLoadBalancer::PathPinningLoadBalancer() = default;

uint32_t
PathPinningLoadBalancer::DoSelectEgress(const LbContext&,
                                        const FrameMeta& frame,
                                        const EgressCandidate*,
                                        uint32_t count)
{
    return (frame.dstHost / m_stride) % count;
}

bool
PathPinningLoadBalancer::DoProbeEgress(const LbContext&,
                                       const FrameMeta& frame,
                                       const EgressCandidate*,
                                       uint32_t count,
                                       uint32_t& index) const
{
    index = (frame.dstHost / m_stride) % count;
    return true;
}

} // namespace ns3
