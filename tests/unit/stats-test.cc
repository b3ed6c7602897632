// Summary statistics against hand-computed values.

#include "run/row-stream.h"
#include "run/stats.h"
#include "scratch-dir.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

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

TEST_CASE("the order statistic of spilled values is the sorted sample's, at every rank tried",
          "[unit][stats]")
{
    // row-stream.h: a streamed run's nearest-rank percentiles come from a radix selection over
    // values spilled to disk, 16 bits per pass until 2^16 candidates remain; they must be the
    // very value std::sort puts at that rank (results byte-identical to the in-memory summary).
    // 200,000 values in three parts: more than 2^16 candidates, so the histogram passes run;
    // few distinct values in one part (ties across buckets), negatives, and a wide range.
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> wide(-1e6, 1e9);
    tusk::DoubleSpill a;
    tusk::DoubleSpill b;
    tusk::DoubleSpill c;
    std::vector<double> all;
    for (int i = 0; i < 90'000; ++i)
    {
        all.push_back(1.0 + static_cast<double>(rng() % 1000) * 1e-6); // slowdowns, with ties
        a.Push(all.back());
    }
    for (int i = 0; i < 100'000; ++i)
    {
        all.push_back(wide(rng));
        b.Push(all.back());
    }
    for (int i = 0; i < 10'000; ++i)
    {
        all.push_back(2.5); // one value 10,000 times
        c.Push(all.back());
    }
    std::vector<double> sorted = all;
    std::sort(sorted.begin(), sorted.end());
    const std::vector<const tusk::DoubleSpill*> parts = {&a, &b, &c};
    for (uint64_t rank : {uint64_t{1}, uint64_t{2}, uint64_t{1000}, uint64_t{90'000},
                          uint64_t{100'000}, uint64_t{123'457}, uint64_t{199'999}, uint64_t{200'000}})
    {
        CAPTURE(rank);
        CHECK(tusk::OrderStatistic(parts, rank) == sorted[rank - 1]);
    }
    for (double q : {0.5, 0.99, 0.999})
    {
        CAPTURE(q);
        CHECK(tusk::OrderStatistic(parts, tusk::NearestRank(all.size(), q)) ==
              tusk::Quantile(all, q, tusk::QuantileMethod::NearestRank));
    }
    CHECK(std::isnan(tusk::OrderStatistic(parts, 0)));
    CHECK(std::isnan(tusk::OrderStatistic(parts, 200'001)));
}

TEST_CASE("values spilled into a folder are in an unnamed file there, read back in order",
          "[unit][stats]")
{
    // row-stream.h, "Scratch files": a streamed run's spills go to its staging folder, made as
    // .rows-XXXXXX and unlinked at once: nothing in the folder to commit or list, the open
    // file its only reference.
    namespace fs = std::filesystem;
    const tusk_test::ScratchDir scratch("spill-test");
    const fs::path& dir = scratch.Root();
    {
        tusk::DoubleSpill s(dir.string());
        for (int i = 0; i < 20'000; ++i) // more than the buffer: spilled
        {
            s.Push(20'000.0 - i);
        }
        CHECK(s.Size() == 20'000);
        CHECK(fs::is_empty(dir));
        size_t unlinkedThere = 0;
        for (const auto& e : fs::directory_iterator("/proc/self/fd"))
        {
            std::error_code ec;
            const std::string target = fs::read_symlink(e.path(), ec).string();
            unlinkedThere += !ec && target.rfind((dir / ".rows-").string(), 0) == 0 &&
                             target.find(" (deleted)") != std::string::npos;
        }
        CHECK(unlinkedThere == 1);
        const std::vector<const tusk::DoubleSpill*> parts = {&s};
        CHECK(tusk::OrderStatistic(parts, 1) == 1.0);
        CHECK(tusk::OrderStatistic(parts, 12'345) == 12'345.0);
        CHECK(tusk::OrderStatistic(parts, 20'000) == 20'000.0);
    }
    CHECK(fs::is_empty(dir));
}

} // namespace TUSK_TEST_FILE
