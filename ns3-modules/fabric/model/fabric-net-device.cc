#include "fabric-net-device.h"

#include "fabric-channel.h"
#include "fabric-units.h"
#include "ib-credits.h"
#include "pfc-header.h"

#include "ns3/ethernet-header.h"
#include "ns3/ethernet-trailer.h"

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

void
FabricNetDevice::SetUtilisationWindow(Time window)
{
    m_utilWindow = window;
    m_utilWindowPs = static_cast<uint64_t>(window.GetPicoSeconds());
}

Time
FabricNetDevice::GetUtilisationWindow() const
{
    return m_utilWindow;
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
    if (m_transmitting || !m_linkUp || !m_channel)
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
    else if (!DoDequeue(packet, meta))
    {
        return;
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
        VlCredit& c = m_vl[meta.priority & 7];
        NS_ABORT_MSG_IF(!ib::CreditAllows(c.fccl, c.fctbs, ib::Blocks(bytes)),
                        "FabricNetDevice: a frame was sent without credit (the subclass must "
                        "ask HasCredit)");
        c.fctbs = ib::Mod12(c.fctbs + ib::Blocks(bytes));
        EndCreditStall(meta.priority & 7, nowPs);
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
FabricNetDevice::CheckLineRateAgainst(uint64_t linkRateBps)
{
    m_checkRateBps = linkRateBps;
    // 8e12 ps per bit-second: whole at 100/200/400 Gb/s (80/40/20 ps per byte).
    m_checkPsPerByte = linkRateBps != 0 && 8'000'000'000'000ULL % linkRateBps == 0
                           ? 8'000'000'000'000ULL / linkRateBps
                           : 0;
}

void
FabricNetDevice::CheckLineRate(uint64_t nowPs, uint32_t bytes)
{
    auto& slot = m_recentTx[m_framesSent % kRateCheckFrames];
    if (m_framesSent >= kRateCheckFrames && !m_rateViolation.found &&
        nowPs - slot.first + kRateCheckFrames < m_recentSerialPs)
    {
        m_rateViolation = {true, nowPs, nowPs - slot.first, m_recentSerialPs};
    }
    m_recentSerialPs -= slot.second;
    const uint64_t wireBytes = bytes + m_phyOverheadBytes;
    slot = {nowPs, m_checkPsPerByte != 0 ? wireBytes * m_checkPsPerByte
                                         : SerializationPs(wireBytes, m_checkRateBps)};
    m_recentSerialPs += slot.second;
    ++m_framesSent;
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
        // The frame takes its blocks of the VL's input buffer: the invariant of credit flow
        // control is that they are free (oracle 21). A frame lost before the buffer returns
        // them at once (the FCTBS/ABR resynchronisation of IBA 7.9.4 in effect).
        VlCredit& c = m_vl[meta.priority & 7];
        const uint32_t blocks = ib::Blocks(packet->GetSize());
        c.abr = ib::Mod12(c.abr + blocks);
        c.usedBlocks += blocks;
        if (c.usedBlocks > m_vlCapacityBlocks)
        {
            m_counters.creditOverruns++;
        }
        c.peakBlocks = std::max(c.peakBlocks, c.usedBlocks);
    }
    if (!m_linkUp)
    {
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

// ---- InfiniBand credits (IBA vol. 1, 7.9) -----------------------------------------------

void
FabricNetDevice::EnableCreditFlowControl()
{
    Ptr<FabricNetDevice> peer = GetPeerDevice();
    NS_ABORT_MSG_IF(!peer, "FabricNetDevice: credit flow control needs an attached link");
    m_creditFc = true;
    m_vlCapacityBlocks = m_vlBufferBytes / ib::kCreditBlockBytes;
    // Link initialisation: the peer's first flow-control packets advertise its empty buffer.
    const uint64_t peerBlocks = peer->m_vlBufferBytes / ib::kCreditBlockBytes;
    m_vl.assign(kVls, VlCredit());
    for (auto& c : m_vl)
    {
        c.fccl = ib::Fccl(0, peerBlocks);
    }
}

bool
FabricNetDevice::CreditCheck(uint8_t vl, uint32_t bytes)
{
    VlCredit& c = m_vl[vl];
    if (ib::CreditAllows(c.fccl, c.fctbs, ib::Blocks(bytes)))
    {
        return true;
    }
    if (!c.stalled)
    {
        c.stalled = true;
        c.stallSincePs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    }
    return false;
}

void
FabricNetDevice::EndCreditStall(uint8_t vl, uint64_t nowPs)
{
    VlCredit& c = m_vl[vl];
    if (c.stalled)
    {
        c.stalled = false;
        c.stallTotalPs += nowPs - c.stallSincePs;
    }
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
FabricNetDevice::ReturnCredit(uint8_t vl, uint32_t bytes)
{
    VlCredit& c = m_vl[vl];
    const uint32_t blocks = ib::Blocks(bytes);
    NS_ABORT_MSG_IF(c.usedBlocks < blocks, "FabricNetDevice: credits returned twice");
    c.usedBlocks -= blocks;
    if (!c.updatePending)
    {
        // Credits freed within CreditUpdateLatency go back in one flow-control packet.
        c.updatePending = true;
        Simulator::Schedule(m_creditLatency, &FabricNetDevice::SendCreditUpdate, this, vl);
    }
}

void
FabricNetDevice::SendCreditUpdate(uint8_t vl)
{
    VlCredit& c = m_vl[vl];
    c.updatePending = false;
    const uint16_t fccl = ib::Fccl(c.abr, m_vlCapacityBlocks - std::min(m_vlCapacityBlocks,
                                                                         c.usedBlocks));
    FabricNetDevice* peer = PeekPointer(GetPeerDevice());
    // Flow-control packets are not queued behind data (they are 6 bytes on a VL of their
    // own): modelled as arriving one link delay after they leave.
    Simulator::ScheduleWithContext(peer->GetNodeId(), m_channel->GetDelay(),
                                   &FabricNetDevice::ReceiveCreditUpdate, peer, vl, fccl);
}

void
FabricNetDevice::ReceiveCreditUpdate(uint8_t vl, uint16_t fccl)
{
    m_vl[vl].fccl = fccl;
    TryTransmit();
}

uint32_t
FabricNetDevice::GetAvailableCredits(uint8_t vl) const
{
    NS_ABORT_MSG_IF(m_vl.empty(), "FabricNetDevice::GetAvailableCredits: no credit flow control");
    return ib::Available(m_vl[vl].fccl, m_vl[vl].fctbs);
}

uint64_t
FabricNetDevice::GetCreditStallPs(Time now) const
{
    uint64_t total = 0;
    const auto nowPs = static_cast<uint64_t>(now.GetPicoSeconds());
    for (const auto& c : m_vl)
    {
        total += c.stallTotalPs + (c.stalled && nowPs > c.stallSincePs ? nowPs - c.stallSincePs : 0);
    }
    return total;
}

void
FabricNetDevice::RecordDrop(Ptr<const Packet> packet, const FrameMeta& meta, DropReason reason)
{
    m_counters.drops[static_cast<int>(reason)]++;
    m_dropTrace(packet, meta, reason);
}

void
FabricNetDevice::AccountUtilisation(uint64_t nowPs, uint64_t durationPs)
{
    // The line is busy over [now, now + duration): credit each window with the part of that
    // interval inside it, so no window exceeds 100 %. In closed form, whatever the duration:
    // the window in progress gets the part up to its end, the windows wholly inside the
    // interval are full (busy fraction 1, closed together), and the window holding the end
    // stays open with the rest.
    const uint64_t windowPs = m_utilWindowPs;
    if (durationPs == 0)
    {
        return;
    }
    if (nowPs >= m_utilWindowStartPs + windowPs)
    {
        FlushUtilisation(PicoSeconds(m_utilWindowStartPs + windowPs)); // closed at its end
        m_utilWindowStartPs = nowPs - nowPs % windowPs;
    }
    const uint64_t endPs = nowPs + durationPs;
    const uint64_t firstEndPs = m_utilWindowStartPs + windowPs;
    if (endPs <= firstEndPs)
    {
        m_utilWindowBusyPs += durationPs;
        return;
    }
    m_utilWindowBusyPs += firstEndPs - nowPs;
    FlushUtilisation(PicoSeconds(firstEndPs));
    // Windows touched after the first: ceil((end - firstEnd) / window); all but the last full.
    const uint64_t later = (endPs - firstEndPs + windowPs - 1) / windowPs;
    const uint64_t full = later - 1;
    if (full > 0)
    {
        CloseFullWindows(full);
    }
    m_utilWindowStartPs = firstEndPs + full * windowPs;
    m_utilWindowBusyPs = endPs - m_utilWindowStartPs;
}

void
FabricNetDevice::CloseFullWindows(uint64_t windows)
{
    if (m_counters.maxWindowUtilisation < 1.0)
    {
        m_counters.maxWindowUtilisation = 1.0;
    }
    m_utilisationTrace(1.0, windows);
}

void
FabricNetDevice::FlushUtilisation(Time now)
{
    const uint64_t windowPs = m_utilWindowPs;
    // A run shorter than one window has one window: the run itself (the full window would
    // count idle time after the end, and the busiest window would be less busy than the mean).
    const auto nowPs = static_cast<uint64_t>(now.GetPicoSeconds());
    const uint64_t lengthPs =
        m_utilWindowStartPs == 0 && nowPs > 0 && nowPs < windowPs ? nowPs : windowPs;
    if (m_utilWindowBusyPs > 0 && windowPs > 0)
    {
        const double u = static_cast<double>(m_utilWindowBusyPs) / static_cast<double>(lengthPs);
        if (u > m_counters.maxWindowUtilisation)
        {
            m_counters.maxWindowUtilisation = u;
        }
        m_utilisationTrace(u, 1);
    }
    m_utilWindowBusyPs = 0;
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

// ---- PFC (IEEE 802.1Qbb) ----------------------------------------------------------------

void
FabricNetDevice::SendPfc(uint8_t priority, uint16_t quanta, uint8_t depth)
{
    PfcHeader pfc;
    pfc.classEnable = static_cast<uint8_t>(1u << priority);
    pfc.quanta[priority] = quanta;
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(pfc);
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(Mac48Address("01:80:c2:00:00:01")); // MAC control multicast
    eth.SetLengthType(kEtherTypeMacControl);
    p->AddHeader(eth);
    p->AddTrailer(EthernetTrailer());
    FrameMeta meta;
    meta.kind = FrameKind::PFC;
    meta.priority = priority;
    meta.pfcDepth = depth;
    // The quanta travel in the frame; the meta's dstQp field is not used for PFC.
    if (quanta > 0)
    {
        m_counters.pfcXoffTx++;
    }
    m_pfcTrace(PfcEvent{static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()), priority,
                        quanta, true, depth});
    m_macControl.push_back(MacControlFrame{p, meta});
    TryTransmit();
}

void
FabricNetDevice::ReceivePfc(Ptr<Packet> packet, const FrameMeta& meta)
{
    m_counters.pfcRx++;
    m_pfcRxTrace(packet, meta);
    Ptr<Packet> copy = packet->Copy();
    EthernetHeader eth(false);
    copy->RemoveHeader(eth);
    PfcHeader pfc;
    copy->RemoveHeader(pfc);
    const uint64_t nowPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (!(pfc.classEnable & (1u << p)))
        {
            continue;
        }
        const uint16_t quanta = pfc.quanta[p];
        m_pfcTrace(PfcEvent{nowPs, p, quanta, false, meta.pfcDepth});
        if (quanta == 0)
        {
            Resume(p);
            continue;
        }
        PfcTimers& timers = Timers();
        if (m_pauseExpiryPs[p] == 0)
        {
            m_pausedSincePs[p] = nowPs;
            if (!m_watchdogTime.IsZero())
            {
                timers.watchdog[p].Cancel();
                timers.watchdog[p] =
                    Simulator::Schedule(m_watchdogTime, &FabricNetDevice::WatchdogCheck, this, p);
            }
        }
        m_rxPauseDepth[p] = meta.pfcDepth;
        const uint64_t durationPs =
            SerializationPs(static_cast<uint64_t>(quanta) * kPfcQuantumBits / 8, m_rateBps);
        m_pauseExpiryPs[p] = nowPs + durationPs;
        timers.pause[p].Cancel();
        timers.pause[p] = Simulator::Schedule(PicoSeconds(durationPs),
                                              &FabricNetDevice::PauseExpired, this, p);
    }
}

bool
FabricNetDevice::IsPaused(uint8_t priority) const
{
    if (m_pauseExpiryPs[priority] == 0)
    {
        return false; // the common case, without asking the simulator for the time
    }
    const uint64_t nowPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    if (m_pauseExpiryPs[priority] == 0 || m_pauseExpiryPs[priority] <= nowPs)
    {
        return false;
    }
    // A storm with the Forward action overrides the pause.
    return !(m_watchdogAction == WATCHDOG_FORWARD && m_stormUntilPs[priority] > nowPs);
}

bool
FabricNetDevice::IsInPfcStorm(uint8_t priority) const
{
    return m_stormUntilPs[priority] != 0 &&
           m_stormUntilPs[priority] > static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
}

void
FabricNetDevice::PauseExpired(uint8_t priority)
{
    Resume(priority);
}

void
FabricNetDevice::Resume(uint8_t priority)
{
    if (m_pauseExpiryPs[priority] == 0)
    {
        return;
    }
    const uint64_t nowPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    m_pausedTotalPs[priority] += nowPs - m_pausedSincePs[priority];
    m_pauseExpiryPs[priority] = 0;
    m_pfcTimers->pause[priority].Cancel(); // a paused port has its timers
    m_pfcTimers->watchdog[priority].Cancel();
    TryTransmit();
}

uint64_t
FabricNetDevice::GetPausedPs(uint8_t priority, Time now) const
{
    uint64_t total = m_pausedTotalPs[priority];
    if (m_pauseExpiryPs[priority] != 0)
    {
        const uint64_t nowPs = static_cast<uint64_t>(now.GetPicoSeconds());
        total += std::min(nowPs, m_pauseExpiryPs[priority]) - m_pausedSincePs[priority];
    }
    return total;
}

void
FabricNetDevice::WatchdogCheck(uint8_t priority)
{
    if (!IsPaused(priority))
    {
        return;
    }
    const uint64_t nowPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    m_counters.watchdogTriggers++;
    m_watchdogTrace(priority);
    m_stormUntilPs[priority] = nowPs + static_cast<uint64_t>(m_watchdogRecovery.GetPicoSeconds());
    if (m_watchdogAction == WATCHDOG_DROP)
    {
        DoPfcStorm(priority);
    }
    else
    {
        TryTransmit();
        // When the storm ends the pause (if still refreshed) applies again: re-check then.
        Simulator::Schedule(m_watchdogRecovery, &FabricNetDevice::TryTransmit, this);
    }
    // Check again after the recovery period if the pause goes on.
    Timers().watchdog[priority] = Simulator::Schedule(m_watchdogRecovery + m_watchdogTime,
                                                      &FabricNetDevice::WatchdogCheck, this,
                                                      priority);
}

// ---- NetDevice boilerplate -------------------------------------------------------------

void
FabricNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
FabricNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
FabricNetDevice::GetChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
FabricNetDevice::GetAddress() const
{
    return m_address;
}

bool
FabricNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
FabricNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
FabricNetDevice::IsLinkUp() const
{
    return m_linkUp;
}

void
FabricNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

bool
FabricNetDevice::IsBroadcast() const
{
    return false;
}

Address
FabricNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
FabricNetDevice::IsMulticast() const
{
    return false;
}

Address
FabricNetDevice::GetMulticast(Ipv4Address) const
{
    return Mac48Address::GetMulticast(Ipv4Address("224.0.0.0"));
}

Address
FabricNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
FabricNetDevice::IsPointToPoint() const
{
    return true;
}

bool
FabricNetDevice::IsBridge() const
{
    return false;
}

bool
FabricNetDevice::Send(Ptr<Packet>, const Address&, uint16_t)
{
    // Frames enter a fabric port through its owner (switch forwarding or the NIC's QP
    // scheduler), never through the IP stack.
    return false;
}

bool
FabricNetDevice::SendFrom(Ptr<Packet>, const Address&, const Address&, uint16_t)
{
    return false;
}

Ptr<Node>
FabricNetDevice::GetNode() const
{
    return m_node;
}

void
FabricNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
    m_nodeId = node ? node->GetId() : 0;
}

bool
FabricNetDevice::NeedsArp() const
{
    return false;
}

void
FabricNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback)
{
}

void
FabricNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback)
{
}

bool
FabricNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
