#include "roce-credit-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceCreditRequestHeader);

TypeId
RoceCreditRequestHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceCreditRequestHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rdma")
                            .AddConstructor<RoceCreditRequestHeader>();
    return tid;
}

TypeId
RoceCreditRequestHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceCreditRequestHeader::Print(std::ostream& os) const
{
    os << "CREDIT-REQUEST demand=" << demandUnits * kCreditUnitBytes << "B";
}

} // namespace ns3
