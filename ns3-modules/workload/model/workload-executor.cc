#include "workload-executor.h"

#include "ns3/abort.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WorkloadExecutor");
NS_OBJECT_ENSURE_REGISTERED(WorkloadExecutor);

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
                          "count).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&WorkloadExecutor::m_qpsPerConnection),
                          MakeUintegerChecker<uint32_t>(1, 1024))
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
                          "Sequential (consecutive from a random base) or Shared (one port).",
                          EnumValue(RANDOM_PORTS),
                          MakeEnumAccessor(&WorkloadExecutor::m_qpEntropy),
                          MakeEnumChecker(RANDOM_PORTS,
                                          "Random",
                                          SEQUENTIAL_PORTS,
                                          "Sequential",
                                          SHARED_PORT,
                                          "Shared"));
    return tid;
}

WorkloadExecutor::WorkloadExecutor()
    : m_entropyRng(CreateObject<UniformRandomVariable>())
{
}

void
WorkloadExecutor::DoDispose()
{
    m_connections.clear();
    m_allQps.clear();
    m_nics.clear();
    m_allDone = Callback<void>();
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
    m_spec = spec;
    m_nics = nics;
    const size_t n = spec.transfers.size();
    m_records.assign(n, TransferRecord());
    m_transferConnection.assign(n, nullptr);
    m_waiters.assign(spec.triggers.size(), {});
    m_activations.assign(spec.triggers.size(), 0);
    m_fired.assign(spec.triggers.size(), false);
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
WorkloadExecutor::Start()
{
    for (uint32_t t = 0; t < m_spec.transfers.size(); ++t)
    {
        if (m_spec.transfers[t].trigger < 0)
        {
            ScheduleStart(t);
        }
    }
    if (m_spec.transfers.empty() && !m_allDone.IsNull())
    {
        Simulator::ScheduleNow(m_allDone);
    }
}

void
WorkloadExecutor::ScheduleStart(uint32_t t)
{
    const uint64_t at = m_spec.transfers[t].startPs;
    const uint64_t now = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    // An untriggered transfer starts at its absolute time; a triggered one after its delay.
    const uint64_t delay = m_spec.transfers[t].trigger < 0 ? (at > now ? at - now : 0) : at;
    Simulator::Schedule(PicoSeconds(delay), &WorkloadExecutor::StartTransfer, this, t);
}

WorkloadExecutor::Connection&
WorkloadExecutor::GetConnection(const TransferSpec& t)
{
    Connection& c = m_connections[std::make_tuple(t.src, t.dst, t.qpGroup)];
    if (c.qps.empty())
    {
        const auto base = static_cast<uint16_t>(m_entropyRng->GetInteger(49152, 65535));
        for (uint32_t i = 0; i < m_qpsPerConnection; ++i)
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
            Ptr<RdmaQueuePair> qp = m_nics[t.src]->Connect(m_nics[t.dst], entropy, t.priority);
            Ptr<RdmaQueuePair> peer = m_nics[t.dst]->GetQp(qp->GetPeerQpn());
            qp->SetSendCallback(MakeCallback(&WorkloadExecutor::OnSendDone, this));
            peer->SetRecvCallback(MakeCallback(&WorkloadExecutor::OnRecvDone, this));
            c.qps.push_back(qp);
            c.peers.push_back(peer);
            m_allQps.push_back(qp);
        }
    }
    return c;
}

void
WorkloadExecutor::StartTransfer(uint32_t t)
{
    TransferRecord& r = m_records[t];
    if (r.started)
    {
        return;
    }
    const TransferSpec& ts = m_spec.transfers[t];
    Connection& c = GetConnection(ts);
    m_transferConnection[t] = &c;
    r.started = true;
    r.startPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
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
    c.peers[qp]->PostReceive(t);
    c.qps[qp]->PostSend(bytes, t);
}

void
WorkloadExecutor::OnRecvDone(uint64_t cookie, const RecvMessageStats& stats)
{
    TransferRecord& r = m_records[cookie];
    r.deliveredBytes += stats.bytes;
    r.oooPackets += stats.oooPackets;
    r.reorderMax = std::max(r.reorderMax, stats.reorderMax);
    r.reorderSum += stats.reorderSum;
    r.naks += stats.naksSent;
    r.duplicates += stats.duplicatePackets;
    if (--r.pendingRecv == 0)
    {
        r.recvDone = true;
        r.recvDonePs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
        for (uint32_t trig : m_spec.transfers[cookie].onRecvDone)
        {
            Activate(trig);
        }
        CheckDone(static_cast<uint32_t>(cookie));
    }
}

void
WorkloadExecutor::OnSendDone(uint64_t cookie, const SendMessageStats& stats)
{
    TransferRecord& r = m_records[cookie];
    r.retxPackets += stats.retxPackets;
    r.retxBytes += stats.retxBytes;
    if (--r.pendingSend == 0)
    {
        r.sendDone = true;
        r.sendDonePs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
        for (uint32_t trig : m_spec.transfers[cookie].onSendDone)
        {
            Activate(trig);
        }
        CheckDone(static_cast<uint32_t>(cookie));
    }
}

void
WorkloadExecutor::CheckDone(uint32_t t)
{
    const TransferRecord& r = m_records[t];
    if (r.recvDone && r.sendDone)
    {
        ++m_done;
        if (AllDone() && !m_allDone.IsNull())
        {
            m_allDone();
        }
    }
}

void
WorkloadExecutor::Activate(uint32_t trigger)
{
    const TriggerSpec& spec = m_spec.triggers[trigger];
    ++m_activations[trigger];
    switch (spec.kind)
    {
    case TriggerSpec::ONESHOT:
    case TriggerSpec::BARRIER:
        if (!m_fired[trigger] && m_activations[trigger] >= spec.threshold)
        {
            m_fired[trigger] = true;
            for (uint32_t t : m_waiters[trigger])
            {
                ScheduleStart(t);
            }
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

uint64_t
WorkloadExecutor::DeliveredBytes(uint32_t t) const
{
    uint64_t bytes = m_records[t].deliveredBytes;
    if (m_records[t].recvDone || !m_transferConnection[t])
    {
        return bytes;
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

} // namespace ns3
