/*
 * tusk: importers for the HPCC simulator's topology.txt and flow.txt
 * (alibaba-edu/High-Precision-Congestion-Control, simulation/mix/; read as its
 * third.cc reads them: exactly the counts the first line announces, the rest of the file is
 * ignored, as HPCC ignores the explanation at the end of its sample files).
 *
 * topology.txt: "N_nodes N_switches N_links", then the N_switches switch node ids, then N_links
 * lines "src dst rate delay error_rate" with rate like "100Gbps" (bps, Kbps, Mbps, Gbps, Tbps)
 * and delay like "0.001ms" (s, ms, us, ns, ps).
 * flow.txt: "N_flows", then N_flows lines "src dst priority dport size_bytes start_s".
 *
 * Node ids: HPCC numbers hosts and switches together. tusk's hosts come first, so host h is
 * the h-th non-switch node in increasing node id; switches follow in increasing node id.
 * Vertex names: "host<h>" and "node<id>" for switches. Flow endpoints are node ids, mapped the
 * same way (HpccTopology::hostOfNode).
 */
#ifndef TUSK_HPCC_READER_H
#define TUSK_HPCC_READER_H

#include "workload/model/workload-spec.h"

#include "fabric/model/topology-graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** An HPCC topology and its node numbering. */
struct HpccTopology
{
    TopologyGraph graph;
    std::vector<int64_t> hostOfNode; //!< HPCC node id -> tusk host id, -1 for switches
    std::vector<uint32_t> nodeOfVertex; //!< tusk vertex (hosts, then switches) -> HPCC node id
};

/**
 * \brief Read an HPCC topology.txt. Switch tiers: 1 next to a host, else one more than the
 * lowest tier among its neighbours.
 * \throws InputError(path, line, key, ...) for an unreadable file, bad counts, an id out of
 *         range, a malformed rate or delay, a non-zero error_rate (per-link loss is not read
 *         from topology files), a host with other than one link (tusk hosts have one NIC), a
 *         link between two hosts, or a file that ends before the announced links.
 */
HpccTopology ReadHpccTopology(const std::string& path);

/**
 * \brief Read an HPCC flow.txt: flow i becomes transfer i (externalId = qpGroup = i) from
 * host hostOfNode[src] to host hostOfNode[dst], priority = the file's priority group, port =
 * its dport (kept for the simulator's fct.txt, which the analysis script filters by it),
 * startPs = start_s * 1e12. An empty hostOfNode maps node id k to host k.
 * \throws InputError(path, line, key, ...) for a malformed line, a switch or unknown node as an
 *         endpoint, a flow to itself, a zero size, a priority above 7, a negative start, or a
 *         file that ends before the announced flows.
 */
std::vector<TransferSpec> ReadHpccFlows(const std::string& path,
                                        const std::vector<int64_t>& hostOfNode);

/** \brief A link rate as ns-3's DataRate spells it, which HPCC reads it with: "100Gbps",
 *  "100Gb/s" -> 1e11; "12.5GBps" (bytes) -> 1e11; "1Gib/s" -> 2^30; prefixes k/K, M, G,
 *  Ki, Mi, Gi, and T beyond ns-3. \return false if malformed */
bool ParseHpccRate(const std::string& text, uint64_t& bps);
/** \brief "0.001ms" -> 1e6 ps. \return false if malformed */
bool ParseHpccDelay(const std::string& text, uint64_t& ps);

} // namespace ns3

#endif
