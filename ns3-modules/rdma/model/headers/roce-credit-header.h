/*
 * tusk: the demand a sender announces to its receiver under UEC-style receiver credits (RCCC,
 * Ultra Ethernet 1.0, "receiver-credit-based congestion control").
 */
#ifndef TUSK_ROCE_CREDIT_HEADER_H
#define TUSK_ROCE_CREDIT_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/** Unit of credit on the wire: the UEC PDS pull quantum (256 bytes). */
constexpr uint64_t kCreditUnitBytes = 256;

/** `bytes` in whole credit units, rounded up (a message's demand; a grant's size). */
constexpr uint64_t
CreditUnitsOf(uint64_t bytes)
{
    return (bytes + kCreditUnitBytes - 1) / kCreditUnitBytes;
}

/**
 * \brief 4 bytes after the BTH (and after an INT header) of a data packet when the NICs run
 * receiver credits: the sender's cumulative demand, the payload bytes it has needed to send
 * so far (sent, resends included, plus what waits to be sent), in kCreditUnitBytes units
 * (each message rounded up to a unit, modulo 2^32), big-endian. UET carries this in its PDS header; tusk rides on
 * RoCEv2 frames (rdma.md), so Wireshark shows it as data.
 */
class RoceCreditRequestHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override { return 4; }
    void Serialize(Buffer::Iterator start) const override { start.WriteHtonU32(demandUnits); }
    uint32_t Deserialize(Buffer::Iterator start) override
    {
        demandUnits = start.ReadNtohU32();
        return 4;
    }
    void Print(std::ostream& os) const override;

    uint32_t demandUnits = 0;
};

} // namespace ns3

#endif
