/*
 * tusk: questions asked of the whole knob table (internal to the tusk library): which keys
 * set an ns-3 attribute, which key a model parameter is, and the key reference of
 * docs/scenario-format.md.
 */
#ifndef TUSK_KNOB_TABLE_H
#define TUSK_KNOB_TABLE_H

#include "scenario/scenario-sections.h"

#include <string>
#include <vector>

namespace tusk
{

/** Full keys ("nic.receiver") of the knobs whose rows say they set attribute `path`. */
std::vector<std::string> KnobsSettingAttribute(const std::string& path);

/** KnobsSettingAttribute as text for messages ("nic.receiver or nic.transport"); "" if none. */
std::string ScenarioKeysSetting(const std::string& path);

/** Every ns-3 attribute some knob sets, sorted. */
std::vector<std::string> AttributesSetByKnobs();

/**
 * \brief The key (full, "topology.hosts_per_leaf") of the knob of block `blockId` that feeds
 * model parameter `param` ("LeafSpineParams.hostsPerLeaf"); "" if none does.
 */
std::string KnobForParam(const std::string& blockId, const std::string& param);

/** One block of the key reference as a Markdown table (with a trailing newline). */
std::string KeyReferenceMarkdown(const KnobBlock& block);

/**
 * \brief `doc` with every marked block of the key reference regenerated:
 *     <!-- keys: nic -->
 *     ...the table...
 *     <!-- /keys -->
 * \param[out] problems blocks of the table without a marker in `doc`, and markers naming no
 *             block (the doc is incomplete or stale: a test fails on them)
 */
std::string UpdateKeyReference(const std::string& doc, std::vector<std::string>& problems);

/**
 * \brief Every key as plain text, one line each: full key, type, unit, default and the ns-3
 * attributes it sets (`tusk keys`).
 */
std::string KeyListText();

} // namespace tusk

#endif
