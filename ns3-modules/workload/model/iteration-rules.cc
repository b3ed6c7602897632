#include "iteration-rules.h"

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

bool
CloseWithin(double a, double b, double tol)
{
    return std::fabs(a - b) <= tol * std::max(std::fabs(a), std::fabs(b));
}

double
MeanConfidenceHalfWidth(const std::vector<double>& samples, double confidence)
{
    const size_t n = samples.size();
    if (n < 2)
    {
        return std::numeric_limits<double>::infinity();
    }
    double mean = 0;
    for (double x : samples)
    {
        mean += x;
    }
    mean /= static_cast<double>(n);
    double ss = 0;
    for (double x : samples)
    {
        ss += (x - mean) * (x - mean);
    }
    const double sd = std::sqrt(ss / static_cast<double>(n - 1));
    const boost::math::students_t dist(static_cast<double>(n - 1));
    const double t = boost::math::quantile(boost::math::complement(dist, (1 - confidence) / 2));
    return t * sd / std::sqrt(static_cast<double>(n));
}

namespace
{

/** x_(rank) of `values` (1-based: values[rank - 1] once ordered), by nth_element. */
double
OrderStatistic(std::vector<double>& values, size_t rank)
{
    std::nth_element(values.begin(), values.begin() + (rank - 1), values.end());
    return values[rank - 1];
}

/** ceil(q n) clamped to [1, n]; n > 0. */
size_t
NearestRankOf(size_t n, double q)
{
    return std::clamp<size_t>(static_cast<size_t>(std::ceil(q * static_cast<double>(n))), 1, n);
}

} // namespace

double
NearestRankQuantile(std::vector<double>& values, double q)
{
    if (values.empty())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return OrderStatistic(values, NearestRankOf(values.size(), q));
}

QuantileInterval
QuantileWithInterval(std::vector<double>& values, double q, double confidence)
{
    QuantileInterval r;
    const size_t n = values.size();
    if (n == 0)
    {
        r.estimate = r.lower = r.upper = std::numeric_limits<double>::quiet_NaN();
        return r;
    }
    auto at = [&values](size_t rank) { return OrderStatistic(values, rank); };
    const size_t est = NearestRankOf(n, q);
    const boost::math::binomial dist(static_cast<double>(n), q);
    // x_(l) <= the true quantile when more than l - 1 values are at or below it, x_(u) >= it
    // when fewer than u are: l - 1 the largest count whose CDF is at most (1 - confidence) / 2
    // (Boost rounds a lower quantile down), u - 1 the smallest whose CDF is at least
    // (1 + confidence) / 2 (an upper one up).
    const double a = (1 - confidence) / 2;
    const double lo = boost::math::quantile(dist, a) + 1;
    const double hi = boost::math::quantile(boost::math::complement(dist, a)) + 1;
    const size_t l = static_cast<size_t>(std::clamp(lo, 1.0, static_cast<double>(n)));
    const size_t u = static_cast<size_t>(std::clamp(hi, 1.0, static_cast<double>(n)));
    r.estimate = at(est);
    r.lower = at(l);
    r.upper = at(u);
    return r;
}

SampledVerdict
JudgePool(const std::vector<PoolIteration>& pool, uint32_t w, double tolerance, double confidence)
{
    if (w == 0 || pool.size() != 2 * static_cast<size_t>(w))
    {
        return SampledVerdict::WindowsDiffer;
    }
    double len[2] = {0, 0};
    double fct[2] = {0, 0};
    double draws[2] = {0, 0};
    uint64_t n[2] = {0, 0};
    for (size_t k = 0; k < pool.size(); ++k)
    {
        const int half = k < w ? 0 : 1;
        len[half] += pool[k].lengthPs;
        draws[half] += pool[k].draws;
        fct[half] += pool[k].fctSumPs;
        n[half] += pool[k].transfers;
    }
    if (n[0] == 0 || n[1] == 0 || !CloseWithin(len[0], len[1], tolerance) ||
        !CloseWithin(fct[0] / static_cast<double>(n[0]), fct[1] / static_cast<double>(n[1]),
                     tolerance) ||
        !CloseWithin(draws[0], draws[1], tolerance))
    {
        return SampledVerdict::WindowsDiffer;
    }
    if (confidence <= 0)
    {
        return SampledVerdict::Accept;
    }
    // Two windows agreeing is weak evidence when the samples are wide: two windows of 4 from a
    // distribution with a 12 % coefficient of variation agree within 2 % by chance often
    // enough. Ask that the pool pin the mean it will stand for: its t-interval within the
    // tolerance, for the iteration time and for the per-iteration mean FCT.
    std::vector<double> lengths;
    std::vector<double> fcts;
    for (const PoolIteration& p : pool)
    {
        lengths.push_back(p.lengthPs);
        if (p.transfers > 0)
        {
            fcts.push_back(p.fctSumPs / static_cast<double>(p.transfers));
        }
    }
    auto pinned = [&](const std::vector<double>& x) {
        double mean = 0;
        for (double v : x)
        {
            mean += v;
        }
        mean /= static_cast<double>(x.size());
        return MeanConfidenceHalfWidth(x, confidence) <= tolerance * std::fabs(mean);
    };
    if (!pinned(lengths) || fcts.size() != pool.size() || !pinned(fcts))
    {
        return SampledVerdict::MeanUncertain;
    }
    return SampledVerdict::Accept;
}

bool
SameIteration(double lenA, const std::vector<TransferRecord>& a, double lenB,
              const std::vector<TransferRecord>& b, double tol)
{
    if (a.size() != b.size() || !CloseWithin(lenB, lenA, tol))
    {
        return false;
    }
    for (size_t k = 0; k < a.size(); ++k)
    {
        if (!CloseWithin(static_cast<double>(a[k].recvDonePs - a[k].startPs),
                         static_cast<double>(b[k].recvDonePs - b[k].startPs), tol))
        {
            return false;
        }
    }
    return true;
}

SteadyVerdict
JudgePhase(const std::vector<PhaseIteration>& phase, uint32_t iterations, uint32_t span,
           double tol)
{
    if (iterations < 1 || phase.size() < iterations || !phase[0].records)
    {
        return SteadyVerdict::Differ;
    }
    const PhaseIteration& ref = phase[0];
    for (uint32_t c = 1; c < iterations; ++c)
    {
        if (!phase[c].records ||
            !SameIteration(ref.lengthPs, *ref.records, phase[c].lengthPs, *phase[c].records, tol))
        {
            return SteadyVerdict::Differ;
        }
    }
    if (span <= iterations)
    {
        return SteadyVerdict::Agree;
    }
    if (phase.size() < span || !phase[span - 1].records)
    {
        return SteadyVerdict::Short;
    }
    const PhaseIteration& first = phase[span - 1];
    return SameIteration(ref.lengthPs, *ref.records, first.lengthPs, *first.records, tol)
               ? SteadyVerdict::Agree
               : SteadyVerdict::Trend;
}


RecurrenceVerdict
JudgeRecurrence(const std::vector<IterationBrief>& history, uint32_t period, uint32_t span,
                double tol)
{
    if (span == 0)
    {
        return RecurrenceVerdict::Covered;
    }
    if (period == 0 || history.size() < span || span < 2 * static_cast<size_t>(period))
    {
        return RecurrenceVerdict::Short;
    }
    const size_t n = history.size();
    const size_t from = n - span;
    for (size_t k = from; k < n; ++k)
    {
        // Against the newest of its phase, not the one a period back: a chain of neighbours
        // each within tol could drift by span x tol.
        const IterationBrief& ref = history[n - 1 - (n - 1 - k) % period];
        const IterationBrief& x = history[k];
        if (x.pattern != ref.pattern || !CloseWithin(x.lengthPs, ref.lengthPs, tol) ||
            !CloseWithin(x.maxFctPs, ref.maxFctPs, tol))
        {
            return RecurrenceVerdict::Missed;
        }
    }
    return RecurrenceVerdict::Covered;
}

RecurrenceVerdict
JudgeTailCover(const std::vector<IterationBrief>& history, const std::vector<IterationBrief>& pool,
               uint32_t span, double tol)
{
    if (span == 0)
    {
        return RecurrenceVerdict::Covered;
    }
    if (history.size() < span || pool.empty())
    {
        return RecurrenceVerdict::Short;
    }
    double poolLen = 0;
    double poolFct = 0;
    for (const IterationBrief& p : pool)
    {
        poolLen = std::max(poolLen, p.lengthPs);
        poolFct = std::max(poolFct, p.maxFctPs);
    }
    auto bounded = [tol](double x, double max) { return x <= max || CloseWithin(x, max, tol); };
    for (size_t k = history.size() - span; k < history.size(); ++k)
    {
        const IterationBrief& x = history[k];
        if (x.pattern == pool[0].pattern &&
            (!bounded(x.lengthPs, poolLen) || !bounded(x.maxFctPs, poolFct)))
        {
            return RecurrenceVerdict::Missed;
        }
    }
    return RecurrenceVerdict::Covered;
}

} // namespace ns3
