/*
 * tusk: JobWindow. See job-window.h.
 */
#include "job-window.h"

namespace ns3
{

JobWindow::JobWindow(std::vector<std::shared_ptr<const JobPlan>> plans)
    : m_plans(std::move(plans)),
      m_next(m_plans.size(), 0)
{
    for (const auto& p : m_plans)
    {
        m_end = p->BasesOf(p->Iterations());
    }
}

std::vector<JobWindow::Range>
JobWindow::ExpandFrom(int64_t trigger)
{
    std::vector<Range> out;
    for (uint32_t j = 0; j < m_plans.size(); ++j)
    {
        const JobPlan& p = *m_plans[j];
        while (m_next[j] < p.Iterations() && p.StartTrigger(m_next[j]) == trigger)
        {
            const uint32_t i = m_next[j]++;
            if (p.TransfersIn(i) == 0)
            {
                continue; // compute only: nothing to hold
            }
            Live live;
            live.range.job = j;
            live.range.iteration = i;
            live.range.first = p.BasesOf(i);
            live.range.end = p.BasesOf(i + 1);
            live.fragment = p.Expand(i);
            m_liveTransfers += p.TransfersIn(i);
            out.push_back(live.range);
            m_live.emplace(live.range.first.transfer, std::move(live));
        }
    }
    return out;
}

const JobWindow::Live*
JobWindow::Find(uint64_t x, uint64_t JobPlan::Bases::*member) const
{
    for (const auto& [first, live] : m_live)
    {
        if (live.range.first.*member <= x && x < live.range.end.*member)
        {
            return &live;
        }
    }
    return nullptr;
}

const TransferSpec*
JobWindow::Transfer(uint64_t t) const
{
    auto it = m_live.upper_bound(t);
    if (it == m_live.begin())
    {
        return nullptr;
    }
    --it;
    const Live& l = it->second;
    return t < l.range.end.transfer ? &l.fragment.transfers[t - l.range.first.transfer] : nullptr;
}

const TriggerSpec*
JobWindow::Trigger(uint64_t g) const
{
    const Live* l = Find(g, &JobPlan::Bases::trigger);
    return l ? &l->fragment.triggers[g - l->range.first.trigger] : nullptr;
}

const CollectiveSpec*
JobWindow::Collective(uint64_t c) const
{
    const Live* l = Find(c, &JobPlan::Bases::collective);
    return l ? &l->fragment.collectives[c - l->range.first.collective] : nullptr;
}

std::vector<JobWindow::Range>
JobWindow::Finish(uint64_t t)
{
    std::vector<Range> out;
    auto it = m_live.upper_bound(t);
    if (it == m_live.begin())
    {
        return out;
    }
    --it;
    if (t >= it->second.range.end.transfer)
    {
        return out;
    }
    ++it->second.finished;
    const uint32_t job = it->second.range.job;
    // Retire the job's oldest live iterations while they have finished, in order.
    for (auto x = m_live.begin(); x != m_live.end();)
    {
        if (x->second.range.job != job)
        {
            ++x;
            continue;
        }
        const Live& l = x->second;
        if (l.finished < l.range.end.transfer - l.range.first.transfer)
        {
            break;
        }
        out.push_back(l.range);
        ++x;
    }
    return out;
}

void
JobWindow::Drop(const Range& r)
{
    if (m_live.erase(r.first.transfer) > 0)
    {
        m_liveTransfers -= r.end.transfer - r.first.transfer;
    }
}

std::vector<JobWindow::Range>
JobWindow::LiveRanges() const
{
    std::vector<Range> out;
    for (const auto& [first, live] : m_live)
    {
        out.push_back(live.range);
    }
    return out;
}

} // namespace ns3
