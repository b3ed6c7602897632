/*
 * tusk: other tools' defaults in one word (`--preset htsim-uec | htsim-roce | hpcc`), and the
 * note an import prints about which transport, congestion control and loss recovery a run of
 * another tool's files will use. The mapping of each tool setting to tusk's is in
 * docs/scenario-format.md, "Other tools' defaults".
 */
#ifndef TUSK_TOOL_PRESETS_H
#define TUSK_TOOL_PRESETS_H

#include "scenario/scenario-spec.h"

#include "fabric/model/topology-graph.h"

#include <string>
#include <vector>

namespace tusk
{

/** The preset names, in the order `--help` lists them. */
const std::vector<std::string>& ToolPresetNames();

/**
 * \brief The `--set` overrides (KEY=VALUE) that give the run tool `name`'s defaults on
 * `graph` (the scenario's topology: htsim sizes its queues, ECN thresholds and retransmission
 * timeout from the fabric's BDP).
 *
 * htsim-uec: ultraethernet/uet-htsim datacenter/main_uec.cpp with no options: RUD with SACK
 * bitmaps, NSCC, 4150-byte packets (4086 B payload after its 64-byte header), trimming at a
 * one-BDP queue, ECN at 0.2 / 0.8 BDP, no PFC, min RTO 15 µs + 6 queue drains.
 * htsim-roce: its main_roce.cpp: RoCE with in-order (go-back-N) receivers, no congestion
 * control, no ECN, PFC with a 15-packet XOFF and a 12-packet XON threshold, 4000-byte packets,
 * 1 ms RTO. hpcc: the HPCC simulator's simulation/mix/config.txt (HPCC, CC_MODE 3), applied as
 * --hpcc-config applies it (tusk/hpcc-config.h).
 * \throws ns3::InputError naming --preset for an unknown name
 */
std::vector<std::string> ToolPresetSets(const std::string& name, const ns3::TopologyGraph& graph);

/** The HPCC simulator's own mix/config.txt (what `--preset hpcc` applies), as text. */
const std::string& HpccDefaultConfigText();

/**
 * \brief The line an import prints: which files were imported, and the transport, loss
 * recovery, congestion control, ECN and PFC the run will use (tusk's, unless a preset or the
 * scenario changed them), with the preset that gives the tool's own defaults. `tool` is
 * "htsim" or "HPCC".
 */
std::string ImportNote(const std::string& tool, const ScenarioSpec& spec, const std::string& preset);

} // namespace tusk

#endif
