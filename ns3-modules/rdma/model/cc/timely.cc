#include "timely.h"

#include "cc-registry.h"

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TimelyCongestionControl);

namespace
{
const CongestionControlRegistration kRegistration{
    {"timely", "ns3::TimelyCongestionControl",
     "TIMELY: rate control on the RTT gradient"},
    "Mittal et al., TIMELY: RTT-based Congestion Control for the Datacenter, SIGCOMM 2015"};
} // namespace

TypeId
TimelyCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TimelyCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Rdma")
            .AddConstructor<TimelyCongestionControl>()
            .AddAttribute("Alpha", "EWMA weight of a new RTT difference (0..1; paper: 0.875).",
                          DoubleValue(0.875),
                          MakeDoubleAccessor(&TimelyCongestionControl::m_alpha),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("Beta",
                          "Multiplicative decrease factor (0..1; paper: 0.8).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&TimelyCongestionControl::m_beta),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("TLow",
                          "Tlow: below this RTT the rate only increases (Time; paper: 50 us).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&TimelyCongestionControl::m_tLow),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("THigh",
                          "Thigh: above this RTT the rate decreases whatever the gradient "
                          "(Time; paper: 500 us).",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&TimelyCongestionControl::m_tHigh),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MinRtt",
                          "minRTT that normalises the gradient (Time; paper: 20 us).",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&TimelyCongestionControl::m_minRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("AdditiveIncrease",
                          "delta: additive increase step (bit/s; paper: 10 Mb/s).",
                          UintegerValue(10'000'000),
                          MakeUintegerAccessor(&TimelyCongestionControl::m_delta),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("HyperIncrease",
                          "Step of the hyper-active increase (HAI); 0 = 5 x delta as in the "
                          "paper (bit/s; the HPCC simulator's RATE_HAI).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TimelyCongestionControl::m_hyper),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("HaiThreshold",
                          "Updates in a row with a gradient <= 0 before HAI (count; paper: 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&TimelyCongestionControl::m_haiThreshold),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MinRate",
                          "Lowest rate (bit/s; the HPCC simulator's MIN_RATE).",
                          UintegerValue(100'000'000),
                          MakeUintegerAccessor(&TimelyCongestionControl::m_minRate),
                          MakeUintegerChecker<uint64_t>(1))
            .AddTraceSource("RateChange",
                            "The rate (bit/s) and the normalised RTT gradient after an update.",
                            MakeTraceSourceAccessor(&TimelyCongestionControl::m_rateTrace),
                            "ns3::TimelyCongestionControl::RateTracedCallback");
    return tid;
}

void
TimelyCongestionControl::Init(const RdmaCcSetup& setup)
{
    RdmaCongestionControl::Init(setup);
    m_rate = static_cast<double>(setup.lineRateBps);
}

void
TimelyCongestionControl::Update(Time rtt)
{
    const double newRtt = static_cast<double>(rtt.GetNanoSeconds());
    if (!m_havePrev)
    {
        m_prevRttNs = newRtt;
        m_havePrev = true;
        return;
    }
    const double newRttDiff = newRtt - m_prevRttNs;
    m_prevRttNs = newRtt;
    m_rttDiffNs = (1 - m_alpha) * m_rttDiffNs + m_alpha * newRttDiff;
    m_gradient = m_rttDiffNs / static_cast<double>(m_minRtt.GetNanoSeconds());
    m_negativeInARow = m_gradient <= 0 ? m_negativeInARow + 1 : 0;
    const double delta = static_cast<double>(m_delta);
    double rate = m_rate;
    if (rtt < m_tLow)
    {
        rate += delta;
    }
    else if (rtt > m_tHigh)
    {
        rate *= 1 - m_beta * (1 - static_cast<double>(m_tHigh.GetNanoSeconds()) / newRtt);
    }
    else if (m_gradient <= 0)
    {
        const bool hai = m_negativeInARow >= m_haiThreshold;
        rate += !hai ? delta : (m_hyper != 0 ? static_cast<double>(m_hyper) : 5 * delta);
    }
    else
    {
        rate *= 1 - m_beta * m_gradient;
    }
    rate = std::clamp(rate, static_cast<double>(m_minRate),
                      static_cast<double>(m_setup.lineRateBps));
    if (rate != m_rate)
    {
        m_rate = rate;
        m_rateTrace(m_rate, m_gradient);
        NotifyState();
    }
}

void
TimelyCongestionControl::OnAck(const RdmaCcAck& ack)
{
    if (ack.newlyAcked == 0 || ack.rtt.IsZero())
    {
        return;
    }
    // Once per RTT: an ACK of a packet sent after the previous update.
    if (m_started && ack.sndUna <= m_lastUpdateSeq)
    {
        return;
    }
    m_started = true;
    m_lastUpdateSeq = ack.sndNxt;
    Update(ack.rtt);
}

} // namespace ns3
