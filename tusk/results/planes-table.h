/*
 * tusk: planes.csv, the results of a multi-plane fabric per plane.
 */
#ifndef TUSK_PLANES_TABLE_H
#define TUSK_PLANES_TABLE_H

#include "run/runner.h"

#include <string>
#include <string_view>
#include <vector>

namespace tusk
{

/**
 * \brief The plane of a node as links.csv names it: k for a switch of plane k ("p2.leaf3" is
 * 2), -1 for a name without a plane prefix (hosts, switches of a one-plane fabric, "p.x",
 * "pod0.leaf1").
 */
int PlaneOfNodeName(std::string_view name);

/**
 * \brief planes.csv of a run (docs/results-format.md, "planes.csv"): one row per plane, in plane
 * order, summed over the rows of links.csv whose switch end is in that plane (a host link
 * belongs to the plane of its switch; no link joins two planes).
 *
 * Columns: plane; links (directed rows); host_tx_bytes (bytes the NICs sent into the plane,
 * B); host_rx_bytes (bytes the plane delivered to NICs, B); host_share (host_tx_bytes / the
 * NICs' bytes over all planes); fabric_tx_bytes (switch-to-switch, B); uplink_util_mean and
 * uplink_util_max (mean of the uplinks' mean utilisation, largest utilisation window of any
 * uplink, 0..1); uplink_imbalance (the most loaded uplink's bytes / the mean uplink's, empty
 * without uplink bytes); max_queue_bytes (B); drops (frames, every reason); ecn_marks;
 * pfc_pause_tx (XOFF frames sent).
 *
 * \return "" when no row names a plane (a one-plane fabric writes no planes.csv)
 */
std::string PlanesCsv(const std::vector<LinkRow>& links);

/** Whether some row of `links` names a plane: whether the run writes planes.csv. */
bool HasPlanes(const std::vector<LinkRow>& links);

} // namespace tusk

#endif
