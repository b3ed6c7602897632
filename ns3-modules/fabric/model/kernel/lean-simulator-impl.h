/*
 * tusk: LeanSimulatorImpl, a single-threaded ns-3 simulator kernel without per-event overhead.
 */
#ifndef TUSK_LEAN_SIMULATOR_IMPL_H
#define TUSK_LEAN_SIMULATOR_IMPL_H

#include "ns3/event-id.h"
#include "ns3/ptr.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"

#include <cstdint>
#include <deque>
#include <unordered_map>

namespace ns3
{

class TimingWheelScheduler;

/**
 * \brief An ns-3 simulator implementation (ns3::SimulatorImpl, chosen with ns-3's global value
 * `SimulatorImplementationType=ns3::LeanSimulatorImpl` or tusk's `simulator.kernel = "lean"`)
 * for a single-threaded simulation: the same semantics as ns-3's DefaultSimulatorImpl
 * (events in time order, events of one time in the order they were scheduled; Cancel marks an
 * event so that it does not run, Remove takes it out of the event set; destroy events run at
 * Simulator::Destroy in the order they were scheduled; the context of an event is the one it
 * was scheduled with, the caller's for Schedule and ScheduleNow), without its per-event costs:
 * no logging checks compiled into Schedule and the event loop, no EventId built per executed
 * event for the pre-event hook, no thread-identity test and mutex-protected list per
 * ScheduleWithContext, no Time arithmetic (time stamps are added as integers).
 *
 * Single-threaded: every call must come from the thread that calls Run (ns-3's default kernel
 * also queues ScheduleWithContext from other threads; tusk has no other threads). When the
 * scheduler is tusk's TimingWheelScheduler, the loop calls it directly instead of through
 * ns3::Scheduler's virtual functions. Simulator::Run returns when no event is left or at Stop.
 */
class LeanSimulatorImpl : public SimulatorImpl
{
  public:
    static TypeId GetTypeId();
    LeanSimulatorImpl();
    ~LeanSimulatorImpl() override;

    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    void Stop(const Time& delay) override;
    EventId Schedule(const Time& delay, EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override;
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override;
    uint32_t GetContext() const override;
    uint64_t GetEventCount() const override;
    /** Events scheduled so far (Schedule, ScheduleWithContext, ScheduleNow; not
     *  ScheduleDestroy). Two equal readings mean nothing was scheduled in between: fast
     *  mode's replay agenda (workload/model/replay-agenda.h) relies on it to keep the order
     *  of events at one time. */
    uint64_t GetScheduledCount() const { return m_scheduled; }
    /**
     * \brief Move the pending event `id` `ps` earlier, keeping its uid (so that among events
     * of its new time it keeps its place by when it was scheduled); an EventId of it still
     * held elsewhere stays valid (IsExpired, Cancel, Remove and GetDelayLeft know the move).
     * Nothing when `id` has expired. Aborts when the new time is before now. RunClock::Skip
     * uses it for the events a scenario gave a time.
     */
    void MoveEarlier(const EventId& id, uint64_t ps);

  private:
    void DoDispose() override;
    /** Put an event into the event set at absolute time step `ts`; returns its uid. */
    uint32_t Insert(uint64_t ts, uint32_t context, EventImpl* event);
    /** `id`'s time step now: its EventId's, less what MoveEarlier moved it by. */
    uint64_t TsOf(const EventId& id) const
    {
        if (m_moved.empty())
        {
            return id.GetTs();
        }
        const auto it = m_moved.find(id.GetUid());
        return it == m_moved.end() ? id.GetTs() : id.GetTs() - it->second;
    }
    /** `id`'s pending event as the scheduler holds it (its time step TsOf). */
    Scheduler::Event EventOf(const EventId& id) const
    {
        Scheduler::Event ev;
        ev.impl = id.PeekEventImpl();
        ev.key.m_ts = TsOf(id);
        ev.key.m_context = id.GetContext();
        ev.key.m_uid = id.GetUid();
        return ev;
    }
    /** The event Stop(delay) schedules. */
    void StopNow();

    Ptr<Scheduler> m_events;
    /** m_events when it is a TimingWheelScheduler (called without virtual dispatch). */
    TimingWheelScheduler* m_wheel = nullptr;
    std::deque<EventId> m_destroyEvents; //!< ScheduleDestroy's, in order
    bool m_stop = false;
    uint32_t m_uid = EventId::UID::VALID;      //!< the next event's uid
    uint32_t m_currentUid = 0;                 //!< uid of the event running (or last run)
    uint64_t m_currentTs = 0;                  //!< time step of the event running
    uint32_t m_currentContext = 0xffffffff;    //!< Simulator::NO_CONTEXT
    uint64_t m_eventCount = 0;                 //!< events executed
    uint64_t m_pending = 0;                    //!< events in m_events
    uint64_t m_scheduled = 0;                  //!< events inserted so far (GetScheduledCount)
    /** Events MoveEarlier moved: uid -> time steps moved (empty without steady jumps). */
    std::unordered_map<uint32_t, uint64_t> m_moved;
};

} // namespace ns3

#endif
