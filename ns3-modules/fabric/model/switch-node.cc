#include "switch-node.h"

#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchNode");
NS_OBJECT_ENSURE_REGISTERED(SwitchNode);

TypeId
SwitchNode::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SwitchNode")
                            .SetParent<Node>()
                            .SetGroupName("Fabric")
                            .AddConstructor<SwitchNode>()
                            .AddAttribute("ForwardingLatency",
                                          "Time from a frame's arrival to its admission at the "
                                          "egress queue (Time).",
                                          TimeValue(Time(0)),
                                          MakeTimeAccessor(&SwitchNode::m_latency),
                                          MakeTimeChecker(Time(0)));
    return tid;
}

SwitchNode::SwitchNode() = default;

void
SwitchNode::DoDispose()
{
    m_ports.clear();
    m_lb = nullptr;
    Node::DoDispose();
}

uint16_t
SwitchNode::AddPort(Ptr<SwitchPort> port)
{
    const auto index = static_cast<uint16_t>(m_ports.size());
    m_ports.push_back(port);
    AddDevice(port);
    port->SetSwitch(this, index);
    m_scratch.resize(m_ports.size());
    return index;
}

void
SwitchNode::SetForwardingTable(const std::vector<std::vector<uint16_t>>& ports)
{
    m_routeOffset.assign(ports.size() + 1, 0);
    m_routePorts.clear();
    for (size_t h = 0; h < ports.size(); ++h)
    {
        m_routeOffset[h] = static_cast<uint32_t>(m_routePorts.size());
        m_routePorts.insert(m_routePorts.end(), ports[h].begin(), ports[h].end());
    }
    m_routeOffset[ports.size()] = static_cast<uint32_t>(m_routePorts.size());
}

const uint16_t*
SwitchNode::GetRoute(uint32_t host, uint32_t& count) const
{
    if (host + 1 >= m_routeOffset.size())
    {
        count = 0;
        return nullptr;
    }
    count = m_routeOffset[host + 1] - m_routeOffset[host];
    return m_routePorts.data() + m_routeOffset[host];
}

void
SwitchNode::ReceiveFromPort(uint16_t inPort, Ptr<Packet> packet, const FrameMeta& meta)
{
    uint32_t count = 0;
    const uint16_t* route = GetRoute(meta.dstHost, count);
    if (count == 0)
    {
        m_ports[inPort]->RecordDrop(packet, meta, DropReason::NO_ROUTE);
        return;
    }
    const Time now = Simulator::Now();
    uint32_t usable = 0;
    for (uint32_t i = 0; i < count; ++i)
    {
        const Ptr<SwitchPort>& port = m_ports[route[i]];
        if (!port->IsLinkUp())
        {
            continue;
        }
        EgressCandidate& c = m_scratch[usable++];
        c.port = route[i];
        c.queueBytes = port->GetQueueBytes();
        c.utilisation = port->GetUtilisation(now);
        c.paused = false;
        c.linkUp = true;
    }
    if (usable == 0)
    {
        m_ports[route[0]]->RecordDrop(packet, meta, DropReason::LINK_DOWN);
        return;
    }
    LbContext ctx;
    ctx.now = now;
    ctx.switchId = m_switchId;
    ctx.ingressPort = inPort;
    ctx.frameBytes = packet->GetSize();
    const uint16_t outPort = m_scratch[m_lb->SelectEgress(ctx, meta, m_scratch.data(), usable)].port;
    if (m_latency.IsZero())
    {
        Admit(outPort, packet, meta);
    }
    else
    {
        ++m_inPipeline;
        Simulator::Schedule(m_latency, [this, outPort, packet, meta]() {
            --m_inPipeline;
            Admit(outPort, packet, meta);
        });
    }
}

void
SwitchNode::Admit(uint16_t outPort, Ptr<Packet> packet, FrameMeta meta)
{
    const Ptr<SwitchPort>& port = m_ports[outPort];
    if (!port->Enqueue(packet, meta))
    {
        port->RecordDrop(packet, meta, DropReason::BUFFER_OVERFLOW);
    }
}

} // namespace ns3
