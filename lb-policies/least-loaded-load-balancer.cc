#include "least-loaded-load-balancer.h"

#include "policy-registry.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeastLoadedLoadBalancer);

namespace
{
const PolicyRegistration kRegistration{
    {"ar", "ns3::LeastLoadedLoadBalancer",
     "adaptive routing: per packet, least egress queue, ties at random"}};
} // namespace

TypeId
LeastLoadedLoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LeastLoadedLoadBalancer")
            .SetParent<LoadBalancer>()
            .SetGroupName("LbPolicies")
            .AddConstructor<LeastLoadedLoadBalancer>()
            .AddAttribute("PauseAware",
                          "Avoid PFC-paused candidates unless all are paused (boolean).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&LeastLoadedLoadBalancer::m_pauseAware),
                          MakeBooleanChecker())
            .AddAttribute("UtilisationWeight",
                          "Bytes added to the load per unit of DRE link utilisation (bytes; 0 = "
                          "queue bytes only).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&LeastLoadedLoadBalancer::m_utilWeight),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("QuantumBytes",
                          "Load granularity (bytes): loads in the same quantum tie, as a switch "
                          "compares quantised queue levels.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&LeastLoadedLoadBalancer::m_quantum),
                          MakeUintegerChecker<uint64_t>(1));
    return tid;
}

LeastLoadedLoadBalancer::LeastLoadedLoadBalancer()
    : m_rng(CreateObject<UniformRandomVariable>())
{
}

int64_t
LeastLoadedLoadBalancer::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

uint64_t
LeastLoadedLoadBalancer::Load(const EgressCandidate& c) const
{
    const double bytes = static_cast<double>(c.queueBytes) + m_utilWeight * c.utilisation;
    return static_cast<uint64_t>(std::floor(bytes)) / m_quantum;
}

uint32_t
LeastLoadedLoadBalancer::DoSelectEgress(const LbContext&,
                                        const FrameMeta&,
                                        const EgressCandidate* candidates,
                                        uint32_t count)
{
    bool skipPaused = false;
    if (m_pauseAware)
    {
        for (uint32_t i = 0; i < count && !skipPaused; ++i)
        {
            skipPaused = !candidates[i].paused;
        }
    }
    uint64_t best = UINT64_MAX;
    uint32_t choice = 0;
    uint32_t ties = 0;
    for (uint32_t i = 0; i < count; ++i)
    {
        if (skipPaused && candidates[i].paused)
        {
            continue;
        }
        const uint64_t load = Load(candidates[i]);
        if (load < best)
        {
            best = load;
            choice = i;
            ties = 1;
        }
        else if (load == best && m_rng->GetInteger(0, ties++) == 0)
        {
            choice = i; // reservoir sampling: each of the k tied candidates with probability 1/k
        }
    }
    return choice;
}

} // namespace ns3
