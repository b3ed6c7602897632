#include "least-loaded-load-balancer.h"

#include "fabric/model/random-draws.h"
#include "flow-hash.h"
#include "lb-policies/policy-registry.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LeastLoadedLoadBalancer);

namespace
{
const PolicyRegistration kPerPacket{
    {"ar", "ns3::LeastLoadedLoadBalancer",
     "adaptive routing: per packet, least egress backlog, ties at random"},
    "switch adaptive routing per packet (NVIDIA Spectrum-X AR, Broadcom DLB)"};
// InfiniBand adaptive routing: the same per-packet choice among the up-ports the subnet
// manager allows, on credit flow control; packets of a QP arrive out of order, so it needs a
// receiver that places them (PolicyInfo::needsReorderingReceiver).
const PolicyRegistration kIbAr{
    {"ib-ar", "ns3::LeastLoadedLoadBalancer",
     "InfiniBand adaptive routing: per packet, the allowed up-port with the least egress "
     "backlog; needs an out-of-order receiver",
     {}, "", 0, "", "", "infiniband", true},
    "NVIDIA Quantum InfiniBand adaptive routing (per-packet AR with out-of-order delivery to "
    "the transport); IBA vol. 1 rel. 1.4, adaptive routing"};
const PolicyRegistration kFlowlet{
    {"flowlet-ar", "ns3::LeastLoadedLoadBalancer",
     "adaptive routing in flowlet mode (switch DLB): a flow keeps its port until a 50 us gap, "
     "then the least egress backlog, at every tier",
     {{"FlowletGap", "50us"}}},
    "switch DLB flowlet mode (Broadcom DLB; htsim flowlet-sticky AR); flowlets: Kandula et "
    "al., FLARE, CCR 2007"};
} // namespace

TypeId
LeastLoadedLoadBalancer::GetTypeId()
{
    using L = LeastLoadedLoadBalancer;
    static TypeId tid = AddFlowletAttributes<L>(
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
                          MakeUintegerChecker<uint64_t>(1)),
        Time(0),
        "Flowlet mode (Time): a packet arriving more than this after the previous packet of its "
        "flow starts a new flowlet and re-decides; the others keep their flowlet's port. 0 = "
        "decide per packet.",
        &L::m_gap, &L::m_tableSize, &L::m_seed);
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
LeastLoadedLoadBalancer::LeastLoaded(const EgressCandidate* candidates, uint32_t count, int keep)
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
        else if (load == best && RandomDraws::Integer(*m_rng, 0, ties++) == 0)
        {
            choice = i; // reservoir sampling: each of the k tied candidates with probability 1/k
        }
    }
    // Steered only when a compared port was busier than the choice; a paused port avoided
    // counts as steering too.
    SetReason(ties == count ? EgressReason::RANDOM : EgressReason::LEAST_BACKLOG);
    if (keep >= 0 && !(skipPaused && candidates[keep].paused) && Load(candidates[keep]) == best)
    {
        return static_cast<uint32_t>(keep);
    }
    return choice;
}

uint32_t
LeastLoadedLoadBalancer::DoSelectEgress(const LbContext& ctx,
                                        const FrameMeta& frame,
                                        const EgressCandidate* candidates,
                                        uint32_t count)
{
    if (m_gap.IsZero())
    {
        ++m_flowlets;
        return LeastLoaded(candidates, count, -1);
    }
    if (m_table.GetSize() != m_tableSize)
    {
        m_table.Resize(m_tableSize); // once, after the attributes are set
    }
    const auto nowPs = static_cast<uint64_t>(ctx.now.GetPicoSeconds());
    const uint32_t h =
        FlowHash(frame, m_seed, FlowHashFields::FIVE_TUPLE_DST_QP, FlowHashFunction::MURMUR3);
    bool fresh = false;
    FlowletTable::Entry& e =
        m_table.Lookup(h, nowPs, static_cast<uint64_t>(m_gap.GetPicoSeconds()), fresh);
    const int previous = e.valid ? FindCandidate(candidates, count, e.port) : -1;
    uint32_t index;
    if (!fresh && previous >= 0)
    {
        index = static_cast<uint32_t>(previous); // within the flowlet: keep its port
        SetReason(EgressReason::FLOWLET);
    }
    else
    {
        index = LeastLoaded(candidates, count, previous);
        ++m_flowlets;
        m_moves += previous >= 0 && index != static_cast<uint32_t>(previous);
    }
    FlowletTable::Update(e, candidates[index].port, nowPs);
    return index;
}

} // namespace ns3
