/*
 * tusk: PathSelector, the host-side load-balancing seam (design.md): which entropy (UDP
 * source port) the next packet of a QP carries, and feedback per entropy. The shape follows
 * htsim's sender multipath interface (uet-htsim sim/uec_mp.h): next entropy, and feedback.
 */
#ifndef TUSK_PATH_SELECTOR_H
#define TUSK_PATH_SELECTOR_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

class PathSelector : public Object
{
  public:
    /** End-to-end signal about a packet that carried a given entropy. */
    enum Feedback : uint8_t
    {
        GOOD = 0,    //!< acknowledged, not ECN-marked
        ECN = 1,     //!< acknowledged with ECN echo
        NACK = 2,    //!< negatively acknowledged (loss or trim)
        TIMEOUT = 3, //!< retransmission timeout
    };

    static TypeId GetTypeId();

    /** The QP's own entropy, chosen at connection set-up (its UDP source port). */
    void SetBaseEntropy(uint16_t entropy) { m_base = entropy; }
    uint16_t GetBaseEntropy() const { return m_base; }

    /** Entropy for the next data packet. */
    virtual uint16_t NextEntropy(Time now) = 0;
    /**
     * \brief Feedback for a packet that carried `entropy`. The QP reports, per data packet:
     * GOOD when it is acknowledged (cumulatively or by SACK) without congestion echo, ECN when
     * the acknowledgement echoes a CE mark (BTH BECN), NACK when the packet is declared lost
     * (go-back-N NAK for its PSN, or selective-repeat loss detection) and TIMEOUT for the
     * oldest outstanding packet when the retransmission timer fires.
     */
    virtual void OnFeedback(uint16_t entropy, Feedback fb, Time now) {}

  protected:
    uint16_t m_base = 0;
};

/** \brief One entropy per QP, for the QP's lifetime: classic RoCEv2 (ECMP hashes it). */
class FixedPathSelector : public PathSelector
{
  public:
    static TypeId GetTypeId();
    uint16_t NextEntropy(Time) override { return m_base; }
};

/**
 * \brief Oblivious host-side spraying: every data packet carries the next entropy of a pool
 * of PoolSize distinct UDP source ports, in round-robin order (htsim's UecMpOblivious in
 * uet-htsim sim/uec_mp.h); ECMP switches hash each packet onto its own path. The pool is
 * derived from the QP's base entropy: entropy i = 49152 + (base - 49152 + i * 40503) mod 16384,
 * a permutation of the dynamic port range (RFC 6335), so the pool has no duplicates. No state
 * but a counter; ignores feedback (REPS, which uses it, plugs in here).
 */
class ObliviousSprayPathSelector : public PathSelector
{
  public:
    static TypeId GetTypeId();
    uint16_t NextEntropy(Time now) override;
    /** Entropy i of the pool (i < PoolSize). */
    uint16_t PoolEntropy(uint32_t i) const;

  private:
    uint32_t m_poolSize = 16384;
    uint32_t m_next = 0;
};

} // namespace ns3

#endif
