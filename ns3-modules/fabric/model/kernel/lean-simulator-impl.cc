/*
 * tusk: LeanSimulatorImpl (see the header).
 */
#include "lean-simulator-impl.h"

#include "run-clock.h"

#include "timing-wheel-scheduler.h"

#include "ns3/abort.h"
#include "ns3/event-impl.h"
#include "ns3/make-event.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <vector>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeanSimulatorImpl);

TypeId
LeanSimulatorImpl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LeanSimulatorImpl")
                            .SetParent<SimulatorImpl>()
                            .SetGroupName("Fabric")
                            .AddConstructor<LeanSimulatorImpl>();
    return tid;
}

LeanSimulatorImpl::LeanSimulatorImpl() = default;

LeanSimulatorImpl::~LeanSimulatorImpl() = default;

void
LeanSimulatorImpl::DoDispose()
{
    // Events never run hold the scheduler's reference: drop it.
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            m_events->RemoveNext().impl->Unref();
        }
    }
    m_pending = 0;
    m_wheel = nullptr;
    m_events = nullptr;
    SimulatorImpl::DoDispose();
}

void
LeanSimulatorImpl::Destroy()
{
    while (!m_destroyEvents.empty())
    {
        const Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
        m_destroyEvents.pop_front();
        if (!ev->IsCancelled())
        {
            ev->Invoke();
        }
    }
}

void
LeanSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    const Ptr<Scheduler> scheduler = schedulerFactory.Create<Scheduler>();
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            scheduler->Insert(m_events->RemoveNext());
        }
    }
    m_events = scheduler;
    m_wheel = dynamic_cast<TimingWheelScheduler*>(PeekPointer(m_events));
}

uint32_t
LeanSimulatorImpl::Insert(uint64_t ts, uint32_t context, EventImpl* event)
{
    Scheduler::Event ev;
    ev.impl = event;
    ev.key.m_ts = ts;
    ev.key.m_context = context;
    ev.key.m_uid = m_uid++;
    ++m_pending;
    ++m_scheduled;
    if (m_wheel)
    {
        m_wheel->TimingWheelScheduler::Insert(ev);
    }
    else
    {
        m_events->Insert(ev);
    }
    return ev.key.m_uid;
}

EventId
LeanSimulatorImpl::Schedule(const Time& delay, EventImpl* event)
{
    const int64_t steps = delay.GetTimeStep();
    NS_ABORT_MSG_IF(steps < 0, "LeanSimulatorImpl: an event scheduled in the past (delay "
                                   << steps << " time steps)");
    const uint64_t ts = m_currentTs + static_cast<uint64_t>(steps);
    const uint32_t uid = Insert(ts, m_currentContext, event);
    // The EventId's reference (the scheduler holds the one the event was created with).
    event->Ref();
    return EventId(Ptr<EventImpl>(event, false), ts, m_currentContext, uid);
}

void
LeanSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    const int64_t steps = delay.GetTimeStep();
    NS_ABORT_MSG_IF(steps < 0, "LeanSimulatorImpl: an event scheduled in the past (delay "
                                   << steps << " time steps)");
    Insert(m_currentTs + static_cast<uint64_t>(steps), context, event);
}

EventId
LeanSimulatorImpl::ScheduleNow(EventImpl* event)
{
    const uint32_t uid = Insert(m_currentTs, m_currentContext, event);
    event->Ref();
    return EventId(Ptr<EventImpl>(event, false), m_currentTs, m_currentContext, uid);
}

EventId
LeanSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
    // The EventId keeps the event's only reference (the one it was created with).
    EventId id(Ptr<EventImpl>(event, false), m_currentTs, 0xffffffff, EventId::UID::DESTROY);
    m_destroyEvents.push_back(id);
    ++m_uid;
    return id;
}

void
LeanSimulatorImpl::Run()
{
    m_stop = false;
    // The loop (one virtual call per event at most: the scheduler's when it is not the wheel).
    while (!m_stop && m_pending > 0)
    {
        const Scheduler::Event next =
            m_wheel ? m_wheel->TimingWheelScheduler::RemoveNext() : m_events->RemoveNext();
        --m_pending;
        ++m_eventCount;
        m_currentTs = next.key.m_ts;
        m_currentContext = next.key.m_context;
        m_currentUid = next.key.m_uid;
        next.impl->Invoke();
        next.impl->Unref();
    }
}

bool
LeanSimulatorImpl::IsFinished() const
{
    return m_stop || m_pending == 0;
}

void
LeanSimulatorImpl::Stop()
{
    m_stop = true;
}

void
LeanSimulatorImpl::StopNow()
{
    m_stop = true;
}

void
LeanSimulatorImpl::Stop(const Time& delay)
{
    // The stop time is a time the scenario gave: steady-state jumps move it earlier.
    RunClock::NoteAbsolute(Schedule(delay, MakeEvent(&LeanSimulatorImpl::StopNow, this)));
}

bool
LeanSimulatorImpl::IsExpired(const EventId& id) const
{
    EventImpl* impl = id.PeekEventImpl();
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        if (impl == nullptr || impl->IsCancelled())
        {
            return true;
        }
        for (const EventId& d : m_destroyEvents)
        {
            if (d == id)
            {
                return false;
            }
        }
        return true;
    }
    // Ran already (its time passed, or it is this time's and its uid is not after the current
    // event's), or cancelled.
    const uint64_t ts = TsOf(id);
    return impl == nullptr || ts < m_currentTs ||
           (ts == m_currentTs && id.GetUid() <= m_currentUid) || impl->IsCancelled();
}

void
LeanSimulatorImpl::Remove(const EventId& id)
{
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        for (auto it = m_destroyEvents.begin(); it != m_destroyEvents.end(); ++it)
        {
            if (*it == id)
            {
                m_destroyEvents.erase(it);
                break;
            }
        }
        return;
    }
    if (IsExpired(id))
    {
        return;
    }
    Scheduler::Event ev = EventOf(id);
    m_events->Remove(ev);
    --m_pending;
    m_moved.erase(id.GetUid());
    ev.impl->Cancel(); // an EventId still held reports it expired
    ev.impl->Unref();  // the scheduler's reference
}

void
LeanSimulatorImpl::Cancel(const EventId& id)
{
    if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel();
    }
}

void
LeanSimulatorImpl::MoveEarlier(const EventId& id, uint64_t ps)
{
    if (ps == 0 || id.GetUid() == EventId::UID::DESTROY || IsExpired(id))
    {
        return;
    }
    Scheduler::Event ev = EventOf(id);
    NS_ABORT_MSG_IF(ev.key.m_ts < m_currentTs + ps,
                    "LeanSimulatorImpl::MoveEarlier: event " << id.GetUid() << " at time step "
                                                             << ev.key.m_ts << " moved " << ps
                                                             << " earlier would be before now ("
                                                             << m_currentTs << ")");
    m_events->Remove(ev);
    ev.key.m_ts -= ps;
    m_events->Insert(ev);
    m_moved[id.GetUid()] += ps;
}

Time
LeanSimulatorImpl::Now() const
{
    return TimeStep(m_currentTs);
}

Time
LeanSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    return IsExpired(id) ? TimeStep(0) : TimeStep(TsOf(id) - m_currentTs);
}

Time
LeanSimulatorImpl::GetMaximumSimulationTime() const
{
    return Time::Max();
}

uint32_t
LeanSimulatorImpl::GetSystemId() const
{
    return 0;
}

uint32_t
LeanSimulatorImpl::GetContext() const
{
    return m_currentContext;
}

uint64_t
LeanSimulatorImpl::GetEventCount() const
{
    return m_eventCount;
}

// ---- RunClock (run-clock.h) ------------------------------------------------------------------

namespace
{
/** The events noted absolute in this run, pending or not (pruned at each Skip). */
std::vector<EventId>&
AbsoluteEvents()
{
    static std::vector<EventId> events;
    return events;
}
} // namespace

bool RunClock::s_enabled = false;
uint64_t RunClock::s_skippedPs = 0;

void
RunClock::Enable(bool on)
{
    s_enabled = on;
    s_skippedPs = 0;
    AbsoluteEvents().clear();
}

uint64_t
RunClock::NowPs()
{
    return static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()) + s_skippedPs;
}

void
RunClock::NoteAbsolute(const EventId& id)
{
    if (!s_enabled)
    {
        return;
    }
    auto& events = AbsoluteEvents();
    events.push_back(id);
    // A run of many timed starts and no jump: drop the events that ran whenever the list has
    // doubled since the last time, so that it holds about the pending ones (amortised O(1)).
    static size_t pruneAt = 1024;
    if (events.size() >= pruneAt)
    {
        events.erase(std::remove_if(events.begin(), events.end(),
                                    [](const EventId& e) { return Simulator::IsExpired(e); }),
                     events.end());
        pruneAt = std::max<size_t>(1024, 2 * events.size());
    }
}

size_t
RunClock::AbsoluteTracked()
{
    return AbsoluteEvents().size();
}

void
RunClock::Skip(uint64_t ps)
{
    NS_ABORT_MSG_IF(!s_enabled, "RunClock::Skip: jumps are not enabled in this run");
    auto* kernel = dynamic_cast<LeanSimulatorImpl*>(PeekPointer(Simulator::GetImplementation()));
    NS_ABORT_MSG_IF(kernel == nullptr,
                    "RunClock::Skip: steady-state jumps need ns3::LeanSimulatorImpl");
    auto& events = AbsoluteEvents();
    size_t kept = 0;
    for (size_t i = 0; i < events.size(); ++i)
    {
        if (kernel->IsExpired(events[i]))
        {
            continue;
        }
        kernel->MoveEarlier(events[i], ps);
        events[kept++] = events[i];
    }
    events.resize(kept);
    s_skippedPs += ps;
}

} // namespace ns3
