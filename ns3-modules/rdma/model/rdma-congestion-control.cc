#include "rdma-congestion-control.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionControl);
NS_OBJECT_ENSURE_REGISTERED(RdmaCcNone);

TypeId
RdmaCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCongestionControl").SetParent<Object>().SetGroupName("Rdma");
    return tid;
}

TypeId
RdmaCcNone::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaCcNone")
                            .SetParent<RdmaCongestionControl>()
                            .SetGroupName("Rdma")
                            .AddConstructor<RdmaCcNone>();
    return tid;
}

} // namespace ns3
