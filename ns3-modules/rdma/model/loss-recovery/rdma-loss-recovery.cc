#include "rdma-loss-recovery.h"

#include "rdma/model/rdma-requester.h"
#include "rdma/model/rdma-responder.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaLossRecovery);
NS_OBJECT_ENSURE_REGISTERED(GoBackNRecovery);

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
