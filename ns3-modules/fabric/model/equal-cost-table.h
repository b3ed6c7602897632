/*
 * tusk: EqualCostTable, the forwarding tables of every switch of a fabric, in compact form.
 */
#ifndef TUSK_EQUAL_COST_TABLE_H
#define TUSK_EQUAL_COST_TABLE_H

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{

/** A read-only run of port indices (a view into an EqualCostTable). */
class PortSpan
{
  public:
    PortSpan() = default;
    PortSpan(const uint16_t* data, uint32_t size)
        : m_data(data),
          m_size(size)
    {
    }

    const uint16_t* begin() const { return m_data; }
    const uint16_t* end() const { return m_data + m_size; }
    const uint16_t* data() const { return m_data; }
    uint32_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    uint16_t operator[](uint32_t i) const { return m_data[i]; }
    std::vector<uint16_t> ToVector() const { return {begin(), end()}; }
    bool operator==(const std::vector<uint16_t>& v) const
    {
        return v.size() == m_size && std::equal(v.begin(), v.end(), m_data);
    }

  private:
    const uint16_t* m_data = nullptr;
    uint32_t m_size = 0;
};

/**
 * \brief Equal-cost forwarding of a whole fabric: for switch s and destination host h, the
 * ports of s (indices into its port list) on a minimum-hop path to h, in increasing order.
 *
 * Stored the way routers store it, by destination prefix rather than by host: hosts that hang
 * off the same switch by one link form a destination group and share every other switch's
 * entry; their own switch forwards on the host's port. Each (switch, group) entry refers to a
 * port list kept once for the whole fabric. Memory is O(hosts + switches x groups + distinct
 * port lists) instead of O(switches x hosts) lists: for htsim's 8,192-host fat tree, 512
 * groups, a few MB. A lookup is three array reads. Filled by ComputeEqualCostPorts
 * (fabric/helper/topology-builders.h).
 */
class EqualCostTable
{
  public:
    EqualCostTable() = default;

    uint32_t NumSwitches() const { return m_numSwitches; }
    uint32_t NumHosts() const { return static_cast<uint32_t>(m_hostGroup.size()); }
    uint32_t NumGroups() const { return m_numGroups; }

    /** The candidate ports of switch s (0-based over switches) towards host h; empty when h
     *  is unreachable from s or out of range. */
    PortSpan Ports(uint32_t s, uint32_t h) const
    {
        if (h >= m_hostGroup.size() || s >= m_numSwitches)
        {
            return PortSpan();
        }
        const uint64_t cell = m_hostEdge[h] == s
                                  ? m_hostCell[h]
                                  : m_cells[static_cast<uint64_t>(s) * m_numGroups + m_hostGroup[h]];
        return PortSpan(m_ports.data() + (cell >> 16), static_cast<uint32_t>(cell & 0xFFFF));
    }

    /** One switch's table: row[h] is Ports(s, h). */
    class Row
    {
      public:
        Row(const EqualCostTable* t, uint32_t s)
            : m_table(t),
              m_s(s)
        {
        }

        PortSpan operator[](uint32_t h) const { return m_table->Ports(m_s, h); }
        uint32_t size() const { return m_table->NumHosts(); }

      private:
        const EqualCostTable* m_table;
        uint32_t m_s;
    };

    /** table[s][h] == Ports(s, h). */
    Row operator[](uint32_t s) const { return Row(this, s); }
    uint32_t size() const { return m_numSwitches; }

    /** Work done to compute the table: BFS vertex expansions plus ports examined. For tests
     *  of the algorithm's growth (linear in the fabric for a fixed number of groups). */
    uint64_t GetWork() const { return m_work; }

    // ---- building (ComputeEqualCostPorts) -----------------------------------------------
    /** Size it: switches, hosts, destination groups; every entry empty. */
    void Reset(uint32_t switches, uint32_t hosts, uint32_t groups);
    /** Host h belongs to `group`; if `edgeSwitch` is a switch index, h hangs off it by one
     *  link and that switch forwards to h on `port`. */
    void SetHost(uint32_t h, uint32_t group, uint32_t edgeSwitch, uint16_t port);
    /** The ports of switch s towards every host of `group`. */
    void SetGroupPorts(uint32_t s, uint32_t group, const std::vector<uint16_t>& ports);
    void AddWork(uint64_t work) { m_work += work; }

    /** No edge switch (EqualCostTable::SetHost). */
    static constexpr uint32_t kNoEdge = 0xFFFFFFFFu;

  private:
    /** A cell: offset into m_ports << 16 | count. Port lists are stored once (Intern). */
    uint64_t Intern(const std::vector<uint16_t>& ports);

    uint32_t m_numSwitches = 0;
    uint32_t m_numGroups = 0;
    std::vector<uint32_t> m_hostGroup; //!< per host
    std::vector<uint32_t> m_hostEdge;  //!< per host: its switch, or kNoEdge
    std::vector<uint64_t> m_hostCell;  //!< per host: its port at its edge switch
    std::vector<uint64_t> m_cells;     //!< per (switch, group)
    std::vector<uint16_t> m_ports;     //!< every distinct port list, back to back
    std::map<std::vector<uint16_t>, uint64_t> m_interned; //!< port list -> its cell
    uint64_t m_work = 0;
};

} // namespace ns3

#endif
