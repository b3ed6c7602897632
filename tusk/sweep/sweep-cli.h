/*
 * tusk: the `tusk sweep`, `tusk regress` and (internal) `tusk sweep-task` subcommands.
 *
 * main.cc registers them with RegisterSweepCommands and, after parsing, asks Parsed() and
 * calls Run(). Errors in the sweep or suite file throw ns3::InputError (exit 2, as everywhere).
 */
#ifndef TUSK_SWEEP_CLI_H
#define TUSK_SWEEP_CLI_H

#include "sweep/sweep-plan.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace tusk
{

/** Options shared by `tusk sweep` and `tusk regress`. */
struct BatchOptions
{
    std::string file;        //!< the sweep or suite file
    std::string backend = "local";
    unsigned jobs = 0;       //!< local workers; 0 = the number of cores
    std::string out;         //!< results root ("" = the default)
    std::vector<std::string> sets; //!< --set KEY=VALUE for every run
    bool quiet = false;
    SlurmOptions slurm;      //!< command-line Slurm options (empty = the file's)
    bool chunkGiven = false;
    bool maxParallelGiven = false;
};

class SweepCommands
{
  public:
    /** Add `sweep`, `regress` and the hidden `sweep-task` to `app`. */
    explicit SweepCommands(CLI::App& app);

    /** One of the subcommands was given. */
    bool Parsed() const;

    /** Run it; the process's exit status. */
    int Run();

  private:
    int Dispatch();
    int RunSweep();
    int RunTask();

    CLI::App* m_sweep = nullptr;
    CLI::App* m_regress = nullptr;
    CLI::App* m_task = nullptr;

    BatchOptions m_sweepOpts;
    bool m_dryRun = false;
    bool m_force = false;
    bool m_status = false;
    bool m_collect = false;
    bool m_wait = false;

    BatchOptions m_regressOpts;
    std::string m_junit;
    bool m_updateBaselines = false;
    bool m_resume = false;
    std::vector<std::string> m_only;

    std::string m_taskPlan;
    int m_taskIndex = -1;
    bool m_taskCollect = false;
    bool m_taskForce = false;
};

/** The Slurm options of `o` on top of the file's. */
SlurmOptions MergeSlurm(const SlurmOptions& file, const BatchOptions& o);

} // namespace tusk

#endif
