#include "bitmap-path-selector.h"

#include "lb-policies/policy-registry.h"

#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(BitmapPathSelector);

namespace
{
const PathSelectorRegistration kRegistration{
    "bitmap", "ns3::BitmapPathSelector",
    "round-robin over a pool, skipping entropies whose latest feedback was ECN/NACK/timeout",
    "host-bitmap",
    "bitmap spraying at the NIC: round-robin over 256 entropies, skipping those whose latest "
    "feedback was ECN/NACK/timeout; ECMP switches",
    "Ultra Ethernet 1.0 bitmap load balancing (htsim UecMpBitmap)"};
} // namespace

TypeId
BitmapPathSelector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::BitmapPathSelector")
            .SetParent<PathSelector>()
            .SetGroupName("LbPolicies")
            .AddConstructor<BitmapPathSelector>()
            .AddAttribute("PoolSize",
                          "Distinct entropies (EVs) sprayed over in round-robin order, skipping "
                          "those whose latest feedback was ECN, NACK or TIMEOUT (count, "
                          "1..16384).",
                          UintegerValue(256),
                          MakeUintegerAccessor(&BitmapPathSelector::m_poolSize),
                          MakeUintegerChecker<uint32_t>(1, 16384));
    return tid;
}

void
BitmapPathSelector::Init()
{
    if (m_marked.size() != m_poolSize)
    {
        m_marked.assign(m_poolSize, false);
        m_markedCount = 0;
    }
}

bool
BitmapPathSelector::IsMarked(uint16_t entropy) const
{
    const uint32_t i = PoolIndexOf(m_base, entropy);
    return i < m_marked.size() && m_marked[i];
}

uint16_t
BitmapPathSelector::DoNextEntropy(Time)
{
    Init();
    if (m_markedCount >= m_poolSize)
    {
        m_marked.assign(m_poolSize, false); // every path looked bad: start afresh
        m_markedCount = 0;
    }
    while (m_marked[m_next])
    {
        m_next = (m_next + 1) % m_poolSize;
    }
    const uint16_t e = PoolEntropyOf(m_base, m_next);
    m_next = (m_next + 1) % m_poolSize;
    return e;
}

void
BitmapPathSelector::DoFeedback(uint16_t entropy, Feedback fb, Time)
{
    Init();
    const uint32_t i = PoolIndexOf(m_base, entropy);
    if (i >= m_poolSize)
    {
        return; // not one of ours
    }
    const bool bad = fb != GOOD;
    if (m_marked[i] != bad)
    {
        m_marked[i] = bad;
        m_markedCount += bad ? 1 : -1;
    }
}

} // namespace ns3
