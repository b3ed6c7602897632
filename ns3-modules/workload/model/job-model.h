/*
 * tusk: training jobs: placement of ranks on hosts, process groups, and the iteration loop.
 *
 * Pure (no ns-3 objects, no Simulator). A job is n ranks placed on hosts, a parallel layout
 * (TP, PP, DP, EP with TP * PP * DP * EP = n) from which its process groups follow, and an
 * iteration: an ordered list of collectives, each preceded by its compute time, repeated N
 * times. AppendJob lowers it with WorkloadBuilder into transfers and triggers:
 *
 *   - a collective starts `compute` after the previous blocking collective of the job has
 *     completed (every transfer of every one of its groups delivered), or after the job's
 *     start; a non-blocking collective (`blocking = false`, like gradient all-reduces that
 *     overlap backward compute) lets the next one start after its own compute only;
 *   - a collective on a process-group kind runs on every group of that kind at once;
 *   - an iteration ends when all of its collectives have completed; the next one starts with
 *     the iteration's compute time;
 *   - a collective with `every = H` (or on a dp/dpep group of a job with sync_every = H) runs
 *     only in iterations i with (i + 1) mod H == 0: periodic synchronisation as DiLoCo
 *     (Douillard et al. 2023) does it. Its compute time still counts in the other iterations.
 *
 * Rank order (Megatron-LM's default "tp-ep-dp-pp"): rank = tp + TP * (ep + EP * (dp + DP * pp)),
 * so a TP group is TP consecutive ranks (one server with contiguous placement).
 * Group kinds: "tp", "pp", "dp", "ep" vary one coordinate; "dpep" varies dp and ep (the
 * data-parallel group of dense, non-expert parameters); "world" is every rank. On a multi-site
 * fabric (JobSpec::siteOf), "site" groups the ranks placed on one site and "cross-site" the
 * ranks with the same local index (rank order within their site) on every site: the inner and
 * outer groups of DiLoCo (Douillard et al. 2023), whose outer all-reduce runs every
 * sync_every-th iteration as dp's does.
 */
#ifndef TUSK_JOB_MODEL_H
#define TUSK_JOB_MODEL_H

#include "workload-builder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** Parallel degrees of a job. dp = 0: derived as ranks / (tp * pp * ep). */
struct ParallelDegrees
{
    uint32_t tp = 1;
    uint32_t pp = 1;
    uint32_t dp = 0;
    uint32_t ep = 1;
};

/**
 * \brief The process groups of a job with n ranks.
 */
class ProcessGroups
{
  public:
    /**
     * \param ranks n >= 1
     * \param degrees TP, PP, DP (0 = derived), EP, each >= 1 (dp >= 0)
     * \throws InputError key "job.tp" / "job.pp" / "job.ep" (0), "job.dp" (the product
     *         TP * PP * DP * EP is not n, or n is not divisible by TP * PP * EP when DP is
     *         derived), with the product spelled out
     */
    ProcessGroups(uint32_t ranks, const ParallelDegrees& degrees);

    uint32_t Ranks() const { return m_ranks; }
    uint32_t Tp() const { return m_tp; }
    uint32_t Pp() const { return m_pp; }
    uint32_t Dp() const { return m_dp; }
    uint32_t Ep() const { return m_ep; }

    /** rank = tp + TP * (ep + EP * (dp + DP * pp)) */
    uint32_t Rank(uint32_t tp, uint32_t ep, uint32_t dp, uint32_t pp) const;

    /**
     * \brief The groups of a kind ("tp", "pp", "dp", "ep", "dpep", "world"), each listing its
     * ranks in increasing rank order; groups ordered by their first rank.
     * \throws InputError key "job.group" for another kind
     */
    std::vector<std::vector<uint32_t>> Groups(const std::string& kind) const;

    /** The group kinds Groups accepts. */
    static const std::vector<std::string>& Kinds();

  private:
    uint32_t m_ranks;
    uint32_t m_tp;
    uint32_t m_pp;
    uint32_t m_dp;
    uint32_t m_ep;
};

/** Where to put a job's ranks. */
struct PlacementRequest
{
    /** "contiguous": the first n hosts of the pool; "rack-aware": whole racks first, the racks
     *  with the most free hosts first (ties: lowest rack), hosts of a rack in pool order, so
     *  consecutive ranks share a rack; "random": a uniformly random n-subset of the pool in
     *  random order (seeded); "explicit": the pool itself is the placement (rank r on pool[r]). */
    std::string policy = "contiguous";
    uint32_t ranks = 0;             //!< n
    std::vector<uint32_t> pool;     //!< free hosts, distinct, in order of preference
    std::vector<uint32_t> rackOf;   //!< rack of every host id (rack-aware)
    uint64_t seed = 0;              //!< random
};

/**
 * \brief Place n ranks: the host of every rank.
 * \throws InputError key "job.placement" (unknown policy, or rackOf missing a host),
 *         "job.ranks" (n == 0, or more ranks than free hosts; explicit: n != pool size)
 */
std::vector<uint32_t> PlaceRanks(const PlacementRequest& request);

/** The placement policies PlaceRanks accepts. */
const std::vector<std::string>& PlacementPolicies();

/** One collective of a job's iteration. */
struct JobCollective
{
    std::string name;            //!< label in results ("" = the kind)
    std::string kind;            //!< collective kind (CanonicalCollectiveKind)
    std::string algorithm;       //!< "" = the kind's default
    std::string group = "world"; //!< process-group kind it runs on
    uint64_t bytes = 0;          //!< S, bytes (0: no traffic, only the compute time)
    uint64_t computePs = 0;      //!< compute before it starts, ps
    bool blocking = true;        //!< the next collective waits for it
    uint32_t every = 1;          //!< run only in iterations i with (i + 1) % every == 0
    uint32_t root = 0;           //!< broadcast root / incast destination / send-recv sender
    uint32_t peer = 1;           //!< send-recv receiver
    /** send-recv on a group: true = every rank r sends to r + 1 at once (a pipeline-parallel
     *  activation shift across stages), false = only root -> peer. */
    bool shift = true;
    /** hierarchical-ring ranks per server; 0 = the server size when the group is made of
     *  whole servers (blocks of consecutive members on one server), else 1 (a flat ring). */
    uint32_t localSize = 0;
};

/** A job, ready to lower. */
struct JobSpec
{
    std::string name;
    std::vector<uint32_t> hosts;  //!< host of every rank (PlaceRanks)
    ParallelDegrees degrees;
    uint32_t iterations = 1;
    uint64_t startPs = 0;         //!< start of the first iteration, ps
    uint64_t iterationComputePs = 0; //!< compute at the start of every iteration, ps
    uint32_t syncEvery = 1;       //!< DiLoCo H for collectives on dp and dpep groups
    ExecutionOptions exec;
    /** Rail-aligned rings: if a ring-algorithm group consists of whole servers (blocks of
     *  serverSize consecutive members on one server), channel c starts server s's part of the
     *  ring at local GPU (c - s) mod serverSize, so that every server-to-server hop joins two
     *  GPUs with the same local index (the same rail) and channels use different rails, as
     *  NCCL's rings on rail-optimised fabrics do. */
    bool railAlignedRings = false;
    std::vector<uint32_t> serverOf; //!< server of every host id; empty = no scale-up domain
    std::vector<uint32_t> siteOf;   //!< site of every host id; empty = one site
    uint64_t seed = 0;            //!< permutation collectives
    /** Collectives with algorithm "auto" only (ChooseCollectiveAlgorithm): the NIC line rate
     *  in GB/s, NCCL's bus bandwidth of the network. */
    double linkGBps = 50;
    /** Collectives with algorithm "auto" only: the job's switches aggregate (in-network
     *  reduction), so "auto" may pick it. */
    bool innetworkReduction = false;
    /** In-network reduction: per host id, the host id of the aggregation endpoint of its leaf
     *  (AggregationTree::leafEndpointOf, fabric/helper/in-network-endpoints.h); empty = the
     *  switches do not aggregate, and an "in-network" collective is refused. */
    std::vector<uint32_t> aggregationEndpointOf;
    /** In-network reduction: the host id of the root's aggregation endpoint. */
    uint32_t aggregationRoot = UINT32_MAX;
    std::vector<JobCollective> collectives;
    std::string placement;        //!< echoed into JobInfo
    std::string source = "scenario";
    std::string note;
};

/**
 * \brief The host order of channel c for a ring over `hosts` (see JobSpec::railAlignedRings).
 * Returns `hosts` unchanged when serverOf is empty, serverSize < 2, or the hosts are not whole
 * servers in blocks of serverSize.
 */
std::vector<uint32_t> RailAlignedRingOrder(const std::vector<uint32_t>& hosts,
                                           const std::vector<uint32_t>& serverOf,
                                           uint32_t serverSize,
                                           uint32_t channel);

/**
 * \brief The "site" or "cross-site" groups of ranks placed on `hosts` (rank r on hosts[r]),
 * `siteOf` giving the site of every host id: "site" = the ranks of one site, sites in order of
 * their first rank; "cross-site" group i = the i-th rank (in rank order) of every site that
 * has one. Ranks in increasing order within a group.
 * \throws InputError key "job.group" if siteOf is empty (not a multi-site fabric) or misses a
 *         host, or for another kind
 */
std::vector<std::vector<uint32_t>> SiteGroups(const std::vector<uint32_t>& hosts,
                                              const std::vector<uint32_t>& siteOf,
                                              const std::string& kind);

/**
 * \brief Lower a job into `builder`'s spec: its collectives (with job = jobIndex, iteration,
 * name and group "<kind><index>" set), barriers and start triggers; and a JobInfo appended to
 * spec.jobs.
 * \throws InputError from ProcessGroups ("job.*"), MakeCollectiveSchedule ("collective.*") and
 *         WorkloadBuilder ("workload.*"); key "job.collectives" when a collective's group
 *         kind does not exist
 */
void AppendJob(WorkloadBuilder& builder, WorkloadSpec& spec, const JobSpec& job);

} // namespace ns3

#endif
