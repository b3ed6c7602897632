/*
 * tusk: SwitchNode, a packet switch of the fabric (no IP stack).
 */
#ifndef TUSK_SWITCH_NODE_H
#define TUSK_SWITCH_NODE_H

#include "load-balancer.h"
#include "switch-port.h"

#include "ns3/node.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief An output-queued switch.
 *
 * A frame arriving on a port is looked up in the forwarding table (destination host ->
 * equal-cost egress ports, filled by the fabric builder from the topology), the LoadBalancer
 * picks one port among the usable candidates, and the frame is admitted to that port's
 * egress queue after the forwarding latency. Ports whose link is down are pruned from the
 * candidates (as a switch removes a dead next hop from its ECMP group); with none left the
 * frame is dropped (LINK_DOWN). The lookup is two array reads; no allocation per frame.
 */
class SwitchNode : public Node
{
  public:
    static TypeId GetTypeId();
    SwitchNode();

    /** Add a port; returns its index. */
    uint16_t AddPort(Ptr<SwitchPort> port);
    Ptr<SwitchPort> GetPort(uint16_t index) const { return m_ports[index]; }
    uint16_t GetNPorts() const { return static_cast<uint16_t>(m_ports.size()); }

    /** The switch's index in the fabric (0-based over switches), for policies and outputs. */
    void SetSwitchId(uint32_t id) { m_switchId = id; }
    uint32_t GetSwitchId() const { return m_switchId; }

    void SetLoadBalancer(Ptr<LoadBalancer> lb) { m_lb = lb; }
    Ptr<LoadBalancer> GetLoadBalancer() const { return m_lb; }

    /**
     * \brief Install the forwarding table: ports[h] = equal-cost egress ports towards host h.
     */
    void SetForwardingTable(const std::vector<std::vector<uint16_t>>& ports);
    /** Equal-cost ports towards host h (pointer into the table, count in `count`). */
    const uint16_t* GetRoute(uint32_t host, uint32_t& count) const;

    /** Called by a port when a frame has arrived. */
    void ReceiveFromPort(uint16_t inPort, Ptr<Packet> packet, const FrameMeta& meta);

    /** Frames between ingress and egress admission (in the forwarding latency). */
    uint64_t GetFramesInPipeline() const { return m_inPipeline; }

  protected:
    void DoDispose() override;

  private:
    void Admit(uint16_t outPort, Ptr<Packet> packet, FrameMeta meta);

    uint32_t m_switchId = 0;
    Time m_latency;
    std::vector<Ptr<SwitchPort>> m_ports;
    Ptr<LoadBalancer> m_lb;
    std::vector<uint32_t> m_routeOffset; //!< host h's ports are m_routePorts[off[h], off[h+1])
    std::vector<uint16_t> m_routePorts;
    std::vector<EgressCandidate> m_scratch;
    uint64_t m_inPipeline = 0;
};

} // namespace ns3

#endif
