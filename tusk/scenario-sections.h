/*
 * tusk: the sections of a scenario file (internal to the tusk library).
 *
 * One file per TOML table (section-*.cc) holds that table's knob rows (knob.h), reads the
 * table into ScenarioSpec, writes it back for the manifest echo, and gives its rows to the key
 * reference. Sections are read in the order of Sections(); the top level first.
 */
#ifndef TUSK_SCENARIO_SECTIONS_H
#define TUSK_SCENARIO_SECTIONS_H

#include "knob.h"
#include "scenario-spec.h"

#include "ns3/attribute.h"
#include "ns3/ptr.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace tusk
{

/** One table of the key reference (a marked block of docs/scenario-format.md). */
struct KnobBlock
{
    KnobBlock(std::string id, std::string table, std::vector<KnobDoc> knobs)
        : id(std::move(id)),
          table(std::move(table)),
          knobs(std::move(knobs))
    {
    }

    std::string id;    //!< block marker: "nic", "topology.leaf-spine", "jobs.collectives"
    std::string table; //!< prefix of its keys in errors and keyLines: "nic", "jobs[i]", ""
    std::vector<KnobDoc> knobs;
    bool kindColumn = false; //!< show the kinds each key is valid for ([workload])
    /** Instead of one default column, one column per preset: (preset, default text per knob). */
    std::vector<std::pair<std::string, std::vector<std::string>>> presetColumns;
};

/** One TOML table of the scenario format. */
struct Section
{
    std::string key; //!< its name at the top level ("nic", "jobs"); "" = the top-level keys
    void (*read)(ScenarioReader& r, const toml::table& root, ScenarioSpec& spec);
    void (*write)(const ScenarioSpec& spec, nlohmann::json& root);
    std::vector<KnobBlock> (*blocks)();
};

/** Every section, in reading order (top level, topology, ..., ns3). */
const std::vector<Section>& Sections();

/** Every block of the key reference, in the order of Sections(). */
std::vector<KnobBlock> KnobBlocks();

/** The tables whose valid keys depend on their `kind` ([topology], [workload]). */
const std::vector<KindTable>& KindTables();

// The sections (section-*.cc).
Section TopLevelKeys();
Section TopologyKeys();
Section FabricKeys();
Section NicKeys();
Section BufferKeys();
Section PfcKeys();
Section EcnKeys();
Section DcqcnKeys();
Section LbKeys();
Section WorkloadKeys();
Section ScaleUpKeys();
Section JobsKeys();
Section BackgroundKeys();
Section FailuresKeys();
Section OutputKeys();
Section Ns3Keys();

/** [topology] kinds and their keys (for KindTables). */
KindTable TopologyKindTable();
/** [workload] kinds and their keys (for KindTables). */
KindTable WorkloadKindTable();

/** Number of hosts the topology of `spec` has, when known without reading a file (else 0). */
uint64_t TopologyHostCount(const ScenarioSpec& spec);

/** Fill every DCQCN value `d` leaves unset from its preset at line rate `lineRateBps`. */
void ResolveDcqcnPreset(DcqcnSection& d, uint64_t lineRateBps);

/** The ns3::DcqcnCongestionControl attribute values of a resolved [dcqcn] (path, value). */
std::vector<std::pair<std::string, ns3::Ptr<ns3::AttributeValue>>> DcqcnAttributeValues(
    const DcqcnSection& resolved);

} // namespace tusk

#endif
