/*
 * tusk: SelectiveRepeatRecovery, IRN-style loss recovery of RC QPs.
 */
#ifndef TUSK_SELECTIVE_REPEAT_RECOVERY_H
#define TUSK_SELECTIVE_REPEAT_RECOVERY_H

#include "rdma-loss-recovery.h"

#include "ns3/event-id.h"

#include <vector>

namespace ns3
{

/**
 * \brief Selective repeat in the style of IRN (Mittal et al., "Revisiting Network Support for
 * RDMA", SIGCOMM 2018).
 *
 * Responder: places packets that arrive out of order within `Window` of ePSN (one 4-byte slot
 * per packet of the window, allocated when the responder first sees data) and answers each
 * with a NAK carrying ePSN and a SACK (IRN: the PSN that arrived); messages complete in order
 * when the hole before them fills, at the arrival of their last missing packet.
 * Requester: at most `Window` packets outstanding (and the NIC's MaxOutstandingPackets);
 * resends only what is missing, oldest first: a packet is declared lost when a packet sent
 * after it has been acknowledged and it has been out for longer than the RTT of that
 * acknowledged packet plus `ReorderWindow` (RACK, RFC 8985 section 6.2, which tolerates
 * reordering up to that much path-delay difference; the RACK reordering timer, section 6.3,
 * re-checks at that deadline even when no further acknowledgement arrives, so losses that fill
 * the window are still detected before the retransmission timeout), when a trim NACK names it,
 * and every unacknowledged packet on a retransmission timeout. Loss detection scans forward
 * from where it stopped: amortised O(1) per acknowledgement.
 */
class SelectiveRepeatRecovery : public RdmaLossRecovery
{
  public:
    static TypeId GetTypeId();
    ~SelectiveRepeatRecovery() override;

    uint64_t OutstandingLimit(uint64_t nicLimit) const override;
    RdmaAck::Sack GetSackFormat() const override { return RdmaAck::SACK_PSN; }
    bool NextResend(RdmaRequester& req, uint64_t& psn) override;
    void OnCumulativeAck(RdmaRequester& req, uint64_t psn) override;
    void OnAck(RdmaRequester& req, const RdmaAck& ack, Time now) override;
    void OnTrimNack(RdmaRequester& req, uint64_t psn) override;
    void OnTimeout(RdmaRequester& req) override;
    bool IsHeld(const RdmaResponder& resp, uint64_t psn) const override;
    void OnOutOfOrder(RdmaResponder& resp,
                      uint64_t psn,
                      uint32_t payload,
                      bool lastOfMessage,
                      RxAnswer& answer) override;
    bool OnInOrder(RdmaResponder& resp, bool& messageEnded) override;
    uint64_t GetReorderBufferBytes() const override { return m_rxOooBytes; }

  protected:
    /** The SACK part of the NAK for an out-of-order `psn` that was just placed. */
    virtual void FillSack(const RdmaResponder& resp, uint64_t psn, RdmaAck& ack) const;

    uint64_t m_window = 1024; //!< attribute Window, packets

    void DoDispose() override;

  private:
    /** RACK: the send time and RTT of the most recently sent packet known to be delivered. */
    void NoteDelivered(const RdmaRequester& req, uint64_t psn);
    void DetectLosses(RdmaRequester& req, Time now);
    /** The RACK reordering timer fired (RFC 8985 section 6.3): detect, then resend. */
    void OnRackTimer(RdmaRequester* req);

    Time m_reorderWindow;

    // Requester.
    uint64_t m_rackSentPs = 0;  //!< send time of the latest-sent packet known delivered
    uint64_t m_rackRttPs = 0;   //!< its RTT (RACK.rtt), ps
    EventId m_rackTimer;        //!< the RACK reordering timer
    uint64_t m_lossScan = 0;    //!< PSNs below this have been through loss detection
    uint64_t m_retxNext = 0;    //!< next PSN to consider for retransmission
    uint64_t m_trimScanEnd = 0; //!< one past the highest PSN declared lost by a trim NACK

    // Responder.
    std::vector<uint32_t> m_rxSlots; //!< payload | kRxLast per PSN of the window, 0 = hole
    uint64_t m_rxOooBytes = 0;       //!< payload held out of order
};

} // namespace ns3

#endif
