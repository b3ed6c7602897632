// LeanSimulatorImpl against ns-3's DefaultSimulatorImpl: the same events run in the same order
// at the same times with the same contexts, under random scripts of Schedule,
// ScheduleWithContext, ScheduleNow, Cancel and Remove issued from inside events, with either
// scheduler; and its semantics one by one (same-time events FIFO, Cancel, Remove, IsExpired,
// GetDelayLeft, context, destroy events, Stop). The kernels are driven as objects, not through
// the global ns3::Simulator.

#include "fabric/model/kernel/lean-simulator-impl.h"
#include "fabric/model/kernel/timing-wheel-scheduler.h"

#include "ns3/default-simulator-impl.h"
#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"

#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

/** An event that runs a function. */
class FnEvent : public EventImpl
{
  public:
    explicit FnEvent(std::function<void()> fn)
        : m_fn(std::move(fn))
    {
    }

  protected:
    void Notify() override { m_fn(); }

  private:
    std::function<void()> m_fn;
};

EventImpl*
Fn(std::function<void()> fn)
{
    return new FnEvent(std::move(fn));
}

Ptr<SimulatorImpl>
MakeKernel(const std::string& impl, const std::string& scheduler)
{
    ObjectFactory f;
    f.SetTypeId(impl);
    Ptr<SimulatorImpl> k = f.Create<SimulatorImpl>();
    ObjectFactory s;
    s.SetTypeId(scheduler);
    k->SetScheduler(s);
    return k;
}

/** What ran: (time step, event id, context seen inside the event). */
using Trace = std::vector<std::tuple<int64_t, uint32_t, uint32_t>>;

/**
 * A random script: events that, when run, schedule more events (same time, near, far; with
 * and without a context; ScheduleNow), and cancel or remove random pending ones, checking
 * IsExpired and GetDelayLeft on the way. The script's choices come from a seeded RNG drawn
 * only inside events, so two kernels that run the same events in the same order see the same
 * script.
 */
Trace
RunScript(const std::string& impl, const std::string& scheduler, uint32_t seed)
{
    Ptr<SimulatorImpl> k = MakeKernel(impl, scheduler);
    SimulatorImpl* kp = PeekPointer(k);
    std::mt19937 rng(seed);
    Trace trace;
    std::vector<EventId> ids; // every EventId handed out, by event id
    uint32_t nextId = 0;
    uint32_t budget = 3000;
    std::function<void(uint32_t)> body;
    auto spawn = [&](int how, int64_t delaySteps, uint32_t context) {
        const uint32_t id = nextId++;
        EventImpl* ev = Fn([&body, id] { body(id); });
        switch (how)
        {
        case 0:
            ids.push_back(kp->Schedule(TimeStep(delaySteps), ev));
            break;
        case 1:
            kp->ScheduleWithContext(context, TimeStep(delaySteps), ev);
            ids.emplace_back(); // no EventId for these
            break;
        default:
            ids.push_back(kp->ScheduleNow(ev));
            break;
        }
    };
    body = [&](uint32_t id) {
        trace.emplace_back(kp->Now().GetTimeStep(), id, kp->GetContext());
        REQUIRE(kp->IsExpired(ids[id])); // the running event counts as expired, as in ns-3
        for (int n = static_cast<int>(rng() % 4); n > 0 && budget > 0; --n, --budget)
        {
            const int how = static_cast<int>(rng() % 3);
            const int64_t delays[] = {0, 0, 1, 1000, 4096, 70'000'000, 5'000};
            const int64_t d = delays[rng() % 7];
            spawn(how, d, rng() % 5);
        }
        if (rng() % 4 == 0 && !ids.empty())
        {
            const EventId& victim = ids[rng() % ids.size()];
            const bool expired = kp->IsExpired(victim);
            const Time left = kp->GetDelayLeft(victim);
            trace.emplace_back(left.GetTimeStep(), expired ? 1 : 0, 0xdead);
            if (rng() % 2)
            {
                kp->Cancel(victim);
            }
            else
            {
                kp->Remove(victim);
            }
            REQUIRE(kp->IsExpired(victim));
        }
    };
    for (uint32_t c = 0; c < 4; ++c)
    {
        spawn(1, 10 * c, c);
    }
    kp->Run();
    trace.emplace_back(kp->Now().GetTimeStep(), static_cast<uint32_t>(kp->GetEventCount()), 0);
    k->Destroy();
    k->Dispose();
    return trace;
}

} // namespace

TEST_CASE("LeanSimulatorImpl runs random scripts exactly as DefaultSimulatorImpl", "[unit][lean-sim]")
{
    for (const std::string sched : {"ns3::MapScheduler", "ns3::TimingWheelScheduler"})
    {
        for (uint32_t seed = 1; seed <= 5; ++seed)
        {
            const Trace expected = RunScript("ns3::DefaultSimulatorImpl", "ns3::MapScheduler", seed);
            const Trace got = RunScript("ns3::LeanSimulatorImpl", sched, seed);
            INFO("scheduler " << sched << ", seed " << seed);
            REQUIRE(expected.size() > 1000); // the script did run a real mix
            REQUIRE(got.size() == expected.size());
            CHECK(got == expected);
        }
    }
}

TEST_CASE("LeanSimulatorImpl: same-time events run in insertion order, contexts as scheduled",
          "[unit][lean-sim]")
{
    Ptr<SimulatorImpl> k = MakeKernel("ns3::LeanSimulatorImpl", "ns3::TimingWheelScheduler");
    std::vector<std::pair<int, uint32_t>> ran;
    // Interleave two time stamps; insertion order within each must survive.
    for (int i = 0; i < 40; ++i)
    {
        const int64_t t = (i % 2) ? 500 : 100; // time steps
        k->ScheduleWithContext(static_cast<uint32_t>(i), TimeStep(t),
                               Fn([&, i] { ran.emplace_back(i, k->GetContext()); }));
    }
    // An event scheduled with Schedule from inside an event inherits the running context.
    k->ScheduleWithContext(7, TimeStep(100), Fn([&] {
                               k->Schedule(TimeStep(0), Fn([&] {
                                               ran.emplace_back(1000, k->GetContext());
                                           }));
                           }));
    k->Run();
    REQUIRE(ran.size() == 41);
    for (int i = 0; i < 20; ++i)
    {
        CHECK(ran[i].first == 2 * i); // the 100 ps events, in order
        CHECK(ran[i].second == static_cast<uint32_t>(2 * i));
    }
    CHECK(ran[20].first == 1000); // scheduled at 100 ps after them: still before 500 ps
    CHECK(ran[20].second == 7u);
    for (int i = 0; i < 20; ++i)
    {
        CHECK(ran[21 + i].first == 2 * i + 1);
    }
    CHECK(k->GetEventCount() == 42);
    CHECK(k->Now() == TimeStep(500));
    k->Destroy();
    k->Dispose();
}

TEST_CASE("LeanSimulatorImpl: Cancel, Remove, IsExpired, GetDelayLeft, destroy events, Stop",
          "[unit][lean-sim]")
{
    Ptr<SimulatorImpl> k = MakeKernel("ns3::LeanSimulatorImpl", "ns3::MapScheduler");
    std::vector<std::string> ran;
    const EventId a = k->Schedule(NanoSeconds(10), Fn([&] { ran.push_back("a"); }));
    const EventId b = k->Schedule(NanoSeconds(20), Fn([&] { ran.push_back("b"); }));
    const EventId c = k->Schedule(NanoSeconds(30), Fn([&] { ran.push_back("c"); }));
    const EventId d = k->Schedule(NanoSeconds(40), Fn([&] { ran.push_back("d"); }));
    k->Schedule(NanoSeconds(50), Fn([&] { k->Stop(); }));
    k->Schedule(NanoSeconds(60), Fn([&] { ran.push_back("after stop"); }));
    const EventId z1 = k->ScheduleDestroy(Fn([&] { ran.push_back("z1"); }));
    const EventId z2 = k->ScheduleDestroy(Fn([&] { ran.push_back("z2"); }));
    const EventId z3 = k->ScheduleDestroy(Fn([&] { ran.push_back("z3"); }));

    CHECK_FALSE(k->IsExpired(b));
    CHECK(k->GetDelayLeft(c) == NanoSeconds(30));
    k->Cancel(b); // stays in the event set, does not run
    k->Remove(c); // leaves the event set
    CHECK(k->IsExpired(b));
    CHECK(k->IsExpired(c));
    CHECK(k->GetDelayLeft(c) == Time(0));
    k->Cancel(z2);
    k->Remove(z3);
    CHECK(k->IsExpired(z2));
    CHECK(k->IsExpired(z3));
    CHECK_FALSE(k->IsExpired(z1));

    k->Run();
    CHECK(ran == std::vector<std::string>{"a", "d"});
    CHECK(k->IsExpired(a));
    CHECK(k->IsExpired(d));
    CHECK(k->Now() == NanoSeconds(50));
    // a, b (cancelled: it still ran as a no-op, as in ns-3), d, the stop; c was removed.
    CHECK(k->GetEventCount() == 4);
    CHECK(k->IsFinished()); // stopped
    k->Destroy();
    CHECK(ran == std::vector<std::string>{"a", "d", "z1"});
    k->Dispose(); // the event after the stop is released without running
    CHECK(ran.size() == 3);
}

TEST_CASE("LeanSimulatorImpl: Stop(delay) stops at that time, and Run resumes", "[unit][lean-sim]")
{
    Ptr<SimulatorImpl> k = MakeKernel("ns3::LeanSimulatorImpl", "ns3::TimingWheelScheduler");
    int ran = 0;
    for (int i = 1; i <= 10; ++i)
    {
        k->Schedule(MicroSeconds(i), Fn([&] { ++ran; }));
    }
    k->Stop(NanoSeconds(5500));
    k->Run();
    CHECK(ran == 5);
    CHECK(k->Now() == NanoSeconds(5500));
    k->Run(); // resumes
    CHECK(ran == 10);
    CHECK(k->Now() == MicroSeconds(10));
    CHECK(k->IsFinished());
    CHECK(k->GetMaximumSimulationTime() == Time::Max());
    k->Destroy();
    k->Dispose();
}

TEST_CASE("LeanSimulatorImpl: MoveEarlier moves a pending event, and its EventId follows it",
          "[unit][lean-sim]")
{
    // Steady-state jumps (run-clock.h) move the events a scenario gave a time: each event
    // keeps its uid, so among the events of its new time it runs in scheduling order, and an
    // EventId held from before the move still cancels it, expires after it ran and gives the
    // delay left to its new time.
    for (const char* scheduler : {"ns3::MapScheduler", "ns3::TimingWheelScheduler"})
    {
        Ptr<SimulatorImpl> k = MakeKernel("ns3::LeanSimulatorImpl", scheduler);
        auto* lean = dynamic_cast<LeanSimulatorImpl*>(PeekPointer(k));
        REQUIRE(lean != nullptr);
        std::vector<std::pair<std::string, int64_t>> ran;
        auto note = [&](const char* name) {
            return Fn([&, name] { ran.emplace_back(name, k->Now().GetNanoSeconds()); });
        };
        k->Schedule(NanoSeconds(60), note("rel60"));          // scheduled first, at 60
        const EventId abs = k->Schedule(NanoSeconds(100), note("abs100"));
        const EventId late = k->Schedule(NanoSeconds(200), note("abs200"));
        const EventId gone = k->Schedule(NanoSeconds(300), note("abs300"));
        const auto by = static_cast<uint64_t>(NanoSeconds(40).GetTimeStep());
        k->Schedule(NanoSeconds(10), Fn([&] {
            lean->MoveEarlier(abs, by);  // 100 -> 60 ns, after rel60
            lean->MoveEarlier(late, by); // 200 -> 160 ns
            lean->MoveEarlier(gone, by); // 300 -> 260 ns, then cancelled by its old id
            CHECK(k->GetDelayLeft(abs) == NanoSeconds(50));
            CHECK_FALSE(k->IsExpired(late));
            k->Cancel(gone);
        }));
        k->Schedule(NanoSeconds(100), Fn([&] {
            CHECK(k->IsExpired(abs)); // ran at 60
            CHECK_FALSE(k->IsExpired(late));
            k->Remove(late); // found at its new time
        }));
        k->Run();
        CHECK(ran == std::vector<std::pair<std::string, int64_t>>{{"rel60", 60}, {"abs100", 60}});
        CHECK(k->IsExpired(late));
        CHECK(k->IsExpired(gone));
        k->Destroy();
        k->Dispose();
    }
}

} // namespace TUSK_TEST_FILE
