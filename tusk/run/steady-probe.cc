/*
 * tusk: SteadyProbe (steady-probe.h).
 */
#include "run/steady-probe.h"

#include "run/metrics-sink.h"
#include "run/run-stages.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/model/kernel/run-clock.h"
#include "fabric/model/switch-node.h"
#include "fabric/model/switch-port.h"
#include "rdma/model/headers/roce-header.h"
#include "rdma/model/rdma-nic.h"
#include "rdma/model/rdma-queue-pair.h"
#include "workload/model/workload-executor.h"
#include "workload/model/workload-spec.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace tusk
{

using namespace ns3;

uint64_t
SteadyProbe::WindowPs(const ScenarioSpec& spec, const std::vector<uint64_t>& baseRttsPs,
                      uint64_t ccTimerPs)
{
    if (spec.simulator.steadyWindowPs > 0)
    {
        return spec.simulator.steadyWindowPs;
    }
    uint64_t rtt = 0;
    for (const uint64_t r : baseRttsPs)
    {
        rtt = std::max(rtt, r);
    }
    // A control that steps its rate on a timer looks steady over less than a period
    // (dcqcn-fairness: 3 windows of 4 RTTs fit between two of DCQCN's steps).
    return std::max<uint64_t>({4 * rtt, 2 * ccTimerPs, 1'000'000}); // at least 1 µs
}

void
SteadyProbe::Attach(const ScenarioSpec& spec,
                    const BuiltFabric& built,
                    Ptr<WorkloadExecutor> exec,
                    const WorkloadSpec& workload,
                    MetricsSink* sink)
{
    if (!spec.simulator.steadyProbe && !spec.simulator.Jumps())
    {
        return;
    }
    std::vector<uint64_t> rtts;
    for (const auto& c : PathClasses(spec, built, built.fabric.graph.NumRankHosts()))
    {
        rtts.push_back(c.baseRttPs);
    }
    // An instance of the run's control, with the run's attribute defaults
    // (ConfigureCongestionControl), says how far apart its timers step the rate.
    ObjectFactory factory(CongestionControlOf(spec).typeId);
    const int64_t ccTimerPs =
        factory.Create<RdmaCongestionControl>()->RateTimerPeriod().GetPicoSeconds();
    m_windowPs = WindowPs(spec, rtts, static_cast<uint64_t>(std::max<int64_t>(ccTimerPs, 0)));
    m_windowsK = spec.simulator.steadyWindows;
    SteadyParams p;
    p.windows = spec.simulator.steadyWindows;
    p.tolerance = spec.simulator.steadyTolerance;
    p.windowPs = m_windowPs;
    p.rateFloorBytes = spec.nic.mtuBytes;
    // Two frames: an MTU's payload and its headers, twice.
    p.queueFloorBytes = 2 * (static_cast<uint64_t>(spec.nic.mtuBytes) + kRoceDataOverheadBytes);
    if (spec.simulator.steadyProbe)
    {
        m_judge = std::make_unique<SteadyJudge>(p);
        m_components = std::make_unique<SteadyComponents>(p);
        for (const uint32_t spans : kSteadyJumpBounds)
        {
            SteadyParams bp = p;
            bp.maxJumpSpans = spans;
            m_bounded.push_back({std::make_unique<SteadyJudge>(bp),
                                 std::make_unique<SteadyComponents>(bp)});
        }
    }
    if (spec.simulator.Jumps())
    {
        NS_ABORT_MSG_IF(sink == nullptr, "SteadyProbe: steady-state jumps need the metrics sink");
        SteadyParams jp = p;
        jp.maxJumpSpans = spec.simulator.steadyJumpSpans;
        m_jumper = std::make_unique<SteadyJumper>(jp);
        m_sink = sink;
        // A control that steps its rate on feedback spaced by its own rate (TIMELY: an RTT
        // sample per segment) can look flat between two steps for longer than the probe's
        // history, and a jump passes the next steps (measured: dcqcn-fairness with TIMELY, 28 %
        // late): the control says so (RdmaCongestionControl::StepsOnSparseFeedback). Outputs
        // that count every packet would miss the skipped ones.
        if (ObjectFactory(CongestionControlOf(spec).typeId)
                .Create<RdmaCongestionControl>()
                ->StepsOnSparseFeedback())
        {
            m_jumpBlocked = "cc_sparse_feedback";
        }
        else if (spec.output.pcap)
        {
            m_jumpBlocked = "pcap";
        }
        else if (spec.output.pathTelemetry || spec.output.pathTelemetryRoutes)
        {
            m_jumpBlocked = "path_telemetry";
        }
        else if (spec.output.arTelemetry)
        {
            m_jumpBlocked = "ar_telemetry";
        }
    }
    m_exec = exec;
    m_exec->TrackPendingStarts(); // triggered starts after a delay cap the horizon (CapPs)
    m_fabric = &built.fabric;
    m_linkIndex.assign(built.fabric.graph.links.size(), -1);
    for (const auto& sw : built.fabric.switches)
    {
        for (uint16_t i = 0; i < sw->GetNPorts(); ++i)
        {
            m_ports.push_back(sw->GetPort(i));
        }
    }
    // Port 2k is fabric.links[k]'s end at vertex a, port 2k + 1 its end at vertex b.
    for (size_t k = 0; k < built.fabric.links.size(); ++k)
    {
        const auto& l = built.fabric.links[k];
        m_linkIndex[l.graphLink] = static_cast<int64_t>(k);
        m_devices.push_back(l.devA);
        m_devices.push_back(l.devB);
    }
    for (const auto& dev : m_devices)
    {
        m_devicePorts.push_back(DynamicCast<SwitchPort>(dev));
    }
    m_devPfc.assign(m_devices.size(), 0);
    m_devDrops.assign(m_devices.size(), 0);
    m_devMarks.assign(m_devices.size(), 0);
    for (const auto& t : workload.transfers)
    {
        if (t.trigger < 0)
        {
            m_arrivals.push_back(t.startPs);
        }
    }
    std::sort(m_arrivals.begin(), m_arrivals.end());
    m_failures = FailureWindows(spec, &built.fabric.graph);
    for (const auto& f : spec.failures)
    {
        if (f.kind == "loss" || f.kind == "gray")
        {
            m_randomFailures.emplace_back(f.atPs, f.untilPs.value_or(UINT64_MAX));
        }
    }
    m_stopPs = spec.stopTimePs;
    // Connecting a trace source changes nothing the simulation does.
    exec->TraceConnectWithoutContext("TransferStarted", MakeBoundCallback(&OnStarted, this));
    exec->TraceConnectWithoutContext("TransferAcknowledged",
                                     MakeBoundCallback(&OnAcknowledged, this));
    Simulator::Schedule(PicoSeconds(m_windowPs), &SteadyProbe::Tick, this);
    exec->NoteReadOnlyEvent();
}

void
SteadyProbe::OnStarted(SteadyProbe* self, uint32_t transfer)
{
    self->m_active.insert(transfer);
    self->m_startedBytes += self->m_exec->GetTransfer(transfer).bytes;
    ++self->m_starts;
    if (self->m_components)
    {
        self->m_routes[transfer].started = true;
    }
    if (!self->m_ticking && self->m_exec->GetRecord(transfer).counterpart == nullptr)
    {
        self->m_ticking = true; // a simulated transfer: windows again, from now
        self->ScheduleTick();
    }
}

void
SteadyProbe::OnAcknowledged(SteadyProbe* self, uint32_t transfer)
{
    self->m_active.erase(transfer);
    if (self->m_components)
    {
        // Its record is readable now (a job iteration may retire it before the next window).
        Route& r = self->m_routes[transfer];
        self->UpdateRoute(transfer, r);
    }
    if (self->m_ticking) // not ticking: the next window only sets baselines (m_resync)
    {
        self->m_endedInWindow.push_back(transfer);
    }
}

uint32_t
SteadyProbe::EgressPort(uint32_t gl, uint32_t from) const
{
    const int64_t k = m_linkIndex[gl];
    return static_cast<uint32_t>(2 * k) + (m_fabric->graph.links[gl].a == from ? 0 : 1);
}

const std::vector<uint32_t>*
SteadyProbe::PathPorts(uint32_t src, uint64_t path)
{
    const auto key = std::make_pair(src, path);
    const auto it = m_pathPorts.find(key);
    if (it != m_pathPorts.end())
    {
        return &it->second;
    }
    if (path == kUnknownPath || m_badPaths.count(key) > 0)
    {
        return nullptr;
    }
    std::vector<uint32_t> links;
    if (!m_fabric->DecodePath(src, path, links))
    {
        m_badPaths.insert(key);
        return nullptr;
    }
    // Walk from the source: each link is left by the port at the vertex we are at.
    std::vector<uint32_t> ports;
    uint32_t at = src;
    for (const uint32_t gl : links)
    {
        if (m_linkIndex[gl] < 0)
        {
            m_badPaths.insert(key);
            return nullptr;
        }
        ports.push_back(EgressPort(gl, at));
        const TopoLink& l = m_fabric->graph.links[gl];
        at = l.a == at ? l.b : l.a;
    }
    std::sort(ports.begin(), ports.end());
    return &m_pathPorts.emplace(key, std::move(ports)).first->second;
}

void
SteadyProbe::UpdateRoute(uint32_t t, Route& r)
{
    const TransferRecord& rec = m_exec->GetRecord(t);
    if (rec.qps == 0 && rec.counterpart == nullptr)
    {
        return; // not on the NICs (yet, or a scale-up transfer): no fabric port
    }
    const TransferSpec& spec = m_exec->GetTransfer(t);
    const size_t before = r.ports.size();
    if (!r.endpoints)
    {
        r.endpoints = true;
        const auto& ports = m_fabric->ports;
        if (spec.src < ports.size() && spec.dst < ports.size() && ports[spec.src].size() == 1 &&
            ports[spec.dst].size() == 1 && m_linkIndex[ports[spec.src][0]] >= 0 &&
            m_linkIndex[ports[spec.dst][0]] >= 0)
        {
            // The source's NIC port, and the port into the destination (at its other end).
            r.ports.push_back(EgressPort(ports[spec.src][0], spec.src));
            const TopoLink& down = m_fabric->graph.links[ports[spec.dst][0]];
            r.ports.push_back(EgressPort(ports[spec.dst][0], down.a == spec.dst ? down.b : down.a));
        }
        else
        {
            r.unattributed = true; // a host with several links: the path does not say which
        }
    }
    const auto& paths = rec.Paths();
    for (; r.pathsSeen < paths.size(); ++r.pathsSeen)
    {
        const std::vector<uint32_t>* p = PathPorts(spec.src, paths[r.pathsSeen].first);
        if (p == nullptr)
        {
            r.unattributed = true;
            continue;
        }
        r.ports.insert(r.ports.end(), p->begin(), p->end());
    }
    if (r.ports.size() != before)
    {
        std::sort(r.ports.begin(), r.ports.end());
        r.ports.erase(std::unique(r.ports.begin(), r.ports.end()), r.ports.end());
    }
}

uint64_t
SteadyProbe::CapPs(uint64_t nowPs) const
{
    uint64_t cap = m_stopPs;
    const auto next = std::upper_bound(m_arrivals.begin(), m_arrivals.end(), nowPs);
    if (next != m_arrivals.end())
    {
        cap = std::min(cap, *next);
    }
    // Starts scheduled by a trigger that fired (a step after its compute delay) and delayed
    // activations: known once scheduled, not in the workload's times.
    cap = std::min(cap, m_exec->NextPendingStartPs());
    for (const auto& f : m_failures)
    {
        if (f.fromPs > nowPs)
        {
            cap = std::min(cap, f.fromPs);
        }
        else if (f.toPs >= nowPs)
        {
            cap = std::min(cap, nowPs); // failing now: no jump
        }
    }
    return cap;
}

void
SteadyProbe::Tick()
{
    ++m_events;
    if (!m_judge && (m_active.empty() || m_exec->PendingReplays() > 0))
    {
        // Jumps alone, and nothing a jump could take (no transfer, or fast mode replaying):
        // no window is judged, and the next one with transfers to judge only sets the
        // baselines its successors are measured from (a new history).
        m_jumper->Break();
        m_portSnaps.clear();
        m_exec->NextPendingStartPs(); // drops the starts that have passed from its heap
        m_resync = true;
        m_starts = 0;
        m_endedInWindow.clear();
        // No window until a transfer is simulated again (OnStarted): a compute gap or a
        // replayed iteration costs no tick.
        m_ticking = false;
        return;
    }
    // The run's time (RunClock): the workload's times, failures and the stop are in it.
    const uint64_t nowPs = RunClock::NowPs();
    SteadyWindow w;
    w.endPs = nowPs;

    // Every active transfer's progress in the window (m_active and m_delivered are sorted).
    std::vector<std::pair<uint32_t, uint64_t>> delivered;
    delivered.reserve(m_active.size());
    w.flows.reserve(m_active.size());
    auto prev = m_delivered.begin();
    for (const uint32_t t : m_active)
    {
        const uint64_t d = m_exec->DeliveredBytes(t);
        const uint64_t bytes = m_exec->GetTransfer(t).bytes;
        while (prev != m_delivered.end() && prev->first < t)
        {
            ++prev;
        }
        const uint64_t before = prev != m_delivered.end() && prev->first == t ? prev->second : 0;
        w.flows.push_back({t, d >= before ? d - before : 0, bytes > d ? bytes - d : 0});
        w.replayed = w.replayed || m_exec->GetRecord(t).counterpart != nullptr;
        delivered.emplace_back(t, d);
    }
    m_delivered = std::move(delivered);

    w.queues.reserve(m_ports.size());
    for (const auto& port : m_ports)
    {
        w.queues.push_back(port->GetQueueBytes());
    }

    const auto& qps = m_exec->GetQps();
    for (size_t i = 0; i < qps.size(); ++i)
    {
        if (qps[i]->GetUnackedBytes() == 0)
        {
            continue;
        }
        const Ptr<RdmaCongestionControl> cc = qps[i]->GetCongestionControl();
        if (!cc)
        {
            continue;
        }
        const RdmaCcState s = cc->GetState();
        w.cc.push_back({i, {s.rateBps, s.targetRateBps, s.alpha, s.windowBytes}});
        w.ccPartial = w.ccPartial || !cc->StateIsComplete();
    }

    // Every port's counters as deltas over the window (their sums are the fabric's).
    ComponentWindow cw;
    cw.pfc.assign(m_devices.size(), 0);
    cw.drops.assign(m_devices.size(), 0);
    cw.marks.assign(m_devices.size(), 0);
    cw.queues.assign(m_devices.size(), 0);
    uint64_t pfc = 0;
    uint64_t drops = 0;
    uint64_t marks = 0;
    for (size_t d = 0; d < m_devices.size(); ++d)
    {
        const PortCounters& c = m_devices[d]->GetCounters();
        uint64_t devDrops = 0;
        for (size_t k = 0; k < static_cast<size_t>(DropReason::COUNT); ++k)
        {
            if (static_cast<DropReason>(k) != DropReason::NIC_STALE)
            {
                devDrops += c.drops[k];
            }
        }
        pfc += c.pfcTx;
        marks += c.ecnMarks;
        drops += devDrops;
        // A PFC frame pauses or resumes the far end's port into this one, for the traffic
        // through this link; a drop, whether at ingress or egress, is the link's: both ports
        // of the link (d ^ 1 is the link's other end). A CE mark is made at this egress.
        const size_t peer = d ^ 1;
        const uint64_t dPfc = c.pfcTx - m_devPfc[d];
        const uint64_t dDrops = devDrops - m_devDrops[d];
        cw.pfc[d] += dPfc;
        cw.pfc[peer] += dPfc;
        cw.drops[d] += dDrops;
        cw.drops[peer] += dDrops;
        cw.marks[d] = c.ecnMarks - m_devMarks[d];
        m_devPfc[d] = c.pfcTx;
        m_devDrops[d] = devDrops;
        m_devMarks[d] = c.ecnMarks;
        if (m_devicePorts[d])
        {
            cw.queues[d] = m_devicePorts[d]->GetQueueBytes();
        }
    }
    w.pfcFrames = pfc - m_pfc;
    w.drops = drops - m_drops;
    w.ecnMarks = marks - m_marks;
    m_pfc = pfc;
    m_drops = drops;
    m_marks = marks;
    w.flowStarts = m_starts;
    w.flowEnds = static_cast<uint32_t>(m_endedInWindow.size());
    m_starts = 0;
    const uint64_t fromPs = nowPs - std::min(nowPs, m_windowPs);
    for (const auto& f : m_failures)
    {
        w.failure = w.failure || (f.fromPs <= nowPs && f.toPs > fromPs);
    }

    // Per component: the window's transfers (those active at its end and those acknowledged
    // in it) with their routes, the QPs' state by source host, the failures by port.
    cw.endPs = nowPs;
    if (!m_components)
    {
        m_endedInWindow.clear(); // counted in w.flowEnds; routes are the components'
    }
    else
    {
        std::map<uint32_t, uint32_t> bySource; // source host -> an active transfer of it
        auto flow = w.flows.begin();
        for (auto& [t, route] : m_routes)
        {
            ComponentWindow::Transfer ct;
            ct.id = t;
            const bool active = m_active.count(t) > 0;
            if (active)
            {
                UpdateRoute(t, route);
                while (flow != w.flows.end() && flow->id < t)
                {
                    ++flow;
                }
                if (flow != w.flows.end() && flow->id == t)
                {
                    ct.windowBytes = flow->windowBytes;
                    ct.remainingBytes = flow->remainingBytes;
                }
                ct.replayed = m_exec->GetRecord(t).counterpart != nullptr;
                bySource.emplace(m_exec->GetTransfer(t).src, t);
            }
            ct.ended = !active;
            ct.started = route.started;
            ct.unattributed = route.unattributed;
            ct.ports = route.ports;
            route.started = false;
            cw.transfers.push_back(std::move(ct));
        }
        for (size_t i = 0; i < w.cc.size(); ++i)
        {
            const uint32_t host = qps[w.cc[i].qp]->GetNic()->GetHostId();
            const auto src = bySource.find(host);
            if (src != bySource.end())
            {
                cw.cc.push_back({w.cc[i].qp, src->second, w.cc[i].words,
                                 !qps[w.cc[i].qp]->GetCongestionControl()->StateIsComplete()});
            }
        }
        for (const uint32_t t : m_endedInWindow)
        {
            if (m_active.count(t) == 0)
            {
                m_routes.erase(t);
            }
        }
        m_endedInWindow.clear();
        cw.failed.assign(m_devices.size(), 0);
        for (const auto& f : m_failures)
        {
            if (!(f.fromPs <= nowPs && f.toPs > fromPs))
            {
                continue;
            }
            if (f.links.empty())
            {
                cw.failureAll = true; // not known by its links: every component
                continue;
            }
            for (const uint32_t gl : f.links)
            {
                if (m_linkIndex[gl] >= 0)
                {
                    cw.failed[2 * m_linkIndex[gl]] = 1;
                    cw.failed[2 * m_linkIndex[gl] + 1] = 1;
                }
            }
        }
    }
    const uint64_t capPs = CapPs(nowPs);
    if (m_components)
    {
        m_components->Add(cw, capPs);
        for (auto& b : m_bounded)
        {
            b.judge->Add(w, capPs);
            b.components->Add(cw, capPs);
        }
    }
    if (m_jumper)
    {
        const std::vector<PortCounters> ports = m_sink->PortCounterSnapshot();
        std::vector<PortCounts> counts(ports.size());
        for (size_t k = 0; k < ports.size(); ++k)
        {
            counts[k] = PortCounts::Of(ports[k]);
        }
        m_portSnaps.push_back(std::move(counts));
        while (m_portSnaps.size() > kPortSnapshotsPerK * m_windowsK + 1)
        {
            m_portSnaps.pop_front();
        }
        if (m_resync)
        {
            m_resync = false; // this window's baselines are set; the next is judged
        }
        else if (const auto jump =
                     m_judge ? m_jumper->Add(w, capPs) : m_jumper->Add(std::move(w), capPs))
        {
            Jump(*jump);
        }
    }
    if (m_judge)
    {
        m_judge->Add(std::move(w), capPs);
    }
    ScheduleTick();
}

void
SteadyProbe::ScheduleTick()
{
    if (!m_exec->AllDone())
    {
        Simulator::Schedule(PicoSeconds(m_windowPs), &SteadyProbe::Tick, this);
        m_exec->NoteReadOnlyEvent(); // the replay agenda batches as without the probe
    }
}

void
SteadyProbe::Jump(const SteadyJumper::Jump& jump)
{
    if (!m_jumpBlocked.empty())
    {
        return m_jumper->Refuse(m_jumpBlocked);
    }
    if (m_exec->PendingReplays() > 0)
    {
        return m_jumper->Refuse("replay"); // fast mode's replayed completions keep their times
    }
    // The links' rates over the windows of the shortest moving transfer's history (at least
    // K: a jump of transfers that all wait credits the links at their rates over K; at most
    // 8K, what the port snapshots hold).
    const uint32_t windows = std::clamp(jump.windows, m_windowsK, kPortSnapshotsPerK * m_windowsK);
    if (m_portSnaps.size() < windows + 1)
    {
        return m_jumper->Refuse("history");
    }
    // A failure that draws per frame (loss, gray) is active: the skipped frames would not
    // be lost.
    const uint64_t nowPs = RunClock::NowPs();
    for (const auto& [from, to] : m_randomFailures)
    {
        if (from <= nowPs && nowPs < to)
        {
            return m_jumper->Refuse("random_loss");
        }
    }
    // Every moving transfer must be able to give up its packets over the jump: shorten the
    // jump to what the least able can give.
    double spanPs = static_cast<double>(jump.spanPs);
    for (const auto& [t, bytesPerPs] : jump.rates)
    {
        if (bytesPerPs <= 0)
        {
            // Moved nothing in the K windows: behind another transfer on its QP (it sent
            // nothing yet), or stalled, its sent packets waiting for a timer (a lost tail
            // and the retransmission timeout) that a jump would put off.
            if (m_exec->GetRecord(t).pktsSent > 0)
            {
                return m_jumper->Refuse("stalled");
            }
            continue;
        }
        const uint64_t can = m_exec->SkippablePackets(t);
        if (can == 0)
        {
            // Not on the NICs (a scale-up transfer), several messages, a resend pending,
            // go-back-N rewound, receiver credits: it cannot skip.
            return m_jumper->Refuse("transfer_cannot_skip");
        }
        const double mtu = m_exec->MtuBytes(t);
        spanPs = std::min(spanPs, static_cast<double>(can) * mtu / bytesPerPs);
    }
    const auto span = static_cast<uint64_t>(spanPs);
    if (span < m_windowPs)
    {
        return m_jumper->Refuse("short");
    }
    uint64_t packets = 0;
    uint64_t bytes = 0;
    for (const auto& [t, bytesPerPs] : jump.rates)
    {
        const double mtu = m_exec->MtuBytes(t);
        const auto want = static_cast<uint64_t>(bytesPerPs * static_cast<double>(span) / mtu);
        const uint64_t n = want > 0 ? m_exec->SkipPackets(t, want) : 0;
        packets += n;
        bytes += n * m_exec->MtuBytes(t);
    }
    // The links' counters at their rates over those windows (PFC frames and drops: none,
    // the last K were steady).
    const auto& from = m_portSnaps[m_portSnaps.size() - 1 - windows];
    const auto& to = m_portSnaps.back();
    const double scale = static_cast<double>(span) / static_cast<double>(m_windowPs * windows);
    auto part = [scale](uint64_t a, uint64_t b) {
        return static_cast<uint64_t>(std::llround(static_cast<double>(b - a) * scale));
    };
    std::vector<PortCounters> credit(to.size());
    for (size_t k = 0; k < to.size() && k < from.size(); ++k)
    {
        credit[k].txFrames = part(from[k].txFrames, to[k].txFrames);
        credit[k].txBytes = part(from[k].txBytes, to[k].txBytes);
        credit[k].txWireBytes = part(from[k].txWireBytes, to[k].txWireBytes);
        credit[k].rxFrames = part(from[k].rxFrames, to[k].rxFrames);
        credit[k].rxBytes = part(from[k].rxBytes, to[k].rxBytes);
        credit[k].ecnMarks = part(from[k].ecnMarks, to[k].ecnMarks);
    }
    m_sink->AddSkippedCounters(credit);
    RunClock::Skip(span);
    m_jumper->Made(jump, span, packets, bytes);
    // The windows after the jump start from what the ports count now, credit included: the
    // snapshots before it get the credit too, so that no difference over windows holds it.
    for (auto& snap : m_portSnaps)
    {
        for (size_t k = 0; k < snap.size() && k < credit.size(); ++k)
        {
            snap[k] += PortCounts::Of(credit[k]);
        }
    }
    for (auto& [t, delivered] : m_delivered)
    {
        delivered = m_exec->DeliveredBytes(t);
    }
}

SteadyJumpStats
SteadyProbe::JumpStats() const
{
    return m_jumper ? m_jumper->Stats() : SteadyJumpStats();
}

void
SteadyProbe::Finish()
{
    if (!m_judge)
    {
        return;
    }
    // The run stopped at its last acknowledgement (or at the stop time with transfers left):
    // when every transfer is done, a jump that reached past the last window is measured too.
    const bool allDone = m_exec->AllDone();
    const uint64_t nowPs = RunClock::NowPs();
    const auto ends = static_cast<uint32_t>(m_endedInWindow.size());
    m_judge->AddTailEnds(nowPs, ends, allDone);
    m_components->AddTailEnds(nowPs, m_endedInWindow, allDone);
    for (auto& b : m_bounded)
    {
        b.judge->AddTailEnds(nowPs, ends, allDone);
        b.components->AddTailEnds(nowPs, m_endedInWindow, allDone);
    }
    m_endedInWindow.clear();
}

SteadyProbeStats
SteadyProbe::Stats() const
{
    if (!m_judge)
    {
        return SteadyProbeStats();
    }
    SteadyProbeStats s = m_judge->Stats();
    s.startedBytes = m_startedBytes;
    s.components = m_components->Stats();
    for (const auto& b : m_bounded)
    {
        s.bounded.push_back({b.judge->Params().maxJumpSpans, b.judge->Stats(),
                             b.components->Stats()});
    }
    return s;
}

void
SteadyProbe::Dispose()
{
    m_exec = nullptr;
    m_ports.clear();
    m_devices.clear();
    m_devicePorts.clear();
    m_fabric = nullptr;
}

} // namespace tusk
