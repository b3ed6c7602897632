/*
 * tusk locate: which evidence `--evidence auto` ranks from, and why, stated with the numbers
 * its rule looked at (docs/locate.md, "Which evidence"; results-format.md, `evidence_choice`).
 *
 * The rule, in order (each step is looked at only when the ones before it did not choose):
 *  0. probes.csv, when every run has it (`[probes]`, since 2026-12-07): the probes' paths are
 *     pinned and cross links the traffic avoids or never crosses, so their losses and delays
 *     are each path's own; paths.csv's rows join them where every run has it;
 *  1. ar.csv, when it exists, its switches steered (ArHasAdaptiveDecisions) and at least half of
 *     its egresses made enough decisions to be judged (ArJudgedShare >= 0.5), unless (since
 *     2026-12-06) it names no egress while flows lost frames (resends that were neither
 *     spurious nor still in flight): ar.csv sees only what the switches steered away from, and
 *     a link that loses frames without being slower is not avoided;
 *  2. paths.csv, when it exists and at least half of its QPs used two or more paths side by side
 *     (PathsComparable): per-path RTTs and losses;
 *  3. paths.csv's losses only, when at least half of the QPs that lost copies (and at least one)
 *     were rerouted (AutoPathEvidence, PathEvidence::LossesOnly) and the first class the loss
 *     fit names tells a rerouted lossy QP's routes apart (TellsReroutedRoutesApart);
 *  4. else flow completion times (flows.csv).
 * ExplainEvidence applies it to the facts Decide (locate-command.cc) gathered, so what is said
 * is what chose.
 */
#ifndef TUSK_LOCATE_EVIDENCE_CHOICE_H
#define TUSK_LOCATE_EVIDENCE_CHOICE_H

#include "locate/path-signals.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tusk
{
namespace locate
{

/** What the rule looked at; a step not reached keeps its defaults. */
struct EvidenceFacts
{
    std::string option = "auto"; //!< --evidence: auto, ar, paths, probes or flows
    /** Step 0: every run has probes.csv; its streams, and paths.csv's rows read with them. */
    bool probesPresent = false;
    /** Some run's probes.csv has no stream with a route (hosts with several NIC ports). */
    bool probesWithoutRoutes = false;
    size_t probeStreams = 0;
    size_t probePaths = 0;
    bool arPresent = false;      //!< every run has ar.csv
    bool arRead = false;         //!< ar.csv was read (its numbers below are set)
    bool arSteered = false;      //!< ArHasAdaptiveDecisions
    double arJudgedShare = 0;    //!< ArJudgedShare, 0..1
    /** Step 1 (ar.csv steered and judged): the egresses LocateFromAr named. */
    uint32_t arNamed = 0;
    /** Flows that resent frames they lost (retx_packets - spurious_retx - pkts_in_flight > 0,
     *  flows.csv): whether ar.csv's silence can hide a lossy link. */
    uint32_t flowsThatLost = 0;
    bool pathsPresent = false;   //!< every run has paths.csv
    bool pathsRead = false;      //!< paths.csv was read (`paths` is set)
    PathEvidenceCounts paths;
    /** Step 3 (paths.evidence == LossesOnly, the loss fit run): the directed links of the
     *  first class named for losses (none: no class was), and whether it tells apart a
     *  rerouted lossy QP's routes. */
    std::optional<std::vector<uint32_t>> firstLossClass;
    bool tellsRoutesApart = false;
};

/** The evidence chosen and why. */
struct EvidenceChoice
{
    std::string option;   //!< --evidence as given
    std::string evidence; //!< ar, paths, probes or flows
    /** The step that chose: "asked" (not auto), "probes_present", "ar_steered", "paths_side_by_side",
     *  "paths_rerouted_losses", "flows_no_paths", "flows_paths_not_comparable",
     *  "flows_loss_class_shared" (step 3's class crosses every route of each rerouted lossy
     *  QP, or none was named). */
    std::string rule;
    /** One line: the evidence, then each step looked at with its numbers, "; " between. */
    std::string reason;
    /** The numbers by name (results-format.md, `evidence_choice`). */
    nlohmann::json numbers = nlohmann::json::object();
};

/** \brief Apply the rule to `f` (see the file comment). `links` names step 3's class. With
 *  an option other than auto, that evidence, rule "asked". */
EvidenceChoice ExplainEvidence(const EvidenceFacts& f, const LinkIndex& links);

/** The JSON object `evidence_choice`: option, evidence, rule, reason and the numbers. */
nlohmann::json EvidenceChoiceJson(const EvidenceChoice& c);

} // namespace locate
} // namespace tusk

#endif
