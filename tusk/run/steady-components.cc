/*
 * tusk: SteadyComponents (steady-components.h).
 */
#include "run/steady-components.h"

#include <boost/pending/disjoint_sets.hpp>

#include <algorithm>
#include <numeric>

namespace tusk
{

namespace
{

uint64_t
At(const std::vector<uint64_t>& v, uint32_t i)
{
    return i < v.size() ? v[i] : 0;
}

} // namespace

SteadyComponents::SteadyComponents(const SteadyParams& params)
    : m_p(params)
{
    m_p.windows = std::max<uint32_t>(m_p.windows, 2);
}

std::vector<uint32_t>
SteadyComponents::Partition(const ComponentWindow& w)
{
    const size_t n = w.transfers.size();
    // Union-find over the transfers' indices (Boost's disjoint sets, union by rank with path
    // compression); components are numbered below by their first transfer, whatever the root.
    boost::disjoint_sets_with_storage<> sets(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        sets.make_set(i);
    }
    const bool any = std::any_of(w.transfers.begin(), w.transfers.end(),
                                 [](const ComponentWindow::Transfer& t) { return t.unattributed; });
    if (any)
    {
        for (uint32_t i = 1; i < n; ++i)
        {
            sets.union_set(uint32_t{0}, i);
        }
    }
    else
    {
        // The first transfer through each port; every later one joins it.
        uint32_t maxPort = 0;
        for (const auto& t : w.transfers)
        {
            for (const uint32_t p : t.ports)
            {
                maxPort = std::max(maxPort, p);
            }
        }
        std::vector<int64_t> owner(static_cast<size_t>(maxPort) + 1, -1);
        for (uint32_t i = 0; i < n; ++i)
        {
            for (const uint32_t p : w.transfers[i].ports)
            {
                if (owner[p] < 0)
                {
                    owner[p] = i;
                }
                else
                {
                    sets.union_set(static_cast<uint32_t>(owner[p]), i);
                }
            }
        }
    }
    std::vector<uint32_t> of(n);
    std::vector<int64_t> number(n, -1);
    uint32_t next = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        const auto root = sets.find_set(i);
        if (number[root] < 0)
        {
            number[root] = next++;
        }
        of[i] = static_cast<uint32_t>(number[root]);
    }
    return of;
}

void
SteadyComponents::Retire(const Live& c)
{
    m_retired.Add(c.judge->Stats());
    // Its jump was still running when it changed: the jump passed over the change.
    m_retired.jumpsBroken += c.judge->JumpEndPs() > c.judge->LastPs() ? 1 : 0;
}

std::vector<SteadyReason>
SteadyComponents::Add(const ComponentWindow& w, uint64_t capPs)
{
    ++m_windows;
    const std::vector<uint32_t> of = Partition(w);
    const uint32_t count = of.empty() ? 0 : *std::max_element(of.begin(), of.end()) + 1;
    m_retired.mostInWindow = std::max<uint64_t>(m_retired.mostInWindow, count);
    m_retired.windowsUnattributed +=
        std::any_of(w.transfers.begin(), w.transfers.end(),
                    [](const ComponentWindow::Transfer& t) { return t.unattributed; })
            ? 1
            : 0;

    // Each component's members (transfer indices, in id order) and its identity.
    std::vector<std::vector<uint32_t>> members(count);
    for (uint32_t i = 0; i < of.size(); ++i)
    {
        members[of[i]].push_back(i);
    }
    // The component of each transfer id, for the QPs' congestion control.
    std::map<uint32_t, uint32_t> componentOfId;
    for (uint32_t i = 0; i < of.size(); ++i)
    {
        componentOfId[w.transfers[i].id] = of[i];
    }
    std::vector<std::vector<const ComponentWindow::Cc*>> ccOf(count);
    for (const auto& c : w.cc)
    {
        const auto it = componentOfId.find(c.transfer);
        if (it != componentOfId.end())
        {
            ccOf[it->second].push_back(&c);
        }
    }

    std::vector<SteadyReason> verdicts;
    verdicts.reserve(count);
    for (uint32_t k = 0; k < count; ++k)
    {
        Key key;
        SteadyWindow sw;
        sw.endPs = w.endPs;
        sw.failure = w.failureAll;
        for (const uint32_t i : members[k])
        {
            const auto& t = w.transfers[i];
            key.first.push_back(t.id);
            key.second.insert(key.second.end(), t.ports.begin(), t.ports.end());
            if (!t.ended)
            {
                sw.flows.push_back({t.id, t.windowBytes, t.remainingBytes});
            }
            sw.flowStarts += t.started ? 1 : 0;
            sw.flowEnds += t.ended ? 1 : 0;
            sw.replayed = sw.replayed || t.replayed;
        }
        std::sort(key.second.begin(), key.second.end());
        key.second.erase(std::unique(key.second.begin(), key.second.end()), key.second.end());
        sw.queues.reserve(key.second.size());
        for (const uint32_t p : key.second)
        {
            sw.queues.push_back(At(w.queues, p));
            sw.pfcFrames += At(w.pfc, p);
            sw.drops += At(w.drops, p);
            sw.ecnMarks += At(w.marks, p);
            sw.failure = sw.failure || (p < w.failed.size() && w.failed[p] != 0);
        }
        for (const ComponentWindow::Cc* c : ccOf[k])
        {
            sw.cc.push_back({c->qp, c->words});
            sw.ccPartial = sw.ccPartial || c->partial;
        }

        auto it = m_live.find(key);
        if (it == m_live.end())
        {
            ++m_retired.seen;
            Live fresh;
            fresh.judge = std::make_unique<SteadyJudge>(m_p);
            it = m_live.emplace(std::move(key), std::move(fresh)).first;
        }
        it->second.window = m_windows;
        verdicts.push_back(it->second.judge->Add(std::move(sw), capPs));
    }
    // Components not in this window are gone: fold their ledgers.
    for (auto it = m_live.begin(); it != m_live.end();)
    {
        if (it->second.window != m_windows)
        {
            Retire(it->second);
            it = m_live.erase(it);
        }
        else
        {
            ++it;
        }
    }
    return verdicts;
}

void
SteadyComponents::AddTailEnds(uint64_t endPs, std::vector<uint32_t> ended, bool allDone)
{
    std::sort(ended.begin(), ended.end());
    for (auto& [key, live] : m_live)
    {
        // The transfers of the component among `ended` (both sorted).
        uint32_t n = 0;
        auto e = ended.begin();
        for (const uint32_t t : key.first)
        {
            e = std::lower_bound(e, ended.end(), t);
            if (e != ended.end() && *e == t)
            {
                ++n;
            }
        }
        live.judge->AddTailEnds(endPs, n, allDone);
    }
}

SteadyComponentStats
SteadyComponents::Stats() const
{
    SteadyComponentStats s = m_retired;
    for (const auto& [key, c] : m_live)
    {
        s.Add(c.judge->Stats());
    }
    s.componentPs = s.probed * m_p.windowPs;
    return s;
}

} // namespace tusk
