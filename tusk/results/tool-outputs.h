/*
 * tusk: a run's per-flow results in the formats other simulators write, so that they can be
 * diffed against the tool a reviewer trusts ([output] formats; docs/results-format.md,
 * "Other tools' formats"):
 *
 * - "hpcc": fct.txt and pfc.txt as the HPCC simulator (alibaba-edu/High-Precision-Congestion-
 *   Control, simulation/scratch/third.cc qp_finish and get_pfc) writes them;
 * - "htsim": htsim_flows.txt, the line htsim (ultraethernet/uet-htsim, sim/uec.cpp
 *   UecSrc::checkFinished; sim/roce.cpp for RoCE) prints when a flow finishes.
 */
#ifndef TUSK_TOOL_OUTPUTS_H
#define TUSK_TOOL_OUTPUTS_H

#include "run/runner.h"

#include "fabric/model/topology-graph.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tusk
{

/** The HPCC simulator's IPv4 address of node `id` (third.cc node_id_to_ip). */
uint32_t HpccNodeIp(uint32_t id);

/**
 * \brief The HPCC simulator's base RTT and bottleneck of a host pair (third.cc CalculateRoute
 * and the pairRtt loop): a breadth-first search from `dst` through switches; the first path
 * found (links in IncidentLinks order); pairRtt = 2 x its propagation delay + one
 * `payloadBytes` payload (no headers) serialised at every hop, once (no ACK), each hop's time
 * rounded down to the ns; bandwidth = the path's slowest link. Switch forwarding latency is
 * left out (the simulator's switches have none). \return {pairRtt ns, bandwidth bit/s}, or
 * {0, 0} with no path.
 */
std::pair<uint64_t, uint64_t> HpccPairRtt(const ns3::TopologyGraph& graph,
                                          uint32_t srcHost,
                                          uint32_t dstHost,
                                          uint64_t payloadBytes);

/**
 * \brief The node id the imported topology file gives each tusk vertex (HPCC topology.txt:
 * hosts and switches numbered together), or empty when tusk's numbering is the file's.
 */
std::vector<uint32_t> ImportedNodeIds(const ScenarioSpec& spec);

/**
 * \brief fct.txt: one line per flow acknowledged in full, in order of completion, "sip dip
 * sport dport size start_ns fct_ns standalone_fct_ns" (%08x %08x %u %u %lu %lu %lu %lu):
 * addresses from node ids, source ports 10000, 10001, ... per source host in order of flow
 * start, the file's dport (100 when the workload has none: the analysis script's "normal"
 * flows), fct = last ACK - start (the sender's completion, as QpComplete), standalone_fct =
 * pairRtt + (size + packets x 48 B of headers) x 8 / bottleneck (qp_finish).
 */
std::string HpccFctTxt(const RunResult& r, const ns3::TopologyGraph& graph);

/**
 * \brief pfc.txt: one line per PFC frame received, "time_ns node node_type if_index type"
 * (%lu %u %u %u %u): the node whose port received it (and stops or resumes sending), 0 host /
 * 1 switch, its port numbered from 1 in the order of its links in the topology (ns-3 device
 * index; 0 is the loopback), 1 pause / 0 resume (get_pfc, QbbNetDevice::Receive).
 */
std::string HpccPfcTxt(const RunResult& r, const ns3::TopologyGraph& graph);

/**
 * \brief htsim_flows.txt: one line per flow acknowledged in full, in order of completion.
 * UEC transports (uec.cpp): "Flow Uec_SRC_DST flowId ID uecSrc K finished at T total
 * messages 1 total packets P RTS 0 total bytes B" (K = the flow's index, htsim's UecSrc
 * counter; P = packets, B = P x MTU payload as htsim counts); RoCE (roce.cpp): "Flow
 * Roce_SRC_DST ID finished at T total bytes B". T in µs of simulated time, printed as C++
 * streams print a double (6 significant digits).
 */
std::string HtsimFlowLines(const RunResult& r);

/** Write the files of r.spec.output.formats into `dir` (atomically, as the other tables). */
void WriteToolOutputs(const RunResult& r, const std::string& dir);

/** "HPCC simulator's pairRtt convention ...: 1 switch X µs; 3 switches Y µs\n" for the run's
 *  path classes, the line printed under tusk's base RTT ("" without path classes). */
std::string HpccPairRttLine(const RunResult& r);

} // namespace tusk

#endif
