/*
 * tusk: the policy regression harness, `tusk regress SUITE.toml` (docs/sweeps.md).
 *
 * A suite names scenarios, the policies and seeds to run each with, and per scenario, policy
 * and metric a baseline: a value, a band (absolute and/or relative) and where the value comes
 * from (`theory`, `paper: <ref>` or `measured: <date>, <revision>`), in the spirit of htsim's
 * metric-level validation files. The runs go through the sweep machinery (local workers or
 * Slurm); each metric is compared with its baseline: inside the band it passes, outside on the
 * worse side it has regressed (exit status 1), outside on the better side it has improved
 * (passes; the table says to update the baseline). `--update-baselines` rewrites the measured
 * entries in place (never theory or paper ones) and records missing ones, showing the diff.
 */
#ifndef TUSK_REGRESS_H
#define TUSK_REGRESS_H

#include "sweep/sweep-index.h"
#include "sweep/sweep-plan.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace tusk
{

/** A band around a baseline: |now - value| <= max(abs, rel * |value|). */
struct Band
{
    double abs = 0;
    double rel = 0;
    bool given = false;
    double Width(double value) const { return std::max(abs, rel * std::fabs(value)); }
};

/** One baseline entry: [baseline.<scenario>] <policy>.<metric> = { value, rel|abs, source }. */
struct Baseline
{
    std::string scenario;
    std::string policy;
    std::string metric;
    double value = 0;
    bool integer = false; //!< the value was written as an integer
    Band band;            //!< its own band (band.given) or the suite's default for the metric
    std::string source;   //!< "theory...", "paper: ...", "measured: ..."
    std::string better;   //!< "lower" | "higher" | "none" (two-sided)
    std::string stat;     //!< over seeds: "mean" | "median" | "min" | "max"
    unsigned line = 0;    //!< of the entry
    // Where `value` and `source` are written (1-based line and columns [begin, end)).
    unsigned valueLine = 0, valueBegin = 0, valueEnd = 0;
    unsigned sourceLine = 0, sourceBegin = 0, sourceEnd = 0;
    unsigned sourceEndLine = 0; //!< the line `sourceEnd` is on (a multi-line string ends later)

    bool Measured() const { return source.rfind("measured", 0) == 0; }
};

struct SuiteScenario
{
    std::string name;
    std::string file; //!< absolute
    unsigned line = 0;
    std::vector<RunEdit> sets;
    std::vector<std::string> policies;
    unsigned policiesLine = 0;
    std::vector<uint64_t> seeds;
    unsigned seedsLine = 0;
    std::vector<std::string> metrics; //!< checked for every policy (a baseline each)
};

struct RegressSuite
{
    std::string file;
    std::string name;
    std::vector<SuiteScenario> scenarios;
    std::vector<Baseline> baselines;
    std::map<std::string, Band> bands; //!< [bands]: default band per metric
    /** Last line of each [baseline.<scenario>] table's entries (where new entries go). */
    std::map<std::string, unsigned> baselineTableEnd;
    SlurmOptions slurm;
};

/** The verdict of one check. */
struct Check
{
    std::string scenario;
    std::string policy;
    std::string metric;          //!< "" for the check that the runs themselves succeeded
    const Baseline* baseline = nullptr; //!< nullptr: no baseline recorded yet
    Band band;
    double now = NAN;
    size_t seeds = 0;
    /** "pass" | "improved" | "REGRESSED" | "MISSING" (no value) | "NO BASELINE" | "FAILED" */
    std::string verdict;
    std::string note;
    bool Failing() const { return verdict == "REGRESSED" || verdict == "MISSING" ||
                                  verdict == "NO BASELINE" || verdict == "FAILED"; }
};

/** \throws ns3::InputError naming the suite file, line and key */
RegressSuite ReadSuite(const std::string& path);

/** ReadSuite of `text` as the content of the suite file `path` (which names it in messages,
 *  gives the default name and the directory of relative scenario paths). */
RegressSuite ReadSuiteString(const std::string& text, const std::string& path);

/** The runs of the suite: every scenario x policy x seed; run ids scenario=S,policy=P,seed=N. */
SweepPlan SuitePlan(const RegressSuite& suite, const std::string& root);

/** Compare the runs' summaries with the baselines. */
std::vector<Check> Evaluate(const RegressSuite& suite, const std::vector<IndexedRun>& runs);

/** The table printed by `tusk regress`. */
std::string CheckTable(const std::vector<Check>& checks);

/** JUnit XML (one testsuite per scenario, one testcase per check). */
std::string JUnitXml(const RegressSuite& suite, const std::vector<Check>& checks,
                     const std::vector<IndexedRun>& runs);

/**
 * \brief The suite file's text with every measured baseline set to its current value
 * (value and `measured: <date>, <revision>`), and a measured entry added for every check
 * that had none. Theory and paper entries are left as they are.
 * \param[out] diff the changed lines, `-`/`+` with their line numbers
 */
std::string UpdatedSuiteText(const RegressSuite& suite, const std::vector<Check>& checks,
                             const std::string& date, const std::string& revision,
                             std::string& diff);

/** UpdatedSuiteText of `suiteText`, the suite file's content as ReadSuiteString read it. */
std::string UpdatedSuiteText(const RegressSuite& suite, const std::string& suiteText,
                             const std::vector<Check>& checks, const std::string& date,
                             const std::string& revision, std::string& diff);

} // namespace tusk

#endif
