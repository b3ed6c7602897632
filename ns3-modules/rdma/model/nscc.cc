#include "nscc.h"

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NsccCongestionControl);

TypeId
NsccCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NsccCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Rdma")
            .AddConstructor<NsccCongestionControl>()
            .AddAttribute("MtuBytes", "Payload bytes per packet, the window's unit (bytes).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&NsccCongestionControl::m_mtu),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("InitialWindowBytes",
                          "Congestion window at the start (bytes; 0 = MaxWindowBytes).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&NsccCongestionControl::m_initialWindow),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MinWindowBytes", "Smallest congestion window (bytes).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&NsccCongestionControl::m_minWindow),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("MaxWindowBytes",
                          "Largest congestion window (bytes); about 1.25 BDP (104 kB at "
                          "100 Gb/s and 8.3 us base RTT, oracle 20).",
                          UintegerValue(130'000),
                          MakeUintegerAccessor(&NsccCongestionControl::m_maxWindow),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("TargetDelay",
                          "RTT above which the path counts as queued (Time; base RTT plus a "
                          "few packets of queueing).",
                          TimeValue(MicroSeconds(12)),
                          MakeTimeAccessor(&NsccCongestionControl::m_targetDelay),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("Alpha",
                          "Proportional increase: MTUs per window of ACKs when the RTT is 0 "
                          "(dimensionless).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&NsccCongestionControl::m_alpha),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("FairIncrease",
                          "Fair increase: MTUs per window of ACKs without ECN above the target "
                          "delay (dimensionless).",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&NsccCongestionControl::m_fairIncrease),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Beta",
                          "Multiplicative decrease gain on ECN above the target delay: cwnd *= "
                          "1 - Beta * (rtt - target) / rtt (0..1).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&NsccCongestionControl::m_beta),
                          MakeDoubleChecker<double>(0, 1));
    return tid;
}

void
NsccCongestionControl::Init(uint64_t lineRateBps)
{
    RdmaCongestionControl::Init(lineRateBps);
    m_cwnd = static_cast<double>(m_initialWindow == 0 ? m_maxWindow : m_initialWindow);
    m_cwnd = std::clamp(m_cwnd, static_cast<double>(m_minWindow), static_cast<double>(m_maxWindow));
}

void
NsccCongestionControl::OnAckSample(bool ecnEcho, Time rtt, Time now)
{
    const double mtu = m_mtu;
    const double target = m_targetDelay.GetSeconds();
    const double r = rtt.GetSeconds();
    if (!ecnEcho && r < target)
    {
        m_cwnd += m_alpha * mtu * (target - r) / target * mtu / m_cwnd;
    }
    else if (!ecnEcho)
    {
        m_cwnd += m_fairIncrease * mtu * mtu / m_cwnd;
    }
    else if (r >= target)
    {
        // At most one decrease per RTT: the ACKs of one window carry the same news.
        if (!m_decreased || now - m_lastDecrease >= rtt)
        {
            m_cwnd *= 1.0 - m_beta * (r - target) / r;
            m_lastDecrease = now;
            m_decreased = true;
        }
    }
    m_cwnd = std::clamp(m_cwnd, static_cast<double>(m_minWindow), static_cast<double>(m_maxWindow));
}

} // namespace ns3
