/*
 * tusk: RdmaAck, an acknowledgement of the RC transport as the responder sends it and the
 * requester receives it, and the 24-bit PSN arithmetic both sides share.
 */
#ifndef TUSK_RDMA_ACK_H
#define TUSK_RDMA_ACK_H

#include "fabric/model/int-telemetry.h"

#include <cstdint>

namespace ns3
{

/** PSNs are 24 bits on the wire (IBA Vol. 1 9.7.1), 64 bits inside the model. */
constexpr uint64_t kPsnSpace = uint64_t{1} << 24;

/** The 24-bit wire PSN of a 64-bit PSN. */
inline uint32_t
Psn24(uint64_t psn)
{
    return static_cast<uint32_t>(psn & (kPsnSpace - 1));
}

/** A 24-bit wire PSN as the 64-bit PSN nearest to `reference` (wrap-around). */
uint64_t ExtendPsn(uint32_t psn24, uint64_t reference);

/**
 * \brief An ACK, a NAK or a trim NACK: the fields of BTH, AETH and the optional SACK extension
 * (RoceSackHeader, RoceSackBitmapHeader) that the requester acts on. The responder fills one,
 * the NIC serialises it into a RoCEv2 ACK frame, and the peer NIC parses it back into one.
 */
struct RdmaAck
{
    enum Kind : uint8_t
    {
        ACK = 0,      //!< AETH ACK; psn24 = the last PSN received in order
        NAK = 1,      //!< AETH NAK PSN sequence error; psn24 = the responder's ePSN
        TRIM_NAK = 2, //!< AETH NAK with the reserved code 0x7F; psn24 = the trimmed PSN
        CREDIT = 3,   //!< RCCC credit grant (AETH reserved syndrome 0x40); credit24 = the grant
    };
    /** What follows the AETH of a NAK (selective repeat only). */
    enum Sack : uint8_t
    {
        NO_SACK = 0,
        SACK_PSN = 1,    //!< IRN: the one PSN that arrived (sackPsn24), RoceSackHeader
        SACK_BITMAP = 2, //!< UEC-style RUD: 64 bits from sackBase24, RoceSackBitmapHeader
    };

    Kind kind = ACK;
    uint32_t psn24 = 0;
    bool ecnEcho = false;    //!< BTH BECN: a CE-marked packet arrived since the last answer
    Sack sack = NO_SACK;
    uint32_t sackPsn24 = 0;  //!< SACK_PSN: the PSN that arrived out of order
    uint32_t sackBase24 = 0; //!< SACK_BITMAP: the bitmap's base PSN
    uint64_t sackBits = 0;   //!< SACK_BITMAP: bit i set when PSN sackBase24 + i has arrived
    uint32_t credit24 = 0;   //!< CREDIT: cumulative credit granted, kCreditUnitBytes units mod 2^24
    /** Receiving side only (the NIC fills them from the frame's FrameMeta): switches the ACK
     *  crossed (64 - its IPv4 TTL), and the INT echo after the AETH when the QP's congestion
     *  control uses INT (valid during RdmaRequester::ReceiveAck). */
    uint8_t hops = 0;
    const IntStack* intEcho = nullptr;
};

/** What the responder does about one arriving data packet. */
struct RxAnswer
{
    bool send = false;       //!< answer with `ack`
    RdmaAck ack;             //!< the answer, when `send`
    bool outOfOrder = false; //!< the packet arrived with PSN > ePSN
};

} // namespace ns3

#endif
