/*
 * tusk: a [[jobs]] workload built iteration by iteration. See lazy-jobs.h.
 */
#include "run/lazy-jobs.h"

#include "workload/model/workload-builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace tusk
{

using namespace ns3;

namespace
{

/** Append iteration `i` of `plan` to `sample` with trigger ids local to it, its start trigger
 *  (if any) a trigger of its own that fires at the start. */
void
AppendSampleIteration(WorkloadSpec& sample, const JobPlan& plan, uint32_t i)
{
    WorkloadSpec f = plan.Expand(i);
    if (f.transfers.empty())
    {
        return;
    }
    const uint64_t firstTrigger = plan.BasesOf(i).trigger;
    const uint64_t base = sample.triggers.size();
    const int32_t start = plan.StartTrigger(i);
    const auto local = [&](uint64_t g) { return static_cast<uint32_t>(base + g - firstTrigger); };
    const uint32_t startLocal = static_cast<uint32_t>(base + f.triggers.size());
    for (auto& tr : f.triggers)
    {
        sample.triggers.push_back(tr);
    }
    if (start >= 0)
    {
        TriggerSpec t;
        t.atStart = true;
        t.externalId = static_cast<uint64_t>(start);
        sample.triggers.push_back(t);
    }
    for (auto& t : f.transfers)
    {
        if (t.trigger == start && start >= 0)
        {
            t.trigger = static_cast<int32_t>(startLocal);
        }
        else if (t.trigger >= 0)
        {
            t.trigger = static_cast<int32_t>(local(static_cast<uint64_t>(t.trigger)));
        }
        for (auto& g : t.onRecvDone)
        {
            g = local(g);
        }
        for (auto& g : t.onSendDone)
        {
            g = local(g);
        }
        t.collective = -1; // the sample has no collectives
        sample.transfers.push_back(std::move(t));
    }
}

} // namespace

std::optional<LazyJobs>
BuildLazyJobs(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    if (spec.workload.kind != "jobs")
    {
        return std::nullopt;
    }
    LazyJobs lazy;
    WorkloadSpec rest;
    WorkloadBuilder b(rest);
    JobPlan::Bases end;
    uint32_t qpGroupsEnd = 0;
    AppendJobs(spec, graph, b, rest,
               [&](WorkloadBuilder& builder, WorkloadSpec& out, const JobSpec& job) {
                   auto plan = std::make_shared<const JobPlan>(
                       builder, job, static_cast<int32_t>(out.jobs.size()), end);
                   end = plan->BasesOf(plan->Iterations());
                   qpGroupsEnd = std::max(qpGroupsEnd, plan->QpGroupsEnd());
                   out.jobs.push_back(plan->Info());
                   lazy.plans.push_back(std::move(plan));
               });
    rest.description = fmt::format("{} job(s)", spec.jobs.size());
    if (end.transfer > WorkloadBuilder::kMaxTransfers)
    {
        return std::nullopt; // the whole build refuses it, with its message
    }
    if (!spec.background.empty())
    {
        // As a builder made on the whole build would: ids after the jobs' transfers,
        // connections after the last one a job's transfer uses.
        WorkloadSpec background;
        WorkloadBuilder bb(background);
        AppendBackground(spec, graph, bb);
        for (auto& t : background.transfers)
        {
            t.externalId += end.transfer;
            t.qpGroup += qpGroupsEnd;
        }
        rest.transfers = std::move(background.transfers);
    }
    lazy.sample = rest;
    lazy.sample.transfers.clear();
    for (const auto& plan : lazy.plans)
    {
        for (uint32_t i : plan->RepresentativeIterations())
        {
            AppendSampleIteration(lazy.sample, *plan, i);
        }
    }
    lazy.sample.transfers.insert(lazy.sample.transfers.end(), rest.transfers.begin(),
                                 rest.transfers.end());
    if (!TransfersThatCannotStart(lazy.sample).empty())
    {
        return std::nullopt; // the whole build names the transfer and its trigger
    }
    CheckWorkload(spec, graph, lazy.sample);
    lazy.rest = std::make_shared<const WorkloadSpec>(std::move(rest));
    return lazy;
}

IterationRows::IterationRows(RowSources sources, MetricsSink& sink, size_t jobs, RowStream* stream)
    : m_sources(std::move(sources)),
      m_sink(sink),
      m_stream(stream),
      m_jobs(jobs),
      m_fairShare(jobs)
{
}

void
IterationRows::Add(const JobWindow::Range& r)
{
    Rows streamed; // streaming: this iteration's rows only, written and dropped below
    Rows& job = m_stream != nullptr ? streamed : m_jobs.at(r.job);
    const size_t at = job.flows.size();
    if (m_stream != nullptr)
    {
        // One allocation for this iteration's rows (kept rows grow by doubling as before).
        job.flows.reserve(r.end.transfer - r.first.transfer);
    }
    AppendFlowRows(m_sources, r.first.transfer, r.end.transfer, job.flows, m_lastCompletion);
    ApplyFairShare(m_sources, job.flows.data() + at, r.first.transfer, r.end.transfer,
                   &m_fairShare.at(r.job));
    AppendCollectiveRows(m_sources, job.flows.data() + at, r.first.transfer, r.end.transfer,
                         r.first.collective, r.end.collective, job.collectives, job.waits);
    // The rows hold what the sink knew of them.
    m_sink.ReleaseTimes(r.first.transfer, r.end.transfer);
    if (m_stream != nullptr)
    {
        m_stream->Add(r.job, r.first.transfer, job.flows, job.collectives, job.waits);
    }
}

void
IterationRows::MoveInto(RunResult& result)
{
    for (Rows& job : m_jobs)
    {
        const auto move = [](auto& from, auto& to) {
            if (to.empty())
            {
                to = std::move(from);
            }
            else
            {
                to.insert(to.end(), std::make_move_iterator(from.begin()),
                          std::make_move_iterator(from.end()));
            }
            std::decay_t<decltype(from)>().swap(from);
        };
        move(job.flows, result.flows);
        move(job.collectives, result.collectives);
        move(job.waits, result.waits);
    }
}

} // namespace tusk
