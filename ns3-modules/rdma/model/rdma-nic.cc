#include "rdma-nic.h"

#include "rdma/model/headers/roce-credit-header.h"
#include "rdma/model/headers/roce-header.h"
#include "rdma/model/headers/roce-int-header.h"
#include "rdma/model/headers/roce-sack-header.h"
#include "rdma/model/headers/roce-wire-format.h"

#include "fabric/model/fabric-units.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/ethernet-header.h"
#include "ns3/ethernet-trailer.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/type-id.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNic");
NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaNic")
            .SetParent<FabricNetDevice>()
            .SetGroupName("Rdma")
            .AddConstructor<RdmaNic>()
            .AddAttribute("MtuBytes",
                          "RoCE payload MTU: payload bytes per data packet (bytes).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RdmaNic::m_mtuBytes),
                          MakeUintegerChecker<uint32_t>(64, 9000))
            .AddAttribute("AckInterval",
                          "ACK coalescing: the responder acknowledges every AckInterval "
                          "in-order packets, and always the last packet of a message (packets).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RdmaNic::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RetransmitTimeout",
                          "Requester retransmission timeout: go back to the oldest "
                          "unacknowledged PSN when no ACK progress for this long (Time). "
                          "The default is a deployed RoCE NIC's Local ACK Timeout, "
                          "4.096 us x 2^n with n = 14 (InfiniBand Architecture Vol. 1, RC "
                          "transport): 67.108864 ms, far above any PFC queueing delay; lossy "
                          "runs that rely on the timer set a shorter one. See rdma.md, "
                          "Retransmission timeout.",
                          TimeValue(NanoSeconds(kDeployedRtoNs)),
                          MakeTimeAccessor(&RdmaNic::m_rto),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MaxOutstandingPackets",
                          "Per-QP limit of sent but unacknowledged packets; 0 = no limit "
                          "(packets).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaNic::m_maxOutstanding),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("BaseRtt",
                          "The fabric's base RTT T: the largest RTT between two hosts of the "
                          "idle fabric (the HPCC simulator's GLOBAL_T). Congestion controls "
                          "that need T (HPCC, Swift, DCTCP, NSCC) and the SenderWindow use it; "
                          "0 = not set (Time).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaNic::m_baseRtt),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("SenderWindow",
                          "Sender window of every QP, whatever the congestion control (the "
                          "HPCC simulator's HAS_WIN / VAR_WIN): None; Fixed, at most line rate "
                          "x BaseRtt bytes of payload outstanding (one BDP); Variable, that "
                          "times the congestion control's rate / line rate.",
                          EnumValue(WINDOW_NONE),
                          MakeEnumAccessor(&RdmaNic::m_senderWindow),
                          MakeEnumChecker(WINDOW_NONE, "None", WINDOW_FIXED, "Fixed",
                                          WINDOW_VARIABLE, "Variable"))
            .AddAttribute("ReceiverCredit",
                          "UEC-style receiver credits (RCCC, Ultra Ethernet 1.0): a sender may "
                          "send only with credit (InitialCreditBytes of speculative credit, then "
                          "what its receiver grants); data packets announce the sender's demand "
                          "(RoceCreditRequestHeader) and the receiving NIC grants CreditGrantBytes "
                          "at a time, round-robin over the QPs that owe, paced at its line rate. "
                          "Works with any CongestionControl (boolean).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaNic::m_receiverCredit),
                          MakeBooleanChecker())
            .AddAttribute("InitialCreditBytes",
                          "RCCC: speculative credit of a new QP (bytes; 0 = one BDP, line rate "
                          "x BaseRtt).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaNic::m_initialCredit),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("CreditGrantBytes",
                          "RCCC: credit per grant (bytes; 0 = 4 MTUs, UEC's default pull).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaNic::m_creditGrant),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("CreditWindowBytes",
                          "RCCC: the receiver grants only while less than this is outstanding "
                          "over all its QPs, speculative credit included (bytes; 0 = one BDP, "
                          "line rate x BaseRtt).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaNic::m_creditWindow),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("CongestionControl",
                          "TypeId of the congestion control built for every QP.",
                          TypeIdValue(RdmaCcNone::GetTypeId()),
                          MakeTypeIdAccessor(&RdmaNic::m_ccTypeId),
                          MakeTypeIdChecker())
            .AddAttribute("PathSelector",
                          "TypeId of the path selector (entropy per packet) built for every QP.",
                          TypeIdValue(FixedPathSelector::GetTypeId()),
                          MakeTypeIdAccessor(&RdmaNic::m_pathSelectorTypeId),
                          MakeTypeIdChecker())
            .AddAttribute("ControlPriority",
                          "Traffic class of ACK, NAK and CNP frames (0..7).",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RdmaNic::m_controlPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("CnpInterval",
                          "DCQCN notification point: at most one CNP per QP per interval, sent "
                          "when a CE-marked data packet arrives (Time; DCQCN paper: 50 us).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RdmaNic::m_cnpInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("LossRecovery",
                          "TypeId of the loss recovery built for every QP: "
                          "ns3::GoBackNRecovery (RoCEv2: NAK and resend from the first missing "
                          "PSN; UEC-style ROD), ns3::SelectiveRepeatRecovery (IRN-style: "
                          "out-of-order placement, SACK, resend only what is missing) or "
                          "ns3::UecRudRecovery (UEC-style RUD: selective repeat with 64-bit "
                          "SACK bitmaps).",
                          TypeIdValue(GoBackNRecovery::GetTypeId()),
                          MakeTypeIdAccessor(&RdmaNic::m_lossRecoveryTypeId),
                          MakeTypeIdChecker())
            .AddAttribute("CnpOnOutOfOrder",
                          "Also send a CNP to the requester when a data packet arrives out of "
                          "order (at most one per QP per CnpInterval; boolean).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaNic::m_cnpOnOoo),
                          MakeBooleanChecker())
            .AddAttribute("AckRoute",
                          "The route of the control frames a responder sends in answer to a "
                          "data packet (ACK, NAK, trim NACK, CNP; an ACK that coalesces several "
                          "packets answers the one that triggered it): Fixed, the responder "
                          "QP's own UDP source port, drawn at connection (one route per QP); "
                          "Reverse, the answered packet's UDP source port, i.e. its EV echoed, "
                          "and under source routing the route that retraces the links that "
                          "packet took (SetReplyEntropy). Credit grants keep the QP's own.",
                          EnumValue(ACK_FIXED),
                          MakeEnumAccessor(&RdmaNic::m_ackRoute),
                          MakeEnumChecker(ACK_FIXED, "Fixed", ACK_REVERSE, "Reverse"))
            .AddAttribute("QpRateCap",
                          "The line rate every QP of this NIC is paced at and its congestion "
                          "control starts from, when below the NIC's: an in-network aggregation "
                          "endpoint's NIC runs at the switch's aggregate rate while each of its "
                          "streams leaves through one switch port. 0 = the NIC's line rate "
                          "(bit/s).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaNic::m_qpRateCapBps),
                          MakeUintegerChecker<uint64_t>())
            .AddTraceSource("QpCreated",
                            "A QP this NIC created (RdmaNic::Connect creates one on each NIC), "
                            "before its first packet: connect to its trace sources here.",
                            MakeTraceSourceAccessor(&RdmaNic::m_qpCreatedTrace),
                            "ns3::RdmaNic::QpTracedCallback")
            .AddTraceSource("ProbeReceived",
                            "A monitoring probe (SendProbe) addressed to this NIC arrived; "
                            "probes reach no QP.",
                            MakeTraceSourceAccessor(&RdmaNic::m_probeReceivedTrace),
                            "ns3::RdmaNic::ProbeTracedCallback");
    return tid;
}

RdmaNic::RdmaNic()
    : m_creditOut(kFirstQpn, 0),
      m_creditListed(kFirstQpn, 0),
      m_qps(kFirstQpn), // QP0 (subnet management) and QP1 (general services) are reserved (IBA 3.5.1)
      m_isActive(kFirstQpn, 0)
{
    m_entropyRng = CreateObject<UniformRandomVariable>();
}

void
RdmaNic::DoDispose()
{
    for (auto& qp : m_qps)
    {
        if (qp)
        {
            qp->Dispose();
        }
    }
    m_qps.clear();
    m_active.clear();
    m_isActive.clear();
    m_control.clear();
    m_planePorts.clear();
    m_staged.clear();
    m_framesBySize.clear();
    m_wake.Cancel();
    m_creditEvent.Cancel();
    m_creditQps.clear();
    m_creditListed.clear();
    m_creditOut.clear();
    FabricNetDevice::DoDispose();
}

int64_t
RdmaNic::AssignStreams(int64_t stream)
{
    m_entropyRng->SetStream(stream);
    return 1;
}

Ptr<RdmaQueuePair>
RdmaNic::CreateQp(uint32_t peerHost, uint8_t priority, uint16_t entropy)
{
    auto qp = CreateObject<RdmaQueuePair>();
    ObjectFactory psFactory(m_pathSelectorTypeId.GetName());
    Ptr<PathSelector> ps = psFactory.Create<PathSelector>();
    ps->SetBaseEntropy(entropy);
    ObjectFactory ccFactory(m_ccTypeId.GetName());
    Ptr<RdmaCongestionControl> cc = ccFactory.Create<RdmaCongestionControl>();
    RdmaCcSetup setup;
    setup.lineRateBps = GetLineRateBps();
    if (m_qpRateCapBps != 0)
    {
        setup.lineRateBps = std::min(setup.lineRateBps, m_qpRateCapBps);
    }
    setup.baseRtt = m_baseRtt;
    setup.mtuBytes = m_mtuBytes;
    cc->Init(setup);
    ObjectFactory recoveryFactory(m_lossRecoveryTypeId.GetName());
    Ptr<RdmaLossRecovery> recovery = recoveryFactory.Create<RdmaLossRecovery>();
    const auto qpn = static_cast<uint32_t>(m_qps.size());
    NS_ABORT_MSG_IF(qpn >= kFirstQpn + kMaxQps,
                    "RdmaNic: host " << m_hostId << " has used all " << kMaxQps
                                     << " QP numbers (24-bit BTH QPN)");
    // Random path selectors get a stream of their own, fixed by host and QPN (far above the
    // streams the runner hands out), so a run is reproducible even inside one process.
    ps->AssignStreams(kPathSelectorStreamBase + static_cast<int64_t>(m_hostId) * (1 << 24) + qpn);
    qp->Setup(this, qpn, peerHost, priority, ps, cc, recovery);
    m_qps.push_back(qp);
    m_isActive.push_back(0);
    m_creditListed.push_back(0);
    m_creditOut.push_back(0);
    m_qpCreatedTrace(qp);
    return qp;
}

uint64_t
RdmaNic::BdpBytes(const char* user) const
{
    NS_ABORT_MSG_IF(m_baseRtt.IsZero(), "RdmaNic: " << user << " needs BaseRtt");
    return static_cast<uint64_t>(static_cast<double>(GetLineRateBps()) / 8 * m_baseRtt.GetSeconds());
}

RdmaRequester::SenderWindow
RdmaNic::GetSenderWindow() const
{
    RdmaRequester::SenderWindow w;
    if (m_senderWindow != WINDOW_NONE)
    {
        w.bdpBytes = BdpBytes("SenderWindow");
        w.variable = m_senderWindow == WINDOW_VARIABLE;
    }
    return w;
}

uint64_t
RdmaNic::GetInitialCreditBytes() const
{
    return m_initialCredit != 0 ? m_initialCredit
                                : BdpBytes("ReceiverCredit with InitialCreditBytes 0");
}

uint64_t
RdmaNic::GetCreditWindowBytes() const
{
    return m_creditWindow != 0 ? m_creditWindow
                               : BdpBytes("ReceiverCredit with CreditWindowBytes 0");
}

void
RdmaNic::UpdateCreditOutstanding(const RdmaQueuePair& qp)
{
    uint64_t& cached = m_creditOut[qp.GetQpn()];
    const uint64_t now = qp.GetCreditOutstanding();
    m_creditOutstanding = m_creditOutstanding + now - cached;
    cached = now;
}

void
RdmaNic::ListForCredit(RdmaQueuePair* qp)
{
    uint8_t& listed = m_creditListed[qp->GetQpn()];
    if (!listed)
    {
        listed = 1;
        m_creditQps.push_back(qp);
    }
    ResumeCreditPacer();
}

void
RdmaNic::ResumeCreditPacer()
{
    if (!m_creditQps.empty() && !m_creditEvent.IsRunning())
    {
        CreditTick();
    }
}

void
RdmaNic::CreditTick()
{
    // One grant per tick, round-robin over the QPs that are owed credit, paced so that the
    // granted data arrives at this NIC's line rate (the receiver's credit pacer), and only
    // while less than the credit window is outstanding (granted or speculative, not arrived).
    // A full window stops the pacer without a next tick: every data arrival, on any QP,
    // re-opens it and resumes the pacer (DoReceive).
    while (!m_creditQps.empty())
    {
        if (m_creditOutstanding >= GetCreditWindowBytes())
        {
            return;
        }
        if (m_creditRr >= m_creditQps.size())
        {
            m_creditRr = 0;
        }
        RdmaQueuePair* qp = m_creditQps[m_creditRr];
        const uint64_t owed = qp->GetCreditOwed();
        if (owed == 0)
        {
            m_creditListed[qp->GetQpn()] = 0;
            m_creditQps.erase(m_creditQps.begin() + static_cast<std::ptrdiff_t>(m_creditRr));
            continue;
        }
        const uint64_t chunk = m_creditGrant != 0 ? m_creditGrant : 4ULL * m_mtuBytes;
        const uint64_t grant = std::min(chunk, owed);
        SendCredit(*qp, qp->GrantCredit(grant));
        UpdateCreditOutstanding(*qp);
        ++m_creditRr;
        const uint64_t packets = (grant + m_mtuBytes - 1) / m_mtuBytes;
        const uint32_t perPacket = kRoceDataOverheadBytes + GetPhyOverheadBytes() + 4 +
                                   (qp->GetCongestionControl()->UsesInt() ? kIntHeaderBytes : 0);
        m_creditEvent = Simulator::Schedule(
            PicoSeconds(SerializationPs(grant + packets * perPacket, GetLineRateBps())),
            &RdmaNic::CreditTick, this);
        return;
    }
}

void
RdmaNic::SendCredit(const RdmaQueuePair& qp, uint64_t cumulativeBytes)
{
    // An ACK frame whose AETH carries the reserved credit syndrome and, in its MSN field, the
    // cumulative grant (kCreditUnitBytes units, modulo 2^24).
    FrameMeta meta = ControlMeta(qp, FrameKind::ACK, qp.GetPathSelector()->GetBaseEntropy());
    meta.syndrome = RoceAethHeader::kSyndromeCredit;
    meta.aethMsn = static_cast<uint32_t>((cumulativeBytes / kCreditUnitBytes) & 0xFFFFFF);
    QueueControl(meta, 0);
}

void
RdmaNic::SendCreditRequest(const RdmaQueuePair& qp, uint64_t demandBytes)
{
    // UET's CREDIT_REQUEST: a sender out of credit cannot announce new demand on a data
    // packet; this frame does, on the QP's own port as a grant does.
    FrameMeta meta = ControlMeta(qp, FrameKind::ACK, qp.GetPathSelector()->GetBaseEntropy());
    meta.syndrome = RoceAethHeader::kSyndromeCreditRequest;
    meta.aethMsn = static_cast<uint32_t>(((demandBytes + kCreditUnitBytes - 1) / kCreditUnitBytes) &
                                         0xFFFFFF);
    QueueControl(meta, 0);
}

Ptr<RdmaQueuePair>
RdmaNic::Connect(Ptr<RdmaNic> remote, uint16_t entropy, uint8_t priority)
{
    // RoCE NICs derive the source port from the QP; here each side draws one at random from
    // the dynamic port range [49152, 65535] (RFC 6335).
    Ptr<RdmaQueuePair> local = CreateQp(remote->GetHostId(), priority, entropy);
    const auto remoteEntropy =
        static_cast<uint16_t>(remote->m_entropyRng->GetInteger(49152, 65535));
    Ptr<RdmaQueuePair> peer = remote->CreateQp(m_hostId, priority, remoteEntropy);
    local->SetPeerQpn(peer->GetQpn());
    peer->SetPeerQpn(local->GetQpn());
    return local;
}

Ptr<RdmaQueuePair>
RdmaNic::GetQp(uint32_t qpn) const
{
    return (qpn >= kFirstQpn && qpn < m_qps.size()) ? m_qps[qpn] : nullptr;
}

bool
RdmaNic::IsQpIdle(uint32_t qpn) const
{
    const Ptr<RdmaQueuePair> qp = GetQp(qpn);
    return qp && qp->GetUnackedBytes() == 0 && !qp->HasDataToSend() &&
           qp->GetPendingReceives() == 0 && m_isActive[qpn] == 0 && m_creditListed[qpn] == 0 &&
           m_creditOut[qpn] == 0;
}

void
RdmaNic::Activate(Ptr<RdmaQueuePair> qp)
{
    uint8_t& listed = m_isActive[qp->GetQpn()];
    if (!listed) // O(1): Activate runs on every ACK that frees window
    {
        listed = 1;
        m_active.push_back(PeekPointer(qp));
    }
    TransmitAll();
}

void
RdmaNic::Wake()
{
    TransmitAll();
}

Ptr<Packet>
RdmaNic::NewFrame(FrameMeta& meta, uint32_t payloadBytes)
{
    // The FrameMeta is the frame's headers; the Packet only has the frame's size.
    const uint32_t bytes = SetRoceFrameLength(meta, payloadBytes);
    auto& cache = m_framesBySize;
    for (size_t i = 0; i < cache.size(); ++i)
    {
        if (cache[i]->GetSize() == bytes)
        {
            std::rotate(cache.begin(), cache.begin() + i, cache.begin() + i + 1);
            return cache.front();
        }
    }
    if (cache.size() == kFrameSizesCached)
    {
        cache.pop_back();
    }
    cache.insert(cache.begin(), Create<Packet>(bytes));
    return cache.front();
}

Ptr<Packet>
RdmaNic::WireFrame(Ptr<Packet> frame, const FrameMeta& meta, bool transmitted) const
{
    if (meta.kind == FrameKind::PFC)
    {
        return frame; // MAC control frames carry their real bytes
    }
    Ptr<FabricNetDevice> peer = GetPeerDevice();
    const Mac48Address self = Mac48Address::ConvertFrom(GetAddress());
    const Mac48Address other =
        peer ? Mac48Address::ConvertFrom(peer->GetAddress()) : Mac48Address::GetBroadcast();
    // Hop by hop, as routers do: from this NIC to its switch port, or from it to this NIC.
    return SerializeRoceFrame(meta, frame->GetSize(), transmitted ? self : other,
                              transmitted ? other : self);
}

uint16_t
RdmaNic::ReplyEntropy(const RdmaQueuePair& qp, const FrameMeta& data) const
{
    if (m_ackRoute == ACK_FIXED)
    {
        return qp.GetPathSelector()->GetBaseEntropy();
    }
    return m_replyEntropy ? m_replyEntropy(data.srcHost, data.srcPort, ReceivedPath(data))
                          : data.srcPort;
}

void
RdmaNic::SendCnp(const RdmaQueuePair& qp, uint16_t entropy)
{
    // RoCEv2 CNP (Annex A17.9.3): BTH with opcode 0x81 and the destination QP, 16 reserved
    // bytes, ICRC.
    FrameMeta meta = ControlMeta(qp, FrameKind::CNP, entropy);
    meta.bthFlags = kBthBecn;
    QueueControl(meta, 16);
}

void
RdmaNic::SendProbe(uint32_t dstHost, uint16_t entropy, uint64_t seq, uint32_t frameBytes)
{
    FrameMeta meta;
    meta.srcHost = m_hostId;
    meta.dstHost = dstHost;
    meta.dstQp = kProbeQpn;
    meta.srcPort = entropy;
    meta.dstPort = kRoceV2UdpPort;
    meta.priority = m_controlPriority;
    meta.ecn = ECN_NOT_ECT;
    meta.kind = FrameKind::PROBE;
    meta.opcode = ROCE_UD_SEND_ONLY;
    meta.psn = seq;
    meta.sackBits = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    FrameMeta sized = meta;
    const uint32_t headers = SetRoceFrameLength(sized, 0);
    QueueControl(meta, frameBytes > headers ? frameBytes - headers : 0);
}

void
RdmaNic::SendControl(const RdmaQueuePair& qp, const RdmaAck& ack, const IntStackRef* intEcho,
                     uint16_t entropy)
{
    FrameMeta meta =
        ControlMeta(qp, ack.kind == RdmaAck::ACK ? FrameKind::ACK : FrameKind::NAK, entropy);
    meta.psn = ack.psn24;
    // The congestion echo of CE-marked data (per-entropy ECN feedback) rides in BECN.
    meta.bthFlags = ack.ecnEcho ? kBthBecn : 0;
    meta.syndrome = ack.kind == RdmaAck::ACK   ? RoceAethHeader::kSyndromeAck
                    : ack.kind == RdmaAck::NAK ? RoceAethHeader::kSyndromeNakPsnSequenceError
                                               : RoceAethHeader::kSyndromeNakTrimmed;
    meta.sackFormat = ack.sack;
    meta.sackPsn = ack.sack == RdmaAck::SACK_PSN ? ack.sackPsn24 : ack.sackBase24;
    meta.sackBits = ack.sack == RdmaAck::SACK_BITMAP ? ack.sackBits : 0;
    if (intEcho)
    {
        meta.intStack = *intEcho; // HPCC: the data packet's INT stack back to its sender (shared)
        if (!meta.intStack.IsPresent())
        {
            meta.intStack.Start(); // the echo header, empty: the data frame had none
        }
    }
    QueueControl(meta, 0);
}

FrameMeta
RdmaNic::ControlMeta(const RdmaQueuePair& qp, FrameKind kind, uint16_t entropy) const
{
    FrameMeta meta;
    meta.srcHost = m_hostId;
    meta.dstHost = qp.GetPeerHost();
    meta.dstQp = qp.GetPeerQpn();
    meta.srcPort = entropy;
    meta.dstPort = kRoceV2UdpPort;
    meta.priority = m_controlPriority;
    meta.ecn = ECN_NOT_ECT;
    meta.kind = kind;
    meta.opcode = kind == FrameKind::CNP ? ROCE_CNP : ROCE_RC_ACK;
    return meta;
}

void
RdmaNic::QueueControl(FrameMeta& meta, uint32_t payloadBytes)
{
    Ptr<Packet> p = NewFrame(meta, payloadBytes);
    m_control.push_back(ControlFrame{p, meta});
    TransmitAll();
}

uint32_t
RdmaNic::MaxDataFrameBytes(uint32_t mtuBytes)
{
    FrameMeta m;
    m.kind = FrameKind::DATA;
    m.intStack.Start();
    m.hasCreditDemand = true;
    return SetRoceFrameLength(m, mtuBytes);
}

bool
RdmaNic::DoDequeue(Ptr<Packet>& packet, FrameMeta& meta)
{
    return m_planePorts.empty() ? DequeueNext(packet, meta) : DequeueForPlane(0, packet, meta);
}

bool
RdmaNic::DequeueNext(Ptr<Packet>& packet, FrameMeta& meta)
{
    // With several ports, pause is each port's (DequeueForPlane): the scheduler ignores it.
    const bool onePort = m_planePorts.empty();
    if (!m_control.empty() && !(onePort && IsPaused(m_controlPriority)) &&
        HasCredit(m_controlPriority, m_control.front().packet->GetSize()))
    {
        packet = std::move(m_control.front().packet);
        meta = m_control.front().meta;
        m_control.pop_front();
        return true;
    }
    const Time now = Simulator::Now();
    const auto nowPs = static_cast<uint64_t>(now.GetPicoSeconds());
    uint64_t earliest = UINT64_MAX;
    size_t n = m_active.size();
    for (size_t tried = 0; tried < n;)
    {
        if (m_rrNext >= n)
        {
            m_rrNext = 0;
        }
        RdmaQueuePair* qp = m_active[m_rrNext];
        if (!qp->HasDataToSend())
        {
            // Drop it from the active set; it re-activates itself when it has data again.
            m_isActive[qp->GetQpn()] = 0;
            m_active.erase(m_active.begin() + static_cast<std::ptrdiff_t>(m_rrNext));
            --n;
            continue;
        }
        if ((onePort && IsPaused(qp->GetPriority())) ||
            (UsesCredits() && !HasCredit(qp->GetPriority(), MaxDataFrameBytes())))
        {
            // PFC pauses a priority, not a QP: skip it; Resume() calls TryTransmit.
            ++m_rrNext;
            ++tried;
            continue;
        }
        if (qp->NextTxPs() > nowPs)
        {
            earliest = std::min(earliest, qp->NextTxPs());
            ++m_rrNext;
            ++tried;
            continue;
        }
        ++m_rrNext;
        const RdmaQueuePair::TxDescriptor d = qp->NextDataPacket(now);
        const bool intOn = qp->GetCongestionControl()->UsesInt();
        meta = FrameMeta();
        if (intOn)
        {
            meta.intStack.Start();
        }
        meta.srcHost = m_hostId;
        meta.dstHost = qp->GetPeerHost();
        meta.dstQp = qp->GetPeerQpn();
        meta.srcPort = d.entropy;
        meta.dstPort = kRoceV2UdpPort;
        meta.priority = qp->GetPriority();
        meta.ecn = ECN_ECT0;
        meta.kind = FrameKind::DATA;
        meta.opcode = d.opcode;
        meta.bthFlags = static_cast<uint8_t>((d.ackRequest ? kBthAckRequest : 0) |
                                             (d.resend ? kBthRetx : 0));
        meta.psn = d.psn; // the whole PSN: the BTH carries its low 24 bits
        if (m_receiverCredit)
        {
            // RCCC: what this sender needs, cumulative (RoceCreditRequestHeader)
            meta.hasCreditDemand = true;
            meta.creditDemandUnits = static_cast<uint32_t>(
                (qp->CreditDemandBytes() + kCreditUnitBytes - 1) / kCreditUnitBytes);
        }
        packet = NewFrame(meta, d.payload);
        qp->NotePaced(packet->GetSize() + GetPhyOverheadBytes(), now, GetLineRateBps());
        return true;
    }
    if (earliest != UINT64_MAX && !m_wake.IsRunning())
    {
        m_wake = Simulator::Schedule(PicoSeconds(earliest - nowPs), &RdmaNic::Wake, this);
    }
    return false;
}

void
RdmaNic::DoReceive(Ptr<Packet> packet, const FrameMeta& meta)
{
    // The FrameMeta is the frame's headers (frame-meta.h): nothing to parse.
    if (meta.kind == FrameKind::PROBE && meta.dstHost == m_hostId)
    {
        m_probeReceivedTrace(meta); // the probe agent's; no QP
        return;
    }
    Ptr<RdmaQueuePair> qp = GetQp(meta.dstQp);
    if (meta.dstPort != kRoceV2UdpPort || meta.dstHost != m_hostId || !qp)
    {
        RecordDrop(packet, meta, DropReason::NIC_STALE);
        return;
    }
    const Time now = Simulator::Now();
    if (meta.opcode == ROCE_RC_ACK)
    {
        if (meta.syndrome == RoceAethHeader::kSyndromeCredit)
        {
            qp->ReceiveCredit(meta.aethMsn); // RCCC grant
            return;
        }
        if (meta.syndrome == RoceAethHeader::kSyndromeCreditRequest)
        {
            // RCCC request: the sender's new demand (24 bits), which it could not announce on
            // a data packet for lack of credit; grant it as if a data packet had announced it.
            if (m_receiverCredit)
            {
                qp->NoteCreditRequest(meta.aethMsn);
                UpdateCreditOutstanding(*qp);
                if (qp->GetCreditOwed() > 0)
                {
                    ListForCredit(PeekPointer(qp));
                }
            }
            return;
        }
        RdmaAck ack;
        const bool nak = RoceAethHeader::IsNakSyndrome(meta.syndrome);
        ack.kind = !nak ? RdmaAck::ACK
                   : meta.syndrome == RoceAethHeader::kSyndromeNakTrimmed ? RdmaAck::TRIM_NAK
                                                                          : RdmaAck::NAK;
        ack.psn24 = static_cast<uint32_t>(meta.psn & 0xFFFFFF);
        ack.ecnEcho = (meta.bthFlags & kBthBecn) != 0;
        ack.hops = static_cast<uint8_t>(64 - std::min<uint8_t>(64, meta.ttl));
        if (qp->GetCongestionControl()->UsesInt() && meta.intStack.IsPresent())
        {
            ack.intEcho = meta.intStack.Peek(); // the INT echo after the AETH
        }
        // A NAK of a selective-repeat QP carries a SACK after the AETH, in its format.
        const RdmaAck::Sack format = qp->GetLossRecovery()->GetSackFormat();
        if (ack.kind == RdmaAck::NAK && format == RdmaAck::SACK_PSN && meta.sackFormat == format)
        {
            ack.sack = RdmaAck::SACK_PSN;
            ack.sackPsn24 = meta.sackPsn;
        }
        else if (ack.kind == RdmaAck::NAK && format == RdmaAck::SACK_BITMAP &&
                 meta.sackFormat == format)
        {
            ack.sack = RdmaAck::SACK_BITMAP;
            ack.sackBase24 = meta.sackPsn;
            ack.sackBits = meta.sackBits;
        }
        qp->ReceiveAck(ack, now);
        return;
    }
    if (meta.opcode == ROCE_CNP)
    {
        qp->ReceiveCnp(now);
        return;
    }
    const bool ce = meta.ecn == ECN_CE;
    // Every reply to this packet (CNP, ACK/NAK) takes one route: solved once (AckRoute).
    const uint16_t reply = ReplyEntropy(*qp, meta);
    if (ce)
    {
        qp->NoteCeMarked();
        if (qp->TakeCnp(now, m_cnpInterval, false))
        {
            SendCnp(*qp, reply); // Reverse: back along the marked packet
        }
    }
    if (meta.trimmed)
    {
        // The payload was cut at a switch: answer with a trim NACK for this PSN.
        const RxAnswer answer =
            qp->ReceiveTrimmed(static_cast<uint32_t>(meta.psn & 0xFFFFFF), ReceivedPath(meta),
                               meta.srcPort, (meta.bthFlags & kBthRetx) != 0);
        if (answer.send)
        {
            SendControl(*qp, answer.ack, nullptr, reply);
        }
        return;
    }
    // HPCC: the INT stack the switches filled in travels in the meta.
    const bool intOn = qp->GetCongestionControl()->UsesInt();
    if (m_receiverCredit && meta.hasCreditDemand)
    {
        qp->NoteCreditDemand(meta.creditDemandUnits);
    }
    const RxAnswer answer = qp->ReceiveData(static_cast<uint32_t>(meta.psn & 0xFFFFFF), meta.opcode,
                                            (meta.bthFlags & kBthAckRequest) != 0,
                                            RocePayloadBytes(meta), ce, ReceivedPath(meta),
                                            meta.srcPort, (meta.bthFlags & kBthRetx) != 0);
    if (answer.send)
    {
        SendControl(*qp, answer.ack, intOn ? &meta.intStack : nullptr, reply);
    }
    if (m_receiverCredit)
    {
        // What arrived frees room in the credit window; what the sender still needs is owed.
        // The room is every listed QP's, not only this one's: a QP whose data fills the
        // window without being owed anything (a new QP's speculative burst) must restart the
        // pacer it stopped, or a QP listed meanwhile with nothing in flight (a step posted out
        // of credit, announced by a credit request) waits for a grant forever.
        UpdateCreditOutstanding(*qp);
        if (qp->GetCreditOwed() > 0)
        {
            ListForCredit(PeekPointer(qp));
        }
        else
        {
            ResumeCreditPacer();
        }
    }
    if (answer.outOfOrder && m_cnpOnOoo && qp->TakeCnp(now, m_cnpInterval, true))
    {
        SendCnp(*qp, reply);
    }
}

} // namespace ns3
