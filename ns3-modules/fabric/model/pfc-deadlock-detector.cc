#include "pfc-deadlock-detector.h"

#include "ns3/simulator.h"

#include <functional>
#include <set>
#include <sstream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PfcDeadlockDetector);

TypeId
PfcDeadlockDetector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PfcDeadlockDetector")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<PfcDeadlockDetector>()
            .AddAttribute("Threshold",
                          "How long every queue of a cycle must have stayed paused with frames "
                          "queued before it is reported as a deadlock (Time).",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&PfcDeadlockDetector::m_threshold),
                          MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

void
PfcDeadlockDetector::DoDispose()
{
    m_event.Cancel();
    m_switches.clear();
    m_cb = Callback<void, std::string>();
    Object::DoDispose();
}

void
PfcDeadlockDetector::Install(const std::vector<Ptr<SwitchNode>>& switches,
                             const std::vector<std::string>& names)
{
    m_switches = switches;
    m_names = names;
}

void
PfcDeadlockDetector::Start()
{
    m_event = Simulator::Schedule(m_threshold / 4, &PfcDeadlockDetector::Periodic, this);
}

void
PfcDeadlockDetector::Periodic()
{
    const std::string cycle = Check();
    if (!cycle.empty() && !m_reported)
    {
        m_reported = true;
        if (!m_cb.IsNull())
        {
            m_cb(cycle);
        }
        return;
    }
    m_event = Simulator::Schedule(m_threshold / 4, &PfcDeadlockDetector::Periodic, this);
}

std::string
PfcDeadlockDetector::Check()
{
    using Node = std::tuple<uint32_t, uint16_t, uint8_t>;
    const Time now = Simulator::Now();
    std::set<Node> blockedLong;
    std::map<Node, Time> still;
    for (uint32_t s = 0; s < m_switches.size(); ++s)
    {
        const Ptr<SwitchNode>& sw = m_switches[s];
        for (uint16_t e = 0; e < sw->GetNPorts(); ++e)
        {
            Ptr<SwitchPort> port = sw->GetPort(e);
            for (uint8_t p = 0; p < 8; ++p)
            {
                if (!port->IsPaused(p) || port->GetQueueBytes(p) == 0)
                {
                    continue;
                }
                const Node n{s, e, p};
                auto it = m_blockedSince.find(n);
                const Time since = it == m_blockedSince.end() ? now : it->second;
                still[n] = since;
                if (now - since >= m_threshold)
                {
                    blockedLong.insert(n);
                }
            }
        }
    }
    m_blockedSince = std::move(still);
    if (blockedLong.empty())
    {
        return "";
    }
    // Edges: (s, e, p) -> every long-blocked (d, e', p) where d is the switch behind port e.
    std::map<uint32_t, uint32_t> index;
    for (uint32_t s = 0; s < m_switches.size(); ++s)
    {
        index[m_switches[s]->GetId()] = s;
    }
    auto successors = [&](const Node& n) {
        std::vector<Node> out;
        Ptr<SwitchPort> port = m_switches[std::get<0>(n)]->GetPort(std::get<1>(n));
        Ptr<SwitchPort> peer = DynamicCast<SwitchPort>(port->GetPeerDevice());
        if (!peer)
        {
            return out;
        }
        const uint32_t d = index[peer->GetSwitch()->GetId()];
        for (auto it = blockedLong.lower_bound(Node{d, 0, 0});
             it != blockedLong.end() && std::get<0>(*it) == d; ++it)
        {
            if (std::get<2>(*it) == std::get<2>(n))
            {
                out.push_back(*it);
            }
        }
        return out;
    };
    std::map<Node, int> color; // 0 white, 1 on stack, 2 done
    std::vector<Node> stack;
    std::vector<Node> cycle;
    std::function<bool(const Node&)> dfs = [&](const Node& n) {
        color[n] = 1;
        stack.push_back(n);
        for (const Node& m : successors(n))
        {
            if (color[m] == 1)
            {
                auto it = std::find(stack.begin(), stack.end(), m);
                cycle.assign(it, stack.end());
                return true;
            }
            if (color[m] == 0 && dfs(m))
            {
                return true;
            }
        }
        stack.pop_back();
        color[n] = 2;
        return false;
    };
    for (const Node& n : blockedLong)
    {
        if (color[n] == 0 && dfs(n))
        {
            break;
        }
    }
    if (cycle.empty())
    {
        return "";
    }
    std::ostringstream os;
    os << "PFC deadlock (priority " << unsigned(std::get<2>(cycle[0])) << "): ";
    for (size_t i = 0; i < cycle.size(); ++i)
    {
        const auto& [s, e, p] = cycle[i];
        os << (i ? " -> " : "") << m_names[s] << " port " << e;
    }
    const auto& [s0, e0, p0] = cycle[0];
    os << " -> " << m_names[s0] << " port " << e0 << "; every queue paused with frames queued for "
       << (now - m_blockedSince[cycle[0]]).GetMicroSeconds() << " us or more";
    return os.str();
}

} // namespace ns3
