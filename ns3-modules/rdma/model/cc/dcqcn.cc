#include "dcqcn.h"

#include "cc-registry.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DcqcnCongestionControl);

namespace
{
const CongestionControlRegistration kRegistration{
    {"dcqcn", "ns3::DcqcnCongestionControl",
     "DCQCN: rate control on CNPs the receiver sends for ECN-marked packets",
     CongestionControlInfo::NEEDS_ECN},
    "Zhu et al., Congestion Control for Large-Scale RDMA Deployments, SIGCOMM 2015"};
} // namespace

namespace
{

/** The parameters of a preset, in the attributes' units. */
struct DcqcnParams
{
    double g;
    double initialAlpha;
    Time alphaUpdatePeriod; //!< K
    Time rateIncreaseTimer; //!< T
    uint64_t byteCounter;   //!< B, bytes; 0 = off
    uint32_t fastRecoveryStages;
    uint64_t rateAiBps;
    uint64_t rateHaiBps;
    uint64_t minRateBps;
    uint64_t rateOnFirstCnpBps;
    bool clampTargetRate;
    Time minDecreaseInterval;
    bool alphaUpdateOnTimer;
    bool decreaseOnTimer;
};

/** Zhu et al., SIGCOMM 2015 (the DCQCN paper): the attributes' defaults. */
DcqcnParams
PaperPreset()
{
    return DcqcnParams{1.0 / 256,
                       1.0,
                       MicroSeconds(55),
                       MicroSeconds(55),
                       10'000'000,
                       5,
                       40'000'000,
                       200'000'000,
                       100'000'000,
                       0,
                       true,
                       Time(0),
                       false,
                       false};
}

/** The HPCC simulator's NIC-default style (its config.txt), at `lineRateBps`. */
DcqcnParams
HpccPreset(uint64_t lineRateBps)
{
    const uint64_t per25g = std::max<uint64_t>(1, lineRateBps / 25'000'000'000ULL);
    DcqcnParams p = PaperPreset();
    p.rateIncreaseTimer = MicroSeconds(300);
    p.byteCounter = 0;
    p.fastRecoveryStages = 1;
    p.rateAiBps = 5'000'000 * per25g;
    p.rateHaiBps = 50'000'000 * per25g;
    p.clampTargetRate = false;
    p.minDecreaseInterval = MicroSeconds(4);
    // rdma-hw.cc: alpha moves only in UpdateAlphaMlx (every AlphaResumInterval, on the CNP
    // flag), the rate only in CheckRateDecreaseMlx (every RateDecreaseInterval, on the flag).
    p.alphaUpdateOnTimer = true;
    p.decreaseOnTimer = true;
    return p;
}

} // namespace

const std::vector<std::string>&
DcqcnCongestionControl::PresetNames()
{
    static const std::vector<std::string> names = {"paper", "hpcc"};
    return names;
}

DcqcnCongestionControl::AttributeValues
DcqcnCongestionControl::Preset(const std::string& name, uint64_t lineRateBps)
{
    DcqcnParams p;
    if (name == "paper")
    {
        p = PaperPreset();
    }
    else if (name == "hpcc")
    {
        p = HpccPreset(lineRateBps);
    }
    else
    {
        throw std::invalid_argument("no DCQCN preset \"" + name + "\"");
    }
    return {
        {"Gain", Create<DoubleValue>(p.g)},
        {"InitialAlpha", Create<DoubleValue>(p.initialAlpha)},
        {"AlphaUpdatePeriod", Create<TimeValue>(p.alphaUpdatePeriod)},
        {"RateIncreaseTimer", Create<TimeValue>(p.rateIncreaseTimer)},
        {"ByteCounter", Create<UintegerValue>(p.byteCounter)},
        {"FastRecoveryStages", Create<UintegerValue>(p.fastRecoveryStages)},
        {"RateAi", Create<UintegerValue>(p.rateAiBps)},
        {"RateHai", Create<UintegerValue>(p.rateHaiBps)},
        {"MinRate", Create<UintegerValue>(p.minRateBps)},
        {"RateOnFirstCnp", Create<UintegerValue>(p.rateOnFirstCnpBps)},
        {"ClampTargetRate", Create<BooleanValue>(p.clampTargetRate)},
        {"MinDecreaseInterval", Create<TimeValue>(p.minDecreaseInterval)},
        {"AlphaUpdateOnTimer", Create<BooleanValue>(p.alphaUpdateOnTimer)},
        {"DecreaseOnTimer", Create<BooleanValue>(p.decreaseOnTimer)},
    };
}

TypeId
DcqcnCongestionControl::GetTypeId()
{
    static const DcqcnParams kPaper = PaperPreset();
    static TypeId tid =
        TypeId("ns3::DcqcnCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Rdma")
            .AddConstructor<DcqcnCongestionControl>()
            .AddAttribute("Gain", "alpha EWMA gain g (dimensionless).", DoubleValue(kPaper.g),
                          MakeDoubleAccessor(&DcqcnCongestionControl::m_g),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("InitialAlpha", "alpha of a new QP (dimensionless).",
                          DoubleValue(kPaper.initialAlpha),
                          MakeDoubleAccessor(&DcqcnCongestionControl::m_initialAlpha),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("AlphaUpdatePeriod", "K: alpha decays every K without a CNP (Time).",
                          TimeValue(kPaper.alphaUpdatePeriod),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_alphaPeriod),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RateIncreaseTimer", "T: period of timer-driven increase events (Time).",
                          TimeValue(kPaper.rateIncreaseTimer),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_rateTimer),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ByteCounter",
                          "B: an increase event every B bytes sent; 0 disables it, and the timer "
                          "alone counts the stages (F fast recovery, one additive, then hyper "
                          "increase by R_HAI per event) (bytes).",
                          UintegerValue(kPaper.byteCounter),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_byteCounter),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("FastRecoveryStages", "F: fast-recovery steps after a decrease (count).",
                          UintegerValue(kPaper.fastRecoveryStages),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_fastRecovery),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RateAi", "R_AI: additive increase step (bit/s).",
                          UintegerValue(kPaper.rateAiBps),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_rateAi),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("RateHai", "R_HAI: hyper increase step (bit/s).",
                          UintegerValue(kPaper.rateHaiBps),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_rateHai),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MinRate", "Lowest rate a decrease may reach (bit/s).",
                          UintegerValue(kPaper.minRateBps),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_minRate),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("RateOnFirstCnp",
                          "Rate set on the first CNP instead of a cut; 0 = cut (bit/s).",
                          UintegerValue(kPaper.rateOnFirstCnpBps),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_rateOnFirstCnp),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ClampTargetRate",
                          "true: Rt <- Rc on every CNP; false: only if the rate increased since "
                          "the last CNP.",
                          BooleanValue(kPaper.clampTargetRate),
                          MakeBooleanAccessor(&DcqcnCongestionControl::m_clampTarget),
                          MakeBooleanChecker())
            .AddAttribute("MinDecreaseInterval",
                          "CNPs closer than this to the last decrease are ignored (Time).",
                          TimeValue(kPaper.minDecreaseInterval),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_minDecreaseInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("AlphaUpdateOnTimer",
                          "false: alpha <- (1 - g) alpha + g at each decrease and decays every K "
                          "after it; true: alpha changes only every K from the first CNP on, "
                          "up by g if a CNP arrived since the last tick, else down (a Mellanox "
                          "NIC, the HPCC simulator's UpdateAlphaMlx) (boolean).",
                          BooleanValue(kPaper.alphaUpdateOnTimer),
                          MakeBooleanAccessor(&DcqcnCongestionControl::m_alphaOnTimer),
                          MakeBooleanChecker())
            .AddAttribute("DecreaseOnTimer",
                          "false: a CNP cuts at once unless within MinDecreaseInterval of the "
                          "last cut (then it is ignored); true: a CNP flags the QP and the cut "
                          "comes at the next tick of a MinDecreaseInterval clock started by the "
                          "first CNP (the HPCC simulator's CheckRateDecreaseMlx) (boolean).",
                          BooleanValue(kPaper.decreaseOnTimer),
                          MakeBooleanAccessor(&DcqcnCongestionControl::m_decreaseOnTimer),
                          MakeBooleanChecker())
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
    m_decreaseEvent.Cancel();
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
    const bool first = !m_clocksStarted;
    if (first)
    {
        m_clocksStarted = true;
        m_firstCnp = now;
    }
    if (m_alphaOnTimer)
    {
        // The first CNP starts alpha's clock at InitialAlpha; later ones raise it at a tick.
        m_cnpSinceAlphaTick = m_cnpSinceAlphaTick || !first;
    }
    if (m_decreaseOnTimer && !m_minDecreaseInterval.IsZero())
    {
        m_cnpSinceDecreaseCheck = true;
        if (!m_decreaseEvent.IsRunning())
        {
            // 1 ns after the tick, so that an alpha tick of the same instant comes first
            // (rdma-hw.cc schedules its first decrease check 1 ns late for this).
            m_decreaseEvent =
                Simulator::Schedule(NextTick(now, m_minDecreaseInterval, NanoSeconds(1)),
                                    &DcqcnCongestionControl::DecreaseCheck, this);
        }
        EnsureTimers();
        return;
    }
    if (m_seenCnp && !m_minDecreaseInterval.IsZero() && now - m_lastDecrease < m_minDecreaseInterval)
    {
        if (m_alphaOnTimer)
        {
            EnsureTimers(); // the flag must meet a tick
        }
        return;
    }
    Decrease(now);
}

Time
DcqcnCongestionControl::NextTick(Time now, Time period, Time offset) const
{
    const int64_t rel = (now - m_firstCnp - offset).GetTimeStep();
    const int64_t p = period.GetTimeStep();
    const int64_t n = rel < p ? 1 : rel / p + 1;
    return m_firstCnp + offset + TimeStep(n * p) - now;
}

void
DcqcnCongestionControl::DecreaseCheck()
{
    if (m_cnpSinceDecreaseCheck)
    {
        m_cnpSinceDecreaseCheck = false;
        Decrease(Simulator::Now());
    }
}

void
DcqcnCongestionControl::Decrease(Time now)
{
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
    if (!m_alphaOnTimer)
    {
        m_alpha = (1 - m_g) * m_alpha + m_g;
        m_alphaEvent.Cancel();
    }
    m_seenCnp = true;
    m_increasedSinceCnp = false;
    m_lastDecrease = now;
    m_timerEvents = 0;
    m_byteEvents = 0;
    m_bytes = 0;
    m_rateEvent.Cancel();
    m_rateTrace(m_rc, m_rt, m_alpha);
    NotifyState();
    EnsureTimers();
}

void
DcqcnCongestionControl::EnsureTimers()
{
    if (!m_alphaEvent.IsRunning() && (m_alpha > 1e-9 || m_cnpSinceAlphaTick))
    {
        const Time delay = m_alphaOnTimer && m_clocksStarted
                               ? NextTick(Simulator::Now(), m_alphaPeriod, Time(0))
                               : m_alphaPeriod;
        m_alphaEvent = Simulator::Schedule(delay, &DcqcnCongestionControl::AlphaTimer, this);
    }
    if (!m_rateEvent.IsRunning() && m_seenCnp && m_rc < static_cast<double>(m_setup.lineRateBps))
    {
        m_rateEvent = Simulator::Schedule(m_rateTimer, &DcqcnCongestionControl::RateTimer, this);
    }
}

void
DcqcnCongestionControl::AlphaTimer()
{
    m_alpha = (1 - m_g) * m_alpha + (m_cnpSinceAlphaTick ? m_g : 0.0);
    m_cnpSinceAlphaTick = false;
    m_rateTrace(m_rc, m_rt, m_alpha);
    NotifyState();
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
    if (m_byteCounter == 0)
    {
        // The timer alone counts the stages, as a Mellanox NIC's DCQCN and the HPCC simulator
        // (rdma-hw.cc, RateIncEventMlx): with t = timer events since the cut, fast recovery
        // while t <= F, one additive step at t = F + 1, then hyper increase by R_HAI per event.
        // (With the byte counter's stage stuck at 0 the two-counter rule below never leaves
        // additive increase.)
        const uint32_t t = m_timerEvents;
        if (t > m_fastRecovery + 1)
        {
            m_rt += static_cast<double>(m_rateHai);
        }
        else if (t == m_fastRecovery + 1)
        {
            m_rt += static_cast<double>(m_rateAi);
        }
    }
    else
    {
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
    }
    m_rt = std::min(m_rt, line);
    m_rc = std::min(line, (m_rt + m_rc) / 2);
    m_increasedSinceCnp = true;
    m_rateTrace(m_rc, m_rt, m_alpha);
    NotifyState();
}

} // namespace ns3
