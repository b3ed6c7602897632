/*
 * tusk: the options `tusk run` and `tusk compare` share (the scenario, --set, --seed, --out,
 * the htsim and HPCC imports, --quiet) and how they turn into a ScenarioSpec.
 */
#ifndef TUSK_SCENARIO_OPTIONS_H
#define TUSK_SCENARIO_OPTIONS_H

#include "scenario/scenario-spec.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace tusk
{

/** What `tusk run` and `tusk compare` read from the command line. */
struct CommonOptions
{
    std::string scenario;
    std::vector<std::string> sets;
    std::string out;
    std::string htsimTopo;
    std::string htsimCm;
    std::string hpccConfig;
    long long seed = -1;
    bool quiet = false;
};

/** Add the shared options to `cmd`; the scenario file is optional for `compare`. */
void AddCommon(CLI::App* cmd, CommonOptions& o, bool scenarioRequired);

/**
 * \brief The scenario the options name (a TOML file, a run's manifest.json, the htsim files or
 * the built-in default) with --seed, --set and `extraSets` applied, then the HPCC config.txt's
 * keys on top (--hpcc-config; its warnings on stderr unless --quiet).
 * \throws ns3::InputError on bad input
 */
ScenarioSpec Load(const CommonOptions& o, const std::vector<std::string>& extraSets);

/** results/<scenario name>/<leaf>: where results go without --out or output.dir. */
std::string DefaultOut(const ScenarioSpec& spec, const std::string& leaf);

} // namespace tusk

#endif // TUSK_SCENARIO_OPTIONS_H
