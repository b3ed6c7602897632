#include "load-balancer.h"

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
    const uint32_t index = DoSelectEgress(ctx, frame, candidates, count);
    NS_ABORT_MSG_IF(index >= count,
                    "LoadBalancer " << GetInstanceTypeId().GetName() << " returned index "
                                    << index << " of " << count << " candidates");
    return index;
}

int64_t
LoadBalancer::AssignStreams(int64_t)
{
    return 0;
}

} // namespace ns3
