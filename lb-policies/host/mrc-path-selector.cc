#include "mrc-path-selector.h"

#include "lb-policies/policy-registry.h"

#include "fabric/helper/source-routes.h"

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MrcPathSelector);
NS_OBJECT_ENSURE_REGISTERED(PathSetSprayPathSelector);

namespace
{
const PathSelectorRegistration kMrcSelector{
    "mrc", "ns3::MrcPathSelector",
    "MRC-style: spray a source-routed path set, steer away from ECN / trims / RTT excess, "
    "retire failed paths and probe them before reuse"};
const PathSelectorRegistration kPathSetSpray{
    "path-set-spray", "ns3::PathSetSprayPathSelector",
    "spray a source-routed path set round-robin (routes 0 .. PathSetSize - 1)"};

/** Send times kept per path without feedback (a bound on memory, far above a window). */
constexpr size_t kMaxOutstandingPerPath = 4096;
/** Longest retirement, in ProbeIntervals. */
constexpr uint32_t kMaxBackoff = 64;
} // namespace

TypeId
MrcPathSelector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MrcPathSelector")
            .SetParent<PathSelector>()
            .SetGroupName("LbPolicies")
            .AddConstructor<MrcPathSelector>()
            .AddAttribute("PathSetSize",
                          "Paths in a QP's path set (count, 1..16384): routes 0 .. n-1 of the "
                          "fabric's Routes, n = min(PathSetSize, Routes).",
                          UintegerValue(256),
                          MakeUintegerAccessor(&MrcPathSelector::m_pathSetSize),
                          MakeUintegerChecker<uint32_t>(1, kMaxRoutes))
            .AddAttribute("Routes",
                          "Distinct routes of the fabric (count; fabric/helper/source-routes.h). "
                          "Set by the runner under the source-route switch policy; otherwise "
                          "16384, so the set is PathSetSize entropies that switches hash.",
                          UintegerValue(kMaxRoutes),
                          MakeUintegerAccessor(&MrcPathSelector::m_routes),
                          MakeUintegerChecker<uint32_t>(1, kMaxRoutes))
            .AddAttribute("FailoverTime",
                          "A path with packets outstanding and no feedback for this long is "
                          "retired (Time; MRC fails over in microseconds).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&MrcPathSelector::m_failoverTime),
                          MakeTimeChecker(PicoSeconds(1)))
            .AddAttribute("ProbeInterval",
                          "A retired path is probed (one packet) this long after its "
                          "retirement, doubling after each failed probe up to 64 x (Time).",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&MrcPathSelector::m_probeInterval),
                          MakeTimeChecker(PicoSeconds(1)))
            .AddAttribute("RetireLosses",
                          "NACKs (trims or losses) or timeouts in a row that retire a path "
                          "(count, 1..1000).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&MrcPathSelector::m_retireLosses),
                          MakeUintegerChecker<uint32_t>(1, 1000))
            .AddAttribute("EcnPenalty",
                          "Turns a path skips per ECN echo (count).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&MrcPathSelector::m_ecnPenalty),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("TrimPenalty",
                          "Turns a path skips per NACK, a trim or a loss (count).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&MrcPathSelector::m_trimPenalty),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("RttExcessFactor",
                          "An RTT sample above this many times the QP's smallest skips the "
                          "path one turn (ratio; 0 = off).",
                          DoubleValue(2.0),
                          MakeDoubleAccessor(&MrcPathSelector::m_rttExcessFactor),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("MinActiveFraction",
                          "Share of the path set that is never retired at once (ratio 0..1; "
                          "at least one path; MRC's ev_min_active).",
                          DoubleValue(0.25),
                          MakeDoubleAccessor(&MrcPathSelector::m_minActiveFraction),
                          MakeDoubleChecker<double>(0, 1));
    return tid;
}

MrcPathSelector::MrcPathSelector() = default;

uint32_t
MrcPathSelector::GetPathCount() const
{
    return std::max<uint32_t>(1, std::min(m_pathSetSize, m_routes));
}

void
MrcPathSelector::Init()
{
    m_paths.assign(GetPathCount(), Path());
    // Each QP starts at its own place in the set, so QPs do not move in lockstep.
    m_next = m_base % m_paths.size();
}

uint16_t
MrcPathSelector::Send(uint32_t i, uint64_t nowPs)
{
    Path& p = m_paths[i];
    if (p.sentPs.size() >= kMaxOutstandingPerPath)
    {
        p.sentPs.pop_front();
    }
    p.sentPs.push_back(nowPs);
    return EntropyOfRoute(i);
}

void
MrcPathSelector::Retire(uint32_t i, uint64_t nowPs)
{
    Path& p = m_paths[i];
    const uint32_t n = m_paths.size();
    const uint32_t floor =
        std::max<uint32_t>(1, static_cast<uint32_t>(n * m_minActiveFraction));
    if (p.state == GOOD)
    {
        if (m_retired + floor >= n)
        {
            p.lossRun = 0; // the floor holds: keep the path (MRC's ev_min_active)
            p.lastFeedbackPs = nowPs;
            return;
        }
        ++m_retired;
    }
    else if (p.state == PROBING)
    {
        p.backoff = std::min(p.backoff * 2, kMaxBackoff);
    }
    p.state = ASSUMED_BAD;
    p.retiredUntilPs = nowPs + p.backoff * static_cast<uint64_t>(m_probeInterval.GetPicoSeconds());
    p.sentPs.clear();
    p.lossRun = 0;
    p.skip = 0;
    ++m_retirements;
}

bool
MrcPathSelector::Usable(uint32_t i, uint64_t nowPs)
{
    Path& p = m_paths[i];
    const uint64_t failover = m_failoverTime.GetPicoSeconds();
    const bool silent = !p.sentPs.empty() &&
                        nowPs - std::max(p.lastFeedbackPs, p.sentPs.front()) >= failover;
    switch (p.state)
    {
    case ASSUMED_BAD:
        if (nowPs < p.retiredUntilPs)
        {
            return false;
        }
        p.state = PROBING; // this packet is the probe
        p.lastFeedbackPs = nowPs;
        ++m_probes;
        return true;
    case PROBING:
        if (silent)
        {
            Retire(i, nowPs); // the probe got no answer
        }
        return false;
    case GOOD:
    default:
        if (silent)
        {
            Retire(i, nowPs);
            if (p.state != GOOD)
            {
                return false;
            }
        }
        if (p.skip > 0)
        {
            --p.skip;
            return false;
        }
        return true;
    }
}

uint16_t
MrcPathSelector::DoNextEntropy(Time now)
{
    if (m_paths.empty())
    {
        Init();
    }
    const uint32_t n = m_paths.size();
    const uint64_t nowPs = now.GetPicoSeconds();
    if (!m_adaptive)
    {
        const uint32_t i = m_next;
        m_next = (m_next + 1) % n;
        return EntropyOfRoute(i);
    }
    for (uint32_t tries = 0; tries < n; ++tries)
    {
        const uint32_t i = m_next;
        m_next = (m_next + 1) % n;
        if (Usable(i, nowPs))
        {
            return Send(i, nowPs);
        }
    }
    // Every path skipped a turn: the GOOD path with the fewest turns still to skip.
    uint32_t best = n;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (m_paths[i].state == GOOD && (best == n || m_paths[i].skip < m_paths[best].skip))
        {
            best = i;
        }
    }
    if (best == n) // none GOOD (only with MinActiveFraction 0 and one path): the first one
    {
        best = 0;
    }
    return Send(best, nowPs);
}

void
MrcPathSelector::DoFeedback(uint16_t entropy, Feedback fb, Time now)
{
    if (!m_adaptive || m_paths.empty() || entropy < kRouteEntropyBase)
    {
        return;
    }
    const uint32_t i = RouteOfEntropy(entropy);
    if (i >= m_paths.size())
    {
        return;
    }
    Path& p = m_paths[i];
    const uint64_t nowPs = now.GetPicoSeconds();
    uint64_t rttPs = 0;
    if (!p.sentPs.empty())
    {
        rttPs = nowPs - p.sentPs.front();
        p.sentPs.pop_front();
    }
    p.lastFeedbackPs = nowPs;
    switch (fb)
    {
    case PathSelector::GOOD: // Feedback, not this class's State::GOOD
    case PathSelector::ECN:
        p.lossRun = 0;
        if (rttPs > 0)
        {
            m_minRttPs = m_minRttPs == 0 ? rttPs : std::min(m_minRttPs, rttPs);
            if (m_rttExcessFactor > 0 && rttPs > m_rttExcessFactor * m_minRttPs)
            {
                ++p.skip;
            }
        }
        if (fb == ECN)
        {
            p.skip += m_ecnPenalty;
        }
        if (p.state == PROBING)
        {
            p.state = GOOD; // the probe came back: reinstate
            p.backoff = 1;
            p.skip = 0;
            --m_retired;
            ++m_reinstatements;
        }
        break;
    case PathSelector::NACK:
    case PathSelector::TIMEOUT:
    default:
        if (p.state == ASSUMED_BAD)
        {
            break; // late news of packets sent before the retirement
        }
        p.skip += m_trimPenalty;
        ++p.lossRun;
        if (p.state == PROBING || fb == TIMEOUT || p.lossRun >= m_retireLosses)
        {
            Retire(i, nowPs);
        }
        break;
    }
}

TypeId
PathSetSprayPathSelector::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PathSetSprayPathSelector")
                            .SetParent<MrcPathSelector>()
                            .SetGroupName("LbPolicies")
                            .AddConstructor<PathSetSprayPathSelector>();
    return tid;
}

PathSetSprayPathSelector::PathSetSprayPathSelector()
{
    m_adaptive = false;
}

} // namespace ns3
