#include "drill-load-balancer.h"

#include "fabric/model/random-draws.h"
#include "flowlet-table.h"
#include "lb-policies/policy-registry.h"

#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DrillLoadBalancer);

namespace
{
const PolicyRegistration kRegistration{
    {"drill", "ns3::DrillLoadBalancer",
     "DRILL(2,1): per packet, least queue of 2 random + 1 remembered port"},
    "Ghorbani et al., DRILL, SIGCOMM 2017"};
} // namespace

TypeId
DrillLoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DrillLoadBalancer")
            .SetParent<LoadBalancer>()
            .SetGroupName("LbPolicies")
            .AddConstructor<DrillLoadBalancer>()
            .AddAttribute("Samples",
                          "d: candidates sampled at random per packet (count, >= 1).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&DrillLoadBalancer::m_samples),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("Memory",
                          "m: least-loaded ports remembered from the previous decision (count, "
                          "0..8).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&DrillLoadBalancer::m_memorySize),
                          MakeUintegerChecker<uint32_t>(0, kMaxMemory));
    return tid;
}

DrillLoadBalancer::DrillLoadBalancer()
    : m_rng(CreateObject<UniformRandomVariable>())
{
}

int64_t
DrillLoadBalancer::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

uint32_t
DrillLoadBalancer::DoSelectEgress(const LbContext&,
                                  const FrameMeta&,
                                  const EgressCandidate* candidates,
                                  uint32_t count)
{
    // The compared set: d distinct random candidates (partial Fisher-Yates), then the
    // remembered ports that are candidates and not already sampled.
    if (m_order.size() < count)
    {
        m_order.resize(count); // grows to the largest group once
    }
    for (uint32_t i = 0; i < count; ++i)
    {
        m_order[i] = i;
    }
    const uint32_t d = std::min(m_samples, count);
    for (uint32_t i = 0; i < d; ++i)
    {
        const uint32_t j = i + RandomDraws::Integer(*m_rng, 0, count - 1 - i);
        std::swap(m_order[i], m_order[j]);
    }
    uint32_t n = d;
    for (uint32_t k = 0; k < m_remembered && k < m_memorySize; ++k)
    {
        const int idx = FindCandidate(candidates, count, m_memory[k]);
        if (idx < 0)
        {
            continue;
        }
        // Already sampled? (d + m is small.) Else move it into the compared prefix.
        auto end = m_order.begin() + n;
        auto it = std::find(m_order.begin() + n, m_order.begin() + count, static_cast<uint32_t>(idx));
        if (std::find(m_order.begin(), end, static_cast<uint32_t>(idx)) == end &&
            it != m_order.begin() + count)
        {
            std::iter_swap(m_order.begin() + n, it);
            ++n;
        }
    }
    // Least loaded of the compared set; ties uniformly at random (reservoir sampling).
    uint64_t best = UINT64_MAX;
    uint32_t choice = m_order[0];
    uint32_t ties = 0;
    for (uint32_t k = 0; k < n; ++k)
    {
        const uint32_t i = m_order[k];
        const uint64_t load = candidates[i].queueBytes;
        if (load < best)
        {
            best = load;
            choice = i;
            ties = 1;
        }
        else if (load == best && RandomDraws::Integer(*m_rng, 0, ties++) == 0)
        {
            choice = i;
        }
    }
    SetReason(ties == n ? EgressReason::RANDOM : EgressReason::LEAST_BACKLOG);
    // Remember the m least loaded of the compared set (the choice first).
    if (m_memorySize > 0)
    {
        std::sort(m_order.begin(), m_order.begin() + n, [&](uint32_t a, uint32_t b) {
            if (a == choice || b == choice)
            {
                return a == choice && b != choice;
            }
            return candidates[a].queueBytes < candidates[b].queueBytes;
        });
        m_remembered = std::min(n, m_memorySize);
        for (uint32_t k = 0; k < m_remembered; ++k)
        {
            m_memory[k] = candidates[m_order[k]].port;
        }
    }
    return choice;
}

} // namespace ns3
