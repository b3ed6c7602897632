#include "hpcc.h"

#include "cc-registry.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HpccCongestionControl);

namespace
{
const CongestionControlRegistration kRegistration{
    {"hpcc", "ns3::HpccCongestionControl",
     "HPCC: window control on in-band telemetry (INT) of every hop",
     CongestionControlInfo::USES_INT | CongestionControlInfo::NEEDS_BASE_RTT},
    "Li et al., HPCC: High Precision Congestion Control, SIGCOMM 2019"};
} // namespace

TypeId
HpccCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HpccCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Rdma")
            .AddConstructor<HpccCongestionControl>()
            .AddAttribute("TargetUtilisation",
                          "eta: the bottleneck utilisation HPCC aims at (0..1; paper: 0.95).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&HpccCongestionControl::m_eta),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("MaxStage",
                          "maxStage: additive-increase rounds (once per RTT) before a "
                          "multiplicative step towards eta even below it (count; paper: 5, "
                          "the HPCC simulator's MI_THRESH).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&HpccCongestionControl::m_maxStage),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AdditiveIncreaseBytes",
                          "W_AI: bytes added to the window per update (bytes; the HPCC "
                          "simulator's RATE_AI x T: 80 B is 50 Mb/s over 12.8 us).",
                          DoubleValue(80.0),
                          MakeDoubleAccessor(&HpccCongestionControl::m_wai),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("AdditiveIncreaseRate",
                          "W_AI as a rate: if not 0, W_AI = this x T / 8 and "
                          "AdditiveIncreaseBytes is not used (bit/s; the HPCC simulator's "
                          "RATE_AI, whose window grows by RATE_AI x T per update).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HpccCongestionControl::m_waiRate),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("FastReact",
                          "React to every ACK (W from the reference window Wc) rather than "
                          "once per RTT (boolean; the HPCC simulator's FAST_REACT).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&HpccCongestionControl::m_fastReact),
                          MakeBooleanChecker())
            .AddAttribute("MinRate",
                          "Lowest rate W / T may reach (bit/s; the HPCC simulator's MIN_RATE).",
                          UintegerValue(100'000'000),
                          MakeUintegerAccessor(&HpccCongestionControl::m_minRate),
                          MakeUintegerChecker<uint64_t>(1))
            .AddTraceSource("WindowChange",
                            "The window W (bytes), the rate W / T (bit/s) and the utilisation "
                            "estimate U after an update.",
                            MakeTraceSourceAccessor(&HpccCongestionControl::m_windowTrace),
                            "ns3::HpccCongestionControl::WindowTracedCallback");
    return tid;
}

void
HpccCongestionControl::Init(const RdmaCcSetup& setup)
{
    RdmaCongestionControl::Init(setup);
    NS_ABORT_MSG_IF(setup.baseRtt.IsZero(),
                    "HpccCongestionControl: needs the base RTT T (ns3::RdmaNic::BaseRtt)");
    m_t = setup.baseRtt.GetSeconds();
    if (m_waiRate != 0)
    {
        m_wai = static_cast<double>(m_waiRate) / 8 * m_t;
    }
    m_wMax = setup.BdpBytes();
    m_wMin = std::min(m_wMax, static_cast<double>(m_minRate) / 8 * m_t);
    m_w = m_wMax;
    m_wc = m_wMax;
    m_u = 1;
}

uint64_t
HpccCongestionControl::GetRateBps() const
{
    // At one BDP the rate is the line rate itself (no rounding below it, so no pacing).
    return m_w >= m_wMax ? m_setup.lineRateBps : static_cast<uint64_t>(m_w * 8 / m_t);
}

bool
HpccCongestionControl::Comparable(const IntStack& ack, Time now) const
{
    // Records of different switches (a new path) or 24-bit timestamps that may have wrapped.
    return ack.nHops == m_last.nHops && now - m_lastEchoTime <= MilliSeconds(8);
}

double
HpccCongestionControl::MeasureInflight(const IntStack& ack)
{
    double u = 0;
    uint64_t tauNs = 0;
    const uint32_t n = std::min(ack.Recorded(), m_last.Recorded());
    for (uint32_t i = 0; i < n; ++i)
    {
        const IntHop& now = ack.hops[i];
        const IntHop& before = m_last.hops[i];
        const uint64_t dtNs = now.TimeDeltaNs(before);
        if (dtNs == 0)
        {
            continue; // no time passed at this hop: no rate to measure
        }
        const double b = static_cast<double>(now.GetRateBps());
        const double txRate = static_cast<double>(now.TxBytesDelta(before)) * 8 / (dtNs * 1e-9);
        const double qlen = static_cast<double>(std::min(now.GetQlenBytes(), before.GetQlenBytes()));
        const double ui = qlen * 8 / (b * m_t) + txRate / b;
        if (ui > u)
        {
            u = ui;
            tauNs = dtNs;
        }
    }
    m_last = ack;
    if (tauNs == 0)
    {
        return m_u;
    }
    const double tau = std::min(tauNs * 1e-9, m_t);
    m_u = (1 - tau / m_t) * m_u + tau / m_t * u;
    return m_u;
}

double
HpccCongestionControl::ComputeWind(double u, bool updateWc)
{
    double w;
    if (u >= m_eta || m_incStage >= m_maxStage)
    {
        w = m_wc / (u / m_eta) + m_wai;
        if (updateWc)
        {
            m_incStage = 0;
        }
    }
    else
    {
        w = m_wc + m_wai;
        if (updateWc)
        {
            ++m_incStage;
        }
    }
    w = std::clamp(w, m_wMin, m_wMax);
    if (updateWc)
    {
        m_wc = w;
    }
    return w;
}

void
HpccCongestionControl::OnAck(const RdmaCcAck& ack)
{
    if (!ack.intEcho || ack.intEcho->Recorded() == 0)
    {
        return; // a trim NACK, or a path without switches
    }
    const IntStack& echo = *ack.intEcho;
    if (!m_started || !Comparable(echo, ack.now))
    {
        // First RTT (or a new path): record L, update from the next RTT on.
        m_started = true;
        m_last = echo;
        m_lastEchoTime = ack.now;
        m_lastUpdateSeq = ack.sndNxt;
        return;
    }
    const bool fullUpdate = ack.sndUna > m_lastUpdateSeq;
    if (!fullUpdate && !m_fastReact)
    {
        return;
    }
    m_lastEchoTime = ack.now;
    const double w = ComputeWind(MeasureInflight(echo), fullUpdate);
    if (fullUpdate)
    {
        m_lastUpdateSeq = ack.sndNxt;
    }
    if (w != m_w)
    {
        m_w = w;
        m_windowTrace(m_w, m_w * 8 / m_t, m_u);
        NotifyState();
    }
}

} // namespace ns3
