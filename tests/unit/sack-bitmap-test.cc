// The 64-bit SACK bitmap of the UEC-style RUD transport (RoceSackBitmapHeader, UEC 1.0's
// 64-bit SACK bitmap with a base offset): holes at the start and at the end of the window,
// a full and an empty bitmap, the wire round trip, and 24-bit PSN wrap-around.

#include "rdma/model/headers/rdma-ack.h"
#include "rdma/model/headers/roce-sack-header.h"

#include "ns3/packet.h"

#include <catch2/catch.hpp>

#include <set>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

std::vector<uint64_t>
Sacked(uint64_t base, uint64_t bits)
{
    std::vector<uint64_t> out;
    RoceSackBitmapHeader::ForEachSacked(base, bits, [&](uint64_t p) { out.push_back(p); });
    return out;
}

RoceSackBitmapHeader
RoundTrip(const RoceSackBitmapHeader& h)
{
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    REQUIRE(p->GetSize() == 12);
    RoceSackBitmapHeader out;
    p->RemoveHeader(out);
    return out;
}

} // namespace

TEST_CASE("SACK bitmap: a hole at the start, received packets after it",
          "[unit][sack][uec]")
{
    // ePSN 1000 missing, 1001..1010 and 1063 arrived, 1064 (beyond the window) too.
    const std::set<uint64_t> rx = {1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010,
                                   1063, 1064};
    const uint64_t bits =
        RoceSackBitmapHeader::Build(1000, [&](uint64_t p) { return rx.count(p) > 0; });
    CHECK((bits & 1) == 0);             // the hole at the start
    CHECK(bits == ((uint64_t{0x3FF} << 1) | (uint64_t{1} << 63)));
    CHECK(Sacked(1000, bits) ==
          std::vector<uint64_t>{1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010,
                                1063}); // 1064 is outside 1000 .. 1063
}

TEST_CASE("SACK bitmap: holes at the end, full and empty bitmaps", "[unit][sack][uec]")
{
    // Only the first 3 PSNs of the window arrived: bits 3..63 are holes.
    const uint64_t head =
        RoceSackBitmapHeader::Build(500, [](uint64_t p) { return p >= 500 && p < 503; });
    CHECK(head == 0x7);
    CHECK(Sacked(500, head) == std::vector<uint64_t>{500, 501, 502});
    const uint64_t full = RoceSackBitmapHeader::Build(7, [](uint64_t) { return true; });
    CHECK(full == ~uint64_t{0});
    CHECK(Sacked(7, full).size() == 64);
    CHECK(Sacked(7, full).back() == 70);
    CHECK(RoceSackBitmapHeader::Build(7, [](uint64_t) { return false; }) == 0);
    CHECK(Sacked(7, 0).empty());

    RoceSackBitmapHeader h;
    h.basePsn = 0xABCDEF;
    h.bitmap = 0x8000000000000001ULL;
    const auto r = RoundTrip(h);
    CHECK(r.basePsn == 0xABCDEF);
    CHECK(r.bitmap == 0x8000000000000001ULL);
}

TEST_CASE("SACK bitmap: 24-bit PSN wrap-around inside the window", "[unit][sack][uec]")
{
    // The sender's oldest unacknowledged PSN is just below 2^24; the bitmap starts at
    // 0xFFFFF0 on the wire and covers 0xFFFFF0 .. 0x100002F (wire 0x000000 .. 0x00002F).
    const uint64_t sndUna = 0xFFFFEE;
    const uint64_t base64 = 0xFFFFF0;
    const std::set<uint64_t> rx = {0xFFFFF1, 0xFFFFFF, 0x1000000, 0x1000001, 0x100002F};
    RoceSackBitmapHeader h;
    h.basePsn = static_cast<uint32_t>(base64 & 0xFFFFFF);
    h.bitmap = RoceSackBitmapHeader::Build(base64, [&](uint64_t p) { return rx.count(p) > 0; });
    const auto r = RoundTrip(h);
    const uint64_t extended = ExtendPsn(r.basePsn, sndUna);
    CHECK(extended == base64);
    const auto s = Sacked(extended, r.bitmap);
    CHECK(std::set<uint64_t>(s.begin(), s.end()) == rx);

    // In the next epoch: the base is on the far side of the wrap from the reference.
    const uint64_t una2 = (uint64_t{3} << 24) + 0xFFFFF8; // epoch 3, just before the wrap
    h.basePsn = 0x000004;                                  // epoch 4 on the wire
    CHECK(ExtendPsn(h.basePsn, una2) == (uint64_t{4} << 24) + 4);
    // And a base behind the reference (a late NAK) stays in the reference's epoch.
    CHECK(ExtendPsn(0xFFFFF0, (uint64_t{4} << 24) + 2) == (uint64_t{3} << 24) + 0xFFFFF0);
}

} // namespace TUSK_TEST_FILE
