#include "ib-congestion-control.h"

#include "cc-registry.h"

#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(IbCongestionControl);

namespace
{
const CongestionControlRegistration kRegistration{
    {"ib-cc", "ns3::IbCongestionControl",
     "InfiniBand congestion control: FECN marks, a BECN per marked packet, a CCT of "
     "inter-packet delays",
     CongestionControlInfo::NEEDS_ECN | CongestionControlInfo::NEEDS_BASE_RTT, "infiniband"},
    "InfiniBand Architecture Specification vol. 1, annex A10"};
} // namespace

TypeId
IbCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IbCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Rdma")
            .AddConstructor<IbCongestionControl>()
            .AddAttribute("CctiIncrease",
                          "CCTI_Increase: table entries the index rises per BECN (entries).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&IbCongestionControl::m_increase),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("CctiLimit",
                          "CCTI_Limit: the highest table index, the table's last entry "
                          "(entries; a CCT has at most 128 x 64 entries).",
                          UintegerValue(127),
                          MakeUintegerAccessor(&IbCongestionControl::m_limit),
                          MakeUintegerChecker<uint32_t>(1, 8191))
            .AddAttribute("CctiMin",
                          "CCTI_Min: the index the timer never goes below (entries).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&IbCongestionControl::m_min),
                          MakeUintegerChecker<uint32_t>(0, 8191))
            .AddAttribute("CctiTimer",
                          "CCTI_Timer: the index falls by one every this long (Time; IBA "
                          "counts it in 1.024 us units).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&IbCongestionControl::m_timer),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("CctStep",
                          "Inter-packet delay added per table entry: CCT[i] = i x CctStep "
                          "(Time).",
                          TimeValue(NanoSeconds(20)),
                          MakeTimeAccessor(&IbCongestionControl::m_cctStep),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Ccti",
                            "The congestion control table index after a change (entries).",
                            MakeTraceSourceAccessor(&IbCongestionControl::m_cctiTrace),
                            "ns3::IbCongestionControl::CctiTracedCallback");
    return tid;
}

void
IbCongestionControl::Init(const RdmaCcSetup& setup)
{
    RdmaCongestionControl::Init(setup);
    NS_ABORT_MSG_IF(m_min > m_limit, "IbCongestionControl: CctiMin above CctiLimit");
    m_ccti = m_min;
    m_maxCcti = m_min;
    m_rateBps = RateAt(m_ccti);
}

uint64_t
IbCongestionControl::RateAt(uint32_t ccti) const
{
    const double c = static_cast<double>(m_setup.lineRateBps);
    const double packetS = (m_setup.mtuBytes * 8.0) / c;
    const double ipdS = Ipd(ccti).GetSeconds();
    return static_cast<uint64_t>(std::llround(c * packetS / (packetS + ipdS)));
}

void
IbCongestionControl::SetCcti(uint32_t ccti)
{
    if (ccti == m_ccti)
    {
        return;
    }
    m_ccti = ccti;
    m_maxCcti = std::max(m_maxCcti, ccti);
    m_rateBps = RateAt(ccti);
    m_cctiTrace(ccti);
    NotifyState();
}

void
IbCongestionControl::Advance(Time now)
{
    if (m_ccti <= m_min)
    {
        m_timerStart = now; // nothing to recover: the timer restarts with the next rise
        return;
    }
    const int64_t periods = (now - m_timerStart).GetPicoSeconds() / m_timer.GetPicoSeconds();
    if (periods <= 0)
    {
        return;
    }
    m_timerStart += m_timer * periods;
    const uint64_t down = std::min<uint64_t>(static_cast<uint64_t>(periods), m_ccti - m_min);
    SetCcti(m_ccti - static_cast<uint32_t>(down));
}

uint32_t
IbCongestionControl::GetCcti(Time now)
{
    Advance(now);
    return m_ccti;
}

void
IbCongestionControl::OnDataSent(uint32_t, Time now)
{
    Advance(now);
}

void
IbCongestionControl::OnAckSample(bool ecnEcho, Time, Time now)
{
    Advance(now);
    if (ecnEcho)
    {
        ++m_becns;
        if (m_ccti <= m_min)
        {
            m_timerStart = now;
        }
        SetCcti(std::min(m_limit, m_ccti + m_increase));
    }
}

} // namespace ns3
