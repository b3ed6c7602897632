/*
 * tusk: the SACK extension of a selective-repeat NAK (IRN, Mittal et al., SIGCOMM 2018,
 * section 4.1: "the NACK carries the cumulative acknowledgement and the sequence number of
 * the packet that triggered it").
 */
#ifndef TUSK_ROCE_SACK_HEADER_H
#define TUSK_ROCE_SACK_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief 4 bytes after the AETH of a selective-repeat NAK: 8 reserved bits and the 24-bit
 * PSN of the out-of-order packet that triggered the NAK. Not part of the IBA specification
 * (IRN proposes it as an extension); Wireshark shows it as data after the AETH.
 */
class RoceSackHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint32_t sackPsn = 0; //!< 24 bits
};

} // namespace ns3

#endif
