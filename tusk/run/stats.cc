#include "run/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tusk
{

const char*
QuantileMethodName(QuantileMethod method)
{
    return method == QuantileMethod::Linear ? "linear" : "nearest-rank";
}

size_t
NearestRank(size_t n, double q)
{
    // k = ceil(q n) in 1..n; q n is rounded to 1e-9 first so that 0.99 * 100 is rank 99,
    // not 100 because 0.99 is stored as 0.98999999999999999.
    const double qn = q * static_cast<double>(n);
    const double k = std::ceil(qn - 1e-9 * std::max(1.0, qn));
    return static_cast<size_t>(std::clamp(k, 1.0, static_cast<double>(n)));
}

double
Quantile(std::vector<double> v, double q, QuantileMethod method)
{
    if (v.empty())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    std::sort(v.begin(), v.end());
    if (method == QuantileMethod::NearestRank)
    {
        return v[NearestRank(v.size(), q) - 1];
    }
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    const double frac = pos - static_cast<double>(lo);
    return v[lo] + (v[hi] - v[lo]) * frac;
}

double
Mean(const std::vector<double>& v)
{
    if (v.empty())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double
Max(const std::vector<double>& v)
{
    if (v.empty())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return *std::max_element(v.begin(), v.end());
}

double
JainIndex(const std::vector<double>& v)
{
    double sum = 0;
    double sq = 0;
    for (double x : v)
    {
        sum += x;
        sq += x * x;
    }
    if (v.empty() || sq == 0)
    {
        return 1.0;
    }
    return sum * sum / (static_cast<double>(v.size()) * sq);
}

} // namespace tusk
