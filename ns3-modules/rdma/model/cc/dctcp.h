/*
 * tusk: DCTCP-style ECN window control (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM
 * 2010, section 3; RFC 8257), the HPCC simulator's CC_MODE 8 family.
 */
#ifndef TUSK_DCTCP_H
#define TUSK_DCTCP_H

#include "rdma-congestion-control.h"

#include "ns3/traced-callback.h"

namespace ns3
{

/**
 * \brief DCTCP's sender, one per QP: a window W in bytes and the estimate alpha of the
 * fraction of marked bytes. Per ACK (BTH BECN = ECN echo of a CE-marked packet):
 *   - the acknowledged bytes count, and as marked with the ECN echo;
 *   - once per window of data (an ACK of a packet sent after the last update):
 *     F = marked / acknowledged bytes of that window, alpha <- (1 - g) alpha + g F;
 *   - an ECN echo, at most once per window (not while the window the last cut was made in is
 *     outstanding, TCP's CWR): W <- W (1 - alpha / 2);
 *   - otherwise W += AdditiveIncrease x acked / W (TCP congestion avoidance: one
 *     AdditiveIncrease per window of ACKs).
 * W lies in [MinWindowBytes, MaxWindowBytes] and starts at InitialWindowBytes; alpha starts at
 * InitialAlpha. No slow start (a NIC flow starts at its window). The QP sends at line rate
 * within the window. Every change fires "WindowChange" (W, alpha).
 */
class DctcpCongestionControl : public RdmaCongestionControl
{
  public:
    /** "WindowChange": the window W (bytes) and alpha after an update. */
    typedef void (*WindowTracedCallback)(double windowBytes, double alpha);

    static TypeId GetTypeId();

    void Init(const RdmaCcSetup& setup) override;
    uint64_t GetWindowBytes() const override { return static_cast<uint64_t>(m_w); }
    void OnAck(const RdmaCcAck& ack) override;
    const char* Name() const override { return "dctcp"; }

    double GetWindow() const { return m_w; }
    /** The window and alpha. */
    RdmaCcState GetState() const override
    {
        RdmaCcState s = RdmaCongestionControl::GetState();
        s.alpha = m_alpha;
        return s;
    }
    double GetAlpha() const { return m_alpha; }

  private:
    void Set(double w);

    // Attributes.
    double m_g = 1.0 / 16;
    double m_initialAlpha = 1.0;
    uint64_t m_ai = 0;
    uint64_t m_aiRate = 0;
    uint64_t m_initialWindow = 0;
    uint64_t m_minWindow = 0;
    uint64_t m_maxWindow = 0;

    // State.
    double m_w = 0;
    double m_wMin = 0;
    double m_wMax = 0;
    double m_alpha = 1;
    uint64_t m_ackedBytes = 0;
    uint64_t m_markedBytes = 0;
    uint64_t m_windowEnd = 0; //!< the alpha window ends when snd_una passes this PSN
    uint64_t m_cwrEnd = 0;    //!< no cut until snd_una passes this PSN
    bool m_started = false;
    bool m_cut = false;
    TracedCallback<double, double> m_windowTrace;
};

} // namespace ns3

#endif
