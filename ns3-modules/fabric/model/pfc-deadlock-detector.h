/*
 * tusk: PfcDeadlockDetector, finds cyclic buffer dependencies that keep PFC-paused queues
 * stuck (Hu et al., "Deadlocks in Datacenter Networks: Why Do They Form, and How to Avoid
 * Them", HotNets 2016).
 */
#ifndef TUSK_PFC_DEADLOCK_DETECTOR_H
#define TUSK_PFC_DEADLOCK_DETECTOR_H

#include "switch-node.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/object.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \brief Periodically builds the wait-for graph of blocked egress queues and reports a cycle.
 *
 * A queue (switch s, egress port e, priority p) is *blocked* when e is paused for p by its
 * peer and holds frames of p. It waits for the peer switch d: for every blocked queue
 * (d, e', p). A cycle of queues each blocked continuously for at least `Threshold` is a PFC
 * deadlock: nothing in it can move until a pause expires, and refreshed pauses never expire.
 * (A blocked queue of d that holds no frames from s makes the edge conservative; the
 * persistence requirement keeps transient pauses from being reported.)
 */
class PfcDeadlockDetector : public Object
{
  public:
    static TypeId GetTypeId();

    /**
     * \param switches every switch of the fabric
     * \param names display name of each switch (same order)
     */
    void Install(const std::vector<Ptr<SwitchNode>>& switches, const std::vector<std::string>& names);
    /** Called once with a description of the cycle when a deadlock is found. */
    void SetDeadlockCallback(Callback<void, std::string> cb) { m_cb = cb; }
    /** Start periodic checks (every Threshold / 4). */
    void Start();
    /** One check now; returns the cycle description or "". */
    std::string Check();

  protected:
    void DoDispose() override;

  private:
    void Periodic();

    Time m_threshold;
    std::vector<Ptr<SwitchNode>> m_switches;
    std::vector<std::string> m_names;
    std::map<std::tuple<uint32_t, uint16_t, uint8_t>, Time> m_blockedSince;
    Callback<void, std::string> m_cb;
    EventId m_event;
    bool m_reported = false;
};

} // namespace ns3

#endif
