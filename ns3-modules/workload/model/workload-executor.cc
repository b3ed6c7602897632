#include "workload-executor.h"

#include "fabric/model/kernel/lean-simulator-impl.h"
#include "fabric/model/kernel/run-clock.h"

#include "ns3/abort.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <atomic>
#include <iomanip>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WorkloadExecutor");
NS_OBJECT_ENSURE_REGISTERED(WorkloadExecutor);

namespace
{
/** Process-wide sum of every executor's m_liveRecords (runs of a sweep share the process). */
std::atomic<uint64_t> g_liveRecords{0};
std::atomic<uint64_t> g_startedHeld{0}; // StartedRecordsHeld
} // namespace

TypeId
WorkloadExecutor::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WorkloadExecutor")
            .SetParent<Object>()
            .SetGroupName("Workload")
            .AddConstructor<WorkloadExecutor>()
            .AddAttribute("QpsPerConnection",
                          "QPs per connection; each transfer is split across them (QP scaling, "
                          "count; at most RdmaNic::kMaxQps, the 24-bit QPN space).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&WorkloadExecutor::m_qpsPerConnection),
                          MakeUintegerChecker<uint32_t>(1, RdmaNic::kMaxQps))
            .AddAttribute("QpScaling",
                          "How a transfer is spread over its connection's QPs: Split (one equal "
                          "part per QP) or RoundRobin (QpMessageBytes messages, QP after QP).",
                          EnumValue(SPLIT),
                          MakeEnumAccessor(&WorkloadExecutor::m_qpScaling),
                          MakeEnumChecker(SPLIT, "Split", ROUND_ROBIN, "RoundRobin"))
            .AddAttribute("QpMessageBytes",
                          "RoundRobin: largest message posted on one QP (bytes).",
                          UintegerValue(512 * 1024),
                          MakeUintegerAccessor(&WorkloadExecutor::m_qpMessageBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("QpEntropy",
                          "UDP source ports of a connection's QPs: Random (each its own), "
                          "Sequential (consecutive from a random base), Shared (one port) or "
                          "Routes (source routes, each host's QPs taking QpRoutes in turn).",
                          EnumValue(RANDOM_PORTS),
                          MakeEnumAccessor(&WorkloadExecutor::m_qpEntropy),
                          MakeEnumChecker(RANDOM_PORTS,
                                          "Random",
                                          SEQUENTIAL_PORTS,
                                          "Sequential",
                                          SHARED_PORT,
                                          "Shared",
                                          ROUTES,
                                          "Routes"))
            .AddAttribute("QpRoutes",
                          "Routes: the source routes the QPs of a host take in turn (count; "
                          "the fabric's routes, set by the runner under source routing).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&WorkloadExecutor::m_qpRoutes),
                          MakeUintegerChecker<uint32_t>(1, 16384))
            .AddAttribute("StallTimeout",
                          "Watchdog period: with no progress for this long while transfers "
                          "remain, the run is declared stalled (time; 0 = no watchdog).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&WorkloadExecutor::m_stallTimeout),
                          MakeTimeChecker())
            .AddTraceSource("TransferStarted",
                            "A transfer started (its index in the WorkloadSpec).",
                            MakeTraceSourceAccessor(&WorkloadExecutor::m_startedTrace),
                            "ns3::WorkloadExecutor::TransferTracedCallback")
            .AddTraceSource("TransferDelivered",
                            "Every byte of a transfer arrived at its receiver (its index).",
                            MakeTraceSourceAccessor(&WorkloadExecutor::m_deliveredTrace),
                            "ns3::WorkloadExecutor::TransferTracedCallback")
            .AddTraceSource("TransferAcknowledged",
                            "Every byte of a transfer was acknowledged to its sender (its index).",
                            MakeTraceSourceAccessor(&WorkloadExecutor::m_acknowledgedTrace),
                            "ns3::WorkloadExecutor::TransferTracedCallback");
    return tid;
}

WorkloadExecutor::WorkloadExecutor()
    : m_entropyRng(CreateObject<UniformRandomVariable>())
{
}

void
WorkloadExecutor::DoDispose()
{
    g_liveRecords -= m_liveRecords;
    m_liveRecords = 0;
    g_startedHeld -= m_startedHeld;
    m_startedHeld = 0;
    m_records.assign(0);
    m_window = nullptr;
    m_finalUnitCb = nullptr;
    m_connectionIndex.Clear();
    m_connections.clear();
    m_allQps.clear();
    m_allPeers.clear();
    m_nics.clear();
    m_allDone = Callback<void>();
    m_stallCb = Callback<void>();
    m_fireHook = Callback<void, uint32_t>();
    m_expandHook = nullptr;
    m_retireHook = nullptr;
    m_replays.clear();
    m_agenda.Clear();
    for (const Ptr<BatchEvent>& e : m_batchEvents)
    {
        if (e)
        {
            e->Clear(); // a batch still pending runs nothing
        }
    }
    m_batchEvents.clear();
    if (m_scaleUp)
    {
        m_scaleUp->Dispose();
        m_scaleUp = nullptr;
    }
    Object::DoDispose();
}

int64_t
WorkloadExecutor::AssignStreams(int64_t stream)
{
    m_entropyRng->SetStream(stream);
    return 1;
}

void
WorkloadExecutor::Setup(const WorkloadSpec& spec, const std::vector<Ptr<RdmaNic>>& nics)
{
    Setup(std::make_shared<const WorkloadSpec>(spec), nics);
}

void
WorkloadExecutor::Setup(std::shared_ptr<const WorkloadSpec> shared,
                        const std::vector<Ptr<RdmaNic>>& nics)
{
    NS_ABORT_MSG_IF(!shared, "WorkloadExecutor::Setup: no workload");
    m_spec = std::move(shared);
    m_window = nullptr;
    m_restFirst = 0;
    m_restTriggerFirst = 0;
    m_restCollectiveFirst = 0;
    const WorkloadSpec& spec = *m_spec;
    m_nics = nics;
    const size_t n = spec.transfers.size();
    g_liveRecords -= m_liveRecords;
    g_startedHeld -= m_startedHeld;
    m_startedHeld = 0;
    m_recordsFreedEnd = 0;
    m_records.assign(n, TransferRecord());
    m_transfers = n;
    m_liveRecords = n;
    g_liveRecords += n;
    m_transferConnection.assign(n, nullptr);
    m_waiters.assign(spec.triggers.size(), {});
    m_activations.assign(spec.triggers.size(), 0);
    m_fired.assign(spec.triggers.size(), false);
    m_firedPs.assign(spec.triggers.size(), -1);
    m_multishotNext.assign(spec.triggers.size(), 0);
    for (uint32_t t = 0; t < n; ++t)
    {
        const TransferSpec& ts = spec.transfers[t];
        NS_ABORT_MSG_IF(ts.src >= nics.size() || ts.dst >= nics.size(),
                        "WorkloadExecutor: transfer " << ts.externalId << " names a host beyond "
                                                      << nics.size());
        if (ts.trigger >= 0)
        {
            m_waiters[ts.trigger].push_back(t);
        }
    }
}

void
WorkloadExecutor::SetScaleUpDomain(Ptr<ScaleUpDomain> domain)
{
    m_scaleUp = domain;
    if (m_scaleUp)
    {
        m_scaleUp->SetRecvDoneCallback(MakeCallback(&WorkloadExecutor::OnScaleUpRecvDone, this));
        m_scaleUp->SetSendDoneCallback(MakeCallback(&WorkloadExecutor::OnScaleUpSendDone, this));
    }
}

void
WorkloadExecutor::Start()
{
    if (m_stallTimeout.IsStrictlyPositive() && m_transfers > 0)
    {
        Simulator::Schedule(m_stallTimeout, &WorkloadExecutor::CheckStall, this);
    }
    if (m_window)
    {
        Register(m_window->ExpandFrom(-1), true); // jobs' first iterations, ids first
    }
    for (uint32_t k = 0; k < m_spec->transfers.size(); ++k)
    {
        if (m_spec->transfers[k].trigger < 0)
        {
            ScheduleStart(static_cast<uint32_t>(m_restFirst + k));
        }
    }
    for (uint32_t k = 0; k < m_spec->triggers.size(); ++k)
    {
        if (m_spec->triggers[k].atStart && m_spec->triggers[k].kind != TriggerSpec::MULTISHOT)
        {
            Fire(static_cast<uint32_t>(m_restTriggerFirst + k));
        }
    }
    if (AllDone() && !m_allDone.IsNull())
    {
        Simulator::ScheduleNow(m_allDone);
    }
}

namespace
{

/** Add `ps` to the min-heap `times` (WorkloadExecutor::m_pendingTimes), first dropping the
 *  times before `nowPs` (they have passed: a run that never asks for the next one keeps only
 *  the pending ones). */
void
PushTime(std::vector<uint64_t>& times, uint64_t ps, uint64_t nowPs)
{
    while (!times.empty() && times.front() < nowPs)
    {
        std::pop_heap(times.begin(), times.end(), std::greater<>());
        times.pop_back();
    }
    times.push_back(ps);
    std::push_heap(times.begin(), times.end(), std::greater<>());
}

} // namespace

void
WorkloadExecutor::ScheduleStart(uint32_t t)
{
    const uint64_t at = Tr(t).startPs;
    const uint64_t now = RunClock::NowPs();
    // An untriggered transfer starts at its absolute time; a triggered one after its delay.
    const uint64_t delay = Tr(t).trigger < 0 ? (at > now ? at - now : 0) : at;
    ++m_pendingStarts;
    if (m_trackPending)
    {
        PushTime(m_pendingTimes, now + delay, now);
    }
    if (!m_replays.empty() && ReplayRecord(t) != nullptr)
    {
        AddReplayAction(delay, t, ReplayAgenda::START);
        return;
    }
    RunClock::NoteAbsolute(
        Simulator::Schedule(PicoSeconds(delay), &WorkloadExecutor::StartTransfer, this, t));
}

std::vector<uint64_t>
WorkloadExecutor::QpsPerHost(const WorkloadSpec& spec,
                             uint32_t numHosts,
                             uint32_t qpsPerConnection,
                             uint32_t gpusPerServer)
{
    std::vector<uint64_t> qps(numHosts, 0);
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> seen; // as m_connections is keyed
    for (const auto& t : spec.transfers)
    {
        const bool sameServer =
            gpusPerServer > 1 && t.src != t.dst && t.src / gpusPerServer == t.dst / gpusPerServer;
        if (t.src >= numHosts || t.dst >= numHosts || sameServer ||
            !seen.insert(std::make_tuple(t.src, t.dst, t.qpGroup)).second)
        {
            continue;
        }
        const uint32_t n = t.qps > 0 ? t.qps : qpsPerConnection; // as GetConnection
        qps[t.src] += n;
        qps[t.dst] += n;
    }
    return qps;
}

WorkloadExecutor::Connection&
WorkloadExecutor::GetConnection(const TransferSpec& t)
{
    const auto key = std::make_tuple(t.src, t.dst, t.qpGroup);
    if (Connection* const* found = m_connectionIndex.Find(key))
    {
        return **found; // the same connection the map holds (its QPs made)
    }
    Connection& c = m_connections[key];
    if (c.qps.empty())
    {
        const auto base = static_cast<uint16_t>(m_entropyRng->GetInteger(49152, 65535));
        const uint32_t qps = t.qps > 0 ? t.qps : m_qpsPerConnection;
        for (uint32_t i = 0; i < qps; ++i)
        {
            uint16_t entropy = base;
            if (m_qpEntropy == SEQUENTIAL_PORTS)
            {
                entropy = static_cast<uint16_t>(49152 + (base - 49152 + i) % 16384);
            }
            else if (m_qpEntropy == RANDOM_PORTS && i > 0)
            {
                entropy = static_cast<uint16_t>(m_entropyRng->GetInteger(49152, 65535));
            }
            else if (m_qpEntropy == ROUTES)
            {
                // Route r travels as port 49152 + r (fabric/helper/source-routes.h).
                const uint32_t j = m_routeQps[t.src]++;
                const uint64_t start = static_cast<uint64_t>(t.src) * m_qpsPerConnection;
                entropy = static_cast<uint16_t>(49152 + (start + j) % m_qpRoutes);
            }
            Ptr<RdmaQueuePair> qp = m_nics[t.src]->Connect(m_nics[t.dst], entropy, t.priority);
            Ptr<RdmaQueuePair> peer = m_nics[t.dst]->GetQp(qp->GetPeerQpn());
            qp->SetSendCallback(MakeCallback(&WorkloadExecutor::OnSendDone, this));
            peer->SetRecvCallback(MakeCallback(&WorkloadExecutor::OnRecvDone, this));
            peer->SetLateDuplicateCallback(MakeCallback(&WorkloadExecutor::OnLateDuplicate, this));
            auto owners = std::make_unique<PsnOwners>();
            owners->exec = this;
            qp->TraceConnectWithoutContext("PacketSent",
                                           MakeBoundCallback(&PsnOwners::OnSent, owners.get()));
            qp->TraceConnectWithoutContext("PacketRetransmitted",
                                           MakeBoundCallback(&PsnOwners::OnSent, owners.get()));
            peer->TraceConnectWithoutContext(
                "PacketReceived", MakeBoundCallback(&PsnOwners::OnReceived, owners.get()));
            m_ownersByDst[std::make_pair(t.dst, peer->GetQpn())] = owners.get();
            c.owners.push_back(std::move(owners));
            c.qps.push_back(qp);
            c.peers.push_back(peer);
            m_allQps.push_back(qp);
            m_allPeers.push_back(peer);
        }
    }
    if (!c.qps.empty())
    {
        m_connectionIndex.Insert(key, &c); // a map's element does not move
    }
    return c;
}

void
WorkloadExecutor::StartTransfer(uint32_t t)
{
    --m_pendingStarts;
    TransferRecord& r = m_records[t];
    if (r.started)
    {
        return;
    }
    ++m_progress;
    CountStartedHeld(1);
    if (const auto [pool, k] = ReplaySlot(t); pool != nullptr)
    {
        ReplayTransfer(t, *pool, k);
        return;
    }
    const TransferSpec& ts = Tr(t);
    if (m_scaleUp && m_scaleUp->SameServer(ts.src, ts.dst))
    {
        r.started = true;
        r.startPs = RunClock::NowPs();
        m_startedTrace(t);
        r.pendingRecv = 1;
        r.pendingSend = 1;
        m_scaleUp->Start(t, ts.src, ts.dst, ts.bytes);
        return;
    }
    Connection& c = GetConnection(ts);
    m_transferConnection[t] = &c;
    r.started = true;
    r.startPs = RunClock::NowPs();
    m_startedTrace(t);
    r.entropy = c.qps[0]->GetPathSelector()->GetBaseEntropy();
    const uint64_t q = c.qps.size();
    if (m_qpScaling == ROUND_ROBIN)
    {
        std::vector<bool> used(q, false);
        for (uint64_t offset = 0; offset < ts.bytes; offset += m_qpMessageBytes)
        {
            const uint32_t i = c.nextQp;
            c.nextQp = static_cast<uint32_t>((c.nextQp + 1) % q);
            r.qps += used[i] ? 0 : 1;
            used[i] = true;
            PostMessage(c, i, t, std::min(m_qpMessageBytes, ts.bytes - offset));
        }
        return;
    }
    const uint64_t base = ts.bytes / q;
    const uint64_t rem = ts.bytes % q;
    for (uint64_t i = 0; i < q; ++i)
    {
        const uint64_t part = base + (i < rem ? 1 : 0);
        if (part == 0)
        {
            continue;
        }
        ++r.qps;
        PostMessage(c, static_cast<uint32_t>(i), t, part);
    }
}

void
WorkloadExecutor::PostMessage(Connection& c, uint32_t qp, uint32_t t, uint64_t bytes)
{
    TransferRecord& r = m_records[t];
    ++r.pendingRecv;
    ++r.pendingSend;
    r.messages.emplace_back(qp, bytes);
    PsnOwners& o = *c.owners[qp];
    o.first.emplace_back(o.end, t);
    const uint64_t mtu = m_nics[Tr(t).src]->GetMtuBytes();
    o.end += (bytes + mtu - 1) / mtu; // as RdmaRequester::PostSend numbers its packets
    c.peers[qp]->PostReceive(t);
    c.qps[qp]->PostSend(bytes, t);
}

void
WorkloadExecutor::OnScaleUpRecvDone(uint32_t t)
{
    RecvMessageStats stats;
    stats.bytes = Tr(t).bytes;
    OnRecvDone(t, stats);
}

void
WorkloadExecutor::OnScaleUpSendDone(uint32_t t)
{
    OnSendDone(t, SendMessageStats());
}

void
WorkloadExecutor::OnRecvDone(uint64_t cookie, const RecvMessageStats& stats)
{
    ++m_progress;
    TransferRecord& r = m_records[cookie];
    r.deliveredBytes += stats.bytes;
    r.oooPackets += stats.oooPackets;
    r.reorderMax = std::max(r.reorderMax, stats.reorderMax);
    r.reorderSum += stats.reorderSum;
    r.naks += stats.naksSent;
    r.duplicates += stats.duplicatePackets;
    if (--r.pendingRecv == 0)
    {
        CompleteRecv(static_cast<uint32_t>(cookie));
    }
}

void
WorkloadExecutor::CompleteRecv(uint32_t t)
{
    TransferRecord& r = m_records[t];
    r.recvDone = true;
    r.recvDonePs = RunClock::NowPs();
    m_deliveredTrace(t);
    for (uint32_t trig : Tr(t).onRecvDone)
    {
        Activate(trig);
    }
    CheckDone(t);
}

void
WorkloadExecutor::CompleteSend(uint32_t t)
{
    TransferRecord& r = m_records[t];
    r.sendDone = true;
    r.sendDonePs = RunClock::NowPs();
    m_acknowledgedTrace(t);
    for (uint32_t trig : Tr(t).onSendDone)
    {
        Activate(trig);
    }
    CheckDone(t);
}

TransferRecord*
WorkloadExecutor::PsnOwners::RecordOf(uint64_t psn) const
{
    if (psn >= end || first.empty())
    {
        return nullptr;
    }
    const auto it = std::upper_bound(
        first.begin(), first.end(), psn,
        [](uint64_t p, const std::pair<uint64_t, uint32_t>& m) { return p < m.first; });
    if (it == first.begin())
    {
        return nullptr; // a retired iteration's frame
    }
    return &exec->m_records[std::prev(it)->second];
}

void
WorkloadExecutor::PsnOwners::OnSent(PsnOwners* o, uint64_t psn, uint32_t, uint16_t)
{
    if (TransferRecord* r = o->RecordOf(psn))
    {
        ++r->pktsSent;
    }
}

void
WorkloadExecutor::PsnOwners::OnReceived(PsnOwners* o, uint64_t psn, bool, uint64_t path,
                                        uint16_t, bool)
{
    if (TransferRecord* r = o->RecordOf(psn))
    {
        ++r->pktsReceived;
        // Most flows keep one path, a sprayed one a few dozen: a scan from the latest path
        // is cheaper than a map.
        auto& paths = r->paths;
        for (auto it = paths.rbegin(); it != paths.rend(); ++it)
        {
            if (it->first == path)
            {
                ++it->second;
                return;
            }
        }
        paths.emplace_back(path, 1);
    }
    else if (psn < o->end)
    {
        ++o->exec->m_retiredSettled; // a retired transfer's late frame
    }
}

void
WorkloadExecutor::OnDataDropped(const FrameMeta& meta, DropReason reason)
{
    if (meta.kind != FrameKind::DATA)
    {
        return;
    }
    const auto it = m_ownersByDst.find(std::make_pair(meta.dstHost, meta.dstQp));
    if (it == m_ownersByDst.end())
    {
        return;
    }
    if (TransferRecord* r = it->second->RecordOf(meta.psn))
    {
        ++r->pktsDropped[static_cast<size_t>(reason)];
    }
    else if (meta.psn < it->second->end)
    {
        ++m_retiredSettled; // a retired transfer's frame
    }
}

void
WorkloadExecutor::OnLateDuplicate(uint64_t cookie)
{
    if (!Retired(static_cast<uint32_t>(cookie)))
    {
        ++m_records[cookie].duplicates;
    }
}

void
WorkloadExecutor::OnSendDone(uint64_t cookie, const SendMessageStats& stats)
{
    ++m_progress;
    TransferRecord& r = m_records[cookie];
    r.retxPackets += stats.retxPackets;
    r.retxBytes += stats.retxBytes;
    r.retxTimeoutPackets += stats.timeoutRetxPackets;
    if (--r.pendingSend == 0)
    {
        CompleteSend(static_cast<uint32_t>(cookie));
    }
}

void
WorkloadExecutor::CheckDone(uint32_t t)
{
    const TransferRecord& r = m_records[t];
    if (r.recvDone && r.sendDone)
    {
        ++m_done;
        if (m_window && t < m_restFirst)
        {
            for (const auto& range : m_window->Finish(t))
            {
                Retire(range);
            }
        }
        if (AllDone() && !m_allDone.IsNull())
        {
            m_allDone();
        }
    }
}

void
WorkloadExecutor::Activate(uint32_t trigger)
{
    const TriggerSpec& spec = Tg(trigger);
    ++m_activations[trigger];
    switch (spec.kind)
    {
    case TriggerSpec::ONESHOT:
    case TriggerSpec::BARRIER:
        if (!m_fired[trigger] && m_activations[trigger] >= spec.threshold)
        {
            Fire(trigger);
        }
        break;
    case TriggerSpec::MULTISHOT:
        if (m_multishotNext[trigger] < m_waiters[trigger].size())
        {
            ScheduleStart(m_waiters[trigger][m_multishotNext[trigger]++]);
        }
        break;
    }
}

void
WorkloadExecutor::Fire(uint32_t trigger)
{
    m_fired[trigger] = true;
    m_firedPs[trigger] = RunClock::NowPs();
    if (m_window && trigger < m_restTriggerFirst)
    {
        Register(m_window->ExpandFrom(trigger), false); // the iterations it starts
    }
    if (!m_fireHook.IsNull())
    {
        m_fireHook(trigger);
    }
    for (uint32_t t : m_waiters[trigger])
    {
        ScheduleStart(t);
    }
    const TriggerSpec& spec = Tg(trigger);
    for (uint32_t g : spec.onFire)
    {
        ++m_pendingActivations;
        if (m_trackPending)
        {
            const uint64_t now = RunClock::NowPs();
            PushTime(m_pendingTimes, now + spec.delayPs, now);
        }
        RunClock::NoteAbsolute(Simulator::Schedule(PicoSeconds(spec.delayPs),
                                                    &WorkloadExecutor::DelayedActivate, this, g));
    }
}

uint64_t
WorkloadExecutor::NextPendingStartPs()
{
    const uint64_t now = RunClock::NowPs();
    while (!m_pendingTimes.empty() && m_pendingTimes.front() < now)
    {
        std::pop_heap(m_pendingTimes.begin(), m_pendingTimes.end(), std::greater<>());
        m_pendingTimes.pop_back();
    }
    return m_pendingTimes.empty() ? UINT64_MAX : m_pendingTimes.front();
}

void
WorkloadExecutor::DelayedActivate(uint32_t trigger)
{
    --m_pendingActivations;
    ++m_progress;
    Activate(trigger);
    if (AllDone() && !m_allDone.IsNull())
    {
        m_allDone();
    }
}

void
WorkloadExecutor::SetReplay(uint64_t first, std::shared_ptr<const std::vector<TransferRecord>> records)
{
    NS_ABORT_MSG_IF(!records || records->empty() || first + records->size() > m_transfers,
                    "WorkloadExecutor::SetReplay: no records, or transfers beyond the workload");
    for (const TransferRecord& m : *records)
    {
        NS_ABORT_MSG_IF(!m.recvDone || !m.sendDone,
                        "WorkloadExecutor::SetReplay: a memo transfer is not finished");
    }
    m_replays[first] = std::move(records);
}

std::pair<const std::shared_ptr<const std::vector<TransferRecord>>*, uint64_t>
WorkloadExecutor::ReplaySlot(uint32_t t) const
{
    if (m_replays.empty())
    {
        return {nullptr, 0};
    }
    auto it = m_replays.upper_bound(t);
    if (it == m_replays.begin())
    {
        return {nullptr, 0};
    }
    --it;
    const uint64_t k = t - it->first;
    return k < it->second->size() ? std::make_pair(&it->second, k) : std::make_pair(nullptr, 0);
}

const TransferRecord*
WorkloadExecutor::ReplayRecord(uint32_t t) const
{
    const auto [pool, k] = ReplaySlot(t);
    return pool ? &(**pool)[k] : nullptr;
}

void
WorkloadExecutor::ReplayTransfer(uint32_t t,
                                 const std::shared_ptr<const std::vector<TransferRecord>>& pool,
                                 uint64_t k)
{
    const TransferRecord& m = (*pool)[k];
    const TransferSpec& ts = Tr(t);
    const uint64_t now = RunClock::NowPs();
    TransferRecord& r = m_records[t];
    // Its counters, QPs and entropy copied; its path and message lists its counterpart's,
    // shared with the pool (the aliasing constructor: `pool` held, &m pointed at).
    static_cast<TransferCounters&>(r) = m;
    r.counterpart = std::shared_ptr<const TransferRecord>(pool, &m);
    // Frames its row will count in flight (the memo's, as its iteration retired) that no
    // wire holds: the replay sends none.
    int64_t inFlight = static_cast<int64_t>(m.pktsSent) - static_cast<int64_t>(m.pktsReceived);
    for (const uint64_t d : m.pktsDropped)
    {
        inFlight -= static_cast<int64_t>(d);
    }
    if (inFlight > 0)
    {
        m_replayedInFlight += static_cast<uint64_t>(inFlight);
    }
    r.started = true;
    r.recvDone = false;
    r.sendDone = false;
    r.startPs = now;
    r.recvDonePs = 0;
    r.sendDonePs = 0;
    r.pendingRecv = 1;
    r.pendingSend = 1;
    if (!(m_scaleUp && m_scaleUp->SameServer(ts.src, ts.dst)))
    {
        Connection& c = GetConnection(ts);
        m_transferConnection[t] = &c;
        if (m_qpScaling == ROUND_ROBIN)
        {
            // The messages the memo posted moved the cursor as far (PostMessage's order).
            c.nextQp = static_cast<uint32_t>((c.nextQp + m.Messages().size()) % c.qps.size());
        }
    }
    ++m_replayed;
    m_startedTrace(t);
    m_pendingReplays += 2;
    AddReplayAction(m.recvDonePs - m.startPs, t, ReplayAgenda::DELIVERED);
    AddReplayAction(m.sendDonePs - m.startPs, t, ReplayAgenda::ACKNOWLEDGED);
}

void
WorkloadExecutor::AddReplayAction(uint64_t delayPs, uint32_t t, ReplayAgenda::Kind kind)
{
    if (!m_kernelKnown)
    {
        m_kernel =
            dynamic_cast<const LeanSimulatorImpl*>(PeekPointer(Simulator::GetImplementation()));
        m_kernelKnown = true;
    }
    // Events others scheduled so far: the kernel's count without the agenda's own and the
    // read-only observers' (NoteReadOnlyEvent).
    const uint64_t foreign = m_kernel ? m_kernel->GetScheduledCount() - m_agendaEvents -
                                            m_readOnlyEvents
                                      : ReplayAgenda::kNeverJoin;
    const uint64_t now = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    const auto [batch, opened] = m_agenda.Add(now + delayPs, {t, kind}, foreign);
    if (opened)
    {
        ++m_agendaEvents;
        if (batch >= m_batchEvents.size())
        {
            m_batchEvents.resize(batch + 1);
        }
        Ptr<BatchEvent>& event = m_batchEvents[batch];
        if (!event)
        {
            event = Create<BatchEvent>(this, batch);
        }
        Simulator::Schedule(PicoSeconds(delayPs), Ptr<EventImpl>(event));
    }
}

void
WorkloadExecutor::BatchEvent::Notify()
{
    if (m_exec)
    {
        m_exec->RunReplayBatch(m_batch);
    }
}

void
WorkloadExecutor::RunReplayBatch(uint32_t batch)
{
    std::vector<ReplayAgenda::Action> actions = m_agenda.Take(batch);
    for (const ReplayAgenda::Action& a : actions)
    {
        switch (a.kind)
        {
        case ReplayAgenda::START:
            StartTransfer(a.transfer);
            break;
        case ReplayAgenda::DELIVERED:
            ReplayRecvDone(a.transfer);
            break;
        case ReplayAgenda::ACKNOWLEDGED:
            ReplaySendDone(a.transfer);
            break;
        }
    }
    m_agenda.Recycle(std::move(actions));
}

void
WorkloadExecutor::ReplayRecvDone(uint32_t t)
{
    --m_pendingReplays;
    ++m_progress;
    m_records[t].pendingRecv = 0;
    CompleteRecv(t);
}

void
WorkloadExecutor::ReplaySendDone(uint32_t t)
{
    --m_pendingReplays;
    ++m_progress;
    m_records[t].pendingSend = 0;
    CompleteSend(t);
}

std::vector<uint32_t>
WorkloadExecutor::GetQpCursors() const
{
    // In the order the connections were created (their first QP's place in m_allQps): a
    // connection created later is appended, as its QPs are (IterationMemo::SameStartState).
    std::vector<std::pair<size_t, uint32_t>> order;
    order.reserve(m_connections.size());
    std::unordered_map<const RdmaQueuePair*, size_t> place;
    place.reserve(m_allQps.size());
    for (size_t k = 0; k < m_allQps.size(); ++k)
    {
        place.emplace(PeekPointer(m_allQps[k]), k);
    }
    for (const auto& [key, c] : m_connections)
    {
        const auto at = c.qps.empty() ? place.end() : place.find(PeekPointer(c.qps.front()));
        order.emplace_back(at == place.end() ? SIZE_MAX : at->second, c.nextQp);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<uint32_t> out;
    out.reserve(order.size());
    for (const auto& [at, cursor] : order)
    {
        out.push_back(cursor);
    }
    return out;
}

uint64_t
WorkloadExecutor::LiveRecords()
{
    return g_liveRecords;
}

uint64_t
WorkloadExecutor::StartedRecordsHeld()
{
    return g_startedHeld;
}

void
WorkloadExecutor::CountStartedHeld(int64_t delta)
{
    m_startedHeld += delta;
    g_startedHeld += delta;
}

void
WorkloadExecutor::CountLive(int64_t delta)
{
    m_liveRecords += delta;
    g_liveRecords += delta;
}

void
WorkloadExecutor::ReleaseRecord(uint32_t t)
{
    // A transfer that never started (a run stopped early) has nothing to free, and looking
    // its entry up for writing would allocate its page.
    TransferRecord* r = m_records.Find(t);
    if (r == nullptr)
    {
        return;
    }
    decltype(r->paths)().swap(r->paths);
    decltype(r->messages)().swap(r->messages);
    r->counterpart.reset();
}

bool
WorkloadExecutor::ReleaseRecords()
{
    if (!AllDone())
    {
        return false;
    }
    g_liveRecords -= m_liveRecords;
    m_liveRecords = 0;
    g_startedHeld -= m_startedHeld;
    m_startedHeld = 0;
    m_records.assign(0);
    m_transferConnection.assign(0);
    m_waiters.assign(0);
    m_multishotNext.assign(0);
    m_fired.assign(0);
    for (auto& [key, c] : m_connections)
    {
        for (auto& o : c.owners)
        {
            // RecordOf answers nullptr from now on: a frame still traced is counted nowhere.
            decltype(o->first)().swap(o->first);
            o->end = 0;
        }
    }
    return true;
}

uint64_t
WorkloadExecutor::DeliveredBytes(uint32_t t) const
{
    uint64_t bytes = m_records[t].deliveredBytes;
    if (m_records[t].recvDone)
    {
        return bytes;
    }
    if (!m_transferConnection[t])
    {
        return m_scaleUp && m_records[t].started ? m_scaleUp->GetSentBytes(t) : bytes;
    }
    for (const auto& peer : m_transferConnection[t]->peers)
    {
        uint64_t cookie = 0;
        if (peer->PeekReceive(cookie) && cookie == t)
        {
            bytes += peer->GetPartialReceivedBytes();
        }
    }
    return bytes;
}

uint32_t
WorkloadExecutor::MtuBytes(uint32_t t) const
{
    return m_nics[Tr(t).src]->GetMtuBytes();
}

uint64_t
WorkloadExecutor::SkippablePackets(uint32_t t) const
{
    const TransferRecord& r = m_records[t];
    const Connection* c = m_transferConnection[t];
    if (!r.started || r.recvDone || r.counterpart || c == nullptr || r.messages.size() != 1)
    {
        return 0;
    }
    return c->qps[r.messages[0].first]->SkippablePackets(t);
}

uint64_t
WorkloadExecutor::SkipPackets(uint32_t t, uint64_t packets)
{
    if (SkippablePackets(t) == 0)
    {
        return 0;
    }
    TransferRecord& r = m_records[t];
    const Connection& c = *m_transferConnection[t];
    const uint32_t q = r.messages[0].first;
    const uint64_t n = c.qps[q]->SkipUnsentPackets(t, packets);
    if (n == 0)
    {
        return 0;
    }
    const uint64_t bytes = n * MtuBytes(t);
    c.peers[q]->CreditSkippedReceive(n, bytes);
    // The QP's PSNs after the taken packets start n earlier (RdmaRequester::SkipUnsentPackets).
    PsnOwners& o = *c.owners[q];
    bool after = false;
    for (auto& [first, owner] : o.first)
    {
        if (after)
        {
            first -= n;
        }
        after = after || owner == t;
    }
    o.end -= n;
    r.pktsSent += n;
    r.pktsReceived += n;
    r.deliveredBytes += bytes;
    // The skipped frames' paths: in proportion to the frames each path carried so far.
    uint64_t frames = 0;
    for (const auto& p : r.paths)
    {
        frames += p.second;
    }
    if (frames > 0)
    {
        std::vector<std::pair<uint64_t, size_t>> rest; // (remainder, path index)
        uint64_t given = 0;
        for (size_t i = 0; i < r.paths.size(); ++i)
        {
            const unsigned __int128 share = static_cast<unsigned __int128>(n) * r.paths[i].second;
            const auto whole = static_cast<uint64_t>(share / frames);
            r.paths[i].second += whole;
            given += whole;
            rest.emplace_back(static_cast<uint64_t>(share % frames), i);
        }
        std::stable_sort(rest.begin(), rest.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
        for (size_t k = 0; given < n && k < rest.size(); ++k, ++given)
        {
            ++r.paths[rest[k].second].second;
        }
    }
    return n;
}

TransferRecord
WorkloadExecutor::RecordWithPending(uint32_t t) const
{
    TransferRecord r = m_records[t];
    if ((r.recvDone && r.sendDone) || !m_transferConnection[t])
    {
        return r;
    }
    for (const auto& qp : m_transferConnection[t]->qps)
    {
        const SendMessageStats s = qp->GetPendingSendStats(t);
        r.retxPackets += s.retxPackets;
        r.retxBytes += s.retxBytes;
        r.retxTimeoutPackets += s.timeoutRetxPackets;
    }
    for (const auto& peer : m_transferConnection[t]->peers)
    {
        uint64_t cookie = 0;
        if (!r.recvDone && peer->PeekReceive(cookie) && cookie == t)
        {
            const RecvMessageStats& p = peer->GetPartialReceiveStats();
            r.oooPackets += p.oooPackets;
            r.reorderMax = std::max(r.reorderMax, p.reorderMax);
            r.reorderSum += p.reorderSum;
            r.naks += p.naksSent;
            r.duplicates += p.duplicatePackets;
        }
    }
    return r;
}

void
WorkloadExecutor::CheckStall()
{
    if (AllDone() || m_stalled)
    {
        return;
    }
    uint64_t delivered = 0;
    for (const auto& peer : m_allPeers)
    {
        delivered += peer->GetCounters().deliveredBytes;
    }
    const bool busy = m_pendingStarts > 0 || m_pendingActivations > 0 || m_pendingReplays > 0 || (m_scaleUp && m_scaleUp->GetActiveTransfers() > 0);
    if (!busy && delivered == m_lastDelivered && m_progress == m_lastProgress)
    {
        m_stalled = true;
        m_stallPs = RunClock::NowPs();
        if (!m_stallCb.IsNull())
        {
            m_stallCb();
        }
        return;
    }
    m_lastDelivered = delivered;
    m_lastProgress = m_progress;
    Simulator::Schedule(m_stallTimeout, &WorkloadExecutor::CheckStall, this);
}

std::vector<std::string>
WorkloadExecutor::DescribeBlocked(size_t max) const
{
    // Group the transfers not done (delivered and acknowledged) by collective (-1 = none), keep
    // the first in flight and the first never started of each. "Unfinished" counts what the
    // run's headline and flows.csv count (not every byte delivered); a transfer delivered but
    // not yet acknowledged is counted apart.
    std::map<int32_t, std::pair<int64_t, int64_t>> firsts; // collective -> (in flight, waiting)
    std::map<int32_t, size_t> unfinished;
    std::map<int32_t, size_t> unacknowledged;
    ForEachLiveId([&](uint32_t t) {
        const TransferRecord& r = m_records[t];
        if (r.recvDone && r.sendDone)
        {
            return;
        }
        const int32_t c = Tr(t).collective;
        auto& f = firsts.try_emplace(c, -1, -1).first->second;
        ++(r.recvDone ? unacknowledged : unfinished)[c];
        if (r.started && f.first < 0)
        {
            f.first = t;
        }
        if (!r.started && f.second < 0)
        {
            f.second = t;
        }
    });
    std::vector<std::string> out;
    auto describe = [&](uint32_t t) {
        const TransferSpec& ts = Tr(t);
        std::ostringstream s;
        s << "transfer " << ts.externalId << " (host " << ts.src << " -> " << ts.dst << ", "
          << ts.bytes << " B";
        if (ts.step >= 0)
        {
            s << ", step " << ts.step << ", channel " << ts.channel;
        }
        s << ")";
        const TransferRecord& r = m_records[t];
        if (r.started)
        {
            s << " started at " << std::fixed << std::setprecision(3) << r.startPs / 1e6
              << " us, " << DeliveredBytes(t) << " of " << ts.bytes << " B delivered"
              << (r.recvDone ? ", never acknowledged" : "");
        }
        else if (ts.trigger >= 0)
        {
            const TriggerSpec& trig = Tg(ts.trigger);
            const char* kind = trig.kind == TriggerSpec::BARRIER     ? "barrier"
                               : trig.kind == TriggerSpec::MULTISHOT ? "multishot"
                                                                     : "oneshot";
            s << " waits for " << kind << " trigger " << trig.externalId << ": "
              << m_activations[ts.trigger] << " of " << trig.threshold << " activations";
        }
        else
        {
            s << " not started yet";
        }
        return s.str();
    };
    for (const auto& [c, f] : firsts)
    {
        if (out.size() >= max)
        {
            break;
        }
        std::ostringstream line;
        if (c >= 0)
        {
            const CollectiveSpec& cs = Coll(c);
            line << "collective " << c << " (" << cs.kind;
            if (!cs.algorithm.empty())
            {
                line << " " << cs.algorithm;
            }
            if (cs.job >= 0 && static_cast<size_t>(cs.job) < m_spec->jobs.size())
            {
                line << ", job " << cs.job << " '" << m_spec->jobs[cs.job].name << "', iteration "
                     << cs.iteration;
            }
            if (!cs.name.empty())
            {
                line << ", " << cs.name;
            }
            if (!cs.group.empty())
            {
                line << ", group " << cs.group;
            }
            line << ", " << cs.ranks.size() << " ranks) cannot complete: " << unfinished[c]
                 << " transfers unfinished";
        }
        else
        {
            line << unfinished[c] << " transfers outside collectives unfinished";
        }
        if (unacknowledged[c] > 0)
        {
            line << " and " << unacknowledged[c] << " delivered, not acknowledged";
        }
        if (f.first >= 0)
        {
            line << "; " << describe(static_cast<uint32_t>(f.first));
        }
        if (f.second >= 0)
        {
            line << "; " << describe(static_cast<uint32_t>(f.second));
        }
        out.push_back(line.str());
    }
    return out;
}

} // namespace ns3
