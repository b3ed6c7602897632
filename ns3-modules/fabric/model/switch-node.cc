#include "switch-node.h"

#include "fabric-units.h"
#include "pfc-header.h"

#include "ns3/hash.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstring>
#include <optional>
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
                                          MakeTimeChecker(Time(0)))
                            .AddAttribute("PauseQuanta",
                                          "Pause time of an XOFF frame, in quanta of 512 bit "
                                          "times (IEEE 802.1Qbb); 65535 = 335.5 us at 100G.",
                                          UintegerValue(0xFFFF),
                                          MakeUintegerAccessor(&SwitchNode::m_pauseQuanta),
                                          MakeUintegerChecker<uint16_t>(1))
                            .AddAttribute("PauseRefresh",
                                          "Interval at which an XOFF in force is re-sent; 0 = "
                                          "half the pause time at the port's rate (Time).",
                                          TimeValue(Time(0)),
                                          MakeTimeAccessor(&SwitchNode::m_pauseRefresh),
                                          MakeTimeChecker(Time(0)))
                            .AddAttribute("TrimThresholdBytes",
                                          "Packet trimming (UEC-style): a data frame that would "
                                          "join an egress queue of its priority holding at "
                                          "least this many bytes is cut to TrimmedFrameBytes "
                                          "and forwarded on TrimPriority (bytes; 0 = off).",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&SwitchNode::m_trimThresholdBytes),
                                          MakeUintegerChecker<uint64_t>())
                            .AddAttribute("TrimmedFrameBytes",
                                          "Bytes of a trimmed frame that remain: its headers "
                                          "(Ethernet + IPv4 + UDP + BTH = 54) padded to the "
                                          "Ethernet minimum (bytes).",
                                          UintegerValue(64),
                                          MakeUintegerAccessor(&SwitchNode::m_trimmedFrameBytes),
                                          MakeUintegerChecker<uint32_t>(64, 1500))
                            .AddAttribute("TrimPriority",
                                          "Traffic class that trimmed headers are forwarded on "
                                          "(0..7; the control class by default).",
                                          UintegerValue(7),
                                          MakeUintegerAccessor(&SwitchNode::m_trimPriority),
                                          MakeUintegerChecker<uint8_t>(0, 7))
                            .AddTraceSource("Trim",
                                            "A data frame was trimmed to its headers: (packet "
                                            "after the cut, meta).",
                                            MakeTraceSourceAccessor(&SwitchNode::m_trimTrace),
                                            "ns3::SwitchNode::TrimTracedCallback");
    return tid;
}

SwitchNode::SwitchNode()
    : m_framePool(Create<SwitchPort::FramePool>())
{
}

void
SwitchNode::SetFramePool(Ptr<SwitchPort::FramePool> pool)
{
    m_framePool = pool;
    for (const auto& port : m_ports)
    {
        port->SetFramePool(pool);
    }
}

void
SwitchNode::DoDispose()
{
    m_ports.clear();
    m_framePool = nullptr; // the ports hold it until they are disposed
    m_lb = nullptr;
    m_mmu = nullptr;
    for (auto& e : m_refresh)
    {
        e.Cancel();
    }
    Node::DoDispose();
}

void
SwitchNode::SetLoadBalancer(Ptr<LoadBalancer> lb)
{
    m_lb = lb;
    m_candidateFields =
        lb ? lb->GetCandidateFields() : static_cast<uint8_t>(LoadBalancer::ALL_FIELDS);
    if (lb)
    {
        lb->SetSwitchCallbacks(MakeCallback(&SwitchNode::InjectFromPolicy, this),
                               MakeCallback(&SwitchNode::ReleaseFromPolicy, this));
    }
    m_scratch.assign(m_ports.size(), EgressCandidate{}); // unread fields keep their defaults
    for (const auto& port : m_ports)
    {
        port->SetDreEnabled(KeepsDre());
    }
}

uint16_t
SwitchNode::AddPort(Ptr<SwitchPort> port)
{
    const auto index = static_cast<uint16_t>(m_ports.size());
    m_ports.push_back(port);
    AddDevice(port);
    port->SetSwitch(this, index);
    port->SetDreEnabled(KeepsDre());
    m_scratch.resize(m_ports.size());
    return index;
}

void
SwitchNode::InjectFromPolicy(uint16_t inPort, Ptr<Packet> packet, const FrameMeta& meta)
{
    ++m_injected;
    ReceiveFromPort(inPort, packet, meta);
}

void
SwitchNode::ReleaseFromPolicy(uint16_t inPort, uint16_t outPort, Ptr<Packet> packet,
                              const FrameMeta& meta)
{
    NS_ASSERT_MSG(m_held > 0, "a policy released a frame it did not hold");
    --m_held;
    const uint8_t prio = meta.priority & 7;
    // Released for the egress queue it was charged to (else the MMU's counters and the
    // invariant check disagree: a counter here wraps below 0).
    m_heldBytes[static_cast<size_t>(outPort) * 8 + prio] -= packet->GetSize();
    if (!m_ports[outPort]->Enqueue(packet, meta, inPort))
    {
        m_mmu->Release(inPort, outPort, prio, packet->GetSize()); // dropped by the PFC watchdog
        CheckResume(inPort, prio);
    }
}

void
SwitchNode::SetForwardingTable(std::shared_ptr<const EqualCostTable> table, uint32_t row)
{
    m_routes = std::move(table);
    m_routeRow = row;
}

void
SwitchNode::SetEdgeInfo(std::shared_ptr<const std::vector<uint32_t>> hostEdge,
                        std::vector<uint8_t> portFacesHost)
{
    m_hostEdge = std::move(hostEdge);
    m_portFacesHost = std::move(portFacesHost);
}

LbContext
SwitchNode::MakeLbContext(uint16_t inPort, const FrameMeta& frame, Time now) const
{
    LbContext ctx;
    ctx.now = now;
    ctx.switchId = m_switchId;
    ctx.ingressPort = inPort;
    if (m_hostEdge)
    {
        ctx.fromHost = inPort < m_portFacesHost.size() && m_portFacesHost[inPort];
        const auto& edge = *m_hostEdge;
        ctx.srcEdge = frame.srcHost < edge.size() ? edge[frame.srcHost] : LbContext::kNoEdge;
        ctx.dstEdge = frame.dstHost < edge.size() ? edge[frame.dstHost] : LbContext::kNoEdge;
    }
    return ctx;
}

void
SwitchNode::ReceiveFromPort(uint16_t inPort, Ptr<Packet> packet, const FrameMeta& arrived)
{
    const PortSpan routeSpan = GetRoute(arrived.dstHost);
    const uint16_t* route = routeSpan.data();
    const uint32_t count = routeSpan.size();
    if (count == 0)
    {
        m_ports[inPort]->DropReceived(packet, arrived, DropReason::NO_ROUTE);
        return;
    }
    const Time now = Simulator::Now();
    LbContext ctx = MakeLbContext(inPort, arrived, now);
    ctx.frameBytes = packet->GetSize();
    // Policies with frame hooks may rewrite fabric-internal fields: they get a copy; the
    // others read the frame as it arrived (a copy is ~30 instructions per hop).
    std::optional<FrameMeta> hooked;
    const bool probe = arrived.kind == FrameKind::PROBE; // hashed, never the policy's
    if (m_lb->HasFrameHooks() && !probe)
    {
        hooked.emplace(arrived);
        m_lb->FrameArrived(ctx, *hooked);
        if (m_lb->ConsumeFrame(ctx, *hooked))
        {
            ++m_consumed;
            return;
        }
    }
    const FrameMeta& meta = hooked ? *hooked : arrived;
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
        c.linkUp = true;
        if (m_candidateFields == 0)
        {
            continue;
        }
        if (m_candidateFields & LoadBalancer::QUEUE_BYTES)
        {
            c.queueBytes = port->GetBacklogBytes();
        }
        if (m_candidateFields & LoadBalancer::UTILISATION)
        {
            c.utilisation = port->GetUtilisation(now);
        }
        if (m_candidateFields & LoadBalancer::PAUSED)
        {
            c.paused = port->IsPaused(meta.priority & 7); // PFC state of the frame's priority
        }
    }
    if (usable == 0)
    {
        m_ports[route[0]]->RecordDrop(packet, meta, DropReason::LINK_DOWN);
        if (m_creditFc)
        {
            m_ports[inPort]->ReturnCredit(meta.priority & 7, packet->GetSize());
        }
        return;
    }
    const EgressCandidate& chosen =
        m_scratch[probe ? ProbeEgressIndex(m_switchId, meta, usable)
                        : m_lb->SelectEgress(ctx, meta, m_scratch.data(), usable)];
    if (hooked)
    {
        m_lb->FrameLeaving(ctx, *hooked, chosen);
    }
    const uint16_t outPort = chosen.port;
    if (m_latency.IsZero())
    {
        Admit(inPort, outPort, packet, meta);
    }
    else
    {
        ++m_inPipeline;
        Simulator::Schedule(m_latency, [this, inPort, outPort, packet, meta]() {
            --m_inPipeline;
            Admit(inPort, outPort, packet, meta);
        });
    }
}

bool
SwitchNode::ProbeEgress(uint16_t inPort, const FrameMeta& probe, uint16_t& outPort) const
{
    const PortSpan routeSpan = GetRoute(probe.dstHost);
    if (!m_lb || routeSpan.size() == 0)
    {
        return false;
    }
    // As ReceiveFromPort: the context the policy would see, the ports whose link is up. The
    // policies that answer read none of the candidates' queue state.
    const LbContext ctx = MakeLbContext(inPort, probe, Simulator::Now());
    std::vector<EgressCandidate> usable;
    usable.reserve(routeSpan.size());
    for (uint32_t i = 0; i < routeSpan.size(); ++i)
    {
        if (m_ports[routeSpan.data()[i]]->IsLinkUp())
        {
            EgressCandidate c;
            c.port = routeSpan.data()[i];
            usable.push_back(c);
        }
    }
    uint32_t index = 0;
    if (usable.empty())
    {
        return false;
    }
    if (probe.kind == FrameKind::PROBE)
    {
        index = ProbeEgressIndex(m_switchId, probe, static_cast<uint32_t>(usable.size()));
    }
    else if (!m_lb->ProbeEgress(ctx, probe, usable.data(), static_cast<uint32_t>(usable.size()),
                                index))
    {
        return false;
    }
    outPort = usable[index].port;
    return true;
}

uint32_t
SwitchNode::ProbeEgressIndex(uint32_t switchId, const FrameMeta& probe, uint32_t count)
{
    if (count <= 1)
    {
        return 0;
    }
    char key[4 + 4 + 4 + 2 + 2];
    const uint32_t src = HostAddressBits(probe.srcHost);
    const uint32_t dst = HostAddressBits(probe.dstHost);
    std::memcpy(key, &switchId, 4);
    std::memcpy(key + 4, &src, 4);
    std::memcpy(key + 8, &dst, 4);
    std::memcpy(key + 12, &probe.srcPort, 2);
    std::memcpy(key + 14, &probe.dstPort, 2);
    return Hash32(key, sizeof(key)) % count;
}

void
SwitchNode::FinishPorts()
{
    m_xoff.assign(m_ports.size() * 8, false);
    m_heldBytes.assign(m_ports.size() * 8, 0);
    const uint8_t bits = PathHopBits(static_cast<uint32_t>(m_ports.size()));
    for (auto& port : m_ports)
    {
        port->SetPathHopBits(bits);
    }
}

void
SwitchNode::EnableCreditFlowControl()
{
    NS_ABORT_MSG_IF(m_lb && m_lb->HasFrameHooks(),
                    "SwitchNode: the load balancer holds, injects or consumes frames (frame "
                    "hooks), which credit flow control does not account for");
    NS_ABORT_MSG_IF(m_trimThresholdBytes != 0,
                    "SwitchNode: trimming changes a frame's size, and so its credits");
    m_creditFc = true;
}

void
SwitchNode::Admit(uint16_t inPort, uint16_t outPort, Ptr<Packet> packet, const FrameMeta& meta)
{
    if (m_trimThresholdBytes != 0 && meta.kind == FrameKind::DATA && !meta.trimmed &&
        packet->GetSize() > m_trimmedFrameBytes &&
        m_ports[outPort]->GetQueueBytes(meta.priority & 7) >= m_trimThresholdBytes)
    {
        // Cut the payload (and trailers) off, keep the headers, jump the queue.
        // A frame's Packet only has its size and may be shared (frame-meta.h): replace it.
        FrameMeta cut = meta;
        cut.trimmed = true;
        cut.priority = m_trimPriority;
        ++m_trimmedFrames;
        packet = Create<Packet>(m_trimmedFrameBytes);
        m_trimTrace(packet, cut);
        AdmitToQueue(inPort, outPort, packet, cut);
        return;
    }
    AdmitToQueue(inPort, outPort, packet, meta);
}

void
SwitchNode::AdmitToQueue(uint16_t inPort,
                         uint16_t outPort,
                         const Ptr<Packet>& packet,
                         const FrameMeta& meta)
{
    const Ptr<SwitchPort>& port = m_ports[outPort];
    const uint32_t bytes = packet->GetSize();
    const uint8_t prio = meta.priority & 7;
    if (m_creditFc)
    {
        // InfiniBand: the frame already holds its ingress VL's credits; no admission check.
        if (!port->Enqueue(packet, meta, inPort))
        {
            m_ports[inPort]->ReturnCredit(prio, bytes); // a dead port's frame
        }
        return;
    }
    switch (m_mmu->Admit(inPort, outPort, prio, bytes))
    {
    case SharedBufferMmu::DROP_HEADROOM:
        m_ports[inPort]->RecordDrop(packet, meta, DropReason::INGRESS_HEADROOM);
        return;
    case SharedBufferMmu::DROP_EGRESS:
        port->RecordDrop(packet, meta, DropReason::EGRESS_THRESHOLD);
        return;
    default:
        break;
    }
    if (!m_lb->HasFrameHooks())
    {
        if (!port->Enqueue(packet, meta, inPort))
        {
            m_mmu->Release(inPort, outPort, prio, bytes); // dropped: PFC watchdog or a dead port
        }
    }
    else
    {
        // A frame the policy keeps (a reorder queue) stays charged to the buffer; counted
        // before the call, since the policy may give frames back (ReleaseFromPolicy) from
        // within it. The policy may rewrite its copy of the frame.
        FrameMeta frame = meta;
        ++m_held;
        uint64_t& held = m_heldBytes[static_cast<size_t>(outPort) * 8 + prio];
        held += bytes;
        if (!m_lb->HoldFrame(Simulator::Now(), inPort, outPort, packet, frame))
        {
            --m_held;
            held -= bytes;
            if (!port->Enqueue(packet, frame, inPort))
            {
                m_mmu->Release(inPort, outPort, prio, bytes); // dropped: watchdog or dead port
            }
        }
    }
    if (!m_xoff[static_cast<size_t>(inPort) * 8 + prio] && m_mmu->ShouldPause(inPort, prio))
    {
        SendXoff(inPort, prio);
    }
}

void
SwitchNode::OnDequeue(uint16_t outPort, uint16_t inPort, uint8_t priority, uint32_t bytes)
{
    if (m_creditFc)
    {
        m_ports[inPort]->ReturnCredit(priority, bytes); // the input buffer's blocks are free
        return;
    }
    m_mmu->Release(inPort, outPort, priority, bytes);
    CheckResume(inPort, priority);
}

uint8_t
SwitchNode::PauseDepth(uint16_t ingressPort, uint8_t priority) const
{
    // The pause on `ingressPort` extends a chain only through the egress queues that hold the
    // frames it is about (frames that arrived on that port): their own received pause is what
    // keeps this ingress full. Pauses on other ports, and the neighbour's pause back to us for
    // traffic in the other direction, are not part of the chain.
    uint8_t deepest = 0;
    for (const auto& p : m_ports)
    {
        const uint8_t d = p->GetReceivedPauseDepth(priority);
        if (d > deepest && p->HoldsFrameFrom(priority, ingressPort))
        {
            deepest = d;
        }
    }
    return static_cast<uint8_t>(std::min(255, deepest + 1));
}

void
SwitchNode::SendXoff(uint16_t port, uint8_t priority)
{
    const size_t k = static_cast<size_t>(port) * 8 + priority;
    if (m_refresh.empty())
    {
        m_refresh.resize(m_ports.size() * 8); // at the switch's first XOFF, before m_xoff says so
    }
    m_xoff[k] = true;
    m_ports[port]->SendPfc(priority, m_pauseQuanta, PauseDepth(port, priority));
    Time refresh = m_pauseRefresh;
    if (refresh.IsZero())
    {
        refresh = PicoSeconds(SerializationPs(static_cast<uint64_t>(m_pauseQuanta) * kPfcQuantumBits / 8,
                                              m_ports[port]->GetRateBps()) /
                              2);
    }
    m_refresh[k].Cancel();
    m_refresh[k] = Simulator::Schedule(refresh, &SwitchNode::RefreshXoff, this, port, priority);
}

void
SwitchNode::RefreshXoff(uint16_t port, uint8_t priority)
{
    const size_t k = static_cast<size_t>(port) * 8 + priority;
    if (!m_xoff[k])
    {
        return;
    }
    if (m_mmu->ShouldResume(port, priority))
    {
        CheckResume(port, priority);
        return;
    }
    SendXoff(port, priority);
}

void
SwitchNode::CheckResume(uint16_t port, uint8_t priority)
{
    const size_t k = static_cast<size_t>(port) * 8 + priority;
    if (m_xoff[k] && m_mmu->ShouldResume(port, priority))
    {
        m_xoff[k] = false;
        m_refresh[k].Cancel();
        m_ports[port]->SendPfc(priority, 0, 0);
    }
}

} // namespace ns3
