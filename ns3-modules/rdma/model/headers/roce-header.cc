#include "roce-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceBthHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceAethHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceIcrcTrailer);

TypeId
RoceBthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceBthHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rdma")
                            .AddConstructor<RoceBthHeader>();
    return tid;
}

TypeId
RoceBthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RoceBthHeader::GetSerializedSize() const
{
    return 12;
}

void
RoceBthHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(opcode);
    // SE(1) M(1) PadCnt(2) TVer(4); M = 1 (no migration state), TVer = 0.
    i.WriteU8(static_cast<uint8_t>((solicitedEvent ? 0x80 : 0) | 0x40 | ((padCount & 3) << 4)));
    i.WriteHtonU16(pKey);
    i.WriteHtonU32((fecn ? 0x80000000u : 0) | (becn ? 0x40000000u : 0) | (destQp & 0xFFFFFF));
    i.WriteHtonU32((ackRequest ? 0x80000000u : 0) | (psn & 0xFFFFFF));
}

uint32_t
RoceBthHeader::Deserialize(Buffer::Iterator i)
{
    opcode = i.ReadU8();
    const uint8_t flags = i.ReadU8();
    solicitedEvent = flags & 0x80;
    padCount = (flags >> 4) & 3;
    pKey = i.ReadNtohU16();
    const uint32_t w1 = i.ReadNtohU32();
    fecn = w1 & 0x80000000u;
    becn = w1 & 0x40000000u;
    destQp = w1 & 0xFFFFFF;
    const uint32_t w2 = i.ReadNtohU32();
    ackRequest = w2 & 0x80000000u;
    psn = w2 & 0xFFFFFF;
    return 12;
}

void
RoceBthHeader::Print(std::ostream& os) const
{
    os << "BTH opcode=0x" << std::hex << unsigned(opcode) << std::dec << " dqp=" << destQp
       << " psn=" << psn << (ackRequest ? " A" : "");
}

TypeId
RoceAethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceAethHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rdma")
                            .AddConstructor<RoceAethHeader>();
    return tid;
}

TypeId
RoceAethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RoceAethHeader::GetSerializedSize() const
{
    return 4;
}

void
RoceAethHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU32((static_cast<uint32_t>(syndrome) << 24) | (msn & 0xFFFFFF));
}

uint32_t
RoceAethHeader::Deserialize(Buffer::Iterator i)
{
    const uint32_t w = i.ReadNtohU32();
    syndrome = static_cast<uint8_t>(w >> 24);
    msn = w & 0xFFFFFF;
    return 4;
}

void
RoceAethHeader::Print(std::ostream& os) const
{
    os << "AETH syndrome=0x" << std::hex << unsigned(syndrome) << std::dec << " msn=" << msn;
}

TypeId
RoceIcrcTrailer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceIcrcTrailer")
                            .SetParent<Trailer>()
                            .SetGroupName("Rdma")
                            .AddConstructor<RoceIcrcTrailer>();
    return tid;
}

TypeId
RoceIcrcTrailer::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RoceIcrcTrailer::GetSerializedSize() const
{
    return 4;
}

void
RoceIcrcTrailer::Serialize(Buffer::Iterator end) const
{
    end.Prev(4);
    end.WriteU32(0);
}

uint32_t
RoceIcrcTrailer::Deserialize(Buffer::Iterator end)
{
    end.Prev(4);
    end.ReadU32();
    return 4;
}

void
RoceIcrcTrailer::Print(std::ostream& os) const
{
    os << "ICRC";
}

} // namespace ns3
