/*
 * tusk: the comparison table `tusk run` and `tusk compare` print, and comparison.csv.
 */
#ifndef TUSK_COMPARISON_TABLE_H
#define TUSK_COMPARISON_TABLE_H

#include "run/runner.h"

#include <ostream>
#include <string>
#include <vector>

namespace tusk
{

/**
 * \brief One line naming the settings the policies were compared under, from a resolved
 * scenario: the transport and its receivers (the loss recovery used: nic.receiver on RoCE,
 * "sack-bitmap" on UEC RUD, "go-back-n" on UEC ROD), the congestion control, ECN marking (with its
 * thresholds when one set applies to every port rate) and PFC (its lossless priorities), or
 * InfiniBand's credit-based flow control. E.g. "settings: transport roce, go-back-n receivers;
 * cc none; ECN off; PFC on (lossless priorities 3)". Ends with a newline.
 */
std::string SettingsLine(const ScenarioSpec& spec);

/**
 * \brief Print the summary table of `runs` (one row per run, the columns of RunSummary: CCT,
 * bandwidths, slowdowns, FCTs, uplink balance, drops, PFC pauses, ECN marks, CNPs sent,
 * retransmissions, ...) and its legend to `os`. The CCT columns appear only when a run has a
 * collective.
 */
void PrintComparisonTable(const std::vector<RunResult>& runs, std::ostream& os);
/** \brief The table of one run (`tusk run`), without copying it (a run of many transfers
 *  holds a row per transfer). */
void PrintComparisonTable(const RunResult& run, std::ostream& os);

/**
 * \brief comparison.csv: a header and one row per run (docs/results-format.md); the last
 * columns name each run's transport, receiver, congestion control, ECN and PFC settings.
 */
std::string ComparisonCsv(const std::vector<RunResult>& runs);

} // namespace tusk

#endif // TUSK_COMPARISON_TABLE_H
