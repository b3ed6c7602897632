// Summary statistics against hand-computed values.

#include "run/stats.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace tusk;

TEST_CASE("linear quantiles interpolate between order statistics (type 7, as numpy and "
          "pandas)",
          "[unit][stats]")
{
    const auto lin = QuantileMethod::Linear;
    const std::vector<double> v = {4, 1, 3, 2}; // sorted 1 2 3 4
    CHECK(Quantile(v, 0.0, lin) == 1.0);
    CHECK(Quantile(v, 1.0, lin) == 4.0);
    CHECK(Quantile(v, 0.5, lin) == 2.5);                      // h = 1.5
    CHECK(Quantile(v, 0.99, lin) == Approx(3.97).epsilon(1e-12)); // h = 2.97
    std::vector<double> hundred;
    for (int i = 1; i <= 100; ++i)
    {
        hundred.push_back(i);
    }
    CHECK(Quantile(hundred, 0.99, lin) == Approx(99.01).epsilon(1e-12));   // h = 98.01
    CHECK(Quantile(hundred, 0.999, lin) == Approx(99.901).epsilon(1e-12)); // h = 98.901
    CHECK(std::isnan(Quantile({}, 0.5, lin)));
    CHECK(std::string(QuantileMethodName(lin)) == "linear");
}

TEST_CASE("nearest-rank quantiles are the order statistic of rank ceil(q n), the default",
          "[unit][stats]")
{
    const std::vector<double> v = {4, 1, 3, 2}; // sorted 1 2 3 4
    CHECK(Quantile(v, 0.0) == 1.0);  // rank 1 for q = 0
    CHECK(Quantile(v, 0.25) == 1.0); // ceil(1.00) = 1
    CHECK(Quantile(v, 0.5) == 2.0);  // ceil(2.00) = 2
    CHECK(Quantile(v, 0.51) == 3.0); // ceil(2.04) = 3
    CHECK(Quantile(v, 0.99) == 4.0); // ceil(3.96) = 4
    CHECK(Quantile(v, 1.0) == 4.0);
    CHECK(Quantile(v, 0.5, QuantileMethod::NearestRank) == Quantile(v, 0.5));
    std::vector<double> hundred;
    for (int i = 100; i >= 1; --i)
    {
        hundred.push_back(i * 10.0);
    }
    // q n whole although q is not exact in binary (0.07 * 100 = 7.000000000000001,
    // 0.29 * 100 = 28.999999999999996): ranks 7, 29, 99; p99.9 = ceil(99.9) = rank 100.
    CHECK(Quantile(hundred, 0.07) == 70.0);
    CHECK(Quantile(hundred, 0.29) == 290.0);
    CHECK(Quantile(hundred, 0.99) == 990.0);
    CHECK(Quantile(hundred, 0.999) == 1000.0);
    CHECK(Quantile({7.5}, 0.99) == 7.5);
    CHECK(std::isnan(Quantile({}, 0.5)));
    CHECK(std::string(QuantileMethodName(QuantileMethod::NearestRank)) == "nearest-rank");
}

TEST_CASE("mean and maximum", "[unit][stats]")
{
    const std::vector<double> v = {4, 1, 3, 2};
    CHECK(Mean(v) == 2.5);
    CHECK(Max(v) == 4.0);
}

TEST_CASE("Jain's fairness index", "[unit][stats]")
{
    CHECK(JainIndex({1, 1, 1, 1}) == 1.0);
    CHECK(JainIndex({1, 0, 0, 0}) == 0.25);              // 1 / n
    CHECK(JainIndex({1, 2, 3}) == Approx(36.0 / 42.0));  // (6)^2 / (3 * 14)
}
