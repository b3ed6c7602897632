/*
 * tusk: what watches a run without changing it: the metrics sink, one pcap per host NIC, the
 * progress line, the time-series sampler and the PFC deadlock detector.
 */
#include "run/run-stages.h"
#include "fabric/model/kernel/run-clock.h"

#include "ns3/pcap-file-wrapper.h"
#include "ns3/simulator.h"
#include "ns3/trace-helper.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

namespace tusk
{

using namespace ns3;

namespace
{

void
PcapSink(Ptr<PcapFileWrapper> file, Ptr<const Packet> packet)
{
    file->Write(Simulator::Now(), packet);
}

} // namespace

void
Observers::OnQpCreated(Observers* self, uint32_t host, Ptr<RdmaQueuePair> qp)
{
    Ptr<RdmaCongestionControl> cc = qp->GetCongestionControl();
    if (!cc)
    {
        return;
    }
    self->m_ccTraced.push_back({self, host, qp->GetPeerHost(), qp->GetQpn(), cc->Name()});
    cc->TraceConnectWithoutContext("CcState",
                                   MakeBoundCallback(&Observers::OnCcState, &self->m_ccTraced.back()));
}

void
Observers::OnCcState(CcTraced* qp, const RdmaCcState& state)
{
    CcTraceRow row;
    row.timePs = RunClock::NowPs();
    row.src = qp->src;
    row.dst = qp->dst;
    row.qpn = qp->qpn;
    row.cc = qp->cc;
    row.rateBps = state.rateBps;
    row.targetRateBps = state.targetRateBps;
    row.alpha = state.alpha;
    row.windowBytes = state.windowBytes;
    qp->self->m_ccTrace.push_back(row);
}

void
Observers::Attach(const ScenarioSpec& spec,
                  const TopologyGraph& graph,
                  const BuiltFabric& built,
                  const Executor& executor,
                  const RunOptions& options,
                  RunAttributes& attrs,
                  std::chrono::steady_clock::time_point wallStart)
{
    using Clock = std::chrono::steady_clock;
    const auto& nics = built.nics;
    if (spec.output.pcap && !options.pcapDir.empty())
    {
        PcapHelper pcap;
        for (uint32_t h = 0; h < nics.size(); ++h)
        {
            Ptr<PcapFileWrapper> file =
                pcap.CreateFile(fmt::format("{}/host{}.pcap", options.pcapDir, h), std::ios::out,
                                PcapHelper::DLT_EN10MB);
            nics[h]->TraceConnectWithoutContext("Sniffer", MakeBoundCallback(&PcapSink, file));
        }
    }

    // cc_trace.csv: connect every QP's congestion control as its NIC creates it (nothing is
    // connected otherwise, so the CCs' NotifyState costs one emptiness test).
    if (spec.output.ccTrace)
    {
        for (uint32_t h = 0; h < nics.size(); ++h)
        {
            nics[h]->TraceConnectWithoutContext("QpCreated",
                                                MakeBoundCallback(&Observers::OnQpCreated, this, h));
        }
    }

    // paths.csv: every QP's sends, ACKs, losses and arrivals, per entropy, from trace sources
    // connected only here.
    if (spec.output.pathTelemetry)
    {
        m_pathTelemetry = std::make_unique<PathTelemetryCollector>();
        m_pathTelemetry->Attach(nics, &built.fabric, // traceroutes on resends
                                spec.output.pathTelemetryRoutes);
        m_fabric = &built.fabric;
    }
    // ar.csv: every switch's load balancer counts its choices (off: one pointer test each).
    if (spec.output.arTelemetry)
    {
        EnableArTelemetry(built.fabric);
        m_arFabric = &built.fabric;
    }

    // Progress: a light periodic event that prints only when a few seconds of wall time passed.
    m_lastPrint = Clock::now();
    m_wallStart = wallStart;
    m_exec = executor.exec;
    m_print = options.progress;
    m_name = spec.name;
    m_poll = options.poll;
    m_stretchTick = spec.simulator.mode == "fast";
    m_tickUs = kProgressTickUs;
    Simulator::Schedule(MicroSeconds(m_tickUs), &Observers::Progress, this);

    if (spec.output.samplePs > 0) // timeseries.csv: a periodic event, off the forwarding path
    {
        m_sampler.AddSwitchPorts(built.fabric);
        m_sampler.AddSwitches(built.fabric);
        m_sampler.Start(PicoSeconds(spec.output.samplePs));
    }

    // The tables: links, PFC events, trims, headroom, transfer times, from trace sources.
    m_sink.Connect(graph, built.fabric, executor.exec, executor.exec->TotalTransfers(),
                   spec.output.dropLog);

    // PFC deadlock detection.
    if (spec.pfc.enabled && spec.pfc.deadlockDetectPs > 0)
    {
        m_detector = CreateObject<PfcDeadlockDetector>();
        attrs.Set(m_detector, "Threshold", TimeValue(PicoSeconds(spec.pfc.deadlockDetectPs)));
        std::vector<std::string> names;
        for (uint32_t s = 0; s < graph.NumSwitches(); ++s)
        {
            names.push_back(graph.vertices[graph.numHosts + s].name);
        }
        m_detector->Install(built.fabric.switches, names);
        m_detector->SetDeadlockCallback(Callback<void, std::string>([this](std::string c) {
            m_deadlock = c;
            Simulator::Stop();
        }));
        m_detector->Start();
    }
}

void
Observers::Progress()
{
    using Clock = std::chrono::steady_clock;
    if (m_poll && !m_poll())
    {
        m_interrupted = true;
        Simulator::Stop();
        return;
    }
    if (m_print)
    {
        const auto now = Clock::now();
        if (now - m_lastPrint > std::chrono::seconds(3))
        {
            const double wall = std::chrono::duration<double>(now - m_wallStart).count();
            std::cerr << fmt::format("[tusk] {}: sim {:.3f} ms, {:.2f} M events/s, {}/{} "
                                     "transfers done\n",
                                     m_name, static_cast<double>(RunClock::NowPs()) * 1e-9,
                                     Simulator::GetEventCount() / wall / 1e6,
                                     m_exec->DoneTransfers(), m_exec->TotalTransfers());
            m_lastPrint = now;
        }
    }
    if (m_stretchTick)
    {
        // Fast mode: a replayed iteration is milliseconds of simulated time with a few
        // hundred events, where a tick every 20 µs was most of the events. Over a quiet
        // stretch the period doubles, up to kProgressTickMaxUs; a busy one (packets)
        // restores it.
        // The steady-state probe's events left out: with it on, the ticks are the same.
        const uint64_t events =
            Simulator::GetEventCount() - (m_steady != nullptr ? m_steady->Events() : 0);
        const bool quiet = events - m_tickEvents <= kQuietTickEvents;
        m_tickUs = quiet ? std::min(2 * m_tickUs, kProgressTickMaxUs) : kProgressTickUs;
        m_tickEvents = events;
    }
    if (!m_exec->AllDone())
    {
        // A member function, not a std::function copied per tick (a heap allocation each).
        Simulator::Schedule(MicroSeconds(m_tickUs), &Observers::Progress, this);
    }
}

void
Observers::Finish(RunResult& result)
{
    m_sampler.Finish(Simulator::Now());
    result.timeSeries = m_sampler.Take();
    result.ccTrace = std::move(m_ccTrace);
    m_ccTrace.clear();
    if (m_pathTelemetry)
    {
        result.pathTelemetry = m_pathTelemetry->Take(*m_fabric);
    }
    if (m_arFabric)
    {
        result.arTelemetry = CollectArTelemetry(*m_arFabric);
    }
}

void
Observers::Dispose()
{
    if (m_detector)
    {
        m_detector->Dispose();
    }
}

} // namespace tusk
