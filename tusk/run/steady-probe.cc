/*
 * tusk: SteadyProbe (steady-probe.h).
 */
#include "run/steady-probe.h"

#include "run/run-stages.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/model/switch-node.h"
#include "fabric/model/switch-port.h"
#include "rdma/model/headers/roce-header.h"
#include "rdma/model/rdma-queue-pair.h"
#include "workload/model/workload-executor.h"
#include "workload/model/workload-spec.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace tusk
{

using namespace ns3;

uint64_t
SteadyProbe::WindowPs(const ScenarioSpec& spec, const std::vector<uint64_t>& baseRttsPs)
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
    return std::max<uint64_t>(4 * rtt, 1'000'000); // at least 1 µs
}

void
SteadyProbe::Attach(const ScenarioSpec& spec,
                    const BuiltFabric& built,
                    Ptr<WorkloadExecutor> exec,
                    const WorkloadSpec& workload)
{
    if (!spec.simulator.steadyProbe)
    {
        return;
    }
    std::vector<uint64_t> rtts;
    for (const auto& c : PathClasses(spec, built, built.fabric.graph.NumRankHosts()))
    {
        rtts.push_back(c.baseRttPs);
    }
    m_windowPs = WindowPs(spec, rtts);
    SteadyParams p;
    p.windows = spec.simulator.steadyWindows;
    p.tolerance = spec.simulator.steadyTolerance;
    p.windowPs = m_windowPs;
    p.rateFloorBytes = spec.nic.mtuBytes;
    // Two frames: an MTU's payload and its headers, twice.
    p.queueFloorBytes = 2 * (static_cast<uint64_t>(spec.nic.mtuBytes) + kRoceDataOverheadBytes);
    m_judge = std::make_unique<SteadyJudge>(p);
    m_exec = exec;
    for (const auto& sw : built.fabric.switches)
    {
        for (uint16_t i = 0; i < sw->GetNPorts(); ++i)
        {
            m_ports.push_back(sw->GetPort(i));
        }
    }
    for (const auto& l : built.fabric.links)
    {
        m_devices.push_back(l.devA);
        m_devices.push_back(l.devB);
    }
    for (const auto& t : workload.transfers)
    {
        if (t.trigger < 0)
        {
            m_arrivals.push_back(t.startPs);
        }
    }
    std::sort(m_arrivals.begin(), m_arrivals.end());
    m_failures = FailureWindows(spec);
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
}

void
SteadyProbe::OnAcknowledged(SteadyProbe* self, uint32_t transfer)
{
    self->m_active.erase(transfer);
    ++self->m_ends;
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
    for (const auto& [from, to] : m_failures)
    {
        if (from > nowPs)
        {
            cap = std::min(cap, from);
        }
        else if (to >= nowPs)
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
    const uint64_t nowPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
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

    uint64_t pfc = 0;
    uint64_t drops = 0;
    uint64_t marks = 0;
    for (const auto& dev : m_devices)
    {
        const PortCounters& c = dev->GetCounters();
        pfc += c.pfcTx;
        marks += c.ecnMarks;
        for (size_t k = 0; k < static_cast<size_t>(DropReason::COUNT); ++k)
        {
            if (static_cast<DropReason>(k) != DropReason::NIC_STALE)
            {
                drops += c.drops[k];
            }
        }
    }
    w.pfcFrames = pfc - m_pfc;
    w.drops = drops - m_drops;
    w.ecnMarks = marks - m_marks;
    m_pfc = pfc;
    m_drops = drops;
    m_marks = marks;
    w.flowStarts = m_starts;
    w.flowEnds = m_ends;
    m_starts = 0;
    m_ends = 0;
    const uint64_t fromPs = nowPs - std::min(nowPs, m_windowPs);
    for (const auto& [a, b] : m_failures)
    {
        w.failure = w.failure || (a <= nowPs && b > fromPs);
    }

    m_judge->Add(std::move(w), CapPs(nowPs));
    if (!m_exec->AllDone())
    {
        Simulator::Schedule(PicoSeconds(m_windowPs), &SteadyProbe::Tick, this);
        m_exec->NoteReadOnlyEvent(); // the replay agenda batches as without the probe
    }
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
    return s;
}

void
SteadyProbe::Dispose()
{
    m_exec = nullptr;
    m_ports.clear();
    m_devices.clear();
}

} // namespace tusk
