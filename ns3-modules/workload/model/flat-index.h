/*
 * tusk: FlatIndex, a hash index whose keys and values lie in one flat array.
 */
#ifndef TUSK_FLAT_INDEX_H
#define TUSK_FLAT_INDEX_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief A hash index from Key to Value in one array of slots (open addressing, linear
 * probing, a power-of-two table at most half full), for lookups that run once per transfer
 * in a table too large to stay in the caches.
 *
 * std::unordered_map reads, for a lookup, its bucket, the node before the bucket's first
 * (another element's) and that node: three cache misses when the table is cold, as the
 * executor's connection index and the rows' ideal-FCT cache are at 8,192 hosts, where each
 * transfer of a ring step asks for another rank's entry. Here a lookup reads one slot, or
 * the few after it that share its cache line.
 *
 * Insert and find only (nothing is erased; Clear empties it). `Hash` maps a key to 64 bits;
 * the index takes a slot from the high bits of that value times a Fibonacci constant, so a
 * hash whose low bits repeat (a host id in the high half, say) still spreads. Key needs ==;
 * Key and Value are copied into the slots, so both should be small (a few words).
 * Deterministic: no iteration order is exposed, and a lookup's answer does not depend on
 * the table's layout. Home-made because Debian 12's Boost (1.74) predates
 * boost::unordered_flat_map (1.81), the library to move to when it ships.
 */
template <class Key, class Value, class Hash>
class FlatIndex
{
  public:
    /** The value held for `key`, or nullptr (valid until the next Insert). */
    const Value* Find(const Key& key) const
    {
        if (m_slots.empty())
        {
            return nullptr;
        }
        for (size_t i = SlotOf(key);; i = (i + 1) & (m_slots.size() - 1))
        {
            const Slot& s = m_slots[i];
            if (!s.used)
            {
                return nullptr;
            }
            if (s.key == key)
            {
                return &s.value;
            }
        }
    }

    /** \brief Hold `value` for `key` unless a value is held for it already.
     *  \return the value held for `key` (valid until the next Insert) */
    const Value& Insert(const Key& key, const Value& value)
    {
        if ((m_size + 1) * 2 > m_slots.size())
        {
            Grow();
        }
        size_t i = SlotOf(key);
        while (m_slots[i].used)
        {
            if (m_slots[i].key == key)
            {
                return m_slots[i].value;
            }
            i = (i + 1) & (m_slots.size() - 1);
        }
        m_slots[i].key = key;
        m_slots[i].value = value;
        m_slots[i].used = true;
        ++m_size;
        return m_slots[i].value;
    }

    /** Keys held. */
    size_t Size() const { return m_size; }

    /** Forget every key (the table's storage freed). */
    void Clear()
    {
        std::vector<Slot>().swap(m_slots);
        m_size = 0;
        m_shift = 64;
    }

  private:
    struct Slot
    {
        Key key{};
        Value value{};
        bool used = false;
    };

    size_t SlotOf(const Key& key) const
    {
        const uint64_t h = static_cast<uint64_t>(Hash()(key)) * 0x9E3779B97F4A7C15ULL;
        return static_cast<size_t>(h >> m_shift);
    }

    /** Twice the slots (16 at first), every key placed again. */
    void Grow()
    {
        std::vector<Slot> old;
        old.swap(m_slots);
        const size_t n = old.empty() ? 16 : old.size() * 2;
        m_slots.assign(n, Slot());
        m_shift = 64;
        for (size_t k = n; k > 1; k >>= 1)
        {
            --m_shift; // 64 - log2(n)
        }
        m_size = 0;
        for (const Slot& s : old)
        {
            if (s.used)
            {
                Insert(s.key, s.value);
            }
        }
    }

    std::vector<Slot> m_slots;
    size_t m_size = 0;
    unsigned m_shift = 64; //!< 64 - log2(m_slots.size())
};

} // namespace ns3

#endif
