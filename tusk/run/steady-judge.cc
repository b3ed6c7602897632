/*
 * tusk: SteadyJudge (steady-judge.h).
 */
#include "run/steady-judge.h"

#include <algorithm>
#include <limits>

namespace tusk
{

const char*
SteadyReasonName(SteadyReason r)
{
    switch (r)
    {
    case SteadyReason::STEADY:
        return "steady";
    case SteadyReason::WARMING:
        return "warming";
    case SteadyReason::IDLE:
        return "idle";
    case SteadyReason::REPLAYED:
        return "replayed";
    case SteadyReason::FAILURE:
        return "failure";
    case SteadyReason::FLOW_START:
        return "flow_start";
    case SteadyReason::FLOW_END:
        return "flow_end";
    case SteadyReason::PFC:
        return "pfc";
    case SteadyReason::DROP:
        return "drop";
    case SteadyReason::STALLED:
        return "stalled";
    case SteadyReason::ECN_REGIME:
        return "ecn_regime";
    case SteadyReason::RATE:
        return "rate_varies";
    case SteadyReason::QUEUE:
        return "queue_varies";
    case SteadyReason::CC_STATE:
        return "cc_state_varies";
    case SteadyReason::COUNT:
        break;
    }
    return "other";
}

namespace
{

/** Transfer `id` in `flows` (sorted by id), or nullptr. */
const SteadyWindow::Flow*
FindFlow(const std::vector<SteadyWindow::Flow>& flows, uint32_t id)
{
    const auto it =
        std::lower_bound(flows.begin(), flows.end(), id,
                         [](const SteadyWindow::Flow& a, uint32_t i) { return a.id < i; });
    return it != flows.end() && it->id == id ? &*it : nullptr;
}

/** max - min <= max(tolerance * |max|, floor) over values (NaNs skipped). */
bool
Within(double lo, double hi, double tolerance, double floor)
{
    return hi - lo <= std::max(tolerance * std::max(std::fabs(hi), std::fabs(lo)), floor);
}

/** Whether every transfer active through all of `last` kept its bytes per window. */
bool
RatesAgree(const std::deque<SteadyWindow>& last, const SteadyParams& p)
{
    const SteadyWindow& newest = last.back();
    for (const auto& f : newest.flows)
    {
        uint64_t lo = f.windowBytes;
        uint64_t hi = f.windowBytes;
        bool throughout = true;
        for (size_t i = 0; i + 1 < last.size() && throughout; ++i)
        {
            const SteadyWindow::Flow* then = FindFlow(last[i].flows, f.id);
            if (then == nullptr)
            {
                throughout = false; // started within the K windows: FLOW_START says so
                break;
            }
            lo = std::min(lo, then->windowBytes);
            hi = std::max(hi, then->windowBytes);
        }
        if (throughout && !Within(static_cast<double>(lo), static_cast<double>(hi), p.tolerance,
                                  static_cast<double>(p.rateFloorBytes)))
        {
            return false;
        }
    }
    return true;
}

bool
QueuesAgree(const std::deque<SteadyWindow>& last, const SteadyParams& p)
{
    const size_t n = last.back().queues.size();
    for (size_t q = 0; q < n; ++q)
    {
        uint64_t lo = UINT64_MAX;
        uint64_t hi = 0;
        for (const auto& w : last)
        {
            const uint64_t v = q < w.queues.size() ? w.queues[q] : 0;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        if (!Within(static_cast<double>(lo), static_cast<double>(hi), p.tolerance,
                    static_cast<double>(p.queueFloorBytes)))
        {
            return false;
        }
    }
    return true;
}

bool
CcAgrees(const std::deque<SteadyWindow>& last, const SteadyParams& p)
{
    for (const auto& c : last.back().cc)
    {
        for (size_t k = 0; k < c.words.size(); ++k)
        {
            if (std::isnan(c.words[k]))
            {
                continue;
            }
            double lo = c.words[k];
            double hi = c.words[k];
            for (size_t i = 0; i + 1 < last.size(); ++i)
            {
                const auto& cc = last[i].cc;
                const auto it = std::lower_bound(
                    cc.begin(), cc.end(), c.qp,
                    [](const SteadyWindow::Cc& a, uint64_t qp) { return a.qp < qp; });
                if (it == cc.end() || it->qp != c.qp || std::isnan(it->words[k]))
                {
                    continue; // a QP idle in some window: its sends start or end there
                }
                lo = std::min(lo, it->words[k]);
                hi = std::max(hi, it->words[k]);
            }
            // Alpha is a fraction: the tolerance is its absolute bound too. A window may differ
            // by one MTU of payload, as a rate's bytes may.
            const double floor = k == 2   ? p.tolerance
                                 : k == 3 ? static_cast<double>(p.rateFloorBytes)
                                          : 0.0;
            if (!Within(lo, hi, p.tolerance, floor))
            {
                return false;
            }
        }
    }
    return true;
}

} // namespace

uint64_t
BytesOver(const std::deque<SteadyWindow>& last, uint32_t id)
{
    uint64_t bytes = 0;
    for (const auto& w : last)
    {
        const SteadyWindow::Flow* f = FindFlow(w.flows, id);
        bytes += f != nullptr ? f->windowBytes : 0;
    }
    return bytes;
}

void
SteadyLedger::Add(const SteadyLedger& o)
{
    probed += o.probed;
    steady += o.steady;
    jumps += o.jumps;
    skippablePs += o.skippablePs;
    skippableBytes += o.skippableBytes;
    steadyCcPartial += o.steadyCcPartial;
    jumpedWindows += o.jumpedWindows;
    jumpedNotSteady += o.jumpedNotSteady;
    endsPredicted += o.endsPredicted;
    endsInJumps += o.endsInJumps;
    endErrorMaxPs = std::max(endErrorMaxPs, o.endErrorMaxPs);
    endErrorSumPs += o.endErrorSumPs;
    jumpsMeasured += o.jumpsMeasured;
    bytesCredited += o.bytesCredited;
    bytesDelivered += o.bytesDelivered;
    bytesErrorSum += o.bytesErrorSum;
    bytesErrorMaxRel = std::max(bytesErrorMaxRel, o.bytesErrorMaxRel);
    jumpsOff += o.jumpsOff;
    for (const auto& [reason, n] : o.notSteady)
    {
        notSteady[reason] += n;
    }
}

SteadyJudge::SteadyJudge(const SteadyParams& params)
    : m_p(params)
{
    m_p.windows = std::max<uint32_t>(m_p.windows, 2);
    m_stats.active = true;
    m_stats.windowPs = m_p.windowPs;
    m_stats.windows = m_p.windows;
    m_stats.tolerance = m_p.tolerance;
}

SteadyReason
SteadyJudge::Judge(const std::deque<SteadyWindow>& last, const SteadyParams& p)
{
    if (last.back().flows.empty())
    {
        return SteadyReason::IDLE;
    }
    auto any = [&last](auto pred) { return std::any_of(last.begin(), last.end(), pred); };
    if (any([](const SteadyWindow& w) { return w.replayed; }))
    {
        return SteadyReason::REPLAYED;
    }
    if (last.size() < p.windows)
    {
        return SteadyReason::WARMING;
    }
    if (any([](const SteadyWindow& w) { return w.failure; }))
    {
        return SteadyReason::FAILURE;
    }
    if (any([](const SteadyWindow& w) { return w.flowStarts > 0; }))
    {
        return SteadyReason::FLOW_START;
    }
    if (any([](const SteadyWindow& w) { return w.flowEnds > 0; }))
    {
        return SteadyReason::FLOW_END;
    }
    if (any([](const SteadyWindow& w) { return w.pfcFrames > 0; }))
    {
        return SteadyReason::PFC;
    }
    if (any([](const SteadyWindow& w) { return w.drops > 0; }))
    {
        return SteadyReason::DROP;
    }
    if (any([](const SteadyWindow& w) {
            return std::none_of(w.flows.begin(), w.flows.end(),
                                [](const SteadyWindow::Flow& f) { return f.windowBytes > 0; });
        }))
    {
        return SteadyReason::STALLED;
    }
    const bool marks = last.front().ecnMarks > 0;
    if (any([marks](const SteadyWindow& w) { return (w.ecnMarks > 0) != marks; }))
    {
        return SteadyReason::ECN_REGIME;
    }
    if (!RatesAgree(last, p))
    {
        return SteadyReason::RATE;
    }
    if (!QueuesAgree(last, p))
    {
        return SteadyReason::QUEUE;
    }
    if (!CcAgrees(last, p))
    {
        return SteadyReason::CC_STATE;
    }
    return SteadyReason::STEADY;
}

uint64_t
SteadyJudge::HorizonPs(const std::deque<SteadyWindow>& last, const SteadyParams& p)
{
    const double spanPs = static_cast<double>(p.windowPs) * static_cast<double>(last.size());
    double firstPs = std::numeric_limits<double>::infinity();
    for (const auto& f : last.back().flows)
    {
        const uint64_t bytes = BytesOver(last, f.id);
        if (bytes > 0)
        {
            firstPs = std::min(firstPs, static_cast<double>(f.remainingBytes) * spanPs /
                                            static_cast<double>(bytes));
        }
    }
    const double margin = static_cast<double>(p.windowPs) * p.windows;
    if (!std::isfinite(firstPs) || firstPs <= margin)
    {
        return 0;
    }
    return static_cast<uint64_t>(firstPs - margin);
}

void
SteadyJudge::AddTailEnds(uint64_t endPs, uint32_t ends, bool allDone)
{
    if (ends > 0)
    {
        if (m_stats.jumps > 0 && endPs <= m_jumpEndPs)
        {
            m_stats.endsInJumps += ends;
        }
        NoteEnd(endPs);
    }
    if (allDone && !m_jumpFlows.empty())
    {
        MeasureJump(endPs, {});
    }
}

void
SteadyJudge::NoteEnd(uint64_t endPs)
{
    if (m_predictedEndPs == 0)
    {
        return;
    }
    // The first transfer end after a jump: how far from where the horizon put it.
    const uint64_t error =
        endPs > m_predictedEndPs ? endPs - m_predictedEndPs : m_predictedEndPs - endPs;
    ++m_stats.endsPredicted;
    m_stats.endErrorMaxPs = std::max(m_stats.endErrorMaxPs, error);
    m_stats.endErrorSumPs += error;
    m_predictedEndPs = 0;
}

void
SteadyJudge::MeasureJump(uint64_t nowPs, const std::vector<SteadyWindow::Flow>& active)
{
    const double elapsedPs = static_cast<double>(nowPs - m_jumpStartPs);
    double credited = 0;
    double delivered = 0;
    for (const auto& f : m_jumpFlows)
    {
        // Not active now: acknowledged, its whole remainder delivered.
        const SteadyWindow::Flow* now = FindFlow(active, f.id);
        const uint64_t left = now != nullptr ? now->remainingBytes : 0;
        delivered += static_cast<double>(f.remainingBytes - std::min(left, f.remainingBytes));
        // At its rate, but never past its end (packet by packet after the jump, it would end).
        credited += std::min(f.bytesPerPs * elapsedPs, static_cast<double>(f.remainingBytes));
    }
    const double error = std::abs(credited - delivered);
    const double rel = error / std::max(delivered, 1.0);
    ++m_stats.jumpsMeasured;
    m_stats.bytesCredited += credited;
    m_stats.bytesDelivered += delivered;
    m_stats.bytesErrorSum += error;
    m_stats.bytesErrorMaxRel = std::max(m_stats.bytesErrorMaxRel, rel);
    const bool off = rel > m_p.tolerance;
    m_stats.jumpsOff += off ? 1 : 0;
    if (m_p.maxJumpSpans > 0)
    {
        m_boundSpans = off ? 1 : std::min(2 * m_boundSpans, m_p.maxJumpSpans);
    }
    m_jumpFlows.clear();
}

SteadyReason
SteadyJudge::Add(SteadyWindow w, uint64_t capPs)
{
    m_last.push_back(std::move(w));
    while (m_last.size() > m_p.windows)
    {
        m_last.pop_front();
    }
    ++m_stats.probed;
    const SteadyReason r = Judge(m_last, m_p);
    const uint64_t endPs = m_last.back().endPs;
    if (m_stats.jumps > 0 && endPs <= m_jumpEndPs)
    {
        ++m_stats.jumpedWindows;
        m_stats.jumpedNotSteady += r != SteadyReason::STEADY ? 1 : 0;
        m_stats.endsInJumps += m_last.back().flowEnds;
    }
    if (m_last.back().flowEnds > 0)
    {
        NoteEnd(endPs);
    }
    if (!m_jumpFlows.empty() && endPs >= m_jumpEndPs)
    {
        MeasureJump(endPs, m_last.back().flows);
    }
    if (r != SteadyReason::STEADY)
    {
        ++m_stats.notSteady[SteadyReasonName(r)];
        return r;
    }
    ++m_stats.steady;
    m_stats.steadyCcPartial += m_last.back().ccPartial ? 1 : 0;
    const uint64_t nowPs = m_last.back().endPs;
    const uint64_t stretchStartPs = nowPs - std::min<uint64_t>(nowPs, m_p.windowPs * m_p.windows);
    if (stretchStartPs < m_jumpEndPs)
    {
        return r; // inside a jump, or the stretch after it has not yet lasted K windows
    }
    const uint64_t untilEndPs = HorizonPs(m_last, m_p);
    uint64_t horizonPs = capPs > nowPs ? std::min(untilEndPs, capPs - nowPs) : 0;
    if (m_p.maxJumpSpans > 0)
    {
        horizonPs = std::min(horizonPs, m_boundSpans * m_p.windowPs * m_p.windows);
    }
    if (horizonPs == 0)
    {
        return r;
    }
    // Every active transfer at its mean rate over the K windows, for the horizon.
    const double spanPs = static_cast<double>(m_p.windowPs) * static_cast<double>(m_last.size());
    double bytes = 0;
    for (const auto& win : m_last)
    {
        for (const auto& f : win.flows)
        {
            bytes += static_cast<double>(f.windowBytes);
        }
    }
    ++m_stats.jumps;
    m_stats.skippablePs += horizonPs;
    m_stats.skippableBytes +=
        static_cast<uint64_t>(bytes * static_cast<double>(horizonPs) / spanPs + 0.5);
    m_jumpEndPs = nowPs + horizonPs;
    m_jumpStartPs = nowPs;
    m_jumpFlows.clear();
    for (const auto& f : m_last.back().flows)
    {
        m_jumpFlows.push_back(
            {f.id, f.remainingBytes, static_cast<double>(BytesOver(m_last, f.id)) / spanPs});
    }
    // A transfer's end bounded the horizon: it is predicted K windows after the jump's end.
    m_predictedEndPs = horizonPs == untilEndPs ? m_jumpEndPs + m_p.windowPs * m_p.windows : 0;
    return r;
}

} // namespace tusk
