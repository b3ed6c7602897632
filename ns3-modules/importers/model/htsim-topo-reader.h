/*
 * tusk: importer for htsim topology descriptions (`.topo`); the semantics and the deviations
 * from htsim are documented in htsim-topo-reader.cc.
 */
#ifndef TUSK_HTSIM_TOPO_READER_H
#define TUSK_HTSIM_TOPO_READER_H

#include "fabric/model/topology-graph.h"

#include <string>

namespace ns3
{

/**
 * \brief Read an htsim topology description (`.topo`, as in uet-htsim
 * htsim/sim/datacenter/topologies/): `Nodes`, `Tiers`, `Podsize`, then per `Tier i` block
 * `Downlink_speed_Gbps`, `Radix_Down`, `Radix_Up`, `Downlink_Latency_ns`, `Switch_Latency_ns`,
 * `Oversubscribed`, `Bundle`; `#` starts a comment. Builds the same 2- or 3-tier Clos htsim
 * builds from it.
 *
 * Vertex order and names as the builders: hosts, then ToRs ("tor<i>", or "leaf<i>" for 2
 * tiers), aggregation switches ("agg<i>" / "spine<i>"), core switches ("core<i>"). The exact
 * semantics and the deviations from htsim are documented in htsim-topo-reader.cc.
 *
 * \throws InputError naming the file, line and key on any malformed or inconsistent line
 * (line 0 and an empty key when the file cannot be opened).
 */
TopologyGraph ReadHtsimTopo(const std::string& path);

} // namespace ns3

#endif // TUSK_HTSIM_TOPO_READER_H
