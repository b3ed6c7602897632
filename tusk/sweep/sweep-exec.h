/*
 * tusk: executing the runs of a sweep plan (docs/sweeps.md).
 *
 * Every run is a `tusk run` subprocess (the binary that is running, /proc/self/exe) started in
 * its scenario's directory:
 *
 *     tusk run SCENARIO --set K=V ... --out ROOT/RUN_ID -q      (stdout+stderr to a log file)
 *
 * so a run of a sweep is byte for byte a run of `tusk run`, a crash or a leak in one run cannot
 * touch another, local workers are processes (-j N), and a Slurm array task does exactly what a
 * local worker does. `tusk run` commits its results directory atomically, so a run either has
 * complete results or none: that is what resuming relies on.
 *
 * State of a sweep, under ROOT/.sweep/: plan.json (the runs), runs/RUN_ID.json (the outcome of
 * the latest attempt of each run: exit status, message, wall time, backend, host), logs/RUN_ID.log
 * (its output), lock (held by a local sweep while it runs), slurm/ (submissions).
 */
#ifndef TUSK_SWEEP_EXEC_H
#define TUSK_SWEEP_EXEC_H

#include "sweep/sweep-plan.h"

#include <csignal>
#include <string>
#include <vector>

namespace tusk
{

/**
 * While alive, SIGINT and SIGTERM do not end the process: they are recorded (Signal()) and
 * interrupt sleeps and waits; the previous handlers are restored at the end of the scope.
 */
class StopSignalScope
{
  public:
    StopSignalScope();
    ~StopSignalScope();
    StopSignalScope(const StopSignalScope&) = delete;
    StopSignalScope& operator=(const StopSignalScope&) = delete;

    /** The signal received since the scope began, 0 if none; it stays readable after the scope
     *  ends, until the next scope begins (for the exit status 128 + signal). */
    static int Signal();

  private:
    struct sigaction m_oldInt
    {
    };
    struct sigaction m_oldTerm
    {
    };
};

/** The outcome of one attempt at a run (.sweep/runs/RUN_ID.json). */
struct RunRecord
{
    std::string id;
    std::string hash;
    /** "ok": results, the run succeeded; "failed": results, the run failed (exit 1: transfers
     *  unfinished, deadlock, ...); "error": no results (bad input, crash, signal, timeout). */
    std::string status;
    int exitStatus = 0;  //!< the process's exit status; 128 + N when killed by signal N
    std::string message; //!< why it failed ("" when ok)
    double wallSeconds = 0;
    std::string backend; //!< "local" | "slurm"
    std::string host;
    /** The run's warnings (its manifest's "warnings": settings valid but probably not what
     *  was meant, an RTO below the RTT), which `tusk run` printed into the run's log. */
    std::vector<std::string> warnings;
};

/** "tusk sweep: warning: N of the M runs warned ...; the first, ID: WARNING" and a newline:
 *  the runs of `plan` whose records hold warnings (run now or before), the first in the plan's
 *  order; "" when none did. */
std::string WarnedRunsLine(const SweepPlan& plan);

/** ROOT/.sweep */
std::string SweepStateDir(const std::string& root);

/** The path of the tusk binary that is running. */
std::string SelfExecutable();

/** What a run directory holds, for the run whose resolved scenario hashes to `hash`. */
enum class ResultsState
{
    None,      //!< no complete results of that scenario
    Complete,  //!< complete results, made by the required revision and code
    OtherCode, //!< complete results of that scenario, made by another revision or code
};

/**
 * \brief What `runDir` holds: complete results of the scenario whose hash is `hash` are a
 * manifest.json whose resolved scenario hashes to it (`tusk run` writes manifest.json last,
 * into a staging directory that is renamed into place). With a non-empty `revision`, the
 * manifest must also have been written by that tusk revision (`git_revision`), with a
 * non-empty `code` by that code (`code_hash` == `code`, CodeIdentity()); else (or without
 * `code_hash`) the results are OtherCode.
 */
ResultsState ResultsIn(const std::string& runDir, const std::string& hash,
                       const std::string& revision = "", const std::string& code = "");

/** ResultsIn(...) == ResultsState::Complete. */
bool HasCompleteResults(const std::string& runDir, const std::string& hash,
                        const std::string& revision = "", const std::string& code = "");

/** The record of a run's latest attempt, if there is one for this hash. */
bool ReadRunRecord(const std::string& root, const SweepRun& run, RunRecord& record);

/** The `tusk run` command line of a run (argv; argv[0] = `tusk`), with a `--plugin` for each
 *  of `plugins` (the plan's). */
std::vector<std::string> RunCommand(const std::string& tusk, const std::string& root,
                                    const SweepRun& run,
                                    const std::vector<PluginRecord>& plugins = {});

/** Write plan.json (atomically) and create the state directories. */
void WritePlan(const SweepPlan& plan);

/**
 * \brief Run one run to the end (a Slurm task's way): spawn, wait, write its record.
 * Runs with complete results (of revision `keepRevision` and code `keepCode`, each when not
 * "") are skipped (returned record: status of those results). The run loads `plugins` (the
 * plan's).
 */
RunRecord ExecuteRun(const std::string& root, const SweepRun& run, const std::string& tusk,
                     const std::string& backend, bool force, const std::string& keepRevision,
                     const std::string& keepCode,
                     const std::vector<PluginRecord>& plugins = {});

struct LocalOptions
{
    unsigned jobs = 1;      //!< worker processes
    bool force = false;     //!< rerun runs that have complete results
    bool quiet = false;     //!< no progress output
    std::string tusk;       //!< the binary to run ("" = this one)
};

/** What a sweep did. */
struct SweepTally
{
    size_t total = 0;
    size_t skipped = 0; //!< complete results already there
    size_t otherCode = 0; //!< run again: their results were made by other code (code_hash)
    size_t ok = 0;
    size_t failed = 0;  //!< ran, results written, the run failed
    size_t errors = 0;  //!< ran, no results
    size_t writeFailed = 0; //!< of the errors: the run could not write its results (exit 3)
    bool interrupted = false;
    int stopSignal = 0; //!< the signal that interrupted it (SIGINT or SIGTERM), 0 if none
    double wallSeconds = 0;
};

/**
 * \brief Run the plan with up to options.jobs `tusk run` processes, skipping runs with complete
 * results, then write the index (sweep.csv, index.sqlite). A progress bar with an ETA on a
 * terminal, one line per finished run otherwise. SIGINT/SIGTERM stop it: running runs are
 * terminated (they leave no partial results), finished ones are kept and indexed.
 * \throws ns3::InputError (exit 2) if another local sweep holds the tree's lock (it names its
 *         pid) or the root cannot be written
 */
SweepTally RunLocal(const SweepPlan& plan, const LocalOptions& options);

/** "1:02:03" / "2:03" */
std::string FormatDuration(double seconds);

} // namespace tusk

#endif
