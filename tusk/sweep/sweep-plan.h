/*
 * tusk: sweeps, from a sweep file to a plan of runs (docs/sweeps.md).
 *
 * A sweep file names a base scenario and axes (scenario keys and their values, combined as a
 * cartesian product or zipped). ReadSweepFile parses and validates it; ExpandSweep turns it into
 * a SweepPlan: one SweepRun per point, each resolved through the scenario loader (so that every
 * bad value is reported, with the sweep file's line, before anything runs) and identified by the
 * SHA-256 of its resolved scenario (ScenarioToJson), which is what resuming compares.
 *
 * A run is executed as `tusk run SCENARIO --set K=V ... --out RUN_DIR -q` in the directory of
 * its scenario file, so that a relative path in an axis value resolves exactly as it would in
 * the scenario file itself.
 */
#ifndef TUSK_SWEEP_PLAN_H
#define TUSK_SWEEP_PLAN_H

#include "cli/plugins.h"

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tusk
{

/** [slurm] of a sweep file, and the `--partition`/`--time`/`--mem` options of `tusk sweep`. */
struct SlurmOptions
{
    std::string partition;              //!< sbatch --partition ("" = the cluster's default)
    std::string time;                   //!< sbatch --time per array task, e.g. "00:30:00"
    std::string mem;                    //!< sbatch --mem per array task, e.g. "2G"
    std::string account;                //!< sbatch --account
    uint32_t chunk = 1;                 //!< runs per array task (run one after the other)
    uint32_t maxParallel = 0;           //!< array throttle (--array=0-N%M); 0 = no limit
    std::vector<std::string> sbatchArgs; //!< further sbatch options, verbatim
};

/** One axis: one scenario key, or several zipped keys, and their values. */
struct SweepAxis
{
    std::string name;              //!< column of sweep.csv and part of each run id
    std::vector<std::string> keys; //!< scenario keys ("lb.policy", "background.load", "seed")
    /** values[i][k]: the TOML text of key k's i-th value ("0.3", "\"spray\""). */
    std::vector<std::vector<std::string>> values;
    std::vector<std::string> labels; //!< labels[i]: the i-th value's label (run ids, columns)
    bool labelled = false;           //!< labels were given (then sweep.csv also has key columns)
    unsigned line = 0;               //!< line of the axis in the sweep file
    std::vector<unsigned> valueLines; //!< line of each value
};

/** An override of a run: a scenario key, the TOML text of its value, and the line of the
 *  sweep (or suite) file that gave it. */
struct RunEdit
{
    std::string key;
    std::string value;
    unsigned line = 0;
    std::string file; //!< where it was given, if not the sweep (or suite) file ("--set")
};

/**
 * \brief A command-line `--set KEY=VALUE` as an edit: VALUE is TOML text if it parses as a TOML
 * value, else a plain string (as `tusk run --set` reads it).
 * \throws ns3::InputError (file "--set") for a malformed argument
 */
RunEdit CommandLineEdit(const std::string& argument);

/** A sweep file, parsed and validated. */
struct SweepSpec
{
    std::string file;     //!< the sweep file as given
    std::string name;     //!< results go to results/<name>/
    std::string scenario; //!< base scenario file, absolute
    unsigned scenarioLine = 0;
    bool zip = false;     //!< combine = "zip" (else the cartesian product)
    /** [set]: fixed overrides of every run. */
    std::vector<RunEdit> sets; //!< [set], then the command line's --set
    std::vector<SweepAxis> axes;
    SlurmOptions slurm;
};

/** One run of a plan. */
struct SweepRun
{
    std::string id;       //!< directory name under the sweep's results root
    std::string scenario; //!< scenario file, absolute; the run executes in its directory
    std::vector<std::string> sets; //!< `--set` arguments, in order
    /** (axis name, label) for every axis, in axis order. */
    std::vector<std::pair<std::string, std::string>> labels;
    /** (scenario key, plain value text) of labelled or zipped axes: extra sweep.csv columns. */
    std::vector<std::pair<std::string, std::string>> values;
    std::string hash;     //!< SHA-256 (hex) of the resolved scenario's JSON (ScenarioToJson)
    std::string policy;   //!< resolved lb.policy
    uint64_t seed = 0;    //!< resolved seed
};

/** Everything needed to execute, resume and index a sweep (also written to plan.json). */
struct SweepPlan
{
    std::string name;
    std::string sourceFile; //!< the sweep (or suite) file
    std::string kind = "sweep"; //!< "sweep" | "regress"
    std::string root;       //!< results root, absolute (results/<name>)
    std::vector<std::string> axisNames;
    std::vector<std::vector<std::string>> axisKeys; //!< scenario keys of each axis
    std::vector<std::string> valueColumns; //!< union of SweepRun::values keys, in order
    std::vector<SweepRun> runs;
    SlurmOptions slurm;
    /**
     * Complete results are kept (not rerun) only when their manifest's `git_revision` is this
     * one; "" keeps results made by any revision (`tusk sweep`). `tusk regress --resume` sets
     * it to the binary's own revision: a regression check of another binary's results would
     * be worthless.
     */
    std::string keepRevision;
    /**
     * Complete results are kept only when their manifest's `code_hash` is this one (the
     * CodeIdentity() of the binary that plans the sweep; `tusk sweep` and `tusk regress` set
     * it); "" keeps results made by any code. Results of the same scenario made by other code
     * are run again and counted (SweepTally::otherCode, SlurmSubmission::otherCode).
     */
    std::string keepCode;
    /** The plugins the runs load (`--plugin`, TUSK_PLUGIN_PATH, or those of the plan a
     *  resumed sweep found): each run's `tusk run`, and each Slurm task, gets them. */
    std::vector<PluginRecord> plugins;
    /** Runs that resolve to the same scenario as an earlier run (same hash): (run, earlier). */
    std::vector<std::pair<std::string, std::string>> duplicates;
};

/** The most runs a sweep may have (the product of its axes' lengths, or their length zipped). */
constexpr size_t kMaxSweepRuns = 100000;

/**
 * \brief Read and validate a sweep file (docs/sweeps.md).
 * \throws ns3::InputError naming the sweep file, line and key
 */
SweepSpec ReadSweepFile(const std::string& path);

/** ReadSweepFile of `text` as the content of the sweep file `path` (which names it in
 *  messages, gives the default name and the directory of a relative scenario path). */
SweepSpec ReadSweepString(const std::string& text, const std::string& path);

/** A [slurm] table (of a sweep or suite file). \throws ns3::InputError naming `file` */
SlurmOptions ReadSlurmTable(const toml::node& table, const std::string& file);

/**
 * \brief The runs of a sweep, each resolved through LoadScenarioFile.
 *
 * \param spec a validated sweep file
 * \param root the results root (absolute or relative to the working directory)
 * \throws ns3::InputError for a value the scenario loader refuses, naming the sweep file and
 *         the line of the axis value (or of the [set] entry) with the loader's message
 */
SweepPlan ExpandSweep(const SweepSpec& spec, const std::string& root);

/** A [set] table flattened into edits: nested tables give dotted keys; every other value
 *  (arrays included) is one edit. A quoted key with dots (`"nic.receiver" = ...`) is a key path,
 *  as `--set` takes it. */
std::vector<RunEdit> FlattenSetTable(const toml::table& table);

/** A base scenario file as TOML (a syntax error is reported as the scenario loader does). */
toml::table ReadBaseScenario(const std::string& scenario);

/**
 * \brief Fill run.sets from `edits` applied to `base` and resolve the run (ResolveRun).
 *
 * An edit whose key goes through an array of tables of the base scenario ([[background]],
 * [[jobs]], ...) sets that key in every entry (or in entry N for a segment N:
 * `background.0.load`); the edited array becomes one `--set` of the whole array.
 * \throws ns3::InputError naming `file` and the edit's line when the loader refuses a value
 *         (`scenarioLine` when no edit matches), or the base scenario's own error
 */
void BuildRun(SweepRun& run, const toml::table& base, const std::vector<RunEdit>& edits,
              const std::string& file, unsigned scenarioLine);

/**
 * \brief Resolve a run's scenario (in its scenario's directory) and fill hash, policy, seed.
 * \throws ns3::InputError as LoadScenarioFile does, or for an unknown policy
 */
void ResolveRun(SweepRun& run);

/**
 * \brief The hash that identifies a run's results: the SHA-256 of its resolved scenario
 * (`scenario`, ScenarioToJson) and, when it reads other files, of their `inputs` (InputsJson:
 * paths, sizes and SHA-256 of their bytes), so that results of an edited input file are not
 * kept. A run that reads no other file hashes as its scenario alone (results written before
 * manifests had `inputs` still match). Both are compared as nlohmann::json (keys sorted).
 */
std::string RunHash(const nlohmann::json& scenario, const nlohmann::json& inputs);

/** SHA-256 of `text`, as 64 lower-case hex digits (OpenSSL). */
std::string Sha256Hex(const std::string& text);

/** `name=value` as a `--set` argument, `value` being TOML text. Keys are dotted paths. */
std::string SetArgument(const std::string& key, const std::string& valueText);

/** A TOML node's value as TOML text (floats in the shortest form that reads back exactly;
 *  tables and arrays inline). */
std::string TomlValueText(const toml::node& node);

/** A value as a label: strings as they are, numbers and booleans as TomlValueText; "" for
 *  arrays and tables. */
std::string PlainValueText(const toml::node& node);

/** Split a dotted key path (segments bare or "quoted") into its segments; empty on a
 *  malformed path. */
std::vector<std::string> SplitKeyPath(const std::string& key);

/** The line of a TOML node (0 if unknown). */
unsigned LineOf(const toml::node* node);

/** The plan as JSON (plan.json) and back. */
nlohmann::json PlanToJson(const SweepPlan& plan);
SweepPlan PlanFromJson(const nlohmann::json& j);

/** Letters, digits, '.', '_', '-', '+', not starting with '.' or '-', at most 100 characters. */
bool IsSafeName(const std::string& s);

} // namespace tusk

#endif
