#include "path-selector.h"

#include "ns3/boolean.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PathSelector);
NS_OBJECT_ENSURE_REGISTERED(FixedPathSelector);
NS_OBJECT_ENSURE_REGISTERED(ObliviousSprayPathSelector);
NS_OBJECT_ENSURE_REGISTERED(RandomSprayPathSelector);
NS_OBJECT_ENSURE_REGISTERED(BitmapPathSelector);
NS_OBJECT_ENSURE_REGISTERED(RepsPathSelector);

namespace
{
constexpr uint32_t kPoolStride = 40503; // odd: i -> i * stride is a permutation mod 2^14
constexpr uint32_t kDynamicPorts = 16384;

/** The inverse of kPoolStride modulo 2^14 (Newton's iteration for odd numbers). */
constexpr uint32_t
StrideInverse()
{
    uint32_t x = kPoolStride; // correct to 3 bits
    for (int i = 0; i < 4; ++i)
    {
        x = x * (2u - kPoolStride * x);
    }
    return x % kDynamicPorts;
}
static_assert((StrideInverse() * kPoolStride) % kDynamicPorts == 1, "stride inverse");

uint32_t
BaseOffset(uint16_t base)
{
    return base >= 49152 ? base - 49152u : base;
}
} // namespace

uint16_t
PathSelector::PoolEntropyOf(uint16_t base, uint32_t i)
{
    return static_cast<uint16_t>(49152u + (BaseOffset(base) + i * kPoolStride) % kDynamicPorts);
}

uint32_t
PathSelector::PoolIndexOf(uint16_t base, uint16_t entropy)
{
    const uint32_t off = (entropy >= 49152 ? entropy - 49152u : entropy % kDynamicPorts);
    const uint32_t d = (off + kDynamicPorts - BaseOffset(base) % kDynamicPorts) % kDynamicPorts;
    return (d * StrideInverse()) % kDynamicPorts;
}

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
    return PoolEntropyOf(m_base, i);
}

uint16_t
ObliviousSprayPathSelector::NextEntropy(Time)
{
    const uint16_t e = PoolEntropy(m_next);
    m_next = (m_next + 1) % m_poolSize;
    return e;
}

// ---- RandomSprayPathSelector ---------------------------------------------------------------

TypeId
RandomSprayPathSelector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RandomSprayPathSelector")
            .SetParent<PathSelector>()
            .SetGroupName("Rdma")
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
RandomSprayPathSelector::NextEntropy(Time)
{
    return PoolEntropyOf(m_base, m_rng->GetInteger(0, m_poolSize - 1));
}

// ---- BitmapPathSelector --------------------------------------------------------------------

TypeId
BitmapPathSelector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::BitmapPathSelector")
            .SetParent<PathSelector>()
            .SetGroupName("Rdma")
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
BitmapPathSelector::NextEntropy(Time)
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
BitmapPathSelector::OnFeedback(uint16_t entropy, Feedback fb, Time)
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

// ---- RepsPathSelector ----------------------------------------------------------------------

TypeId
RepsPathSelector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RepsPathSelector")
            .SetParent<PathSelector>()
            .SetGroupName("Rdma")
            .AddConstructor<RepsPathSelector>()
            .AddAttribute("BufferSize",
                          "Entries of the circular buffer of recycled EVs (count, 1..1024; the "
                          "REPS paper uses 8).",
                          UintegerValue(8),
                          MakeUintegerAccessor(&RepsPathSelector::m_bufferSize),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("ExplorePoolSize",
                          "Entropies a fresh EV is drawn from, uniformly at random, when the "
                          "buffer is empty (count, 1..16384).",
                          UintegerValue(16384),
                          MakeUintegerAccessor(&RepsPathSelector::m_explorePool),
                          MakeUintegerChecker<uint32_t>(1, 16384))
            .AddAttribute("FreezeDuration",
                          "How long exploration stays frozen after a TIMEOUT (or a NACK with "
                          "FreezeOnNack) (Time).",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&RepsPathSelector::m_freezeDuration),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("FreezeOnNack",
                          "A NACK (a trimmed or lost packet) also freezes exploration "
                          "(boolean).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RepsPathSelector::m_freezeOnNack),
                          MakeBooleanChecker());
    return tid;
}

RepsPathSelector::RepsPathSelector()
    : m_rng(CreateObject<UniformRandomVariable>())
{
}

int64_t
RepsPathSelector::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

void
RepsPathSelector::Init()
{
    if (m_ring.size() != m_bufferSize)
    {
        m_ring.assign(m_bufferSize, 0);
        m_head = 0;
        m_size = 0;
        m_pushes = 0;
        m_replay = 0;
    }
}

uint16_t
RepsPathSelector::NextEntropy(Time now)
{
    Init();
    if (m_size > 0)
    {
        const uint16_t e = m_ring[m_head];
        m_head = (m_head + 1) % m_bufferSize;
        --m_size;
        return e;
    }
    if (IsFrozen(now) && m_pushes > 0)
    {
        // Frozen: replay the last good EVs (the slots still hold them) instead of exploring.
        const uint32_t filled = static_cast<uint32_t>(std::min<uint64_t>(m_pushes, m_bufferSize));
        // Each recycled EV advances the tail by one slot, so the first `filled` slots hold
        // the last `filled` good EVs.
        const uint16_t e = m_ring[m_replay % filled];
        m_replay = (m_replay + 1) % filled;
        return e;
    }
    ++m_explorations;
    return PoolEntropyOf(m_base, m_rng->GetInteger(0, m_explorePool - 1));
}

void
RepsPathSelector::OnFeedback(uint16_t entropy, Feedback fb, Time now)
{
    Init();
    if (fb == GOOD)
    {
        const uint32_t tail = (m_head + m_size) % m_bufferSize;
        m_ring[tail] = entropy;
        if (m_size == m_bufferSize)
        {
            m_head = (m_head + 1) % m_bufferSize; // overwrote the oldest
        }
        else
        {
            ++m_size;
        }
        ++m_pushes;
        return;
    }
    if (fb == TIMEOUT || (fb == NACK && m_freezeOnNack))
    {
        m_frozenUntilPs = static_cast<uint64_t>((now + m_freezeDuration).GetPicoSeconds());
    }
}

} // namespace ns3
