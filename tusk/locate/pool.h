/*
 * tusk locate over several runs of one fabric (`tusk locate DIR DIR ...`; docs/locate.md,
 * "Several runs of one fabric"): an operator collects a sprayed fabric's telemetry over many
 * steps, and a fault too small to stand out in one step (a cable losing 1 % of its frames: a
 * few lost copies a run) adds up over several. The runs' evidence is pooled, not their
 * verdicts: paths.csv rows and flows.csv rows are concatenated, each keeping its run (a QP of
 * run 2 is not the same QP as run 1's, and its paths are compared with its own siblings only),
 * and ar.csv counters are summed per egress and candidate-set size. The statistics then see
 * the sums: a loss class's lost copies and packets add up (FitLossClasses), the delay fit gets
 * every run's paths, and completion times are laid end to end in time (run k after run k - 1's
 * last event), so no flow of one run shares a link with another run's flows.
 *
 * Valid when the runs are of the same fabric (links.csv's names, the MTU and the configured
 * link rates identical: checked) and the fault was there during all of them (not checked: a
 * fault that came or went is diluted by the runs without it, as one long run dilutes it).
 */
#ifndef TUSK_LOCATE_POOL_H
#define TUSK_LOCATE_POOL_H

#include "locate/ar-signals.h"
#include "locate/observations.h"
#include "locate/path-signals.h"

#include <string>
#include <vector>

namespace tusk
{
namespace locate
{

/**
 * \brief Check that `run` (read from `dir`) is of the fabric of `first` (read from
 * `firstDir`): the same links.csv rows (`link_id, from, to`), MTU and configured link rates.
 * \throws ns3::InputError naming `dir`'s links.csv or manifest.json and what differs
 */
void CheckSameFabric(const Observations& first, const std::string& firstDir,
                     const Observations& run, const std::string& dir);

/**
 * \brief The observations of several runs of one fabric as one: flows concatenated, run k's
 * times shifted after run k - 1's horizon (plus 1 ms), each flow's run in `run` and its id
 * prefixed `runK/` (K from 1) when there are several. One run is returned as it is.
 * Call CheckSameFabric first.
 */
Observations PoolObservations(std::vector<Observations> runs);

/** \brief paths.csv rows of several runs as one table: concatenated, each row's `run` its
 *  run's index (0-based). */
std::vector<PathObservation> PoolPathRows(std::vector<std::vector<PathObservation>> runs);

/** \brief ar.csv rows of several runs as one table: per (egress, candidate-set size) the sum of
 *  offered, decisions, packets, bytes and steered packets; in the order of first appearance.
 *  One run is returned as it is. */
std::vector<ArObservation> PoolArRows(std::vector<std::vector<ArObservation>> runs);

} // namespace locate
} // namespace tusk

#endif
