/*
 * `tusk rerun RESULTS_DIR`: run a run again from its manifest.json alone and compare every
 * result file of the two folders byte for byte (README, docs/results-format.md).
 */
#ifndef TUSK_RERUN_H
#define TUSK_RERUN_H

#include "scenario/scenario-spec.h"

#include <CLI/CLI.hpp>

#include <ostream>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tusk
{

/** What `tusk rerun` takes from a manifest.json. */
struct RerunManifest
{
    ScenarioSpec spec;              //!< its "scenario": the resolved spec of the run
    std::string status;             //!< "ok" or "failed"
    std::vector<std::string> files; //!< its "files": names of files in the results folder
    /** Its "inputs" (the files the scenario read, with their SHA-256; empty array when the
     *  manifest has none: an older tusk, or no file read). */
    nlohmann::json inputs = nlohmann::json::array();
};

/**
 * \brief Read a run's manifest.json for `tusk rerun` (no simulation).
 *
 * Requires a JSON object with "scenario" (a scenario LoadScenarioJson accepts), "status"
 * ("ok" or "failed") and "files" (an array of file names, each a plain name inside the results
 * folder: no '/', not "." or "..", no control character).
 * \throws ns3::InputError naming the manifest and the key (e.g. "files[2]") otherwise
 */
RerunManifest ReadRerunManifest(const std::string& manifestPath);

struct RerunOptions
{
    std::string resultsDir; //!< a run's results folder (with manifest.json)
    std::string out;        //!< where the rerun goes ("" = RESULTS_DIR.rerun)
    bool quiet = false;     //!< no progress line
};

/** Register `rerun` on the application; its options fill `o`. */
CLI::App* AddRerunCommand(CLI::App& app, RerunOptions& o);

/**
 * \brief Run it: ReadRerunManifest, run the scenario into the output folder (RunInto), then
 * compare the two folders: every file either holds byte for byte, but manifest.json (whose
 * timings differ: its status is compared) and the .tusk-results marker (the writing process); a file in one folder and not the other, a
 * non-regular file (symlink, device) or a file the manifest lists that neither holds is a
 * difference; folders inside (a `tusk report`) are named and not compared. Prints one line per
 * file and the verdict on `out`.
 * \return 0 if reproduced, 1 otherwise
 * \throws ns3::InputError for a missing or malformed manifest, or --out naming RESULTS_DIR
 */
int RunRerun(const RerunOptions& o, std::ostream& out);

} // namespace tusk

#endif
