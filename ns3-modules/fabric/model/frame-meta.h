/*
 * tusk: FrameMeta, the parsed header vector that travels with a frame.
 *
 * A switch ASIC parses a frame's headers once at ingress and forwards on the parsed fields.
 * tusk does the same: the sending NIC serialises real Ethernet/IPv4/UDP/BTH headers into the
 * ns-3 Packet (so pcap files decode as RoCEv2) and fills a FrameMeta with the same values; the
 * channel hands both to the next hop, and switches read only the FrameMeta (no header
 * deserialisation, allocation or lookup per hop). Whoever rewrites a header field on the path
 * (ECN marking) rewrites both. End hosts parse the real headers.
 */
#ifndef TUSK_FRAME_META_H
#define TUSK_FRAME_META_H

#include "ns3/ipv4-address.h"

#include <cstdint>

namespace ns3
{

/** What a frame is, as far as the fabric cares. */
enum class FrameKind : uint8_t
{
    DATA = 0, //!< RoCEv2 data (BTH SEND_* opcodes)
    ACK = 1,  //!< RoCEv2 ACK (BTH + AETH, syndrome ACK)
    NAK = 2,  //!< RoCEv2 NAK (BTH + AETH, syndrome NAK PSN sequence error)
    CNP = 3,  //!< RoCEv2 congestion notification packet
    PFC = 4,  //!< IEEE 802.1Qbb PAUSE (MAC control, link-local, never forwarded)
};

/** ECN codepoints of the IPv4 TOS field (RFC 3168). */
enum EcnCodepoint : uint8_t
{
    ECN_NOT_ECT = 0,
    ECN_ECT1 = 1,
    ECN_ECT0 = 2,
    ECN_CE = 3,
};

/** The fields of a frame's headers that the fabric forwards on. 28 bytes, copied by value. */
struct FrameMeta
{
    uint32_t srcHost = 0; //!< source host id (IPv4 source is derived from it)
    uint32_t dstHost = 0; //!< destination host id (IPv4 destination)
    uint32_t dstQp = 0;   //!< BTH destination QP number (for E-ECMP style hashing)
    uint16_t srcPort = 0; //!< UDP source port: the entropy that ECMP hashes
    uint16_t dstPort = 0; //!< UDP destination port (4791 for RoCEv2)
    uint8_t protocol = 17; //!< IPv4 protocol (17 = UDP)
    uint8_t priority = 0;  //!< traffic class 0..7 (DSCP >> 3 of the IPv4 header)
    uint8_t ecn = ECN_NOT_ECT; //!< EcnCodepoint
    FrameKind kind = FrameKind::DATA;
    /** PFC frames only: how many hops this pause has spread so far (1 = the congested switch
     *  paused its neighbour). Simulation bookkeeping for the pause-propagation metric; not a
     *  field of the 802.1Qbb frame. */
    uint8_t pfcDepth = 0;
    /** Fabric-internal load-balancing fields, the overlay header a CONGA leaf adds and the
     *  destination leaf strips (Alizadeh et al., SIGCOMM 2014, section 3.2); never serialised
     *  into the Packet, so host pcaps do not show them. kNoLbTag = not set. */
    uint8_t lbTag = 0xFF;   //!< LBTag: the source leaf's uplink (port index) the frame took
    uint8_t ce = 0;         //!< CE: largest quantised DRE congestion on the path so far
    uint8_t fbTag = 0xFF;   //!< FB_LBTag: uplink of the reverse direction this feedback is for
    uint8_t fbMetric = 0;   //!< FB_Metric: the congestion measured on that uplink's path
    /** A switch trimmed this data frame (UEC-style packet trimming): only its first
     *  SwitchNode::TrimmedFrameBytes remain (the headers); the receiver NACKs it. */
    bool trimmed = false;
};

/** FrameMeta::lbTag / fbTag value meaning "no tag". */
constexpr uint8_t kNoLbTag = 0xFF;

/** IPv4 address of host `id` in the fabric: 10.0.0.1 + id. */
inline Ipv4Address
HostAddress(uint32_t id)
{
    return Ipv4Address(0x0A000001u + id);
}

/** Host id of a fabric IPv4 address (inverse of HostAddress). */
inline uint32_t
HostIdOf(Ipv4Address address)
{
    return address.Get() - 0x0A000001u;
}

} // namespace ns3

#endif
