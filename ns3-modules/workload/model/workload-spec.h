/*
 * tusk: a workload as a plain transfer graph (no ns-3 objects).
 *
 * Generators (collectives, permutation, incast) and importers (htsim .cm) produce a
 * WorkloadSpec; the WorkloadApp executes it on RdmaNics. A transfer starts at its start time,
 * or, if it waits on a trigger, when that trigger fires (plus its start time as a delay).
 * Completing transfers activate triggers on send-done (last byte acknowledged at the sender)
 * and recv-done (last byte delivered at the receiver). This is htsim's trigger model
 * (oneshot / multishot / barrier) and also expresses collective step dependencies.
 */
#ifndef TUSK_WORKLOAD_SPEC_H
#define TUSK_WORKLOAD_SPEC_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

struct TriggerSpec
{
    enum Kind : uint8_t
    {
        ONESHOT,   //!< fires once, on its first activation, starting every waiting transfer
        MULTISHOT, //!< each activation starts the next not-yet-started waiting transfer
        BARRIER    //!< fires once, when activated `threshold` times
    };

    Kind kind = ONESHOT;
    uint32_t threshold = 1; //!< activations needed (BARRIER); 1 otherwise
    uint64_t externalId = 0; //!< id in the source file, for messages
    /** Fires when the executor starts, needing no activation (ONESHOT and BARRIER only): a
     *  node of a dependency graph without parents. */
    bool atStart = false;
    /** Triggers this one activates, delayPs after it fired: a dependency graph's edges
     *  through a node that is not a transfer (a compute node of delayPs, or 0). */
    std::vector<uint32_t> onFire;
    uint64_t delayPs = 0; //!< see onFire, ps
};

struct TransferSpec
{
    uint64_t externalId = 0; //!< id shown in results (htsim connection id, or generated)
    uint32_t src = 0;        //!< source host id
    uint32_t dst = 0;        //!< destination host id
    uint64_t bytes = 0;      //!< payload bytes (>= 1)
    uint64_t startPs = 0;    //!< absolute start time, or delay after the trigger fires, ps
    int32_t trigger = -1;    //!< index into WorkloadSpec::triggers to wait on, or -1
    std::vector<uint32_t> onSendDone; //!< triggers activated when the sender sees the last ACK
    std::vector<uint32_t> onRecvDone; //!< triggers activated when the last byte is delivered
    /** Transfers with equal (src, dst, qpGroup) share one connection (its QPs), in post order. */
    uint32_t qpGroup = 0;
    uint8_t priority = 3;    //!< traffic class (0..7)
    int32_t collective = -1; //!< index into WorkloadSpec::collectives, or -1
    int32_t step = -1;       //!< step of that collective, or -1
    int32_t channel = -1;    //!< channel of that collective, or -1
    /** QPs of its connection when the connection is created (0 = the executor's
     *  QpsPerConnection). A connection keeps the QP count of its first transfer. */
    uint32_t qps = 0;
    bool background = false; //!< background traffic (not part of any job)
};

struct CollectiveSpec
{
    std::string kind;           //!< "ring-allreduce", "all-reduce", "all-gather", ...
    std::vector<uint32_t> ranks; //!< host id of each rank (of channel 0's rank order)
    uint64_t bytesPerRank = 0;  //!< S, the per-rank buffer size as nccl-tests uses it, bytes
    double busbwFactor = 1.0;   //!< busbw = algbw * factor (nccl-tests PERFORMANCE.md)
    uint32_t channels = 1;
    uint32_t steps = 0;         //!< number of sequential steps
    std::string algorithm;      //!< "ring", "halving-doubling", ... ("" = implied by kind)
    uint32_t slices = 1;        //!< pipelining chunks per op and channel
    int32_t job = -1;           //!< index into WorkloadSpec::jobs, or -1
    int32_t iteration = -1;     //!< iteration of that job, or -1
    std::string name;           //!< label within the job ("layer3.wg", "grad-sync", ...)
    std::string group;          //!< process group ("dp0", "tp3", "world", ...)
};

/** A training job of the workload (see job-model.h). */
struct JobInfo
{
    std::string name;
    std::vector<uint32_t> hosts; //!< host of each rank
    uint32_t tp = 1;             //!< tensor-parallel degree
    uint32_t pp = 1;             //!< pipeline-parallel degree
    uint32_t dp = 1;             //!< data-parallel degree
    uint32_t ep = 1;             //!< expert-parallel degree
    uint32_t iterations = 1;
    uint64_t startPs = 0;        //!< when its first iteration starts, ps
    std::string placement;       //!< how its ranks were placed
    std::string source;          //!< where its iteration came from ("scenario", a SimAI file)
    std::string note;            //!< anything the manifest must state (DP scaling of an import)
};

/**
 * \brief One node of an execution-trace workload (a Chakra trace, chakra-workload.h) whose
 * start and end are the times two triggers fire: the results' per-rank node timeline.
 */
struct TimelineNodeSpec
{
    uint32_t rank = 0;        //!< the trace's rank (its file)
    uint64_t nodeId = 0;      //!< the node id in that file
    std::string name;         //!< the node's name
    std::string type;         //!< "compute", "collective", "send", "recv", "metadata", "invalid"
    std::string detail;       //!< the collective kind and bytes, or the peer and bytes
    uint32_t startTrigger = 0; //!< fires when every dependency has ended
    uint32_t endTrigger = 0;   //!< fires when the node has ended
};

struct WorkloadSpec
{
    std::string description;
    std::vector<TransferSpec> transfers;
    std::vector<TriggerSpec> triggers;
    std::vector<CollectiveSpec> collectives;
    std::vector<JobInfo> jobs;
    std::vector<TimelineNodeSpec> timeline; //!< execution-trace nodes (empty otherwise)
};

} // namespace ns3

#endif
