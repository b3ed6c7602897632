/*
 * tusk: the stages of a run (internal to the tusk library; RunScenario in runner.cc calls
 * them in order):
 *   validate (run-validate.cc)  -> build graph and resolve (run-resolve.cc)
 *   -> build workload (run-workload.cc) -> build fabric and NICs (run-fabric.cc)
 *   -> attach observers (run-observers.cc) -> run -> collect (run-collect.cc)
 */
#ifndef TUSK_RUN_STAGES_H
#define TUSK_RUN_STAGES_H

#include "runner.h"

#include "fabric/helper/topology-builders.h"
#include "fabric/model/input-error.h"

#include <string>

namespace tusk
{

/**
 * \brief Rethrow a model's InputError as the scenario key behind it. Models name their own
 * parameter ("LeafSpineParams.hostsPerLeaf", "bytesPerRank") or attribute
 * ("ns3::SharedBufferMmu::BufferBytes"); the knob table knows which key feeds it. An error
 * that names its own file (an importer's) passes unchanged.
 * \param blockId the key block whose parameters the model takes ("topology.leaf-spine")
 * \param fallbackKey the key to name when no knob matches
 * \param index replaces "[i]" in keys of an array of tables (background[i].load)
 */
[[noreturn]] void ThrowAsScenarioKey(const ScenarioSpec& spec,
                                     const ns3::InputError& e,
                                     const std::string& blockId,
                                     const std::string& fallbackKey,
                                     int64_t index = -1);

// ---- build graph and resolve (run-resolve.cc) ---------------------------------------------

/** The topology graph of `spec`; builder errors name the scenario key. */
ns3::TopologyGraph BuildGraph(const ScenarioSpec& spec);

/**
 * \brief `spec` with every value the run derives made explicit, so that its echo reproduces the
 * run: UEC-style transports' BDP-derived ECN thresholds become [[ecn.by_rate]] entries, DCQCN's
 * preset becomes explicit values (at the host line rate of `graph`).
 */
ScenarioSpec ResolveScenario(const ScenarioSpec& spec, const ns3::TopologyGraph& graph);

/** The line rate of the first host link, bit/s (DCQCN presets scale with it). */
uint64_t FirstHostRateBps(const ns3::TopologyGraph& graph);

} // namespace tusk

#endif
