#include "ethereal-path-selector.h"

#include "lb-policies/policy-registry.h"

#include "fabric/helper/source-routes.h"
#include "rdma/model/rdma-nic.h"
#include "rdma/model/rdma-queue-pair.h"

#include "ns3/boolean.h"
#include "ns3/callback.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(EtherealHostPaths);
NS_OBJECT_ENSURE_REGISTERED(EtherealPathSelector);

namespace
{
const PathSelectorRegistration kEtherealSelector{
    "ethereal", "ns3::EtherealPathSelector",
    "one source route per QP (subflow), moved to the host's least-loaded route after losses "
    "(NACKs in a row, a timeout, or silence)"};

/** Send times kept without feedback (a bound on memory, far above a window). */
constexpr size_t kMaxOutstanding = 4096;
} // namespace

TypeId
EtherealHostPaths::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EtherealHostPaths").SetParent<Object>().SetGroupName("LbPolicies");
    return tid;
}

EtherealHostPaths::EtherealHostPaths(uint32_t routes, uint32_t cursor)
    : m_routes(routes),
      m_cursor(cursor)
{
}

void
EtherealHostPaths::SetRoutesIfUnset(uint32_t routes)
{
    if (m_routes == 0)
    {
        m_routes = routes;
    }
}

uint32_t
EtherealHostPaths::Load(uint32_t route) const
{
    const auto it = m_load.find(route);
    return it == m_load.end() ? 0 : it->second;
}

void
EtherealHostPaths::Pin(uint32_t route)
{
    ++m_load[route];
}

void
EtherealHostPaths::Unpin(uint32_t route)
{
    auto it = m_load.find(route);
    if (it != m_load.end() && --it->second == 0)
    {
        m_load.erase(it);
    }
}

void
EtherealHostPaths::MarkFailed(uint32_t route, uint64_t untilPs)
{
    uint64_t& until = m_failedUntilPs[route];
    until = std::max(until, untilPs);
    ++m_marks;
}

RdmaNic*
EtherealHostPaths::NicOf(uint32_t host)
{
    if (m_nics.empty())
    {
        // Once per host table: every RdmaNic of the simulation by host id.
        for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
        {
            for (uint32_t d = 0; d < (*it)->GetNDevices(); ++d)
            {
                if (Ptr<RdmaNic> nic = DynamicCast<RdmaNic>((*it)->GetDevice(d)))
                {
                    m_nics[nic->GetHostId()] = PeekPointer(nic);
                }
            }
        }
    }
    const auto it = m_nics.find(host);
    return it == m_nics.end() ? nullptr : it->second;
}

bool
EtherealHostPaths::Failed(uint32_t route, uint64_t nowPs) const
{
    const auto it = m_failedUntilPs.find(route);
    return it != m_failedUntilPs.end() && nowPs < it->second;
}

uint32_t
EtherealHostPaths::LeastLoaded(uint32_t from, uint64_t nowPs)
{
    uint32_t best = from;
    uint32_t bestLoad = UINT32_MAX;
    bool bestHealthy = false;
    if (m_routes == 0)
    {
        return from;
    }
    for (uint32_t i = 0; i < m_routes; ++i)
    {
        const uint32_t r = (m_cursor + i) % m_routes;
        if (r == from)
        {
            continue;
        }
        const bool healthy = !Failed(r, nowPs);
        const uint32_t load = Load(r);
        // A healthy route beats a failed one; then the lower load; then the first scanned.
        if ((healthy && !bestHealthy) || (healthy == bestHealthy && load < bestLoad))
        {
            best = r;
            bestLoad = load;
            bestHealthy = healthy;
        }
    }
    if (best != from)
    {
        m_cursor = (best + 1) % m_routes;
    }
    return best;
}

TypeId
EtherealPathSelector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EtherealPathSelector")
            .SetParent<PathSelector>()
            .SetGroupName("LbPolicies")
            .AddConstructor<EtherealPathSelector>()
            .AddAttribute("Failover",
                          "Move the subflow to another route when its route loses packets "
                          "(bool); false = one route for the QP's lifetime, no failover.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EtherealPathSelector::m_failover),
                          MakeBooleanChecker())
            .AddAttribute("Routes",
                          "Distinct routes of the fabric (count; fabric/helper/source-routes.h)"
                          ", the routes a subflow may move to. Set by the runner under the "
                          "source-route switch policy; otherwise 16384.",
                          UintegerValue(kMaxRoutes),
                          MakeUintegerAccessor(&EtherealPathSelector::m_routes),
                          MakeUintegerChecker<uint32_t>(1, kMaxRoutes))
            .AddAttribute("RepinLosses",
                          "NACKs (trims or losses) in a row on the current route that move the "
                          "subflow (count, 1..1000); one retransmission timeout always does.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&EtherealPathSelector::m_repinLosses),
                          MakeUintegerChecker<uint32_t>(1, 1000))
            .AddAttribute("FailoverTime",
                          "Packets on the current route without feedback for this long move "
                          "the subflow (Time; checked when the subflow sends; 0 = off: only "
                          "NACKs and timeouts move it).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&EtherealPathSelector::m_failoverTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RouteHoldDown",
                          "How long the host avoids a route a subflow left after a timeout or "
                          "FailoverTime of silence, and moves its other subflows off it (Time).",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&EtherealPathSelector::m_holdDown),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Repinned",
                            "The subflow moved from one route to another (old and new "
                            "entropy, 49152 + route).",
                            MakeTraceSourceAccessor(&EtherealPathSelector::m_repinTrace),
                            "ns3::EtherealPathSelector::RepinTracedCallback");
    return tid;
}

EtherealPathSelector::EtherealPathSelector() = default;

void
EtherealPathSelector::SetHostPaths(Ptr<EtherealHostPaths> paths)
{
    m_host = paths;
    m_host->SetRoutesIfUnset(m_routes);
}

uint32_t
EtherealPathSelector::GetRoute() const
{
    return m_pinned ? m_route : RouteOfEntropy(m_base);
}

void
EtherealPathSelector::Pin()
{
    if (!m_host)
    {
        m_host = CreateObject<EtherealHostPaths>(m_routes, RouteOfEntropy(m_base) + 1);
    }
    m_route = RouteOfEntropy(m_base);
    m_entropy = m_base; // the route the workload pinned the subflow to
    m_host->Pin(m_route);
    m_pinned = true;
    MoveAcks();
}

void
EtherealPathSelector::Repin(uint64_t nowPs)
{
    const uint32_t from = m_route;
    const uint32_t to = m_host->LeastLoaded(from, nowPs);
    m_lossRun = 0;
    m_sentPs.clear();
    m_lastFeedbackPs = nowPs;
    if (to == from)
    {
        return; // one route only: nowhere to go
    }
    m_host->Unpin(from);
    m_host->Pin(to);
    const uint16_t old = m_entropy;
    m_route = to;
    m_entropy = EntropyOfRoute(to);
    ++m_repins;
    m_repinTrace(old, m_entropy);
    MoveAcks();
}

void
EtherealPathSelector::MoveAcks() const
{
    if (m_qp == nullptr)
    {
        return; // alone (unit tests): no peer
    }
    if (RdmaNic* nic = m_host->NicOf(m_qp->GetPeerHost()))
    {
        if (Ptr<RdmaQueuePair> peer = nic->GetQp(m_qp->GetPeerQpn()))
        {
            peer->GetPathSelector()->SetBaseEntropy(m_entropy);
        }
    }
}

uint16_t
EtherealPathSelector::DoNextEntropy(Time now)
{
    if (!m_failover)
    {
        return m_base;
    }
    if (!m_pinned)
    {
        Pin();
    }
    const uint64_t nowPs = now.GetPicoSeconds();
    const uint64_t silencePs = m_failoverTime.GetPicoSeconds();
    if (silencePs > 0 && !m_sentPs.empty() &&
        nowPs - std::max(m_lastFeedbackPs, m_sentPs.front()) >= silencePs)
    {
        m_host->MarkFailed(m_route, nowPs + m_holdDown.GetPicoSeconds());
        Repin(nowPs);
    }
    else if (m_seenMarks != m_host->GetMarks())
    {
        // The host marked a route failed since this subflow last looked (one lookup per mark,
        // not per packet): leave this one if it is among them.
        m_seenMarks = m_host->GetMarks();
        if (m_host->Failed(m_route, nowPs))
        {
            Repin(nowPs); // another subflow of the host found this route failed
        }
    }
    if (silencePs > 0)
    {
        if (m_sentPs.size() >= kMaxOutstanding)
        {
            m_sentPs.pop_front();
        }
        m_sentPs.push_back(nowPs);
    }
    return m_entropy;
}

void
EtherealPathSelector::DoFeedback(uint16_t entropy, Feedback fb, Time now)
{
    if (!m_failover || !m_pinned || entropy != m_entropy)
    {
        return; // fixed, not sending yet, or late news of a route the subflow has left
    }
    const uint64_t nowPs = now.GetPicoSeconds();
    m_lastFeedbackPs = nowPs;
    if (!m_sentPs.empty())
    {
        m_sentPs.pop_front();
    }
    if (fb == GOOD || fb == ECN)
    {
        m_lossRun = 0;
        return;
    }
    ++m_lossRun;
    if (fb == TIMEOUT)
    {
        // Nothing came back for a whole RTO: the route is taken for failed, host-wide.
        m_host->MarkFailed(m_route, nowPs + m_holdDown.GetPicoSeconds());
        Repin(nowPs);
    }
    else if (m_lossRun >= m_repinLosses)
    {
        Repin(nowPs); // trims or losses: this subflow moves, the route stays usable
    }
}

namespace
{
void
OnEtherealQp(Ptr<EtherealHostPaths> paths, Ptr<RdmaQueuePair> qp)
{
    Ptr<EtherealPathSelector> ps = DynamicCast<EtherealPathSelector>(qp->GetPathSelector());
    if (ps)
    {
        ps->SetHostPaths(paths);
        ps->SetQp(PeekPointer(qp));
    }
}
} // namespace

void
EtherealPathSelector::AttachTo(Ptr<RdmaNic> nic)
{
    auto paths = CreateObject<EtherealHostPaths>(0, nic->GetHostId());
    nic->TraceConnectWithoutContext("QpCreated", MakeBoundCallback(&OnEtherealQp, paths));
}

} // namespace ns3
