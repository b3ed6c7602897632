/*
 * tusk: the index of a sweep, ROOT/sweep.csv and ROOT/index.sqlite (docs/sweeps.md).
 *
 * Built from what is on disk: each run's manifest.json (when it has complete results for its
 * resolved scenario) and its record (.sweep/runs/RUN_ID.json), so it can be rebuilt at any
 * time, by a local sweep at its end, by the Slurm collect job, or by `tusk sweep --collect`.
 * sweep.csv holds no wall time or host, so the local and Slurm backends write the same bytes.
 */
#ifndef TUSK_SWEEP_INDEX_H
#define TUSK_SWEEP_INDEX_H

#include "sweep/sweep-plan.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tusk
{

/** One run as the index sees it. */
struct IndexedRun
{
    const SweepRun* run = nullptr;
    /** "ok" | "failed" (results, run failed) | "error" (no results) | "pending" (not run) */
    std::string status;
    int exitStatus = -1; //!< -1 when pending
    std::string message;
    double wallSeconds = 0;
    std::string backend;
    std::string host;
    nlohmann::ordered_json summary; //!< the manifest's summary (null without results)
    std::string scenarioName;
};

/** Counts by status. */
struct IndexCounts
{
    size_t ok = 0;
    size_t failed = 0;
    size_t error = 0;
    size_t pending = 0;
};

/** The state of every run of the plan, read from the results tree. */
std::vector<IndexedRun> ReadIndex(const SweepPlan& plan);

IndexCounts Count(const std::vector<IndexedRun>& runs);

/** sweep.csv as text: run_id, the axes, value columns, status, exit_status, message,
 *  scenario_name, policy, seed, then every summary metric of the manifests. */
std::string SweepCsv(const SweepPlan& plan, const std::vector<IndexedRun>& runs);

/** Write ROOT/sweep.csv and ROOT/index.sqlite (each atomically) from the tree. */
IndexCounts WriteSweepIndex(const SweepPlan& plan);

} // namespace tusk

#endif
