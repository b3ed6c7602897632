/*
 * tusk: the metrics `tusk validate-fast` compares between a packet-mode and a fast-mode run
 * of one scenario (docs/fast-mode.md): CCT, iteration time, mean and p99 FCT, per job.
 */
#ifndef TUSK_FAST_COMPARE_H
#define TUSK_FAST_COMPARE_H

#include "run/runner.h"

#include <string>
#include <vector>

namespace tusk
{

/** One compared metric: its name, the job it is of ("all" for every job), both values. */
struct FastMetric
{
    std::string metric; //!< "cct_mean_us", "iteration_mean_us", "iteration_max_us", ...
    std::string job;
    double packet = 0;
    double fast = 0;
    /** (fast - packet) / packet; 0 when both are 0, +inf when only packet is 0. */
    double RelativeDifference() const;
};

/** The metrics `validate-fast` compares, per job and over all jobs, from two runs of one
 *  scenario (jobs matched by index; a metric without values in either run is left out). A
 *  workload without jobs is compared as a whole (job "run": every collective and flow). */
std::vector<FastMetric> CompareFastMetrics(const RunResult& packet, const RunResult& fast);

} // namespace tusk

#endif // TUSK_FAST_COMPARE_H
