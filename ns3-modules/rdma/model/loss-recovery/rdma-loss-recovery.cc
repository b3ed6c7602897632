#include "rdma-loss-recovery.h"

#include "rdma/model/rdma-requester.h"
#include "rdma/model/rdma-responder.h"
#include "rdma/model/loss-recovery/loss-recovery-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaLossRecovery);
NS_OBJECT_ENSURE_REGISTERED(GoBackNRecovery);

namespace
{
const LossRecoveryRegistration kGoBackN{
    {"go-back-n", "ns3::GoBackNRecovery",
     "RoCEv2 go-back-N: one NAK per out-of-order PSN, the sender resends from it",
     LossRecoveryInfo::RECEIVER, LossRecoveryInfo::IN_ORDER},
    "IBA vol. 1 rel. 1.4, RC transport: PSN sequence error NAK (ConnectX without selective "
    "repeat)"};
/** UEC reliable ordered delivery: go-back-N over one entropy per connection. */
const LossRecoveryRegistration kUecRod{
    {"uec-rod", "ns3::GoBackNRecovery",
     "UEC-style reliable ordered delivery: one entropy per connection, go-back-N",
     LossRecoveryInfo::TRANSPORT,
     LossRecoveryInfo::IN_ORDER | LossRecoveryInfo::ONE_PATH | LossRecoveryInfo::ECN_FROM_BDP,
     kUecMinRtoPs},
    "Ultra Ethernet 1.0, packet delivery sublayer: ROD"};
} // namespace

uint64_t
ExtendPsn(uint32_t psn24, uint64_t reference)
{
    constexpr uint64_t kPsnHalf = kPsnSpace / 2;
    uint64_t candidate = (reference & ~(kPsnSpace - 1)) | psn24;
    if (candidate + kPsnHalf < reference)
    {
        candidate += kPsnSpace;
    }
    else if (candidate > reference + kPsnHalf && candidate >= kPsnSpace)
    {
        candidate -= kPsnSpace;
    }
    return candidate;
}

TypeId
RdmaLossRecovery::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaLossRecovery").SetParent<Object>().SetGroupName("Rdma");
    return tid;
}

RdmaLossRecovery::RdmaLossRecovery() = default;
RdmaLossRecovery::~RdmaLossRecovery() = default;

TypeId
GoBackNRecovery::GetTypeId()
{
    static TypeId tid = TypeId("ns3::GoBackNRecovery")
                            .SetParent<RdmaLossRecovery>()
                            .SetGroupName("Rdma")
                            .AddConstructor<GoBackNRecovery>();
    return tid;
}

void
GoBackNRecovery::OnAck(RdmaRequester& req, const RdmaAck& ack, Time now)
{
    if (ack.kind != RdmaAck::NAK)
    {
        return;
    }
    // The NAK names the responder's ePSN, now snd_una: that packet is reported lost and
    // everything from it is sent again.
    req.Feedback(req.Slot(req.GetSndUna()), PathSelector::NACK, now);
    if (req.RewindTo(req.GetSndUna()))
    {
        req.Activate();
    }
}

void
GoBackNRecovery::OnTrimNack(RdmaRequester& req, uint64_t psn)
{
    req.RewindTo(psn); // go back to the trimmed packet
}

void
GoBackNRecovery::OnTimeout(RdmaRequester& req)
{
    req.RewindTo(req.GetSndUna()); // go back to the oldest unacknowledged packet
}

void
GoBackNRecovery::OnOutOfOrder(RdmaResponder& resp,
                              uint64_t psn,
                              uint32_t payload,
                              bool lastOfMessage,
                              RxAnswer& answer)
{
    // Discard it; one NAK per ePSN.
    if (!m_nakOutstanding)
    {
        m_nakOutstanding = true;
        resp.Respond(answer, RdmaAck::NAK, resp.GetEpsn());
    }
}

bool
GoBackNRecovery::OnInOrder(RdmaResponder& resp, bool& messageEnded)
{
    m_nakOutstanding = false; // a new ePSN: its first out-of-order arrival gets a NAK
    return false;
}

} // namespace ns3
