/*
 * tusk: NSCC, the network-signal-based congestion control of Ultra Ethernet 1.0 (UEC
 * specification 1.0, June 2025, congestion management, "NSCC"), with the constants and the
 * structure of the consortium's reference simulator (ultraethernet/uet-htsim, uec.cpp).
 */
#ifndef TUSK_NSCC_H
#define TUSK_NSCC_H

#include "rdma-congestion-control.h"

#include "ns3/traced-callback.h"

#include <array>

namespace ns3
{

/**
 * \brief NSCC's sender window, one per QP (a UEC PDC), in bytes, driven by the ECN echo and
 * the queueing delay of every ACK. delay = RTT - base RTT, the base RTT being the smallest RTT
 * seen (starting at the NIC's BaseRtt); the BDP (line rate x base RTT) and the largest window
 * (MaxWindowBytes, 1.5 BDP) follow it down.
 *
 * Per ACK, by quadrant (ECN echo x delay against TargetQueueingDelay, "target"):
 * | ECN | delay | action |
 * |---|---|---|
 * | no  | < target  | proportional increase: inc += alpha x acked x (target - delay), or a fast (multiplicative) increase |
 * | no  | >= target | fair increase: inc += fi x acked |
 * | yes | >= target | multiplicative decrease: cwnd *= max(1 - gamma (d - target) / d, 1 - MaxDecrease), d the path's filtered delay, at most once per base RTT |
 * | yes | < target  | none (the path selector moves away from the marked path) |
 *
 * - Fulfil: increases accumulate in `inc` and are applied as cwnd += inc / cwnd every 8 MTUs
 *   of ACKs or every base RTT, adding eta once per base RTT.
 * - Fast increase (multiplicative increase): after a window's worth of ACKs with delay below
 *   FastIncreaseDelay, every such ACK adds FastIncreaseScale x a x acked bytes (about 25 %
 *   per RTT at a = 1), until a delay above it.
 * - Quick adapt: at most once per base RTT + target, after a loss (trim NACK or timeout) or a
 *   delay above 4 x target, if the bytes acknowledged in that period are below
 *   MaxWindow / 2^QuickAdaptGate, cwnd = those bytes (what the path delivered), and the ECN
 *   feedback of the packets then in flight is ignored.
 * - RTT filtering: the delay the decrease uses is an EWMA (DelayEwmaGain); a sample without ECN
 *   but above the target counts as a quarter of the base RTT (the queue is not this flow's).
 * - Per-path state: that filtered delay is kept per EV (PathSlots slots indexed by EV, the
 *   connection's value seeding a new path), so a congested path's ACKs decrease the window by
 *   that path's delay. With one EV per QP (RoCE, ROD) it is the connection's filter.
 * - A trim NACK shrinks cwnd by the trimmed bytes (unless quick adapt ran).
 *
 * Constants scale as the reference simulator's: a = BDP / (ReferenceRate x ReferenceRtt),
 * b = target / ReferenceRtt, alpha = ProportionalGain x MTU x a x b / target,
 * fi = FairIncrease x MTU x a, eta = Eta x MTU x a. cwnd lies in [MinWindowBytes, MaxWindow].
 * Every change of cwnd fires "WindowChange" (cwnd, filtered delay).
 */
class NsccCongestionControl : public RdmaCongestionControl
{
  public:
    /** "WindowChange": cwnd (bytes) and the connection's filtered queueing delay. */
    typedef void (*WindowTracedCallback)(double cwndBytes, Time filteredDelay);

    static constexpr uint32_t kPathSlots = 16; //!< per-path (per-EV) state slots

    static TypeId GetTypeId();
    const char* Name() const override { return "nscc"; }
    void Init(const RdmaCcSetup& setup) override;
    uint64_t GetWindowBytes() const override { return static_cast<uint64_t>(m_cwnd); }
    void OnAck(const RdmaCcAck& ack) override;
    void OnTimeout(Time now) override;

    double GetCwnd() const { return m_cwnd; }
    double GetMaxWindow() const { return m_maxWnd; }
    Time GetBaseRtt() const { return m_baseRtt; }
    Time GetTarget() const { return m_target; }
    /** The connection's filtered queueing delay. */
    Time GetFilteredDelay() const { return Seconds(m_avgDelay); }
    /** The filtered delay of the path with entropy `ev` (the connection's if unseen). */
    Time GetPathDelay(uint16_t ev) const;
    uint64_t GetQuickAdapts() const { return m_quickAdapts; }

  private:
    struct PathState
    {
        double avgDelay = 0; //!< s
        uint16_t ev = 0;
        bool valid = false;
    };

    void UpdateBaseRtt(Time rtt);
    void FilterDelay(double delay, bool ecn, uint16_t ev);
    bool QuickAdapt(bool loss, bool ecn, double delay, const RdmaCcAck& ack);
    void FastIncrease(double ackedBytes, double delay);
    void MultiplicativeDecrease(uint16_t ev, Time now);
    void Fulfil(Time now);
    void Bound();
    void Report(double before);

    // Attributes.
    uint64_t m_initialWindow = 0;
    uint64_t m_minWindow = 0;
    uint64_t m_maxWindow = 0;
    Time m_targetAttr;
    double m_delayGain = 0.0125;
    double m_gamma = 0.8;
    double m_maxDecrease = 0.5;
    double m_propGain = 4.0;
    double m_fairIncrease = 5.0;
    double m_eta = 0.15;
    double m_fastScale = 0.25;
    Time m_fastDelay;
    bool m_quickAdapt = true;
    uint32_t m_qaGate = 3;
    uint64_t m_refRate = 0;
    Time m_refRtt;

    // Derived.
    double m_alpha = 0; //!< per s
    double m_fi = 0;
    double m_etaBytes = 0;
    double m_fiScale = 0;

    // State.
    Time m_baseRtt;
    Time m_target;
    double m_maxWnd = 0;
    double m_minWnd = 0;
    double m_cwnd = 0;
    double m_inc = 0;
    double m_received = 0;
    double m_achieved = 0;
    double m_fiCount = 0;
    bool m_increasing = false;
    double m_avgDelay = 0; //!< s
    std::array<PathState, kPathSlots> m_paths{};
    Time m_lastAdjust;
    Time m_lastDecrease;
    bool m_decreased = false;
    Time m_qaEnd;
    bool m_qaStarted = false;
    bool m_triggerQa = false;
    double m_bytesToIgnore = 0;
    double m_bytesIgnored = 0;
    uint64_t m_quickAdapts = 0;
    TracedCallback<double, Time> m_windowTrace;
};

} // namespace ns3

#endif
