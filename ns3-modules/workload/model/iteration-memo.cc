#include "iteration-memo.h"

#include "iteration-rules.h"

#include "fabric/model/kernel/run-clock.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IterationMemo");
NS_OBJECT_ENSURE_REGISTERED(IterationMemo);

namespace
{

/** The traffic of an iteration as one number: each 64-bit word mixed in whole (a multiply
 *  and a shift per word; FNV-1a per byte was eight, about 1,000 instructions per transfer of
 *  every iteration). Only equality within a run matters. */
class TrafficHash
{
  public:
    void Add(uint64_t v)
    {
        m_h = (m_h ^ v) * 0x9e3779b97f4a7c15ULL;
        m_h ^= m_h >> 29;
    }
    uint64_t Get() const { return m_h; }

  private:
    uint64_t m_h = 14695981039346656037ULL;
};

/** Process-wide sum of the records every memo holds (IterationMemo::HeldRecords). */
std::atomic<uint64_t> g_heldRecords{0};

} // namespace

void
AddPortDelta(PortCounters& a, const PortCounters& b, const PortCounters& c)
{
    a.txFrames += b.txFrames - c.txFrames;
    a.txBytes += b.txBytes - c.txBytes;
    a.txWireBytes += b.txWireBytes - c.txWireBytes;
    a.rxFrames += b.rxFrames - c.rxFrames;
    a.rxBytes += b.rxBytes - c.rxBytes;
    for (size_t k = 0; k < static_cast<size_t>(DropReason::COUNT); ++k)
    {
        a.drops[k] += b.drops[k] - c.drops[k];
    }
    // The largest queue and the busiest window of the later snapshot bound the memo's own.
    a.maxQueueBytes = std::max(a.maxQueueBytes, b.maxQueueBytes);
    a.maxWindowUtilisation = std::max(a.maxWindowUtilisation, b.maxWindowUtilisation);
    a.pfcTx += b.pfcTx - c.pfcTx;
    a.pfcRx += b.pfcRx - c.pfcRx;
    a.pfcXoffTx += b.pfcXoffTx - c.pfcXoffTx;
    a.ecnMarks += b.ecnMarks - c.ecnMarks;
    a.watchdogTriggers += b.watchdogTriggers - c.watchdogTriggers;
    a.creditOverruns += b.creditOverruns - c.creditOverruns;
}

TypeId
IterationMemo::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IterationMemo")
            .SetParent<Object>()
            .SetGroupName("Workload")
            .AddConstructor<IterationMemo>()
            .AddAttribute("SteadyIterations",
                          "Steady rule: the last this many simulated, finished iterations of "
                          "the same traffic must agree before one is replayed (count, >= 2).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&IterationMemo::m_steadyIterations),
                          MakeUintegerChecker<uint32_t>(2))
            .AddAttribute("SteadyTolerance",
                          "Steady rule: largest relative difference of iteration time and of "
                          "every transfer's FCT among those iterations (fraction; 0 = the "
                          "steady rule never applies).",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&IterationMemo::m_steadyTolerance),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("SteadyMaxPeriod",
                          "Steady rule: iterations may repeat with a period of up to this many "
                          "(iteration i then compared with and replayed from i - period; "
                          "count).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&IterationMemo::m_maxPeriod),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("SampleIterations",
                          "Sampled rule: W; the latest 2W simulated, finished iterations of the "
                          "same traffic, as two windows of W, must agree within SampleTolerance "
                          "in mean iteration time and mean FCT; replays then cycle through "
                          "those 2W (count; 0 = the sampled rule never applies).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&IterationMemo::m_sampleIterations),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddAttribute("SampleTolerance",
                          "Sampled rule: largest relative difference between the two windows' "
                          "mean iteration times, and between their mean FCTs (fraction).",
                          DoubleValue(0.02),
                          MakeDoubleAccessor(&IterationMemo::m_sampleTolerance),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("SampleConfidence",
                          "Sampled rule: confidence level of the Student-t interval of the "
                          "pool's mean iteration time and mean FCT (over its 2W iterations), "
                          "whose half-width must be at most SampleTolerance times the mean "
                          "(fraction, two-sided; 0 = no interval, the windows' test alone).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&IterationMemo::m_sampleConfidence),
                          MakeDoubleChecker<double>(0, 0.999999))
            .AddAttribute("SteadyTrendSpan",
                          "Steady rule: the memo must also agree (iteration time and every "
                          "FCT, within SteadyTolerance) with its phase's iteration this many "
                          "minus one periods back, so that a drift or cycle slower than the "
                          "SteadyIterations compared is refused (count of iterations; at most "
                          "SteadyIterations = no such check).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&IterationMemo::m_steadyTrendSpan),
                          MakeUintegerChecker<uint32_t>(0, 16))
            .AddAttribute("RecurrenceSpan",
                          "Steady and sampled rules: the job's latest this many finished "
                          "iterations must be reproduced by what would be replayed (steady: "
                          "each agrees within SteadyTolerance, in iteration time and slowest "
                          "FCT, with the newest of its phase; sampled: none is slower, or has "
                          "a slower transfer, than the pool's slowest beyond SampleTolerance), "
                          "so that a rare slow iteration recurring with any period up to this "
                          "is not left out of the replays; until the job has run this many, "
                          "neither rule replays (count of iterations; 0 = no such check).",
                          UintegerValue(24),
                          MakeUintegerAccessor(&IterationMemo::m_recurrenceSpan),
                          MakeUintegerChecker<uint32_t>(0, 4096));
    return tid;
}

IterationMemo::IterationMemo() = default;

uint64_t
IterationMemo::HeldRecords()
{
    return g_heldRecords;
}

void
IterationMemo::FreeRecords(Iteration& m)
{
    if (m.records)
    {
        g_heldRecords -= m.records->size();
        m.records.reset();
    }
}

void
IterationMemo::DoDispose()
{
    if (m_exec)
    {
        m_exec->SetFireHook(Callback<void, uint32_t>());
        m_exec->SetExpandHook(nullptr);
        m_exec->SetRetireHook(nullptr);
    }
    m_exec = nullptr;
    m_probe = nullptr;
    m_span = nullptr;
    m_portSnapshot = nullptr;
    for (Job& j : m_jobs)
    {
        for (Iteration& it : j.iters)
        {
            FreeRecords(it);
        }
    }
    m_jobs.clear();
    m_open.clear();
    Object::DoDispose();
}

void
IterationMemo::SetExactAllowed(bool allowed, const std::string& whyNot)
{
    m_exactAllowed = allowed;
    m_exactWhyNot = whyNot;
}

void
IterationMemo::Setup(Ptr<WorkloadExecutor> exec, Probe probe, SpanCheck span)
{
    m_exec = exec;
    m_probe = std::move(probe);
    m_span = std::move(span);
    const WorkloadSpec& spec = exec->GetSpec();
    const JobWindow* window = exec->GetJobWindow();
    m_lazy = window != nullptr;
    m_jobs.assign(spec.jobs.size(), Job());
    m_jobLeft.assign(spec.jobs.size(), 0);
    for (size_t j = 0; j < spec.jobs.size(); ++j)
    {
        m_jobs[j].iters.resize(spec.jobs[j].iterations > 1 ? spec.jobs[j].iterations : 0);
    }
    if (m_lazy)
    {
        // Jobs built iteration by iteration: the plans say where each iteration's transfers
        // are; their traffic is read when the iteration is expanded (OnExpand).
        const auto& plans = window->Plans();
        NS_ABORT_MSG_IF(plans.size() != m_jobs.size(), "IterationMemo: jobs and plans differ");
        m_jobRange.resize(plans.size());
        for (uint32_t j = 0; j < plans.size(); ++j)
        {
            const JobPlan& plan = *plans[j];
            const uint64_t first = plan.BasesOf(0).transfer;
            const uint64_t end = plan.BasesOf(plan.Iterations()).transfer;
            m_jobRange[j] = {first, end};
            m_jobLeft[j] = end - first;
            // Iterations that run the same entries carry the same bytes: one lowering each.
            const std::vector<uint32_t> kind = plan.RepresentativeOfEach();
            std::map<uint32_t, uint64_t> kindBytes;
            for (uint32_t i = 0; i < plan.Iterations(); ++i)
            {
                if (plan.TransfersIn(i) == 0)
                {
                    continue;
                }
                auto kb = kindBytes.find(kind[i]);
                if (kb == kindBytes.end())
                {
                    uint64_t bytes = 0;
                    for (const TransferSpec& ts : plan.Expand(kind[i]).transfers)
                    {
                        bytes += ts.bytes;
                    }
                    kb = kindBytes.emplace(kind[i], bytes).first;
                }
                m_stats.totalBytes += kb->second;
                if (i < m_jobs[j].iters.size())
                {
                    Iteration& it = m_jobs[j].iters[i];
                    it.first = plan.BasesOf(i).transfer;
                    it.count = static_cast<uint32_t>(plan.TransfersIn(i));
                    ++m_stats.iterations;
                }
            }
        }
        for (uint32_t k = 0; k < spec.transfers.size(); ++k)
        {
            m_stats.totalBytes += spec.transfers[k].bytes;
            m_foreign.push_back(static_cast<uint32_t>(window->TransfersEnd() + k));
        }
    }
    else
    {
        m_jobOf.assign(spec.transfers.size(), -1);
        m_startOf.assign(spec.triggers.size(), {-1, -1});
        for (uint32_t t = 0; t < spec.transfers.size(); ++t)
        {
            const TransferSpec& ts = spec.transfers[t];
            m_stats.totalBytes += ts.bytes;
            const int32_t c = ts.collective;
            const int32_t j = c >= 0 ? spec.collectives[c].job : -1;
            if (j < 0 || static_cast<size_t>(j) >= m_jobs.size())
            {
                m_foreign.push_back(t);
                continue;
            }
            m_jobOf[t] = j;
            ++m_jobLeft[j];
            const int32_t i = spec.collectives[c].iteration;
            if (i >= 0 && static_cast<size_t>(i) < m_jobs[j].iters.size())
            {
                Iteration& it = m_jobs[j].iters[i];
                if (it.count == 0)
                {
                    it.first = t;
                }
                // A job's builder appends an iteration's transfers together (JobPlan).
                NS_ABORT_MSG_IF(it.first + it.count != t,
                                "IterationMemo: iteration " << i << " of job " << j
                                                            << " is not contiguous");
                ++it.count;
            }
        }
        for (uint32_t j = 0; j < m_jobs.size(); ++j)
        {
            for (uint32_t i = 0; i < m_jobs[j].iters.size(); ++i)
            {
                if (m_jobs[j].iters[i].count == 0)
                {
                    continue;
                }
                ++m_stats.iterations;
                const int32_t start = Describe(j, i);
                if (start >= 0)
                {
                    m_startOf[start] = {static_cast<int32_t>(j), static_cast<int32_t>(i)};
                }
            }
        }
    }
    exec->TraceConnectWithoutContext("TransferDelivered",
                                     MakeCallback(&IterationMemo::OnCompletion, this));
    exec->TraceConnectWithoutContext("TransferAcknowledged",
                                     MakeCallback(&IterationMemo::OnCompletion, this));
}

int32_t
IterationMemo::Describe(uint32_t j, uint32_t i)
{
    // Its start trigger (its first transfer's; none for a job's first iteration, which starts
    // at a time), its decision delay (the earliest of that trigger's waiters of the
    // iteration) and its traffic's hash, relative to its own triggers.
    const WorkloadExecutor& exec = *m_exec;
    Iteration& it = m_jobs[j].iters[i];
    const uint64_t end = it.first + it.count;
    const int32_t start = exec.GetTransfer(static_cast<uint32_t>(it.first)).trigger;
    uint64_t minStart = UINT64_MAX;
    uint32_t base = UINT32_MAX;
    it.bytes = 0;
    for (uint64_t t = it.first; t < end; ++t)
    {
        const TransferSpec& ts = exec.GetTransfer(static_cast<uint32_t>(t));
        it.bytes += ts.bytes;
        if (ts.trigger == start)
        {
            minStart = std::min(minStart, ts.startPs);
        }
        for (uint32_t g : ts.onRecvDone)
        {
            base = std::min(base, g);
        }
        for (uint32_t g : ts.onSendDone)
        {
            base = std::min(base, g);
        }
    }
    it.startDelayPs = minStart;
    TrafficHash h;
    h.Add(it.count);
    uint32_t maxTrigger = base;
    auto rel = [&](uint32_t g) {
        maxTrigger = std::max(maxTrigger, g);
        return static_cast<uint64_t>(static_cast<int64_t>(g) - static_cast<int64_t>(base));
    };
    for (uint64_t t = it.first; t < end; ++t)
    {
        const TransferSpec& ts = exec.GetTransfer(static_cast<uint32_t>(t));
        h.Add(ts.src);
        h.Add(ts.dst);
        h.Add(ts.bytes);
        h.Add(ts.qpGroup);
        h.Add(ts.priority);
        h.Add(ts.qps);
        if (ts.trigger == start)
        {
            h.Add(0xfeed); // waits for the iteration's start
            h.Add(ts.startPs - minStart);
        }
        else
        {
            h.Add(rel(static_cast<uint32_t>(ts.trigger)));
            h.Add(ts.startPs);
        }
        h.Add(ts.onRecvDone.size());
        for (uint32_t g : ts.onRecvDone)
        {
            h.Add(rel(g));
        }
        h.Add(ts.onSendDone.size());
        for (uint32_t g : ts.onSendDone)
        {
            h.Add(rel(g));
        }
    }
    for (uint32_t g = base; base != UINT32_MAX && g <= maxTrigger; ++g)
    {
        const TriggerSpec& tg = exec.GetTrigger(g);
        h.Add(tg.kind);
        h.Add(tg.threshold);
        h.Add(tg.delayPs);
        h.Add(tg.onFire.size());
    }
    it.pattern = h.Get();
    it.known = true;
    m_open[it.first] = {j, i};
    return start;
}

void
IterationMemo::Start()
{
    if (m_lazy)
    {
        // Decisions scheduled as iterations are expanded: at the start for the first ones,
        // in their start trigger's Fire otherwise, before their transfers' starts.
        m_exec->SetExpandHook([this](const JobWindow::Range& r) { OnExpand(r); });
        m_exec->SetRetireHook([this](const JobWindow::Range& r) { OnRetire(r); });
        return;
    }
    m_exec->SetFireHook(MakeCallback(&IterationMemo::OnFire, this));
    for (uint32_t j = 0; j < m_jobs.size(); ++j)
    {
        if (m_jobs[j].iters.empty() || m_jobs[j].iters[0].count == 0)
        {
            continue;
        }
        const Iteration& first = m_jobs[j].iters[0];
        if (m_exec->GetTransfer(static_cast<uint32_t>(first.first)).trigger < 0)
        {
            // Scheduled before the executor's starts: runs before them at the same time.
            RunClock::NoteAbsolute(Simulator::Schedule(PicoSeconds(first.startDelayPs),
                                                       &IterationMemo::Decide, this, j, 0u));
        }
    }
}

void
IterationMemo::OnExpand(const JobWindow::Range& r)
{
    if (r.job >= m_jobs.size() || r.iteration >= m_jobs[r.job].iters.size())
    {
        return; // a job of one iteration: nothing to replay
    }
    Iteration& it = m_jobs[r.job].iters[r.iteration];
    NS_ABORT_MSG_IF(it.first != r.first.transfer || it.count != r.end.transfer - r.first.transfer,
                    "IterationMemo: iteration " << r.iteration << " of job " << r.job
                                                << " expanded with other transfers");
    Describe(r.job, r.iteration);
    // Called before the iteration's transfers are scheduled: this decision runs before they
    // start (as OnFire's).
    RunClock::NoteAbsolute(Simulator::Schedule(PicoSeconds(it.startDelayPs),
                                               &IterationMemo::Decide, this, r.job, r.iteration));
}

void
IterationMemo::OnRetire(const JobWindow::Range& r)
{
    if (r.job >= m_jobs.size() || r.iteration >= m_jobs[r.job].iters.size())
    {
        return;
    }
    Iteration& it = m_jobs[r.job].iters[r.iteration];
    // A frame counted after the transfer finished (a late duplicate, a resend's drop) is in
    // its record until now, as in its row.
    Refresh(it);
    it.retired = true;
}

void
IterationMemo::Refresh(Iteration& m)
{
    if (!m.records || m.retired)
    {
        return;
    }
    for (uint32_t k = 0; k < m.count; ++k)
    {
        const TransferRecord& r = m_exec->GetRecord(static_cast<uint32_t>(m.first + k));
        if (r.recvDone && r.sendDone)
        {
            (*m.records)[k] = r;
        }
    }
}

std::pair<int32_t, int32_t>
IterationMemo::IterationOf(uint64_t t) const
{
    auto it = m_open.upper_bound(t);
    if (it == m_open.begin())
    {
        return {-1, -1};
    }
    --it;
    const auto [j, i] = it->second;
    const Iteration& x = m_jobs[j].iters[i];
    if (t >= x.first + x.count)
    {
        return {-1, -1};
    }
    return {static_cast<int32_t>(j), static_cast<int32_t>(i)};
}

void
IterationMemo::OnCompletion(uint32_t t)
{
    const TransferRecord& r = m_exec->GetRecord(t);
    if (!r.recvDone || !r.sendDone)
    {
        return;
    }
    int32_t job = -1;
    if (m_lazy)
    {
        for (uint32_t j = 0; j < m_jobRange.size() && job < 0; ++j)
        {
            job = m_jobRange[j].first <= t && t < m_jobRange[j].second ? j : -1;
        }
    }
    else
    {
        job = m_jobOf[t];
    }
    if (job < 0)
    {
        return;
    }
    --m_jobLeft[job];
    const auto [j, i] = IterationOf(t);
    if (j < 0)
    {
        return;
    }
    Iteration& it = m_jobs[j].iters[i];
    it.maxFctPs = std::max(it.maxFctPs, static_cast<double>(r.recvDonePs - r.startPs));
    // A possible memo (simulated, its snapshots kept: Usable): its record as it finished
    // (OnRetire / Refresh update it later).
    if (!it.replayed && !it.ports.empty())
    {
        if (!it.records)
        {
            it.records = std::make_shared<Records>(it.count);
            g_heldRecords += it.count;
        }
        (*it.records)[t - it.first] = r;
    }
    if (++it.finished == it.count)
    {
        m_open.erase(it.first);
        it.finishPs = RunClock::NowPs();
        if (!it.replayed && !it.ports.empty())
        {
            // Read in the trace of its last completion, before the executor's all-done
            // callback: where packet mode stops when the run ends with this iteration.
            it.finishPorts = m_portSnapshot ? m_portSnapshot() : m_probe().ports;
        }
    }
}

void
IterationMemo::OnFire(uint32_t trigger)
{
    const auto [j, i] = m_startOf[trigger];
    if (j < 0)
    {
        return;
    }
    // Called before the trigger's waiters are scheduled: this decision runs before they start.
    RunClock::NoteAbsolute(Simulator::Schedule(PicoSeconds(m_jobs[j].iters[i].startDelayPs),
                                               &IterationMemo::Decide, this,
                                               static_cast<uint32_t>(j), static_cast<uint32_t>(i)));
}

std::string
IterationMemo::ForeignActivity(uint32_t job, uint64_t fromPs, uint64_t toPs) const
{
    const WorkloadExecutor& records = *m_exec;
    for (uint32_t t : m_foreign)
    {
        const TransferRecord& r = records.GetRecord(t);
        if (r.recvDone && r.sendDone && std::max(r.recvDonePs, r.sendDonePs) < fromPs)
        {
            continue; // over before the span
        }
        const TransferSpec& ts = records.GetTransfer(t);
        const bool live = r.started && r.startPs <= toPs;
        // Due in the span: an untimed (triggered) transfer that has not started is due any time.
        const bool due = !r.started && (ts.trigger >= 0 || ts.startPs <= toPs);
        if (live || due)
        {
            return ts.background ? "background_traffic" : "other_job_live";
        }
    }
    for (uint32_t k = 0; k < m_jobLeft.size(); ++k)
    {
        if (k != job && m_jobLeft[k] > 0)
        {
            return "other_job_live";
        }
    }
    return "";
}

bool
IterationMemo::Usable(Job& j, uint32_t m, uint64_t pattern) const
{
    Iteration& c = j.iters[m];
    return c.decided && !c.replayed && c.pattern == pattern && !c.ports.empty() && c.records &&
           j.iters[m + 1].decided && Finished(c);
}

std::vector<IterationBrief>
IterationMemo::History(const Job& j, uint32_t i) const
{
    std::vector<IterationBrief> h;
    // The latest iterations may still be finishing (no compute time: i - 1's last ACKs are in
    // flight when i starts): skip those, then take consecutive finished ones.
    uint32_t x = i;
    while (x > 0 && !Finished(j.iters[x - 1]))
    {
        --x;
        if (i - x > m_maxPeriod + 2)
        {
            return h;
        }
    }
    for (; x > 0 && h.size() < m_recurrenceSpan; --x)
    {
        const Iteration& it = j.iters[x - 1];
        if (!Finished(it) || !j.iters[x].decided)
        {
            break;
        }
        IterationBrief b;
        b.lengthPs = static_cast<double>(j.iters[x].startPs - it.startPs);
        b.maxFctPs = it.maxFctPs;
        b.pattern = it.pattern;
        h.push_back(b);
    }
    std::reverse(h.begin(), h.end());
    return h;
}

int64_t
IterationMemo::SteadyMemo(Job& j, uint32_t i, bool& drew, bool& trend,
                          RecurrenceVerdict& recurrence) const
{
    drew = false;
    trend = false;
    recurrence = RecurrenceVerdict::Covered;
    std::vector<IterationBrief> history; // read once, when a period first holds
    if (m_steadyTolerance <= 0)
    {
        return -1;
    }
    const uint64_t pattern = j.iters[i].pattern;
    const uint32_t depth = std::max(m_steadyIterations, m_steadyTrendSpan);
    // Period P: iteration i behaves as i - P did (P = 2 when consecutive iterations alternate,
    // e.g. as the previous iteration's tail overlaps them differently). Its phase's memo is
    // i - P, or the iteration that one was replayed from.
    for (uint32_t period = 1; period <= m_maxPeriod && period <= i; ++period)
    {
        // The latest iteration of i's phase that is usable: i - P is often not finished yet
        // (its last ACKs are in flight when i starts without compute time): then i - 2P.
        int64_t found = -1;
        for (uint32_t back = period; back <= 2 * period && back <= i && found < 0; back += period)
        {
            const Iteration& phase = j.iters[i - back];
            const uint32_t x = phase.replayed ? phase.source : i - back;
            found = Usable(j, x, pattern) ? static_cast<int64_t>(x) : -1;
        }
        const uint64_t reach = static_cast<uint64_t>(m_steadyIterations - 1) * period;
        if (found < 0 || static_cast<uint64_t>(found) < reach)
        {
            continue;
        }
        const auto src = static_cast<uint32_t>(found);
        // Every phase of the period, not i's alone: the P iterations before i (each, or the
        // one a period before it when it is not usable yet), each with its phase newest first
        // (y, y - P, ...; an iteration that cannot be compared has no records). A sequence
        // that repeats with period P over the span repeats in every phase; checking i's phase
        // alone let a period-1 replay stand for a cycle of period 4 (CONGA with compute time),
        // and the iterations of its other phases were then simulated from a policy state the
        // replay had not advanced.
        // y is simulated (a replayed start is mapped to its memo by the caller); the older
        // ones are compared as they are: a replayed one is no evidence (it may be a copy of
        // the newest).
        auto chain = [&](uint32_t y) {
            std::vector<PhaseIteration> phase;
            for (uint32_t c = 0; c < depth && static_cast<uint64_t>(c) * period <= y; ++c)
            {
                const uint32_t x = y - c * period;
                PhaseIteration p;
                if (Usable(j, x, pattern))
                {
                    p.lengthPs = static_cast<double>(j.iters[x + 1].startPs - j.iters[x].startPs);
                    p.records = j.iters[x].records.get();
                }
                phase.push_back(p);
            }
            return phase;
        };
        SteadyVerdict v = JudgePhase(chain(src), m_steadyIterations, m_steadyTrendSpan,
                                     m_steadyTolerance);
        for (uint32_t o = 1; o < period && v != SteadyVerdict::Differ; ++o)
        {
            // Phase i - o: from i - o, or i - o - P while i - o is still finishing.
            SteadyVerdict w = SteadyVerdict::Differ;
            for (uint32_t back = o; back <= o + period && back <= i; back += period)
            {
                const Iteration& at = j.iters[i - back];
                const uint32_t x = at.replayed ? at.source : i - back;
                if (Usable(j, x, pattern))
                {
                    w = JudgePhase(chain(x), m_steadyIterations, m_steadyTrendSpan,
                                   m_steadyTolerance);
                    break;
                }
            }
            if (w == SteadyVerdict::Differ || v == SteadyVerdict::Agree)
            {
                v = w;
            }
        }
        if (v == SteadyVerdict::Differ)
        {
            continue;
        }
        // A policy that drew at random in one of them (LetFlow's port per new flowlet): each
        // iteration is a sample of the draws' outcomes, not a fixed point, and two samples can
        // agree by chance; replaying one for the rest of the job would fix that draw. Such
        // iterations are for the sampled rule.
        bool agree = true;
        for (uint32_t c = 0; agree && c < m_steadyIterations; ++c)
        {
            const uint32_t x = src - c * period;
            if (j.iters[x + 1].randomDraws != j.iters[x].randomDraws)
            {
                agree = false;
                drew = true;
            }
        }
        // They agreed, but the phase moved over the longer span: a slow drift or a cycle the
        // few compared did not show (CONGA with compute time: two consecutive iterations
        // equal, the sequence cycling with period 4 around them).
        trend = trend || (agree && v == SteadyVerdict::Trend);
        if (agree && v == SteadyVerdict::Agree)
        {
            // The period held over the trend span; it must also hold over the job's latest
            // RecurrenceSpan iterations: a rare slow iteration recurring with a longer period
            // (CONGA rotating a degraded uplink through its choices: one iteration in 12) lies
            // in that window, and a replay with this period would never give it.
            if (history.empty())
            {
                history = History(j, i);
            }
            const RecurrenceVerdict r =
                JudgeRecurrence(history, period, m_recurrenceSpan, m_steadyTolerance);
            if (r == RecurrenceVerdict::Covered)
            {
                return src;
            }
            if (recurrence != RecurrenceVerdict::Missed)
            {
                recurrence = r;
            }
        }
    }
    return -1;
}

int64_t
IterationMemo::SampledMemo(Job& j, uint32_t i, bool& uncertain, RecurrenceVerdict& recurrence)
{
    uncertain = false;
    const uint32_t w = m_sampleIterations;
    if (w == 0)
    {
        return -1;
    }
    const uint64_t pattern = j.iters[i].pattern;
    // The pool: the latest 2W simulated iterations of this traffic that can be memos, oldest
    // first. An iteration simulated in between (other traffic, a failure) is skipped; one of
    // this traffic that is not usable (not finished yet, its snapshots freed) ends the pool.
    std::vector<uint32_t> pool;
    for (size_t k = j.simulated.size(); k-- > 0 && pool.size() < 2 * w;)
    {
        const uint32_t m = j.simulated[k];
        if (m == i || j.iters[m].pattern != pattern)
        {
            continue;
        }
        if (!Usable(j, m, pattern))
        {
            if (pool.empty())
            {
                continue; // the latest ones may still be finishing
            }
            break;
        }
        pool.push_back(m);
    }
    if (pool.size() < 2 * w)
    {
        return -1;
    }
    std::reverse(pool.begin(), pool.end());
    // Two windows of W: mean iteration time and mean FCT over their transfers, and the
    // policies' random draws; then the pool's t-intervals (JudgePool).
    // The draws too: iterations are samples of one distribution only while the random process
    // behind them is (a spraying policy draws about as often in every iteration). A policy
    // that keeps its draws as state and stops drawing once it has settled (LetFlow's flowlets
    // when no gap ends them) draws less and less: a transient towards a fixed point, which the
    // steady rule takes once the draws stop, not a pool to replay.
    std::vector<PoolIteration> samples;
    for (uint32_t m : pool)
    {
        const Iteration& it = j.iters[m];
        PoolIteration p;
        p.lengthPs = static_cast<double>(j.iters[m + 1].startPs - it.startPs);
        p.draws = static_cast<double>(j.iters[m + 1].randomDraws - it.randomDraws);
        for (const TransferRecord& r : *it.records)
        {
            p.fctSumPs += static_cast<double>(r.recvDonePs - r.startPs);
            ++p.transfers;
        }
        samples.push_back(p);
    }
    const SampledVerdict v = JudgePool(samples, w, m_sampleTolerance, m_sampleConfidence);
    uncertain = v == SampledVerdict::MeanUncertain;
    if (v != SampledVerdict::Accept)
    {
        return -1;
    }
    // The pool cycles: an iteration slower than all of it is never replayed. Its slowest must
    // bound the job's latest RecurrenceSpan iterations of its traffic (a rare slow mode that
    // recurs within that many iterations and is not in the pool is refused).
    std::vector<IterationBrief> briefs;
    for (size_t k = 0; k < pool.size(); ++k)
    {
        IterationBrief b;
        b.lengthPs = samples[k].lengthPs;
        b.maxFctPs = j.iters[pool[k]].maxFctPs;
        b.pattern = pattern;
        briefs.push_back(b);
    }
    const RecurrenceVerdict r =
        JudgeTailCover(History(j, i), briefs, m_recurrenceSpan, m_sampleTolerance);
    if (r != RecurrenceVerdict::Covered)
    {
        if (recurrence != RecurrenceVerdict::Missed)
        {
            recurrence = r;
        }
        return -1;
    }
    // Cycle through the pool in order: the replays take each sample as often as the others.
    return pool[j.sampledReplays % pool.size()];
}

void
IterationMemo::AddDelta(Job& j, uint32_t i, const Iteration& m, const Iteration& next)
{
    FlushReplay(j, false);
    Job::PendingReplay& r = j.pending;
    r.active = true;
    r.iteration = i;
    const size_t n = std::min(next.ports.size(), m.ports.size());
    r.toNext.assign(n, PortCounters());
    for (size_t p = 0; p < n; ++p)
    {
        AddPortDelta(r.toNext[p], next.ports[p], m.ports[p]);
    }
    r.toFinish.clear();
    // Only a memo that finished before its successor started (always under the exact rule):
    // with no gap, its last ACKs overlap the successor's first frames, which its counters at
    // its finish include.
    if (m.finishPorts.size() >= n && m.finishPs <= next.startPs)
    {
        r.toFinish.assign(n, PortCounters());
        for (size_t p = 0; p < n; ++p)
        {
            AddPortDelta(r.toFinish[p], m.finishPorts[p], m.ports[p]);
        }
    }
}

void
IterationMemo::FlushReplay(Job& j, bool runEnded)
{
    Job::PendingReplay& r = j.pending;
    if (!r.active)
    {
        return;
    }
    const std::vector<PortCounters>& d = runEnded && !r.toFinish.empty() ? r.toFinish : r.toNext;
    if (m_replayedPorts.size() < d.size())
    {
        m_replayedPorts.resize(d.size());
    }
    const PortCounters zero;
    for (size_t p = 0; p < d.size(); ++p)
    {
        AddPortDelta(m_replayedPorts[p], d[p], zero);
    }
    r = Job::PendingReplay();
}

const std::vector<PortCounters>&
IterationMemo::SettleReplayedPorts()
{
    const uint64_t now = RunClock::NowPs();
    for (Job& j : m_jobs)
    {
        if (j.pending.active)
        {
            const Iteration& it = j.iters[j.pending.iteration];
            FlushReplay(j, Finished(it) && it.finishPs == now);
        }
    }
    return m_replayedPorts;
}

bool
IterationMemo::SameStartState(const std::vector<uint64_t>& cState,
                              const std::vector<uint32_t>& cCursors,
                              const std::vector<uint64_t>& nState,
                              const std::vector<uint64_t>& nCreated,
                              const std::vector<uint32_t>& nCursors,
                              const std::vector<uint64_t>& nowState,
                              const std::vector<uint32_t>& nowCursors,
                              const std::vector<uint8_t>& nowIdle)
{
    // The iteration starts where the memo ended (the fixed point's second half), with perhaps
    // connections created since: appended in creation order (n's QPs and cursors a prefix of
    // now's, equal there), every QP beyond them idle now. Their cursors are no condition: a
    // connection's cursor moves only when a transfer is posted on it.
    if (nowState.size() < nState.size() || nowCursors.size() < nCursors.size() ||
        !std::equal(nState.begin(), nState.end(), nowState.begin()) ||
        !std::equal(nCursors.begin(), nCursors.end(), nowCursors.begin()))
    {
        return false;
    }
    if (nowState.size() > nState.size() &&
        (nowIdle.size() != nowState.size() ||
         !std::all_of(nowIdle.begin() + static_cast<std::ptrdiff_t>(nState.size()), nowIdle.end(),
                      [](uint8_t x) { return x == 1; })))
    {
        return false;
    }
    if (cState == nState && cCursors == nCursors)
    {
        return true; // nothing created in the memo: the rule as it always was
    }
    // QPs and connections are only ever added, in creation order: those at c's start must be
    // a prefix of n's, in the same state.
    if (cState.size() > nState.size() || cCursors.size() > nCursors.size() ||
        !std::equal(cState.begin(), cState.end(), nState.begin()) ||
        !std::equal(cCursors.begin(), cCursors.end(), nCursors.begin()))
    {
        return false;
    }
    // Created in the memo: each QP ended it in the state it was created in, each connection's
    // cursor where a new one's starts.
    if (nCreated.size() != nState.size() ||
        !std::equal(nState.begin() + static_cast<std::ptrdiff_t>(cState.size()), nState.end(),
                    nCreated.begin() + static_cast<std::ptrdiff_t>(cState.size())))
    {
        return false;
    }
    return std::all_of(nCursors.begin() + static_cast<std::ptrdiff_t>(cCursors.size()),
                       nCursors.end(), [](uint32_t x) { return x == 0; });
}

void
IterationMemo::Decide(uint32_t job, uint32_t i)
{
    DecideReplay(job, i);
    // Only the latest simulated iterations serve as memos (and their successors' snapshots
    // end them): free the snapshots of the others.
    Job& j = m_jobs[job];
    if (!j.iters[i].replayed)
    {
        j.simulated.push_back(i);
    }
    j.held.push_back(i);
    // The steady rule looks back SteadyIterations (and SteadyTrendSpan) phases of up to
    // SteadyMaxPeriod, the sampled
    // rule at 2 x SampleIterations iterations of one traffic. Kept: per traffic pattern, its
    // latest `window` simulated iterations (and each one's successor, whose start snapshot
    // ends it), for the latest SteadyMaxPeriod patterns simulated; a job whose iterations
    // alternate traffic (a collective every second iteration) keeps each pattern's own pool.
    // Bounded: at most window x SteadyMaxPeriod memos, however many iterations the job runs.
    const size_t window =
        std::max({static_cast<size_t>(m_steadyIterations) * m_maxPeriod,
                  (static_cast<size_t>(m_steadyTrendSpan) + 1) * m_maxPeriod,
                  2 * static_cast<size_t>(m_sampleIterations)}) +
        2;
    std::vector<std::pair<uint64_t, size_t>> patterns; // (pattern, memos kept), latest first
    std::vector<uint32_t> keep{i};
    for (size_t k = j.simulated.size(); k-- > 0;)
    {
        const uint32_t m = j.simulated[k];
        const uint64_t p = j.iters[m].pattern;
        auto at = std::find_if(patterns.begin(), patterns.end(),
                               [p](const auto& e) { return e.first == p; });
        if (at == patterns.end())
        {
            if (patterns.size() >= std::max<size_t>(m_maxPeriod, 1))
            {
                continue; // an older pattern: none of its iterations is kept
            }
            patterns.emplace_back(p, 0);
            at = patterns.end() - 1;
        }
        if (at->second < window)
        {
            ++at->second;
            keep.push_back(m);
            keep.push_back(m + 1);
        }
        if (j.simulated.size() - k > window * std::max<size_t>(m_maxPeriod, 1) * 4)
        {
            break; // far enough back: what is older is freed already or never needed
        }
    }
    std::vector<uint32_t> still;
    for (uint32_t x : j.held)
    {
        if (x < i && std::find(keep.begin(), keep.end(), x) == keep.end())
        {
            std::vector<PortCounters>().swap(j.iters[x].ports);
            std::vector<PortCounters>().swap(j.iters[x].finishPorts);
            std::vector<uint64_t>().swap(j.iters[x].state);
            std::vector<uint64_t>().swap(j.iters[x].created);
            FreeRecords(j.iters[x]);
            continue;
        }
        still.push_back(x);
    }
    j.held.swap(still);
}

void
IterationMemo::DecideReplay(uint32_t job, uint32_t i)
{
    Job& j = m_jobs[job];
    Iteration& it = j.iters[i];
    const uint64_t now = RunClock::NowPs();
    FabricProbeResult probe = m_probe();
    it.decided = true;
    it.startPs = now;
    it.notQuiescent = std::move(probe.notQuiescent);
    it.exactWhyNot = std::move(probe.exactWhyNot);
    it.state = std::move(probe.state);
    it.created = std::move(probe.created);
    it.ports = std::move(probe.ports);
    it.randomDraws = probe.randomDraws;
    NS_LOG_INFO("job " << job << " iteration " << i << " decided at " << now
                        << " ps, policies' random draws so far " << it.randomDraws);
    it.cursors = m_exec->GetQpCursors();
    it.othersLive = false;
    for (uint32_t k = 0; k < m_jobLeft.size(); ++k)
    {
        it.othersLive = it.othersLive || (k != job && m_jobLeft[k] > 0);
    }
    auto simulate = [&](const std::string& reason) {
        ++m_stats.simulated;
        ++m_stats.fallbacks[reason];
    };
    if (!m_refusal.empty())
    {
        return simulate(m_refusal);
    }
    // Memo candidates, latest first: simulated, finished, the next iteration started, the
    // same traffic, its snapshots kept.
    std::vector<uint32_t> candidates;
    for (size_t k = j.simulated.size(); k-- > 0 && candidates.size() < m_steadyIterations + 2;)
    {
        if (Usable(j, j.simulated[k], it.pattern))
        {
            candidates.push_back(j.simulated[k]);
        }
    }
    if (candidates.empty())
    {
        bool sameEarlier = false;
        for (uint32_t m : j.simulated)
        {
            sameEarlier = sameEarlier || j.iters[m].pattern == it.pattern;
        }
        return simulate(sameEarlier || j.simulated.empty() ? "no_memo" : "traffic_differs");
    }
    // The span checks, on the latest memo: its span and the replay's.
    const uint32_t latest = candidates[0];
    const uint64_t spanPs = j.iters[latest + 1].startPs - j.iters[latest].startPs;
    const std::string failure = m_span ? m_span(j.iters[latest].startPs, now + spanPs) : "";
    if (!failure.empty())
    {
        return simulate(failure);
    }
    if (j.iters[latest].othersLive || j.iters[latest + 1].othersLive)
    {
        return simulate("other_job_live");
    }
    const std::string foreign = ForeignActivity(job, j.iters[latest].startPs, now + spanPs);
    if (!foreign.empty())
    {
        return simulate(foreign);
    }

    // The exact rule: a memo whose start and end states equal each other and now's.
    int64_t memo = -1;
    std::string exactWhyNot = m_exactWhyNot;
    if (m_exactAllowed)
    {
        exactWhyNot = !it.notQuiescent.empty() ? "not_quiescent" : "state_differs";
        for (uint32_t m : candidates)
        {
            const Iteration& c = j.iters[m];
            const Iteration& n = j.iters[m + 1];
            if (!n.exactWhyNot.empty())
            {
                exactWhyNot = n.exactWhyNot;
                continue;
            }
            if (!c.notQuiescent.empty() || !n.notQuiescent.empty())
            {
                if (exactWhyNot == "state_differs")
                {
                    exactWhyNot = "not_quiescent";
                }
                continue;
            }
            if (it.notQuiescent.empty() &&
                SameStartState(c.state, c.cursors, n.state, n.created, n.cursors, it.state,
                               it.cursors, probe.idle))
            {
                memo = m;
                break;
            }
        }
    }
    bool exact = memo >= 0;
    bool sampled = false;
    bool drew = false;
    bool trend = false;
    bool uncertain = false;
    RecurrenceVerdict recurrence = RecurrenceVerdict::Covered;
    if (!exact)
    {
        ++m_stats.exactRefusals[exactWhyNot];
        if (!m_inexactWhyNot.empty())
        {
            return simulate(m_inexactWhyNot);
        }
        memo = SteadyMemo(j, i, drew, trend, recurrence);
    }
    if (!exact && memo < 0 && m_sampledWhyNot.empty())
    {
        memo = SampledMemo(j, i, uncertain, recurrence);
        sampled = memo >= 0;
    }
    if (memo < 0)
    {
        // Neither rule held; when the sampled rule is refused for the run, that is the reason;
        // when a rule held but the job's latest RecurrenceSpan iterations hold one its replay
        // would not give (or the job has not run that many yet), that; when the sampled
        // rule's windows agreed but the pool's mean is not known within the tolerance, that;
        // when the steady rule's iterations agreed but trended over its span, or drew at
        // random, that.
        return simulate(!m_sampledWhyNot.empty() ? m_sampledWhyNot
                        : recurrence == RecurrenceVerdict::Missed ? "recurrence_missed"
                        : recurrence == RecurrenceVerdict::Short  ? "recurrence_short"
                        : uncertain              ? "sampled_mean_uncertain"
                        : trend                  ? "steady_trend"
                        : drew                   ? "steady_random_draws"
                                                 : "steady_state_not_reached");
    }
    if (static_cast<uint32_t>(memo) != latest)
    {
        // The span checks again, on the memo chosen.
        const uint64_t len = j.iters[memo + 1].startPs - j.iters[memo].startPs;
        std::string why = m_span ? m_span(j.iters[memo].startPs, now + len) : "";
        why = why.empty() && (j.iters[memo].othersLive || j.iters[memo + 1].othersLive)
                  ? "other_job_live"
                  : why;
        why = why.empty() ? ForeignActivity(job, j.iters[memo].startPs, now + len) : why;
        if (!why.empty())
        {
            return simulate(why);
        }
    }
    Iteration& m = j.iters[memo];
    const Iteration& next = j.iters[memo + 1];
    for (size_t p = 0; p < next.ports.size() && p < m.ports.size(); ++p)
    {
        if (next.ports[p].pfcTx != m.ports[p].pfcTx)
        {
            // pfc_events.csv would miss the memo's pauses, and the paused time its ports.
            return simulate("pfc_in_memo");
        }
    }
    NS_ABORT_MSG_IF(m.count != it.count,
                    "IterationMemo: iterations of one traffic hash differ in size");
    Refresh(m); // as the executor has m's records now (a whole build keeps them)
    m_exec->SetReplay(it.first, m.records);
    m_stats.replayedBytes += it.bytes;
    it.replayed = true;
    it.source = static_cast<uint32_t>(memo);
    AddDelta(j, i, m, next);
    m_stats.replayedPs += next.startPs - m.startPs;
    if (sampled)
    {
        ++j.sampledReplays;
        ++m_stats.replayedSampled;
    }
    else
    {
        ++(exact ? m_stats.replayedExact : m_stats.replayedSteady);
    }
}

} // namespace ns3
