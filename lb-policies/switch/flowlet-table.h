/*
 * tusk: FlowletTable, the bounded, aged flowlet table of LetFlow and CONGA.
 */
#ifndef TUSK_FLOWLET_TABLE_H
#define TUSK_FLOWLET_TABLE_H

#include "fabric/model/load-balancer.h"

#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief A flowlet table as switch hardware keeps it: a fixed number of entries indexed by
 * the flow hash (flows that collide share an entry, as in CONGA's 64K-entry table, Alizadeh
 * et al. SIGCOMM 2014 section 3.4), each holding the port of the flow's current flowlet and
 * the time its last packet was seen. Ageing is implicit: an entry whose last packet is older
 * than the flowlet gap has expired, and the next packet of that hash starts a new flowlet.
 * Memory is Resize()'s entry count, never more; no allocation per lookup.
 */
class FlowletTable
{
  public:
    struct Entry
    {
        uint64_t lastPs = 0; //!< arrival time of the flowlet's last packet, ps
        uint16_t port = 0;   //!< egress port of the current flowlet
        bool valid = false;
    };

    /** Set the number of entries (>= 1); clears the table. */
    void Resize(uint32_t entries) { m_entries.assign(entries, Entry()); }
    uint32_t GetSize() const { return static_cast<uint32_t>(m_entries.size()); }

    /**
     * \brief The entry of flow hash `hash`, and whether the packet arriving at `nowPs` starts
     * a new flowlet: the entry is unused or its last packet is more than `gapPs` old.
     * The caller chooses the port of a new flowlet and calls Update.
     */
    Entry& Lookup(uint32_t hash, uint64_t nowPs, uint64_t gapPs, bool& newFlowlet)
    {
        Entry& e = m_entries[hash % m_entries.size()];
        newFlowlet = !e.valid || nowPs - e.lastPs > gapPs;
        return e;
    }

    /** Record a packet of the entry's flowlet on `port` at `nowPs`. */
    static void Update(Entry& e, uint16_t port, uint64_t nowPs)
    {
        e.port = port;
        e.lastPs = nowPs;
        e.valid = true;
    }

    /** Entries whose flowlet is still active at `nowPs` (for tests and statistics). */
    uint32_t CountActive(uint64_t nowPs, uint64_t gapPs) const
    {
        uint32_t n = 0;
        for (const auto& e : m_entries)
        {
            n += e.valid && nowPs - e.lastPs <= gapPs;
        }
        return n;
    }

  private:
    std::vector<Entry> m_entries;
};

/** Index of the candidate on `port`, or -1 if none is (the port left the group). */
inline int
FindCandidate(const EgressCandidate* candidates, uint32_t count, uint16_t port)
{
    for (uint32_t i = 0; i < count; ++i)
    {
        if (candidates[i].port == port)
        {
            return static_cast<int>(i);
        }
    }
    return -1;
}

/**
 * \brief The attributes of a policy with a flowlet table, added to its TypeId: FlowletGap
 * (Time, `defaultGap`, `gapDoc`), TableSize (entries, 65,536 by default: CONGA's table, 1 to
 * 2^24) and Seed (of the flow hash that indexes the table; set per switch by the fabric
 * builder), kept in `T`'s members `gap`, `tableSize` and `seed` (called from T::GetTypeId,
 * which may name T's private members).
 */
template <class T>
TypeId
AddFlowletAttributes(TypeId tid,
                     Time defaultGap,
                     const std::string& gapDoc,
                     Time T::*gap,
                     uint32_t T::*tableSize,
                     uint32_t T::*seed)
{
    return tid
        .AddAttribute("FlowletGap", gapDoc, TimeValue(defaultGap), MakeTimeAccessor(gap),
                      MakeTimeChecker(Time(0)))
        .AddAttribute("TableSize",
                      "Flowlet table entries (entries); flows whose hashes collide share one.",
                      UintegerValue(65536), MakeUintegerAccessor(tableSize),
                      MakeUintegerChecker<uint32_t>(1, 1u << 24))
        .AddAttribute("Seed",
                      "Seed of the flow hash that indexes the flowlet table (dimensionless; set "
                      "per switch by the fabric builder).",
                      UintegerValue(0), MakeUintegerAccessor(seed),
                      MakeUintegerChecker<uint32_t>());
}

} // namespace ns3

#endif
