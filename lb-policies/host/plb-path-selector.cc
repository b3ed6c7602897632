#include "plb-path-selector.h"

#include "fabric/model/random-draws.h"
#include "lb-policies/policy-registry.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PlbPathSelector);

namespace
{
const PathSelectorRegistration kRegistration{
    "plb", "ns3::PlbPathSelector",
    "PLB: one entropy until 12 consecutive rounds with >= 50 % ECN-marked packets, then a "
    "random new one; paused after a timeout",
    "host-plb",
    "PLB at the NIC: a new random entropy after 12 consecutive rounds with >= 50 % ECN-marked "
    "packets, paused after a timeout; ECMP switches",
    "Qureshi et al., PLB, SIGCOMM 2022"};
} // namespace

TypeId
PlbPathSelector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PlbPathSelector")
            .SetParent<PathSelector>()
            .SetGroupName("LbPolicies")
            .AddConstructor<PlbPathSelector>()
            .AddAttribute("RoundTime",
                          "Length of a round (Time): a round ends with the first feedback at "
                          "least this long after it began; about one RTT.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&PlbPathSelector::m_roundTime),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("CongestedFraction",
                          "A round is congested when at least this fraction of the packets "
                          "reported in it came back ECN-marked (dimensionless, 0..1; PLB's "
                          "cong_thresh, Linux default 128/256).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&PlbPathSelector::m_congestedFraction),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("CongestedRounds",
                          "Consecutive congested rounds after which the QP repaths (rounds; "
                          "Linux tcp_plb_rehash_rounds, default 12).",
                          UintegerValue(12),
                          MakeUintegerAccessor(&PlbPathSelector::m_rehashRounds),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("IdleCongestedRounds",
                          "Consecutive congested rounds after which the QP repaths when it "
                          "sends after an idle gap of at least RoundTime (rounds; Linux "
                          "tcp_plb_idle_rehash_rounds, default 3).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&PlbPathSelector::m_idleRehashRounds),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RtoSuspend",
                          "After a TIMEOUT, congestion-triggered repaths pause for a uniformly "
                          "random time between this and twice this (Time; Linux "
                          "tcp_plb_suspend_rto_sec, default 60 s).",
                          TimeValue(Seconds(60)),
                          MakeTimeAccessor(&PlbPathSelector::m_rtoSuspend),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RepathOnTimeout",
                          "A TIMEOUT draws a new entropy at once (boolean; Linux repaths on "
                          "RTO).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&PlbPathSelector::m_repathOnTimeout),
                          MakeBooleanChecker())
            .AddAttribute("PoolSize",
                          "Entropies a new path is drawn from, uniformly at random (count, "
                          "2..16384; the QP's pool, PathSelector::PoolEntropyOf).",
                          UintegerValue(16384),
                          MakeUintegerAccessor(&PlbPathSelector::m_poolSize),
                          MakeUintegerChecker<uint32_t>(2, 16384));
    return tid;
}

PlbPathSelector::PlbPathSelector()
    : m_rng(CreateObject<UniformRandomVariable>())
{
}

int64_t
PlbPathSelector::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

bool
PlbPathSelector::IsSuspended(Time now) const
{
    return static_cast<uint64_t>(now.GetPicoSeconds()) < m_suspendedUntilPs;
}

void
PlbPathSelector::Repath()
{
    // A uniformly random pool entropy other than the current one.
    const uint32_t current = PoolIndexOf(m_base, m_current);
    uint32_t i = RandomDraws::Integer(*m_rng, 0, m_poolSize - 2);
    if (current < m_poolSize && i >= current)
    {
        ++i;
    }
    m_current = PoolEntropyOf(m_base, i);
    m_congestedRounds = 0;
    m_inRound = false; // the next round measures the new path
}

uint16_t
PlbPathSelector::DoNextEntropy(Time now)
{
    const auto nowPs = static_cast<uint64_t>(now.GetPicoSeconds());
    if (!m_started)
    {
        m_started = true;
        m_current = m_base; // the QP's own entropy first, as a plain RoCE QP
    }
    else if (m_sent && nowPs - m_lastSendPs >= static_cast<uint64_t>(m_roundTime.GetPicoSeconds()) &&
             m_congestedRounds >= m_idleRehashRounds && !IsSuspended(now))
    {
        Repath(); // between bursts: nothing in flight on the old path to reorder
        ++m_congestionRepaths;
    }
    m_sent = true;
    m_lastSendPs = nowPs;
    return m_current;
}

void
PlbPathSelector::EndRound(uint64_t nowPs)
{
    m_inRound = false;
    const uint32_t reported = m_roundGood + m_roundEcn;
    if (reported == 0)
    {
        return;
    }
    if (static_cast<double>(m_roundEcn) >= m_congestedFraction * static_cast<double>(reported))
    {
        ++m_congestedRounds;
    }
    else
    {
        m_congestedRounds = 0;
    }
    if (m_congestedRounds >= m_rehashRounds && nowPs >= m_suspendedUntilPs)
    {
        Repath();
        ++m_congestionRepaths;
    }
}

void
PlbPathSelector::DoFeedback(uint16_t entropy, Feedback fb, Time now)
{
    const auto nowPs = static_cast<uint64_t>(now.GetPicoSeconds());
    if (fb == TIMEOUT)
    {
        const double suspend = m_rtoSuspend.GetSeconds() * (1.0 + RandomDraws::Value(*m_rng));
        m_suspendedUntilPs = nowPs + static_cast<uint64_t>(Seconds(suspend).GetPicoSeconds());
        if (m_repathOnTimeout && m_started)
        {
            Repath();
            ++m_timeoutRepaths;
        }
        return;
    }
    if (fb != GOOD && fb != ECN)
    {
        return;
    }
    if (!m_inRound)
    {
        m_inRound = true;
        m_roundStartPs = nowPs;
        m_roundGood = 0;
        m_roundEcn = 0;
    }
    (fb == ECN ? m_roundEcn : m_roundGood) += 1;
    if (nowPs - m_roundStartPs >= static_cast<uint64_t>(m_roundTime.GetPicoSeconds()))
    {
        EndRound(nowPs);
    }
}

} // namespace ns3
