/*
 * tusk locate: the table and JSON of a ranking from per-path telemetry (path-signals.h).
 */
#ifndef TUSK_LOCATE_PATH_REPORT_H
#define TUSK_LOCATE_PATH_REPORT_H

#include "locate/path-signals.h"

#include <ostream>
#include <string>

namespace tusk
{
namespace locate
{

/** The table: evidence line, counts, then the first `top` named classes (or "no suspect"). */
void PrintPathTable(const Observations& obs, const PathLocateResult& r,
                    const std::string& resultsDir, uint32_t top, std::ostream& out);
/** One JSON object: "evidence": "paths", the counts and `ranking` (first `top` classes). */
std::string PathJson(const Observations& obs, const PathLocateResult& r,
                     const std::string& resultsDir, uint32_t top);

} // namespace locate
} // namespace tusk

#endif
