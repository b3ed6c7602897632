// RingQueue, the FIFO of NIC control queues, QP work queues and ConWeave's held frames: order
// across growth while the ring is wrapped, indexing from the front, and release of what a
// popped slot held.

#include "fabric/model/kernel/ring-queue.h"

#include <catch2/catch.hpp>

#include <deque>
#include <memory>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

TEST_CASE("RingQueue keeps first-in first-out order across growth of a wrapped ring",
          "[unit][ring-queue]")
{
    RingQueue<int> q;
    std::deque<int> ref;
    REQUIRE(q.empty());
    int next = 0;
    // Push three, pop two, repeatedly: the head walks around the ring while it grows from
    // 4 slots through 8, 16, ... so every growth happens with the ring wrapped.
    for (int round = 0; round < 200; ++round)
    {
        for (int i = 0; i < 3; ++i)
        {
            q.push_back(next);
            ref.push_back(next);
            ++next;
        }
        for (int i = 0; i < 2; ++i)
        {
            REQUIRE(q.front() == ref.front());
            q.pop_front();
            ref.pop_front();
        }
        REQUIRE(q.size() == ref.size());
        for (size_t i = 0; i < ref.size(); i += 7)
        {
            REQUIRE(q[i] == ref[i]);
        }
    }
    while (!ref.empty())
    {
        REQUIRE(q.front() == ref.front());
        q.pop_front();
        ref.pop_front();
    }
    REQUIRE(q.empty());
    REQUIRE(q.size() == 0);
}

TEST_CASE("RingQueue releases what a popped or cleared element held", "[unit][ring-queue]")
{
    auto held = std::make_shared<int>(7);
    RingQueue<std::shared_ptr<int>> q;
    q.push_back(held);
    q.push_back(held);
    q.push_back(held);
    REQUIRE(held.use_count() == 4);
    q.pop_front();
    REQUIRE(held.use_count() == 3); // the slot no longer owns it
    q.clear();
    REQUIRE(held.use_count() == 1);
    REQUIRE(q.empty());
}

TEST_CASE("RingQueue gives a deep ring's storage back once it empties, keeps a shallow one's",
          "[unit][ring-queue]")
{
    RingQueue<int> q;
    for (int i = 0; i < 8; ++i)
    {
        q.push_back(i);
    }
    REQUIRE(q.capacity() == 8);
    while (!q.empty())
    {
        q.pop_front();
    }
    CHECK(q.capacity() == 8); // shallow: kept for the next burst
    const int deep = static_cast<int>(RingQueue<int>::kKeepEmpty) + 1;
    for (int i = 0; i < deep; ++i)
    {
        q.push_back(i);
    }
    REQUIRE(q.capacity() == 2 * RingQueue<int>::kKeepEmpty);
    for (int i = 0; i < deep - 1; ++i)
    {
        q.pop_front();
        CHECK(q.capacity() == 2 * RingQueue<int>::kKeepEmpty); // not while frames remain
    }
    CHECK(q.front() == deep - 1);
    q.pop_front();
    CHECK(q.capacity() == 0);
    // Usable again, in order.
    for (int i = 0; i < 5; ++i)
    {
        q.push_back(100 + i);
    }
    for (int i = 0; i < 5; ++i)
    {
        CHECK(q.front() == 100 + i);
        q.pop_front();
    }
    CHECK(q.empty());
}

} // namespace TUSK_TEST_FILE
