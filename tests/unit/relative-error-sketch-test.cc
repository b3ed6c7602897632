// RelativeErrorSketch (tusk/run/path-telemetry.h), the streaming quantile of paths.csv's RTT
// columns: DDSketch (Masson, Rim & Lee, VLDB 2019) promises every quantile within relative
// error alpha of the exact sample quantile, with memory bounded by the value range.
#include "run/path-telemetry.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

TEST_CASE("RelativeErrorSketch quantiles are within 1 % of the exact ones, memory bounded",
          "[unit][locate]")
{
    tusk::RelativeErrorSketch s(0.01);
    CHECK(s.Count() == 0);
    CHECK(s.Quantile(0.5) == 0.0);
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> rtt(std::log(10.0), 0.6); // µs, a long right tail
    std::vector<double> v;
    for (int i = 0; i < 200000; ++i)
    {
        v.push_back(rtt(rng));
        s.Add(v.back());
    }
    std::sort(v.begin(), v.end());
    CHECK(s.Count() == v.size());
    CHECK(s.Min() == v.front());
    for (double q : {0.0, 0.1, 0.5, 0.9, 0.99, 1.0})
    {
        const double exact = v[static_cast<size_t>(std::ceil(q * (v.size() - 1)))];
        CAPTURE(q, exact, s.Quantile(q));
        CHECK(std::abs(s.Quantile(q) - exact) <= 0.01 * exact * (1 + 1e-9));
    }
    // 200,000 samples, a few hundred buckets: log_g(max / min) + 1 with g = 1.01 / 0.99.
    const double g = 1.01 / 0.99;
    CHECK(s.Buckets() <= static_cast<size_t>(std::log(v.back() / v.front()) / std::log(g)) + 2);
    CHECK(s.Buckets() < 1000);
}

TEST_CASE("RelativeErrorSketch refuses an accuracy outside (0, 1)", "[unit][locate]")
{
    CHECK_THROWS_AS(tusk::RelativeErrorSketch(0.0), std::invalid_argument);
    CHECK_THROWS_AS(tusk::RelativeErrorSketch(1.0), std::invalid_argument);
}

} // namespace TUSK_TEST_FILE
