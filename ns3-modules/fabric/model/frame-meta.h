/*
 * tusk: FrameMeta, the parsed header vector that travels with a frame.
 *
 * A switch ASIC parses a frame's headers once at ingress and forwards on the parsed fields.
 * tusk does the same: the sending NIC serialises real Ethernet/IPv4/UDP/BTH headers into the
 * ns-3 Packet (so pcap files decode as RoCEv2) and fills a FrameMeta with the same values; the
 * channel hands both to the next hop, and switches read only the FrameMeta (no header
 * deserialisation, allocation or lookup per hop). Whoever rewrites a header field on the path
 * (ECN marking) rewrites both. End hosts parse the real headers, except for the two fields that
 * switches rewrite on every hop, the IPv4 TTL and the INT stack: those live here only (the
 * bytes keep what the sending NIC wrote), and receivers read them from the FrameMeta.
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

/** The fields of a frame's headers that the fabric forwards on. 88 bytes, copied by value. */
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
    /** DATA frames: the sender's 64-bit PSN (the BTH carries its low 24 bits). Simulation
     *  bookkeeping, as pfcDepth: a dropped frame is counted for its flow (flows.csv). */
    uint64_t psn = 0;
    /** IPv4 TTL: 64 from the NIC, decremented by every switch the frame crosses, so that the
     *  receiver can count hops (Swift's topology scaling). Switches rewrite only this field;
     *  the receiving NIC reads it here. */
    uint8_t ttl = 64;
    /** Bits of `path` in use; kPathOverflow once a hop did not fit (the path is then lost). */
    uint8_t pathBits = 0;
    /** The path so far, simulation bookkeeping as pfcDepth (flows.csv `paths`): every switch
     *  egress appends its port index in PathHopBits(its ports) bits above the bits in use, so
     *  walking from the source host (one link) and reading each switch's bits in turn gives
     *  the links in order (DecodePath). Two instructions per hop, no lookup. */
    uint64_t path = 0;
    /** In-band telemetry (HPCC): on a data frame whose NIC added an INT header, every switch
     *  egress pushes a record; an ACK carries the stack of the data frame it answers back to
     *  the sender. Switches write only this field (not the Packet's bytes); receivers read it
     *  here, and the INT header in the bytes (RoceIntHeader) is written from it. */
    IntStack intStack;
};

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
