#include "roce-int-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceIntHeader);

TypeId
RoceIntHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceIntHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rdma")
                            .AddConstructor<RoceIntHeader>();
    return tid;
}

TypeId
RoceIntHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RoceIntHeader::GetSerializedSize() const
{
    return kIntHeaderBytes;
}

void
RoceIntHeader::Serialize(Buffer::Iterator i) const
{
    const uint32_t kept = stack.Recorded();
    for (uint32_t h = 0; h < kMaxIntHops; ++h)
    {
        i.WriteU64(h < kept ? stack.hops[h].word : 0); // little-endian, as the simulator
    }
    i.WriteU16(stack.nHops);
}

uint32_t
RoceIntHeader::Deserialize(Buffer::Iterator i)
{
    for (uint32_t h = 0; h < kMaxIntHops; ++h)
    {
        stack.hops[h].word = i.ReadU64();
    }
    stack.nHops = i.ReadU16();
    stack.present = true;
    return kIntHeaderBytes;
}

void
RoceIntHeader::Print(std::ostream& os) const
{
    os << "INT hops=" << stack.nHops;
    for (uint32_t h = 0; h < stack.Recorded(); ++h)
    {
        const IntHop& r = stack.hops[h];
        os << " [" << r.GetRateBps() / 1'000'000'000ULL << "G t=" << r.GetTimeNs()
           << "ns tx=" << r.GetTxBytes() << "B q=" << r.GetQlenBytes() << "B]";
    }
}

} // namespace ns3
