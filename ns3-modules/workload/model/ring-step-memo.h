/*
 * tusk: RingStepMemo, fast mode's step replay for a standalone ring all-reduce
 * (docs/fast-mode.md, "Design: one long collective at scale").
 *
 * A ring all-reduce built a window of steps at a time (RingStepUnits, ring-steps.h) has no
 * iterations, but its 2 (n - 1) steps move the same traffic (rank i to rank i + 1, one piece
 * per channel). Their transfers' FCTs move step to step (9-19 % under ECMP) while a step's
 * span and mean FCT settle, so steps are taken as samples of one distribution, as the
 * iteration memo's sampled rule takes iterations: once the latest 2K simulated steps, finished
 * (K = IterationMemo::SampleIterations), as two windows of K, agree within the tolerance
 * in summed step span, mean FCT and the policies' random draws, and the pool pins its mean
 * step span and mean FCT (Student-t intervals at IterationMemo::SampleConfidence: JudgePool,
 * iteration-rules.h), a later step is not posted on the NICs: each of its transfers completes after the
 * delays its counterpart (same rank and channel) in a pooled step took
 * (WorkloadExecutor::SetReplay), the replays cycling through the pool in order so that its
 * spread is kept. A replayed transfer starts when its trigger fires, so the ring's pipeline
 * over the ranks is the executor's; its row is its counterpart's record at its own times.
 *
 * A step is decided when its first trigger fires (before any of its transfers is scheduled).
 * The pool is judged until it is accepted once; it is then frozen, and every later step is
 * replayed from it (but the tail, and after a span refusal): steps overlap, and a step
 * simulated beside replayed ones, which put no frames on the links, would run in a lighter
 * fabric than packet mode's and, pooled, carry that into later replays (measured on a 64-host
 * leaf-spine ring: CCT 10-12 % off under ECMP, adaptive routing and CONGA when each step was
 * judged alone). Before that, a step is simulated, with the reason counted (IterationMemoStats::ringFallbacks), when: a
 * refusal was set for the run (e.g. "time_series"); the pool is not full ("sample_pool_filling"),
 * its windows disagree ("steady_state_not_reached") or it does not pin its means
 * ("sampled_mean_uncertain"); the two windows' p99 FCTs differ ("sampled_tail_differs") or
 * the pool does not pin its p99 (its order-statistic interval at the same confidence wider
 * than the tolerance: "sampled_tail_uncertain", QuantileWithInterval); the sampled rule is refused for the run
 * (SetSampledWhyNot, e.g. "sampled_random_loss"); a pooled step saw a PFC pause
 * ("pfc_in_memo") or a pooled transfer was resent or had frames in flight when it finished
 * ("retransmission_in_pool": its record is not final then); it is one of the ring's last TailSteps steps ("ring_tail": the last step
 * has no later step's traffic beside it, and its FCTs differ most); or the span check refuses
 * the time from now to twice the pool's longest step span after ("failure_in_span",
 * "stop_time_in_span"), after which no step is replayed any more (counted under the same
 * reason): the fabric after a failure is not the pool's.
 *
 * Link counters: a replayed step's frames are not added to the ports' counters (steps overlap,
 * so a step has no port deltas of its own); its transfers' own counters (frames sent and
 * received, paths) are its counterpart's.
 */
#ifndef TUSK_RING_STEP_MEMO_H
#define TUSK_RING_STEP_MEMO_H

#include "iteration-memo-stats.h"
#include "workload-executor.h"

#include "ns3/object.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class RingStepMemo : public Object
{
  public:
    /** "" when no failure event falls in [fromPs, toPs], else the reason. */
    using SpanCheck = std::function<std::string(uint64_t fromPs, uint64_t toPs)>;
    /** A count read when a simulated step finishes (the policies' random draws so far; the PFC
     *  pause frames sent so far). */
    using Counter = std::function<uint64_t()>;

    static TypeId GetTypeId();
    RingStepMemo();

    /** How the pool is sampled and judged (IterationMemo's SampleIterations, SampleTolerance
     *  and SampleConfidence). */
    struct Sampling
    {
        /** K (>= 1; 0: nothing is replayed); raised to SampleTransfers / (n C) */
        uint32_t steps = 0;
        /** the windows' largest relative difference (fraction) */
        double tolerance = 0;
        /** the level of the t-intervals of the pool's mean step span and mean FCT, whose
         *  half-widths must be within `tolerance` of the means, and of the p99's
         *  order-statistic interval (0: not asked; IterationMemo::SampleConfidence, JudgePool) */
        double confidence = 0;
    };

    /** What a pool is checked against: failures in its span, and two counters read when a
     *  simulated step finishes (the policies' random draws, whose count per step the two
     *  windows must share; PFC pause frames, which must not change across the pool); any
     *  may be empty (no check; a counter reads 0). */
    struct Checks
    {
        SpanCheck span; //!< failures in a step's span
        Counter draws;  //!< the policies' random draws so far
        Counter pfc;    //!< PFC pause frames sent so far
    };

    /**
     * \param exec the run's executor, set up with the ring's units (SetupLazy)
     * \param perStep transfers per step (n C); step k's are [k n C, (k + 1) n C)
     * \param steps the ring's steps, 2 (n - 1)
     * \param stepBytes bytes of one step's transfers (every step moves the same)
     * \param sampling the pool's size and its acceptance test
     * \param checks the counters read when a simulated step finishes
     */
    void Setup(Ptr<WorkloadExecutor> exec,
               uint64_t perStep,
               uint32_t steps,
               uint64_t stepBytes,
               const Sampling& sampling,
               Checks checks);
    /** Replay nothing; count every step under `reason`. */
    void SetRefusal(const std::string& reason) { m_refusal = reason; }
    /** Refuse the sampled rule, `whyNot` counted for every step ("" allows it). */
    void SetSampledWhyNot(const std::string& whyNot) { m_sampledWhyNot = whyNot; }
    /** Hook into the executor. Call before WorkloadExecutor::Start. */
    void Start();

    /** The ring fields of IterationMemoStats (ringSteps ...), and replayedBytes, totalBytes,
     *  replayedPs (from the first replayed step's start to the last replayed transfer's end). */
    const IterationMemoStats& GetStats() const { return m_stats; }

  protected:
    void DoDispose() override;

  private:
    using Records = std::vector<TransferRecord>;
    /** A simulated step: what the rule reads, and its records once finished. */
    struct Step
    {
        uint64_t done = 0;              //!< transfers delivered and acknowledged
        uint64_t firstStartPs = UINT64_MAX;
        uint64_t lastDeliveredPs = 0;
        double fctSum = 0;              //!< sum of recvDonePs - startPs, ps
        uint64_t drawsAtEnd = 0;        //!< Counter draws when it finished
        uint64_t pfcAtEnd = 0;          //!< Counter pfc when it finished
        bool clean = true;              //!< no transfer of it resent or with frames in flight
        std::shared_ptr<Records> records;
    };

    void OnFire(uint32_t trigger);
    void OnCompletion(uint32_t transfer);
    void Decide(uint32_t k);
    void Simulate(uint32_t k, const std::string& why);
    /** Replay step k from the frozen pool, unless the span check refuses the time from now to
     *  twice `longestPs` after (then simulate it, and every later step). */
    void Replay(uint32_t k, uint64_t longestPs);

    Ptr<WorkloadExecutor> m_exec;
    uint64_t m_perStep = 0;
    uint32_t m_steps = 0;
    uint64_t m_stepBytes = 0;
    uint32_t m_sampleSteps = 0;
    double m_tolerance = 0;
    double m_confidence = 0;
    uint32_t m_tailSteps = 1;
    uint32_t m_sampleTransfers = 2048;    //!< attribute SampleTransfers
    SpanCheck m_span;
    Counter m_draws;
    Counter m_pfc;
    std::string m_refusal;
    std::string m_sampledWhyNot;
    std::string m_latched;                 //!< a span refusal: no replay from then on
    std::vector<uint8_t> m_state;          //!< per step: 0 undecided, 1 simulated, 2 replayed
    std::vector<uint32_t> m_doneCount;     //!< per step: transfers finished (any kind)
    uint32_t m_finishedThrough = 0;        //!< steps [0, this) all finished
    std::map<uint32_t, Step> m_simulated;  //!< simulated steps, unfinished or in the pool
    uint64_t m_replayCount = 0;            //!< steps replayed so far (the pool's cursor)
    /** The pool when the first step was replayed: every later step is replayed from it. */
    std::vector<std::shared_ptr<Records>> m_frozenPool;
    uint64_t m_frozenLongestPs = 0;        //!< the frozen pool's longest step span, ps
    uint64_t m_firstReplayPs = UINT64_MAX;
    uint64_t m_lastReplayEndPs = 0;
    IterationMemoStats m_stats;
};

} // namespace ns3

#endif
