#include "nscc.h"

#include "cc-registry.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NsccCongestionControl);

namespace
{
const CongestionControlRegistration kRegistration{
    {"nscc", "ns3::NsccCongestionControl",
     "NSCC: window control on ECN and queueing delay",
     CongestionControlInfo::NEEDS_ECN | CongestionControlInfo::NEEDS_BASE_RTT},
    "Ultra Ethernet Specification 1.0 (June 2025), congestion management, NSCC"};
} // namespace

TypeId
NsccCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NsccCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Rdma")
            .AddConstructor<NsccCongestionControl>()
            .AddAttribute("InitialWindowBytes",
                          "Congestion window at the start (bytes; 0 = the largest window).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&NsccCongestionControl::m_initialWindow),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MinWindowBytes", "Smallest congestion window (bytes; 0 = one MTU).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&NsccCongestionControl::m_minWindow),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MaxWindowBytes",
                          "Largest congestion window (bytes; 0 = 1.5 BDP at the base RTT, as "
                          "the specification's MaxWnd).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&NsccCongestionControl::m_maxWindow),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("TargetQueueingDelay",
                          "target_Qdelay: queueing delay (RTT - base RTT) above which the path "
                          "counts as congested (Time; 0 = the NIC's BaseRtt, the reference "
                          "simulator's default without trimming; it uses 0.75 of it with).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&NsccCongestionControl::m_targetAttr),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("DelayEwmaGain",
                          "Gain of the filtered (EWMA) queueing delay (0..1; reference: "
                          "0.0125).",
                          DoubleValue(0.0125),
                          MakeDoubleAccessor(&NsccCongestionControl::m_delayGain),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("DecreaseGain",
                          "gamma: multiplicative decrease gain (0..1; reference: 0.8).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&NsccCongestionControl::m_gamma),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("MaxDecrease",
                          "Largest multiplicative decrease per base RTT (0..1; reference: 0.5).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&NsccCongestionControl::m_maxDecrease),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("ProportionalGain",
                          "alpha = ProportionalGain x MTU x a x b / target (dimensionless; "
                          "reference: 4).",
                          DoubleValue(4.0),
                          MakeDoubleAccessor(&NsccCongestionControl::m_propGain),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("FairIncrease",
                          "fi = FairIncrease x MTU x a (dimensionless; reference: 5).",
                          DoubleValue(5.0),
                          MakeDoubleAccessor(&NsccCongestionControl::m_fairIncrease),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Eta",
                          "eta = Eta x MTU x a bytes added once per base RTT (dimensionless; "
                          "reference: 0.15).",
                          DoubleValue(0.15),
                          MakeDoubleAccessor(&NsccCongestionControl::m_eta),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("FastIncreaseScale",
                          "Fast increase: bytes added per acknowledged byte, x a "
                          "(dimensionless; reference: 0.25).",
                          DoubleValue(0.25),
                          MakeDoubleAccessor(&NsccCongestionControl::m_fastScale),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("FastIncreaseDelay",
                          "Fast increase while the queueing delay stays below this (Time; "
                          "reference: 1 us).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&NsccCongestionControl::m_fastDelay),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("QuickAdapt",
                          "Quick adapt after losses and very large delays (boolean).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NsccCongestionControl::m_quickAdapt),
                          MakeBooleanChecker())
            .AddAttribute("QuickAdaptGate",
                          "Quick adapt only if the bytes acknowledged in the period are below "
                          "MaxWindow / 2^gate (count; reference: 3).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&NsccCongestionControl::m_qaGate),
                          MakeUintegerChecker<uint32_t>(0, 30))
            .AddAttribute("ReferenceRate",
                          "Rate of the reference network the constants are scaled from (bit/s; "
                          "reference: 100 Gb/s).",
                          UintegerValue(100'000'000'000ULL),
                          MakeUintegerAccessor(&NsccCongestionControl::m_refRate),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("ReferenceRtt",
                          "RTT of the reference network (Time; reference: 12 us).",
                          TimeValue(MicroSeconds(12)),
                          MakeTimeAccessor(&NsccCongestionControl::m_refRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddTraceSource("WindowChange",
                            "cwnd (bytes) and the connection's filtered queueing delay.",
                            MakeTraceSourceAccessor(&NsccCongestionControl::m_windowTrace),
                            "ns3::NsccCongestionControl::WindowTracedCallback");
    return tid;
}

void
NsccCongestionControl::Init(const RdmaCcSetup& setup)
{
    RdmaCongestionControl::Init(setup);
    NS_ABORT_MSG_IF(setup.baseRtt.IsZero(),
                    "NsccCongestionControl: needs the base RTT (ns3::RdmaNic::BaseRtt)");
    m_baseRtt = setup.baseRtt;
    m_target = m_targetAttr.IsZero() ? setup.baseRtt : m_targetAttr;
    const double mtu = setup.mtuBytes;
    const double bdp = setup.BdpBytes();
    const double refBdp = static_cast<double>(m_refRate) / 8 * m_refRtt.GetSeconds();
    const double a = bdp / refBdp;
    const double b = m_target.GetSeconds() / m_refRtt.GetSeconds();
    m_alpha = m_propGain * mtu * a * b / m_target.GetSeconds();
    m_fi = m_fairIncrease * mtu * a;
    m_etaBytes = m_eta * mtu * a;
    m_fiScale = m_fastScale * a;
    m_minWnd = m_minWindow != 0 ? static_cast<double>(m_minWindow) : mtu;
    m_maxWnd = m_maxWindow != 0 ? static_cast<double>(m_maxWindow) : 1.5 * bdp;
    m_maxWnd = std::max(m_maxWnd, m_minWnd);
    m_cwnd = std::clamp(m_initialWindow != 0 ? static_cast<double>(m_initialWindow) : m_maxWnd,
                        m_minWnd, m_maxWnd);
}

Time
NsccCongestionControl::GetPathDelay(uint16_t ev) const
{
    const PathState& p = m_paths[ev % kPathSlots];
    return Seconds(p.valid && p.ev == ev ? p.avgDelay : m_avgDelay);
}

void
NsccCongestionControl::UpdateBaseRtt(Time rtt)
{
    if (rtt >= m_baseRtt)
    {
        return;
    }
    // A shorter path than assumed: its BDP and largest window follow (MaxWindowBytes unset).
    m_baseRtt = rtt;
    if (m_maxWindow == 0)
    {
        m_maxWnd = std::max(m_minWnd, 1.5 * m_setup.lineRateBps / 8.0 * rtt.GetSeconds());
    }
}

void
NsccCongestionControl::FilterDelay(double delay, bool ecn, uint16_t ev)
{
    // Without ECN a delay above the target is not this flow's queue: count it as small.
    const double sample = (!ecn && delay > m_target.GetSeconds()) ? 0.25 * m_baseRtt.GetSeconds()
                                                                   : delay;
    m_avgDelay = (1 - m_delayGain) * m_avgDelay + m_delayGain * sample;
    PathState& p = m_paths[ev % kPathSlots];
    if (!p.valid || p.ev != ev)
    {
        p.valid = true;
        p.ev = ev;
        p.avgDelay = m_avgDelay;
        return;
    }
    p.avgDelay = (1 - m_delayGain) * p.avgDelay + m_delayGain * sample;
}

bool
NsccCongestionControl::QuickAdapt(bool loss, bool ecn, double delay, const RdmaCcAck& ack)
{
    if (!m_quickAdapt)
    {
        return false;
    }
    bool done = false;
    if (ecn && m_bytesIgnored < m_bytesToIgnore)
    {
        done = true; // feedback of packets that were in flight when quick adapt ran
    }
    else if (ack.now > m_qaEnd)
    {
        const double gate = m_maxWnd / static_cast<double>(1ULL << m_qaGate);
        if (m_qaStarted && (m_triggerQa || loss || delay > 4 * m_target.GetSeconds()) &&
            m_achieved < gate)
        {
            m_cwnd = std::max(m_achieved, m_minWnd);
            m_bytesToIgnore = static_cast<double>(ack.sndNxt - ack.sndUna) * m_setup.mtuBytes;
            m_bytesIgnored = 0;
            m_triggerQa = false;
            ++m_quickAdapts;
            done = true;
        }
        m_qaStarted = true;
        m_achieved = 0;
        m_qaEnd = ack.now + m_baseRtt + m_target;
    }
    if (done)
    {
        m_inc = 0;
        m_received = 0;
    }
    return done;
}

void
NsccCongestionControl::FastIncrease(double ackedBytes, double delay)
{
    if (delay < m_fastDelay.GetSeconds())
    {
        m_fiCount += ackedBytes;
        if (m_fiCount > m_cwnd || m_increasing)
        {
            m_cwnd += ackedBytes * m_fiScale;
            m_increasing = true;
            return;
        }
    }
    else
    {
        m_fiCount = 0;
    }
    m_increasing = false;
}

void
NsccCongestionControl::MultiplicativeDecrease(uint16_t ev, Time now)
{
    m_increasing = false;
    m_fiCount = 0;
    const double d = GetPathDelay(ev).GetSeconds();
    const double target = m_target.GetSeconds();
    if (d > target && (!m_decreased || now - m_lastDecrease > m_baseRtt))
    {
        m_cwnd *= std::max(1 - m_gamma * (d - target) / d, 1 - m_maxDecrease);
        m_lastDecrease = now;
        m_decreased = true;
    }
}

void
NsccCongestionControl::Fulfil(Time now)
{
    m_cwnd += m_inc / m_cwnd;
    if (now - m_lastAdjust >= m_baseRtt)
    {
        m_cwnd += m_etaBytes;
        m_lastAdjust = now;
    }
    m_inc = 0;
    m_received = 0;
}

void
NsccCongestionControl::Bound()
{
    m_cwnd = std::clamp(m_cwnd, m_minWnd, m_maxWnd);
}

void
NsccCongestionControl::Report(double before)
{
    if (m_cwnd != before)
    {
        m_windowTrace(m_cwnd, Seconds(m_avgDelay));
        NotifyState();
    }
}

void
NsccCongestionControl::OnAck(const RdmaCcAck& ack)
{
    const double before = m_cwnd;
    if (ack.trimmed)
    {
        // The packet was cut at a switch: the path's queue is at the trimming threshold.
        FilterDelay(m_target.GetSeconds(), true, ack.entropy);
        m_triggerQa = true;
        m_bytesIgnored += static_cast<double>(ack.lostBytes);
        if (!QuickAdapt(true, true, 0, ack))
        {
            m_cwnd -= static_cast<double>(ack.lostBytes);
        }
        Bound();
        Report(before);
        return;
    }
    if (ack.newlyAcked == 0 || ack.rtt.IsZero())
    {
        return;
    }
    UpdateBaseRtt(ack.rtt);
    const double delay = (ack.rtt - m_baseRtt).GetSeconds();
    const double acked = static_cast<double>(ack.newlyAckedBytes);
    FilterDelay(delay, ack.ecnEcho, ack.entropy);
    m_achieved += acked;
    m_received += acked;
    m_bytesIgnored += acked;
    if (QuickAdapt(false, ack.ecnEcho, delay, ack))
    {
        Bound();
        Report(before);
        return;
    }
    const double target = m_target.GetSeconds();
    if (!ack.ecnEcho && delay >= target)
    {
        m_inc += m_fi * acked; // fair increase
    }
    else if (!ack.ecnEcho)
    {
        FastIncrease(acked, delay);
        if (!m_increasing)
        {
            m_inc += m_alpha * acked * (target - delay); // proportional increase
        }
    }
    else if (delay >= target)
    {
        MultiplicativeDecrease(ack.entropy, ack.now);
    }
    // ECN below the target: no change; the path selector moves away from the marked EV.
    Bound();
    if (m_received > 8.0 * m_setup.mtuBytes || ack.now - m_lastAdjust > m_baseRtt)
    {
        Fulfil(ack.now);
        Bound();
    }
    Report(before);
}

void
NsccCongestionControl::OnTimeout(Time now)
{
    const double before = m_cwnd;
    m_triggerQa = true; // the next ACK after the period adapts to what was delivered
    m_cwnd -= m_setup.mtuBytes;
    Bound();
    Report(before);
}

} // namespace ns3
