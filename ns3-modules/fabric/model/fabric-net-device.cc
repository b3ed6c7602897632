/*
 * tusk: FabricNetDevice, the MAC: attributes and traces, transmit (pull the next frame, serialise it, hand it to the
 * channel) and receive (link state, FCS and gray-failure checks, hand on to the subclass), drop
 * accounting, link up/down and rate changes. PFC, InfiniBand credits, the line-rate check,
 * utilisation windows and the NetDevice boilerplate live in fabric-net-device-*.cc.
 */
#include "fabric-net-device.h"

#include "fabric-channel.h"
#include "fabric-units.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/enum.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FabricNetDevice);

const char*
DropReasonName(DropReason r)
{
    switch (r)
    {
    case DropReason::BUFFER_OVERFLOW:
        return "buffer_overflow";
    case DropReason::NO_ROUTE:
        return "no_route";
    case DropReason::LINK_DOWN:
        return "link_down";
    case DropReason::NIC_STALE:
        return "nic_stale";
    case DropReason::FCS:
        return "fcs";
    case DropReason::INGRESS_HEADROOM:
        return "ingress_headroom";
    case DropReason::EGRESS_THRESHOLD:
        return "egress_threshold";
    case DropReason::PFC_WATCHDOG:
        return "pfc_watchdog";
    case DropReason::GRAY:
        return "gray";
    default:
        return "unknown";
    }
}

TypeId
FabricNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("Fabric")
            .AddAttribute("DataRate",
                          "Line rate of the port (bit/s).",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&FabricNetDevice::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("PhyOverheadBytes",
                          "Bytes on the line per frame beyond the frame itself: preamble, SFD "
                          "and inter-frame gap (IEEE 802.3: 8 + 12 = 20 bytes).",
                          UintegerValue(20),
                          MakeUintegerAccessor(&FabricNetDevice::m_phyOverheadBytes),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("UtilisationWindow",
                          "Window over which the busiest-window utilisation is measured (Time).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&FabricNetDevice::SetUtilisationWindow,
                                           &FabricNetDevice::GetUtilisationWindow),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ReceiveErrorModel",
                          "Optional ns-3 ErrorModel applied to every arriving frame but PFC "
                          "frames: a frame it marks corrupt fails the FCS check and is dropped "
                          "(DropReason FCS, \"fcs\"), as on a lossy link.",
                          PointerValue(),
                          MakePointerAccessor(&FabricNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddAttribute("ReceiveGrayFailure",
                          "Optional GrayFailureModel applied to every arriving frame but PFC "
                          "frames after the FCS check: frames of the flows it affects are lost "
                          "(DropReason GRAY, \"gray\").",
                          PointerValue(),
                          MakePointerAccessor(&FabricNetDevice::m_grayFailure),
                          MakePointerChecker<GrayFailureModel>())
            .AddAttribute("PfcWatchdogTime",
                          "PFC watchdog (storm protection): a priority paused continuously for "
                          "this long is declared in a storm; 0 disables the watchdog (Time).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&FabricNetDevice::m_watchdogTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PfcWatchdogRecovery",
                          "How long a storm lasts once declared: pause is ignored for that "
                          "priority and its frames are dropped (PFC_WATCHDOG) (Time).",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&FabricNetDevice::m_watchdogRecovery),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PfcWatchdogAction",
                          "What the PFC watchdog does during a storm: Drop (the queue's frames "
                          "and new arrivals, counted as PFC_WATCHDOG) or Forward (ignore the "
                          "pause and transmit).",
                          EnumValue(WATCHDOG_DROP),
                          MakeEnumAccessor(&FabricNetDevice::m_watchdogAction),
                          MakeEnumChecker(WATCHDOG_DROP, "Drop", WATCHDOG_FORWARD, "Forward"))
            .AddAttribute("VlBufferBytes",
                          "InfiniBand fabric only: this port's input buffer per virtual lane "
                          "(bytes; 64-byte credits, of which at most 2048 = 128 KiB are "
                          "advertised beyond the blocks received, IBA vol. 1 section 7.9.4).",
                          UintegerValue(131072),
                          MakeUintegerAccessor(&FabricNetDevice::m_vlBufferBytes),
                          MakeUintegerChecker<uint64_t>(64))
            .AddAttribute("CreditUpdateLatency",
                          "InfiniBand fabric only: time from a frame leaving this port's input "
                          "buffer to the flow-control packet that returns its credits leaving "
                          "the port; the link delay is added on the way back (Time).",
                          TimeValue(NanoSeconds(100)),
                          MakeTimeAccessor(&FabricNetDevice::m_creditLatency),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Pfc",
                            "A PFC frame was sent or received: (PfcEvent).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_pfcTrace),
                            "ns3::FabricNetDevice::PfcTracedCallback")
            .AddTraceSource("Sniffer",
                            "Every frame sent or received by this port, as bytes on the wire "
                            "(for pcap; built only when connected, see WireFrame).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_snifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Tx",
                            "A frame starts transmission: (packet, meta); the packet has the "
                            "frame's size, the meta its header fields.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_txTrace),
                            "ns3::FabricNetDevice::FrameTracedCallback")
            .AddTraceSource("Rx",
                            "A frame has fully arrived: (packet, meta); the packet has the "
                            "frame's size, the meta its header fields.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_rxTrace),
                            "ns3::FabricNetDevice::FrameTracedCallback")
            .AddTraceSource("Drop",
                            "A frame was dropped: (packet, meta, DropReason).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_dropTrace),
                            "ns3::FabricNetDevice::DropTracedCallback")
            .AddTraceSource("PfcRx",
                            "A PFC frame has fully arrived, before it takes effect: (packet, "
                            "meta).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_pfcRxTrace),
                            "ns3::FabricNetDevice::FrameTracedCallback")
            .AddTraceSource("EcnMark",
                            "A frame was CE-marked at this egress (switch ports).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_ecnMarkTrace),
                            "ns3::FabricNetDevice::EcnMarkTracedCallback")
            .AddTraceSource("QueueBytes",
                            "Egress occupancy after a frame was queued (bytes; switch ports).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_queueBytesTrace),
                            "ns3::FabricNetDevice::QueueBytesTracedCallback")
            .AddTraceSource("UtilisationWindow",
                            "UtilisationWindows with transmissions closed: their busy fraction "
                            "(0..1, time on the wire / window) and how many consecutive windows "
                            "had it (more than 1 only for the full windows inside one long "
                            "frame, reported at once).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_utilisationTrace),
                            "ns3::FabricNetDevice::UtilisationTracedCallback")
            .AddTraceSource("PfcWatchdog",
                            "The PFC watchdog declared a storm on a priority (uint8_t).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_watchdogTrace),
                            "ns3::FabricNetDevice::WatchdogTracedCallback");
    return tid;
}

FabricNetDevice::FabricNetDevice()
    : m_txCompleteEvent(
          Create<MemberEvent<FabricNetDevice, &FabricNetDevice::TransmitComplete>>(this)),
      m_address(Mac48Address::Allocate())
{
}

FabricNetDevice::~FabricNetDevice() = default;

void
FabricNetDevice::DoDispose()
{
    m_node = nullptr;
    m_channel = nullptr;
    m_txCompleteEvent->Clear();
    m_receiveErrorModel = nullptr;
    m_grayFailure = nullptr;
    m_macControl.clear();
    if (m_pfcTimers)
    {
        for (int p = 0; p < 8; ++p)
        {
            m_pfcTimers->pause[p].Cancel();
            m_pfcTimers->watchdog[p].Cancel();
        }
    }
    NetDevice::DoDispose();
}

void
FabricNetDevice::Attach(Ptr<FabricChannel> channel)
{
    m_channel = channel;
    SetRateBps(m_rate.GetBitRate());
    channel->Attach(this);
}

void
FabricNetDevice::SetRateBps(uint64_t rateBps)
{
    NS_ABORT_MSG_IF(rateBps == 0, "FabricNetDevice: DataRate must be > 0");
    m_rateBps = rateBps;
    // A byte takes a whole number of ps at every integer-Gb/s rate (80 ps at 100 Gb/s): then
    // a frame's serialisation time is one multiplication, equal to SerializationPs.
    constexpr uint64_t kBitPs = 8'000'000'000'000ULL;
    m_psPerByte = kBitPs % rateBps == 0 ? kBitPs / rateBps : 0;
}

uint64_t
FabricNetDevice::TxPs(uint32_t frameBytes) const
{
    const uint64_t wireBytes = frameBytes + m_phyOverheadBytes;
    return m_psPerByte != 0 ? wireBytes * m_psPerByte : SerializationPs(wireBytes, m_rateBps);
}

Time
FabricNetDevice::TxTime(uint32_t frameBytes) const
{
    return PicoSeconds(TxPs(frameBytes));
}

Ptr<FabricNetDevice>
FabricNetDevice::GetPeerDevice() const
{
    return m_channel ? m_channel->GetPeer(this) : nullptr;
}

void
FabricNetDevice::TryTransmit()
{
    if (m_transmitting || m_dequeuing || !m_linkUp || !m_channel)
    {
        return;
    }
    Ptr<Packet> packet;
    FrameMeta meta;
    const bool control = !m_macControl.empty();
    if (control)
    {
        packet = std::move(m_macControl.front().packet);
        meta = m_macControl.front().meta;
        m_macControl.pop_front();
    }
    else
    {
        // A dequeue can ask this port to send: a frame that leaves by the port it came in on
        // (a valley route after a failure) frees its ingress bytes, and the MMU's XON goes out
        // here. That call returns at m_dequeuing, and the PFC frame waits in m_macControl for
        // the end of the frame dequeued now, as a MAC control frame waits for the frame on the
        // line. Without the guard both would start at once (the line-rate invariant's catch).
        m_dequeuing = true;
        const bool dequeued = DoDequeue(packet, meta);
        m_dequeuing = false;
        if (!dequeued)
        {
            if (!m_macControl.empty())
            {
                TryTransmit(); // raised by a dequeue that then found nothing to send
            }
            return;
        }
    }
    const uint32_t bytes = packet->GetSize();
    const uint64_t txPs = TxPs(bytes);
    // The serialisation Times of the two latest frame sizes (a port carries data one way and
    // ACKs the other), as converting ps to a Time per frame costs ~30 instructions.
    if (m_txTimeCache[0].ps != txPs)
    {
        std::swap(m_txTimeCache[0], m_txTimeCache[1]);
        if (m_txTimeCache[0].ps != txPs)
        {
            m_txTimeCache[0] = {txPs, PicoSeconds(txPs)};
        }
    }
    const Time txTime = m_txTimeCache[0].time;
    m_transmitting = true;
    m_txFrameBytes = bytes;
    if (control)
    {
        m_counters.pfcTx++;
    }
    else
    {
        m_counters.txFrames++;
        m_counters.txBytes += bytes;
    }
    m_counters.txWireBytes += bytes + m_phyOverheadBytes;
    const auto nowPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    if (m_creditFc && !control)
    {
        SpendCredit(meta.priority & 7, bytes, nowPs);
    }
    if (m_checkRateBps != 0)
    {
        CheckLineRate(nowPs, bytes);
    }
    AccountUtilisation(nowPs, txPs);
    if (!m_txTrace.IsEmpty())
    {
        m_txTrace(packet, meta); // no argument copies per frame when nobody listens
    }
    if (!m_snifferTrace.IsEmpty())
    {
        m_snifferTrace(WireFrame(packet, meta, true)); // bytes only for an observer
    }
    m_channel->Transmit(packet, meta, this, txTime);
    Simulator::Schedule(txTime, Ptr<EventImpl>(m_txCompleteEvent));
}

void
FabricNetDevice::TransmitComplete()
{
    m_transmitting = false;
    TryTransmit();
}

void
FabricNetDevice::Receive(Ptr<Packet> packet, const FrameMeta& meta)
{
    if (m_creditFc && meta.kind != FrameKind::PFC)
    {
        TakeInputBlocks(meta.priority & 7, packet->GetSize());
    }
    if (!m_linkUp)
    {
        if (meta.kind == FrameKind::PFC)
        {
            // A PFC frame on the wire when the link died is lost with it, and not counted as a
            // drop: drops count the frames NICs sent (packet conservation), and a PFC frame is
            // link-local MAC control that no NIC sent and no channel counts in flight.
            return;
        }
        DropReceived(packet, meta, DropReason::LINK_DOWN);
        return;
    }
    if (meta.kind == FrameKind::PFC)
    {
        ReceivePfc(packet, meta);
        return;
    }
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(WireFrame(packet, meta, false)))
    {
        DropReceived(packet, meta, DropReason::FCS);
        return;
    }
    if (m_grayFailure && m_grayFailure->IsLost(meta))
    {
        DropReceived(packet, meta, DropReason::GRAY);
        return;
    }
    m_counters.rxFrames++;
    m_counters.rxBytes += packet->GetSize();
    if (!m_rxTrace.IsEmpty())
    {
        m_rxTrace(packet, meta);
    }
    if (!m_snifferTrace.IsEmpty())
    {
        m_snifferTrace(WireFrame(packet, meta, false));
    }
    if (m_creditFc && !m_holdsReceived)
    {
        const uint32_t bytes = packet->GetSize();
        DoReceive(packet, meta);
        ReturnCredit(meta.priority & 7, bytes); // a host adapter consumes at line rate
        return;
    }
    DoReceive(packet, meta);
}

void
FabricNetDevice::DropReceived(Ptr<const Packet> packet, const FrameMeta& meta, DropReason reason)
{
    RecordDrop(packet, meta, reason);
    if (m_creditFc)
    {
        ReturnCredit(meta.priority & 7, packet->GetSize());
    }
}

void
FabricNetDevice::RecordDrop(Ptr<const Packet> packet, const FrameMeta& meta, DropReason reason)
{
    m_counters.drops[static_cast<int>(reason)]++;
    m_dropTrace(packet, meta, reason);
}

void
FabricNetDevice::SetLinkUp(bool up)
{
    if (m_linkUp == up)
    {
        return;
    }
    m_linkUp = up;
    m_linkChangeCallbacks();
    if (!up)
    {
        // Whatever the peer paused, a dead link does not keep it paused.
        for (uint8_t p = 0; p < 8; ++p)
        {
            Resume(p);
        }
        // Nor does a dead link wait for credit: a VL's credit stall ends here (its frames, if
        // held, wait for the link; after link up a refusal starts a new stall).
        const auto nowPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
        for (uint8_t vl = 0; vl < m_vl.size(); ++vl)
        {
            EndCreditStall(vl, nowPs);
        }
        DoLinkDown();
    }
    if (up)
    {
        TryTransmit();
    }
}

void
FabricNetDevice::SetDataRate(DataRate rate)
{
    SetRateBps(rate.GetBitRate());
    m_rate = rate;
}

} // namespace ns3
