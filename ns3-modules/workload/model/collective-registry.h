/*
 * tusk: collective algorithms by (kind, algorithm): one table of builders.
 *
 * Every algorithm of every collective kind is one registration: its kind (a canonical name of
 * CollectiveKinds()), its algorithm name, its rank among the kind's algorithms (the lowest is
 * the kind's default), a description and source for `tusk kinds`, and the builder that turns a
 * CollectiveRequest into a CollectiveSchedule (collective-schedule.h). The built-in algorithms
 * are one table in collective-registry.cc; an algorithm of one's own registers with one static
 * CollectiveAlgorithmRegistration in its own file (or plugin), as policies and congestion
 * controls do (docs/extending.md, "A collective algorithm"). CollectiveAlgorithms(),
 * MakeCollectiveSchedule(), the scenario reader's choices and `tusk kinds` read this table.
 *
 * "auto" (ChooseCollectiveAlgorithm) is not an algorithm: it picks one of the registered
 * all-reduce algorithms by NCCL's tuning model (see AutoAllReduceAlgorithm).
 */
#ifndef TUSK_COLLECTIVE_REGISTRY_H
#define TUSK_COLLECTIVE_REGISTRY_H

#include "collective-schedule.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/** One (kind, algorithm) and its builder. */
struct CollectiveAlgorithmInfo
{
    std::string name;   //!< "<kind>/<algorithm>", the registry key (set by the registration)
    std::string typeId; //!< the builder's name, for messages ("RingAllReduceSchedule")
    std::string kind;   //!< canonical kind ("all-reduce")
    std::string algorithm; //!< "ring"
    uint32_t order = 0;    //!< position among the kind's algorithms; the lowest is the default
    std::string description; //!< one line for `tusk kinds`
    std::string source;      //!< where it comes from
    /** The schedule of a request whose kind and algorithm are this one's. Throws InputError
     *  "collective.*" for arguments it cannot take. */
    std::function<CollectiveSchedule(const CollectiveRequest&)> build;
};

/**
 * \brief Registers a collective algorithm when its library loads:
 *   `const CollectiveAlgorithmRegistration kReg{{"", "MyAllReduce", "all-reduce", "mine", 10,
 *        "what it does", "where from", &MyAllReduceSchedule}};`
 * (name is filled in as "<kind>/<algorithm>"). Aborts at load time if the pair is taken, the
 * kind is not a collective kind or the builder is empty (a programming error).
 */
class CollectiveAlgorithmRegistration
{
  public:
    CollectiveAlgorithmRegistration(CollectiveAlgorithmInfo info); // NOLINT: implicit for the table
};

/** Every registered (kind, algorithm), sorted by kind then order. */
std::vector<CollectiveAlgorithmInfo> CollectiveAlgorithmTable();

/** The registration of (kind, algorithm) (kind canonical, algorithm exact); nullptr if none. */
const CollectiveAlgorithmInfo* FindCollectiveAlgorithm(const std::string& kind,
                                                       const std::string& algorithm);

/** What AutoAllReduceAlgorithm needs to know about the communicator and the fabric. */
struct AutoAlgorithmInput
{
    uint32_t ranks = 0;          //!< n
    uint64_t bytes = 0;          //!< S
    uint32_t ranksPerServer = 1; //!< ranks sharing one server (NVLink) domain; nNodes = n / this
    double linkGBps = 50;        //!< bus bandwidth of the network (the NIC line rate), GB/s
    bool innetworkReduction = false; //!< the switches aggregate (CollNet/SHARP) — when an
                                     //!< "in-network" algorithm is registered
};

/** Per-algorithm estimate of NCCL's model, for tests and documentation. */
struct AutoAlgorithmEstimate
{
    std::string algorithm;
    double latencyUs = 0;
    double algBwGBps = 0;
    double timeUs = 0;
};

/**
 * \brief NCCL's tuning model for all-reduce, Simple protocol (NCCL src/graph/tuning.cc,
 * ncclTopoTuneModel and ncclTopoGetAlgoTime): time = latency + S / (1000 * algBw) µs with
 *   ring: algBw = busBw * n / (2(n-1)); latency = 8.4 + (2(n-1) - 2(N-1)) * 3.4 + 2(N-1) * 9.6,
 *         times 1.9 when N > 1 and S >= n/16 * 65536 (the ring's plateau);
 *   tree (double binary tree): algBw = 0.5 * min(0.9 * busBw, N > 2 ? 80 : 110) * c(S), with
 *         NCCL's tree correction factor c for the Simple protocol by log2(S / 64);
 *         latency = 2 * ((n/N - 1) * 28 + floor(log2 N) * 50);
 *   in-network (CollNet): algBw = 0.5 * 0.9 * busBw; latency = 2 (n/N - 1) * 4.0 + 10.7;
 * N = n / ranksPerServer nodes, busBw = linkGBps, latencies in µs (NVLink inside a node, NET
 * across). \return the estimates of the candidates, fastest first (ties: ring, tree,
 * in-network). Only the Simple protocol is modelled (LL and LL128 are not).
 */
std::vector<AutoAlgorithmEstimate> AutoAllReduceEstimates(const AutoAlgorithmInput& in);

/** \brief The fastest of AutoAllReduceEstimates: "ring", "double-binary-tree" or "in-network". */
std::string AutoAllReduceAlgorithm(const AutoAlgorithmInput& in);

/**
 * \brief The algorithm a collective runs: `requested` if the kind has it, "" or a name the
 * kind lacks -> its default (so one workload-wide choice applies where it can), "auto" ->
 * AutoAllReduceAlgorithm for an all-reduce and the default for other kinds.
 */
std::string ChooseCollectiveAlgorithm(const std::string& kind,
                                      const std::string& requested,
                                      const AutoAlgorithmInput& in);

} // namespace ns3

#endif
