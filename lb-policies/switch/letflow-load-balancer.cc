#include "letflow-load-balancer.h"

#include "fabric/model/random-draws.h"
#include "flow-hash.h"
#include "lb-policies/policy-registry.h"

#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LetFlowLoadBalancer);

namespace
{
const PolicyRegistration kRegistration{
    {"letflow", "ns3::LetFlowLoadBalancer", "LetFlow: random port per flowlet"},
    "Vanini et al., Let It Flow, NSDI 2017"};
} // namespace

TypeId
LetFlowLoadBalancer::GetTypeId()
{
    using L = LetFlowLoadBalancer;
    static TypeId tid = AddFlowletAttributes<L>(
        TypeId("ns3::LetFlowLoadBalancer")
            .SetParent<LoadBalancer>()
            .SetGroupName("LbPolicies")
            .AddConstructor<L>(),
        MicroSeconds(50),
        "Flowlet timeout delta (Time): a packet arriving more than this after the previous "
        "packet of its flow starts a new flowlet.",
        &L::m_gap, &L::m_tableSize, &L::m_seed);
    return tid;
}

LetFlowLoadBalancer::LetFlowLoadBalancer()
    : m_rng(CreateObject<UniformRandomVariable>())
{
}

int64_t
LetFlowLoadBalancer::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

uint32_t
LetFlowLoadBalancer::DoSelectEgress(const LbContext& ctx,
                                    const FrameMeta& frame,
                                    const EgressCandidate* candidates,
                                    uint32_t count)
{
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
    int index = fresh ? -1 : FindCandidate(candidates, count, e.port);
    SetReason(EgressReason::FLOWLET);
    if (index < 0)
    {
        index = static_cast<int>(RandomDraws::Integer(*m_rng, 0, count - 1));
        ++m_flowlets;
        SetReason(EgressReason::RANDOM);
    }
    FlowletTable::Update(e, candidates[index].port, nowPs);
    return static_cast<uint32_t>(index);
}

} // namespace ns3
