/*
 * tusk: UecRudRecovery, the loss recovery of the UEC-style RUD transport.
 */
#ifndef TUSK_UEC_RUD_RECOVERY_H
#define TUSK_UEC_RUD_RECOVERY_H

#include "selective-repeat-recovery.h"

namespace ns3
{

/**
 * \brief Reliable unordered delivery in the style of the Ultra Ethernet Consortium's
 * specification 1.0 (June 2025): selective repeat (SelectiveRepeatRecovery: out-of-order
 * placement, RACK-style loss detection, resend what is missing) with a 64-bit SACK bitmap in
 * every NAK instead of IRN's one PSN (RoceSackBitmapHeader, 12 bytes after the AETH). The
 * bitmap starts at ePSN when the arrival that triggered the NAK is within 64 PSNs of it, else
 * at that arrival's PSN - 63 (UEC's SACK offset), so the newest arrival is always reported; a
 * lost NAK is repaired by the next one. Building it reads the 64 reorder-buffer slots (no
 * allocation).
 */
class UecRudRecovery : public SelectiveRepeatRecovery
{
  public:
    static TypeId GetTypeId();
    RdmaAck::Sack GetSackFormat() const override { return RdmaAck::SACK_BITMAP; }

  protected:
    void FillSack(const RdmaResponder& resp, uint64_t psn, RdmaAck& ack) const override;
};

} // namespace ns3

#endif
