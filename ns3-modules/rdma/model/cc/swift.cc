#include "swift.h"

#include "cc-registry.h"

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(SwiftCongestionControl);

namespace
{
const CongestionControlRegistration kRegistration{
    {"swift", "ns3::SwiftCongestionControl",
     "Swift-like window control on a delay target",
     CongestionControlInfo::NEEDS_BASE_RTT},
    "Kumar et al., Swift: Delay is Simple and Effective for Congestion Control in the "
    "Datacenter, SIGCOMM 2020"};
} // namespace

TypeId
SwiftCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwiftCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Rdma")
            .AddConstructor<SwiftCongestionControl>()
            .AddAttribute("BaseTarget",
                          "Fixed part of the target delay: the RTT of the shortest path plus "
                          "the queueing allowed there (Time; tusk's default for 1 us links: "
                          "3 us).",
                          TimeValue(MicroSeconds(3)),
                          MakeTimeAccessor(&SwiftCongestionControl::m_baseTarget),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("HopScaling",
                          "h: target delay added per switch on the path (Time; tusk's default "
                          "for 1 us links and 4 KB frames at 100 Gb/s: 2.5 us, about the base "
                          "RTT a switch adds plus some queueing).",
                          TimeValue(NanoSeconds(2500)),
                          MakeTimeAccessor(&SwiftCongestionControl::m_hopScaling),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("FsRange",
                          "fs_range: largest flow-based addition to the target (Time; 0 = "
                          "none).",
                          TimeValue(MicroSeconds(5)),
                          MakeTimeAccessor(&SwiftCongestionControl::m_fsRange),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("FsMinCwnd",
                          "fs_min_cwnd: window that gets the full FsRange (packets).",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_fsMinCwnd),
                          MakeDoubleChecker<double>(1e-6))
            .AddAttribute("FsMaxCwnd",
                          "fs_max_cwnd: window from which the flow-based scaling is 0 "
                          "(packets).",
                          DoubleValue(100.0),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_fsMaxCwnd),
                          MakeDoubleChecker<double>(1e-6))
            .AddAttribute("AdditiveIncrease",
                          "ai: packets added per RTT of ACKs below the target (packets).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_ai),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Beta",
                          "beta: multiplicative decrease gain (0..1; paper: 0.8).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_beta),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("MaxMdf",
                          "max_mdf: largest multiplicative decrease per RTT (0..1; paper: "
                          "0.5).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_maxMdf),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("MinCwnd",
                          "Smallest window (packets; below 1 the QP is paced).",
                          DoubleValue(0.001),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_minCwnd),
                          MakeDoubleChecker<double>(1e-6))
            .AddAttribute("MaxCwnd",
                          "Largest window; 0 = one BDP, line rate x the NIC's BaseRtt "
                          "(packets).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_maxCwnd),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("InitialCwnd",
                          "Window of a new QP; 0 = MaxCwnd (packets).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&SwiftCongestionControl::m_initialCwnd),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("RetxResetThreshold",
                          "Retransmission timeouts in a row after which cwnd = MinCwnd "
                          "(count).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&SwiftCongestionControl::m_retxResetThreshold),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("WindowChange",
                            "cwnd (packets) and the target delay after an update.",
                            MakeTraceSourceAccessor(&SwiftCongestionControl::m_windowTrace),
                            "ns3::SwiftCongestionControl::WindowTracedCallback");
    return tid;
}

void
SwiftCongestionControl::Init(const RdmaCcSetup& setup)
{
    RdmaCongestionControl::Init(setup);
    m_cwndMax = m_maxCwnd;
    if (m_cwndMax == 0)
    {
        m_cwndMax = setup.BdpBytes() / setup.mtuBytes;
        if (m_cwndMax < 1)
        {
            m_cwndMax = 100; // no base RTT given: a large window
        }
    }
    m_cwnd = std::clamp(m_initialCwnd == 0 ? m_cwndMax : m_initialCwnd, m_minCwnd, m_cwndMax);
    m_target = TargetDelay(0);
}

Time
SwiftCongestionControl::TargetDelay(uint8_t hops) const
{
    double fs = 0;
    if (!m_fsRange.IsZero() && m_fsMaxCwnd > m_fsMinCwnd)
    {
        const double range = m_fsRange.GetSeconds();
        const double a = range / (1 / std::sqrt(m_fsMinCwnd) - 1 / std::sqrt(m_fsMaxCwnd));
        const double b = -a / std::sqrt(m_fsMaxCwnd);
        fs = std::clamp(a / std::sqrt(m_cwnd) + b, 0.0, range);
    }
    return m_baseTarget + m_hopScaling * static_cast<int64_t>(hops) + Seconds(fs);
}

uint64_t
SwiftCongestionControl::GetWindowBytes() const
{
    return static_cast<uint64_t>(std::max(1.0, m_cwnd) * m_setup.mtuBytes);
}

uint64_t
SwiftCongestionControl::GetRateBps() const
{
    if (m_cwnd >= 1 || m_lastRtt.IsZero())
    {
        return m_setup.lineRateBps;
    }
    // Below one packet: one packet every RTT / cwnd.
    const double rate = m_cwnd * m_setup.mtuBytes * 8 / m_lastRtt.GetSeconds();
    return static_cast<uint64_t>(std::min(rate, static_cast<double>(m_setup.lineRateBps)));
}

bool
SwiftCongestionControl::CanDecrease(Time now) const
{
    return !m_decreased || now - m_lastDecrease >= m_lastRtt;
}

void
SwiftCongestionControl::Set(double cwnd)
{
    cwnd = std::clamp(cwnd, m_minCwnd, m_cwndMax);
    if (cwnd != m_cwnd)
    {
        m_cwnd = cwnd;
        m_windowTrace(m_cwnd, m_target);
        NotifyState();
    }
}

void
SwiftCongestionControl::Decrease(double factor, Time now)
{
    m_lastDecrease = now;
    m_decreased = true;
    Set(m_cwnd * factor);
}

void
SwiftCongestionControl::OnAck(const RdmaCcAck& ack)
{
    if (ack.nak)
    {
        if (CanDecrease(ack.now))
        {
            Decrease(1 - m_maxMdf, ack.now); // fast recovery
        }
        if (ack.newlyAcked == 0)
        {
            return;
        }
    }
    if (ack.newlyAcked == 0 || ack.rtt.IsZero())
    {
        return;
    }
    m_timeoutsInARow = 0;
    m_lastRtt = ack.rtt;
    m_target = TargetDelay(ack.hops);
    const double n = static_cast<double>(ack.newlyAcked);
    if (ack.rtt < m_target)
    {
        Set(m_cwnd >= 1 ? m_cwnd + m_ai / m_cwnd * n : m_cwnd + m_ai * n);
    }
    else if (CanDecrease(ack.now))
    {
        const double delay = ack.rtt.GetSeconds();
        const double md = 1 - m_beta * (delay - m_target.GetSeconds()) / delay;
        Decrease(std::max(md, 1 - m_maxMdf), ack.now);
    }
}

void
SwiftCongestionControl::OnTimeout(Time now)
{
    ++m_timeoutsInARow;
    if (m_timeoutsInARow >= m_retxResetThreshold)
    {
        m_lastDecrease = now;
        m_decreased = true;
        Set(m_minCwnd);
    }
    else if (CanDecrease(now))
    {
        Decrease(1 - m_maxMdf, now);
    }
}

} // namespace ns3
