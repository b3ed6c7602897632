// PooledFifo, the egress queues of the switch ports: first-in first-out order of queues that
// share one FifoPool, the pool holding only the most elements ever queued at once (the reason
// it exists: docs/performance.md, perm-1024 peak RSS), and release of what a popped element held.

#include "fabric/model/kernel/pooled-fifo.h"
#include "fabric/model/switch-port.h"

#include <catch2/catch.hpp>

#include <deque>
#include <memory>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{
struct Item
{
    int value = 0;
    std::shared_ptr<int> held;
};
} // namespace

TEST_CASE("PooledFifo queues sharing a pool each keep first-in first-out order",
          "[unit][pooled-fifo]")
{
    auto pool = Create<FifoPool<Item>>();
    PooledFifo<Item> q[3];
    std::deque<int> ref[3];
    for (auto& one : q)
    {
        one.SetPool(PeekPointer(pool));
    }
    // Interleaved pushes and pops over three queues: their nodes interleave in the pool and
    // freed nodes are reused by the other queues.
    int next = 0;
    for (int round = 0; round < 3000; ++round)
    {
        const int k = (round * 7) % 3;
        q[k].push_back(Item{next, nullptr});
        ref[k].push_back(next++);
        if (round % 3 == 2)
        {
            const int j = (round / 3) % 3;
            if (!ref[j].empty())
            {
                REQUIRE(q[j].front().value == ref[j].front());
                q[j].pop_front();
                ref[j].pop_front();
            }
        }
    }
    for (int k = 0; k < 3; ++k)
    {
        REQUIRE(q[k].size() == ref[k].size());
        REQUIRE(q[k].AnyOf([&](const Item& i) { return i.value == ref[k].back(); }));
        REQUIRE_FALSE(q[k].AnyOf([](const Item& i) { return i.value < 0; }));
        while (!ref[k].empty())
        {
            REQUIRE(q[k].front().value == ref[k].front());
            q[k].pop_front();
            ref[k].pop_front();
        }
        REQUIRE(q[k].empty());
    }
    REQUIRE(pool->InUse() == 0);
}

TEST_CASE("A FifoPool holds the most elements queued at once, not each queue's deepest moment",
          "[unit][pooled-fifo]")
{
    auto pool = Create<FifoPool<Item>>();
    constexpr uint32_t kChunk = FifoPool<Item>::kChunkNodes;
    PooledFifo<Item> a;
    PooledFifo<Item> b;
    a.SetPool(PeekPointer(pool));
    b.SetPool(PeekPointer(pool));
    // Each queue in turn fills to a chunk and drains: together never more than one chunk.
    for (int turn = 0; turn < 4; ++turn)
    {
        PooledFifo<Item>& q = turn % 2 == 0 ? a : b;
        for (uint32_t i = 0; i < kChunk; ++i)
        {
            q.push_back(Item{static_cast<int>(i), nullptr});
        }
        REQUIRE(pool->InUse() == kChunk);
        q.clear();
    }
    // Per-queue storage (a ring each) would hold 2 chunks here.
    CHECK(pool->Capacity() == kChunk);
    // Both deep at once: the pool grows to what is queued at once.
    for (uint32_t i = 0; i < kChunk; ++i)
    {
        a.push_back(Item{1, nullptr});
        b.push_back(Item{2, nullptr});
    }
    CHECK(pool->Capacity() == 2 * kChunk);
    CHECK(a.front().value == 1);
    CHECK(b.front().value == 2);
}

TEST_CASE("PooledFifo releases what a popped, cleared or destroyed queue's elements held",
          "[unit][pooled-fifo]")
{
    auto held = std::make_shared<int>(7);
    auto pool = Create<FifoPool<Item>>();
    {
        PooledFifo<Item> q;
        q.SetPool(PeekPointer(pool));
        q.push_back(Item{1, held});
        q.push_back(Item{2, held});
        q.push_back(Item{3, held});
        REQUIRE(held.use_count() == 4);
        q.pop_front();
        CHECK(held.use_count() == 3); // the freed node does not keep it alive
        Item& in = q.emplace_back();
        CHECK(in.value == 0); // a reused node comes back as T()
        CHECK(in.held == nullptr);
    }
    // The destroyed queue gave its nodes back, releasing what they held.
    CHECK(held.use_count() == 1);
    CHECK(pool->InUse() == 0);
}

TEST_CASE("A switch egress frame node takes 96 bytes (x86-64: its link in the frame's padding)",
          "[unit][pooled-fifo]")
{
    // 8 (Packet pointer) + 80 (FrameMeta) + 2 (ingress port), then the 4-byte link: the
    // figure docs/performance.md counts per queued frame on perm-1024.
    CHECK(sizeof(FrameMeta) == 80);
    CHECK(sizeof(SwitchPort::FramePool::Node) == 96);
}

} // namespace TUSK_TEST_FILE
