/*
 * tusk: RingStepMemo (ring-step-memo.h).
 */
#include "ring-step-memo.h"

#include "iteration-rules.h"

#include "iteration-memo.h"

#include "fabric/model/kernel/run-clock.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingStepMemo);

TypeId
RingStepMemo::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RingStepMemo")
            .SetParent<Object>()
            .SetGroupName("Workload")
            .AddConstructor<RingStepMemo>()
            .AddAttribute("TailSteps",
                          "The ring's last this many steps are always simulated (the last step "
                          "has no later step's traffic beside it; count).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RingStepMemo::m_tailSteps),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("SampleTransfers",
                          "Each of the pool's two windows holds at least this many transfers: "
                          "K steps, K the larger of IterationMemo::SampleIterations and "
                          "ceil(SampleTransfers / (n C)) (count; 0: K steps whatever their "
                          "size). The replayed steps cycle through one pool, so its transfers "
                          "are the whole run's FCT distribution, tail included: a pool of a "
                          "few small steps holds too few of them for a p99.",
                          UintegerValue(2048),
                          MakeUintegerAccessor(&RingStepMemo::m_sampleTransfers),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

RingStepMemo::RingStepMemo() = default;

void
RingStepMemo::Setup(Ptr<WorkloadExecutor> exec,
                    uint64_t perStep,
                    uint32_t steps,
                    uint64_t stepBytes,
                    const Sampling& sampling,
                    Checks checks)
{
    NS_ABORT_MSG_IF(!exec || perStep == 0 || steps == 0, "RingStepMemo::Setup: no ring");
    m_exec = exec;
    m_perStep = perStep;
    m_steps = steps;
    m_stepBytes = stepBytes;
    m_sampleSteps = sampling.steps;
    if (sampling.steps > 0 && m_sampleTransfers > 0)
    {
        const uint64_t bySize = (m_sampleTransfers + perStep - 1) / perStep;
        m_sampleSteps = static_cast<uint32_t>(
            std::max<uint64_t>(sampling.steps, std::min<uint64_t>(bySize, steps)));
    }
    m_tolerance = sampling.tolerance;
    m_confidence = sampling.confidence;
    m_span = std::move(checks.span);
    m_draws = std::move(checks.draws);
    m_pfc = std::move(checks.pfc);
    m_state.assign(steps, 0);
    m_doneCount.assign(steps, 0);
    m_stats.ringSteps = steps;
    m_stats.ringFirstReplayed = steps;
    m_stats.totalBytes = stepBytes * steps;
}

void
RingStepMemo::Start()
{
    m_exec->TraceConnectWithoutContext("TransferDelivered",
                                       MakeCallback(&RingStepMemo::OnCompletion, this));
    m_exec->TraceConnectWithoutContext("TransferAcknowledged",
                                       MakeCallback(&RingStepMemo::OnCompletion, this));
    m_exec->SetFireHook(MakeCallback(&RingStepMemo::OnFire, this));
    // Step 0 waits on no trigger: its transfers start at the collective's start.
    Simulate(0, "no_memo");
}

void
RingStepMemo::DoDispose()
{
    if (m_exec)
    {
        m_exec->SetFireHook(Callback<void, uint32_t>());
    }
    m_exec = nullptr;
    m_simulated.clear();
    m_frozenPool.clear();
    Object::DoDispose();
}

void
RingStepMemo::OnFire(uint32_t trigger)
{
    // Transfer (k, i, c) = t waits on trigger t - n C (k >= 1).
    const uint64_t k = trigger / m_perStep + 1;
    if (k < m_steps && m_state[k] == 0)
    {
        Decide(static_cast<uint32_t>(k));
    }
}

void
RingStepMemo::Simulate(uint32_t k, const std::string& why)
{
    m_state[k] = 1;
    ++m_stats.ringStepsSimulated;
    ++m_stats.ringFallbacks[why];
    Step& s = m_simulated[k];
    s.records = std::make_shared<Records>(m_perStep);
}

void
RingStepMemo::Decide(uint32_t k)
{
    if (!m_refusal.empty())
    {
        return Simulate(k, m_refusal);
    }
    if (!m_latched.empty())
    {
        return Simulate(k, m_latched);
    }
    if (k + m_tailSteps >= m_steps)
    {
        return Simulate(k, "ring_tail");
    }
    if (!m_sampledWhyNot.empty() || m_sampleSteps == 0)
    {
        return Simulate(k, m_sampledWhyNot.empty() ? "steady_state_not_reached" : m_sampledWhyNot);
    }
    if (!m_frozenPool.empty())
    {
        // Replay began: every later step is replayed from the same pool. A step simulated
        // now would run beside replayed ones, which put no frames on the links, in a fabric
        // lighter than packet mode's, and pooled it would carry that into later replays.
        return Replay(k, m_frozenLongestPs);
    }
    // The pool: the latest 2K simulated steps among those finished with every earlier step,
    // oldest first (a step finished after a later one waits for it: the pool is a run of the
    // ring as it settled, not what happened to finish).
    const uint32_t want = 2 * m_sampleSteps;
    std::vector<const Step*> pool;
    std::vector<uint32_t> poolSteps;
    for (auto it = m_simulated.lower_bound(m_finishedThrough); it != m_simulated.begin();)
    {
        --it;
        pool.push_back(&it->second);
        poolSteps.push_back(it->first);
        if (pool.size() == want)
        {
            break;
        }
    }
    if (pool.size() < want)
    {
        return Simulate(k, "sample_pool_filling");
    }
    std::reverse(pool.begin(), pool.end());
    std::reverse(poolSteps.begin(), poolSteps.end());
    // Each step a sample (its span, its transfers' FCTs); the draws between consecutive
    // steps' ends (steps overlap, so a draw belongs to no one step): each window counts the
    // draws from its first step's end to its last's, the two windows measured alike.
    std::vector<PoolIteration> samples(want);
    uint64_t longest = 0;
    for (uint32_t j = 0; j < want; ++j)
    {
        const Step& s = *pool[j];
        const uint64_t span = s.lastDeliveredPs - s.firstStartPs;
        longest = std::max(longest, span);
        samples[j].lengthPs = static_cast<double>(span);
        samples[j].fctSumPs = s.fctSum;
        samples[j].transfers = m_perStep;
        samples[j].draws = j % m_sampleSteps == 0
                               ? 0
                               : static_cast<double>(s.drawsAtEnd) -
                                     static_cast<double>(pool[j - 1]->drawsAtEnd);
    }
    switch (JudgePool(samples, m_sampleSteps, m_tolerance, m_confidence))
    {
    case SampledVerdict::Accept: break;
    case SampledVerdict::WindowsDiffer: return Simulate(k, "steady_state_not_reached");
    case SampledVerdict::MeanUncertain: return Simulate(k, "sampled_mean_uncertain");
    }
    for (const Step* p : pool)
    {
        if (!p->clean)
        {
            return Simulate(k, "retransmission_in_pool");
        }
    }
    // The replays cycle through this one pool, so its tail is the run's: the two windows'
    // p99 FCTs (nearest rank) must agree as their means do, and the pool must pin its p99 as
    // it pins its means (its order-statistic interval at the same confidence).
    std::vector<double> fcts[2];
    for (uint32_t w = 0; w < 2; ++w)
    {
        fcts[w].reserve(m_sampleSteps * m_perStep);
        for (uint32_t j = w * m_sampleSteps; j < (w + 1) * m_sampleSteps; ++j)
        {
            for (const TransferRecord& r : *pool[j]->records)
            {
                fcts[w].push_back(static_cast<double>(r.recvDonePs - r.startPs));
            }
        }
    }
    const double p99a = NearestRankQuantile(fcts[0], 0.99);
    const double p99b = NearestRankQuantile(fcts[1], 0.99);
    if (!CloseWithin(p99a, p99b, m_tolerance))
    {
        return Simulate(k, "sampled_tail_differs");
    }
    if (m_confidence > 0)
    {
        fcts[0].insert(fcts[0].end(), fcts[1].begin(), fcts[1].end());
        const QuantileInterval p99 = QuantileWithInterval(fcts[0], 0.99, m_confidence);
        if (std::max(p99.upper - p99.estimate, p99.estimate - p99.lower) >
            m_tolerance * p99.estimate)
        {
            return Simulate(k, "sampled_tail_uncertain");
        }
    }
    if (pool.back()->pfcAtEnd != pool.front()->pfcAtEnd)
    {
        return Simulate(k, "pfc_in_memo");
    }
    // The pool is frozen here: the steps replayed from now on cycle through it.
    for (const Step* p : pool)
    {
        m_frozenPool.push_back(p->records);
    }
    m_frozenLongestPs = longest;
    Replay(k, longest);
}

void
RingStepMemo::Replay(uint32_t k, uint64_t longestPs)
{
    const uint64_t now = RunClock::NowPs();
    if (m_span)
    {
        const std::string why = m_span(now, now + 2 * longestPs);
        if (!why.empty())
        {
            m_latched = why;
            return Simulate(k, why);
        }
    }
    // Cycle through the pool in order: each sample taken as often as the others.
    const std::shared_ptr<Records>& from = m_frozenPool[m_replayCount % m_frozenPool.size()];
    ++m_replayCount;
    m_state[k] = 2;
    m_exec->SetReplay(uint64_t(k) * m_perStep, from);
    ++m_stats.ringStepsReplayed;
    m_stats.replayedBytes += m_stepBytes;
    m_firstReplayPs = std::min(m_firstReplayPs, now);
    m_stats.ringFirstReplayed = std::min<uint64_t>(m_stats.ringFirstReplayed, k);
}

void
RingStepMemo::OnCompletion(uint32_t t)
{
    const TransferRecord& r = m_exec->GetRecord(t);
    if (!r.recvDone || !r.sendDone)
    {
        return; // counted when the other half comes
    }
    const uint32_t k = static_cast<uint32_t>(t / m_perStep);
    if (k >= m_steps)
    {
        return;
    }
    if (m_state[k] == 2)
    {
        m_lastReplayEndPs = std::max(m_lastReplayEndPs, std::max(r.recvDonePs, r.sendDonePs));
        m_stats.replayedPs = m_lastReplayEndPs - m_firstReplayPs;
    }
    else if (m_state[k] == 1)
    {
        Step& s = m_simulated[k];
        (*s.records)[t - uint64_t(k) * m_perStep] = r;
        // A frame resent, or sent and neither received nor dropped yet (a spurious resend
        // still on its way): the record is not final when copied, and a replay of it would
        // count frames in flight that no link holds.
        uint64_t dropped = 0;
        for (uint64_t d : r.pktsDropped)
        {
            dropped += d;
        }
        s.clean = s.clean && r.retxPackets == 0 && r.pktsSent == r.pktsReceived + dropped;
        s.firstStartPs = std::min(s.firstStartPs, r.startPs);
        s.lastDeliveredPs = std::max(s.lastDeliveredPs, r.recvDonePs);
        s.fctSum += static_cast<double>(r.recvDonePs - r.startPs);
        if (++s.done == m_perStep)
        {
            s.drawsAtEnd = m_draws ? m_draws() : 0;
            s.pfcAtEnd = m_pfc ? m_pfc() : 0;
        }
    }
    if (++m_doneCount[k] < m_perStep)
    {
        return;
    }
    while (m_finishedThrough < m_steps && m_doneCount[m_finishedThrough] == m_perStep)
    {
        ++m_finishedThrough;
    }
    // Keep the simulated steps not finished with every earlier one, and the pool's 2K.
    uint32_t keep = 2 * std::max<uint32_t>(m_sampleSteps, 1);
    auto it = m_simulated.lower_bound(m_finishedThrough);
    while (it != m_simulated.begin() && keep > 0)
    {
        --it;
        --keep;
    }
    if (keep == 0)
    {
        m_simulated.erase(m_simulated.begin(), it);
    }
}

} // namespace ns3
