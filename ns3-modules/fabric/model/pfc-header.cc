#include "pfc-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PfcHeader);

TypeId
PfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<PfcHeader>();
    return tid;
}

TypeId
PfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
PfcHeader::GetSerializedSize() const
{
    return 46; // 2 opcode + 2 vector + 16 quanta + 26 pad
}

void
PfcHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU16(kPfcOpcode);
    i.WriteHtonU16(classEnable);
    for (uint16_t q : quanta)
    {
        i.WriteHtonU16(q);
    }
    i.WriteU8(0, 26);
}

uint32_t
PfcHeader::Deserialize(Buffer::Iterator i)
{
    i.ReadNtohU16(); // opcode
    classEnable = static_cast<uint8_t>(i.ReadNtohU16());
    for (auto& q : quanta)
    {
        q = i.ReadNtohU16();
    }
    i.Next(26);
    return 46;
}

void
PfcHeader::Print(std::ostream& os) const
{
    os << "PFC vector=0x" << std::hex << unsigned(classEnable) << std::dec;
    for (int p = 0; p < 8; ++p)
    {
        if (classEnable & (1 << p))
        {
            os << " p" << p << "=" << quanta[p];
        }
    }
}

} // namespace ns3
