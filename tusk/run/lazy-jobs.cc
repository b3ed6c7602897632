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

struct IterationRows::Template
{
    uint64_t first = 0;  //!< its first transfer
    uint64_t cFirst = 0; //!< its first collective
    uint64_t cCount = 0; //!< its collectives
    /** What a transfer's rows read of its spec and the sink (collective: relative to cFirst). */
    struct Transfer
    {
        uint64_t externalId = 0;
        uint64_t bytes = 0;
        uint64_t startPs = 0;
        uint64_t deliveredPs = 0;
        uint64_t acknowledgedPs = 0;
        uint32_t src = 0;
        uint32_t dst = 0;
        int64_t collective = 0;
        int32_t step = -1;
        int32_t channel = -1;
        uint16_t port = 0;
    };
    std::vector<Transfer> transfers;
    std::vector<TransferRecord> records; //!< as the flow rows read them (copies)
    std::vector<CollectiveSpec> collectives;
    // Its rows as built, and flows.csv's lines but for ids and times.
    std::vector<FlowRow> flows;
    std::vector<CollectiveRow> collectiveRows;
    std::vector<WaitRow> waits;
    std::vector<FlowCsvRowShape> shapes;
};

namespace
{

/** Whether two finished transfers' records give the same flow row (every field AppendFlowRows
 *  reads of a record but the times and flags; DeliveredBytes is the record's once delivered). */
bool
SameOutcome(const TransferRecord& a, const TransferRecord& b)
{
    return a.deliveredBytes == b.deliveredBytes && a.retxPackets == b.retxPackets &&
           a.retxBytes == b.retxBytes && a.retxTimeoutPackets == b.retxTimeoutPackets &&
           a.oooPackets == b.oooPackets && a.reorderMax == b.reorderMax &&
           a.reorderSum == b.reorderSum && a.naks == b.naks && a.duplicates == b.duplicates &&
           a.qps == b.qps && a.entropy == b.entropy && a.pktsSent == b.pktsSent &&
           a.pktsReceived == b.pktsReceived && a.pktsDropped == b.pktsDropped &&
           a.Paths() == b.Paths() && a.Messages() == b.Messages();
}

/** Whether two collectives' specs give the same rows but for the fields copied from the spec
 *  (kind, algorithm, iteration, name, group, slices). */
bool
SameShape(const CollectiveSpec& a, const CollectiveSpec& b)
{
    return a.ranks == b.ranks && a.steps == b.steps && a.bytesPerRank == b.bytesPerRank &&
           a.busbwFactor == b.busbwFactor && a.channels == b.channels && a.job == b.job;
}

} // namespace

IterationRows::IterationRows(RowSources sources,
                             MetricsSink& sink,
                             size_t jobs,
                             RowStream* stream,
                             bool shifted)
    : m_sources(std::move(sources)),
      m_sink(sink),
      m_stream(stream),
      m_shifted(shifted && stream != nullptr),
      m_templates(jobs),
      m_jobs(jobs),
      m_fairShare(jobs)
{
}

IterationRows::~IterationRows() = default;

std::unique_ptr<IterationRows::Template>
IterationRows::InputsOf(const JobWindow::Range& r) const
{
    const uint64_t n = r.end.transfer - r.first.transfer;
    const uint64_t cCount = r.end.collective - r.first.collective;
    if (n == 0 || n > kMaxTemplateTransfers || cCount == 0)
    {
        return nullptr;
    }
    auto t = std::make_unique<Template>();
    t->first = r.first.transfer;
    t->cFirst = r.first.collective;
    t->cCount = cCount;
    t->transfers.reserve(n);
    t->records.reserve(n);
    std::vector<bool> used(cCount, false);
    for (uint64_t id = r.first.transfer; id < r.end.transfer; ++id)
    {
        const TransferSpec& ts = m_sources.transfer(static_cast<uint32_t>(id));
        const MetricsSink::TransferTimes& when = m_sink.Times(static_cast<uint32_t>(id));
        const TransferRecord& rec = m_sources.executor.exec->GetRecord(static_cast<uint32_t>(id));
        // Every transfer of a collective of this iteration, in a step; started, delivered and
        // acknowledged (the rows' times are then all shifted alike).
        if (ts.background || ts.step < 0 || ts.collective < 0 ||
            static_cast<uint64_t>(ts.collective) < r.first.collective ||
            static_cast<uint64_t>(ts.collective) >= r.end.collective ||
            when.startPs == kNoTime || when.deliveredPs == kNoTime ||
            when.acknowledgedPs == kNoTime || !rec.recvDone || !rec.sendDone)
        {
            return nullptr;
        }
        Template::Transfer x;
        x.externalId = ts.externalId;
        x.bytes = ts.bytes;
        x.startPs = when.startPs;
        x.deliveredPs = when.deliveredPs;
        x.acknowledgedPs = when.acknowledgedPs;
        x.src = ts.src;
        x.dst = ts.dst;
        x.collective = static_cast<int64_t>(ts.collective) - static_cast<int64_t>(r.first.collective);
        x.step = ts.step;
        x.channel = ts.channel;
        x.port = ts.port;
        used[static_cast<size_t>(x.collective)] = true;
        t->transfers.push_back(x);
        t->records.push_back(rec);
    }
    if (std::find(used.begin(), used.end(), false) != used.end())
    {
        return nullptr; // a collective without transfers: its start is not a shifted time
    }
    for (uint64_t c = r.first.collective; c < r.end.collective; ++c)
    {
        t->collectives.push_back(m_sources.collective(static_cast<uint32_t>(c)));
    }
    return t;
}

bool
IterationRows::AddShiftedFrom(const JobWindow::Range& r, const Template& tp)
{
    const uint64_t n = r.end.transfer - r.first.transfer;
    if (n != tp.transfers.size() || r.end.collective - r.first.collective != tp.cCount)
    {
        return false;
    }
    for (uint64_t k = 0; k < tp.cCount; ++k)
    {
        if (!SameShape(m_sources.collective(static_cast<uint32_t>(r.first.collective + k)),
                       tp.collectives[k]))
        {
            return false;
        }
    }
    // The shifts, from the first transfer; then every input must be the template's shifted.
    const MetricsSink::TransferTimes& w0 = m_sink.Times(static_cast<uint32_t>(r.first.transfer));
    const TransferSpec& ts0 = m_sources.transfer(static_cast<uint32_t>(r.first.transfer));
    if (w0.startPs == kNoTime || w0.startPs < tp.transfers[0].startPs ||
        ts0.externalId < tp.transfers[0].externalId)
    {
        return false;
    }
    const uint64_t dTime = w0.startPs - tp.transfers[0].startPs;
    const uint64_t dId = ts0.externalId - tp.transfers[0].externalId;
    const uint64_t dTransfer = r.first.transfer - tp.first;
    const int64_t dCollective =
        static_cast<int64_t>(r.first.collective) - static_cast<int64_t>(tp.cFirst);
    uint64_t lastCompletion = m_lastCompletion;
    for (uint64_t k = 0; k < n; ++k)
    {
        const auto id = static_cast<uint32_t>(r.first.transfer + k);
        const Template::Transfer& x = tp.transfers[k];
        const TransferSpec& ts = m_sources.transfer(id);
        const MetricsSink::TransferTimes& when = m_sink.Times(id);
        if (ts.externalId != x.externalId + dId || ts.src != x.src || ts.dst != x.dst ||
            ts.bytes != x.bytes || ts.step != x.step || ts.channel != x.channel ||
            ts.port != x.port || ts.background ||
            static_cast<int64_t>(ts.collective) - static_cast<int64_t>(r.first.collective) !=
                x.collective ||
            when.startPs != x.startPs + dTime || when.deliveredPs == kNoTime ||
            when.deliveredPs != x.deliveredPs + dTime || when.acknowledgedPs == kNoTime ||
            when.acknowledgedPs != x.acknowledgedPs + dTime)
        {
            return false;
        }
        const TransferRecord& rec = m_sources.executor.exec->GetRecord(id);
        if (!rec.recvDone || !rec.sendDone || !SameOutcome(rec, tp.records[k]))
        {
            return false;
        }
        lastCompletion = std::max({lastCompletion, when.deliveredPs, when.acknowledgedPs});
    }
    // The rows: the template's, ids and times shifted (the texts copied from the collectives'
    // specs, which may name the iteration).
    std::vector<CollectiveRow> collectives;
    collectives.reserve(tp.cCount);
    for (uint64_t k = 0; k < tp.cCount; ++k)
    {
        const CollectiveSpec& cs = m_sources.collective(static_cast<uint32_t>(r.first.collective + k));
        CollectiveRow c = tp.collectiveRows[k];
        c.id = static_cast<uint32_t>(r.first.collective + k);
        c.kind = cs.kind;
        c.algorithm = cs.algorithm;
        c.job = cs.job;
        c.iteration = cs.iteration;
        c.name = cs.name;
        c.group = cs.group;
        c.slices = cs.slices;
        c.startPs += dTime;
        c.finishPs += dTime;
        for (size_t i = 0; i < c.stepEndPs.size(); ++i)
        {
            if (c.stepSlowestFlow[i] >= 0)
            {
                c.stepEndPs[i] += dTime;
                c.stepSlowestFlow[i] += static_cast<int64_t>(dId);
            }
        }
        if (c.criticalFlow >= 0)
        {
            c.criticalFlow += static_cast<int64_t>(dTransfer);
        }
        collectives.push_back(std::move(c));
    }
    std::vector<WaitRow> waits = tp.waits;
    for (WaitRow& w : waits)
    {
        w.collective = static_cast<uint32_t>(w.collective + dCollective);
        w.readyPs += dTime;
        w.sentPs += dTime;
        w.arrivalPs += dTime;
        w.lastTransfer += static_cast<int64_t>(dTransfer);
    }
    const uint64_t first = r.first.transfer;
    m_stream->AddShifted(
        r.job, tp.flows, tp.shapes, dId, dTime, dCollective, collectives, waits,
        [&](int64_t t) -> const FlowRow& {
            m_critical = tp.flows.at(static_cast<size_t>(static_cast<uint64_t>(t) - first));
            m_critical.id += dId;
            m_critical.startPs += dTime;
            m_critical.finishPs += dTime;
            m_critical.collective = static_cast<int32_t>(m_critical.collective + dCollective);
            return m_critical;
        },
        [&](int64_t t) {
            return tp.flows.at(static_cast<size_t>(static_cast<uint64_t>(t) - first)).id + dId;
        });
    m_lastCompletion = lastCompletion;
    m_sink.ReleaseTimes(r.first.transfer, r.end.transfer);
    ++m_shiftedIterations;
    return true;
}

void
IterationRows::Add(const JobWindow::Range& r)
{
    std::unique_ptr<Template> inputs;
    if (m_shifted)
    {
        auto& templates = m_templates.at(r.job);
        for (auto it = templates.begin(); it != templates.end(); ++it)
        {
            if (AddShiftedFrom(r, **it))
            {
                // The template in use first (a job's replays cycle over a few).
                std::rotate(templates.begin(), it, it + 1);
                return;
            }
        }
        inputs = InputsOf(r); // before AppendFlowRows frees the records' lists
    }
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
    if (inputs)
    {
        // Kept only when every row's values shift with the times (finished collectives, ready,
        // sent and arrived waits, no flow in violation of conservation).
        const bool shiftable =
            std::all_of(job.flows.begin(), job.flows.end(),
                        [](const FlowRow& f) { return f.pktsInFlight >= 0; }) &&
            std::all_of(job.collectives.begin(), job.collectives.end(),
                        [](const CollectiveRow& c) { return c.finished; }) &&
            std::all_of(job.waits.begin(), job.waits.end(), [](const WaitRow& w) {
                return w.ready && w.sent && w.arrived && w.lastTransfer >= 0;
            });
        if (shiftable)
        {
            inputs->shapes = m_stream->Shapes(job.flows);
            inputs->flows = std::move(job.flows);
            inputs->collectiveRows = std::move(job.collectives);
            inputs->waits = std::move(job.waits);
            auto& templates = m_templates.at(r.job);
            templates.push_front(std::move(inputs));
            if (templates.size() > kTemplates)
            {
                templates.pop_back();
            }
        }
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
