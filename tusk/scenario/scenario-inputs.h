/*
 * tusk: the files a scenario reads besides itself (other tools' topologies and workloads,
 * flow-size CDFs, Chakra traces), with the SHA-256 of their bytes: recorded in every run's
 * manifest (`inputs`) and compared when a sweep or `tusk regress --resume` keeps earlier
 * results, so that editing an input file reruns the runs that read it.
 */
#ifndef TUSK_SCENARIO_INPUTS_H
#define TUSK_SCENARIO_INPUTS_H

#include "scenario/scenario-spec.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tusk
{

/** One file a scenario reads. */
struct ScenarioInput
{
    std::string key;  //!< the scenario key naming it: "topology.file", "jobs[0].file", ...
    std::string path; //!< absolute, as the scenario resolved it
};

/**
 * \brief The files `spec` reads, in a fixed order: topology.file (kinds "htsim", "hpcc"),
 * workload.file (kinds "htsim", "hpcc"), each Chakra trace file of workload.trace (kind
 * "chakra", one entry per rank, key "workload.trace"), jobs[i].file (SimAI), then
 * background[i].cdf_file. The scenario file itself is not listed (its values are in the
 * manifest's `scenario`).
 */
std::vector<ScenarioInput> ScenarioInputs(const ScenarioSpec& spec);

/**
 * \brief The manifest's `inputs`: an array of {"bytes", "key", "path", "sha256"}, one per
 * ScenarioInputs entry (empty array when the scenario reads no other file). A plain
 * nlohmann::json (keys sorted), as a manifest reads back, so that RunHash compares the same
 * text either way.
 * \throws std::runtime_error if a file cannot be read
 */
nlohmann::json InputsJson(const ScenarioSpec& spec);

} // namespace tusk

#endif
