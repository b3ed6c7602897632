/*
 * tusk: the telemetry tables. paths.csv ([output] path_telemetry = true), per sending QP and
 * entropy value (docs/results-format.md, "paths.csv"); ar.csv ([output] ar_telemetry = true),
 * per switch, egress port, candidate count and reason ("ar.csv"); probes.csv ([probes]), per
 * probe stream ("probes.csv").
 */
#ifndef TUSK_RESULTS_PATHS_WRITER_H
#define TUSK_RESULTS_PATHS_WRITER_H

#include "run/runner.h"

#include <string>

namespace tusk
{

/** The header line of paths.csv (with its newline). */
extern const char* const kPathsCsvHeader;

/** paths.csv as text, one row per RunResult::pathTelemetry row (deterministic). */
std::string PathsCsv(const RunResult& r);

/** Write `dir`/paths.csv when the run collected path telemetry; whether it did. */
bool WritePathTelemetry(const RunResult& r, const std::string& dir);

/** The header line of ar.csv (with its newline): the counts, then `pkts_<reason>` per
 *  ns3::EgressReason in its order. */
std::string ArCsvHeader();

/** ar.csv as text, one row per RunResult::arTelemetry row (deterministic). */
std::string ArCsv(const RunResult& r);

/** Write `dir`/ar.csv when the run asked for AR telemetry; whether it did. */
bool WriteArTelemetry(const RunResult& r, const std::string& dir);

/** The header line of probes.csv (with its newline). */
extern const char* const kProbesCsvHeader;

/** probes.csv as text, one row per RunResult::probes row (deterministic). */
std::string ProbesCsv(const RunResult& r);

/** Write `dir`/probes.csv when the run sent probes ([probes]); whether it did. */
bool WriteProbes(const RunResult& r, const std::string& dir);

} // namespace tusk

#endif
