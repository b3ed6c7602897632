/*
 * tusk: FrameMeta, the parsed header vector that travels with a frame.
 *
 * A switch ASIC parses a frame's headers once at ingress and forwards on the parsed fields.
 * tusk goes one step further, as htsim does: the FrameMeta *is* the frame's headers. The
 * sending NIC fills it (Ethernet/IPv4/UDP/BTH, and AETH/SACK for ACKs and NAKs); the ns-3
 * Packet that travels with it only has the frame's size (Packet::GetSize() is the frame's
 * bytes, headers and trailers included) and no header bytes; it is never modified, so frames
 * of one size may share one Packet (a NIC hands out one per size). Switches and the receiving NIC
 * read and rewrite only the FrameMeta (ECN marking sets `ecn`, every switch decrements `ttl`,
 * and egresses push HPCC's INT records onto `intStack`), so nothing is serialised,
 * parsed, allocated or looked up per hop. Real header bytes are built from the FrameMeta only
 * where someone looks at them: a NIC's Sniffer trace (pcap files decode as RoCEv2 in
 * Wireshark), a NIC's receive ErrorModel, and the wire-format tests
 * (rdma/model/roce-wire-format.h). PFC frames are the exception: rare and link-local, they
 * carry their real 802.1Qbb bytes.
 */
#ifndef TUSK_FRAME_META_H
#define TUSK_FRAME_META_H

#include "int-telemetry.h"

#include "ns3/ipv4-address.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

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

/** Bytes of FrameMeta's policy tag area (FrameMeta::lbTag). */
constexpr size_t kLbTagBytes = 8;

/** The fields of a frame's headers: what the fabric forwards on, then the end-host transport
 *  fields, the path so far, then the INT stack. 128 bytes, copied by value. */
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
    /** The policy tag area: fabric-internal bytes that belong to the fabric's load-balancing
     *  policy, an overlay header that the policy writes at one switch and reads at a later
     *  one (CONGA's LBTag, CE and feedback, Alizadeh et al., SIGCOMM 2014, section 3.2; the
     *  destination leaf strips them). The fabric itself never reads them, NICs send them
     *  zeroed, and they are never serialised into the Packet, so host pcaps do not show them.
     *  Read and write them with GetLbTag / SetLbTag and the policy's own struct, all bytes
     *  zero meaning "no tag". One policy per fabric owns them. */
    std::array<uint8_t, kLbTagBytes> lbTag{};
    /** A switch trimmed this data frame (UEC-style packet trimming): only its first
     *  SwitchNode::TrimmedFrameBytes remain (the headers); the receiver NACKs it. */
    bool trimmed = false;
    /** IPv4 TTL: 64 from the NIC, decremented by every switch the frame crosses, so that the
     *  receiver can count hops (Swift's topology scaling). */
    uint8_t ttl = 64;
    /** Bits of `path` in use; kPathOverflow once a hop did not fit (the path is then lost). */
    uint8_t pathBits = 0;

    // ---- end-host fields: written by the sending NIC, read by the receiving one ------------
    /** BTH opcode (RoceOpcode). */
    uint8_t opcode = 0;
    /** IPv4 total length (bytes): IPv4 + UDP + BTH [+ INT] [+ credit demand] [+ AETH [+ INT
     *  echo] [+ SACK]] + payload + ICRC (roce-wire-format.h). */
    uint16_t ipBytes = 0;
    /** BTH flag bits: kBthAckRequest, kBthBecn. */
    uint8_t bthFlags = 0;
    /** AETH syndrome of ACK and NAK frames (IBA 9.3.5, table 45; tusk's reserved codes in
     *  RoceAethHeader: the trim NACK 0x7F, the RCCC credit grant 0x40). */
    uint8_t syndrome = 0;
    /** SACK extension of a NAK after the AETH: 0 none, 1 a SACK PSN, 2 a 64-bit SACK bitmap
     *  (RdmaAck::Sack). */
    uint8_t sackFormat = 0;
    /** Data frames under receiver credits (RCCC): the frame carries the 4-byte credit demand
     *  after the BTH (and after the INT header), RoceCreditRequestHeader. */
    bool hasCreditDemand = false;
    /** The SACK PSN, or the SACK bitmap's base PSN (24 bits). */
    uint32_t sackPsn = 0;
    /** AETH MSN (24 bits): 0 on ACKs and NAKs; on an RCCC credit grant (syndrome 0x40) the
     *  cumulative credit granted, in kCreditUnitBytes (256 B) units modulo 2^24. */
    uint32_t aethMsn = 0;
    /** The credit demand when hasCreditDemand: the sender's cumulative demand in
     *  kCreditUnitBytes units (rdma/model/roce-credit-header.h). */
    uint32_t creditDemandUnits = 0;
    /** The SACK bitmap: bit i set when PSN sackPsn + i has arrived. */
    uint64_t sackBits = 0;
    /** The PSN. The BTH carries its low 24 bits (IBA Vol. 1 9.2), which is all a receiver
     *  reads; DATA frames hold the sender's whole 64-bit PSN here as simulation bookkeeping
     *  (as pfcDepth): a frame dropped in the fabric is counted for its flow (flows.csv). */
    uint64_t psn = 0;
    /** The path so far, simulation bookkeeping as pfcDepth (flows.csv `paths`): every switch
     *  egress appends its port index in PathHopBits(its ports) bits above the bits in use, so
     *  walking from the source host (one link) and reading each switch's bits in turn gives
     *  the links in order (Fabric::DecodePath). A shift, an OR and an add per hop. */
    uint64_t path = 0;
    /** In-band telemetry (HPCC): present on a data frame of a QP whose congestion control
     *  uses INT (the 42-byte INT header after the BTH), where every switch egress pushes a
     *  record; an ACK or NAK answering such a frame echoes its stack back to the sender (the
     *  INT header after the AETH). RoceIntHeader is its wire format. */
    IntStack intStack;
};

static_assert(sizeof(FrameMeta) == 128, "FrameMeta's layout: update the size in its comment");

/** FrameMeta::pathBits of a frame whose path did not fit in 64 bits. */
constexpr uint8_t kPathOverflow = 0xFF;

/** Bits a switch with `ports` ports uses per hop in FrameMeta::path: ceil(log2(ports)). */
inline uint8_t
PathHopBits(uint32_t ports)
{
    uint8_t bits = 0;
    while ((uint64_t{1} << bits) < ports)
    {
        ++bits;
    }
    return bits;
}

/** Append egress port `port` (of a switch using `bits` bits per hop) to `frame`'s path. */
inline void
AppendPathHop(FrameMeta& frame, uint16_t port, uint8_t bits)
{
    if (frame.pathBits + bits > 64) // also true once overflowed (0xFF)
    {
        frame.pathBits = kPathOverflow;
        return;
    }
    if (bits > 0)
    {
        frame.path |= uint64_t{port} << frame.pathBits;
    }
    frame.pathBits = static_cast<uint8_t>(frame.pathBits + bits);
}

/** FrameMeta::path as reported to the receiver's traces: kUnknownPath if it overflowed. */
constexpr uint64_t kUnknownPath = ~uint64_t{0};

inline uint64_t
ReceivedPath(const FrameMeta& frame)
{
    return frame.pathBits == kPathOverflow ? kUnknownPath : frame.path;
}

/** FrameMeta::bthFlags: the BTH AckReq bit. */
constexpr uint8_t kBthAckRequest = 1;
/** FrameMeta::bthFlags: the BTH BECN bit (congestion echo). */
constexpr uint8_t kBthBecn = 2;

/**
 * \brief The policy tag area of `frame` as the policy's tag struct `Tag` (trivially copyable,
 * at most kLbTagBytes bytes; an untagged frame reads as a `Tag` with every field zero). A copy in and
 * out (memcpy of a few bytes, no aliasing of the byte array), so no allocation or lookup.
 */
template <typename Tag>
Tag
GetLbTag(const FrameMeta& frame)
{
    static_assert(std::is_trivially_copyable_v<Tag>, "a policy tag is plain bytes");
    static_assert(sizeof(Tag) <= kLbTagBytes, "a policy tag fits FrameMeta::lbTag");
    Tag tag;
    std::memcpy(&tag, frame.lbTag.data(), sizeof(Tag));
    return tag;
}

/** \brief Write the policy's tag struct into the policy tag area of `frame` (see GetLbTag). */
template <typename Tag>
void
SetLbTag(FrameMeta& frame, const Tag& tag)
{
    static_assert(std::is_trivially_copyable_v<Tag>, "a policy tag is plain bytes");
    static_assert(sizeof(Tag) <= kLbTagBytes, "a policy tag fits FrameMeta::lbTag");
    std::memcpy(frame.lbTag.data(), &tag, sizeof(Tag));
}

/** IPv4 address of host `id` in the fabric as a host-order integer: 10.0.0.1 + id (what
 *  HostAddress(id).Get() returns, without constructing an Ipv4Address, which is not inline). */
inline uint32_t
HostAddressBits(uint32_t id)
{
    return 0x0A000001u + id;
}

/** IPv4 address of host `id` in the fabric: 10.0.0.1 + id. */
inline Ipv4Address
HostAddress(uint32_t id)
{
    return Ipv4Address(HostAddressBits(id));
}

/** Host id of a fabric IPv4 address (inverse of HostAddress). */
inline uint32_t
HostIdOf(Ipv4Address address)
{
    return address.Get() - 0x0A000001u;
}

} // namespace ns3

#endif
