/*
 * tusk: summary statistics, computed in one place and shared by the printed comparison
 * table, the results files and the report.
 */
#ifndef TUSK_STATS_H
#define TUSK_STATS_H

#include <cstddef>
#include <vector>

namespace tusk
{

/**
 * \brief How a quantile is taken from a sample (Hyndman & Fan, "Sample Quantiles in
 * Statistical Packages", The American Statistician 50(4), 1996).
 */
enum class QuantileMethod
{
    /** Nearest rank (type 1, the inverse of the empirical CDF): of the sorted x_1..x_n, x_k with
     *  k = ceil(q n), and x_1 for q = 0. The smallest observed value with at least a fraction q
     *  of the sample at or below it: a p99 is the slowdown of a flow that happened. The
     *  default: FCT-slowdown papers and their simulators' analysis scripts index the sorted
     *  sample (HPCC's and ConWeave's take x[floor(q n)] counting from 0, which is the same
     *  order statistic unless q n is a whole number, when theirs is the next one). */
    NearestRank,
    /** Linear interpolation between order statistics (type 7, numpy's and pandas' default):
     *  h = (n - 1) q, x_(floor h + 1) + (h - floor h)(x_(floor h + 2) - x_(floor h + 1)). */
    Linear,
};

/** "nearest-rank" or "linear", as the docs and the report name them. */
const char* QuantileMethodName(QuantileMethod method);

/**
 * \brief The q-quantile (0 <= q <= 1) of `values` by `method`. NaN for an empty sample.
 * Used for every percentile tusk prints or writes (the summary's p50 / p99).
 */
double Quantile(std::vector<double> values, double q,
                QuantileMethod method = QuantileMethod::NearestRank);
/** The 1-based rank k = ceil(q n) (q n rounded to 1e-9 first), clamped to 1..n, that
 *  QuantileMethod::NearestRank takes of n sorted values; n > 0. */
size_t NearestRank(size_t n, double q);
double Mean(const std::vector<double>& values);
double Max(const std::vector<double>& values);
/** Jain's fairness index (sum x)^2 / (n sum x^2), in (0, 1]; 1 for an empty or all-zero set. */
double JainIndex(const std::vector<double>& values);

} // namespace tusk

#endif
