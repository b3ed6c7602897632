// InfiniBand congestion control at a switch port (IBA vol. 1, annex A10): root or victim of
// congestion, the Victim_Mask bit, and whether the port may mark FECN (ib-fecn-marking.h).

#include "fabric/model/ib-fecn-marking.h"

#include <catch2/catch.hpp>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;
using namespace ns3::ib;

TEST_CASE("IB FECN: a VL with the credits for its next frame is the root, one without is a "
          "victim",
          "[unit][ib][cc]")
{
    // A 4,224-byte frame takes 66 credits (64-byte blocks).
    CHECK(RoleOf(66, 66) == CongestionRole::ROOT);
    CHECK(RoleOf(2048, 66) == CongestionRole::ROOT);
    CHECK(RoleOf(65, 66) == CongestionRole::VICTIM);
    CHECK(RoleOf(0, 1) == CongestionRole::VICTIM);
}

TEST_CASE("IB FECN: the Victim_Mask bit is set on ports to end nodes by default, and "
          "everywhere or nowhere when asked",
          "[unit][ib][cc]")
{
    CHECK(VictimMaskBit(VICTIM_MASK_END_NODES, true));
    CHECK_FALSE(VictimMaskBit(VICTIM_MASK_END_NODES, false));
    CHECK(VictimMaskBit(VICTIM_MASK_SET, true));
    CHECK(VictimMaskBit(VICTIM_MASK_SET, false));
    CHECK_FALSE(VictimMaskBit(VICTIM_MASK_CLEAR, true));
    CHECK_FALSE(VictimMaskBit(VICTIM_MASK_CLEAR, false));
}

TEST_CASE("IB FECN: the root marks whatever its mask bit, a victim only with the bit set",
          "[unit][ib][cc]")
{
    CHECK(MayMarkFecn(CongestionRole::ROOT, false));
    CHECK(MayMarkFecn(CongestionRole::ROOT, true));
    CHECK_FALSE(MayMarkFecn(CongestionRole::VICTIM, false));
    CHECK(MayMarkFecn(CongestionRole::VICTIM, true));
    // The annex's default mask on a switch-to-switch port that has run out of credits: no
    // mark; on the port facing the channel adapter that is slow to return them: a mark.
    CHECK_FALSE(MayMarkFecn(RoleOf(10, 66), VictimMaskBit(VICTIM_MASK_END_NODES, false)));
    CHECK(MayMarkFecn(RoleOf(10, 66), VictimMaskBit(VICTIM_MASK_END_NODES, true)));
}

} // namespace TUSK_TEST_FILE
