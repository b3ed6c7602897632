/*
 * `tusk locate RESULTS_DIR`: rank the links most likely to be faulty from what an operator sees
 * end to end (docs/locate.md).
 */
#ifndef TUSK_LOCATE_LOCATE_COMMAND_H
#define TUSK_LOCATE_LOCATE_COMMAND_H

#include "locate/tomography.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace tusk
{
namespace locate
{

/** What `--what-if` asks about: one suspect link of a run (docs/locate.md, "What a hidden
 *  fault costs"). */
struct WhatIfRequest
{
    std::string resultsDir;
    std::string outDir;          //!< where the derived runs go
    const Observations* obs = nullptr;
    uint32_t link = 0;           //!< the suspect: a directed link (Observations::links index)
    double rateFactor = 1.0;     //!< its rate / nominal as the evidence estimated it
    /** Its fraction of frames lost as the evidence estimated it (0..1; 0 = none, and for switch
     *  AR evidence, which sees no losses): the derived run loses them too. */
    double lossRate = 0.0;
    std::string evidence;        //!< "ar", "paths" or "flows": what estimated it
    std::string down;            //!< the cable to take down as well ("" = the busiest sibling)
    bool progress = false;       //!< progress lines of the derived runs on stderr
};

/** Costs a suspect: returns what docs/locate.md's "What a hidden fault costs" lists, as one
 *  JSON object. Runs simulations, so it lives with the runner (results/what-if.h). */
using WhatIfRunner = std::function<nlohmann::json(const WhatIfRequest&)>;

struct CommandOptions
{
    std::string resultsDir;
    /** Several runs of one fabric located together (`tusk locate DIR DIR ...`; their evidence
     *  pooled: locate/pool.h); empty = resultsDir alone. The command line fills this. */
    std::vector<std::string> resultsDirs;
    uint32_t top = 10;
    bool json = false;
    std::string method = "bayes";
    /** "auto": switch AR telemetry when RESULTS_DIR/ar.csv exists and its switches steered,
     *  else per-path telemetry when RESULTS_DIR/paths.csv exists, else completion times;
     *  "ar" (ar.csv required), "paths" (paths.csv required) or "flows" (completion times). */
    std::string evidence = "auto";
    TomographyOptions tomography;
    /** --what-if: cost the first named suspect (or --what-if-link) with whatIfRunner. */
    bool whatIf = false;
    std::string whatIfLink; //!< "FROM->TO" (or FROM-TO): this direction instead of the first named
    std::string whatIfDown; //!< "FROM-TO": the cable the derived run also takes down
    std::string whatIfOut;  //!< where the derived runs go ("" = RESULTS_DIR.what-if)
    /** --list-unobserved: the text output also lists every link direction no flow crossed
     *  (JSON always has them: `unobserved_links`). */
    bool listUnobserved = false;
    WhatIfRunner whatIfRunner; //!< set by the application (main.cc)
};

/**
 * \brief The link directions no flow's data crossed (`unused`: Observations::links indices,
 * from Incidence::unused or PathLocateResult::unused; `source` the file whose paths were
 * counted, "flows.csv" or "paths.csv"), as JSON: `unobserved_links` (["FROM->TO", ...] in
 * links.csv order), `unobserved_by_tier` ({"agg->core": {"unobserved": N, "directions": M}, ...}
 * for every tier pair of the fabric, VertexTier of each end) and `unobserved_from` (`source`).
 */
nlohmann::json UnobservedJson(const Observations& obs, const std::vector<uint32_t>& unused,
                              const std::string& source);

/**
 * \brief The text output's line about them (empty when every direction was crossed): how many
 * directions carried no flow's data frames, that a fault there cannot be seen, and the count
 * per tier pair that has any ("agg->core 96 of 128"); with `listAll` a second line naming
 * every one ("unobserved: agg0->core1, ...").
 */
std::string UnobservedText(const Observations& obs, const std::vector<uint32_t>& unused,
                           const std::string& source, bool listAll);

/** Register `locate` on the application; its options fill `o`. */
CLI::App* AddCommand(CLI::App& app, CommandOptions& o);

/**
 * \brief Run it: the table (or JSON with --json) on `out`. Returns the exit status (0).
 * \throws ns3::InputError for bad input (exit 2 in the caller).
 */
int RunCommand(const CommandOptions& o, std::ostream& out);

/** The table and the JSON document of a result (what RunCommand prints). */
void PrintTable(const Observations& obs, const LocateResult& r, const CommandOptions& o,
                std::ostream& out);
std::string ToJson(const Observations& obs, const LocateResult& r, const CommandOptions& o);

/** The text of a WhatIfRunner's answer (null: "no suspect to cost"). */
void PrintWhatIf(const nlohmann::json& w, std::ostream& out);

} // namespace locate
} // namespace tusk

#endif
