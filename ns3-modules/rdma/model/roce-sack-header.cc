#include "roce-sack-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceSackHeader);

TypeId
RoceSackHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceSackHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rdma")
                            .AddConstructor<RoceSackHeader>();
    return tid;
}

TypeId
RoceSackHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RoceSackHeader::GetSerializedSize() const
{
    return 4;
}

void
RoceSackHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU32(sackPsn & 0xFFFFFF);
}

uint32_t
RoceSackHeader::Deserialize(Buffer::Iterator i)
{
    sackPsn = i.ReadNtohU32() & 0xFFFFFF;
    return 4;
}

void
RoceSackHeader::Print(std::ostream& os) const
{
    os << "SACK psn=" << sackPsn;
}

} // namespace ns3
