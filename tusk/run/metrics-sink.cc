#include "run/metrics-sink.h"
#include "fabric/model/kernel/run-clock.h"

#include "workload/model/iteration-memo.h"

#include "fabric/model/fabric-units.h"

#include "ns3/abort.h"
#include "ns3/callback.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/simulator.h"

#include <fmt/format.h>

#include <algorithm>

namespace tusk
{

using namespace ns3;

namespace
{

/**
 * Connect `cb` to trace source `name` of `object`, looking the source up once per TypeId
 * (ObjectBase::TraceConnectWithoutContext searches the TypeId's sources by name every time:
 * thousands of ports make that a visible part of a run).
 */
void
ConnectTrace(const Ptr<Object>& object, const std::string& name, const CallbackBase& cb)
{
    static std::map<std::pair<uint32_t, std::string>, Ptr<const TraceSourceAccessor>> cache;
    const TypeId tid = object->GetInstanceTypeId();
    auto key = std::make_pair(static_cast<uint32_t>(tid.GetUid()), name);
    auto it = cache.find(key);
    if (it == cache.end())
    {
        Ptr<const TraceSourceAccessor> accessor = tid.LookupTraceSourceByName(name);
        NS_ABORT_MSG_UNLESS(accessor, "tusk: " << tid.GetName() << " has no trace source " << name);
        it = cache.emplace(key, accessor).first;
    }
    it->second->ConnectWithoutContext(PeekPointer(object), cb);
}

} // namespace

void
MetricsSink::Connect(const TopologyGraph& graph,
                     const Fabric& fabric,
                     Ptr<WorkloadExecutor> exec,
                     size_t transfers,
                     bool dropLog)
{
    m_ports.reserve(2 * fabric.links.size()); // callbacks hold pointers into m_ports
    // One callback for every port's drops (they share its implementation; a bound callback
    // per port is about 200 bytes).
    const auto onDrop = MakeBoundCallback(&MetricsSink::OnDrop, PeekPointer(exec));
    for (const auto& l : fabric.links)
    {
        const TopoLink& tl = graph.links[l.graphLink];
        for (int dir = 0; dir < 2; ++dir)
        {
            const uint32_t from = dir == 0 ? tl.a : tl.b;
            const uint32_t to = dir == 0 ? tl.b : tl.a;
            Port& p = m_ports.emplace_back();
            p.dev = dir == 0 ? l.devA : l.devB;
            p.events = &m_pfcEvents;
            p.index = static_cast<uint32_t>(m_ports.size() - 1);
            p.drops = &m_dropEvents;
            p.lineRateBps = tl.rateBps;
            LinkRow& row = p.row;
            row.link = l.graphLink;
            row.from = graph.vertices[from].name;
            row.to = graph.vertices[to].name;
            row.fromTier = graph.vertices[from].tier;
            row.toTier = graph.vertices[to].tier;
            row.uplink = graph.vertices[from].kind == TopoVertex::SWITCH &&
                         graph.vertices[to].kind == TopoVertex::SWITCH && row.toTier > row.fromTier;
            Port* port = &p;
            // What a device counts itself (frames and bytes sent and received, PFC frames
            // received, ECN marks, the deepest queue, the busiest utilisation window, watchdog
            // triggers, drops by reason) comes from its PortCounters at the end (LinkRows).
            // Only what needs each event is connected: a drop of a data frame is charged to
            // its transfer, and every PFC frame is a row of pfc_events.csv. A listener per
            // counter cost ~250 instructions per packet-hop (a Tx trace) and, as bound
            // callbacks on every port, 11 MB on the 1,024-host permutation (docs/performance.md).
            p.dev->CheckLineRateAgainst(tl.rateBps);
            ConnectTrace(p.dev, "Drop", onDrop);
            if (dropLog)
            {
                ConnectTrace(p.dev, "Drop", MakeBoundCallback(&MetricsSink::OnDropLogged, port));
            }
            ConnectTrace(p.dev, "Pfc", MakeBoundCallback(&MetricsSink::OnPfc, port));
        }
    }
    m_headroom.resize(fabric.switches.size());
    for (uint32_t s = 0; s < fabric.switches.size(); ++s)
    {
        const uint32_t v = graph.numHosts + s;
        for (uint32_t li : fabric.ports[v])
        {
            m_headroom[s].push_back({{graph.links[li].rateBps, graph.links[li].delayPs}, 0});
        }
        ConnectTrace(fabric.switches[s], "Trim", MakeCallback(&MetricsSink::OnTrim, this));
        auto* perPort = &m_headroom[s];
        ConnectTrace(
            fabric.switches[s]->GetMmu(), "HeadroomAdmit",
            Callback<void, uint16_t, uint8_t, uint64_t>(
                [perPort](uint16_t port, uint8_t, uint64_t used) {
                    auto& maxUsed = (*perPort)[port].second;
                    maxUsed = std::max(maxUsed, used);
                }));
    }
    m_transfers.assign(transfers, TransferTimes());
    exec->TraceConnectWithoutContext("TransferStarted",
                                     MakeCallback(&MetricsSink::OnStarted, this));
    exec->TraceConnectWithoutContext("TransferDelivered",
                                     MakeCallback(&MetricsSink::OnDelivered, this));
    exec->TraceConnectWithoutContext("TransferAcknowledged",
                                     MakeCallback(&MetricsSink::OnAcknowledged, this));
}

void
MetricsSink::OnDrop(WorkloadExecutor* exec,
                    Ptr<const Packet>,
                    const FrameMeta& meta,
                    DropReason reason)
{
    exec->OnDataDropped(meta, reason);
}

void
MetricsSink::OnDropLogged(Port* p,
                          Ptr<const Packet>,
                          const FrameMeta& meta,
                          DropReason reason)
{
    DropEventRow row;
    row.timePs = RunClock::NowPs();
    row.port = p->index;
    row.reason = reason;
    row.kind = meta.kind;
    row.entropy = meta.srcPort;
    row.srcHost = meta.srcHost;
    row.dstHost = meta.dstHost;
    row.dstQp = meta.dstQp;
    p->drops->push_back(row);
}

void
MetricsSink::OnPfc(Port* p, const PfcEvent& e)
{
    if (e.sent && e.quanta > 0)
    {
        p->row.pfcPauseTx++;
    }
    PfcEventRow row{e, p->row.from, p->row.to};
    row.event.timePs += RunClock::SkippedPs(); // the run's time (RunClock)
    p->events->push_back(row);
}

void
MetricsSink::OnTrim(Ptr<const Packet>, const FrameMeta&)
{
    ++m_trimmed;
}

void
MetricsSink::OnStarted(uint32_t transfer)
{
    m_transfers[transfer].startPs = RunClock::NowPs();
}

void
MetricsSink::OnDelivered(uint32_t transfer)
{
    m_transfers[transfer].deliveredPs = RunClock::NowPs();
}

void
MetricsSink::OnAcknowledged(uint32_t transfer)
{
    m_transfers[transfer].acknowledgedPs =
        RunClock::NowPs();
}

std::vector<LinkRow>
MetricsSink::LinkRows(uint64_t durationPs, Time now)
{
    const double durationS = static_cast<double>(durationPs) * 1e-12;
    std::vector<LinkRow> rows;
    rows.reserve(m_ports.size());
    for (auto& p : m_ports)
    {
        p.dev->FlushUtilisation(now); // the window in progress counts too
        LinkRow row = p.row;
        PortCounters c = p.dev->GetCounters();
        const size_t k = rows.size();
        if (k < m_replayed.size())
        {
            AddPortDelta(c, m_replayed[k], PortCounters()); // maxima maxed
        }
        if (k < m_skipped.size())
        {
            AddPortDelta(c, m_skipped[k], PortCounters());
        }
        row.txFrames = c.txFrames;
        row.txBytes = c.txBytes;
        row.pfcFramesTx = c.pfcTx;
        row.pfcFramesRx = c.pfcRx;
        row.ecnMarks = c.ecnMarks;
        row.maxQueueBytes = c.maxQueueBytes;
        row.maxUtilisation = c.maxWindowUtilisation;
        row.watchdogTriggers = c.watchdogTriggers;
        std::copy(std::begin(c.drops), std::end(c.drops), std::begin(row.drops));
        row.rateBps = p.dev->GetRateBps();
        row.meanUtilisation = c.txWireBytes * 8.0 / (row.rateBps * durationS);
        for (uint8_t prio = 0; prio < 8; ++prio)
        {
            row.pausedPs += p.dev->GetPausedPs(prio, now);
        }
        row.creditStallPs = p.dev->GetCreditStallPs(now);
        rows.push_back(row);
    }
    return rows;
}

void
MetricsSink::AddSkippedCounters(const std::vector<PortCounters>& c)
{
    m_skipped.resize(std::max(m_skipped.size(), c.size()));
    for (size_t k = 0; k < c.size(); ++k)
    {
        AddPortDelta(m_skipped[k], c[k], PortCounters());
    }
}

std::vector<PortCounters>
MetricsSink::PortCounterSnapshot() const
{
    std::vector<PortCounters> out;
    out.reserve(m_ports.size());
    for (const auto& p : m_ports)
    {
        out.push_back(p.dev->GetCounters());
        const size_t k = out.size() - 1;
        if (k < m_skipped.size())
        {
            AddPortDelta(out.back(), m_skipped[k], PortCounters()); // steady-state jumps'
        }
    }
    return out;
}

std::string
MetricsSink::LinkRateViolation() const
{
    const Port* first = nullptr;
    for (const auto& p : m_ports)
    {
        const auto& v = p.dev->GetLineRateViolation();
        if (v.found && (first == nullptr || v.atPs < first->dev->GetLineRateViolation().atPs))
        {
            first = &p;
        }
    }
    if (first == nullptr)
    {
        return "";
    }
    const auto& v = first->dev->GetLineRateViolation();
    return fmt::format("{} -> {} sent {} frames in {} ps up to {:.6f} us, faster than its {} Gb/s "
                       "line rate allows ({} ps)",
                       first->row.from, first->row.to, FabricNetDevice::kRateCheckFrames,
                       v.spanPs, v.atPs / 1e6, first->lineRateBps / 1e9, v.requiredPs);
}

uint64_t
MetricsSink::MaxHeadroomUsed(uint64_t rateBps, uint64_t delayPs) const
{
    uint64_t used = 0;
    for (const auto& perPort : m_headroom)
    {
        for (const auto& [key, maxUsed] : perPort)
        {
            if (key == std::make_pair(rateBps, delayPs))
            {
                used = std::max(used, maxUsed);
            }
        }
    }
    return used;
}

} // namespace tusk
