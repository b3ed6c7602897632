/*
 * tusk: the INT header HPCC's data packets carry and its ACKs echo (Li et al., "HPCC: High
 * Precision Congestion Control", SIGCOMM 2019, section 5), in the layout of the HPCC
 * simulator (alibaba-edu/High-Precision-Congestion-Control, src/network/utils/int-header.cc,
 * mode NORMAL).
 */
#ifndef TUSK_ROCE_INT_HEADER_H
#define TUSK_ROCE_INT_HEADER_H

#include "fabric/model/int-telemetry.h"

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief A fixed-size INT header of kIntHeaderBytes (42) bytes: kMaxIntHops 64-bit hop
 * records (IntHop, unused ones zero), then the 16-bit number of hops pushed, all
 * little-endian as the HPCC simulator writes them. Fixed size, so that switches fill it in
 * without growing the frame; its bytes count on the wire like any header.
 *
 * Position: after the BTH of a data frame (before the payload) and right after the AETH of an
 * ACK or NAK (before any SACK extension); Wireshark shows it as data. The NIC adds it only when the
 * QP's congestion control asks for INT (RdmaCongestionControl::UsesInt), both ends of a
 * connection running the same one. Switches stamp hops into FrameMeta::intStack, which is what
 * receivers read; this header is that stack written out (as the sending NIC saw it on a data
 * frame, complete on an ACK's echo).
 */
class RoceIntHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    IntStack stack; //!< `present` is set by Deserialize
};

/** Bytes of RoceIntHeader on the wire: 5 records of 8 bytes and a 2-byte hop count. */
constexpr uint32_t kIntHeaderBytes = kMaxIntHops * 8 + 2;

} // namespace ns3

#endif
