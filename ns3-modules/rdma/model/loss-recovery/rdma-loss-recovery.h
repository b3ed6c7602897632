/*
 * tusk: RdmaLossRecovery, the pluggable loss recovery of RC QPs (go-back-N, selective repeat,
 * UEC-style RUD), built per QP by the NIC from its LossRecovery TypeId attribute, the way
 * ns-3's TCP builds its TcpRecoveryOps.
 */
#ifndef TUSK_RDMA_LOSS_RECOVERY_H
#define TUSK_RDMA_LOSS_RECOVERY_H

#include "rdma/model/headers/rdma-ack.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

class RdmaRequester;
class RdmaResponder;

/**
 * \brief How a QP recovers lost packets: the requester's rule (what to resend, when) and the
 * responder's rule (what to accept, what to answer), which come in pairs.
 *
 * The requester (RdmaRequester) and responder (RdmaResponder) own the state every variant
 * shares (PSNs, the per-PSN TxSlots, ePSN, ACK coalescing) and call these hooks at the points
 * where the variants differ; a variant keeps its own extra state. One object per QP end, used
 * by both halves of that end; they serve opposite directions of traffic, so a variant's
 * requester state and responder state are independent. Variants: GoBackNRecovery (RoCEv2, and
 * UEC-style ROD), SelectiveRepeatRecovery (IRN-style) and UecRudRecovery (UEC-style RUD).
 * No hook allocates per packet.
 */
class RdmaLossRecovery : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaLossRecovery();
    ~RdmaLossRecovery() override;

    /**
     * \brief Packets a requester may have outstanding, given the NIC's limit
     * (MaxOutstandingPackets, 0 = none); 0 = no limit.
     */
    virtual uint64_t OutstandingLimit(uint64_t nicLimit) const { return nicLimit; }
    /** What this variant's NAKs carry after the AETH (the NIC serialises and parses it). */
    virtual RdmaAck::Sack GetSackFormat() const { return RdmaAck::NO_SACK; }

    // ---- requester ----------------------------------------------------------------------
    /** A packet declared lost to resend before new data: its PSN; false if none. */
    virtual bool NextResend(RdmaRequester& req, uint64_t& psn) { return false; }
    /** A cumulative ACK covers every PSN up to `psn`, which is newly acknowledged. */
    virtual void OnCumulativeAck(RdmaRequester& req, uint64_t psn) {}
    /** After an ACK or NAK's cumulative part was applied: act on the rest (NAK, SACK). */
    virtual void OnAck(RdmaRequester& req, const RdmaAck& ack, Time now) = 0;
    /** A trim NACK for the outstanding `psn` (its NACK feedback already given). */
    virtual void OnTrimNack(RdmaRequester& req, uint64_t psn) = 0;
    /** The retransmission timer fired with packets outstanding (TIMEOUT feedback given). */
    virtual void OnTimeout(RdmaRequester& req) = 0;

    // ---- responder ----------------------------------------------------------------------
    /** Whether `psn` > ePSN has already arrived and is held out of order. */
    virtual bool IsHeld(const RdmaResponder& resp, uint64_t psn) const { return false; }
    /**
     * \brief A new data packet arrived with `psn` > ePSN (counted as out of order already):
     * keep or discard it, and fill the answer (RdmaResponder::Respond).
     */
    virtual void OnOutOfOrder(RdmaResponder& resp,
                              uint64_t psn,
                              uint32_t payload,
                              bool lastOfMessage,
                              RxAnswer& answer) = 0;
    /**
     * \brief The packet at ePSN arrived and was delivered. Deliver what it releases;
     * \return whether it filled a hole (packets held behind it were delivered), and set
     * `messageEnded` if one of those ended a message.
     */
    virtual bool OnInOrder(RdmaResponder& resp, bool& messageEnded) { return false; }
    /** Payload bytes held out of order now. */
    virtual uint64_t GetReorderBufferBytes() const { return 0; }
};

/**
 * \brief Go-back-N, as RoCEv2 NICs without selective repeat (ConnectX): the responder accepts
 * only PSN = ePSN, answers the first out-of-order arrival for an ePSN with one NAK (PSN
 * sequence error) and discards it and later ones silently; the requester goes back to the
 * NAK's PSN (or a trimmed PSN, or the oldest unacknowledged one on a timeout) and resends
 * everything from there. IBA Vol. 1 9.7.5.2. UEC-style ROD (reliable ordered delivery) uses it
 * too. No state but the responder's "NAK sent for this ePSN" flag.
 */
class GoBackNRecovery : public RdmaLossRecovery
{
  public:
    static TypeId GetTypeId();

    void OnAck(RdmaRequester& req, const RdmaAck& ack, Time now) override;
    void OnTrimNack(RdmaRequester& req, uint64_t psn) override;
    void OnTimeout(RdmaRequester& req) override;
    void OnOutOfOrder(RdmaResponder& resp,
                      uint64_t psn,
                      uint32_t payload,
                      bool lastOfMessage,
                      RxAnswer& answer) override;
    bool OnInOrder(RdmaResponder& resp, bool& messageEnded) override;

  private:
    bool m_nakOutstanding = false; //!< responder: a NAK for the current ePSN was sent
};

} // namespace ns3

#endif
