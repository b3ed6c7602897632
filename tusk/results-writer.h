/*
 * tusk: results of a run on disk (docs/results-format.md), written atomically.
 */
#ifndef TUSK_RESULTS_WRITER_H
#define TUSK_RESULTS_WRITER_H

#include "runner.h"

#include <string>

namespace tusk
{

/**
 * \brief A staging directory beside `finalDir` (same filesystem), created empty. Results are
 * written there and moved into place with CommitDirectory, so a reader never sees half a run.
 * \throws ns3::InputError (exit 2) if `finalDir` exists and is not an earlier tusk results
 * directory (never replaces anything else), or if it cannot be written.
 */
std::string MakeStagingDir(const std::string& finalDir);

/** A directory a tusk run or comparison wrote (it holds manifest.json or comparison.csv). */
bool IsResultsDirectory(const std::string& dir);

/** Replace `finalDir` by `stagingDir` (rename; an old `finalDir` is removed after the swap). */
void CommitDirectory(const std::string& stagingDir, const std::string& finalDir);

/** Write flows.csv, collectives.csv, links.csv and manifest.json of `r` into `dir`. */
void WriteRunFiles(const RunResult& r, const std::string& dir);

/** flows.csv as text (deterministic: the same run gives the same bytes). */
std::string FlowsCsv(const RunResult& r);
/** One line for the printed header: base RTT and BDP per path class (manifest "path_classes"),
 *  "" without classes. */
std::string PathClassesLine(const RunResult& r);
std::string CollectivesCsv(const RunResult& r);
/** waits.csv: per collective step and rank, its wait (results-format.md, "waits.csv"). */
std::string WaitsCsv(const RunResult& r);
/** flows.csv's `path` (the single path, or "") and `paths` (PATH:FRAMES|...) of `f`. */
std::string PathField(const FlowRow& f);
std::string PathsField(const FlowRow& f);
/** jobs.csv: one row per training job (docs/results-format.md). */
std::string JobsCsv(const RunResult& r);
std::string LinksCsv(const RunResult& r);
/** pfc_events.csv: every PFC frame sent or received, in time order. */
std::string PfcEventsCsv(const RunResult& r);
/** timeseries.csv ([output] sample_us > 0): time_us, link_id, from, to, tx_bytes, util,
 *  queue_bytes, paused_us; one row per sampled switch port per sample instant. */
std::string TimeSeriesCsv(const RunResult& r);
/** switch_timeseries.csv ([output] sample_us > 0): each switch's MMU pools at each instant. */
std::string SwitchTimeSeriesCsv(const RunResult& r);
/** switches.csv: each switch's buffer pools and the most each held. */
std::string SwitchesCsv(const RunResult& r);
/** cc_trace.csv ([output] cc_trace = true): every change of a QP's congestion-control state. */
std::string CcTraceCsv(const RunResult& r);

/**
 * \brief Run `spec` and write its results into `out` atomically: a staging directory
 * (MakeStagingDir, also where pcaps go), WriteRunFiles, CommitDirectory. On an exception the
 * staging directory is removed and nothing is written.
 * \param stagingSlot if given, holds the staging path while the run lasts (a signal handler
 *        removes it), and is cleared after the commit
 */
RunResult RunInto(const ScenarioSpec& spec,
                  const std::string& out,
                  RunOptions options,
                  std::string* stagingSlot = nullptr);

/** Write `text` to `path` atomically (temporary file in the same directory, then rename). */
void WriteFileAtomic(const std::string& path, const std::string& text);

} // namespace tusk

#endif
