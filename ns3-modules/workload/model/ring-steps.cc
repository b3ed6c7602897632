/*
 * tusk: RingStepUnits. See ring-steps.h.
 */
#include "ring-steps.h"

#include "traffic-generators.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

void
AppendRingSteps(WorkloadSpec& w,
                const std::vector<uint32_t>& ranks,
                const std::vector<uint64_t>& piece,
                uint32_t channels,
                uint64_t startPs,
                uint32_t kFirst,
                uint32_t kEnd)
{
    const auto n = static_cast<uint32_t>(ranks.size());
    const uint32_t steps = 2 * (n - 1);
    const uint64_t perStep = uint64_t(n) * channels;
    const auto index = [n, channels](uint32_t k, uint32_t i, uint32_t c) {
        return (uint64_t(k) * n + i) * channels + c;
    };
    w.transfers.reserve(w.transfers.size() + size_t(kEnd - kFirst) * perStep);
    w.triggers.reserve(w.triggers.size() + size_t(kEnd - std::max(kFirst, 1u)) * perStep);
    for (uint32_t k = kFirst; k < kEnd; ++k)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            // chunk (i - k) mod n, computed without unsigned wrap-around
            const uint32_t chunk =
                static_cast<uint32_t>((uint64_t(i) + uint64_t(n) * 2 - k % n) % n);
            for (uint32_t c = 0; c < channels; ++c)
            {
                const uint64_t t = index(k, i, c);
                TransferSpec ts;
                ts.externalId = t;
                ts.src = ranks[i];
                ts.dst = ranks[(i + 1) % n];
                ts.bytes = piece[size_t(chunk) * channels + c];
                ts.qpGroup = c;
                ts.collective = 0;
                ts.step = static_cast<int32_t>(k);
                ts.channel = static_cast<int32_t>(c);
                if (k == 0)
                {
                    ts.startPs = startPs;
                }
                else
                {
                    // Wait for step k-1 of (rank i-1 -> i, channel c) to be delivered here:
                    // trigger t - nC, the one that transfer's recv-done activates.
                    TriggerSpec g;
                    g.kind = TriggerSpec::ONESHOT;
                    g.threshold = 1;
                    g.externalId = t - perStep;
                    w.triggers.push_back(g);
                    ts.startPs = 0;
                    ts.trigger = static_cast<int32_t>(t - perStep);
                }
                if (k + 1 < steps)
                {
                    // Activates the trigger of step k+1 of (rank i+1, channel c).
                    ts.onRecvDone.push_back(
                        static_cast<uint32_t>(index(k + 1, (i + 1) % n, c) - perStep));
                }
                w.transfers.push_back(std::move(ts));
            }
        }
    }
}

RingStepUnits::RingStepUnits(std::vector<uint32_t> ranks,
                             uint64_t bytesPerRank,
                             uint32_t channels,
                             uint64_t startPs,
                             uint8_t priority,
                             uint32_t windowSteps)
    : m_ranks(std::move(ranks)),
      m_bytesPerRank(bytesPerRank),
      m_n(static_cast<uint32_t>(m_ranks.size())),
      m_channels(channels),
      m_startPs(startPs),
      m_priority(priority),
      m_window(windowSteps)
{
    CheckRingRanks(m_ranks, bytesPerRank, channels);
    NS_ABORT_MSG_IF(m_n < 2 || windowSteps == 0, "RingStepUnits: n >= 2 and W >= 1 needed");
    m_steps = 2 * (m_n - 1);
    m_piece.resize(size_t(m_n) * channels);
    for (uint32_t j = 0; j < m_n; ++j)
    {
        for (uint32_t c = 0; c < channels; ++c)
        {
            m_piece[size_t(j) * channels + c] = RingPieceBytes(bytesPerRank, m_n, channels, j, c);
        }
    }
}

uint32_t
RingStepUnits::Count() const
{
    return (m_steps + m_window - 1) / m_window;
}

JobPlan::Bases
RingStepUnits::BasesOf(uint32_t u) const
{
    const uint32_t k = std::min<uint64_t>(uint64_t(u) * m_window, m_steps);
    JobPlan::Bases b;
    b.transfer = uint64_t(k) * TransfersPerStep();
    b.trigger = k == 0 ? 0 : uint64_t(k - 1) * TransfersPerStep(); // step 0 waits on none
    b.collective = 0; // the collective is the rest spec's
    return b;
}

bool
RingStepUnits::StartsOn(uint32_t u, int64_t trigger) const
{
    if (u <= 1)
    {
        return trigger < 0;
    }
    const JobPlan::Bases a = BasesOf(u - 1);
    const JobPlan::Bases b = BasesOf(u);
    return trigger >= 0 && static_cast<uint64_t>(trigger) >= a.trigger &&
           static_cast<uint64_t>(trigger) < b.trigger;
}

WorkloadSpec
RingStepUnits::Expand(uint32_t u) const
{
    WorkloadSpec f;
    const auto kFirst = static_cast<uint32_t>(std::min<uint64_t>(uint64_t(u) * m_window, m_steps));
    const auto kEnd = static_cast<uint32_t>(std::min<uint64_t>(uint64_t(u + 1) * m_window, m_steps));
    AppendRingSteps(f, m_ranks, m_piece, m_channels, m_startPs, kFirst, kEnd);
    for (auto& t : f.transfers)
    {
        t.priority = m_priority;
    }
    return f;
}

WorkloadSpec
RingStepUnits::Rest() const
{
    return RingAllReduceRest(m_ranks, m_bytesPerRank, m_channels);
}

WorkloadSpec
RingStepUnits::Sample() const
{
    WorkloadSpec w = Rest();
    AppendRingSteps(w, m_ranks, m_piece, m_channels, m_startPs, 0, 1);
    for (auto& t : w.transfers)
    {
        t.priority = m_priority;
        t.onRecvDone.clear();
    }
    return w;
}

} // namespace ns3
