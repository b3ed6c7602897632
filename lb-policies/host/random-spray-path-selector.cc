#include "random-spray-path-selector.h"

#include "fabric/model/random-draws.h"
#include "lb-policies/policy-registry.h"

#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RandomSprayPathSelector);

// [registration]
namespace
{
const PathSelectorRegistration kRegistration{
    "random-spray", "ns3::RandomSprayPathSelector",
    "a uniformly random entropy of a pool per packet; ignores feedback",
    "host-random-spray",
    "oblivious spraying at the NIC: uniformly random entropy per packet from a pool of 256, "
    "ECMP switches",
    "Ultra Ethernet 1.0 oblivious spraying"};
} // namespace
// [/registration]

TypeId
RandomSprayPathSelector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RandomSprayPathSelector")
            .SetParent<PathSelector>()
            .SetGroupName("LbPolicies")
            .AddConstructor<RandomSprayPathSelector>()
            .AddAttribute("PoolSize",
                          "Distinct entropies (EVs) a QP draws from uniformly at random (count, "
                          "1..16384; UEC-style pools are 64 to 256).",
                          UintegerValue(256),
                          MakeUintegerAccessor(&RandomSprayPathSelector::m_poolSize),
                          MakeUintegerChecker<uint32_t>(1, 16384));
    return tid;
}

RandomSprayPathSelector::RandomSprayPathSelector()
    : m_rng(CreateObject<UniformRandomVariable>())
{
}

int64_t
RandomSprayPathSelector::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

uint16_t
RandomSprayPathSelector::DoNextEntropy(Time)
{
    return PoolEntropyOf(m_base, RandomDraws::Integer(*m_rng, 0, m_poolSize - 1));
}

} // namespace ns3
