#include "reps-path-selector.h"

#include "fabric/model/random-draws.h"
#include "lb-policies/policy-registry.h"

#include "ns3/boolean.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RepsPathSelector);

namespace
{
const PathSelectorRegistration kRegistration{
    "reps", "ns3::RepsPathSelector",
    "REPS: recycle the entropies of unmarked ACKs, explore when none, freeze after failures",
    "host-reps",
    "REPS at the NIC: recycle the entropies of unmarked ACKs, explore when none, freeze "
    "exploration after a timeout or NACK; ECMP switches",
    "Bonato et al., REPS, 2024"};
} // namespace

TypeId
RepsPathSelector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RepsPathSelector")
            .SetParent<PathSelector>()
            .SetGroupName("LbPolicies")
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
RepsPathSelector::DoNextEntropy(Time now)
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
        // Each recycled EV advances the tail by one slot, so the first `filled` slots hold
        // the last `filled` good EVs.
        const uint32_t filled = static_cast<uint32_t>(std::min<uint64_t>(m_pushes, m_bufferSize));
        const uint16_t e = m_ring[m_replay % filled];
        m_replay = (m_replay + 1) % filled;
        return e;
    }
    ++m_explorations;
    return PoolEntropyOf(m_base, RandomDraws::Integer(*m_rng, 0, m_explorePool - 1));
}

void
RepsPathSelector::DoFeedback(uint16_t entropy, Feedback fb, Time now)
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
