// FrameMeta::path (flows.csv `paths`): every switch appends its egress port in
// ceil(log2(ports)) bits; a path that does not fit in 64 bits is marked lost, never wrapped.

#include "fabric/model/frame-meta.h"

#include <catch2/catch.hpp>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

TEST_CASE("a switch's hop takes ceil(log2(ports)) bits of the frame's path", "[unit][paths]")
{
    CHECK(PathHopBits(1) == 0);
    CHECK(PathHopBits(2) == 1);
    CHECK(PathHopBits(3) == 2);
    CHECK(PathHopBits(16) == 4);
    CHECK(PathHopBits(17) == 5);
    CHECK(PathHopBits(65536) == 16);
}

TEST_CASE("hops are appended above the bits in use and a path that overflows is unknown",
          "[unit][paths]")
{
    FrameMeta m;
    AppendPathHop(m, 5, 3);  // 0b101
    AppendPathHop(m, 0, 0);  // a one-port switch adds nothing
    AppendPathHop(m, 2, 2);  // 0b10 above
    CHECK(m.pathBits == 5);
    CHECK(m.path == (5u | (2u << 3)));
    CHECK(ReceivedPath(m) == m.path);
    for (int i = 0; i < 14; ++i)
    {
        AppendPathHop(m, 15, 4); // 5 + 14 * 4 = 61 bits
    }
    CHECK(m.pathBits == 61);
    AppendPathHop(m, 1, 4); // 65 bits: does not fit
    CHECK(m.pathBits == kPathOverflow);
    CHECK(ReceivedPath(m) == kUnknownPath);
    AppendPathHop(m, 0, 0); // stays unknown
    CHECK(ReceivedPath(m) == kUnknownPath);
}

} // namespace TUSK_TEST_FILE
