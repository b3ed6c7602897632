/*
 * tusk: the flow part of a run's summary (RunSummary), one computation for the rows kept in
 * memory (Summarize, RunResult::flows) and the rows streamed as the run goes (RowStream): a
 * step per flow row in id order, and a finishing step over the values the flows handed out,
 * whatever holds them (vectors, or values spilled to scratch files per job). Internal to the
 * tusk library.
 */
#ifndef TUSK_RUN_FLOW_SUMMARY_H
#define TUSK_RUN_FLOW_SUMMARY_H

#include "run/run-stages.h"

#include <cstddef>
#include <cstdint>

namespace tusk
{

/** A value of a flow row that the summary takes statistics over (SummarizeFlow). */
enum class FlowStat
{
    SLOWDOWN,      //!< a finished flow's slowdown
    FAIR_SLOWDOWN, //!< a finished flow's collective-aware slowdown, where it has that ideal
    FCT_US,        //!< a finished flow's FCT, µs
    REORDER_TERM,  //!< reorder_mean × ooo_packets, where not 0 (the weighted mean's terms)
};
constexpr size_t kFlowStats = 4;

/**
 * \brief What the summary reads of flow row `f`: its counts and counters added to `s`
 * (`unfinished`, AddFlowCounters), and the values its statistics are taken over, handed to
 * `push(FlowStat, double)`. Called for every flow in id order, so that sums are summed in the
 * same order however the values are held.
 */
template <class Push>
void
SummarizeFlow(RunSummary& s, const FlowRow& f, Push&& push)
{
    if (f.finished)
    {
        push(FlowStat::SLOWDOWN, f.slowdown);
        if (f.fairIdealPs > 0)
        {
            push(FlowStat::FAIR_SLOWDOWN, f.fairSlowdown);
        }
        push(FlowStat::FCT_US, static_cast<double>(f.fctPs) / 1e6);
    }
    else
    {
        ++s.unfinished;
    }
    AddFlowCounters(s, f);
    // Adding 0 leaves a sum as it is (from +0.0): only the other terms are kept.
    const double term = f.reorderMean * static_cast<double>(f.oooPackets);
    if (term != 0)
    {
        push(FlowStat::REORDER_TERM, term);
    }
}

/**
 * \brief The summary's flow statistics, from the values SummarizeFlow handed out: `v` answers
 * Sum(stat) (in the order pushed, from 0), Mean(stat) (as stats.h Mean), Max(stat) (the first
 * largest, as stats.h Max) and NearestRank(stat, q) (as stats.h Quantile by nearest rank), each
 * NaN for no values but Sum. \param flows the flow rows
 */
template <class Values>
void
FinishFlowSummary(RunSummary& s, uint64_t flows, const Values& v)
{
    s.flows = flows;
    s.reorderMean = s.oooPackets ? v.Sum(FlowStat::REORDER_TERM) / static_cast<double>(s.oooPackets)
                                 : 0;
    s.meanSlowdown = v.Mean(FlowStat::SLOWDOWN);
    s.p50Slowdown = v.NearestRank(FlowStat::SLOWDOWN, 0.5);
    s.p99Slowdown = v.NearestRank(FlowStat::SLOWDOWN, 0.99);
    s.p999Slowdown = v.NearestRank(FlowStat::SLOWDOWN, 0.999);
    s.maxSlowdown = v.Max(FlowStat::SLOWDOWN);
    s.meanFairSlowdown = v.Mean(FlowStat::FAIR_SLOWDOWN);
    s.p99FairSlowdown = v.NearestRank(FlowStat::FAIR_SLOWDOWN, 0.99);
    s.maxFctUs = v.Max(FlowStat::FCT_US);
    s.p99FctUs = v.NearestRank(FlowStat::FCT_US, 0.99);
}

} // namespace tusk

#endif
