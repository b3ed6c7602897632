/*
 * tusk: SwitchNode, a packet switch of the fabric (no IP stack).
 */
#ifndef TUSK_SWITCH_NODE_H
#define TUSK_SWITCH_NODE_H

#include "equal-cost-table.h"
#include "load-balancer.h"
#include "shared-buffer-mmu.h"
#include "switch-port.h"

#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \brief A shared-buffer, output-queued switch with PFC.
 *
 * A frame arriving on a port is looked up in the forwarding table (destination host ->
 * equal-cost egress ports, filled by the fabric builder from the topology), the LoadBalancer
 * picks one port among the usable candidates, and after the forwarding latency the switch's
 * SharedBufferMmu admits it (or drops it, with a named reason) into that port's egress queue.
 * Ports whose link is down are pruned from the candidates (as a switch removes a dead next
 * hop from its ECMP group); with none left the frame is dropped (LINK_DOWN).
 *
 * PFC (IEEE 802.1Qbb): when the MMU says an ingress priority group should pause, the switch
 * sends a PAUSE (XOFF, `PauseQuanta`) out of that ingress port and refreshes it every
 * `PauseRefresh` while the condition lasts; when the MMU says it may resume, an XON (quanta 0).
 * A pause's propagation depth is 1 + the deepest pause received by an egress queue holding
 * frames from the paused ingress (see PauseDepth).
 * The lookup is three array reads (EqualCostTable); no allocation per frame.
 */
class SwitchNode : public Node
{
  public:
    /** "Trim": a data frame was trimmed to its headers (after the cut). */
    typedef void (*TrimTracedCallback)(Ptr<const Packet> packet, const FrameMeta& meta);

    static TypeId GetTypeId();
    SwitchNode();

    /** Add a port; returns its index. The port's egress queues keep their frames in this
     *  switch's frame pool. */
    uint16_t AddPort(Ptr<SwitchPort> port);
    /**
     * \brief Keep the egress queues' frames in `pool`, shared with other switches (FabricHelper
     * gives every switch of a fabric one pool: memory for the most frames queued at once in the
     * fabric, not for each switch's deepest moment). Before any frame is queued. By default a
     * switch has a pool of its own.
     */
    void SetFramePool(Ptr<SwitchPort::FramePool> pool);
    Ptr<SwitchPort::FramePool> GetFramePool() const { return m_framePool; }
    Ptr<SwitchPort> GetPort(uint16_t index) const { return m_ports[index]; }
    uint16_t GetNPorts() const { return static_cast<uint16_t>(m_ports.size()); }

    /** The switch's index in the fabric (0-based over switches), for policies and outputs. */
    void SetSwitchId(uint32_t id) { m_switchId = id; }
    uint32_t GetSwitchId() const { return m_switchId; }

    /** The policy; the ports keep DRE estimates only if it reads them (GetCandidateFields).
     *  The policy also gets the switch's services (LoadBalancer::InjectFrame, ReleaseHeld),
     *  for policies that generate control frames or hold frames (ConWeave). */
    void SetLoadBalancer(Ptr<LoadBalancer> lb);
    Ptr<LoadBalancer> GetLoadBalancer() const { return m_lb; }

    /**
     * \brief Install the forwarding table: the fabric's table (shared by all switches) and
     * this switch's row in it; table->Ports(row, h) = equal-cost egress ports towards host h.
     */
    void SetForwardingTable(std::shared_ptr<const EqualCostTable> table, uint32_t row);
    /** Equal-cost ports towards host h (empty if none). */
    PortSpan GetRoute(uint32_t host) const
    {
        return m_routes ? m_routes->Ports(m_routeRow, host) : PortSpan();
    }

    /**
     * \brief Where hosts attach, for policies that reason about edge switches (CONGA keeps
     * congestion per destination leaf). \param hostEdge switch id of the edge switch of every
     * host (shared by all switches) \param portFacesHost one flag per port of this switch:
     * the port's peer is a host
     */
    void SetEdgeInfo(std::shared_ptr<const std::vector<uint32_t>> hostEdge,
                     std::vector<uint8_t> portFacesHost);

    /**
     * \brief Where a probe with `probe`'s headers arriving on `inPort` now would leave: the
     * forwarding table's equal-cost ports whose link is up, and the load balancer's choice
     * among them when it is a function of the headers (LoadBalancer::ProbeEgress). Changes
     * nothing. \return false with no route, no usable port, or a policy that cannot say
     */
    bool ProbeEgress(uint16_t inPort, const FrameMeta& probe, uint16_t& outPort) const;

    /**
     * \brief Which of `count` usable equal-cost ports a monitoring probe (FrameKind::PROBE)
     * leaves by at switch `switchId`: MurmurHash3 (ns-3's Hash32) of the switch id and the
     * probe's 5-tuple (IPv4 source and destination, UDP source and destination port), modulo
     * `count`. Operators keep probes in a hashed class whatever the data class's policy, so
     * that a probe's UDP source port pins its path and a traceroute with the same headers
     * finds it (R-Pingmesh, Liu et al., SIGCOMM 2024, section 4; 007, Arzani et al., NSDI
     * 2018). ReceiveFromPort and ProbeEgress both use it, so the two agree.
     */
    static uint32_t ProbeEgressIndex(uint32_t switchId, const FrameMeta& probe, uint32_t count);

    /** Called by a port when a frame has arrived. */
    void ReceiveFromPort(uint16_t inPort, Ptr<Packet> packet, const FrameMeta& meta);
    /** Called by a port when a frame left its egress queue: release its buffer, maybe XON. */
    void OnDequeue(uint16_t outPort, uint16_t inPort, uint8_t priority, uint32_t bytes);
    /**
     * Called by a port when a frame starts transmission (after OnDequeue): the load balancer's
     * egress-pipeline hook (LoadBalancer::FrameDeparting) may rewrite the frame's
     * fabric-internal fields. \param utilisation the port's DRE estimate now
     */
    void OnDeparture(uint16_t outPort, double utilisation, FrameMeta& meta)
    {
        m_lb->FrameDeparting(Simulator::Now(), outPort, utilisation, meta);
    }
    /** Whether the load balancer wants OnDeparture (its departure hook is on). */
    bool WantsDeparture() const { return m_lb && m_lb->HasDepartureHook(); }
    /** Whether the ports keep DRE estimates: the policy reads the candidates' utilisation
     *  or gets OnDeparture (which passes the DRE). */
    bool KeepsDre() const
    {
        return (m_candidateFields & LoadBalancer::UTILISATION) || WantsDeparture();
    }

    /** The buffer manager (created by the fabric builder, sized with SetPorts). */
    void SetMmu(Ptr<SharedBufferMmu> mmu) { m_mmu = mmu; }
    Ptr<SharedBufferMmu> GetMmu() const { return m_mmu; }
    /** Whether ingress (port, priority) is currently paused by this switch (XOFF sent). */
    bool IsPausingIngress(uint16_t port, uint8_t priority) const
    {
        return m_xoff[static_cast<size_t>(port) * 8 + priority];
    }
    /**
     * \brief Run as an InfiniBand switch (after FinishPorts and SetLoadBalancer): each port's
     * input buffer per VL is its credit pool (FabricNetDevice::EnableCreditFlowControl, which
     * the builder calls on every device), a frame holds its ingress port's credits until it
     * leaves the egress queue, and the shared-buffer MMU and PFC are not used: nothing is
     * admitted or dropped by buffer state. Aborts with a policy that holds, injects or
     * consumes frames (frame hooks) or with trimming, whose frames would not return their
     * credits exactly.
     */
    void EnableCreditFlowControl();
    bool UsesCredits() const { return m_creditFc; }
    /** Size per-port PFC state; called by the builder after all ports are added. */
    void FinishPorts();

    /** Frames between ingress and egress admission (in the forwarding latency). */
    uint64_t GetFramesInPipeline() const { return m_inPipeline; }
    /** Frames the load balancer generated (control frames, LoadBalancer::InjectFrame). */
    uint64_t GetFramesInjected() const { return m_injected; }
    /** Frames the load balancer consumed (control frames addressed to this switch). */
    uint64_t GetFramesConsumed() const { return m_consumed; }
    /** Frames the load balancer holds now (admitted to the buffer, not yet queued). */
    uint64_t GetFramesHeld() const { return m_held; }
    /**
     * Bytes the load balancer holds now for egress port `port`, priority `priority` (frames
     * the MMU charged to that egress queue that are in a reorder queue, not in the port's
     * queue). The MMU's egress counter of a queue is its queued bytes plus these.
     */
    uint64_t GetHeldBytes(uint16_t port, uint8_t priority) const
    {
        const size_t k = static_cast<size_t>(port) * 8 + (priority & 7);
        return k < m_heldBytes.size() ? m_heldBytes[k] : 0;
    }
    /** Data frames this switch trimmed (TrimThresholdBytes). */
    uint64_t GetTrimmedFrames() const { return m_trimmedFrames; }

  protected:
    void DoDispose() override;

  private:
    /** The context the load balancer sees for `frame` arriving on `inPort` at `now`
     *  (frameBytes left 0): one place for the forwarding path and ProbeEgress. */
    LbContext MakeLbContext(uint16_t inPort, const FrameMeta& frame, Time now) const;
    void Admit(uint16_t inPort, uint16_t outPort, Ptr<Packet> packet, const FrameMeta& meta);
    /** Admit's MMU check and enqueue of a frame as it will be queued (trimmed or not). */
    void AdmitToQueue(uint16_t inPort,
                      uint16_t outPort,
                      const Ptr<Packet>& packet,
                      const FrameMeta& meta);
    /** The load balancer generated a frame: forward it as if it arrived on inPort. */
    void InjectFromPolicy(uint16_t inPort, Ptr<Packet> packet, const FrameMeta& meta);
    /** The load balancer releases a held frame (already admitted by the MMU) to outPort. */
    void ReleaseFromPolicy(uint16_t inPort, uint16_t outPort, Ptr<Packet> packet,
                           const FrameMeta& meta);
    void SendXoff(uint16_t port, uint8_t priority);
    void RefreshXoff(uint16_t port, uint8_t priority);
    void CheckResume(uint16_t port, uint8_t priority);
    /** Depth of an XOFF sent on `ingressPort`: 1 + the deepest pause received by an egress
     *  queue that holds frames which arrived on `ingressPort` (so bounded by the length of the
     *  real chain of paused hops; on a loop-free fabric, by the path length). */
    uint8_t PauseDepth(uint16_t ingressPort, uint8_t priority) const;

    uint32_t m_switchId = 0;
    bool m_creditFc = false; //!< InfiniBand: credits per ingress port and VL, no MMU or PFC
    Time m_latency;
    std::vector<Ptr<SwitchPort>> m_ports;
    Ptr<SwitchPort::FramePool> m_framePool;
    Ptr<LoadBalancer> m_lb;
    uint8_t m_candidateFields = LoadBalancer::ALL_FIELDS; //!< m_lb->GetCandidateFields()
    std::shared_ptr<const EqualCostTable> m_routes; //!< the fabric's forwarding tables
    uint32_t m_routeRow = 0;                        //!< this switch's row in m_routes
    std::vector<EgressCandidate> m_scratch;
    std::shared_ptr<const std::vector<uint32_t>> m_hostEdge; //!< host -> its edge switch id
    std::vector<uint8_t> m_portFacesHost;
    uint64_t m_inPipeline = 0;
    uint64_t m_injected = 0;
    uint64_t m_consumed = 0;
    uint64_t m_held = 0;
    std::vector<uint64_t> m_heldBytes; //!< [port * 8 + priority]: bytes the policy holds
    uint64_t m_trimThresholdBytes = 0; //!< 0 = no trimming
    uint32_t m_trimmedFrameBytes = 64;
    uint8_t m_trimPriority = 7;
    uint64_t m_trimmedFrames = 0;
    TracedCallback<Ptr<const Packet>, const FrameMeta&> m_trimTrace;
    Ptr<SharedBufferMmu> m_mmu;
    uint16_t m_pauseQuanta = 0xFFFF;
    Time m_pauseRefresh;
    std::vector<bool> m_xoff;          //!< per (port, priority): XOFF in force
    std::vector<EventId> m_refresh;    //!< per (port, priority), from the switch's first XOFF
};

} // namespace ns3

#endif
