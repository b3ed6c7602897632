// The lazy RoCEv2 wire format (rdma/model/headers/roce-wire-format.h): the FrameMeta is the frame's
// headers; SetRoceFrameLength sizes the frame as the real headers would (IBA Vol. 1 Annex A17:
// Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 [+ AETH 4] + payload + ICRC 4 + FCS 4, 64 at least;
// HPCC's INT header 42 after the BTH of data and after the AETH of its ACKs, Li et al.,
// SIGCOMM 2019, section 5; the RCCC credit demand 4 after the BTH/INT, the credit grant in the
// AETH MSN), SerializeRoceFrame writes those bytes and ParseRoceFrame reads them back.

#include "rdma/model/headers/roce-credit-header.h"
#include "rdma/model/headers/roce-header.h"
#include "rdma/model/headers/roce-int-header.h"
#include "rdma/model/headers/roce-wire-format.h"

#include "ns3/packet.h"

#include <catch2/catch.hpp>

#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

constexpr uint32_t kBthEnd = 14 + 20 + 8 + 12; //!< offset of what follows the BTH

FrameMeta
Base(FrameKind kind, uint8_t opcode)
{
    FrameMeta m;
    m.srcHost = 3;
    m.dstHost = 9;
    m.dstQp = 0x12345;
    m.srcPort = 0xC0DE;
    m.dstPort = kRoceV2UdpPort;
    m.priority = kind == FrameKind::DATA ? 3 : 7;
    m.ecn = kind == FrameKind::DATA ? ECN_ECT0 : ECN_NOT_ECT;
    m.kind = kind;
    m.opcode = opcode;
    m.psn = 0xABCDEF;
    return m;
}

IntStack
ThreeHops()
{
    IntStack s;
    s.present = true;
    s.Push(IntHop::Make(1'000'000, 5'000'000, 12'000, 2));
    s.Push(IntHop::Make(1'000'700, 9'000'000, 0, 2));
    s.Push(IntHop::Make(1'001'500, 77'000, 160'000, 3));
    return s;
}

std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

/** Serialise `sent` (a frame of `payload` bytes), check its size, parse it back into a meta
 *  that starts from `hint` (the connection's INT / credit setting), return the parsed meta. */
FrameMeta
RoundTrip(FrameMeta& sent, uint32_t payload, uint32_t expectedBytes, const FrameMeta& hint,
          std::vector<uint8_t>* bytes = nullptr)
{
    const uint32_t frameBytes = SetRoceFrameLength(sent, payload);
    REQUIRE(frameBytes == expectedBytes);
    REQUIRE(RocePayloadBytes(sent) == payload);
    Ptr<Packet> wire = SerializeRoceFrame(sent, frameBytes, Mac48Address("00:00:00:00:00:01"),
                                          Mac48Address("00:00:00:00:00:02"));
    REQUIRE(wire->GetSize() == frameBytes);
    if (bytes)
    {
        *bytes = Bytes(wire);
    }
    FrameMeta got = hint;
    REQUIRE(ParseRoceFrame(wire, got));
    CHECK(got.srcHost == sent.srcHost);
    CHECK(got.dstHost == sent.dstHost);
    CHECK(got.dstQp == sent.dstQp);
    CHECK(got.srcPort == sent.srcPort);
    CHECK(got.priority == sent.priority);
    CHECK(got.ecn == sent.ecn);
    CHECK(got.kind == sent.kind);
    CHECK(got.opcode == sent.opcode);
    CHECK(got.psn == sent.psn);
    CHECK(got.ipBytes == sent.ipBytes);
    CHECK(RocePayloadBytes(got) == payload);
    return got;
}

void
CheckSameStack(const IntStack& a, const IntStack& b)
{
    CHECK(a.present == b.present);
    CHECK(a.nHops == b.nHops);
    for (uint32_t h = 0; h < kMaxIntHops; ++h)
    {
        CHECK(a.hops[h].word == (h < b.Recorded() ? b.hops[h].word : 0));
    }
}

} // namespace

TEST_CASE("Wire format: a plain data frame and a plain ACK have the IBA sizes and round-trip",
          "[unit][wire]")
{
    FrameMeta data = Base(FrameKind::DATA, ROCE_RC_SEND_ONLY);
    data.bthFlags = kBthAckRequest;
    const FrameMeta got = RoundTrip(data, 1000, 14 + 20 + 8 + 12 + 1000 + 4 + 4, FrameMeta());
    CHECK(got.bthFlags == kBthAckRequest);
    CHECK_FALSE(got.intStack.IsPresent());
    CHECK_FALSE(got.hasCreditDemand);

    FrameMeta ack = Base(FrameKind::ACK, ROCE_RC_ACK);
    ack.syndrome = RoceAethHeader::kSyndromeAck;
    ack.bthFlags = kBthBecn;
    // 14 + 20 + 8 + 12 + 4 + 4 + 4 = 66 bytes.
    const FrameMeta gotAck = RoundTrip(ack, 0, 66, FrameMeta());
    CHECK(gotAck.syndrome == RoceAethHeader::kSyndromeAck);
    CHECK(gotAck.bthFlags == kBthBecn);
    CHECK(gotAck.aethMsn == 0);
    CHECK_FALSE(gotAck.intStack.IsPresent());
}

TEST_CASE("Wire format: an INT data frame carries the 42-byte INT header after the BTH",
          "[unit][wire][hpcc][int]")
{
    FrameMeta data = Base(FrameKind::DATA, ROCE_RC_SEND_MIDDLE);
    data.intStack.Set(ThreeHops());
    data.ttl = 61;
    std::vector<uint8_t> b;
    FrameMeta hint;
    hint.intStack.Start(); // an INT connection (HPCC at both ends)
    const FrameMeta got =
        RoundTrip(data, 1000, 14 + 20 + 8 + 12 + 42 + 1000 + 4 + 4, hint, &b);
    CheckSameStack(got.intStack.Get(), data.intStack.Get());
    CHECK(got.ttl == 61);
    // The first record right after the BTH, little-endian as the HPCC simulator writes it,
    // and the hop count after the five records.
    for (uint32_t i = 0; i < 8; ++i)
    {
        CHECK(b[kBthEnd + i] == static_cast<uint8_t>(data.intStack.Get().hops[0].word >> (8 * i)));
    }
    CHECK((b[kBthEnd + 40] | (b[kBthEnd + 41] << 8)) == 3);
    // Without the hint the header reads as payload, as Wireshark shows it.
    Ptr<Packet> wire = SerializeRoceFrame(data, SetRoceFrameLength(data, 1000), Mac48Address(),
                                          Mac48Address());
    FrameMeta plain;
    REQUIRE(ParseRoceFrame(wire, plain));
    CHECK_FALSE(plain.intStack.IsPresent());
    CHECK(RocePayloadBytes(plain) == 1042);
}

TEST_CASE("Wire format: an INT echo ACK and a SACK NAK with an echo round-trip",
          "[unit][wire][hpcc][int]")
{
    FrameMeta ack = Base(FrameKind::ACK, ROCE_RC_ACK);
    ack.syndrome = RoceAethHeader::kSyndromeAck;
    ack.intStack.Set(ThreeHops());
    std::vector<uint8_t> b;
    // 66 + the 42-byte echo after the AETH = 108.
    const FrameMeta got = RoundTrip(ack, 0, 108, FrameMeta(), &b);
    CheckSameStack(got.intStack.Get(), ack.intStack.Get());
    CHECK(b[kBthEnd] == RoceAethHeader::kSyndromeAck);
    CHECK(b[kBthEnd + 4] == static_cast<uint8_t>(ack.intStack.Get().hops[0].word));

    // The echo then the SACK bitmap: 108 + 12; the parser tells both apart by size.
    FrameMeta nak = Base(FrameKind::NAK, ROCE_RC_ACK);
    nak.syndrome = RoceAethHeader::kSyndromeNakPsnSequenceError;
    nak.intStack.Set(ThreeHops());
    nak.sackFormat = 2;
    nak.sackPsn = 0x00FFF0;
    nak.sackBits = 0x8000'0000'0000'0005ULL;
    const FrameMeta gotNak = RoundTrip(nak, 0, 120, FrameMeta());
    CheckSameStack(gotNak.intStack.Get(), nak.intStack.Get());
    CHECK(gotNak.sackFormat == 2);
    CHECK(gotNak.sackPsn == nak.sackPsn);
    CHECK(gotNak.sackBits == nak.sackBits);
}

TEST_CASE("Wire format: a credit-demand data frame and a credit grant round-trip (RCCC)",
          "[unit][wire][rccc]")
{
    FrameMeta data = Base(FrameKind::DATA, ROCE_RC_SEND_FIRST);
    data.hasCreditDemand = true;
    data.creditDemandUnits = 0x01020304;
    std::vector<uint8_t> b;
    FrameMeta hint;
    hint.hasCreditDemand = true; // receiver credits on at both ends
    const FrameMeta got = RoundTrip(data, 500, 14 + 20 + 8 + 12 + 4 + 500 + 4 + 4, hint, &b);
    CHECK(got.hasCreditDemand);
    CHECK(got.creditDemandUnits == 0x01020304);
    CHECK(b[kBthEnd] == 1); // big-endian after the BTH
    CHECK(b[kBthEnd + 3] == 4);

    // With INT too: BTH / INT / demand / payload.
    FrameMeta both = data;
    both.intStack.Set(ThreeHops());
    FrameMeta hint2 = hint;
    hint2.intStack.Start();
    const FrameMeta got2 =
        RoundTrip(both, 500, 14 + 20 + 8 + 12 + 42 + 4 + 500 + 4 + 4, hint2, &b);
    CheckSameStack(got2.intStack.Get(), both.intStack.Get());
    CHECK(got2.creditDemandUnits == 0x01020304);
    CHECK(b[kBthEnd + 42] == 1);

    // The grant: an ACK with the reserved syndrome 0x40 and the cumulative grant in the MSN.
    FrameMeta grant = Base(FrameKind::ACK, ROCE_RC_ACK);
    grant.psn = 0;
    grant.syndrome = RoceAethHeader::kSyndromeCredit;
    grant.aethMsn = 0xFEDCBA;
    const FrameMeta gotGrant = RoundTrip(grant, 0, 66, FrameMeta(), &b);
    CHECK(gotGrant.kind == FrameKind::ACK);
    CHECK(gotGrant.syndrome == RoceAethHeader::kSyndromeCredit);
    CHECK(gotGrant.aethMsn == 0xFEDCBA);
    CHECK(b[kBthEnd] == 0x40);
    CHECK(b[kBthEnd + 1] == 0xFE);
    CHECK(b[kBthEnd + 3] == 0xBA);

    // The credit request (sender to receiver): an ACK with syndrome 0x41, the cumulative demand
    // in the MSN; an ACK, not a NAK, to the wire format and to the fabric.
    FrameMeta request = grant;
    request.syndrome = RoceAethHeader::kSyndromeCreditRequest;
    request.aethMsn = 0x123456;
    const FrameMeta gotRequest = RoundTrip(request, 0, 66, FrameMeta(), &b);
    CHECK(gotRequest.kind == FrameKind::ACK);
    CHECK(gotRequest.syndrome == RoceAethHeader::kSyndromeCreditRequest);
    CHECK(gotRequest.aethMsn == 0x123456);
    CHECK(b[kBthEnd] == 0x41);
    CHECK(b[kBthEnd + 3] == 0x56);
}

} // namespace TUSK_TEST_FILE
