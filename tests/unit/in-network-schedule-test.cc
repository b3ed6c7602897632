// The in-network (SHARP-style) all-reduce schedule: every link of the aggregation tree carries
// S once per direction (Graham et al., COMHPC 2016), against 2(n-1)/n * S per host link for a
// ring (Patarasuk and Yuan 2009), with the dependency rule of collective-schedule.h.

#include "input-error-helpers.h"

#include "fabric/model/input-error.h"
#include "workload/model/in-network-schedule.h"

#include <catch2/catch.hpp>

#include <map>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

TEST_CASE("in-network all-reduce: S once up and once down on every link of the tree",
          "[unit][collective][in-network]")
{
    // 6 ranks on leaves 7, 7, 3, 3, 3, 9 (any ids): endpoints 6 (leaf 7), 7 (leaf 3), 8 (leaf 9),
    // root 9; S = 1000 B in 3 chunks of 334, 333, 333 B.
    const std::vector<uint32_t> leafOf = {7, 7, 3, 3, 3, 9};
    const uint64_t S = 1000;
    const auto in = InNetworkAllReduceSchedule(leafOf, S, 3);
    const auto& s = in.schedule;
    CHECK(in.members == 6);
    CHECK(in.endpointLeaf == std::vector<uint32_t>{7, 3, 9, InNetworkSchedule::kRootEndpoint});
    CHECK(s.ranks == 10);
    CHECK(s.algorithm == "in-network");
    CHECK(s.steps == 4);
    CHECK(s.busbwFactor == Approx(2.0 * 5 / 6));
    ValidateSchedule(s); // ranges, earlier dependencies observable at the source, step levels
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> perPair;
    for (const auto& op : s.ops)
    {
        perPair[{op.src, op.dst}] += op.bytes;
    }
    // Every rank <-> its leaf endpoint, every leaf endpoint <-> the root: S each way and
    // nothing else (a ring sends and receives 2(n-1)/n * S = 1667 B per rank at n = 6).
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> expected;
    const uint32_t endpoint[] = {6, 6, 7, 7, 7, 8};
    for (uint32_t r = 0; r < 6; ++r)
    {
        expected[{r, endpoint[r]}] = S;
        expected[{endpoint[r], r}] = S;
    }
    for (uint32_t e : {6u, 7u, 8u})
    {
        expected[{e, 9}] = S;
        expected[{9, e}] = S;
    }
    CHECK(perPair == expected);
    // Leaf endpoint 7 forwards chunk 0 up only after its three ranks' chunk 0 arrived.
    bool found = false;
    for (const auto& op : s.ops)
    {
        if (op.src == 7 && op.dst == 9 && op.bytes == 334)
        {
            found = true;
            REQUIRE(op.deps.size() == 3);
            for (uint32_t d : op.deps)
            {
                CHECK(s.ops[d].dst == 7);
                CHECK(s.ops[d].bytes == 334);
            }
        }
    }
    CHECK(found);
}

TEST_CASE("in-network all-reduce on one leaf: no root, two steps", "[unit][collective][in-network]")
{
    const auto in = InNetworkAllReduceSchedule({0, 0, 0, 0}, 4096, 2);
    CHECK(in.endpointLeaf == std::vector<uint32_t>{0});
    CHECK(in.schedule.ranks == 5);
    CHECK(in.schedule.steps == 2);
    ValidateSchedule(in.schedule);
    const auto bytes = ScheduleRankBytes(in.schedule);
    for (uint32_t r = 0; r < 4; ++r)
    {
        CHECK(bytes.sent[r] == 4096);
        CHECK(bytes.received[r] == 4096);
    }
    CHECK(bytes.sent[4] == 4 * 4096);
    CHECK(bytes.received[4] == 4 * 4096);
    CHECK(tusk_test::ExpectInputError([] { InNetworkAllReduceSchedule({0}, 10, 1); }).Key() ==
          "collective.ranks");
    CHECK(tusk_test::ExpectInputError([] { InNetworkAllReduceSchedule({0, 1}, 10, 0); }).Key() ==
          "collective.chunks");
    CHECK(tusk_test::ExpectInputError([] { InNetworkAllReduceSchedule({0, 1}, 2, 3); }).Key() ==
          "collective.bytes");
}

} // namespace TUSK_TEST_FILE
