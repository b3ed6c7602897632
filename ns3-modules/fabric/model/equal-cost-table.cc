#include "equal-cost-table.h"

#include "ns3/abort.h"

namespace ns3
{

void
EqualCostTable::Reset(uint32_t switches, uint32_t hosts, uint32_t groups)
{
    m_numSwitches = switches;
    m_numGroups = groups;
    m_hostGroup.assign(hosts, 0);
    m_hostEdge.assign(hosts, kNoEdge);
    m_hostCell.assign(hosts, 0);
    m_cells.assign(static_cast<uint64_t>(switches) * groups, 0);
    m_ports.clear();
    m_interned.clear();
    m_work = 0;
}

uint64_t
EqualCostTable::Intern(const std::vector<uint16_t>& ports)
{
    if (ports.empty())
    {
        return 0;
    }
    NS_ABORT_MSG_IF(ports.size() > 0xFFFF, "EqualCostTable: more than 65535 candidate ports");
    auto it = m_interned.find(ports);
    if (it != m_interned.end())
    {
        return it->second;
    }
    const uint64_t cell = (static_cast<uint64_t>(m_ports.size()) << 16) | ports.size();
    m_ports.insert(m_ports.end(), ports.begin(), ports.end());
    m_interned.emplace(ports, cell);
    return cell;
}

void
EqualCostTable::SetHost(uint32_t h, uint32_t group, uint32_t edgeSwitch, uint16_t port)
{
    m_hostGroup[h] = group;
    m_hostEdge[h] = edgeSwitch;
    m_hostCell[h] = edgeSwitch == kNoEdge ? 0 : Intern({port});
}

void
EqualCostTable::SetGroupPorts(uint32_t s, uint32_t group, const std::vector<uint16_t>& ports)
{
    m_cells[static_cast<uint64_t>(s) * m_numGroups + group] = Intern(ports);
}

} // namespace ns3
