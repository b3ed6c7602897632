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
 *    cursor) are equal at those three instants, or m created connections that ended it in
 *    the state they were created in (SameStartState), and the policies cannot change a
 *    choice (SetExactAllowed). Replay then is what packet mode computes.
 *  - steady: the last SteadyIterations simulated, finished iterations of the same traffic
 *    and phase (iterations i - P, i - 2P, ... for a period P up to SteadyMaxPeriod) agree
 *    within SteadyTolerance in iteration time and in every transfer's FCT, so do the newest
 *    of them and the phase's iteration SteadyTrendSpan - 1 periods back (no trend), and no policy
 *    drew at random in their spans (FabricProbeResult::randomDraws): an iteration shaped by
 *    draws is one sample of their outcomes, and two samples may agree by chance. For
 *    policies with state (flowlets, congestion feedback) and jobs whose fabric is never
 *    quiescent at the iteration barrier (compute time 0).
 *  - sampled: for policies whose iterations never repeat within SteadyTolerance (per-packet
 *    random choices: spraying, DRILL, REPS) or draw at random (LetFlow's port per flowlet),
 *    iterations are taken as samples of one distribution once it is stable: the latest
 *    2 x SampleIterations simulated, finished iterations of the same traffic, as two
 *    windows, agree within SampleTolerance in mean iteration time, mean FCT and the
 *    policies' random draws (a policy settling towards a fixed point draws less and less: a
 *    transient, not a pool), and the pool's Student-t intervals (SampleConfidence) of its mean
 *    iteration time and mean FCT are within SampleTolerance of those means (a wide
 *    distribution is not pinned by 2W samples). Replays then cycle through those iterations in order, so the
 *    replayed iterations keep the samples' spread (not one sample repeated).
 *
 * The steady and sampled rules also need the job's latest RecurrenceSpan finished iterations
 * reproduced by what they would replay (JudgeRecurrence, JudgeTailCover): a rare slow
 * iteration recurring with a longer period than the rule's is not replayed away.
 *
 * Both need the replay span clear: no failure event (the run's SpanCheck), no background
 * flow live or due, no other job's transfer unfinished, in the memo's span or the replay's.
 * Whatever cannot be replayed is simulated packet by packet, the reason counted.
 *
 * The memo keeps its own copy of a simulated iteration's transfer records (taken as each
 * transfer finishes, refreshed when the iteration retires), and only for the few latest
 * simulated iterations the rules can still use, so it works with jobs built iteration by
 * iteration (WorkloadExecutor::SetupLazy), whose records the executor frees at retirement:
 * what fast mode holds does not grow with the iterations.
 */
#ifndef TUSK_ITERATION_MEMO_H
#define TUSK_ITERATION_MEMO_H

#include "iteration-memo-stats.h"
#include "iteration-rules.h"
#include "workload-executor.h"

#include "fabric/model/fabric-net-device.h"

#include "ns3/object.h"

#include <functional>
#include <map>
#include <memory>
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
    /** The same words as each QP had when it was created (same order and size as `state`), or
     *  empty when unknown: a connection created inside a memo iteration may stand as present
     *  at its start in that state (the exact rule, docs/fast-mode.md). */
    std::vector<uint64_t> created;
    /** Per state word (same order and size as `state`): 1 when the QP it belongs to and its
     *  peer are idle (RdmaNic::IsQpIdle), else 0; empty when unknown. A connection that
     *  exists at an iteration's start but did not at its memo's may stand as absent when its
     *  QPs are idle (the exact rule, docs/fast-mode.md). */
    std::vector<uint8_t> idle;
    /** Every port's counters, in the run's port order (the deltas are added in that order). */
    std::vector<PortCounters> ports;
    /** Random draws the load-balancing policies made so far that could change a choice
     *  (count, cumulative; RandomDraws::Count, fabric/model/random-draws.h): the steady rule
     *  refuses iterations in whose span it grew, the sampled rule compares it per window. */
    uint64_t randomDraws = 0;
};

/**
 * \brief Iteration memoisation for the jobs of a WorkloadSpec (see the file comment).
 *
 * Use: Setup, the optional setters, then Start before WorkloadExecutor::Start. Reasons counted
 * (IterationMemoStats::fallbacks): "no_memo" (no earlier finished iteration of the same
 * traffic), "traffic_differs" (earlier iterations, none of the same traffic), "refused"-style
 * reasons given by SetRefusal (e.g. "time_series"), "failure_in_span" and "stop_time_in_span"
 * (from the SpanCheck), "background_traffic",
 * "other_job_live", "pfc_in_memo", "steady_random_draws" (the steady rule's iterations agreed
 * but a policy drew at random in them, and the sampled rule did not hold), "steady_trend" (they
 * agreed, drew nothing, but differ from the phase's iteration SteadyTrendSpan - 1 periods back,
 * and the sampled rule did not hold), "sampled_mean_uncertain" (the sampled rule's windows
 * agreed but its pool's t-interval was wider than SampleTolerance), "recurrence_missed" (the
 * steady or sampled rule held, but among the job's latest RecurrenceSpan iterations is one its
 * replay would not reproduce: JudgeRecurrence, JudgeTailCover), "recurrence_short" (it held,
 * but the job has not yet run RecurrenceSpan iterations to check that against),
 * "steady_state_not_reached" (neither the steady nor the sampled rule held).
 */
class IterationMemo : public Object
{
  public:
    using Probe = std::function<FabricProbeResult()>;
    /** "" when no failure event falls in [fromPs, toPs], else the reason. */
    using SpanCheck = std::function<std::string(uint64_t fromPs, uint64_t toPs)>;
    /** Every port's counters now, in the probe's port order (FabricProbeResult::ports). */
    using PortSnapshot = std::function<std::vector<PortCounters>()>;

    static TypeId GetTypeId();
    IterationMemo();

    /** \param exec the run's executor, set up; `probe` and `span` are called at decisions */
    void Setup(Ptr<WorkloadExecutor> exec, Probe probe, SpanCheck span);
    /** The ports' counters alone, read when a simulated iteration finishes (its last transfer
     *  delivered and acknowledged); without it, the probe's. */
    void SetPortSnapshot(PortSnapshot ports) { m_portSnapshot = std::move(ports); }
    /** Replay nothing; count every iteration simulated under `reason` (e.g. time series). */
    void SetRefusal(const std::string& reason) { m_refusal = reason; }
    /** Whether the exact rule may apply (stateless, RNG-free policies), and why not. */
    void SetExactAllowed(bool allowed, const std::string& whyNot);
    /** Refuse the sampled rule for the run, `whyNot` the fallback reason counted when neither
     *  the steady rule holds (e.g. "sampled_random_loss"); "" allows it. */
    void SetSampledWhyNot(const std::string& whyNot) { m_sampledWhyNot = whyNot; }
    /** Refuse the steady and sampled rules for the run (only the exact rule may replay),
     *  `whyNot` the reason counted when the exact rule does not hold; "" allows them. For
     *  state that iteration times do not show until it bites (receiver credits: a credit
     *  balance running down while iterations still take the same time). */
    void SetInexactWhyNot(const std::string& whyNot) { m_inexactWhyNot = whyNot; }
    /** Hook into the executor and schedule the first iterations' decisions. Call before
     *  WorkloadExecutor::Start. */
    void Start();

    const IterationMemoStats& GetStats() const { return m_stats; }
    /**
     * Per port, the replayed iterations' counter deltas summed (maxima maxed), after adding
     * each job's pending last replay (which this settles, so call it once, when the run has
     * ended): a replayed iteration counts its memo's deltas from the memo's start to
     * its successor's, except a job's last replay when the run ended as it finished (its last
     * transfer delivered and acknowledged: packet mode stops there) and its memo finished
     * before its successor started; that one counts them to its memo's finish, since what its
     * memo sent after its last acknowledgement (a needless resend's copies still on the way,
     * their ACKs) packet mode never sends.
     */
    const std::vector<PortCounters>& SettleReplayedPorts();
    /** Transfer records the memos of every IterationMemo of this process hold (count): a few
     *  iterations' worth, however many iterations a job runs. */
    static uint64_t HeldRecords();

  protected:
    void DoDispose() override;

  private:
    /** A memo iteration's transfer records, in id order (shared with the executor while it
     *  replays them: WorkloadExecutor::SetReplay). */
    using Records = std::vector<TransferRecord>;
    struct Iteration
    {
        uint64_t first = 0;              //!< its transfers are [first, first + count)
        uint32_t count = 0;
        bool known = false;              //!< its transfers are known (built or expanded)
        uint64_t bytes = 0;              //!< its transfers' bytes
        uint64_t pattern = 0;            //!< hash of its traffic (same hash: same traffic)
        uint64_t startDelayPs = 0;       //!< decision time after its start trigger fires
        bool decided = false;
        bool replayed = false;
        uint32_t source = 0;             //!< replayed: the simulated iteration it was replayed from
        uint64_t startPs = 0;            //!< decision time, ps
        std::string notQuiescent;
        std::string exactWhyNot;
        std::vector<uint64_t> state;
        std::vector<uint64_t> created;   //!< the probe's `created` words
        std::vector<uint32_t> cursors;
        std::vector<PortCounters> ports;
        uint64_t randomDraws = 0;        //!< the probe's randomDraws at its start
        bool othersLive = false;         //!< another job unfinished at its start
        uint32_t finished = 0;           //!< transfers delivered and acknowledged
        uint64_t finishPs = 0;           //!< when the last of them was (all finished), ps
        /** Simulated with its start snapshot kept: every port's counters when it finished. */
        std::vector<PortCounters> finishPorts;
        double maxFctPs = 0;             //!< its slowest finished transfer's FCT, ps
        bool retired = false;            //!< SetupLazy: the executor freed its records
        /** Not replayed: its transfers' records, each copied when it finished (freed when
         *  the iteration can no longer be a memo). */
        std::shared_ptr<Records> records;
    };
    struct Job
    {
        std::vector<Iteration> iters;
        std::vector<uint32_t> simulated; //!< iterations simulated, in order
        /** Decided iterations whose snapshots or records are not freed yet, in order. */
        std::vector<uint32_t> held;
        uint32_t sampledReplays = 0;     //!< iterations replayed under the sampled rule
        /** Its latest replay, whose port deltas are added at the next one or at the run's
         *  end (SettleReplayedPorts), when it is known whether the run ended as it finished. */
        struct PendingReplay
        {
            bool active = false;
            uint32_t iteration = 0;
            std::vector<PortCounters> toNext;   //!< memo's start to its successor's start
            std::vector<PortCounters> toFinish; //!< memo's start to its finish; empty: none
        } pending;
    };

    void OnFire(uint32_t trigger);
    /** Jobs built iteration by iteration: iteration r is expanded (its transfers are known). */
    void OnExpand(const JobWindow::Range& r);
    /** ... and retires: its records as the executor has them last. */
    void OnRetire(const JobWindow::Range& r);
    /** Iteration `it` of `job` is known: its pattern, bytes and decision delay. \return its
     *  start trigger, or -1 */
    int32_t Describe(uint32_t job, uint32_t it);
    void OnCompletion(uint32_t transfer);
    /** (job, iteration) of job transfer t, or (-1, -1). */
    std::pair<int32_t, int32_t> IterationOf(uint64_t t) const;
    /** Copy the executor's records of m's transfers still held (SetupLazy frees a retired
     *  iteration's) into m.records. */
    void Refresh(Iteration& m);
    void FreeRecords(Iteration& m);
    void Decide(uint32_t job, uint32_t it);
    void DecideReplay(uint32_t job, uint32_t it);
    /** Every transfer of m delivered and acknowledged. */
    static bool Finished(const Iteration& m) { return m.known && m.finished == m.count; }
    /** A transfer outside `job` live or due in [fromPs, toPs]: the reason, else "". */
    std::string ForeignActivity(uint32_t job, uint64_t fromPs, uint64_t toPs) const;
    /** m is a memo candidate for traffic `pattern`: simulated, finished, its next iteration
     *  started, its snapshots kept. */
    bool Usable(Job& j, uint32_t m, uint64_t pattern) const;
    /** The steady rule's memo for iteration i, or -1 (see SteadyMaxPeriod). \param drew set
     *  when some period's iterations agreed but a policy drew at random in one of them;
     *  \param trend set when they agreed, drew nothing, and trended (JudgePhase) */
    int64_t SteadyMemo(Job& j, uint32_t i, bool& drew, bool& trend,
                       RecurrenceVerdict& recurrence) const;
    /** The sampled rule's memo for iteration i, or -1 (see SampleIterations). \param
     *  uncertain set when its windows agreed but the pool's t-interval was too wide */
    int64_t SampledMemo(Job& j, uint32_t i, bool& uncertain, RecurrenceVerdict& recurrence);
    /** The job's latest RecurrenceSpan consecutive finished iterations before i (their next
     *  one decided), oldest first: fewer when an unfinished one (or the job's start) is
     *  reached first. */
    std::vector<IterationBrief> History(const Job& j, uint32_t i) const;
    /** Hold the port deltas of m (replayed for `i`) as j's pending replay, after adding the
     *  previous one's in full (the job went on after it). */
    void AddDelta(Job& j, uint32_t i, const Iteration& m, const Iteration& next);
    /** Add j's pending replay's deltas: to its memo's finish when `runEnded` at its finish
     *  and it has them, else to the memo's successor's start. */
    void FlushReplay(Job& j, bool runEnded);
  public:
    /**
     * The exact rule's state test: memo c (started with `c`, ended where its successor `n`
     * started) may stand for an iteration starting in state `now`. Equal state words and QP
     * cursors at the three instants; or, when c created connections (the QPs and cursors at
     * c's start are a prefix of n's, in creation order), those QPs ended c in the state they
     * were created in (`n.created`) and those cursors at 0 (a new connection's), so that c ran
     * as from a start where they existed already in that state, which is `now`'s. `now` may
     * also have more QPs and connections than n (created after the memo, appended in creation
     * order): n's words and cursors a prefix of now's, and every QP beyond it idle
     * (`nowIdle`, RdmaNic::IsQpIdle, both ends), so that they take no part in the iteration,
     * which uses the memo's connections only (the same traffic), and the replay, which leaves
     * them as they are, leaves them as packet mode would.
     * \param cState, cCursors the memo's start; nState, nCreated, nCursors its end;
     *        nowState, nowCursors the iteration's start; nowIdle per word of nowState, 1 when
     *        its QP is idle (empty: unknown, no QP may be extra)
     */
    static bool SameStartState(const std::vector<uint64_t>& cState,
                               const std::vector<uint32_t>& cCursors,
                               const std::vector<uint64_t>& nState,
                               const std::vector<uint64_t>& nCreated,
                               const std::vector<uint32_t>& nCursors,
                               const std::vector<uint64_t>& nowState,
                               const std::vector<uint32_t>& nowCursors,
                               const std::vector<uint8_t>& nowIdle);

  private:

    Ptr<WorkloadExecutor> m_exec;
    Probe m_probe;
    SpanCheck m_span;
    PortSnapshot m_portSnapshot;
    std::string m_refusal;
    bool m_exactAllowed = true;
    std::string m_exactWhyNot;
    std::string m_sampledWhyNot; //!< "": the sampled rule may apply
    std::string m_inexactWhyNot; //!< "": the steady and sampled rules may apply
    uint32_t m_steadyIterations = 2;
    double m_steadyTolerance = 0.01;
    uint32_t m_maxPeriod = 4;
    uint32_t m_sampleIterations = 4;
    double m_sampleTolerance = 0.02;
    double m_sampleConfidence = 0.95;
    uint32_t m_steadyTrendSpan = 4;
    uint32_t m_recurrenceSpan = 24;
    std::vector<Job> m_jobs;
    bool m_lazy = false;               //!< the executor builds jobs iteration by iteration
    /** Whole build: per trigger, the (job, iteration) it starts. */
    std::vector<std::pair<int32_t, int32_t>> m_startOf;
    std::vector<int32_t> m_jobOf;      //!< whole build: per transfer, its job, or -1
    /** Known, unfinished iterations by first transfer id: (job, iteration). */
    std::map<uint64_t, std::pair<uint32_t, uint32_t>> m_open;
    /** SetupLazy: per job, its transfers' ids [first, end). */
    std::vector<std::pair<uint64_t, uint64_t>> m_jobRange;
    std::vector<uint64_t> m_jobLeft;   //!< per job: transfers not yet delivered and acknowledged
    std::vector<uint32_t> m_foreign;   //!< transfers outside every job (background, imported)
    std::vector<PortCounters> m_replayedPorts;
    IterationMemoStats m_stats;
};

/** a += b - c for every counter; maxima: a = max(a, b's) (b is the later snapshot). */
void AddPortDelta(PortCounters& a, const PortCounters& b, const PortCounters& c);

} // namespace ns3

#endif
