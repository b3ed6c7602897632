// Summary statistics against hand-computed values.

#include "stats.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace tusk;

TEST_CASE("quantiles interpolate linearly (type 7, as numpy and pandas)", "[unit][stats]")
{
    const std::vector<double> v = {4, 1, 3, 2}; // sorted 1 2 3 4
    CHECK(Quantile(v, 0.0) == 1.0);
    CHECK(Quantile(v, 1.0) == 4.0);
    CHECK(Quantile(v, 0.5) == 2.5);                      // position 1.5
    CHECK(Quantile(v, 0.99) == Approx(3.97).epsilon(1e-12)); // position 2.97
    CHECK(std::isnan(Quantile({}, 0.5)));
    CHECK(Mean(v) == 2.5);
    CHECK(Max(v) == 4.0);
}

TEST_CASE("Jain's fairness index", "[unit][stats]")
{
    CHECK(JainIndex({1, 1, 1, 1}) == 1.0);
    CHECK(JainIndex({1, 0, 0, 0}) == 0.25);              // 1 / n
    CHECK(JainIndex({1, 2, 3}) == Approx(36.0 / 42.0));  // (6)^2 / (3 * 14)
}
