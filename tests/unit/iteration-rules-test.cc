// Unit tests of the steady and sampled rules' decisions (ns3-modules/workload/model/
// iteration-rules.h, docs/fast-mode.md), without a Simulator: the Student-t interval against
// published quantiles, the pool's verdicts at the interval's boundary, and the steady rule's
// trend over its span.
#include "workload/model/iteration-rules.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace ns3;

namespace
{

/** A pool of 2 x 4 iterations with these lengths (µs) and per-iteration mean FCTs (µs), each
 *  of 10 transfers, drawing `draws` each. */
std::vector<PoolIteration>
Pool(const std::vector<double>& lenUs, const std::vector<double>& fctUs, double draws = 100)
{
    std::vector<PoolIteration> pool;
    for (size_t k = 0; k < lenUs.size(); ++k)
    {
        PoolIteration p;
        p.lengthPs = lenUs[k] * 1e6;
        p.transfers = 10;
        p.fctSumPs = fctUs[k] * 1e6 * 10;
        p.draws = draws;
        pool.push_back(p);
    }
    return pool;
}

/** An iteration's records: transfer k took fctsUs[k] µs. */
std::vector<TransferRecord>
Records(const std::vector<double>& fctsUs)
{
    std::vector<TransferRecord> r(fctsUs.size());
    for (size_t k = 0; k < fctsUs.size(); ++k)
    {
        r[k].startPs = 1'000'000 * (k + 1);
        r[k].recvDonePs = r[k].startPs + static_cast<uint64_t>(std::llround(fctsUs[k] * 1e6));
    }
    return r;
}

} // namespace

TEST_CASE("MeanConfidenceHalfWidth is the Student-t interval of published quantiles",
          "[unit][fast-mode][iteration-rules]")
{
    // 1..5: mean 3, s = sqrt(2.5); t(0.975, 4) = 2.776445 (tables).
    CHECK(MeanConfidenceHalfWidth({1, 2, 3, 4, 5}, 0.95) ==
          Approx(2.776445 * std::sqrt(2.5) / std::sqrt(5.0)).epsilon(1e-6));
    // t(0.995, 7) = 3.499483: the 99 % interval of 8 samples.
    const std::vector<double> eight{10, 12, 9, 11, 10, 13, 8, 11};
    double mean = 0;
    for (double x : eight)
    {
        mean += x / 8;
    }
    double ss = 0;
    for (double x : eight)
    {
        ss += (x - mean) * (x - mean);
    }
    CHECK(MeanConfidenceHalfWidth(eight, 0.99) ==
          Approx(3.499483 * std::sqrt(ss / 7) / std::sqrt(8.0)).epsilon(1e-6));
    // Equal samples: no width; one sample: unknown.
    CHECK(MeanConfidenceHalfWidth({4, 4, 4}, 0.95) == 0);
    CHECK(std::isinf(MeanConfidenceHalfWidth({4}, 0.95)));
}

TEST_CASE("JudgePool: two windows that agree by chance on a wide multimodal distribution do "
          "not pin its mean and are refused",
          "[unit][fast-mode][iteration-rules]")
{
    // The breaker's case, shape for shape: iteration times in clusters near 380, 465, 540 and
    // 620 µs (standard deviation about 12 % of the mean), the two windows of 4 holding one of
    // each, so their means agree exactly. The windows' test alone (confidence 0, the rule
    // before) accepts; the pool's t-interval, 95 %, is about 10 % of the mean wide.
    const auto pool = Pool({380, 465, 540, 620, 540, 380, 620, 465},
                           {11, 12, 13, 14, 13, 11, 14, 12});
    CHECK(JudgePool(pool, 4, 0.02, 0) == SampledVerdict::Accept);
    CHECK(JudgePool(pool, 4, 0.02, 0.95) == SampledVerdict::MeanUncertain);
    // Windows that differ are refused as before, whatever the interval.
    const auto apart = Pool({380, 380, 380, 380, 620, 620, 620, 620}, {11, 11, 11, 11, 11, 11, 11, 11});
    CHECK(JudgePool(apart, 4, 0.02, 0.95) == SampledVerdict::WindowsDiffer);
    CHECK(JudgePool(apart, 4, 0.02, 0) == SampledVerdict::WindowsDiffer);
    // Another window size than the pool: refused.
    CHECK(JudgePool(pool, 3, 0.02, 0.95) == SampledVerdict::WindowsDiffer);
}

TEST_CASE("JudgePool: a narrow distribution (spraying's 1 %) passes with 8 samples, and the "
          "boundary is the t quantile of 7 degrees of freedom",
          "[unit][fast-mode][iteration-rules]")
{
    // About 1 % standard deviation around 290 µs.
    const auto spray = Pool({287, 292, 290, 293, 288, 291, 286, 293},
                            {20.1, 20.4, 20.2, 20.5, 20.0, 20.3, 20.1, 20.4});
    CHECK(JudgePool(spray, 4, 0.02, 0.95) == SampledVerdict::Accept);
    // m +- d alternating: mean m, s = d sqrt(8 / 7); the 95 % half-width is
    // t(0.975, 7) s / sqrt(8), t(0.975, 7) = 2.364624. At tolerance 2 % the boundary is
    // d = 0.02 m sqrt(8) / (2.364624 sqrt(8 / 7)) = 0.022367 m.
    const double m = 400;
    auto alternating = [&](double d) {
        return Pool({m - d, m + d, m - d, m + d, m - d, m + d, m - d, m + d},
                    {20, 20, 20, 20, 20, 20, 20, 20});
    };
    CHECK(JudgePool(alternating(0.0223 * m), 4, 0.02, 0.95) == SampledVerdict::Accept);
    CHECK(JudgePool(alternating(0.0225 * m), 4, 0.02, 0.95) == SampledVerdict::MeanUncertain);
    // At 99 % (t(0.995, 7) = 3.499483) the boundary is d = 0.015121 m.
    CHECK(JudgePool(alternating(0.0150 * m), 4, 0.02, 0.99) == SampledVerdict::Accept);
    CHECK(JudgePool(alternating(0.0153 * m), 4, 0.02, 0.99) == SampledVerdict::MeanUncertain);
    // The mean FCT too: iteration times pinned, per-iteration mean FCTs spread 12 % (windows
    // agreeing): refused.
    const auto fctWide = Pool({290, 290, 290, 290, 290, 290, 290, 290},
                              {16, 20, 24, 20, 24, 16, 20, 20});
    CHECK(JudgePool(fctWide, 4, 0.02, 0.95) == SampledVerdict::MeanUncertain);
}

TEST_CASE("JudgePhase: consecutive iterations agreeing while the phase moves over its span is a "
          "trend, refused",
          "[unit][fast-mode][iteration-rules]")
{
    // Newest first. Each differs from the next by 0.6 % (within the 1 % tolerance), the
    // newest from the one three back by 1.8 %.
    const auto r0 = Records({100.0, 50.0});
    const auto r1 = Records({100.6, 50.3});
    const auto r2 = Records({101.2, 50.6});
    const auto r3 = Records({101.8, 50.9});
    const std::vector<PhaseIteration> drift{{500e6, &r0}, {500e6, &r1}, {500e6, &r2}, {500e6, &r3}};
    // Two compared and no span (the rule before): agree.
    CHECK(JudgePhase(drift, 2, 0, 0.01) == SteadyVerdict::Agree);
    CHECK(JudgePhase(drift, 2, 2, 0.01) == SteadyVerdict::Agree);
    // A span of 4: the first and last differ.
    CHECK(JudgePhase(drift, 2, 4, 0.01) == SteadyVerdict::Trend);
    // The same in iteration time alone: transfers equal, lengths 0.6 % apart in turn.
    const std::vector<PhaseIteration> longer{
        {500e6, &r0}, {503e6, &r0}, {506e6, &r0}, {509e6, &r0}};
    CHECK(JudgePhase(longer, 2, 0, 0.01) == SteadyVerdict::Agree);
    CHECK(JudgePhase(longer, 2, 4, 0.01) == SteadyVerdict::Trend);
    // A cycle: two equal iterations after two others (CONGA's period-4 sequence).
    const auto a = Records({25.8, 20.0});
    const auto b = Records({33.7, 20.0});
    const std::vector<PhaseIteration> cycle{{713e6, &a}, {713e6, &a}, {713e6, &b}, {713e6, &b}};
    CHECK(JudgePhase(cycle, 2, 0, 0.01) == SteadyVerdict::Agree);
    CHECK(JudgePhase(cycle, 2, 4, 0.01) == SteadyVerdict::Trend);
    // Steady over the span: agree.
    const std::vector<PhaseIteration> flat{{500e6, &r0}, {500e6, &r0}, {501e6, &r0}, {500e6, &r0}};
    CHECK(JudgePhase(flat, 2, 4, 0.01) == SteadyVerdict::Agree);
    // The newest two differ: differ, whatever the span.
    const std::vector<PhaseIteration> apart{{500e6, &r0}, {500e6, &r3}, {500e6, &r0}, {500e6, &r0}};
    CHECK(JudgePhase(apart, 2, 4, 0.01) == SteadyVerdict::Differ);
    // The span's first cannot be compared (replayed, freed) or is not there yet: short.
    const std::vector<PhaseIteration> gap{{500e6, &r0}, {500e6, &r0}, {500e6, &r0}, {0, nullptr}};
    CHECK(JudgePhase(gap, 2, 4, 0.01) == SteadyVerdict::Short);
    CHECK(JudgePhase({{500e6, &r0}, {500e6, &r0}}, 2, 4, 0.01) == SteadyVerdict::Short);
    // Different transfer counts never agree.
    const auto three = Records({100, 50, 25});
    CHECK(JudgePhase({{500e6, &r0}, {500e6, &three}}, 2, 0, 0.01) == SteadyVerdict::Differ);
}
