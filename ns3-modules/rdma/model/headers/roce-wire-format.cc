#include "roce-wire-format.h"

#include "roce-credit-header.h"
#include "roce-header.h"
#include "roce-int-header.h"
#include "roce-sack-header.h"

#include "ns3/ethernet-header.h"
#include "ns3/ethernet-trailer.h"
#include "ns3/ipv4-header.h"
#include "ns3/udp-header.h"

namespace ns3
{

namespace
{
constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint32_t kEthBytes = 14;   //!< Ethernet II header
constexpr uint32_t kFcsBytes = 4;    //!< Ethernet FCS
constexpr uint32_t kMinFrame = 64;   //!< Ethernet minimum frame, FCS included
constexpr uint32_t kIpv4Bytes = 20;
constexpr uint32_t kUdpBytes = 8;
constexpr uint32_t kBthBytes = 12;
constexpr uint32_t kAethBytes = 4;
constexpr uint32_t kIcrcBytes = 4;
constexpr uint32_t kSackPsnBytes = 4;    //!< RoceSackHeader
constexpr uint32_t kSackBitmapBytes = 12; //!< RoceSackBitmapHeader
constexpr uint32_t kCreditDemandBytes = 4; //!< RoceCreditRequestHeader

/** Transport header bytes after the BTH: on data, the INT header and the credit demand; on
 *  ACK and NAK, the AETH, the INT echo and the SACK extension. */
uint32_t
ExtensionBytes(const FrameMeta& m)
{
    const uint32_t intBytes = m.intStack.IsPresent() ? kIntHeaderBytes : 0;
    if (m.kind == FrameKind::DATA)
    {
        return intBytes + (m.hasCreditDemand ? kCreditDemandBytes : 0);
    }
    if (m.kind != FrameKind::ACK && m.kind != FrameKind::NAK)
    {
        return 0;
    }
    return kAethBytes + intBytes +
           (m.sackFormat == 1 ? kSackPsnBytes : m.sackFormat == 2 ? kSackBitmapBytes : 0);
}
} // namespace

uint32_t
SetRoceFrameLength(FrameMeta& meta, uint32_t payloadBytes)
{
    const uint32_t ip =
        kIpv4Bytes + kUdpBytes + kBthBytes + ExtensionBytes(meta) + payloadBytes + kIcrcBytes;
    meta.ipBytes = static_cast<uint16_t>(ip);
    return std::max(kEthBytes + ip + kFcsBytes, kMinFrame);
}

uint32_t
RocePayloadBytes(const FrameMeta& meta)
{
    return meta.ipBytes - (kIpv4Bytes + kUdpBytes + kBthBytes + ExtensionBytes(meta) + kIcrcBytes);
}

Ptr<Packet>
SerializeRoceFrame(const FrameMeta& meta, uint32_t frameBytes, Mac48Address src, Mac48Address dst)
{
    Ptr<Packet> p = Create<Packet>(RocePayloadBytes(meta));
    if (meta.kind == FrameKind::ACK || meta.kind == FrameKind::NAK)
    {
        if (meta.sackFormat == 1)
        {
            RoceSackHeader sack;
            sack.sackPsn = meta.sackPsn;
            p->AddHeader(sack);
        }
        else if (meta.sackFormat == 2)
        {
            RoceSackBitmapHeader sack;
            sack.basePsn = meta.sackPsn;
            sack.bitmap = meta.sackBits;
            p->AddHeader(sack);
        }
        if (meta.intStack.IsPresent())
        {
            RoceIntHeader echo; // HPCC's INT echo, right after the AETH
            echo.stack = meta.intStack.Get();
            p->AddHeader(echo);
        }
        RoceAethHeader aeth;
        aeth.syndrome = meta.syndrome;
        aeth.msn = meta.aethMsn;
        p->AddHeader(aeth);
    }
    else if (meta.kind == FrameKind::DATA)
    {
        if (meta.hasCreditDemand)
        {
            RoceCreditRequestHeader demand;
            demand.demandUnits = meta.creditDemandUnits;
            p->AddHeader(demand);
        }
        if (meta.intStack.IsPresent())
        {
            RoceIntHeader stack; // the stack as it stands where the frame is observed
            stack.stack = meta.intStack.Get();
            p->AddHeader(stack);
        }
    }
    RoceBthHeader bth;
    bth.opcode = meta.opcode;
    bth.destQp = meta.dstQp;
    bth.psn = static_cast<uint32_t>(meta.psn & 0xFFFFFF); // the BTH's 24 bits
    bth.ackRequest = (meta.bthFlags & kBthAckRequest) != 0;
    bth.becn = (meta.bthFlags & kBthBecn) != 0;
    p->AddHeader(bth);
    p->AddTrailer(RoceIcrcTrailer());
    UdpHeader udp;
    udp.SetSourcePort(meta.srcPort);
    udp.SetDestinationPort(meta.dstPort);
    p->AddHeader(udp); // RoCEv2 sends UDP checksum 0 (Annex A17.3.3)
    Ipv4Header ip;
    ip.SetSource(HostAddress(meta.srcHost));
    ip.SetDestination(HostAddress(meta.dstHost));
    ip.SetProtocol(meta.protocol);
    ip.SetTtl(meta.ttl);
    ip.SetTos(static_cast<uint8_t>((meta.priority << 5) | meta.ecn)); // DSCP = priority << 3
    ip.SetPayloadSize(static_cast<uint16_t>(p->GetSize()));
    ip.EnableChecksum();
    p->AddHeader(ip);
    if (p->GetSize() + kEthBytes + kFcsBytes < kMinFrame)
    {
        p->AddPaddingAtEnd(kMinFrame - kEthBytes - kFcsBytes - p->GetSize());
    }
    EthernetHeader eth(false);
    eth.SetSource(src);
    eth.SetDestination(dst);
    eth.SetLengthType(kEtherTypeIpv4);
    p->AddHeader(eth);
    p->AddTrailer(EthernetTrailer());
    if (frameBytes < p->GetSize())
    {
        p->RemoveAtEnd(p->GetSize() - frameBytes); // trimmed on the way
    }
    return p;
}

bool
ParseRoceFrame(Ptr<const Packet> frame, FrameMeta& meta)
{
    Ptr<Packet> p = frame->Copy();
    if (p->GetSize() < kMinFrame)
    {
        return false;
    }
    EthernetTrailer fcs;
    p->RemoveTrailer(fcs);
    EthernetHeader eth(false);
    p->RemoveHeader(eth);
    if (eth.GetLengthType() != kEtherTypeIpv4)
    {
        return false;
    }
    Ipv4Header ip;
    p->RemoveHeader(ip);
    const uint32_t l4 = ip.GetPayloadSize();
    if (ip.GetProtocol() != 17 || p->GetSize() < l4)
    {
        return false;
    }
    p->RemoveAtEnd(p->GetSize() - l4); // Ethernet padding
    UdpHeader udp;
    p->RemoveHeader(udp);
    if (udp.GetDestinationPort() != kRoceV2UdpPort)
    {
        return false;
    }
    RoceBthHeader bth;
    p->RemoveHeader(bth);
    RoceIcrcTrailer icrc;
    p->RemoveTrailer(icrc);
    meta.srcHost = HostIdOf(ip.GetSource());
    meta.dstHost = HostIdOf(ip.GetDestination());
    meta.protocol = ip.GetProtocol();
    meta.ttl = ip.GetTtl();
    meta.priority = static_cast<uint8_t>(ip.GetTos() >> 5);
    meta.ecn = static_cast<uint8_t>(ip.GetTos() & 3);
    meta.ipBytes = static_cast<uint16_t>(kIpv4Bytes + l4);
    meta.srcPort = udp.GetSourcePort();
    meta.dstPort = udp.GetDestinationPort();
    meta.dstQp = bth.destQp;
    meta.psn = bth.psn;
    meta.opcode = bth.opcode;
    meta.bthFlags = static_cast<uint8_t>((bth.ackRequest ? kBthAckRequest : 0) |
                                         (bth.becn ? kBthBecn : 0));
    meta.sackFormat = 0;
    const bool intOn = meta.intStack.IsPresent();
    const bool demandOn = meta.hasCreditDemand;
    meta.intStack.Clear();
    meta.hasCreditDemand = false;
    meta.aethMsn = 0;
    if (bth.opcode == ROCE_CNP)
    {
        meta.kind = FrameKind::CNP;
    }
    else if (bth.opcode == ROCE_RC_ACK)
    {
        RoceAethHeader aeth;
        p->RemoveHeader(aeth);
        meta.syndrome = aeth.syndrome;
        meta.aethMsn = aeth.msn;
        meta.kind = aeth.IsNak() ? FrameKind::NAK : FrameKind::ACK;
        // What follows the AETH is told by its size: an INT echo (42) and/or a SACK (4, 12).
        if (p->GetSize() >= kIntHeaderBytes)
        {
            RoceIntHeader echo;
            p->RemoveHeader(echo);
            meta.intStack.Set(echo.stack);
        }
        if (p->GetSize() == kSackPsnBytes)
        {
            RoceSackHeader sack;
            p->RemoveHeader(sack);
            meta.sackFormat = 1;
            meta.sackPsn = sack.sackPsn;
        }
        else if (p->GetSize() == kSackBitmapBytes)
        {
            RoceSackBitmapHeader sack;
            p->RemoveHeader(sack);
            meta.sackFormat = 2;
            meta.sackPsn = sack.basePsn;
            meta.sackBits = sack.bitmap;
        }
    }
    else
    {
        // Whether an INT header and a credit demand follow the BTH is the connection's
        // setting, not told by the bytes: the caller's meta says it (see the header).
        meta.kind = FrameKind::DATA;
        if (intOn && p->GetSize() >= kIntHeaderBytes)
        {
            RoceIntHeader stack;
            p->RemoveHeader(stack);
            meta.intStack.Set(stack.stack);
        }
        if (demandOn && p->GetSize() >= kCreditDemandBytes)
        {
            RoceCreditRequestHeader demand;
            p->RemoveHeader(demand);
            meta.hasCreditDemand = true;
            meta.creditDemandUnits = demand.demandUnits;
        }
    }
    return true;
}

} // namespace ns3
