/*
 * tusk: IterationMemoStats, what fast mode's iteration memoisation did (iteration-memo.h), a
 * plain struct the run's results carry.
 */
#ifndef TUSK_ITERATION_MEMO_STATS_H
#define TUSK_ITERATION_MEMO_STATS_H

#include <cstdint>
#include <map>
#include <string>

namespace ns3
{

/** What fast mode did, for the manifest (docs/results-format.md, "fast_mode"). */
struct IterationMemoStats
{
    uint64_t iterations = 0;          //!< job iterations (of jobs with more than one)
    uint64_t replayedExact = 0;       //!< iterations replayed under the exact rule
    uint64_t replayedSteady = 0;      //!< iterations replayed under the steady rule
    uint64_t replayedSampled = 0;     //!< iterations replayed under the sampled rule
    /** Iterations replayed, by any rule. */
    uint64_t Replayed() const { return replayedExact + replayedSteady + replayedSampled; }
    uint64_t simulated = 0;           //!< iterations simulated packet by packet
    uint64_t replayedPs = 0;          //!< simulated time covered by replayed iterations, ps
    uint64_t replayedBytes = 0;       //!< transfer bytes of replayed iterations
    uint64_t totalBytes = 0;          //!< transfer bytes of the whole workload
    std::map<std::string, uint64_t> fallbacks; //!< reason -> iterations simulated for it
    /** Reason the exact rule did not apply -> iterations (replayed by the steady rule or
     *  simulated); what limits exact replay on this scenario. */
    std::map<std::string, uint64_t> exactRefusals;
    /** The RecurrenceSpan the steady and sampled rules used, and why (tusk's
     *  ChooseRecurrenceSpan: "stateless_policy", "policy_state", "path_selector_state",
     *  "ns3_setting"); why is "" when no iteration memo ran (a standalone ring). */
    uint32_t recurrenceSpan = 0;
    std::string recurrenceSpanWhy;
    /** The SteadyTrendSpan the steady rule used, and why (ChooseSteadyTrendSpan; the same
     *  reasons); why is "" when no iteration memo ran. */
    uint32_t steadyTrendSpan = 0;
    std::string steadyTrendSpanWhy;
    // A standalone ring all-reduce's steps (ring-step-memo.h); all 0 without one.
    uint64_t ringSteps = 0;           //!< steps of the ring (2 (n - 1))
    uint64_t ringStepsReplayed = 0;   //!< steps replayed from the pool of simulated steps
    uint64_t ringStepsSimulated = 0;  //!< steps simulated packet by packet
    /** The first replayed step (every later step but the tail and span refusals is replayed
     *  too); ringSteps when none was. */
    uint64_t ringFirstReplayed = 0;
    std::map<std::string, uint64_t> ringFallbacks; //!< reason -> steps simulated for it
};

} // namespace ns3

#endif
