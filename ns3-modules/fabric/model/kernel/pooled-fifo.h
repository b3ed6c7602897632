/*
 * tusk: PooledFifo, first-in first-out queues threaded through one shared pool of nodes.
 */
#ifndef TUSK_POOLED_FIFO_H
#define TUSK_POOLED_FIFO_H

#include "ns3/abort.h"
#include "ns3/simple-ref-count.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief The nodes of many PooledFifo queues: chunks of nodes that never move, and a free list.
 *
 * The queues that share a pool hold, together, at most as many nodes as they ever held at
 * one moment (rounded up to a chunk of kChunkNodes): a queue that drains gives its nodes to
 * the others. A ring or a vector per queue (RingQueue) keeps each queue's deepest moment
 * instead, and the deepest moments of the egress queues of a fabric come at different times:
 * on the 1,024-host permutation (bench/run.sh perm-1024) the rings held 1.4 times the frames
 * queued at the busiest moment (docs/performance.md). Chunks are kept until the pool is
 * destroyed.
 *
 * A node is a T followed by a link (index of the next node; T's tail padding holds it where
 * the ABI allows, as for any derived class). Node indices are 32-bit: at most 2^32 - 1 nodes.
 * Not thread-safe (one simulation).
 */
template <typename T>
class FifoPool : public SimpleRefCount<FifoPool<T>>
{
  public:
    /** The link value of "no node". */
    static constexpr uint32_t kNil = ~uint32_t{0};
    /** Nodes per chunk (a power of two). */
    static constexpr uint32_t kChunkNodes = 1024;

    struct Node : T
    {
        uint32_t next = kNil;
    };

    Node& At(uint32_t index) { return m_chunks[index / kChunkNodes][index % kChunkNodes]; }
    const Node& At(uint32_t index) const
    {
        return m_chunks[index / kChunkNodes][index % kChunkNodes];
    }

    /** A free node (its value T(), its link kNil); a new chunk when none is free. */
    uint32_t Acquire()
    {
        if (m_free == kNil)
        {
            AddChunk();
        }
        const uint32_t index = m_free;
        Node& node = At(index);
        m_free = node.next;
        node.next = kNil;
        ++m_inUse;
        return index;
    }

    /** Give node `index` back: its value is reset to T() (releasing what it held). */
    void Release(uint32_t index)
    {
        Node& node = At(index);
        static_cast<T&>(node) = T();
        node.next = m_free;
        m_free = index;
        --m_inUse;
    }

    /** Nodes held by queues now. */
    size_t InUse() const { return m_inUse; }
    /** Nodes allocated (a multiple of kChunkNodes): the most ever in use, rounded up. */
    size_t Capacity() const { return m_chunks.size() * size_t{kChunkNodes}; }

  private:
    void AddChunk()
    {
        NS_ABORT_MSG_IF(Capacity() + kChunkNodes > kNil, "FifoPool: more than 2^32 - 1 nodes");
        const auto base = static_cast<uint32_t>(Capacity());
        m_chunks.push_back(std::make_unique<Node[]>(kChunkNodes));
        Node* chunk = m_chunks.back().get();
        // Lowest index first, so that a fresh pool hands out nodes in address order.
        for (uint32_t i = kChunkNodes; i-- > 0;)
        {
            chunk[i].next = m_free;
            m_free = base + i;
        }
    }

    std::vector<std::unique_ptr<Node[]>> m_chunks;
    uint32_t m_free = kNil; //!< head of the free list
    size_t m_inUse = 0;
};

/**
 * \brief A first-in first-out queue whose elements live in a FifoPool shared with other queues.
 *
 * Three words; allocates nothing itself. The pool must outlive the queue (its owner declares
 * the pool's Ptr before the queues, so that the queues, destroyed first, give their nodes
 * back). SetPool only while empty.
 */
template <typename T>
class PooledFifo
{
  public:
    using Pool = FifoPool<T>;

    PooledFifo() = default;
    PooledFifo(const PooledFifo&) = delete;
    PooledFifo& operator=(const PooledFifo&) = delete;
    ~PooledFifo() { clear(); }

    void SetPool(Pool* pool)
    {
        NS_ABORT_MSG_IF(!empty(), "PooledFifo: pool changed while holding elements");
        m_pool = pool;
    }

    bool empty() const { return m_size == 0; }
    size_t size() const { return m_size; }
    T& front() { return m_pool->At(m_head); }
    const T& front() const { return m_pool->At(m_head); }

    void push_back(T value) { emplace_back() = std::move(value); }

    /** Append an element T() and return it, to be filled in place (no copy of a T). */
    T& emplace_back()
    {
        const uint32_t index = m_pool->Acquire();
        if (m_size == 0)
        {
            m_head = index;
        }
        else
        {
            m_pool->At(m_tail).next = index;
        }
        m_tail = index;
        ++m_size;
        return m_pool->At(index);
    }

    void pop_front()
    {
        const uint32_t index = m_head;
        m_head = m_pool->At(index).next;
        m_pool->Release(index);
        --m_size;
    }

    void clear()
    {
        while (!empty())
        {
            pop_front();
        }
    }

    /** True if `pred(element)` holds for some element (front to back). */
    template <typename Pred>
    bool AnyOf(Pred pred) const
    {
        uint32_t index = m_head;
        for (uint32_t i = 0; i < m_size; ++i)
        {
            const auto& node = m_pool->At(index);
            if (pred(static_cast<const T&>(node)))
            {
                return true;
            }
            index = node.next;
        }
        return false;
    }

  private:
    Pool* m_pool = nullptr;
    uint32_t m_head = Pool::kNil;
    uint32_t m_tail = Pool::kNil;
    uint32_t m_size = 0;
};

} // namespace ns3

#endif
