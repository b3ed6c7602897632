/*
 * tusk: HPCC, INT-based window control (Li et al., "HPCC: High Precision Congestion Control",
 * SIGCOMM 2019, section 3.3, Algorithm 1).
 */
#ifndef TUSK_HPCC_H
#define TUSK_HPCC_H

#include "rdma-congestion-control.h"

#include "ns3/traced-callback.h"

#include <cmath>

namespace ns3
{

/**
 * \brief HPCC's sender, one per QP. Data packets carry an INT header (UsesInt); each switch
 * egress stamps its queue length, transmitted bytes, timestamp and rate (IntHop), and the
 * receiver echoes the stack in its ACK. Per ACK with an INT echo (Algorithm 1):
 *
 * MeasureInflight: for every hop i, against the previous echo L,
 *   txRate_i = (txBytes_i - L.txBytes_i) / (ts_i - L.ts_i),
 *   u_i = min(qlen_i, L.qlen_i) / (B_i T) + txRate_i / B_i;
 *   u = max_i u_i, tau = the ts delta of that hop, capped at T;
 *   U <- (1 - tau/T) U + (tau/T) u.
 * ComputeWind(U, updateWc):
 *   U >= eta or incStage >= maxStage:  W = Wc / (U / eta) + W_AI, incStage <- 0 if updateWc
 *   otherwise:                         W = Wc + W_AI,              incStage++ if updateWc
 *   and Wc <- W if updateWc.
 * The reference window Wc is updated once per RTT: when the ACK acknowledges a packet sent
 * after the last update (snd_una > lastUpdateSeq, then lastUpdateSeq <- snd_nxt); the ACKs in
 * between only compute W from Wc (FastReact; without it they are ignored). The QP keeps W of
 * payload outstanding and paces at R = W / T. W lies in [MinRate x T, B_nic x T], starting at
 * the top (line rate): the window never exceeds one BDP. T is the NIC's BaseRtt.
 *
 * U starts at 1 (as the HPCC simulator's); the first echo only records L. If the number of
 * hops in an echo changes (another path) or more than 8 ms passed since the last echo (the
 * 24-bit timestamps wrap at 16.8 ms), the echo only records L again. Every change of W fires
 * "WindowChange" (W bytes, R bit/s, U).
 */
class HpccCongestionControl : public RdmaCongestionControl
{
  public:
    /** "WindowChange": the window W (bytes), the rate R = W / T (bit/s) and the utilisation
     *  estimate U after an update. */
    typedef void (*WindowTracedCallback)(double windowBytes, double rateBps, double utilisation);

    static TypeId GetTypeId();

    void Init(const RdmaCcSetup& setup) override;
    uint64_t GetRateBps() const override;
    uint64_t GetWindowBytes() const override { return static_cast<uint64_t>(std::llround(m_w)); }
    void OnAck(const RdmaCcAck& ack) override;
    bool UsesInt() const override { return true; }
    const char* Name() const override { return "hpcc"; }

    double GetWindow() const { return m_w; }
    double GetReferenceWindow() const { return m_wc; }
    double GetUtilisation() const { return m_u; }
    uint32_t GetIncStage() const { return m_incStage; }

    /**
     * \brief MeasureInflight of Algorithm 1: fold the echo `ack` into U against the stored
     * previous echo and store `ack` as the new one. \return U
     */
    double MeasureInflight(const IntStack& ack);
    /** \brief ComputeWind of Algorithm 1 for utilisation `u` (clamped to the window range). */
    double ComputeWind(double u, bool updateWc);

  private:
    /** Whether `ack` can be compared with the stored echo L: the same number of hops, and
     *  not so long after it that the timestamps may have wrapped. */
    bool Comparable(const IntStack& ack, Time now) const;

    // Attributes.
    double m_eta = 0.95;
    uint32_t m_maxStage = 5;
    double m_wai = 0;
    uint64_t m_waiRate = 0;
    bool m_fastReact = true;
    uint64_t m_minRate = 0;

    // State.
    double m_t = 0;      //!< T, seconds
    double m_wMax = 0;   //!< B x T, bytes
    double m_wMin = 0;   //!< MinRate x T, bytes
    double m_w = 0;      //!< W, bytes
    double m_wc = 0;     //!< Wc, bytes
    double m_u = 1;      //!< U
    uint32_t m_incStage = 0;
    uint64_t m_lastUpdateSeq = 0;
    bool m_started = false; //!< a first echo was recorded (lastUpdateSeq is valid)
    IntStack m_last;        //!< L: the previous echo
    Time m_lastEchoTime;
    TracedCallback<double, double, double> m_windowTrace;
};

} // namespace ns3

#endif
