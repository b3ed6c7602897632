/*
 * `tusk locate --what-if`: what a hidden fault costs the fabric, as numbers (docs/locate.md,
 * "What a hidden fault costs"). For one suspect link of a run:
 *   - traffic moved: the bytes it carried against an even split over it and its siblings (the
 *     links from the same switch to the same tier), from the run's own telemetry (ar.csv,
 *     else paths.csv, else flows.csv's per-path packets), and against a no-fault re-run;
 *   - queueing elsewhere: RTT - base RTT (manifest path_classes) of the paths.csv rows whose
 *     paths avoid the suspect cable, median and 99th percentile, against the no-fault re-run;
 *   - two derived runs of the run's own scenario (its manifest), their [[failures]] and
 *     [[failure_rates]] replaced: "no fault", and "as found + one down" (the suspect cable
 *     degraded to the rate the evidence estimated, plus a sibling cable down: the next
 *     failure on the same tier); their CCT and FCTs beside the run's own.
 */
#ifndef TUSK_RESULTS_WHAT_IF_H
#define TUSK_RESULTS_WHAT_IF_H

#include "locate/locate-command.h"

#include <nlohmann/json.hpp>

namespace tusk
{

/**
 * \brief locate::WhatIfRunner: cost `q`'s suspect (see the file comment). Writes the derived
 * runs under q.outDir ("no-fault", "as-found-plus-down"), each a results folder.
 * \return the numbers as one JSON object (PrintWhatIf shows it)
 * \throws ns3::InputError for a run without a usable manifest.json, or a --what-if-down that
 *         names no cable of links.csv
 */
nlohmann::json RunWhatIf(const locate::WhatIfRequest& q);

} // namespace tusk

#endif
