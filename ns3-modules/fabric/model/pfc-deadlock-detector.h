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

#include <string>
#include <vector>

namespace ns3
{

/**
 * \brief Periodically builds the wait-for graph of stuck egress queues and reports a cycle.
 *
 * A queue (switch s, egress port e, priority p) is *stuck* when the peer behind e has paused
 * p on e continuously (no XON, no expiry, no PFC-watchdog storm: refreshes only, see
 * FabricNetDevice::GetStuckSince) for at least `Threshold`, and the queue holds frames. Its head frame can only leave through the
 * peer switch d, and there only through the egress ports d's forwarding table gives for the
 * frame's destination. The stuck queue waits for (d, e', p) for each such port e' when every
 * one of them is stuck too (with a port left free, the frame has a way on). A cycle of such
 * edges is a PFC deadlock: a cyclic buffer dependency in which nothing has moved for
 * `Threshold`, and refreshed pauses never expire (Hu et al., "Deadlocks in Datacenter Networks:
 * Why Do They Form, and How to Avoid Them", HotNets 2016, section 2).
 *
 * Two neighbours pausing each other is not a cycle by itself: on a leaf-spine with
 * shortest-path routing a leaf's uplink queue holds frames for other leaves and the spine's
 * downlink queue frames for the leaf's hosts, so neither waits for the other.
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
    /** Start periodic checks (every Threshold / 4): a deadlock is reported after between
     *  Threshold and 1.25 Threshold of its queues being stuck. */
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
    Callback<void, std::string> m_cb;
    EventId m_event;
    bool m_reported = false;
};

} // namespace ns3

#endif
