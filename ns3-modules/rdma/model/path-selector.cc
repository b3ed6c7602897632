#include "path-selector.h"

#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PathSelector);
NS_OBJECT_ENSURE_REGISTERED(FixedPathSelector);
NS_OBJECT_ENSURE_REGISTERED(ObliviousSprayPathSelector);

TypeId
PathSelector::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PathSelector").SetParent<Object>().SetGroupName("Rdma");
    return tid;
}

TypeId
FixedPathSelector::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FixedPathSelector")
                            .SetParent<PathSelector>()
                            .SetGroupName("Rdma")
                            .AddConstructor<FixedPathSelector>();
    return tid;
}

TypeId
ObliviousSprayPathSelector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ObliviousSprayPathSelector")
            .SetParent<PathSelector>()
            .SetGroupName("Rdma")
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
    const uint32_t base = m_base >= 49152 ? m_base - 49152u : m_base;
    return static_cast<uint16_t>(49152u + (base + i * 40503u) % 16384u);
}

uint16_t
ObliviousSprayPathSelector::NextEntropy(Time)
{
    const uint16_t e = PoolEntropy(m_next);
    m_next = (m_next + 1) % m_poolSize;
    return e;
}

} // namespace ns3
