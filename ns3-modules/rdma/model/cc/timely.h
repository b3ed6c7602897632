/*
 * tusk: TIMELY, RTT-gradient rate control (Mittal et al., "TIMELY: RTT-based Congestion
 * Control for the Datacenter", SIGCOMM 2015, section 4, Algorithm 1).
 */
#ifndef TUSK_TIMELY_H
#define TUSK_TIMELY_H

#include "rdma-congestion-control.h"

#include "ns3/traced-callback.h"

namespace ns3
{

/**
 * \brief TIMELY's rate computation, one per QP, from the RTT samples of NIC timestamps (the
 * QP's send time of a packet to its ACK). Once per RTT (when an ACK acknowledges a packet sent
 * after the previous update, as the HPCC simulator's CC_MODE 7), with new_rtt the newest
 * sample:
 *
 *   new_rtt_diff = new_rtt - prev_rtt;  rtt_diff <- (1 - alpha) rtt_diff + alpha new_rtt_diff
 *   gradient = rtt_diff / MinRtt
 *   new_rtt < Tlow:   R <- R + delta
 *   new_rtt > Thigh:  R <- R (1 - beta (1 - Thigh / new_rtt))
 *   gradient <= 0:    R <- R + N delta, N = 5 (hyper-active increase, HAI) once the gradient
 *                     was <= 0 in HaiThreshold updates in a row, else 1
 *   otherwise:        R <- R (1 - beta gradient)
 *
 * (HAI adds `HyperIncrease` instead of 5 delta when that attribute is set, as the HPCC
 * simulator's RATE_HAI.) R stays in [MinRate, line rate] and starts at line rate. The first
 * sample only sets prev_rtt. Every change fires "RateChange" (R, gradient).
 */
class TimelyCongestionControl : public RdmaCongestionControl
{
  public:
    /** "RateChange": the rate R (bit/s) and the normalised gradient after an update. */
    typedef void (*RateTracedCallback)(double rateBps, double gradient);

    static TypeId GetTypeId();

    void Init(const RdmaCcSetup& setup) override;
    uint64_t GetRateBps() const override { return static_cast<uint64_t>(m_rate); }
    void OnAck(const RdmaCcAck& ack) override;
    const char* Name() const override { return "timely"; }
    /** One RTT sample per segment of bytes: at a low rate, steps far apart. */
    bool StepsOnSparseFeedback() const override { return true; }

    /** One update of Algorithm 1 with the RTT sample `rtt` (the unit tests' entry point). */
    void Update(Time rtt);
    double GetRttDiffNs() const { return m_rttDiffNs; }
    double GetGradient() const { return m_gradient; }

  private:
    // Attributes.
    double m_alpha = 0.875;
    double m_beta = 0.8;
    Time m_tLow;
    Time m_tHigh;
    Time m_minRtt;
    uint64_t m_delta = 0;
    uint64_t m_hyper = 0;
    uint32_t m_haiThreshold = 5;
    uint64_t m_minRate = 0;

    // State.
    double m_rate = 0;
    double m_prevRttNs = 0;
    double m_rttDiffNs = 0;
    double m_gradient = 0;
    uint32_t m_negativeInARow = 0;
    bool m_havePrev = false;
    uint64_t m_lastUpdateSeq = 0;
    bool m_started = false;
    TracedCallback<double, double> m_rateTrace;
};

} // namespace ns3

#endif
