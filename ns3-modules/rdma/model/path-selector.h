/*
 * tusk: PathSelector, the host-side load-balancing seam (design.md): which entropy (UDP
 * source port) the next packet of a QP carries, and feedback per entropy. The shape follows
 * htsim's sender multipath interface (uet-htsim sim/uec_mp.h): next entropy, and feedback.
 */
#ifndef TUSK_PATH_SELECTOR_H
#define TUSK_PATH_SELECTOR_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <vector>

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
    /** Fix the selector's random streams (ns-3 AssignStreams); returns the number used. */
    virtual int64_t AssignStreams(int64_t stream) { return 0; }

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

    /**
     * \brief Entropy i of the pool derived from `base`: 49152 + (base' + i * 40503) mod 16384,
     * base' = base - 49152 when base is in the dynamic port range (RFC 6335), else base. The
     * map i -> entropy is a permutation of the dynamic range (40503 is odd), so any prefix of
     * the pool has distinct entropies.
     */
    static uint16_t PoolEntropyOf(uint16_t base, uint32_t i);
    /** The inverse of PoolEntropyOf: the pool index of `entropy` (0..16383). */
    static uint32_t PoolIndexOf(uint16_t base, uint16_t entropy);

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

/**
 * \brief Oblivious spraying with a uniformly random EV per packet from a pool of PoolSize
 * entropies (UEC 1.0's "oblivious" packet spraying; htsim's UecMpOblivious draws at random
 * too). Ignores feedback.
 */
class RandomSprayPathSelector : public PathSelector
{
  public:
    static TypeId GetTypeId();
    RandomSprayPathSelector();
    uint16_t NextEntropy(Time now) override;
    int64_t AssignStreams(int64_t stream) override;

  private:
    uint32_t m_poolSize = 256;
    Ptr<UniformRandomVariable> m_rng;
};

/**
 * \brief Bitmap path selection (UEC 1.0's "bitmap" load balancing, htsim UecMpBitmap in
 * spirit): round-robin over a pool of PoolSize EVs, skipping the EVs whose latest feedback was
 * ECN, NACK or TIMEOUT (one bit per EV; GOOD clears it). When every EV of the pool is marked,
 * all bits are cleared and round-robin resumes. No allocation after construction.
 */
class BitmapPathSelector : public PathSelector
{
  public:
    static TypeId GetTypeId();
    uint16_t NextEntropy(Time now) override;
    void OnFeedback(uint16_t entropy, Feedback fb, Time now) override;
    /** Whether pool EV `entropy` is currently avoided. */
    bool IsMarked(uint16_t entropy) const;
    uint32_t GetMarkedCount() const { return m_markedCount; }

  private:
    void Init();
    uint32_t m_poolSize = 256;
    uint32_t m_next = 0;
    uint32_t m_markedCount = 0;
    std::vector<bool> m_marked; //!< per pool index; sized once, on first use
};

/**
 * \brief REPS, Recycled Entropy Packet Spraying (Bonato et al., "REPS: Recycled Entropy Packet
 * Spraying for Adaptive Load Balancing and Failure Mitigation", 2024; a load-balancing scheme
 * of UEC 1.0). The EV of every acknowledged, unmarked packet (GOOD) is pushed into a circular
 * buffer of BufferSize entries (the oldest is overwritten when full); the next packet takes the
 * oldest cached EV, or explores a fresh uniformly random EV of a pool of ExplorePoolSize when
 * the buffer is empty. ECN-marked, NACKed and timed-out EVs are not recycled.
 * Failure mitigation: a TIMEOUT (or a NACK, which in this model is how a trim or a loss comes
 * back) freezes exploration for FreezeDuration: while frozen and the buffer is empty, the
 * sender replays the last BufferSize EVs that were good instead of exploring new ones, so a
 * dead path found by exploration is not hit again.
 */
class RepsPathSelector : public PathSelector
{
  public:
    static TypeId GetTypeId();
    RepsPathSelector();
    uint16_t NextEntropy(Time now) override;
    void OnFeedback(uint16_t entropy, Feedback fb, Time now) override;
    int64_t AssignStreams(int64_t stream) override;

    /** Cached EVs not yet reused. */
    uint32_t GetCachedCount() const { return m_size; }
    bool IsFrozen(Time now) const { return m_frozenUntilPs > static_cast<uint64_t>(now.GetPicoSeconds()); }
    uint64_t GetExplorations() const { return m_explorations; }

  private:
    void Init();
    uint32_t m_bufferSize = 8;
    uint32_t m_explorePool = 16384;
    Time m_freezeDuration;
    bool m_freezeOnNack = true;
    std::vector<uint16_t> m_ring; //!< BufferSize slots; sized once
    uint32_t m_head = 0;          //!< oldest cached entry
    uint32_t m_size = 0;          //!< cached entries not yet reused
    uint64_t m_pushes = 0;        //!< EVs ever recycled (slots hold the last min(pushes, N))
    uint32_t m_replay = 0;        //!< freeze: next slot to replay
    uint64_t m_frozenUntilPs = 0;
    uint64_t m_explorations = 0;
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif
