// Long oracle checks, run by CI under the ctest label "regression".

#include "run-helpers.h"

#include "workload/model/traffic-generators.h"

using namespace tusk_test;

TEST_CASE("ring all-reduce of 1 GiB on 8 x 400G ranks: 37.58 ms (oracle 1)", "[regression][oracle1]")
{
    const uint64_t S = 1ULL << 30;
    auto spec = LeafSpine(1, 1, 8, 400);
    spec.workload.kind = "ring-allreduce";
    spec.workload.bytes = S;
    spec.nic.ackInterval = 16;
    auto r = Run(spec);
    REQUIRE(r.finished);
    const auto& c = r.collectives[0];
    const double cct = c.cctPs * 1e-12;
    // 2 (n-1)/n S / B = 2 * 7/8 * 2^30 * 8 / 400e9 = 37.58 ms; algbw = 28.57 GB/s, busbw 50.0.
    CHECK(ns3::RingAllReduceLowerBoundSeconds(8, S, 400e9) == Approx(37.58e-3).epsilon(5e-4));
    CHECK(cct == Approx(37.58e-3).epsilon(0.03));
    CHECK(cct >= 37.58e-3 * 0.999);
    CHECK(c.algbwGBps == Approx(28.57).epsilon(0.03));
    CHECK(c.busbwGBps == Approx(50.0).epsilon(0.03));
}
