#include "load-balancer.h"

#include "egress-decision-log.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LoadBalancer");
NS_OBJECT_ENSURE_REGISTERED(LoadBalancer);

TypeId
LoadBalancer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LoadBalancer").SetParent<Object>().SetGroupName("Fabric");
    return tid;
}

LoadBalancer::LoadBalancer() = default;
LoadBalancer::~LoadBalancer() = default;

uint32_t
LoadBalancer::SelectEgress(const LbContext& ctx,
                           const FrameMeta& frame,
                           const EgressCandidate* candidates,
                           uint32_t count)
{
    NS_ABORT_MSG_IF(count == 0, "LoadBalancer::SelectEgress: no candidates");
    if (count == 1)
    {
        return 0;
    }
    ++m_decisions;
    m_reason = EgressReason::POLICY;
    const uint32_t index = DoSelectEgress(ctx, frame, candidates, count);
    NS_ABORT_MSG_IF(index >= count,
                    "LoadBalancer " << GetInstanceTypeId().GetName() << " returned index "
                                    << index << " of " << count << " candidates");
    if (m_log)
    {
        m_log->Add(candidates, count, index, m_reason, ctx.frameBytes);
    }
    return index;
}

bool
LoadBalancer::ProbeEgress(const LbContext& ctx,
                          const FrameMeta& frame,
                          const EgressCandidate* candidates,
                          uint32_t count,
                          uint32_t& index) const
{
    if (count == 0 || m_frameHooks)
    {
        return false;
    }
    if (count == 1)
    {
        index = 0;
        return true;
    }
    if (!DoProbeEgress(ctx, frame, candidates, count, index))
    {
        return false;
    }
    NS_ABORT_MSG_IF(index >= count,
                    "LoadBalancer " << GetInstanceTypeId().GetName() << " probed index "
                                    << index << " of " << count << " candidates");
    return true;
}

void
LoadBalancer::EnableDecisionLog(uint32_t ports)
{
    m_log = std::make_unique<EgressDecisionLog>(ports);
}

const char*
EgressReasonName(EgressReason r)
{
    switch (r)
    {
    case EgressReason::POLICY:
        return "policy";
    case EgressReason::HASH:
        return "hash";
    case EgressReason::RANDOM:
        return "random";
    case EgressReason::LEAST_BACKLOG:
        return "least_backlog";
    case EgressReason::FLOWLET:
        return "flowlet";
    case EgressReason::CONGA_METRIC:
        return "conga_metric";
    case EgressReason::CONWEAVE_REROUTE:
        return "conweave_reroute";
    }
    return "policy";
}

int64_t
LoadBalancer::AssignStreams(int64_t)
{
    return 0;
}

} // namespace ns3
