// Why nearly every flow of the k = 8 permutation under the HPCC simulator's DCQCN configuration
// ends below 2 Gb/s (ns3-modules/rdma/doc/dcqcn-hpcc-simulator.md, "Fat-tree permutation"):
// two 100 Gb/s flows that an ECMP hash puts on one 100 Gb/s link are enough.
//
// Setup: hosts 0 and 1 on leaf 0 send 2 MB each to hosts 2 and 3 on leaf 1; the one spine makes
// them share the leaf-0 uplink. The DCQCN, ECN and NIC keys come from
// data/hpcc/config_fat_flow_dcqcn.txt (--hpcc-config): Kmin 400 kB, Kmax 1.6 MB, Pmax 0.2 at
// 100 Gb/s, marking at dequeue; α and the rate cut on the 1 µs and 4 µs clocks; MIN_RATE 1 Gb/s;
// RP_TIMER 300 µs, F = 1.
//
// The arithmetic, from the simulator's rules (rdma-hw.cc UpdateAlphaMlx, CheckRateDecreaseMlx):
// 200 Gb/s into 100 Gb/s grows the queue by 12.5 kB/µs, past Kmin at 32 µs. The first CNP sets
// α = 1, which then loses at most 1/256 per µs: α ≥ 0.88 for 32 µs. A 4 µs tick that saw a CNP
// cuts Rc to Rc (1 − α/2) ≤ 0.56 Rc, so seven such ticks take 100 Gb/s below 2 Gb/s
// (0.56^7 = 0.017) in 28 µs, before the queue, which stops growing only when the two rates sum
// to 100 Gb/s, has drained back to Kmin. The rate then stays there for a whole RP_TIMER
// (300 µs) before fast recovery halves the gap to Rt: so each flow spends ≥ 300 µs below
// 2 Gb/s and ends well above twice its ideal FCT. With 400 Gb/s links nothing queues, no frame
// is marked and both flows finish in their ideal time.

#include "run-helpers.h"

#include "scenario/hpcc-config.h"

#include <map>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

struct Outcome
{
    tusk::RunResult result;
    std::map<uint32_t, double> minRateGbps; //!< per sending host
};

Outcome
RunCollision(uint64_t fabricGbps)
{
    auto spec = LeafSpine(2, 1, 2);
    spec.topology.leafSpine.fabricRateBps = fabricGbps * 1'000'000'000ULL;
    AddFlow(spec, 0, 2, 2'000'000);
    AddFlow(spec, 1, 3, 2'000'000);
    spec.output.ccTrace = true;
    spec.nic.rtoPs = 100'000'000'000ULL; // as scenarios/papers/hpcc: the simulator has no RTO
    tusk::ApplyHpccConfig(std::string(TUSK_SOURCE_DIR) + "/data/hpcc/config_fat_flow_dcqcn.txt",
                          spec);
    REQUIRE(spec.nic.congestionControl == "dcqcn");
    Outcome o;
    o.result = Run(spec);
    REQUIRE(o.result.finished);
    o.minRateGbps = {{0, 100.0}, {1, 100.0}};
    for (const auto& row : o.result.ccTrace)
    {
        o.minRateGbps[row.src] = std::min(o.minRateGbps[row.src], row.rateBps / 1e9);
    }
    return o;
}

} // namespace

TEST_CASE("DCQCN with the HPCC simulator's config: two flows colliding on a 100 Gb/s link both "
          "fall below 2 Gb/s and wait a rate-increase timer there, on 400 Gb/s links neither is "
          "cut",
          "[component][dcqcn][hpcc]")
{
    const auto slow = RunCollision(100);
    INFO("CNPs " << slow.result.summary.cnps);
    CHECK(slow.result.summary.cnps >= 7); // at least the seven cuts of one flow
    for (const uint32_t h : {0u, 1u})
    {
        INFO("host " << h);
        CHECK(slow.minRateGbps.at(h) < 2.0);
        CHECK(slow.minRateGbps.at(h) >= 1.0 - 1e-9); // MIN_RATE holds
    }
    for (const auto& f : slow.result.flows)
    {
        // ≥ 300 µs near 1 Gb/s, then recovery: far beyond the shared-link time of 2 × ideal.
        const double fctUs = static_cast<double>(f.fctPs) / 1e6;
        const double idealUs = static_cast<double>(f.idealFctPs) / 1e6;
        INFO("flow " << f.id << " fct " << fctUs << " ideal " << idealUs);
        CHECK(fctUs > 300.0 + idealUs);
        CHECK(fctUs > 2.5 * idealUs);
    }

    const auto fast = RunCollision(400);
    CHECK(fast.result.summary.ecnMarks == 0);
    CHECK(fast.result.summary.cnps == 0);
    CHECK(fast.minRateGbps.at(0) == 100.0);
    CHECK(fast.minRateGbps.at(1) == 100.0);
    for (const auto& f : fast.result.flows)
    {
        CHECK(static_cast<double>(f.fctPs) ==
              Approx(static_cast<double>(f.idealFctPs)).epsilon(0.01));
    }
}

} // namespace TUSK_TEST_FILE
