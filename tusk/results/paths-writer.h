/*
 * tusk: paths.csv ([output] path_telemetry = true), per sending QP and entropy value
 * (docs/results-format.md, "paths.csv").
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

} // namespace tusk

#endif
