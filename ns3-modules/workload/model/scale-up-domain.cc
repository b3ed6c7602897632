#include "scale-up-domain.h"

#include "ns3/abort.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScaleUpDomain");
NS_OBJECT_ENSURE_REGISTERED(ScaleUpDomain);

TypeId
ScaleUpDomain::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ScaleUpDomain")
            .SetParent<Object>()
            .SetGroupName("Workload")
            .AddConstructor<ScaleUpDomain>()
            .AddAttribute("GpusPerServer",
                          "GPUs per server (scale-up domain size, count); host h is on server "
                          "h / GpusPerServer.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&ScaleUpDomain::m_gpusPerServer),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RankHosts",
                          "Hosts [0, RankHosts) are GPUs on servers; hosts from RankHosts up "
                          "(in-network aggregation endpoints) are on no server and never use "
                          "the scale-up domain. 0 = every host is a GPU (count).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ScaleUpDomain::m_rankHosts),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Rate",
                          "Bandwidth of every GPU's port into the internal switch, each "
                          "direction (bit/s).",
                          DataRateValue(DataRate("3600Gbps")),
                          MakeDataRateAccessor(&ScaleUpDomain::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("Latency",
                          "One-way latency from GPU to GPU through the internal switch (time).",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&ScaleUpDomain::m_latency),
                          MakeTimeChecker());
    return tid;
}

ScaleUpDomain::ScaleUpDomain()
{
}

void
ScaleUpDomain::DoDispose()
{
    for (auto& s : m_servers)
    {
        s.next.Cancel();
    }
    m_servers.clear();
    m_recvDone = DoneCallback();
    m_sendDone = DoneCallback();
    Object::DoDispose();
}

bool
ScaleUpDomain::SameServer(uint32_t a, uint32_t b) const
{
    const bool onServers = m_rankHosts == 0 || (a < m_rankHosts && b < m_rankHosts);
    return m_gpusPerServer > 1 && a != b && onServers && a / m_gpusPerServer == b / m_gpusPerServer;
}

uint64_t
ScaleUpDomain::IdealFctPs(uint64_t bytes) const
{
    const double ps = static_cast<double>(bytes) * 8.0 / static_cast<double>(m_rate.GetBitRate()) * 1e12;
    return static_cast<uint64_t>(m_latency.GetPicoSeconds()) + static_cast<uint64_t>(std::ceil(ps));
}

ScaleUpDomain::Server&
ScaleUpDomain::GetServer(uint32_t server)
{
    if (server >= m_servers.size())
    {
        m_servers.resize(server + 1);
    }
    return m_servers[server];
}

void
ScaleUpDomain::Start(uint32_t id, uint32_t src, uint32_t dst, uint64_t bytes)
{
    NS_ABORT_MSG_UNLESS(SameServer(src, dst), "ScaleUpDomain: " << src << " and " << dst
                                                                << " are not on one server");
    NS_ABORT_MSG_IF(m_rate.GetBitRate() == 0, "ScaleUpDomain: Rate is 0");
    const uint32_t s = ServerOf(src);
    Server& server = GetServer(s);
    // Bring the others up to date before the newcomer changes their shares.
    Update(s);
    Flow f{id, src % m_gpusPerServer, dst % m_gpusPerServer, bytes, static_cast<double>(bytes), 0};
    server.flows.push_back(f);
    Update(s);
}

void
ScaleUpDomain::Update(uint32_t s)
{
    Server& server = m_servers[s];
    const uint64_t now = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    const double dt = static_cast<double>(now - server.lastPs) * 1e-12;
    server.lastPs = now;
    // Advance, and finish the flows whose last byte has left.
    std::vector<uint32_t> done;
    std::vector<Flow> keep;
    keep.reserve(server.flows.size());
    for (Flow& f : server.flows)
    {
        f.remaining -= f.rateBps * dt / 8.0;
        // Within a thousandth of a byte of the end (rounding of the event time to 1 ps).
        if (f.rateBps > 0 && f.remaining <= 1e-3)
        {
            done.push_back(f.id);
        }
        else
        {
            keep.push_back(f);
        }
    }
    server.flows.swap(keep);
    // Max-min fair shares by progressive filling over egress ports (0..G-1) and ingress ports
    // (G..2G-1), each of capacity Rate.
    const uint32_t G = m_gpusPerServer;
    std::vector<double> load(2 * G, 0.0);
    std::vector<uint32_t> unfrozen(2 * G, 0);
    std::vector<bool> frozen(server.flows.size(), false);
    for (const Flow& f : server.flows)
    {
        ++unfrozen[f.src];
        ++unfrozen[G + f.dst];
    }
    size_t left = server.flows.size();
    const double cap = static_cast<double>(m_rate.GetBitRate());
    while (left > 0)
    {
        uint32_t best = 0;
        double share = std::numeric_limits<double>::infinity();
        for (uint32_t p = 0; p < 2 * G; ++p)
        {
            if (unfrozen[p] > 0)
            {
                const double sh = (cap - load[p]) / unfrozen[p];
                if (sh < share)
                {
                    share = sh;
                    best = p;
                }
            }
        }
        share = std::max(share, 0.0);
        for (size_t i = 0; i < server.flows.size(); ++i)
        {
            Flow& f = server.flows[i];
            if (frozen[i] || (f.src != best && G + f.dst != best))
            {
                continue;
            }
            frozen[i] = true;
            f.rateBps = share;
            load[f.src] += share;
            load[G + f.dst] += share;
            --unfrozen[f.src];
            --unfrozen[G + f.dst];
            --left;
        }
    }
    // Next completion.
    server.next.Cancel();
    uint64_t soonest = std::numeric_limits<uint64_t>::max();
    for (const Flow& f : server.flows)
    {
        if (f.rateBps > 0)
        {
            const double ps = std::ceil(std::max(f.remaining, 0.0) * 8.0 / f.rateBps * 1e12);
            soonest = std::min<uint64_t>(soonest, static_cast<uint64_t>(ps));
        }
    }
    if (soonest != std::numeric_limits<uint64_t>::max())
    {
        server.next = Simulator::Schedule(PicoSeconds(soonest), &ScaleUpDomain::Update, this, s);
    }
    for (uint32_t id : done)
    {
        Simulator::Schedule(m_latency, &ScaleUpDomain::Finish, this, id);
    }
}

void
ScaleUpDomain::Finish(uint32_t id)
{
    if (!m_recvDone.IsNull())
    {
        m_recvDone(id);
    }
    Simulator::Schedule(m_latency, &ScaleUpDomain::Acknowledge, this, id);
}

void
ScaleUpDomain::Acknowledge(uint32_t id)
{
    if (!m_sendDone.IsNull())
    {
        m_sendDone(id);
    }
}

size_t
ScaleUpDomain::GetActiveTransfers() const
{
    size_t n = 0;
    for (const auto& s : m_servers)
    {
        n += s.flows.size();
    }
    return n;
}

uint64_t
ScaleUpDomain::GetSentBytes(uint32_t id) const
{
    const uint64_t now = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    for (const auto& s : m_servers)
    {
        for (const auto& f : s.flows)
        {
            if (f.id == id)
            {
                const double dt = static_cast<double>(now - s.lastPs) * 1e-12;
                const double sent = static_cast<double>(f.bytes) - f.remaining + f.rateBps * dt / 8.0;
                return static_cast<uint64_t>(std::clamp(sent, 0.0, static_cast<double>(f.bytes)));
            }
        }
    }
    return 0;
}

} // namespace ns3
