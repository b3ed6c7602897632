#include "iteration-rules.h"

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

} // namespace ns3
