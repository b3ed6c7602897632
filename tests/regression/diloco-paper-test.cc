// scenarios/papers/diloco/README.md in CI: synchronous data parallelism against DiLoCo (H = 500)
// across two sites joined by one long-haul link. Douillard et al. (2023) communicate about 500x
// fewer bytes across sites with H = 500 (oracle 23); the README's wall-clock per 1,000 steps
// is extrapolated from two simulated steps (one inner step and one outer sync for DiLoCo).
// Asserted: the long-haul bytes per 1,000 steps, from links.csv's long-haul rows, are
// 500x +- 5 % fewer with DiLoCo; the cross-site all-reduce takes at least its byte time
// (2N/W)(1 - 1/R) plus one one-way delay and at most bytes + 2(R - 1) delays + 10 %
// (oracle 23, Charles et al. 2025); sync DP is > 2x slower per 1,000 steps than DiLoCo at
// 10 ms, and DiLoCo helps less at 1 ms (the README's directions); DiLoCo's compute utilisation
// is within one point of the README's closed form, which counts the intra-site all-reduce of
// every inner step (oracle 23's cross-site term alone overstates it by about 5 points).

#include "run-helpers.h"

#include "scenario/scenario-toml.h"

#include <algorithm>
#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

struct Measured
{
    double longHaulBytes = 0;  //!< tx bytes over the long-haul rows (both directions)
    double iter0Us = 0;        //!< first iteration (jobs.csv iteration_us)
    double iter1Us = 0;        //!< second iteration
    double crossSiteCctUs = 0; //!< slowest cross-site all-reduce
};

Measured
RunOne(const std::string& file, uint32_t gbps, uint32_t delayMs)
{
    auto spec = tusk::LoadScenarioFile(std::string(TUSK_SOURCE_DIR) + "/scenarios/papers/diloco/" +
                                           file,
                                       {"topology.long_haul_gbps=" + std::to_string(gbps),
                                        "topology.long_haul_delay_ms=" + std::to_string(delayMs)});
    const auto r = Run(spec);
    REQUIRE(r.finished);
    Measured m;
    for (const auto& l : r.links)
    {
        if (l.fromTier == 3 && l.toTier == 3)
        {
            m.longHaulBytes += static_cast<double>(l.txBytes);
        }
    }
    REQUIRE(r.jobs.size() == 1);
    const auto& ends = r.jobs[0].iterationEndPs;
    REQUIRE(ends.size() == 2);
    m.iter0Us = (ends[0] - r.jobs[0].startPs) / 1e6;
    m.iter1Us = (ends[1] - ends[0]) / 1e6;
    for (const auto& c : r.collectives)
    {
        if (c.kind == "all-reduce" && c.group.rfind("cross-site", 0) == 0)
        {
            m.crossSiteCctUs = std::max(m.crossSiteCctUs, (c.finishPs - c.startPs) / 1e6);
        }
    }
    return m;
}

} // namespace

TEST_CASE("DiLoCo paper: 500x fewer long-haul bytes per 1,000 steps with H = 500, sync DP stalls "
          "on a 10 ms long haul, DiLoCo helps less at 1 ms (scenarios/papers/diloco/README.md)",
          "[regression][diloco][oracle23]")
{
    constexpr double kH = 500;
    constexpr double kModelBytes = 16.0 * 1024 * 1024;
    double speedup[2] = {0, 0};
    int i = 0;
    for (uint32_t delayMs : {1u, 10u})
    {
        const Measured sync = RunOne("sync-dp.toml", 100, delayMs);
        const Measured dil = RunOne("diloco.toml", 100, delayMs);
        // Bytes per 1,000 steps: sync DP 1000 x (bytes / 2 steps); DiLoCo 1000 / H x one sync.
        const double ratio = (1000 * sync.longHaulBytes / 2) / (1000 / kH * dil.longHaulBytes);
        INFO("delay " << delayMs << " ms: bytes ratio " << ratio);
        CHECK(ratio > kH * 0.95);
        CHECK(ratio < kH * 1.05);
        // Oracle 23: byte time of N = 16 MiB over W = 100 Gb/s, R = 2 sites.
        const double bytesUs = 2 * kModelBytes * 8 / 100e3 * (1 - 1.0 / 2);
        const double dUs = delayMs * 1000.0;
        INFO("cross-site all-reduce " << dil.crossSiteCctUs << " us, bytes " << bytesUs << " us");
        CHECK(dil.crossSiteCctUs >= bytesUs + dUs);
        CHECK(dil.crossSiteCctUs <= (bytesUs + 2 * dUs) * 1.1);
        // Wall-clock per 1,000 steps.
        const double syncS = 1000 * sync.iter1Us / 1e6;
        const double dilS = (1000 * dil.iter0Us + 1000 / kH * (dil.iter1Us - dil.iter0Us)) / 1e6;
        speedup[i++] = syncS / dilS;
        INFO("sync " << syncS << " s, DiLoCo " << dilS << " s");
        CHECK(syncS > dilS);
        // Compute utilisation per 1,000 steps against the closed form of the README: each
        // inner step pays its compute and the intra-site ring all-reduce of N over P = 4 ranks
        // at 400 Gb/s, (2N/W_s)(1 - 1/P); every H steps the cross-site all-reduce (oracle 23,
        // with d to 2(R - 1)d of latency) and the intra-site all-gather, (N/W_s)(1 - 1/P).
        const double computeUs = 10'000;
        const double agSiteUs = kModelBytes * 8 / 400e3 * (1 - 1.0 / 4);
        const double utilMeasured = 1000 * computeUs / 1e6 / dilS;
        auto closedForm = [&](double latUs) {
            return 1000 * computeUs / (1000 * (computeUs + 2 * agSiteUs) +
                                       1000 / kH * (bytesUs + latUs + agSiteUs));
        };
        const double oracle23Alone = 1000 * computeUs / (1000 * computeUs + 1000 / kH * (bytesUs + dUs));
        INFO("DiLoCo utilisation: measured " << utilMeasured << ", closed form "
                                             << closedForm(2 * dUs) << " .. " << closedForm(dUs)
                                             << ", oracle 23 alone " << oracle23Alone);
        CHECK(utilMeasured > closedForm(2 * dUs) - 0.01);
        CHECK(utilMeasured < closedForm(dUs) + 0.01);
        CHECK(oracle23Alone - utilMeasured > 0.04); // without the intra-site term: 5 points off
    }
    CHECK(speedup[1] > 2.0);        // 10 ms: sync DP waits on the long haul every step
    CHECK(speedup[0] < speedup[1]); // 1 ms: less to gain
}

} // namespace TUSK_TEST_FILE
