#include "switch-port.h"

#include "ib-credits.h"
#include "switch-node.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchPort");
NS_OBJECT_ENSURE_REGISTERED(SwitchPort);

TypeId
SwitchPort::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwitchPort")
            .SetParent<FabricNetDevice>()
            .SetGroupName("Fabric")
            .AddConstructor<SwitchPort>()
            .AddAttribute("DrePeriod",
                          "DRE decay period Tdre (Time): X <- X (1 - alpha) every Tdre.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&SwitchPort::SetDrePeriod, &SwitchPort::GetDrePeriod),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("DreAlpha",
                          "DRE decay factor alpha (dimensionless, 0 < alpha <= 1).",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&SwitchPort::SetDreAlpha, &SwitchPort::GetDreAlpha),
                          MakeDoubleChecker<double>(1e-6, 1.0))
            .AddAttribute("DreAtEnqueue",
                          "Count a frame's bytes in the DRE when it joins the egress queue (the "
                          "load offered to the link, which can exceed its rate while a queue "
                          "builds; the public ns-3 CONGA implementations do this) instead of "
                          "when it is transmitted (default: the CONGA paper's bytes sent over "
                          "the link, at most the line rate) (boolean).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SwitchPort::m_dreAtEnqueue),
                          MakeBooleanChecker())
            .AddAttribute("EcnMarking",
                          "CE-mark ECN-capable data frames at this egress, RED-style on the "
                          "instantaneous queue of the frame's priority (DCQCN's congestion "
                          "point, EcnMarkProbability) (boolean).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SwitchPort::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnKminBytes",
                          "ECN Kmin: no marking at or below this queue (bytes; DCQCN paper: "
                          "5 KB at 40G, the HPCC simulator: 100 KB at 100G).",
                          UintegerValue(100'000),
                          MakeUintegerAccessor(&SwitchPort::m_ecnKmin),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnKmaxBytes",
                          "ECN Kmax: marking probability rises linearly from 0 above Kmin to "
                          "EcnPmax at Kmax; every frame is marked above it (bytes).",
                          UintegerValue(400'000),
                          MakeUintegerAccessor(&SwitchPort::m_ecnKmax),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnPmax",
                          "ECN Pmax: the marking probability at Kmax (0..1).",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&SwitchPort::m_ecnPmax),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("EcnMarkAtDequeue",
                          "Decide the mark when the frame leaves the queue, on the bytes still "
                          "queued behind it (the HPCC simulator's switch, ShouldSendCN at "
                          "dequeue), instead of when it joins the queue: the mark then reaches "
                          "the receiver without waiting out the queue. InfiniBand's victim rule "
                          "(EcnVictimMask) applies only at enqueue: a frame leaving has had "
                          "its credits (boolean).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SwitchPort::m_ecnAtDequeue),
                          MakeBooleanChecker())
            .AddAttribute("EcnVictimMask",
                          "InfiniBand congestion control (IBA vol. 1, annex A10, the switch's "
                          "Victim_Mask bit for this port): whether the port marks FECN also "
                          "while it is only a victim of congestion further on (its VL lacks "
                          "the credits for its next frame). EndNodes: set on a port whose link "
                          "leads to a channel adapter, clear on a port to another switch (the "
                          "annex's recommendation); Set (or true): set; Clear (or false): "
                          "clear, only the root of congestion marks (OpenSM's default mask). "
                          "No effect without credit flow control.",
                          EnumValue(ib::VICTIM_MASK_END_NODES),
                          MakeEnumAccessor(&SwitchPort::m_ecnVictimMask),
                          MakeEnumChecker(ib::VICTIM_MASK_END_NODES,
                                          "EndNodes",
                                          ib::VICTIM_MASK_SET,
                                          "Set",
                                          ib::VICTIM_MASK_CLEAR,
                                          "Clear",
                                          ib::VICTIM_MASK_SET,
                                          "true",
                                          ib::VICTIM_MASK_CLEAR,
                                          "false"))
            .AddAttribute("EcnVictimHoldoff",
                          "InfiniBand congestion control: a VL that lacked the credits for "
                          "its next frame less than this long ago is still a victim of "
                          "congestion further on, though a credit update has just let it "
                          "send (Time). 0: one credit round trip of the port's link (twice "
                          "its delay plus the peer's CreditUpdateLatency), the time until a "
                          "credit update can tell that the congestion further on has gone; "
                          "1ps: only a VL without credits at that instant is a victim.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&SwitchPort::SetVictimHoldoff,
                                           &SwitchPort::GetVictimHoldoff),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("FecnSuppressed",
                            "A frame a victim port would have marked with FECN, left unmarked "
                            "because the port's Victim_Mask bit is clear (IBA annex A10): "
                            "(packet, VL, the VL's queue bytes it found).",
                            MakeTraceSourceAccessor(&SwitchPort::m_fecnSuppressedTrace),
                            "ns3::SwitchPort::FecnSuppressedTracedCallback")
            .AddAttribute("FlushOnLinkDown",
                          "When the port's link goes down, drop the frames queued at it and "
                          "every frame admitted to it while the link is down (LINK_DOWN), "
                          "releasing their buffer, as an ASIC flushes a dead port's queues; "
                          "false: they wait for the link to come back and hold their buffer, "
                          "so on a lossless class PFC pauses the upstream ports behind the "
                          "dead link (boolean).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SwitchPort::m_flushOnLinkDown),
                          MakeBooleanChecker());
    return tid;
}

SwitchPort::SwitchPort()
    : m_ecnRng(CreateObject<UniformRandomVariable>())
{
    m_starvedAtPs.fill(-1);
    SetHoldsReceivedFrames(true); // a frame holds its input-buffer credits until forwarded
}

double
EcnMarkProbability(uint64_t q, uint64_t kmin, uint64_t kmax, double pmax)
{
    if (q <= kmin)
    {
        return 0.0;
    }
    if (q > kmax)
    {
        return 1.0;
    }
    return pmax * static_cast<double>(q - kmin) / static_cast<double>(kmax - kmin);
}

void
SwitchPort::SetDrePeriod(Time period)
{
    m_drePeriod = period;
    m_drePeriodPs = static_cast<uint64_t>(period.GetPicoSeconds());
    m_dreTauS = m_drePeriod.GetSeconds() / m_dreAlpha;
}

Time
SwitchPort::GetDrePeriod() const
{
    return m_drePeriod;
}

void
SwitchPort::SetDreAlpha(double alpha)
{
    m_dreAlpha = alpha;
    m_dreTauS = m_drePeriod.GetSeconds() / m_dreAlpha;
}

double
SwitchPort::GetDreAlpha() const
{
    return m_dreAlpha;
}

Ptr<SwitchNode>
SwitchPort::GetSwitch() const
{
    return m_switch;
}

bool
SwitchPort::HoldsFrameFrom(uint8_t priority, uint16_t ingressPort) const
{
    return m_queues[priority].AnyOf(
        [ingressPort](const QueuedFrame& f) { return f.ingressPort == ingressPort; });
}

bool
SwitchPort::ShouldMarkEcn(uint64_t queueBytes)
{
    const double p = EcnMarkProbability(queueBytes, m_ecnKmin, m_ecnKmax, m_ecnPmax);
    return p >= 1.0 || (p > 0.0 && m_ecnRng->GetValue() < p);
}

void
SwitchPort::SetEcn(bool enabled, uint64_t kminBytes, uint64_t kmaxBytes, double pmax)
{
    m_ecnEnabled = enabled;
    m_ecnKmin = kminBytes;
    m_ecnKmax = kmaxBytes;
    m_ecnPmax = pmax;
}

bool
SwitchPort::IsCongestionVictim(uint8_t vl, uint32_t arrivingBytes) const
{
    if (!UsesCredits())
    {
        return false;
    }
    const auto& q = m_queues[vl];
    const uint32_t next = q.empty() ? arrivingBytes : q.front().packet->GetSize();
    if (ib::RoleOf(GetAvailableCredits(vl), ib::Blocks(next)) == ib::CongestionRole::VICTIM)
    {
        return true;
    }
    const int64_t starved = m_starvedAtPs[vl];
    return starved >= 0 && Simulator::Now().GetPicoSeconds() - starved < VictimHoldoffPs();
}

void
SwitchPort::SetVictimHoldoff(Time holdoff)
{
    m_victimHoldoff = holdoff;
    m_victimHoldoffPs = -1; // resolved again at the next use
}

Time
SwitchPort::GetVictimHoldoff() const
{
    return m_victimHoldoff;
}

int64_t
SwitchPort::VictimHoldoffPs() const
{
    if (m_victimHoldoffPs < 0)
    {
        m_victimHoldoffPs = m_victimHoldoff.GetPicoSeconds();
        const Ptr<FabricNetDevice> peer = GetPeerDevice();
        const Ptr<FabricChannel> channel = DynamicCast<FabricChannel>(GetChannel());
        if (m_victimHoldoffPs == 0 && peer && channel)
        {
            TimeValue latency;
            peer->GetAttribute("CreditUpdateLatency", latency);
            m_victimHoldoffPs = (channel->GetDelay() * 2 + latency.Get()).GetPicoSeconds();
        }
    }
    return m_victimHoldoffPs;
}

void
SwitchPort::NoteCreditStarved(uint8_t vl)
{
    m_starvedAtPs[vl] = Simulator::Now().GetPicoSeconds();
}

bool
SwitchPort::HasVictimMaskBit() const
{
    const Ptr<FabricNetDevice> peer = GetPeerDevice();
    const bool facesEndNode = peer && !DynamicCast<SwitchPort>(peer);
    return ib::VictimMaskBit(m_ecnVictimMask, facesEndNode);
}

int64_t
SwitchPort::AssignStreams(int64_t stream)
{
    m_ecnRng->SetStream(stream);
    return 1;
}

void
SwitchPort::DoDispose()
{
    m_switch = nullptr;
    for (auto& q : m_queues)
    {
        q.clear();
    }
    m_nonEmpty = 0;
    m_framePool = nullptr;
    FabricNetDevice::DoDispose();
}

void
SwitchPort::SetSwitch(Ptr<SwitchNode> sw, uint16_t portIndex)
{
    m_switch = sw;
    m_portIndex = portIndex;
    SetFramePool(sw->GetFramePool());
}

void
SwitchPort::SetFramePool(Ptr<FramePool> pool)
{
    m_framePool = pool;
    for (auto& q : m_queues)
    {
        q.SetPool(PeekPointer(pool)); // aborts if a frame is queued
    }
}

bool
SwitchPort::Enqueue(Ptr<Packet> packet, const FrameMeta& frame, uint16_t ingressPort)
{
    const uint32_t bytes = packet->GetSize();
    const uint8_t prio = frame.priority & 7;
    if (IsInPfcStorm(prio) && WatchdogDrops())
    {
        RecordDrop(packet, frame, DropReason::PFC_WATCHDOG);
        return false;
    }
    if (m_flushOnLinkDown && !IsLinkUp())
    {
        RecordDrop(packet, frame, DropReason::LINK_DOWN); // left the pipeline for a dead port
        return false;
    }
    // Root or victim of congestion (InfiniBand), judged before the frame joins the queue.
    const bool victim = m_ecnEnabled && IsCongestionVictim(prio, bytes);
    // The frame is written once, into its queue's new node, and rewritten there.
    QueuedFrame& queued = m_queues[prio].emplace_back();
    m_nonEmpty |= static_cast<uint8_t>(1u << prio);
    queued.packet = std::move(packet);
    queued.meta = frame;
    queued.ingressPort = ingressPort;
    FrameMeta& meta = queued.meta;
    if (meta.ttl > 0)
    {
        --meta.ttl; // IPv4: every router on the path decrements the TTL
    }
    AppendPathHop(meta, m_portIndex, m_pathHopBits);
    if (m_dreEnabled && m_dreAtEnqueue)
    {
        DecayDre(static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()));
        m_dreBytes += bytes + GetPhyOverheadBytes();
    }
    if (m_ecnEnabled && !m_ecnAtDequeue && (meta.ecn == ECN_ECT0 || meta.ecn == ECN_ECT1) &&
        meta.kind == FrameKind::DATA)
    {
        const uint64_t q = m_queueBytesPerPrio[prio];
        const auto role = victim ? ib::CongestionRole::VICTIM : ib::CongestionRole::ROOT;
        if (!ib::MayMarkFecn(role, victim && HasVictimMaskBit()))
        {
            // No draw: the other frames' marks stay what they were without the count.
            if (EcnMarkProbability(q, m_ecnKmin, m_ecnKmax, m_ecnPmax) > 0.0)
            {
                ++m_victimMarksSuppressed;
                m_fecnSuppressedTrace(queued.packet, prio, q);
            }
        }
        else if (ShouldMarkEcn(q))
        {
            meta.ecn = ECN_CE; // the frame's IPv4 ECN field (its bytes are built from the meta)
            NoteEcnMark();
        }
    }
    m_queueBytesPerPrio[prio] += bytes;
    m_queuedBytes += bytes;
    ++m_queuedFrames;
    NoteQueueBytes(m_queuedBytes);
    TryTransmit();
    return true;
}

bool
SwitchPort::DoDequeue(Ptr<Packet>& packet, FrameMeta& meta)
{
    // The queues that hold a frame, highest priority first (strict priority); an empty
    // queue's header is not read.
    for (unsigned left = m_nonEmpty; left != 0;)
    {
        const int prio = 31 - __builtin_clz(left);
        left &= ~(1u << prio);
        auto& q = m_queues[prio];
        const auto vl = static_cast<uint8_t>(prio);
        if (IsPaused(vl))
        {
            continue; // paused (PFC)
        }
        const bool wasStalled = IsCreditStalled(vl); // false without credits (Ethernet)
        if (!HasCredit(vl, q.front().packet->GetSize()))
        {
            NoteCreditStarved(vl);
            continue; // no credit for the head frame (InfiniBand): HOL
        }
        if (wasStalled)
        {
            NoteCreditStarved(vl); // it lacked credits until now
        }
        packet = std::move(q.front().packet);
        meta = q.front().meta;
        const uint16_t ingress = q.front().ingressPort;
        q.pop_front();
        if (q.empty())
        {
            m_nonEmpty &= static_cast<uint8_t>(~(1u << prio));
        }
        const uint32_t bytes = packet->GetSize();
        m_queueBytesPerPrio[prio] -= bytes;
        m_queuedBytes -= bytes;
        --m_queuedFrames;
        if (m_ecnAtDequeue && m_ecnEnabled && (meta.ecn == ECN_ECT0 || meta.ecn == ECN_ECT1) &&
            meta.kind == FrameKind::DATA && ShouldMarkEcn(m_queueBytesPerPrio[prio]))
        {
            meta.ecn = ECN_CE; // on the bytes left behind it, as the HPCC simulator's switch
            NoteEcnMark();
        }
        if (m_dreEnabled)
        {
            DecayDre(static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()));
        }
        m_switch->OnDequeue(m_portIndex, ingress, static_cast<uint8_t>(prio), bytes);
        if (m_switch->WantsDeparture())
        {
            // The egress state this frame meets: the DRE before its own bytes are counted.
            m_switch->OnDeparture(m_portIndex, DreUtilisation(), meta);
        }
        if (m_dreEnabled && !m_dreAtEnqueue)
        {
            m_dreBytes += bytes + GetPhyOverheadBytes();
        }
        if (meta.intStack.IsPresent() && meta.kind == FrameKind::DATA)
        {
            PushIntHop(meta, static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()));
        }
        return true;
    }
    return false;
}

void
SwitchPort::PushIntHop(FrameMeta& meta, uint64_t nowPs)
{
    // HPCC's INT (Li et al. 2019, section 3.2): when the frame leaves the egress queue, the
    // time, the bytes this port has put on the line before it and the bytes still queued.
    uint8_t code = 0;
    NS_ABORT_MSG_IF(!IntHop::RateCode(GetRateBps(), code),
                    "SwitchPort: an INT record cannot encode the port rate "
                        << GetRateBps() << " b/s (HPCC's rate codes: 10, 25, 40, 50, 100, 200, "
                                           "400, 800 Gb/s)");
    meta.intStack.Push(
        IntHop::Make(nowPs / 1000, GetCounters().txWireBytes, m_queuedBytes, code));
}

void
SwitchPort::DoReceive(Ptr<Packet> packet, const FrameMeta& meta)
{
    m_switch->ReceiveFromPort(m_portIndex, packet, meta);
}

void
SwitchPort::DoPfcStorm(uint8_t priority)
{
    DropQueue(priority, DropReason::PFC_WATCHDOG);
}

void
SwitchPort::DoLinkDown()
{
    if (!m_flushOnLinkDown)
    {
        return;
    }
    for (uint8_t prio = 0; prio < kPriorities; ++prio)
    {
        DropQueue(prio, DropReason::LINK_DOWN);
    }
}

void
SwitchPort::DropQueue(uint8_t priority, DropReason reason)
{
    auto& q = m_queues[priority];
    while (!q.empty())
    {
        QueuedFrame f = std::move(q.front());
        q.pop_front();
        if (q.empty())
        {
            m_nonEmpty &= static_cast<uint8_t>(~(1u << priority));
        }
        const uint32_t bytes = f.packet->GetSize();
        m_queueBytesPerPrio[priority] -= bytes;
        m_queuedBytes -= bytes;
        --m_queuedFrames;
        RecordDrop(f.packet, f.meta, reason);
        m_switch->OnDequeue(m_portIndex, f.ingressPort, priority, bytes);
    }
}

void
SwitchPort::DecayDre(uint64_t nowPs) const
{
    const uint64_t periodPs = m_drePeriodPs;
    const uint64_t periods = (nowPs - m_dreLastPs) / periodPs;
    if (periods > 0)
    {
        m_dreBytes *= std::pow(1.0 - m_dreAlpha, static_cast<double>(periods));
        m_dreLastPs += periods * periodPs;
    }
}

double
SwitchPort::GetUtilisation(Time now) const
{
    DecayDre(static_cast<uint64_t>(now.GetPicoSeconds()));
    return DreUtilisation();
}

double
SwitchPort::DreUtilisation() const
{
    return m_dreBytes * 8.0 / (static_cast<double>(GetRateBps()) * m_dreTauS);
}

} // namespace ns3
