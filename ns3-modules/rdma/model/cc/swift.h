/*
 * tusk: a Swift-like delay-target window (Kumar et al., "Swift: Delay is Simple and Effective
 * for Congestion Control in the Datacenter", SIGCOMM 2020, section 3, Algorithm 1).
 */
#ifndef TUSK_SWIFT_H
#define TUSK_SWIFT_H

#include "rdma-congestion-control.h"

#include "ns3/traced-callback.h"

namespace ns3
{

/**
 * \brief Swift's window, one per QP, on the RTT of NIC timestamps (send to ACK, fabric delay
 * only: no host delay is modelled). cwnd is in packets and may fall below one.
 *
 * Target delay (section 3.1, 3.5): target = BaseTarget + hops x HopScaling + fs, hops being
 * the switches the ACK crossed (64 - its IPv4 TTL), and the flow-based scaling
 * fs = clamp(a / sqrt(cwnd) + b, 0, FsRange) with a = FsRange / (1/sqrt(FsMinCwnd) -
 * 1/sqrt(FsMaxCwnd)), b = -a / sqrt(FsMaxCwnd) (small windows get more queueing allowance).
 * Per ACK, delay = its RTT sample and n = packets newly acknowledged:
 *   delay < target:  cwnd += AdditiveIncrease / cwnd * n  (cwnd >= 1), AdditiveIncrease * n below
 *   otherwise, at most once per RTT:
 *                    cwnd *= max(1 - Beta (delay - target) / delay, 1 - MaxMdf)
 * A NAK or trim NACK (fast recovery) multiplies by 1 - MaxMdf, at most once per RTT; a
 * retransmission timeout too, and RetxResetThreshold timeouts in a row set cwnd = MinCwnd.
 * cwnd lies in [MinCwnd, MaxCwnd]. The QP keeps max(1, cwnd) packets outstanding; below one
 * packet it paces at cwnd x MTU / RTT, so one packet leaves every RTT / cwnd (section 3.4).
 * Every change fires "WindowChange" (cwnd in packets, the target delay).
 */
class SwiftCongestionControl : public RdmaCongestionControl
{
  public:
    /** "WindowChange": cwnd (packets) and the target delay after an update. */
    typedef void (*WindowTracedCallback)(double cwndPackets, Time target);

    static TypeId GetTypeId();

    void Init(const RdmaCcSetup& setup) override;
    uint64_t GetRateBps() const override;
    uint64_t GetWindowBytes() const override;
    void OnAck(const RdmaCcAck& ack) override;
    void OnTimeout(Time now) override;
    const char* Name() const override { return "swift"; }

    double GetCwnd() const { return m_cwnd; }
    /** The target delay for a path of `hops` switches at the current cwnd. */
    Time TargetDelay(uint8_t hops) const;

  private:
    bool CanDecrease(Time now) const;
    void Decrease(double factor, Time now);
    void Set(double cwnd);

    // Attributes.
    Time m_baseTarget;
    Time m_hopScaling;
    Time m_fsRange;
    double m_fsMinCwnd = 0.1;
    double m_fsMaxCwnd = 100;
    double m_ai = 1.0;
    double m_beta = 0.8;
    double m_maxMdf = 0.5;
    double m_minCwnd = 0.001;
    double m_maxCwnd = 0;
    double m_initialCwnd = 0;
    uint32_t m_retxResetThreshold = 5;

    // State.
    double m_cwnd = 1;
    double m_cwndMax = 0;
    Time m_lastRtt;
    Time m_lastDecrease;
    bool m_decreased = false;
    uint32_t m_timeoutsInARow = 0;
    Time m_target;
    TracedCallback<double, Time> m_windowTrace;
};

} // namespace ns3

#endif
