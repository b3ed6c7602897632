/*
 * tusk: DCQCN reaction point (Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM 2015, section 3).
 */
#ifndef TUSK_DCQCN_H
#define TUSK_DCQCN_H

#include "rdma-congestion-control.h"

#include "ns3/attribute.h"
#include "ns3/event-id.h"
#include "ns3/traced-callback.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \brief DCQCN's rate-based reaction point (RP), one per QP.
 *
 * On a CNP (at most one decrease per `MinDecreaseInterval`):
 *   Rt <- Rc (always with ClampTargetRate, else only if the rate rose since the last CNP),
 *   Rc <- max(MinRate, Rc (1 - alpha / 2)),  alpha <- (1 - g) alpha + g,
 * and the increase counters restart. Without CNPs, alpha <- (1 - g) alpha every
 * `AlphaUpdatePeriod` (K). Rate-increase events come from a timer (`RateIncreaseTimer`, T) and a
 * byte counter (`ByteCounter`, B); with i = the larger of the two event counts and j the smaller:
 *   i <= F (`FastRecoveryStages`):  fast recovery   Rc <- (Rt + Rc) / 2
 *   j >  F:                         hyper increase  Rt <- Rt + (j - F) R_HAI, Rc <- (Rt + Rc) / 2
 *   otherwise:                      additive        Rt <- Rt + R_AI,          Rc <- (Rt + Rc) / 2
 * With the byte counter off (B = 0) the timer alone counts the stages, as a Mellanox NIC and the
 * HPCC simulator do (its rdma-hw.cc): with t = timer events since the last cut, fast recovery
 * while t <= F, one additive step at t = F + 1, then Rt <- Rt + R_HAI per event.
 * Rates are clamped to the line rate. Every change of Rc, Rt or alpha fires the trace source
 * "RateChange" (Rc, Rt, alpha). The first CNP may set the rate to `RateOnFirstCnp`
 * instead of cutting it. Timers run only while the QP is below line rate or alpha is
 * non-negligible, so an uncongested QP costs no events.
 *
 * Two clocks of a Mellanox NIC (the HPCC simulator's rdma-hw.cc, UpdateAlphaMlx and
 * CheckRateDecreaseMlx), off by default:
 *  - `AlphaUpdateOnTimer`: a CNP changes alpha only through a flag; every K from the first CNP
 *    on, alpha <- (1 - g) alpha + g if a CNP arrived since the last tick, else (1 - g) alpha.
 *  - `DecreaseOnTimer`: a CNP only flags the QP; every `MinDecreaseInterval` from the first CNP
 *    on (plus 1 ns, after the alpha tick of the same instant), a flagged QP cuts once. A CNP
 *    inside the interval is deferred to the next tick instead of ignored.
 *
 * Presets (DcqcnCongestionControl::Preset): "paper" (Zhu et al. 2015; the attributes'
 * defaults: g = 1/256, K = 55 us, T = 55 us, B = 10 MB, F = 5, R_AI = 40 Mb/s,
 * R_HAI = 200 Mb/s, min rate 100 Mb/s) and "hpcc", the NIC-default style of the HPCC
 * simulator's config (timer 300 us, F = 1, no byte counter, R_AI = 5 Mb/s and R_HAI = 50 Mb/s
 * per 25 Gb/s of line rate, no target-rate clamp, 4 us decrease interval, alpha and the
 * decrease on their timers).
 */
class DcqcnCongestionControl : public RdmaCongestionControl
{
  public:
    /** TracedCallback signature of "RateChange": the current rate Rc and the target rate Rt
     *  (bit/s) and alpha after a change of any of them. */
    typedef void (*RateTracedCallback)(double rcBps, double rtBps, double alpha);

    static TypeId GetTypeId();
    DcqcnCongestionControl();

    void Init(const RdmaCcSetup& setup) override;
    uint64_t GetRateBps() const override { return static_cast<uint64_t>(m_rc); }
    void OnDataSent(uint32_t bytes, Time now) override;
    void OnCnp(Time now) override;
    const char* Name() const override { return "dcqcn"; }
    /** Rc, Rt and alpha. */
    RdmaCcState GetState() const override
    {
        RdmaCcState s;
        s.rateBps = m_rc;
        s.targetRateBps = m_rt;
        s.alpha = m_alpha;
        return s;
    }
    /** Until its first CNP a QP sends at line rate and nothing else moves (OnDataSent counts
     *  no bytes, no timer runs); from then on its timers' phases (clocked from the first CNP)
     *  and byte counters are not in GetState(). OnCnp starts the clocks before any cut. */
    bool StateIsComplete() const override { return !m_clocksStarted; }
    /** The rate-increase timer T and the alpha period K, the longer. */
    Time RateTimerPeriod() const override { return std::max(m_rateTimer, m_alphaPeriod); }

    double GetAlpha() const { return m_alpha; }
    double GetTargetRateBps() const { return m_rt; }
    uint64_t GetCnpsReacted() const { return m_cnps; }

    /** Attribute values by attribute name ("Gain", "RateAi", ...). */
    using AttributeValues = std::vector<std::pair<std::string, Ptr<const AttributeValue>>>;

    /** Names of the presets, "paper" first (the attributes' defaults). */
    static const std::vector<std::string>& PresetNames();

    /**
     * \brief Every attribute of this TypeId as preset `name` sets it for a NIC whose line rate
     * is `lineRateBps` (the "hpcc" preset scales R_AI and R_HAI with it: 5 and 50 Mb/s per
     * 25 Gb/s, at least one step of 25 Gb/s).
     * \throws std::invalid_argument for a name not in PresetNames()
     */
    static AttributeValues Preset(const std::string& name, uint64_t lineRateBps);

  protected:
    void DoDispose() override;

  private:
    void AlphaTimer();
    void RateTimer();
    /** Cut the rate now: Rt, Rc (and alpha unless AlphaUpdateOnTimer), restart increases. */
    void Decrease(Time now);
    /** DecreaseOnTimer: the periodic check; cuts if a CNP arrived since the last one. */
    void DecreaseCheck();
    /** The first tick of a clock that started at m_firstCnp with `period`, strictly after
     *  `now` (+ `offset`), as a delay from now. */
    Time NextTick(Time now, Time period, Time offset) const;
    void IncreaseEvent();
    void EnsureTimers();

    // Attributes.
    double m_g = 1.0 / 256;
    double m_initialAlpha = 1.0;
    Time m_alphaPeriod;
    Time m_rateTimer;
    uint64_t m_byteCounter = 0;
    uint32_t m_fastRecovery = 5;
    uint64_t m_rateAi = 0;
    uint64_t m_rateHai = 0;
    uint64_t m_minRate = 0;
    uint64_t m_rateOnFirstCnp = 0;
    bool m_clampTarget = true;
    Time m_minDecreaseInterval;
    bool m_alphaOnTimer = false;
    bool m_decreaseOnTimer = false;

    // State.
    double m_rc = 0;
    double m_rt = 0;
    double m_alpha = 1.0;
    uint32_t m_timerEvents = 0;
    uint32_t m_byteEvents = 0;
    uint64_t m_bytes = 0;
    bool m_seenCnp = false;
    bool m_increasedSinceCnp = false;
    Time m_lastDecrease;
    bool m_clocksStarted = false; //!< a CNP has arrived
    Time m_firstCnp;             //!< origin of the timer-driven clocks
    bool m_cnpSinceAlphaTick = false;
    bool m_cnpSinceDecreaseCheck = false;
    uint64_t m_cnps = 0;
    EventId m_alphaEvent;
    EventId m_rateEvent;
    EventId m_decreaseEvent;
    TracedCallback<double, double, double> m_rateTrace;
};

} // namespace ns3

#endif
