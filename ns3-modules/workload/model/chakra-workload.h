/*
 * tusk: a Chakra execution trace (chakra-trace.h) lowered into a transfer graph.
 *
 * Pure (no ns-3 objects, no Simulator). Every node of every rank becomes two triggers: its
 * start (a BARRIER over its dependencies, fired at the start when it has none) and its end;
 * a dependency edge is the parent's end activating the child's start (TriggerSpec::onFire).
 *   - COMP_NODE: ends duration_micros after it started (the trace's measured time, as
 *     ASTRA-sim's replay mode uses it, without its 1 ns floor for a zero duration).
 *     METADATA_NODE and INVALID_NODE end as they start (ASTRA-sim skips them).
 *   - COMM_COLL_NODE: the k-th collective node of every member of a communicator group (in
 *     file order) is one collective, lowered with WorkloadBuilder (its algorithm, channels and
 *     chunking). Its transfers start when every member has started its node (as NCCL's
 *     kernels of one collective meet); rank r's node ends when every transfer of the
 *     collective into r is delivered and every transfer out of r is acknowledged.
 *   - COMM_SEND_NODE / COMM_RECV_NODE: the k-th send from rank s to rank d with tag t meets
 *     the k-th receive of d from s with tag t; the one transfer of comm_size bytes starts when
 *     both have started (a rendezvous); the send ends when it is acknowledged, the receive when
 *     it is delivered.
 * Sizes: comm_size is S as nccl-tests uses it (collective-schedule.h). A collective of 0 bytes
 * moves nothing and ends as it starts.
 * Every node is listed in WorkloadSpec::timeline with its two triggers.
 *
 * Errors (ns3::InputError naming the rank's file and "node <id>"): an unsupported node type
 * (MEM_LOAD_NODE, MEM_STORE_NODE, STORAGE_NODE, BATCH_NODE, CHECKPOINT_NODE, unknown values),
 * an unsupported collective (REDUCE, GATHER, SCATTER, REDUCE_SCATTER_BLOCK, BARRIER), a
 * missing comm_type / comm_size / comm_src / comm_dst, a dependency on a node that does not
 * exist, a dependency cycle, an unknown communicator group or one the rank is not in,
 * collectives that do not match across the members of a group, sends and receives that do
 * not pair up.
 */
#ifndef TUSK_CHAKRA_WORKLOAD_H
#define TUSK_CHAKRA_WORKLOAD_H

#include "chakra-trace.h"
#include "workload-builder.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/** How a trace set is run. */
struct ChakraWorkloadOptions
{
    std::vector<uint32_t> hosts; //!< host of every rank (one per file), distinct
    /** Communicator groups by pg_name: the ranks of each, in rank order within the group
     *  (ASTRA-sim's comm-group file). "" and "0" are every rank and need no entry. */
    std::map<std::string, std::vector<uint32_t>> commGroups;
    /** Collective algorithm for the kinds that have it ("" = each kind's default, "auto" =
     *  AutoCollectiveAlgorithm); a kind without it uses its default. */
    std::string algorithm;
    ExecutionOptions exec;
    /** Algorithm "auto" only: the ranks per server (NVLink domain) and whether the switches
     *  aggregate (in-network reduction), as AutoCollectiveAlgorithm takes them. */
    uint32_t ranksPerServer = 1;
    double linkGBps = 50; //!< the NIC line rate, GB/s
    bool innetworkReduction = false;
    /** In-network reduction (algorithm "in-network", or "auto" picking it): per host id, the
     *  host of its leaf's aggregation endpoint, and the root's (JobSpec has the same); empty =
     *  the switches do not aggregate. */
    std::vector<uint32_t> aggregationEndpointOf;
    uint32_t aggregationRoot = UINT32_MAX;
};

/**
 * \brief Append the transfers, collectives, triggers and timeline of a trace set (one
 * ChakraRankTrace per rank, rank order) to `spec` through `builder`.
 * \throws InputError as listed in the file comment; key "workload.hosts" when the host count
 *         is not the rank count
 */
void AppendChakraWorkload(WorkloadBuilder& builder,
                          WorkloadSpec& spec,
                          const std::vector<ChakraRankTrace>& ranks,
                          const ChakraWorkloadOptions& options);

} // namespace ns3

#endif
