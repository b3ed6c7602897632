/*
 * tusk: the scenario file layer.
 *
 * Reads a TOML scenario file (docs/scenario-format.md) plus `--set key.path=value` overrides
 * into a validated ScenarioSpec, and writes a ScenarioSpec back as JSON for manifest.json.
 *
 * TOML keys carry their unit in their name (`link_delay_ns`, `host_link_gbps`, `rto_us`,
 * `stop_time_ms`, `*_bytes`); the spec holds internal units (ps, bit/s, bytes).
 */
#ifndef TUSK_SCENARIO_TOML_H
#define TUSK_SCENARIO_TOML_H

#include "scenario/scenario-spec.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tusk
{

/**
 * \brief The built-in default scenario: a 16-rank ring all-reduce of 16 MiB per rank with two
 * channels on a 4-leaf x 4-spine leaf-spine with 4 hosts per leaf, 400 Gb/s links with 1 us
 * propagation delay, ECMP, seed 1. The same text (with its comments) is scenarios/default.toml.
 */
extern const char* const kDefaultScenarioToml;

/**
 * \brief Read and validate a TOML scenario file.
 *
 * Relative `file` paths inside it ([topology] file, [workload] file) are resolved against the
 * directory of `path` and made absolute; a `file` given by an override is resolved against the
 * current working directory. spec.sourceFile = `path` (as given).
 *
 * \param path the scenario file
 * \param overrides `key.path=value` strings (the CLI's `--set`), applied in order to the parsed
 *        TOML before validation; the value is parsed as a TOML value, or taken as a plain
 *        string if it is not one (`lb.policy=spray`, `workload.bytes=1GiB`). An override
 *        that changes `topology.kind` or `workload.kind` drops the file's keys of that table
 *        that apply only to other kinds.
 * \return the validated spec, with keyLines filled for every key read (0 = from an override)
 * \throws ns3::InputError naming file, line, key and what was expected. Problems in an
 *         override name the file "--set" and line 0.
 */
ScenarioSpec LoadScenarioFile(const std::string& path,
                              const std::vector<std::string>& overrides = {});

/**
 * \brief As LoadScenarioFile, for TOML text held in memory.
 *
 * \param toml the scenario text
 * \param displayName the name errors use as the file, and spec.sourceFile. Relative `file`
 *        paths are resolved against its directory part if it has one, else against the
 *        current working directory.
 * \param overrides as for LoadScenarioFile
 */
ScenarioSpec LoadScenarioString(const std::string& toml,
                                const std::string& displayName,
                                const std::vector<std::string>& overrides = {});

/**
 * \brief As LoadScenarioString, for a scenario held as JSON: the "scenario" object of a
 * run's manifest.json (ScenarioToJson's layout), read and checked exactly like a TOML file.
 *
 * \param scenario a JSON object with the layout of a TOML scenario
 * \param displayName the name errors use as the file (line 0), and spec.sourceFile; relative
 *        paths are resolved against its directory
 * \throws ns3::InputError as LoadScenarioString; a JSON null anywhere is an error
 */
ScenarioSpec LoadScenarioJson(const nlohmann::json& scenario,
                              const std::string& displayName,
                              const std::vector<std::string>& overrides = {});

/**
 * \brief A scenario held as JSON (LoadScenarioJson's layout) as TOML text, for the scripting
 * API's Scenario::FromJson (a Python dict). Not checked beyond what TOML can hold.
 * \throws ns3::InputError naming the key of a JSON null or an integer above 2^63 - 1
 */
std::string ScenarioJsonToToml(const nlohmann::json& scenario, const std::string& displayName);

/**
 * \brief A run's manifest.json as JSON (any JSON value: the caller checks its keys).
 * \throws ns3::InputError naming the manifest if it cannot be read or is not JSON
 */
nlohmann::json ReadManifestJson(const std::string& manifestPath);

/**
 * \brief LoadScenarioJson of the "scenario" object of a run's manifest.json.
 * \throws ns3::InputError naming the manifest if it cannot be read, is not JSON or has no
 *         "scenario" object
 */
ScenarioSpec LoadManifestScenario(const std::string& manifestPath,
                                  const std::vector<std::string>& overrides = {});

/**
 * \brief The full resolved spec as JSON, in the layout and with the unit-suffixed keys of the
 * TOML format (times back in the TOML units: `stop_time_ms`, `link_delay_ns`, `rto_us`,
 * `start_us`; rates in `_gbps`; sizes in bytes as integers). Only the keys that apply to the
 * chosen topology and workload kinds are written, so the result is itself a valid scenario;
 * of a spec that RunScenario resolved (RunResult::spec), one that reproduces the run.
 * Whole values are written as integers, others as floats. sourceFile and keyLines are not
 * part of it. Keys are sorted (deterministic output).
 */
nlohmann::json ScenarioToJson(const ScenarioSpec& spec);

/**
 * \brief Parse a size: a non-negative decimal number (integer or with a fraction) optionally
 * followed by a unit B, kB/KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of
 * 1024), e.g. "64MiB", "2GB", "1.5GiB", "4096". The result must be a whole number of bytes.
 *
 * \param text the size string
 * \param[out] bytes the size, bytes
 * \param[out] why on failure, what is wrong
 * \return true on success
 */
bool ParseSizeString(const std::string& text, uint64_t& bytes, std::string& why);

} // namespace tusk

#endif
