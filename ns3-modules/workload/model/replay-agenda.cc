/*
 * tusk: ReplayAgenda. See replay-agenda.h.
 */
#include "replay-agenda.h"

namespace ns3
{

std::pair<uint32_t, bool>
ReplayAgenda::Add(uint64_t atPs, Action action, uint64_t foreign)
{
    ++m_pending;
    if (foreign != kNeverJoin)
    {
        const auto it = m_openAt.find(atPs);
        if (it != m_openAt.end())
        {
            Batch& b = m_batches[it->second];
            if (b.foreign == foreign)
            {
                b.actions.push_back(action); // nothing else scheduled since its last action
                return {it->second, false};
            }
            b.open = false; // something came between: later actions of this time go after it
            m_openNodes.push_back(m_openAt.extract(it));
        }
    }
    uint32_t id;
    if (m_free.empty())
    {
        id = static_cast<uint32_t>(m_batches.size());
        m_batches.emplace_back();
    }
    else
    {
        id = m_free.back();
        m_free.pop_back();
    }
    Batch& b = m_batches[id];
    b.atPs = atPs;
    b.foreign = foreign;
    if (!m_spare.empty())
    {
        b.actions = std::move(m_spare.back());
        m_spare.pop_back();
    }
    b.actions.push_back(action);
    b.open = foreign != kNeverJoin;
    if (b.open)
    {
        // atPs has no open batch here (found and closed above, or never open).
        if (m_openNodes.empty())
        {
            m_openAt.emplace(atPs, id);
        }
        else
        {
            OpenMap::node_type node = std::move(m_openNodes.back());
            m_openNodes.pop_back();
            node.key() = atPs;
            node.mapped() = id;
            m_openAt.insert(std::move(node));
        }
    }
    ++m_opened;
    return {id, true};
}

std::vector<ReplayAgenda::Action>
ReplayAgenda::Take(uint32_t batch)
{
    Batch& b = m_batches[batch];
    if (b.open)
    {
        OpenMap::node_type node = m_openAt.extract(b.atPs);
        if (!node.empty())
        {
            m_openNodes.push_back(std::move(node));
        }
        b.open = false;
    }
    std::vector<Action> out = std::move(b.actions);
    b.actions = std::vector<Action>();
    m_pending -= out.size();
    m_free.push_back(batch);
    return out;
}

void
ReplayAgenda::Recycle(std::vector<Action>&& actions)
{
    actions.clear();
    m_spare.push_back(std::move(actions));
}

void
ReplayAgenda::Clear()
{
    m_batches.clear();
    m_free.clear();
    m_openAt.clear();
    m_openNodes.clear();
    m_spare.clear();
    m_pending = 0;
}

} // namespace ns3
