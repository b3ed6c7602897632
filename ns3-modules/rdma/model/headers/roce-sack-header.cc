#include "roce-sack-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceSackHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceSackBitmapHeader);

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

TypeId
RoceSackBitmapHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceSackBitmapHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rdma")
                            .AddConstructor<RoceSackBitmapHeader>();
    return tid;
}

TypeId
RoceSackBitmapHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RoceSackBitmapHeader::GetSerializedSize() const
{
    return 12;
}

void
RoceSackBitmapHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU32(basePsn & 0xFFFFFF);
    i.WriteHtonU64(bitmap);
}

uint32_t
RoceSackBitmapHeader::Deserialize(Buffer::Iterator i)
{
    basePsn = i.ReadNtohU32() & 0xFFFFFF;
    bitmap = i.ReadNtohU64();
    return 12;
}

void
RoceSackBitmapHeader::Print(std::ostream& os) const
{
    os << "SACK base=" << basePsn << " bitmap=0x" << std::hex << bitmap << std::dec;
}

} // namespace ns3
