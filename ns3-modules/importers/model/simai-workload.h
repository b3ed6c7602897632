/*
 * tusk: importer for SimAI / AICB workload files (aliyun/SimAI, example/ directory).
 *
 * Format, as astra-sim-alibabacloud/astra-sim/workload/Workload.cc reads it:
 *   line 1: the parallelism policy (HYBRID_TRANSFORMER_FWD_IN_BCKWD or HYBRID_TRANSFORMER),
 *           then "key: value" pairs: model_parallel_NPU_group (TP), ep, pp, vpp, ga, all_gpus,
 *           checkpoints, checkpoint_initiates, optionally pp_comm (bytes of a pipeline send);
 *   line 2: the number of layer lines;
 *   then one line per layer, 12 whitespace-separated columns:
 *     name  dependency  fwd_compute  fwd_comm  fwd_bytes  ig_compute  ig_comm  ig_bytes
 *           wg_compute  wg_comm  wg_bytes  wg_update
 *   compute times in ns (SimAI's tick; at most 1e15 each); comm = NONE, ALLREDUCE,
 *   ALLGATHER, REDUCESCATTER, ALLTOALL, each optionally suffixed _EP or _DP_EP; bytes as
 *   nccl-tests' S.
 *
 * Process groups (SimAI's MockNccl): forward and input-gradient collectives without a suffix
 * run on the TP group, weight-gradient ones on SimAI's DP group (all_gpus / (TP * PP) ranks);
 * _EP on the EP group; _DP_EP on the DP_EP group (DP / EP ranks). In tusk's job model
 * (TP * PP * DP * EP = ranks) SimAI's DP group is "dpep", its DP_EP group is "dp" and tusk's
 * DP degree is all_gpus / (TP * PP * EP).
 *
 * Iteration (SimAI's fwd-in-backward loop, simplified): for every layer in order its forward
 * compute then its forward collective (blocking); then for every layer in reverse order its
 * input-gradient compute and collective (blocking), then its weight-gradient compute and
 * collective (non-blocking: it overlaps the rest of the backward pass); the iteration ends
 * when every collective is done. With pp > 1 and pp_comm > 0, a pipeline send of pp_comm
 * bytes between adjacent stages follows the forward pass and the backward pass.
 * Not modelled: vpp, ga (one pass per iteration; vpp > 1 with pp > 1, or ga > 1, is a
 * warning, SimAiWorkload::warnings), checkpoint recomputation, wg_update time (added to the
 * weight-gradient compute), the dependency column.
 */
#ifndef TUSK_SIMAI_WORKLOAD_H
#define TUSK_SIMAI_WORKLOAD_H

#include "workload/model/job-model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** One layer line. */
struct SimAiLayer
{
    std::string name;
    int64_t dependency = -1;
    uint64_t fwdComputeNs = 0;
    std::string fwdComm = "NONE";
    uint64_t fwdBytes = 0;
    uint64_t igComputeNs = 0;
    std::string igComm = "NONE";
    uint64_t igBytes = 0;
    uint64_t wgComputeNs = 0;
    std::string wgComm = "NONE";
    uint64_t wgBytes = 0;
    uint64_t wgUpdateNs = 0;
    unsigned line = 0; //!< 1-based line in the file
};

/** A parsed workload file. */
struct SimAiWorkload
{
    std::string file;
    std::string policy;     //!< first token of line 1
    uint32_t tp = 1;        //!< model_parallel_NPU_group
    uint32_t ep = 1;
    uint32_t pp = 1;
    uint32_t vpp = 1;
    uint32_t ga = 1;
    uint32_t allGpus = 0;
    uint64_t ppCommBytes = 0;
    std::vector<SimAiLayer> layers;
    /** Header values the import does not model and that change SimAI's iteration (vpp > 1
     *  with pp > 1, ga > 1), one sentence each naming file, line and key ("FILE:1: ga: ..."): the caller
     *  adds them to the run's warnings. */
    std::vector<std::string> warnings;

    /** tusk's DP degree at all_gpus ranks: all_gpus / (tp * pp * ep). */
    uint32_t Dp() const { return allGpus / (tp * pp * ep); }
};

/**
 * \brief Read a SimAI workload file.
 * \throws InputError(path, line, key, message) for an unreadable file, an unknown policy, a
 *         missing or non-positive header size, an inconsistent header (TP * PP * EP not
 *         dividing all_gpus, EP not dividing SimAI's DP), a layer count that does not match,
 *         a line without 12 columns, a bad number or an unknown comm type. Keys: "header",
 *         "layers", or the column name ("fwd_comm", "wg_bytes", ...).
 */
SimAiWorkload ReadSimAiWorkload(const std::string& path);

/** Collective kind and tusk process group of a comm column ("ALLTOALL_EP", phase "wg"). */
struct SimAiComm
{
    std::string kind;  //!< "" for NONE
    std::string group; //!< "tp", "ep", "dp" or "dpep"
};

/**
 * \brief Map a comm column. phase: "fwd", "ig" or "wg".
 * \throws InputError(file "", line 0, key "<phase>_comm") for an unknown type
 */
SimAiComm MapSimAiComm(const std::string& comm, const std::string& phase);

/**
 * \brief The parallel degrees of the workload mapped onto `ranks` ranks: TP, PP and EP from the
 * header, DP = ranks / (TP * PP * EP): mapping a large workload onto fewer ranks (or more)
 * keeps every group size and per-rank collective size except the data-parallel degree.
 * \param[out] note a sentence for the manifest when DP differs from the file's
 * \throws InputError key "ranks" when TP * PP * EP does not divide `ranks`
 */
ParallelDegrees SimAiDegrees(const SimAiWorkload& w, uint32_t ranks, std::string* note);

/** \brief The job's iteration (see the file comment); layer names become collective names
 *  "<layer>.fwd", "<layer>.ig", "<layer>.wg". */
std::vector<JobCollective> SimAiIteration(const SimAiWorkload& w);

} // namespace ns3

#endif
