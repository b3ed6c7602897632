#include "uec-rud-recovery.h"

#include "rdma/model/rdma-responder.h"
#include "rdma/model/headers/roce-sack-header.h"
#include "rdma/model/loss-recovery/loss-recovery-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UecRudRecovery);

namespace
{
const LossRecoveryRegistration kRegistration{
    {"uec-rud", "ns3::UecRudRecovery",
     "UEC-style reliable unordered delivery: an entropy per packet from the path selector, "
     "SACK bitmaps, selective retransmission",
     LossRecoveryInfo::TRANSPORT, LossRecoveryInfo::ECN_FROM_BDP, kUecMinRtoPs},
    "Ultra Ethernet 1.0, packet delivery sublayer: RUD"};
} // namespace

TypeId
UecRudRecovery::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UecRudRecovery")
                            .SetParent<SelectiveRepeatRecovery>()
                            .SetGroupName("Rdma")
                            .AddConstructor<UecRudRecovery>();
    return tid;
}

void
UecRudRecovery::FillSack(const RdmaResponder& resp, uint64_t psn, RdmaAck& ack) const
{
    // The PSNs held in a 64-PSN window that starts at ePSN, or ends at the new arrival when
    // that is further ahead.
    constexpr uint64_t kBits = RoceSackBitmapHeader::kBits;
    const uint64_t ePsn = resp.GetEpsn();
    const uint64_t base = psn - ePsn < kBits ? ePsn : psn - (kBits - 1);
    ack.sack = RdmaAck::SACK_BITMAP;
    ack.sackBase24 = Psn24(base);
    ack.sackBits = RoceSackBitmapHeader::Build(base, [&](uint64_t p) { return IsHeld(resp, p); });
}

} // namespace ns3
