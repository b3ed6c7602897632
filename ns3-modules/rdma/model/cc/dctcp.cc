#include "dctcp.h"

#include "cc-registry.h"

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DctcpCongestionControl);

namespace
{
const CongestionControlRegistration kRegistration{
    {"dctcp", "ns3::DctcpCongestionControl",
     "DCTCP-style ECN window control (the HPCC simulator's CC_MODE 8)",
     CongestionControlInfo::NEEDS_ECN | CongestionControlInfo::NEEDS_BASE_RTT},
    "Alizadeh et al., Data Center TCP (DCTCP), SIGCOMM 2010; RFC 8257"};
} // namespace

TypeId
DctcpCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DctcpCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Rdma")
            .AddConstructor<DctcpCongestionControl>()
            .AddAttribute("Gain",
                          "g: weight of a window's marked fraction in alpha (0..1; paper: "
                          "1/16).",
                          DoubleValue(1.0 / 16),
                          MakeDoubleAccessor(&DctcpCongestionControl::m_g),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("InitialAlpha", "alpha of a new QP (0..1; RFC 8257: 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&DctcpCongestionControl::m_initialAlpha),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("AdditiveIncrease",
                          "Bytes added per window of ACKs without ECN (bytes; 0 = one MTU, as "
                          "TCP's congestion avoidance).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DctcpCongestionControl::m_ai),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("AdditiveIncreaseRate",
                          "The increase as a rate: if not 0, AdditiveIncrease = this x the "
                          "NIC's BaseRtt / 8 bytes per window (bit/s; the HPCC simulator's "
                          "DCTCP_RATE_AI, which its run.py sets to one MTU per base RTT).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DctcpCongestionControl::m_aiRate),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("InitialWindowBytes",
                          "Window of a new QP (bytes; 0 = MaxWindowBytes).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DctcpCongestionControl::m_initialWindow),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MinWindowBytes",
                          "Smallest window (bytes; 0 = one MTU).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DctcpCongestionControl::m_minWindow),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MaxWindowBytes",
                          "Largest window (bytes; 0 = one BDP, line rate x the NIC's BaseRtt).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DctcpCongestionControl::m_maxWindow),
                          MakeUintegerChecker<uint64_t>())
            .AddTraceSource("WindowChange",
                            "The window (bytes) and alpha after an update.",
                            MakeTraceSourceAccessor(&DctcpCongestionControl::m_windowTrace),
                            "ns3::DctcpCongestionControl::WindowTracedCallback");
    return tid;
}

void
DctcpCongestionControl::Init(const RdmaCcSetup& setup)
{
    RdmaCongestionControl::Init(setup);
    m_wMin = m_minWindow != 0 ? static_cast<double>(m_minWindow) : setup.mtuBytes;
    m_wMax = m_maxWindow != 0 ? static_cast<double>(m_maxWindow) : setup.BdpBytes();
    if (m_wMax < m_wMin)
    {
        m_wMax = std::max(m_wMin, 100.0 * setup.mtuBytes); // no base RTT given: a large window
    }
    m_w = std::clamp(m_initialWindow != 0 ? static_cast<double>(m_initialWindow) : m_wMax,
                     m_wMin, m_wMax);
    m_alpha = m_initialAlpha;
}

void
DctcpCongestionControl::Set(double w)
{
    w = std::clamp(w, m_wMin, m_wMax);
    if (w != m_w)
    {
        m_w = w;
        m_windowTrace(m_w, m_alpha);
        NotifyState();
    }
}

void
DctcpCongestionControl::OnAck(const RdmaCcAck& ack)
{
    if (!m_started)
    {
        m_started = true;
        m_windowEnd = ack.sndNxt;
    }
    m_ackedBytes += ack.newlyAckedBytes;
    if (ack.ecnEcho)
    {
        m_markedBytes += ack.newlyAckedBytes;
    }
    if (ack.sndUna > m_windowEnd)
    {
        // A window of data acknowledged: fold its marked fraction into alpha.
        const double f = m_ackedBytes == 0 ? 0.0
                                           : static_cast<double>(m_markedBytes) /
                                                 static_cast<double>(m_ackedBytes);
        m_alpha = (1 - m_g) * m_alpha + m_g * f;
        NotifyState();
        m_ackedBytes = 0;
        m_markedBytes = 0;
        m_windowEnd = ack.sndNxt;
    }
    const bool inCwr = m_cut && ack.sndUna <= m_cwrEnd;
    if (ack.ecnEcho && !inCwr)
    {
        m_cut = true;
        m_cwrEnd = ack.sndNxt;
        Set(m_w * (1 - m_alpha / 2));
    }
    else if (!ack.ecnEcho && ack.newlyAckedBytes > 0)
    {
        const double ai = m_aiRate != 0 ? static_cast<double>(m_aiRate) / 8 *
                                              m_setup.baseRtt.GetSeconds()
                          : m_ai != 0 ? static_cast<double>(m_ai)
                                      : m_setup.mtuBytes;
        Set(m_w + ai * static_cast<double>(ack.newlyAckedBytes) / m_w);
    }
}

} // namespace ns3
