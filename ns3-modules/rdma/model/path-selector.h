/*
 * tusk: PathSelector, the host-side load-balancing seam (docs/architecture.md): which entropy (UDP
 * source port) the next packet of a QP carries, and feedback per entropy. The shape follows
 * htsim's sender multipath interface (uet-htsim sim/uec_mp.h): next entropy, and feedback.
 *
 * The policies themselves live in lb-policies/ (one file pair each, registered by short name
 * there); only the interface and the NIC's default, FixedPathSelector, are here, so that the
 * NIC (this module) sees them and the policies depend on this module, not the other way.
 */
#ifndef TUSK_PATH_SELECTOR_H
#define TUSK_PATH_SELECTOR_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \brief Chooses the entropy of each data packet of one QP and learns from per-packet
 * feedback.
 *
 * Non-virtual interface in the style of ns-3's QueueDisc (and of LoadBalancer::SelectEgress):
 * NextEntropy and OnFeedback validate, count and fire the trace sources, then call the
 * policy's private DoNextEntropy / DoFeedback, which only choose and learn. One instance per
 * QP, built by the NIC from its `PathSelector` TypeId attribute; no Simulator needed (time is
 * passed in), so every policy is unit-tested with a fake clock.
 */
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
    /** Number of Feedback kinds. */
    static constexpr uint8_t kFeedbackKinds = 4;

    /** TracedCallback signature of "EntropyChosen": the entropy of the next data packet. */
    typedef void (*EntropyTracedCallback)(uint16_t entropy);
    /** TracedCallback signature of "Feedback": a packet that carried `entropy` was `fb`. */
    typedef void (*FeedbackTracedCallback)(uint16_t entropy, PathSelector::Feedback fb);

    static TypeId GetTypeId();
    PathSelector();
    ~PathSelector() override;

    /** The QP's own entropy, chosen at connection set-up (its UDP source port, 1..65535). */
    void SetBaseEntropy(uint16_t entropy) { m_base = entropy; }
    uint16_t GetBaseEntropy() const { return m_base; }
    /** Fix the selector's random streams (ns-3 AssignStreams); returns the number used. */
    virtual int64_t AssignStreams(int64_t stream) { return 0; }

    /**
     * \brief Entropy (UDP source port) for the next data packet of the QP.
     * Asks the policy (DoNextEntropy), counts the choice and fires "EntropyChosen".
     * Aborts if the policy returns 0, which is not a usable UDP source port (RFC 768).
     */
    uint16_t NextEntropy(Time now)
    {
        const uint16_t e = DoNextEntropy(now);
        if (e == 0)
        {
            AbortZeroEntropy();
        }
        ++m_chosen;
        m_entropyTrace(e);
        return e;
    }

    /**
     * \brief Feedback for a packet that carried `entropy`. The QP reports, per data packet:
     * GOOD when it is acknowledged (cumulatively or by SACK) without congestion echo, ECN when
     * the acknowledgement echoes a CE mark (BTH BECN), NACK when the packet is declared lost
     * (go-back-N NAK for its PSN, selective-repeat loss detection, or a trim NACK) and TIMEOUT
     * for the oldest outstanding packet when the retransmission timer fires.
     * Counts the feedback per kind and fires "Feedback", then calls DoFeedback.
     * Aborts on a kind that is not a Feedback value.
     */
    void OnFeedback(uint16_t entropy, Feedback fb, Time now)
    {
        if (fb >= kFeedbackKinds)
        {
            AbortBadFeedback(fb);
        }
        ++m_feedback[fb];
        m_feedbackTrace(entropy, fb);
        DoFeedback(entropy, fb, now);
    }

    /** Entropies chosen so far (= data packets sent with this selector, resends included). */
    uint64_t GetEntropiesChosen() const { return m_chosen; }
    /** Feedback of kind `fb` received so far. */
    uint64_t GetFeedbackCount(Feedback fb) const { return m_feedback[fb % kFeedbackKinds]; }

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
    uint16_t m_base = 0; //!< the QP's own entropy

  private:
    /** The policy: the entropy of the next data packet (never 0). */
    virtual uint16_t DoNextEntropy(Time now) = 0;
    /** The policy learns from feedback; the default ignores it (oblivious policies). */
    virtual void DoFeedback(uint16_t entropy, Feedback fb, Time now) {}

    [[noreturn]] void AbortZeroEntropy() const;
    [[noreturn]] void AbortBadFeedback(uint8_t fb) const;

    uint64_t m_chosen = 0;
    std::array<uint64_t, kFeedbackKinds> m_feedback{};
    TracedCallback<uint16_t> m_entropyTrace;
    TracedCallback<uint16_t, Feedback> m_feedbackTrace;
};

/**
 * \brief One entropy per QP, for the QP's lifetime: classic RoCEv2 (ECMP switches hash it).
 * The NIC's default (RdmaNic::PathSelector); it is the absence of a host-side policy, as
 * RdmaCcNone is of a congestion control, so it lives here with the interface. Registered as
 * "fixed" in lb-policies/policy-registry.cc.
 */
class FixedPathSelector : public PathSelector
{
  public:
    static TypeId GetTypeId();

  private:
    uint16_t DoNextEntropy(Time) override { return m_base; }
};

} // namespace ns3

#endif
