#include "rdma-queue-pair.h"

#include "rdma-nic.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaQueuePair);

TypeId
RdmaQueuePair::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaQueuePair")
            .SetParent<Object>()
            .SetGroupName("Rdma")
            .AddConstructor<RdmaQueuePair>()
            .AddTraceSource("PacketSent",
                            "A data packet sent for the first time: PSN (64-bit), payload "
                            "bytes, entropy.",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_sentTrace),
                            "ns3::RdmaQueuePair::DataPacketTracedCallback")
            .AddTraceSource("PacketRetransmitted",
                            "A data packet sent again (go-back-N, selective repeat, timeout): "
                            "PSN, payload bytes, entropy.",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_retransmittedTrace),
                            "ns3::RdmaQueuePair::DataPacketTracedCallback")
            .AddTraceSource("PacketAcked",
                            "A data packet acknowledged for the first time, cumulatively or by "
                            "SACK: PSN, entropy, ECN echo, RTT of its last transmission.",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_ackedTrace),
                            "ns3::RdmaQueuePair::AckedTracedCallback")
            .AddTraceSource("NakReceived",
                            "The requester received a NAK (PSN = the responder's ePSN) or a "
                            "trim NACK (PSN = the trimmed packet's).",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_nakReceivedTrace),
                            "ns3::RdmaQueuePair::NakTracedCallback")
            .AddTraceSource("Timeout",
                            "The retransmission timer fired: the oldest outstanding PSN.",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_timeoutTrace),
                            "ns3::RdmaQueuePair::TimeoutTracedCallback")
            .AddTraceSource("PacketDelivered",
                            "The responder delivered a data packet in order: PSN, payload "
                            "bytes.",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_deliveredTrace),
                            "ns3::RdmaQueuePair::DeliveredTracedCallback")
            .AddTraceSource("NakSent",
                            "The responder sent a NAK (PSN = its ePSN) or a trim NACK (PSN = "
                            "the trimmed packet's).",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_nakSentTrace),
                            "ns3::RdmaQueuePair::NakTracedCallback")
            .AddTraceSource("PacketReceived",
                            "A data frame reached the responder (first copy, duplicate, out of "
                            "order or trimmed, before any decision): PSN (64-bit), trimmed, "
                            "path (FrameMeta::path, the switches' egress ports), entropy (UDP "
                            "source port), resent (the sender marked it a resend).",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_receivedTrace),
                            "ns3::RdmaQueuePair::ReceivedTracedCallback");
    return tid;
}

RdmaQueuePair::RdmaQueuePair() = default;
RdmaQueuePair::~RdmaQueuePair() = default;

void
RdmaQueuePair::DoDispose()
{
    m_requester.Dispose();
    m_responder.Dispose();
    m_nic = nullptr;
    m_pathSelector = nullptr;
    m_cc = nullptr;
    m_recovery = nullptr;
    Object::DoDispose();
}

void
RdmaQueuePair::Setup(Ptr<RdmaNic> nic,
                     uint32_t qpn,
                     uint32_t peerHost,
                     uint8_t priority,
                     Ptr<PathSelector> ps,
                     Ptr<RdmaCongestionControl> cc,
                     Ptr<RdmaLossRecovery> recovery)
{
    m_nic = nic;
    m_qpn = qpn;
    m_peerHost = peerHost;
    m_priority = priority;
    m_pathSelector = ps;
    m_cc = cc;
    m_recovery = recovery;
    RdmaRequester::Traces tx;
    tx.sent = &m_sentTrace;
    tx.retransmitted = &m_retransmittedTrace;
    tx.acked = &m_ackedTrace;
    tx.nakReceived = &m_nakReceivedTrace;
    tx.timeout = &m_timeoutTrace;
    m_requester.Setup(this, PeekPointer(nic), ps, cc, recovery, &m_counters, tx,
                      nic->GetMtuBytes(), nic->GetRetransmitTimeout(),
                      nic->GetMaxOutstandingPackets(), nic->GetSenderWindow());
    if (nic->ReceiverCreditEnabled())
    {
        m_requester.EnableReceiverCredit(nic->GetInitialCreditBytes());
        m_responder.EnableReceiverCredit(nic->GetInitialCreditBytes());
    }
    RdmaResponder::Traces rx;
    rx.delivered = &m_deliveredTrace;
    rx.nakSent = &m_nakSentTrace;
    rx.received = &m_receivedTrace;
    m_responder.Setup(recovery, &m_counters, rx, nic->GetAckInterval(), qpn);
}

} // namespace ns3
