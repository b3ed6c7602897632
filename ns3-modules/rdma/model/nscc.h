/*
 * tusk: a simplified window-based sender congestion control in the spirit of UEC 1.0's NSCC
 * (network-signal-based congestion control): ECN and delay together decide, per ACK, which
 * of four quadrants the path is in.
 */
#ifndef TUSK_NSCC_H
#define TUSK_NSCC_H

#include "rdma-congestion-control.h"

namespace ns3
{

/**
 * \brief Simplified NSCC: a congestion window in bytes, updated per acknowledged packet from
 * its ECN echo and its RTT sample (send to acknowledgement):
 *
 * | ECN | RTT vs TargetDelay | meaning | action |
 * |---|---|---|---|
 * | no  | below  | spare capacity | proportional increase: cwnd += Alpha * MTU * (target - rtt) / target * MTU / cwnd |
 * | no  | above  | queue not growing at this hop | fair increase: cwnd += FairIncrease * MTU * MTU / cwnd |
 * | yes | below  | congestion just starting (or another path) | no change; the path selector reacts |
 * | yes | above  | congestion | multiplicative decrease: cwnd *= 1 - Beta * (rtt - target) / rtt, at most once per RTT |
 *
 * cwnd stays within [MinWindowBytes, MaxWindowBytes]; it starts at InitialWindowBytes. The
 * QP keeps at most cwnd / MTU packets outstanding (counted from the oldest unacknowledged
 * PSN, SACKed ones included). Rate: line rate (no pacing below it).
 * Simplified relative to the specification: no quick adapt on loss or trim, no multiplicative
 * increase after idle, no per-EV state, one RTT sample per ACK without filtering, and a
 * fixed TargetDelay rather than one derived from the base RTT measured on the path.
 */
class NsccCongestionControl : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId();
    const char* Name() const override { return "nscc"; }
    void Init(uint64_t lineRateBps) override;
    uint64_t GetWindowBytes() const override { return static_cast<uint64_t>(m_cwnd); }
    void OnAckSample(bool ecnEcho, Time rtt, Time now) override;

    double GetCwnd() const { return m_cwnd; }

  private:
    uint32_t m_mtu = 4096;
    uint64_t m_initialWindow = 0;
    uint64_t m_minWindow = 0;
    uint64_t m_maxWindow = 0;
    Time m_targetDelay;
    double m_alpha = 1.0;
    double m_fairIncrease = 0.1;
    double m_beta = 0.5;
    double m_cwnd = 0;
    Time m_lastDecrease;
    bool m_decreased = false;
};

} // namespace ns3

#endif
