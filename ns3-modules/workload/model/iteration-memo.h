/*
 * tusk: IterationMemo, fast mode's iteration memoisation (docs/fast-mode.md).
 *
 * A training job repeats one iteration. When iteration i of a job starts, IterationMemo
 * decides whether an earlier, simulated iteration m of the same job with the same traffic can
 * stand for it; if so, the executor does not post i's transfers on the NICs but completes each
 * after the delays its counterpart in m took (WorkloadExecutor::SetReplay), so triggers,
 * collective timings, waits and the next iteration's start follow, and m's port-counter
 * deltas are added to every port. Two acceptance rules:
 *
 *  - exact: the fabric is quiescent at the start of m, of m + 1 and of i (no frame in flight
 *    or queued, no MMU bytes, no port paused, no unacknowledged byte on any QP), the run's
 *    state words (every QP's congestion-control state, every connection's round-robin QP
 *    cursor) are equal at those three instants, and the policies cannot change a choice
 *    (SetExactAllowed). Replay then is what packet mode computes.
 *  - steady: the last SteadyIterations simulated, finished iterations of the same traffic
 *    and phase (iterations i - P, i - 2P, ... for a period P up to SteadyMaxPeriod) agree
 *    within SteadyTolerance in iteration time and in every transfer's FCT. For
 *    policies that read random streams and jobs whose fabric is never quiescent at the
 *    iteration barrier (compute time 0).
 *
 * Both need the replay span clear: no failure event (the run's SpanCheck), no background
 * flow live or due, no other job's transfer unfinished, in the memo's span or the replay's.
 * Whatever cannot be replayed is simulated packet by packet, the reason counted.
 */
#ifndef TUSK_ITERATION_MEMO_H
#define TUSK_ITERATION_MEMO_H

#include "iteration-memo-stats.h"
#include "workload-executor.h"

#include "fabric/model/fabric-net-device.h"

#include "ns3/object.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/** The fabric as fast mode's probe sees it at an iteration's start. */
struct FabricProbeResult
{
    /** "" when quiescent, else what is not (a short reason, e.g. "frames in flight"). */
    std::string notQuiescent;
    /** "" when nothing seen so far rules the exact rule out, else why (e.g. a queue reached
     *  the ECN marking range, where marking draws from a random stream). */
    std::string exactWhyNot;
    /** State words compared for equality by the exact rule (CC state bits, QP cursors). */
    std::vector<uint64_t> state;
    /** Every port's counters, in the run's port order (the deltas are added in that order). */
    std::vector<PortCounters> ports;
};

/**
 * \brief Iteration memoisation for the jobs of a WorkloadSpec (see the file comment).
 *
 * Use: Setup, the optional setters, then Start before WorkloadExecutor::Start. Reasons counted
 * (IterationMemoStats::fallbacks): "no_memo" (no earlier finished iteration of the same
 * traffic), "traffic_differs" (earlier iterations, none of the same traffic), "refused"-style
 * reasons given by SetRefusal (e.g. "time_series"), "failure_in_span", "background_traffic",
 * "other_job_live", "pfc_in_memo", "steady_state_not_reached".
 */
class IterationMemo : public Object
{
  public:
    using Probe = std::function<FabricProbeResult()>;
    /** "" when no failure event falls in [fromPs, toPs], else the reason. */
    using SpanCheck = std::function<std::string(uint64_t fromPs, uint64_t toPs)>;

    static TypeId GetTypeId();
    IterationMemo();

    /** \param exec the run's executor, set up; `probe` and `span` are called at decisions */
    void Setup(Ptr<WorkloadExecutor> exec, Probe probe, SpanCheck span);
    /** Replay nothing; count every iteration simulated under `reason` (e.g. time series). */
    void SetRefusal(const std::string& reason) { m_refusal = reason; }
    /** Whether the exact rule may apply (stateless, RNG-free policies), and why not. */
    void SetExactAllowed(bool allowed, const std::string& whyNot);
    /** Hook into the executor and schedule the first iterations' decisions. Call before
     *  WorkloadExecutor::Start. */
    void Start();

    const IterationMemoStats& GetStats() const { return m_stats; }
    /** Per port, the replayed iterations' counter deltas summed (maxima maxed). */
    const std::vector<PortCounters>& GetReplayedPorts() const { return m_replayedPorts; }

  protected:
    void DoDispose() override;

  private:
    struct Iteration
    {
        std::vector<uint32_t> transfers; //!< in spec order
        uint64_t pattern = 0;            //!< hash of its traffic (same hash: same traffic)
        uint64_t startDelayPs = 0;       //!< decision time after its start trigger fires
        bool decided = false;
        bool replayed = false;
        uint32_t source = 0;             //!< replayed: the simulated iteration it was replayed from
        uint64_t startPs = 0;            //!< decision time, ps
        std::string notQuiescent;
        std::string exactWhyNot;
        std::vector<uint64_t> state;
        std::vector<uint32_t> cursors;
        std::vector<PortCounters> ports;
        bool othersLive = false;         //!< another job unfinished at its start
        size_t unfinished = 0;           //!< transfers before this one are finished (Finished)
    };
    struct Job
    {
        std::vector<Iteration> iters;
        std::vector<uint32_t> simulated; //!< iterations simulated, in order
    };

    void OnFire(uint32_t trigger);
    void OnCompletion(uint32_t transfer);
    void Decide(uint32_t job, uint32_t it);
    void DecideReplay(uint32_t job, uint32_t it);
    /** Every transfer of m delivered and acknowledged (remembers how far it checked). */
    bool Finished(Iteration& m) const;
    /** A transfer outside `job` live or due in [fromPs, toPs]: the reason, else "". */
    std::string ForeignActivity(uint32_t job, uint64_t fromPs, uint64_t toPs) const;
    /** m is a memo candidate for traffic `pattern`: simulated, finished, its next iteration
     *  started, its snapshots kept. */
    bool Usable(Job& j, uint32_t m, uint64_t pattern) const;
    /** The steady rule's memo for iteration i, or -1 (see SteadyMaxPeriod). */
    int64_t SteadyMemo(Job& j, uint32_t i) const;
    void AddDelta(const Iteration& m, const Iteration& next);

    Ptr<WorkloadExecutor> m_exec;
    Probe m_probe;
    SpanCheck m_span;
    std::string m_refusal;
    bool m_exactAllowed = true;
    std::string m_exactWhyNot;
    uint32_t m_steadyIterations = 2;
    double m_steadyTolerance = 0.01;
    uint32_t m_maxPeriod = 4;
    std::vector<Job> m_jobs;
    std::vector<std::pair<int32_t, int32_t>> m_startOf; //!< per trigger: (job, iteration) it starts
    std::vector<int32_t> m_jobOf;      //!< per transfer: its job, or -1
    std::vector<uint64_t> m_jobLeft;   //!< per job: transfers not yet delivered and acknowledged
    std::vector<uint32_t> m_foreign;   //!< transfers outside every job (background, imported)
    std::vector<PortCounters> m_replayedPorts;
    IterationMemoStats m_stats;
};

/** a += b - c for every counter; maxima: a = max(a, b's) (b is the later snapshot). */
void AddPortDelta(PortCounters& a, const PortCounters& b, const PortCounters& c);

} // namespace ns3

#endif
