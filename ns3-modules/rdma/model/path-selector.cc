#include "path-selector.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PathSelector);
NS_OBJECT_ENSURE_REGISTERED(FixedPathSelector);

TypeId
PathSelector::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PathSelector").SetParent<Object>().SetGroupName("Rdma");
    return tid;
}

TypeId
FixedPathSelector::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FixedPathSelector")
                            .SetParent<PathSelector>()
                            .SetGroupName("Rdma")
                            .AddConstructor<FixedPathSelector>();
    return tid;
}

} // namespace ns3
