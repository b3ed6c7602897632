#include "policy-registry.h"

#include "ns3/type-id.h"

namespace ns3
{

const std::vector<PolicyInfo>&
SwitchPolicies()
{
    static const std::vector<PolicyInfo> policies = {
        {"ecmp", "ns3::EcmpLoadBalancer", "flow-hash ECMP over the 5-tuple, per-switch seed"},
        {"spray", "ns3::RandomSprayLoadBalancer", "per-packet random spraying at every switch"},
    };
    return policies;
}

std::string
ResolveSwitchPolicy(const std::string& nameOrTypeId)
{
    for (const auto& p : SwitchPolicies())
    {
        if (p.name == nameOrTypeId || p.typeId == nameOrTypeId)
        {
            return p.typeId;
        }
    }
    TypeId tid;
    if (TypeId::LookupByNameFailSafe(nameOrTypeId, &tid) &&
        tid.IsChildOf(TypeId::LookupByName("ns3::LoadBalancer")))
    {
        return nameOrTypeId;
    }
    return "";
}

} // namespace ns3
