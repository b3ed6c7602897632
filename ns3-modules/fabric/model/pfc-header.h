/*
 * tusk: IEEE 802.1Qbb priority-based flow control (PFC) PAUSE frame.
 */
#ifndef TUSK_PFC_HEADER_H
#define TUSK_PFC_HEADER_H

#include "ns3/header.h"

#include <array>
#include <cstdint>

namespace ns3
{

/** MAC control EtherType (IEEE 802.3 clause 31). */
constexpr uint16_t kEtherTypeMacControl = 0x8808;
/** PFC opcode (IEEE 802.1Qbb clause 36.1.3). */
constexpr uint16_t kPfcOpcode = 0x0101;
/** Bit times per pause quantum (IEEE 802.3 annex 31B). */
constexpr uint32_t kPfcQuantumBits = 512;

/**
 * \brief The MAC control payload of a PFC frame: opcode 0x0101, a class-enable vector (bit i
 * set: the quanta of priority i are valid) and eight 16-bit pause times in quanta of 512 bit
 * times at the port's speed; 0 means resume (XON). Padded to the 46-byte minimum payload.
 */
class PfcHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint8_t classEnable = 0;
    std::array<uint16_t, 8> quanta{};
};

} // namespace ns3

#endif
