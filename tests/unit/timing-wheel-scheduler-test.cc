// TimingWheelScheduler against ns-3's MapScheduler: the same events in the same order (time
// stamp, then uid), whatever mix of same-time, same-bucket, in-wheel and beyond-horizon
// events, with cancellations (Remove), on small wheels that wrap many times and on the
// default wheel.

#include "fabric/model/kernel/timing-wheel-scheduler.h"

#include "ns3/map-scheduler.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <map>
#include <random>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

/**
 * Drive the wheel and a MapScheduler as a simulator would (never an insert before the time
 * of the last removed event) and require the same event at every PeekNext/RemoveNext.
 * Returns the number of events compared.
 */
uint64_t
CompareWithMap(uint8_t widthLog2, uint8_t bucketsLog2, uint32_t seed)
{
    auto wheel = CreateObject<TimingWheelScheduler>();
    wheel->SetAttribute("BucketWidthLog2", UintegerValue(widthLog2));
    wheel->SetAttribute("BucketsLog2", UintegerValue(bucketsLog2));
    const uint64_t width = uint64_t{1} << widthLog2;
    const uint64_t horizon = width << bucketsLog2;
    auto map = CreateObject<MapScheduler>();
    std::mt19937_64 rng(seed);
    uint64_t now = 0;
    uint32_t uid = 0;
    std::map<uint32_t, Scheduler::Event> live; // pending events by uid
    uint64_t compared = 0;
    auto insert = [&](uint64_t ts) {
        const Scheduler::Event ev{nullptr, {ts, uid++, 0}};
        wheel->Insert(ev);
        map->Insert(ev);
        live[ev.key.m_uid] = ev;
    };
    auto removeNext = [&]() {
        const Scheduler::Event expected = map->PeekNext();
        REQUIRE(wheel->PeekNext().key.m_uid == expected.key.m_uid);
        const Scheduler::Event got = wheel->RemoveNext();
        map->RemoveNext();
        REQUIRE(got.key.m_uid == expected.key.m_uid);
        REQUIRE(got.key.m_ts == expected.key.m_ts);
        REQUIRE(got.key.m_ts >= now);
        now = got.key.m_ts;
        live.erase(got.key.m_uid);
        ++compared;
    };
    for (int step = 0; step < 20000; ++step)
    {
        for (uint64_t i = rng() % 4; i > 0; --i)
        {
            switch (rng() % 6)
            {
            case 0: insert(now); break;                                       // same time
            case 1: insert(now + rng() % width); break;                       // same bucket
            case 2: insert(now + rng() % horizon); break;                     // in the wheel
            case 3: insert(now + horizon + rng() % (8 * horizon)); break;     // overflow
            case 4: insert((now / width + 1 + rng() % 3) * width); break;     // bucket starts
            default: insert(now + (rng() % 4) * (horizon / 3)); break;        // ties
            }
        }
        if (!live.empty() && rng() % 8 == 0)
        {
            // Cancel a pending event: the first live one at or after a random uid.
            auto it = live.lower_bound(static_cast<uint32_t>(rng() % uid));
            if (it == live.end())
            {
                it = live.begin();
            }
            wheel->Remove(it->second);
            map->Remove(it->second);
            live.erase(it);
        }
        for (uint64_t i = rng() % 4; i > 0 && !map->IsEmpty(); --i)
        {
            REQUIRE_FALSE(wheel->IsEmpty());
            removeNext();
        }
    }
    while (!map->IsEmpty())
    {
        removeNext();
    }
    REQUIRE(wheel->IsEmpty());
    REQUIRE(live.empty());
    return compared;
}

} // namespace

TEST_CASE("TimingWheelScheduler gives MapScheduler's order on a small wrapping wheel",
          "[unit][scheduler]")
{
    // 64 buckets (the fewest allowed) of 8 steps: a horizon of 512 steps, crossed thousands
    // of times; a sixth of the inserts go to the overflow heap.
    const uint32_t seed = GENERATE(1u, 2u, 3u);
    REQUIRE(CompareWithMap(3, 6, seed) > 20000);
}

TEST_CASE("TimingWheelScheduler gives MapScheduler's order with one-step buckets",
          "[unit][scheduler]")
{
    REQUIRE(CompareWithMap(0, 6, 11) > 20000);
}

TEST_CASE("TimingWheelScheduler gives MapScheduler's order on the default wheel",
          "[unit][scheduler]")
{
    // 2^14 buckets of 4096 ps; events up to 9 horizons (0.6 ms) ahead.
    REQUIRE(CompareWithMap(12, 14, 5) > 20000);
}

} // namespace TUSK_TEST_FILE
