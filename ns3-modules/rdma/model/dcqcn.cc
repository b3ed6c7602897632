#include "dcqcn.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DcqcnCongestionControl);

const char* const DcqcnCongestionControl::kPresets[] = {"paper", "hpcc"};

TypeId
DcqcnCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DcqcnCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Rdma")
            .AddConstructor<DcqcnCongestionControl>()
            .AddAttribute("Gain", "alpha EWMA gain g (dimensionless).", DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&DcqcnCongestionControl::m_g),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("InitialAlpha", "alpha of a new QP (dimensionless).", DoubleValue(1.0),
                          MakeDoubleAccessor(&DcqcnCongestionControl::m_initialAlpha),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("AlphaUpdatePeriod", "K: alpha decays every K without a CNP (Time).",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_alphaPeriod),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RateIncreaseTimer", "T: period of timer-driven increase events (Time).",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_rateTimer),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ByteCounter",
                          "B: an increase event every B bytes sent; 0 disables (bytes).",
                          UintegerValue(10'000'000),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_byteCounter),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("FastRecoveryStages", "F: fast-recovery steps after a decrease (count).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_fastRecovery),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RateAi", "R_AI: additive increase step (bit/s).",
                          UintegerValue(40'000'000),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_rateAi),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("RateHai", "R_HAI: hyper increase step (bit/s).",
                          UintegerValue(200'000'000),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_rateHai),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MinRate", "Lowest rate a decrease may reach (bit/s).",
                          UintegerValue(100'000'000),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_minRate),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("RateOnFirstCnp",
                          "Rate set on the first CNP instead of a cut; 0 = cut (bit/s).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_rateOnFirstCnp),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ClampTargetRate",
                          "true: Rt <- Rc on every CNP; false: only if the rate increased since "
                          "the last CNP.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&DcqcnCongestionControl::m_clampTarget),
                          MakeBooleanChecker())
            .AddAttribute("MinDecreaseInterval",
                          "CNPs closer than this to the last decrease are ignored (Time).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_minDecreaseInterval),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("RateChange",
                            "Rc, Rt (bit/s) and alpha after a CNP (decrease), a rate-increase "
                            "event or an alpha decay.",
                            MakeTraceSourceAccessor(&DcqcnCongestionControl::m_rateTrace),
                            "ns3::DcqcnCongestionControl::RateTracedCallback");
    return tid;
}

DcqcnCongestionControl::DcqcnCongestionControl() = default;

void
DcqcnCongestionControl::DoDispose()
{
    m_alphaEvent.Cancel();
    m_rateEvent.Cancel();
    RdmaCongestionControl::DoDispose();
}

void
DcqcnCongestionControl::Init(const RdmaCcSetup& setup)
{
    RdmaCongestionControl::Init(setup);
    m_rc = static_cast<double>(setup.lineRateBps);
    m_rt = m_rc;
    m_alpha = m_initialAlpha;
}

void
DcqcnCongestionControl::OnCnp(Time now)
{
    if (m_seenCnp && !m_minDecreaseInterval.IsZero() && now - m_lastDecrease < m_minDecreaseInterval)
    {
        return;
    }
    ++m_cnps;
    const double line = static_cast<double>(m_setup.lineRateBps);
    if (!m_seenCnp && m_rateOnFirstCnp > 0)
    {
        m_rt = m_rc;
        m_rc = std::min(line, static_cast<double>(m_rateOnFirstCnp));
    }
    else
    {
        if (m_clampTarget || m_increasedSinceCnp || !m_seenCnp)
        {
            m_rt = m_rc;
        }
        m_rc = std::max(static_cast<double>(m_minRate), m_rc * (1 - m_alpha / 2));
    }
    m_alpha = (1 - m_g) * m_alpha + m_g;
    m_seenCnp = true;
    m_increasedSinceCnp = false;
    m_lastDecrease = now;
    m_timerEvents = 0;
    m_byteEvents = 0;
    m_bytes = 0;
    m_alphaEvent.Cancel();
    m_rateEvent.Cancel();
    m_rateTrace(m_rc, m_rt, m_alpha);
    EnsureTimers();
}

void
DcqcnCongestionControl::EnsureTimers()
{
    if (!m_alphaEvent.IsRunning() && m_alpha > 1e-9)
    {
        m_alphaEvent = Simulator::Schedule(m_alphaPeriod, &DcqcnCongestionControl::AlphaTimer, this);
    }
    if (!m_rateEvent.IsRunning() && m_rc < static_cast<double>(m_setup.lineRateBps))
    {
        m_rateEvent = Simulator::Schedule(m_rateTimer, &DcqcnCongestionControl::RateTimer, this);
    }
}

void
DcqcnCongestionControl::AlphaTimer()
{
    m_alpha *= (1 - m_g);
    m_rateTrace(m_rc, m_rt, m_alpha);
    EnsureTimers();
}

void
DcqcnCongestionControl::RateTimer()
{
    ++m_timerEvents;
    IncreaseEvent();
    EnsureTimers();
}

void
DcqcnCongestionControl::OnDataSent(uint32_t bytes, Time)
{
    if (m_byteCounter == 0 || !m_seenCnp || m_rc >= static_cast<double>(m_setup.lineRateBps))
    {
        return;
    }
    m_bytes += bytes;
    while (m_bytes >= m_byteCounter)
    {
        m_bytes -= m_byteCounter;
        ++m_byteEvents;
        IncreaseEvent();
    }
}

void
DcqcnCongestionControl::IncreaseEvent()
{
    const double line = static_cast<double>(m_setup.lineRateBps);
    const uint32_t i = std::max(m_timerEvents, m_byteEvents);
    const uint32_t j = std::min(m_timerEvents, m_byteEvents);
    if (i <= m_fastRecovery)
    {
        // fast recovery: towards the target, which stays
    }
    else if (j > m_fastRecovery)
    {
        m_rt += static_cast<double>(j - m_fastRecovery) * static_cast<double>(m_rateHai);
    }
    else
    {
        m_rt += static_cast<double>(m_rateAi);
    }
    m_rt = std::min(m_rt, line);
    m_rc = std::min(line, (m_rt + m_rc) / 2);
    m_increasedSinceCnp = true;
    m_rateTrace(m_rc, m_rt, m_alpha);
}

} // namespace ns3
