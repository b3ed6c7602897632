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

/**
 * \brief The 64-bit SACK bitmap of the UEC-style RUD transport (UEC 1.0 acknowledges with a
 * 64-bit SACK bitmap with a base offset): 12 bytes after the AETH of a NAK (whose PSN is the
 * cumulative point, the responder's ePSN), 8 reserved bits, the 24-bit base PSN of the bitmap
 * and 64 bits, bit i set when PSN base + i has arrived. The responder puts the bitmap at ePSN
 * when the packet that triggered the NAK is within 64 of it, else so that that packet is the
 * last bit (base = PSN - 63), as UEC's SACK offset allows. PSNs are 24-bit on the wire and
 * wrap; the sender extends the base near its oldest unacknowledged PSN.
 */
class RoceSackBitmapHeader : public Header
{
  public:
    static constexpr uint32_t kBits = 64;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /** The bitmap of PSNs base .. base + 63 (64-bit PSNs) for which received(psn) holds. */
    template <class Received>
    static uint64_t Build(uint64_t base, Received received)
    {
        uint64_t bits = 0;
        for (uint32_t i = 0; i < kBits; ++i)
        {
            if (received(base + i))
            {
                bits |= uint64_t{1} << i;
            }
        }
        return bits;
    }

    /** Call f(psn) for every PSN the bitmap SACKs, `base` being its extended (64-bit) base. */
    template <class F>
    static void ForEachSacked(uint64_t base, uint64_t bits, F f)
    {
        while (bits != 0)
        {
            const int i = __builtin_ctzll(bits);
            f(base + static_cast<uint64_t>(i));
            bits &= bits - 1;
        }
    }

    uint32_t basePsn = 0; //!< 24 bits
    uint64_t bitmap = 0;
};

} // namespace ns3

#endif
