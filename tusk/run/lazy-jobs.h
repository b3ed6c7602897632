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

#include <deque>
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
     *  is job j), or nullptr to keep them until MoveInto
     *  \param shifted with a stream: write an iteration's rows from an earlier iteration's
     *  shifted, where every input of them is that iteration's shifted (fast mode's replayed
     *  iterations; see Template) */
    IterationRows(RowSources sources,
                  MetricsSink& sink,
                  size_t jobs,
                  RowStream* stream = nullptr,
                  bool shifted = false);
    ~IterationRows();

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
    /** Iterations whose rows were written shifted from an earlier iteration's. */
    uint64_t ShiftedIterations() const { return m_shiftedIterations; }

    /** Transfers of an iteration beyond which no template is kept (its inputs and rows are
     *  held, per job, for kTemplates iterations). */
    static constexpr uint64_t kMaxTemplateTransfers = 16384;
    /** Templates kept per job: a job's replays take their memo from its latest few simulated
     *  iterations (a period up to 4, a sampled pool of 8). */
    static constexpr size_t kTemplates = 8;

  private:
    struct Rows
    {
        std::vector<FlowRow> flows;
        std::vector<CollectiveRow> collectives;
        std::vector<WaitRow> waits;
    };
    /**
     * An iteration whose rows were built in full, with every input they were built from: per
     * transfer its spec's fields the rows read, its record's counters, paths and messages,
     * its start, delivery and acknowledgement times; its collectives' specs. Another
     * iteration whose inputs are these with the transfer ids, external ids and collective ids
     * shifted by constants and every time shifted by one constant D has these rows with the
     * same shifts (every row value is a function of those inputs that commutes with the
     * shifts: differences of times, minima and maxima, ids; AddShiftedFrom), so its rows are
     * written from these, shifted, instead of built.
     */
    struct Template;
    /** The inputs of iteration `r`, before its rows are built (its records' lists are freed
     *  as its rows are), or nullptr when no template can be kept of it. */
    std::unique_ptr<Template> InputsOf(const ns3::JobWindow::Range& r) const;
    /** Write iteration `r`'s rows from `t` shifted, if every input matches. */
    bool AddShiftedFrom(const ns3::JobWindow::Range& r, const Template& t);

    RowSources m_sources;
    MetricsSink& m_sink;
    RowStream* m_stream;
    bool m_shifted = false;
    uint64_t m_shiftedIterations = 0;
    /** Per job, its templates, latest first. */
    std::vector<std::deque<std::unique_ptr<Template>>> m_templates;
    FlowRow m_critical; //!< scratch: a critical flow's row, shifted
    std::vector<Rows> m_jobs;
    uint64_t m_lastCompletion = 0;
    /** Per job: the fair shares of its last few iterations (the same traffic, the same ideals). */
    std::vector<FairShareCache> m_fairShare;
};

} // namespace tusk

#endif
