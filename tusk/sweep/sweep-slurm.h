/*
 * tusk: the Slurm backend of `tusk sweep` and `tusk regress` (docs/sweeps.md).
 *
 * A submission writes the runs still to do into ROOT/.sweep/slurm/plan-N.json and submits
 *   - a job array (`sbatch --array=0-(T-1)[%M]`): task i runs runs [i*chunk, (i+1)*chunk) of
 *     that plan, each as the same `tusk run` subprocess a local worker starts
 *     (`tusk sweep-task plan-N.json --task i`), into the shared results tree;
 *   - an index job (`--dependency=afterany:ARRAY`) that writes sweep.csv and index.sqlite once
 *     every task has ended (`tusk sweep-task ROOT/.sweep/plan.json --collect`).
 * The results tree must be on a filesystem that the compute nodes share, and the tusk binary
 * and the scenario files at the same paths there (true of a cluster's home or project space).
 * Submissions are listed in ROOT/.sweep/slurm/submissions.json; `--status` asks squeue.
 */
#ifndef TUSK_SWEEP_SLURM_H
#define TUSK_SWEEP_SLURM_H

#include "sweep/sweep-plan.h"

#include <string>
#include <vector>

namespace tusk
{

/** The output of a program run to its end. */
struct ProgramOutput
{
    int exitStatus = -1;
    std::string out; //!< stdout
    std::string err; //!< stderr
};

/** Run `argv` (argv[0] looked up in PATH) and collect its output. */
ProgramOutput RunProgram(const std::vector<std::string>& argv);

/** One submission: the array job and its index job. */
struct SlurmSubmission
{
    std::string arrayJob;
    std::string indexJob;
    size_t runs = 0;
    size_t tasks = 0;
    size_t otherCode = 0; //!< of `runs`: results there, but made by other code (code_hash)
};

/**
 * \brief Submit the plan's runs that lack complete results (all with `force`).
 * \return the submission; runs == 0 (and no job) when every run is complete
 * \throws std::runtime_error if sbatch is missing or refuses the job (its message)
 */
SlurmSubmission SubmitSlurm(const SweepPlan& plan, bool force);

/** The job ids of every submission of this tree (array and index jobs). */
std::vector<std::string> SlurmJobs(const std::string& root);

/** Job ids among `jobs` that squeue still lists, with one line per array task ("12_3 RUNNING"). */
std::vector<std::string> SlurmQueue(const std::vector<std::string>& jobs, std::string& error);

/**
 * \brief Wait until the jobs have left the queue, showing how many runs have results.
 * \return false if interrupted (SIGINT/SIGTERM; the jobs keep running)
 */
bool WaitForSlurm(const SweepPlan& plan, const std::vector<std::string>& jobs, bool quiet);

/**
 * \brief `tusk sweep-task PLAN --task I`: run the runs of array task I (one by one); on SIGTERM
 * (time limit, scancel) the run in progress is recorded as killed and the task ends.
 * \return 0 if every run succeeded, 1 otherwise
 */
int RunSlurmTask(const std::string& planFile, unsigned task, bool force);

/** POSIX shell quoting ('...'). */
std::string ShellQuote(const std::string& s);

} // namespace tusk

#endif
