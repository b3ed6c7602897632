/*
 * tusk: a [[jobs]] workload built iteration by iteration, so that a run's memory does not grow
 * with its iterations: the jobs as plans (ns3::JobPlan), the other transfers ([[background]]
 * flows) built whole with the ids after the jobs', the checks before the run made on one
 * iteration of each distinct kind, and the rows of each iteration built when the executor
 * retires it (WorkloadExecutor::SetupLazy). Results are those of the whole build: same ids,
 * same rows, same order.
 */
#ifndef TUSK_RUN_LAZY_JOBS_H
#define TUSK_RUN_LAZY_JOBS_H

#include "run/collect-rows.h"
#include "run/row-stream.h"

#include "workload/model/job-plan.h"
#include "workload/model/job-window.h"
#include "workload/model/ring-steps.h"

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace tusk
{

/** A [[jobs]] workload as plans. */
struct LazyJobs
{
    std::vector<std::shared_ptr<const ns3::JobPlan>> plans; //!< the jobs, in order
    /** The other transfers ([[background]]), transfer k with id TransfersEnd + k, and the
     *  jobs' JobInfo (spec.jobs). The executor's spec. */
    std::shared_ptr<const ns3::WorkloadSpec> rest;
    /** `rest` and one iteration of each distinct kind of every job (JobPlan::
     *  RepresentativeIterations), its start trigger firing at the start: every connection and
     *  host pair of the workload, for the checks before the run (QPs, routes). */
    ns3::WorkloadSpec sample;
};

/**
 * \brief workload.kind = "jobs" built iteration by iteration, checked as BuildWorkload checks
 * it, or nothing for another kind, or when the whole build must answer: a transfer of the
 * sample can never start, or the jobs exceed WorkloadBuilder::kMaxTransfers (BuildWorkload
 * then refuses the workload with its usual message).
 * \throws ns3::InputError as BuildWorkload
 */
std::optional<LazyJobs> BuildLazyJobs(const ScenarioSpec& spec, const ns3::TopologyGraph& graph);

/** A standalone ring all-reduce built a window of steps at a time (ns3::RingStepUnits). */
struct LazyRing
{
    std::shared_ptr<const ns3::RingStepUnits> units;
    /** The collective and description, no transfers: the executor's spec. */
    std::shared_ptr<const ns3::WorkloadSpec> rest;
    /** Step 0 (every connection and host pair), for the checks before the run. */
    ns3::WorkloadSpec sample;
};

/**
 * \brief workload.kind = "ring-allreduce" as RingStepUnits of `windowSteps` steps (0: the
 * fewest of at least 4,096 transfers), checked as BuildWorkload checks it; nothing for another
 * kind, fast mode, [[background]] flows, a ring of one rank, or arguments the whole build
 * refuses (it then does, with its message).
 */
std::optional<LazyRing> BuildLazyRing(const ScenarioSpec& spec,
                                      const ns3::TopologyGraph& graph,
                                      uint32_t windowSteps);

/** How AppendJobs lowers one job into the builder's spec (AppendJob, or a JobPlan). */
using LowerJob =
    std::function<void(ns3::WorkloadBuilder&, ns3::WorkloadSpec&, const ns3::JobSpec&)>;

/** [[jobs]] placed and lowered by `lower`, in order (run-workload.cc). */
void AppendJobs(const ScenarioSpec& spec,
                const ns3::TopologyGraph& graph,
                ns3::WorkloadBuilder& b,
                ns3::WorkloadSpec& out,
                const LowerJob& lower);

/** \brief BuildWorkload's checks of a built workload: hosts exist, no self-sends, every
 *  transfer can start (run-workload.cc). \throws ns3::InputError */
void CheckWorkload(const ScenarioSpec& spec,
                   const ns3::TopologyGraph& graph,
                   const ns3::WorkloadSpec& workload);

/** [[background]] flows appended with `b` (run-workload.cc). */
void AppendBackground(const ScenarioSpec& spec,
                      const ns3::TopologyGraph& graph,
                      ns3::WorkloadBuilder& b);

/**
 * \brief The rows of the job iterations retired during a run, by job (ids increase within a
 * job; jobs' iterations retire in any interleaving), until CollectResults takes them in job
 * order: the whole build's row order.
 */
class IterationRows
{
  public:
    /** \param sink the sink `sources` reads, whose times of a retired iteration are freed
     *  \param stream where the rows go as iterations retire (RunOptions::streamRows; part j
     *  is job j), or nullptr to keep them until MoveInto */
    IterationRows(RowSources sources, MetricsSink& sink, size_t jobs, RowStream* stream = nullptr);

    /** \brief An iteration retires (or is still live at the end): its flow, collective and wait
     *  rows; its sink times are freed. */
    void Add(const ns3::JobWindow::Range& range);
    /** \brief Append every job's rows to `result`'s flows, collectives and waits, job by job
     *  (nothing when streaming). */
    void MoveInto(RunResult& result);
    /** The stream the rows go to, or nullptr. */
    RowStream* Stream() const { return m_stream; }
    /** Latest delivery or acknowledgement among the rows, ps. */
    uint64_t LastCompletion() const { return m_lastCompletion; }

  private:
    struct Rows
    {
        std::vector<FlowRow> flows;
        std::vector<CollectiveRow> collectives;
        std::vector<WaitRow> waits;
    };
    RowSources m_sources;
    MetricsSink& m_sink;
    RowStream* m_stream;
    std::vector<Rows> m_jobs;
    uint64_t m_lastCompletion = 0;
    /** Per job: the fair shares of its last few iterations (the same traffic, the same ideals). */
    std::vector<FairShareCache> m_fairShare;
};

} // namespace tusk

#endif
