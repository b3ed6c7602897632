#include "egress-decision-log.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

EgressDecisionLog::EgressDecisionLog(uint32_t ports)
    : m_cells(ports)
{
}

EgressDecisionLog::Row&
EgressDecisionLog::Cell(uint16_t port, uint32_t candidates)
{
    if (port >= m_cells.size())
    {
        m_cells.resize(port + 1u);
    }
    auto& rows = m_cells[port];
    for (Row& r : rows)
    {
        if (r.candidates == candidates)
        {
            return r;
        }
    }
    Row r;
    r.port = port;
    r.candidates = candidates;
    rows.push_back(r);
    return rows.back();
}

void
EgressDecisionLog::Add(const EgressCandidate* candidates, uint32_t count, uint32_t index,
                       EgressReason reason, uint32_t bytes)
{
    Row& chosen = Cell(candidates[index].port, count);
    ++chosen.packets;
    chosen.bytes += bytes;
    ++chosen.packetsByReason[static_cast<size_t>(reason)];
    if (reason == EgressReason::FLOWLET || reason == EgressReason::HASH)
    {
        // The flowlet kept its port, or the flow's hash fixed it: no choice was made among
        // the candidates as they stood.
        return;
    }
    ++chosen.decisions;
    for (uint32_t i = 0; i < count; ++i)
    {
        ++Cell(candidates[i].port, count).offered;
    }
}

std::vector<EgressDecisionLog::Row>
EgressDecisionLog::Rows() const
{
    std::vector<Row> out;
    for (const auto& cell : m_cells)
    {
        out.insert(out.end(), cell.begin(), cell.end());
    }
    std::sort(out.begin(), out.end(), [](const Row& a, const Row& b) {
        return std::tie(a.port, a.candidates) < std::tie(b.port, b.candidates);
    });
    return out;
}

} // namespace ns3
