// Unit tests of ReplayAgenda (fast mode's batches of replay actions): a run whose replay
// actions share events in batches executes everything, actions and other events, in exactly
// the order of a run where every action is its own event. No Simulator: a model kernel (events
// by time, then by the order they were scheduled, as ns-3's) runs random programs both ways.
#include "workload/model/replay-agenda.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <tuple>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

/** An item of a program: a replay action (through the agenda) or another event. */
struct Item
{
    uint32_t id = 0;
    bool action = false;
};

/** What item `id` schedules when it runs: a few children at small delays (many ties). */
std::vector<std::pair<uint64_t, Item>>
Children(uint32_t id, uint32_t seed, uint32_t& next, uint32_t limit)
{
    std::mt19937 rng(seed * 1000003u + id);
    std::vector<std::pair<uint64_t, Item>> out;
    const uint32_t n = next < limit ? rng() % 4 : 0;
    for (uint32_t k = 0; k < n; ++k)
    {
        out.push_back({rng() % 4, Item{next++, rng() % 3 != 0}});
    }
    return out;
}

/**
 * Run a program from `roots` (time, item) and return the ids in the order they ran.
 * `batched`: actions go through a ReplayAgenda (one kernel event per batch), joining batches
 * by the kernel's count of events scheduled by others; otherwise every item is an event.
 */
std::vector<uint32_t>
Run(uint32_t seed, bool batched, uint64_t* batchesOut = nullptr)
{
    // The model kernel: (time, scheduling order) -> an item, or a batch (id | 1 << 31).
    std::map<std::pair<uint64_t, uint64_t>, uint32_t> queue;
    uint64_t scheduled = 0;    // the kernel's count of events scheduled
    uint64_t agendaEvents = 0; // of which the agenda's
    ReplayAgenda agenda;
    std::vector<uint32_t> order;
    uint32_t next = 0;
    uint64_t now = 0;
    constexpr uint32_t kBatch = 1u << 31;
    auto schedule = [&](uint64_t at, uint32_t what) {
        queue.emplace(std::make_pair(at, scheduled++), what);
    };
    auto add = [&](uint64_t delay, const Item& it) {
        if (!batched || !it.action)
        {
            schedule(now + delay, it.id);
            return;
        }
        const auto [batch, opened] =
            agenda.Add(now + delay, {it.id, ReplayAgenda::START}, scheduled - agendaEvents);
        if (opened)
        {
            ++agendaEvents;
            schedule(now + delay, kBatch | batch);
        }
    };
    auto run = [&](uint32_t id) {
        order.push_back(id);
        for (const auto& [delay, child] : Children(id, seed, next, 400))
        {
            add(delay, child);
        }
    };
    for (uint32_t r = 0; r < 6; ++r)
    {
        add(r % 2, Item{next++, r % 3 != 0});
    }
    while (!queue.empty())
    {
        const auto head = queue.begin();
        now = head->first.first;
        const uint32_t what = head->second;
        queue.erase(head);
        if (what & kBatch)
        {
            std::vector<ReplayAgenda::Action> actions = agenda.Take(what & ~kBatch);
            for (const auto& a : actions)
            {
                run(a.transfer);
            }
            agenda.Recycle(std::move(actions));
        }
        else
        {
            run(what);
        }
    }
    if (batchesOut)
    {
        *batchesOut = agenda.BatchesOpened();
    }
    CHECK(agenda.Pending() == 0);
    return order;
}

} // namespace

TEST_CASE("replay actions batched by the agenda run in exactly the order of one event each, "
          "other events interleaved",
          "[fast-mode][replay-agenda]")
{
    uint64_t items = 0;
    uint64_t batches = 0;
    for (uint32_t seed = 1; seed <= 200; ++seed)
    {
        const std::vector<uint32_t> alone = Run(seed, false);
        uint64_t b = 0;
        const std::vector<uint32_t> batched = Run(seed, true, &b);
        REQUIRE(batched == alone);
        items += alone.size();
        batches += b;
    }
    // The programs do share batches (the property is not met by never joining).
    CHECK(items > 20000);
    CHECK(batches < items / 2);
}

TEST_CASE("an agenda action joins its time's batch only while nothing else was scheduled",
          "[fast-mode][replay-agenda]")
{
    ReplayAgenda a;
    const auto first = a.Add(100, {1, ReplayAgenda::DELIVERED}, 7);
    CHECK(first.second);
    const auto joined = a.Add(100, {2, ReplayAgenda::ACKNOWLEDGED}, 7);
    CHECK_FALSE(joined.second);
    CHECK(joined.first == first.first);
    const auto other = a.Add(200, {3, ReplayAgenda::START}, 7); // another time: a new batch
    CHECK(other.second);
    const auto after = a.Add(100, {4, ReplayAgenda::START}, 8); // something came between
    CHECK(after.second);
    CHECK(after.first != first.first);
    const auto never = a.Add(200, {5, ReplayAgenda::START}, ReplayAgenda::kNeverJoin);
    CHECK(never.second);
    CHECK(a.Pending() == 5);
    std::vector<ReplayAgenda::Action> run = a.Take(first.first);
    REQUIRE(run.size() == 2);
    CHECK(run[0].transfer == 1);
    CHECK(run[1].transfer == 2);
    a.Recycle(std::move(run));
    // The taken batch is closed: an action for its time goes to the batch still open there.
    const auto later = a.Add(100, {6, ReplayAgenda::START}, 8);
    CHECK_FALSE(later.second);
    CHECK(later.first == after.first);
    CHECK(a.Pending() == 4);
    run = a.Take(after.first);
    REQUIRE(run.size() == 2);
    CHECK(run[0].transfer == 4);
    CHECK(run[1].transfer == 6);
}

} // namespace TUSK_TEST_FILE
