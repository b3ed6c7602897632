/*
 * tusk: JobPlan, a training job lowered once per job instead of once per iteration.
 *
 * Pure (no ns-3 objects, no Simulator). A job's iterations differ only in which collective
 * entries run in them (an entry with `every = H` runs in iterations i with (i + 1) mod H == 0)
 * and in the ids their transfers, triggers and collectives get. The plan keeps what is computed
 * once per job (the schedules, hosts per channel and connections of every entry and process
 * group: NCCL communicators persist across iterations) and a table of 40 bytes per iteration:
 * the ids the iteration's transfers, triggers and collectives start at in a whole build, and
 * the trigger and delay its first collectives start with. The table is a prefix sum over
 * the iterations of the transfer, trigger and collective counts of each entry, counted once per
 * (entry, group) by lowering it once into a scratch spec.
 *
 * Two ways to lower an iteration, with the same result:
 *  - Append(builder, i): into the builder's spec, ids the spec's next ones (AppendJob's whole
 *    build: every iteration appended in order);
 *  - Expand(i): iteration i alone, as a WorkloadSpec whose transfers, triggers and collectives
 *    are exactly those a whole build puts at [Bases(i), Bases(i + 1)), every id and reference
 *    global (externalId, trigger, onRecvDone, onSendDone, collective), so an executor can build
 *    an iteration when it starts and free it when it has finished.
 */
#ifndef TUSK_JOB_PLAN_H
#define TUSK_JOB_PLAN_H

#include "job-model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class JobPlan
{
  public:
    /** Where an iteration's ids start in a whole build (indices into WorkloadSpec's arrays). */
    struct Bases
    {
        uint64_t transfer = 0;
        uint64_t trigger = 0;
        uint64_t collective = 0;
    };

    /**
     * \brief Plan `job` as the next job of `spec` (job index spec.jobs.size(), ids after what
     * `spec` holds now): the process groups, every entry's schedules, and the communicators'
     * connections, allocated from `builder` (which must be the builder of `spec`) in the order
     * AppendJob allocates them.
     * \throws InputError from ProcessGroups ("job.*"), MakeCollectiveSchedule ("collective.*")
     *         and WorkloadBuilder ("workload.*")
     */
    JobPlan(WorkloadBuilder& builder, const WorkloadSpec& spec, const JobSpec& job);
    /** \brief As above, for a job of index `jobIndex` whose ids start at `start` (a spec that
     *  does not hold the earlier jobs' transfers: they are built iteration by iteration). */
    JobPlan(WorkloadBuilder& builder, const JobSpec& job, int32_t jobIndex, const Bases& start);

    uint32_t Iterations() const { return m_job.iterations; }
    /** Ids iteration i starts at; i = Iterations() gives where the job ends. */
    Bases BasesOf(uint32_t i) const;
    /** Transfers of iteration i (BasesOf(i + 1).transfer - BasesOf(i).transfer). */
    uint64_t TransfersIn(uint32_t i) const;
    /** The trigger (global index) iteration i's dependency-free transfers wait for, or -1
     *  when they start at an absolute time. Several iterations share one when the ones between
     *  them have no traffic. */
    int32_t StartTrigger(uint32_t i) const { return m_iterations.at(i).startTrigger; }
    /** Iteration i's delay carried from before it (absolute time when StartTrigger(i) < 0;
     *  after that trigger fired otherwise), before its own compute time, ps. */
    uint64_t CarriedPs(uint32_t i) const { return m_iterations.at(i).carriedPs; }

    /** One past the largest connection (qpGroup) a transfer of the whole build uses, 0 if
     *  none: where a WorkloadBuilder made on the whole build would allocate the next one. */
    uint32_t QpGroupsEnd() const { return m_qpGroupsEnd; }
    /** The first iteration of each distinct set of collective entries that run in it, in
     *  increasing order: every connection and host pair of the job is used by one of them. */
    std::vector<uint32_t> RepresentativeIterations() const;
    /** Per iteration, the first iteration that runs the same collective entries (one of
     *  RepresentativeIterations): iterations of one kind carry the same transfers but ids. */
    std::vector<uint32_t> RepresentativeOfEach() const;

    /** \brief Append iteration i to the spec of `builder` (which must be the one the plan was
     *  made with, holding iterations 0 .. i - 1 of this job just before). */
    void Append(WorkloadBuilder& builder, uint32_t i) const;
    /** \brief Iteration i alone, with the ids of a whole build (see the file comment). */
    WorkloadSpec Expand(uint32_t i) const;
    /** The JobInfo AppendJob appends to spec.jobs. */
    JobInfo Info() const;

  private:
    /** One (collective entry, process group): NCCL's communicator for that entry. */
    struct Instance
    {
        CollectiveSchedule schedule;
        std::vector<std::vector<uint32_t>> hostsPerChannel;
        uint32_t qpGroupBase = 0;
        std::string group;
        uint64_t transfers = 0; //!< transfers one lowering of it appends
        uint64_t triggers = 0;  //!< triggers one lowering of it appends
        uint32_t qpGroupsEnd = 0; //!< one past the largest qpGroup its transfers use
    };
    struct Iteration
    {
        Bases bases;
        int32_t startTrigger = -1;
        uint64_t carriedPs = 0;
    };
    /** Whether entry e runs in iteration i. */
    bool Runs(size_t e, uint32_t i) const;
    /** Lower iteration i into `b` starting from (trigger, carried): as the whole build's loop. */
    void Emit(WorkloadBuilder& b, uint32_t i, int32_t trigger, uint64_t carried) const;

    void Init(WorkloadBuilder& b, const Bases& start);

    JobSpec m_job;
    int32_t m_jobIndex = 0;
    uint32_t m_qpGroupsEnd = 0;
    uint32_t m_tp = 1, m_pp = 1, m_dp = 1, m_ep = 1;
    std::vector<std::vector<Instance>> m_instances; //!< per entry, per group with traffic
    std::vector<uint32_t> m_every;                  //!< per entry, >= 1
    std::vector<Iteration> m_iterations;            //!< Iterations() + 1 (the end)
};

} // namespace ns3

#endif
