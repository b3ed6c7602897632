/*
 * tusk: the sections of a scenario file (internal to the tusk library).
 *
 * One file per TOML table (section-*.cc) holds that table's knob rows (knob.h), reads the
 * table into ScenarioSpec, writes it back for the manifest echo, and gives its rows to the key
 * reference. Sections are read in the order of Sections(); the top level first.
 */
#ifndef TUSK_SCENARIO_SECTIONS_H
#define TUSK_SCENARIO_SECTIONS_H

#include "scenario/knob.h"
#include "scenario/scenario-spec.h"

#include "ns3/attribute.h"
#include "ns3/ptr.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
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
    using ReadFn = std::function<void(ScenarioReader& r, const toml::table& root, ScenarioSpec& spec)>;
    using WriteFn = std::function<void(const ScenarioSpec& spec, nlohmann::json& root)>;
    using BlocksFn = std::function<std::vector<KnobBlock>()>;

    std::string key; //!< its name at the top level ("nic", "jobs"); "" = the top-level keys
    ReadFn read;
    WriteFn write;
    BlocksFn blocks;
};

/** How a plain section (PlainSection) differs from the rest. */
struct PlainSectionOptions
{
    /** Keys that moved elsewhere, with the message that says where. */
    std::map<std::string, std::string> retired;
    /** Checks across keys once the table is read (the table and the spec read so far). */
    std::function<void(ScenarioReader& r, const toml::table& t, ScenarioSpec& spec)> check;
    /** The key reference's blocks, when not one block of the rows with their defaults. */
    Section::BlocksFn blocks;
};

/**
 * \brief A section that is one table of keys whose values live in `spec.*member`: read
 * through its rows (only when the table is present), echoed through them, documented as one
 * block named `key`.
 */
template <class Owner>
Section
PlainSection(const char* key,
             const std::vector<Knob<Owner>>& (*rows)(),
             Owner ScenarioSpec::*member,
             PlainSectionOptions options = {})
{
    const std::string k = key;
    Section s;
    s.key = k;
    s.read = [k, rows, member, options](ScenarioReader& r, const toml::table& root,
                                        ScenarioSpec& spec) {
        const toml::table* tp = r.SectionTable(root, k);
        if (tp == nullptr)
        {
            return;
        }
        const toml::table& t = *tp;
        ReadKnobs(r, t, k, rows(), spec.*member, "", {}, options.retired);
        if (options.check)
        {
            options.check(r, t, spec);
        }
    };
    s.write = [k, rows, member](const ScenarioSpec& spec, nlohmann::json& root) {
        root[k] = WriteKnobs(rows(), spec.*member);
    };
    s.blocks = options.blocks ? options.blocks : Section::BlocksFn([k, rows]() {
        return std::vector<KnobBlock>{KnobBlock(k, k, Docs(rows()))};
    });
    return s;
}

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
/** [hpcc], [timely], [swift], [dctcp], [nscc], [rccc] (section-cc.cc). */
std::vector<Section> CcKeySections();
Section LbKeys();
Section WorkloadKeys();
Section ScaleUpKeys();
Section ProbesKeys();
Section JobsKeys();
Section BackgroundKeys();
Section FailuresKeys();
/** [[failure_rates]] (section-failures.cc). */
Section FailureRatesKeys();
Section OutputKeys();
Section SimulatorKeys();
Section Ns3Keys();

/**
 * Whether the file has at least one [[background]] table: traffic that may run on its own, so
 * `workload.flows` (kind "flows") and `[[jobs]]` (kind "jobs") may then be absent or empty.
 */
bool HasBackground(const toml::table& root);

/** [topology] kinds and their keys (for KindTables). */
KindTable TopologyKindTable();
/** [workload] kinds and their keys (for KindTables). */
KindTable WorkloadKindTable();

/** Number of hosts the topology of `spec` has, when known without reading a file (else 0). */
uint64_t TopologyHostCount(const ScenarioSpec& spec);

/** The names of the CcKeySections, in order. */
std::vector<std::string> CcSectionNames();

/** Whether `section` (of CcSectionNames) changes the run: the section of
 *  nic.congestion_control, [rccc] with nic.receiver_credit. */
bool CcSectionInUse(const ScenarioSpec& spec, const std::string& section);

/**
 * \brief Cross-key checks of the CcKeySection in use (its keys' own ranges are checked where
 * they are read): [ib-cc] ccti_min must not exceed ccti_limit.
 * \throws ns3::InputError naming the key
 */
void CheckCcSettings(const ScenarioSpec& spec);

/** The attribute values of the keys given in the CcKeySections in use (path, value). */
std::vector<std::pair<std::string, ns3::Ptr<ns3::AttributeValue>>> CcAttributeValues(
    const ScenarioSpec& spec);

/** Fill every DCQCN value `d` leaves unset from its preset at line rate `lineRateBps`. */
void ResolveDcqcnPreset(DcqcnSection& d, uint64_t lineRateBps);

/** The ns3::DcqcnCongestionControl attribute values of a resolved [dcqcn] (path, value). */
std::vector<std::pair<std::string, ns3::Ptr<ns3::AttributeValue>>> DcqcnAttributeValues(
    const DcqcnSection& resolved);

} // namespace tusk

#endif
