/*
 * tusk: the RoCEv2 wire format of a frame, built from its FrameMeta where it is observed.
 */
#ifndef TUSK_ROCE_WIRE_FORMAT_H
#define TUSK_ROCE_WIRE_FORMAT_H

#include "fabric/model/frame-meta.h"

#include "ns3/mac48-address.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief Set meta.ipBytes for a RoCEv2 frame of meta.kind (and meta.sackFormat,
 * meta.intStack.IsPresent(), meta.hasCreditDemand) that carries `payloadBytes` after its transport
 * headers (data: the RDMA payload; CNP: its 16 reserved bytes; ACK/NAK: 0), and return the
 * frame's size in bytes: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + [data: INT 42 (HPCC,
 * RoceIntHeader) + credit demand 4 (RCCC, RoceCreditRequestHeader)] [ACK/NAK: AETH 4 + INT
 * echo 42 + SACK 4 or 12] + payload + ICRC 4, padded to the Ethernet minimum of 64 with the
 * FCS 4 (IBA Vol. 1 Annex A17; IEEE 802.3). An RCCC credit grant is an ACK (AETH syndrome
 * 0x40, the grant in the MSN).
 */
uint32_t SetRoceFrameLength(FrameMeta& meta, uint32_t payloadBytes);

/** Payload bytes of a RoCEv2 frame after its transport headers, from meta.ipBytes. */
uint32_t RocePayloadBytes(const FrameMeta& meta);

/**
 * \brief The frame's real bytes: Ethernet II (src, dst, EtherType IPv4) / IPv4 (DSCP =
 * priority << 3, ECN, checksum) / UDP (source port = entropy, destination 4791, checksum 0 as
 * RoCEv2 sends it) / BTH [/ INT] [/ credit demand] [/ AETH [/ INT echo] [/ SACK]] / zero
 * payload / ICRC / padding / FCS, as Wireshark decodes RoCEv2 (it shows the INT header and the
 * credit demand, which are not IBA, as data). The IPv4 TTL is meta.ttl; the INT stack is as it
 * stands where the frame is observed (empty leaving the sender, filled arriving). `frameBytes` is the frame's size now (the Packet's size): a trimmed frame
 * keeps its headers' original lengths and is cut to that size, as a trimming switch cuts it.
 */
Ptr<Packet> SerializeRoceFrame(const FrameMeta& meta,
                               uint32_t frameBytes,
                               Mac48Address src,
                               Mac48Address dst);

/**
 * \brief Parse real RoCEv2 frame bytes (SerializeRoceFrame's output, or a frame from a pcap)
 * back into the FrameMeta fields they carry. What follows the AETH is told by its size (INT
 * echo 42 bytes, then SACK 4: a SACK PSN, 12: a bitmap). What follows the BTH of a data frame
 * is not told by the bytes but by the connection (both ends run the same congestion control
 * and credit setting): on entry, meta.intStack.IsPresent() and meta.hasCreditDemand say whether
 * the INT header and the credit demand are there, and are then parsed. Fabric-internal fields
 * (lbTag, pfcDepth, trimmed) are not on the wire and stay as they are.
 * \return false if it is not a RoCEv2 frame.
 */
bool ParseRoceFrame(Ptr<const Packet> frame, FrameMeta& meta);

} // namespace ns3

#endif
