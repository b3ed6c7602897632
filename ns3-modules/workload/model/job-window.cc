/*
 * tusk: JobWindow. See job-window.h.
 */
#include "job-window.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

namespace
{

/** A job's iterations as units. */
class PlanUnits : public JobWindow::Units
{
  public:
    explicit PlanUnits(std::shared_ptr<const JobPlan> plan)
        : m_plan(std::move(plan))
    {
    }

    uint32_t Count() const override { return m_plan->Iterations(); }
    JobPlan::Bases BasesOf(uint32_t u) const override { return m_plan->BasesOf(u); }
    bool StartsOn(uint32_t u, int64_t trigger) const override
    {
        return m_plan->StartTrigger(u) == trigger;
    }
    WorkloadSpec Expand(uint32_t u) const override { return m_plan->Expand(u); }

  private:
    std::shared_ptr<const JobPlan> m_plan;
};

} // namespace

JobWindow::JobWindow(std::vector<std::shared_ptr<const JobPlan>> plans)
    : m_plans(std::move(plans)),
      m_next(m_plans.size(), 0)
{
    for (const auto& p : m_plans)
    {
        m_units.push_back(std::make_shared<PlanUnits>(p));
        m_end = p->BasesOf(p->Iterations());
    }
}

JobWindow::JobWindow(std::shared_ptr<const Units> units)
    : m_next(1, 0)
{
    NS_ABORT_MSG_IF(!units, "JobWindow: no units");
    m_keepsRecords = units->KeepsRecords();
    m_end = units->BasesOf(units->Count());
    m_units.push_back(std::move(units));
}

std::vector<JobWindow::Range>
JobWindow::ExpandFrom(int64_t trigger)
{
    std::vector<Range> out;
    for (uint32_t j = 0; j < m_units.size(); ++j)
    {
        const Units& p = *m_units[j];
        while (m_next[j] < p.Count() && p.StartsOn(m_next[j], trigger))
        {
            const uint32_t i = m_next[j]++;
            const JobPlan::Bases first = p.BasesOf(i);
            const JobPlan::Bases end = p.BasesOf(i + 1);
            if (end.transfer == first.transfer)
            {
                continue; // compute only: nothing to hold
            }
            Live live;
            live.range.job = j;
            live.range.iteration = i;
            live.range.first = first;
            live.range.end = end;
            live.fragment = p.Expand(i);
            m_liveTransfers += end.transfer - first.transfer;
            out.push_back(live.range);
            m_live.emplace(live.range.first.transfer, std::move(live));
        }
    }
    return out;
}

uint32_t
JobWindow::UnitOf(uint32_t j, uint64_t x, uint64_t JobPlan::Bases::*member) const
{
    const Units& p = *m_units[j];
    // The last unit starting at or before x.
    uint32_t lo = 0;
    uint32_t hi = p.Count();
    while (hi - lo > 1)
    {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (p.BasesOf(mid).*member <= x)
        {
            lo = mid;
        }
        else
        {
            hi = mid;
        }
    }
    return lo;
}

const WorkloadSpec&
JobWindow::CachedUnit(uint64_t x, uint64_t JobPlan::Bases::*member) const
{
    NS_ABORT_MSG_IF(m_units.size() != 1 || x >= m_end.*member,
                    "JobWindow::Rebuilt: id " << x << " is beyond the window's units");
    const uint32_t u = UnitOf(0, x, member);
    if (m_cachedUnit != static_cast<int64_t>(u))
    {
        m_cached = m_units[0]->Expand(u);
        m_cachedFirst = m_units[0]->BasesOf(u);
        m_cachedUnit = u;
    }
    return m_cached;
}

const TransferSpec&
JobWindow::Rebuilt(uint64_t t) const
{
    if (const TransferSpec* live = Transfer(t))
    {
        return *live;
    }
    const WorkloadSpec& f = CachedUnit(t, &JobPlan::Bases::transfer);
    return f.transfers.at(t - m_cachedFirst.transfer);
}

const TriggerSpec&
JobWindow::RebuiltTrigger(uint64_t g) const
{
    if (const TriggerSpec* live = Trigger(g))
    {
        return *live;
    }
    // Units with no triggers of their own (the first steps) sit before the unit holding g.
    const WorkloadSpec& f = CachedUnit(g, &JobPlan::Bases::trigger);
    return f.triggers.at(g - m_cachedFirst.trigger);
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
