/*
 * tusk: an event a model object owns and schedules again and again, without an allocation.
 */
#ifndef TUSK_MEMBER_EVENT_H
#define TUSK_MEMBER_EVENT_H

#include "ns3/event-impl.h"

namespace ns3
{

/**
 * \brief An EventImpl that calls `(obj->*Method)()`, kept by its owner and scheduled over and
 * over with Simulator::Schedule(delay, Ptr<EventImpl>).
 *
 * ns-3's Simulator::Schedule(delay, &T::Method, obj) allocates an EventImpl per call and frees
 * it after it ran: twice per frame and hop on the forwarding path. A port has at most one
 * end-of-serialisation pending (htsim's discipline: an event source with at most one pending
 * event), so it keeps one of these. The simulator holds a reference while the event is
 * pending and drops it after Invoke; the owner's reference keeps the object. The (time, uid)
 * keys the scheduler sees are those a fresh event would get, so results do not change.
 *
 * Never cancel it through an EventId: an EventImpl's cancel flag cannot be cleared. Owners
 * call Clear() when disposed, after which a pending invocation does nothing.
 */
template <typename T, void (T::*Method)()>
class MemberEvent : public EventImpl
{
  public:
    explicit MemberEvent(T* owner)
        : m_owner(owner)
    {
    }

    /** The owner is going away: a pending invocation does nothing. */
    void Clear() { m_owner = nullptr; }

  private:
    void Notify() override
    {
        if (m_owner)
        {
            (m_owner->*Method)();
        }
    }

    T* m_owner;
};

} // namespace ns3

#endif
