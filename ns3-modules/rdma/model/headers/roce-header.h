/*
 * tusk: RoCEv2 headers (InfiniBand Architecture Specification Vol. 1, Release 1.4, ch. 9;
 * Annex A17 "RoCEv2"): Base Transport Header, ACK Extended Transport Header, and the ICRC
 * trailer. Serialised into every frame so that pcap files decode as RoCE in Wireshark.
 */
#ifndef TUSK_ROCE_HEADER_H
#define TUSK_ROCE_HEADER_H

#include "ns3/header.h"
#include "ns3/trailer.h"

#include <cstdint>

namespace ns3
{

/** UDP destination port of RoCEv2 (IANA). */
constexpr uint16_t kRoceV2UdpPort = 4791;

/** BTH opcodes used (IBA table 38, RC transport, and Annex A17 CNP). */
enum RoceOpcode : uint8_t
{
    ROCE_RC_SEND_FIRST = 0x00,
    ROCE_RC_SEND_MIDDLE = 0x01,
    ROCE_RC_SEND_LAST = 0x02,
    ROCE_RC_SEND_ONLY = 0x04,
    ROCE_RC_ACK = 0x11, //!< RC ACKNOWLEDGE (carries an AETH)
    ROCE_UD_SEND_ONLY = 0x64, //!< UD SEND Only (a monitoring probe, FrameKind::PROBE)
    ROCE_CNP = 0x81,    //!< congestion notification packet
};

/** FrameMeta::bthFlags, not IBA (next to kBthAckRequest and kBthBecn): the data frame is a
 *  resend of its PSN (go-back-N, selective repeat or a timeout), as UEC's PDS header marks
 *  one (`pds.flags.retx`, as public decoders of the UET header name it; the UEC text itself was
 *  not available, rdma.md "Acknowledgement routes"). The BTH has no such bit, so it is not serialised (roce-wire-format.h); only
 *  the receiver's PacketReceived trace reads it. */
constexpr uint8_t kBthRetx = 4;

/** Bytes of a RoCEv2 data frame that are not payload: Eth 14 + IPv4 20 + UDP 8 + BTH 12 +
 *  ICRC 4 + FCS 4. */
constexpr uint32_t kRoceDataOverheadBytes = 62;

/**
 * \brief Base Transport Header, 12 bytes (IBA 9.2): opcode, SE, M, PadCnt, TVer, P_Key,
 * FECN/BECN, destination QP (24 bits), AckReq, PSN (24 bits).
 */
class RoceBthHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint8_t opcode = 0;
    bool solicitedEvent = false;
    uint8_t padCount = 0;
    uint16_t pKey = 0xFFFF;
    bool fecn = false;
    bool becn = false;
    uint32_t destQp = 0; //!< 24 bits
    bool ackRequest = false;
    uint32_t psn = 0; //!< 24 bits
};

/** \brief ACK Extended Transport Header, 4 bytes (IBA 9.3.5): syndrome, MSN (24 bits). */
class RoceAethHeader : public Header
{
  public:
    /** Syndrome values (IBA table 45): ACK with unlimited credit; NAK PSN sequence error. */
    static constexpr uint8_t kSyndromeAck = 0x1F;
    static constexpr uint8_t kSyndromeNakPsnSequenceError = 0x60;
    /** Not IBA: a NAK code from the reserved range that tusk uses for the UEC-style trim
     *  NACK ("the packet with this PSN arrived trimmed, resend it"). */
    static constexpr uint8_t kSyndromeNakTrimmed = 0x7F;
    /** Not IBA: the reserved syndrome class 010 that tusk uses for the UEC-style RCCC credit
     *  grant; its MSN field holds the cumulative credit in kCreditUnitBytes units (mod 2^24). */
    static constexpr uint8_t kSyndromeCredit = 0x40;
    /** Not IBA: the next value of that reserved class, the RCCC credit request (UET's
     *  CREDIT_REQUEST control packet): sent by the requester to its responder, its MSN field
     *  holds the sender's cumulative demand in kCreditUnitBytes units (mod 2^24). */
    static constexpr uint8_t kSyndromeCreditRequest = 0x41;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /** Whether an AETH syndrome is a NAK (IBA 9.3.5, table 45: bits 6:5 = 11). */
    static bool IsNakSyndrome(uint8_t syndrome) { return (syndrome & 0x60) == 0x60; }
    bool IsNak() const { return IsNakSyndrome(syndrome); }

    uint8_t syndrome = kSyndromeAck;
    uint32_t msn = 0; //!< 24 bits
};

/**
 * \brief The 4-byte invariant CRC trailer of a RoCEv2 packet. Its value is not computed
 * (always 0): nothing in the model checks it, and Wireshark reports it as unverified.
 */
class RoceIcrcTrailer : public Trailer
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator end) const override;
    uint32_t Deserialize(Buffer::Iterator end) override;
    void Print(std::ostream& os) const override;
};

} // namespace ns3

#endif
