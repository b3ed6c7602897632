/*
 * tusk: RingQueue, a FIFO on a power-of-two ring that allocates nothing while empty.
 */
#ifndef TUSK_RING_QUEUE_H
#define TUSK_RING_QUEUE_H

#include <cstddef>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief A first-in first-out queue on a ring buffer of power-of-two capacity that doubles
 * when full; a ring of more than kKeepEmpty slots is released when it empties.
 *
 * libstdc++'s std::deque allocates a 512-byte block and its map on construction, empty or
 * not: a switch port with eight priority queues held 5 KB before its first frame. A RingQueue
 * is three words until its first push, and its elements are contiguous. It serves queues that
 * are each someone's own (a NIC's control frames, a QP's work requests, ConWeave's held
 * frames); the switch egress queues, deep only while their port is congested and together
 * most of a congested run's memory, share one FifoPool instead (pooled-fifo.h). Elements must
 * be default-constructible and movable; a popped slot is reset to T() so that it releases what
 * it held.
 */
template <typename T>
class RingQueue
{
  public:
    bool empty() const { return m_size == 0; }
    size_t size() const { return m_size; }
    T& front() { return m_slots[m_head]; }
    const T& front() const { return m_slots[m_head]; }
    /** The i-th element from the front. */
    T& operator[](size_t i) { return m_slots[(m_head + i) & (m_slots.size() - 1)]; }
    const T& operator[](size_t i) const { return m_slots[(m_head + i) & (m_slots.size() - 1)]; }

    void push_back(T value)
    {
        if (m_size == m_slots.size())
        {
            Grow();
        }
        m_slots[(m_head + m_size) & (m_slots.size() - 1)] = std::move(value);
        ++m_size;
    }

    void pop_front()
    {
        m_slots[m_head] = T();
        m_head = (m_head + 1) & (m_slots.size() - 1);
        if (--m_size == 0 && m_slots.size() > kKeepEmpty)
        {
            std::vector<T>().swap(m_slots); // a deep queue drained: give its storage back
            m_head = 0;
        }
    }

    /** Slots of storage an emptied queue keeps; a larger ring is released once empty. */
    static constexpr size_t kKeepEmpty = 64;
    /** Slots allocated (a power of two, or zero). */
    size_t capacity() const { return m_slots.size(); }

    void clear()
    {
        while (!empty())
        {
            pop_front();
        }
    }

  private:
    void Grow()
    {
        std::vector<T> grown(m_slots.empty() ? 4 : m_slots.size() * 2);
        for (size_t i = 0; i < m_size; ++i)
        {
            grown[i] = std::move((*this)[i]);
        }
        m_slots.swap(grown);
        m_head = 0;
    }

    size_t m_size = 0; //!< first: empty() is what a caller reads most (once per frame)
    size_t m_head = 0;
    std::vector<T> m_slots; //!< capacity a power of two (or zero)
};

} // namespace ns3

#endif
