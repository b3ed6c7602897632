#include "pfc-deadlock-detector.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>
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
    using Queue = std::tuple<uint32_t, uint16_t, uint8_t>; // switch index, egress port, priority
    const Time now = Simulator::Now();
    std::map<Queue, Time> stuck; // stuck queue -> paused since
    for (uint32_t s = 0; s < m_switches.size(); ++s)
    {
        const Ptr<SwitchNode>& sw = m_switches[s];
        for (uint16_t e = 0; e < sw->GetNPorts(); ++e)
        {
            const SwitchPort* port = PeekPointer(sw->GetPort(e));
            if (port->GetQueueBytes() == 0)
            {
                continue; // the sum of its priorities' bytes: none is stuck
            }
            for (uint8_t p = 0; p < SwitchPort::kPriorities; ++p)
            {
                if (port->GetQueueBytes(p) > 0 && port->IsPaused(p) &&
                    port->GetStuckSince(p) + m_threshold <= now)
                {
                    stuck.emplace(Queue{s, e, p}, port->GetStuckSince(p));
                }
            }
        }
    }
    if (stuck.empty())
    {
        return ""; // every period of a run without a pause ends here: nothing allocated
    }
    std::map<uint32_t, uint32_t> index; // node id -> switch index
    for (uint32_t s = 0; s < m_switches.size(); ++s)
    {
        index[m_switches[s]->GetId()] = s;
    }
    // Edges: a stuck queue -> the queues of the peer switch its head frame is routed to, when
    // all of them are stuck.
    auto successors = [&](const Queue& q) {
        std::vector<Queue> out;
        const auto& [s, e, p] = q;
        Ptr<SwitchPort> port = m_switches[s]->GetPort(e);
        Ptr<SwitchPort> peer = DynamicCast<SwitchPort>(port->GetPeerDevice());
        const FrameMeta* head = port->PeekHead(p);
        if (!peer || !head)
        {
            return out;
        }
        const uint32_t d = index.at(peer->GetSwitch()->GetId());
        const PortSpan route = m_switches[d]->GetRoute(head->dstHost);
        for (uint32_t i = 0; i < route.size(); ++i)
        {
            const Queue next{d, route[i], p};
            if (stuck.count(next) == 0)
            {
                return std::vector<Queue>(); // the head frame has a way on
            }
            out.push_back(next);
        }
        return out;
    };
    std::map<Queue, int> color; // 0 unvisited, 1 on the DFS stack, 2 done
    std::vector<Queue> stack;
    std::vector<Queue> cycle;
    std::function<bool(const Queue&)> dfs = [&](const Queue& q) {
        color[q] = 1;
        stack.push_back(q);
        for (const Queue& m : successors(q))
        {
            if (color[m] == 1)
            {
                cycle.assign(std::find(stack.begin(), stack.end(), m), stack.end());
                return true;
            }
            if (color[m] == 0 && dfs(m))
            {
                return true;
            }
        }
        stack.pop_back();
        color[q] = 2;
        return false;
    };
    for (const auto& entry : stuck)
    {
        if (color[entry.first] == 0 && dfs(entry.first))
        {
            break;
        }
    }
    if (cycle.empty())
    {
        return "";
    }
    Time shortest = now;
    std::ostringstream os;
    os << "PFC deadlock (priority " << unsigned(std::get<2>(cycle[0])) << "): ";
    for (size_t i = 0; i < cycle.size(); ++i)
    {
        const auto& [s, e, p] = cycle[i];
        os << (i ? " -> " : "") << m_names[s] << " port " << e;
        shortest = std::min(shortest, now - stuck.at(cycle[i]));
    }
    const auto& [s0, e0, p0] = cycle[0];
    os << " -> " << m_names[s0] << " port " << e0
       << "; every queue of the cycle paused without a break, with frames queued for the next, for "
       << shortest.GetMicroSeconds() << " us or more";
    return os.str();
}

} // namespace ns3
