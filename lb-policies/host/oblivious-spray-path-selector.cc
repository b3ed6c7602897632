#include "oblivious-spray-path-selector.h"

#include "lb-policies/policy-registry.h"

#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ObliviousSprayPathSelector);

namespace
{
const PathSelectorRegistration kRegistration{
    "oblivious-spray", "ns3::ObliviousSprayPathSelector",
    "round-robin over a pool of distinct entropies, a new one per packet; ignores feedback",
    "host-spray", "oblivious spraying at the NIC: new entropy per packet, ECMP switches",
    "Ultra Ethernet 1.0 oblivious spraying (htsim UecMpOblivious)"};
} // namespace

TypeId
ObliviousSprayPathSelector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ObliviousSprayPathSelector")
            .SetParent<PathSelector>()
            .SetGroupName("LbPolicies")
            .AddConstructor<ObliviousSprayPathSelector>()
            .AddAttribute("PoolSize",
                          "Distinct entropies (UDP source ports) a QP sprays over (count, "
                          "1..16384; 16384 = the whole dynamic port range).",
                          UintegerValue(16384),
                          MakeUintegerAccessor(&ObliviousSprayPathSelector::m_poolSize),
                          MakeUintegerChecker<uint32_t>(1, 16384));
    return tid;
}

uint16_t
ObliviousSprayPathSelector::PoolEntropy(uint32_t i) const
{
    return PoolEntropyOf(m_base, i);
}

uint16_t
ObliviousSprayPathSelector::DoNextEntropy(Time)
{
    const uint16_t e = PoolEntropy(m_next);
    m_next = (m_next + 1) % m_poolSize;
    return e;
}

} // namespace ns3
