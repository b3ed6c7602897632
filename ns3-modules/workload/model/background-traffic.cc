/*
 * tusk: background traffic. See background-traffic.h.
 */
#include "background-traffic.h"
#include "uniform-below.h"

#include "fabric/model/input-error.h"
#include "fabric/model/input-excerpt.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <queue>
#include <random>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

/** Uniform double in [0, 1) from the top 53 bits of one draw. */
double
Uniform01(std::mt19937_64& rng)
{
    return static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);
}

constexpr double kMaxCdfBytes = 9007199254740992.0; // 2^53

void
CheckPoints(const std::vector<std::pair<double, double>>& p, const std::string& file, unsigned line)
{
    auto fail = [&](const std::string& m) { throw InputError(file, line, "cdf", m); };
    if (p.size() < 2)
    {
        fail("a flow-size CDF needs at least 2 points (size_bytes cdf_percent); got " +
             std::to_string(p.size()));
    }
    for (size_t i = 0; i < p.size(); ++i)
    {
        const auto [x, y] = p[i];
        // Sizes up to 2^53 B (9 PB): whole numbers of bytes stay exact in a double, and a
        // sample always fits the 64-bit byte count it becomes.
        if (!std::isfinite(x) || !std::isfinite(y) || x < 0 || x > kMaxCdfBytes || y < 0 ||
            y > 100)
        {
            fail("point " + std::to_string(i + 1) + ": expected a size in 0..2^53 bytes and a "
                 "percentage in 0..100");
        }
        if (i > 0 && (x < p[i - 1].first || y < p[i - 1].second))
        {
            fail("point " + std::to_string(i + 1) +
                 ": sizes and percentages must not decrease from one point to the next");
        }
    }
    if (p.back().second != 100)
    {
        fail("the last point must have cdf_percent 100");
    }
}

} // namespace

FlowSizeCdf::FlowSizeCdf(std::vector<std::pair<double, double>> points)
    : m_points(std::move(points))
{
    CheckPoints(m_points, "", 0);
}

FlowSizeCdf
FlowSizeCdf::Read(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw InputError(path, 0, "cdf", "cannot open the flow-size CDF file");
    }
    std::vector<std::pair<double, double>> points;
    std::string line;
    unsigned n = 0;
    while (std::getline(in, line))
    {
        ++n;
        if (n == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0)
        {
            line.erase(0, 3); // a UTF-8 byte-order mark, as InputTextReader skips
        }
        std::istringstream ls(line);
        std::string a;
        std::string b;
        std::string extra;
        if (!(ls >> a))
        {
            continue;
        }
        char* end = nullptr;
        const double x = std::strtod(a.c_str(), &end);
        // The whole token: strtod stops at an embedded NUL byte, which is not the end.
        const bool okX = end == a.c_str() + a.size();
        double y = 0;
        bool okY = static_cast<bool>(ls >> b);
        if (okY)
        {
            y = std::strtod(b.c_str(), &end);
            okY = end == b.c_str() + b.size();
        }
        if (!okX || !okY || (ls >> extra))
        {
            // Quote the offending token only: the file may not be a CDF at all.
            const std::string got = !okX  ? QuoteExcerpt(a)
                                    : b.empty() ? std::string("one value")
                                    : !okY      ? QuoteExcerpt(b)
                                                : "a third value " + QuoteExcerpt(extra);
            throw InputError(path, n, "cdf", "expected \"size_bytes cdf_percent\"; got " + got);
        }
        points.emplace_back(x, y);
    }
    CheckPoints(points, path, n);
    FlowSizeCdf cdf;
    cdf.m_points = std::move(points);
    return cdf;
}

double
FlowSizeCdf::MeanBytes() const
{
    double s = 0;
    for (size_t i = 1; i < m_points.size(); ++i)
    {
        s += (m_points[i].first + m_points[i - 1].first) / 2.0 *
             (m_points[i].second - m_points[i - 1].second);
    }
    return s / 100.0;
}

const char*
CdfSizeRoundingName(CdfSizeRounding rounding)
{
    return rounding == CdfSizeRounding::HpccTruncate ? "hpcc-truncate" : "exact";
}

uint64_t
FlowSizeCdf::Sample(double u, CdfSizeRounding rounding) const
{
    const double y = u * 100.0;
    double x = m_points.back().first;
    for (size_t i = 1; i < m_points.size(); ++i)
    {
        if (y <= m_points[i].second)
        {
            const auto [x0, y0] = m_points[i - 1];
            const auto [x1, y1] = m_points[i];
            x = y1 > y0 ? x0 + (x1 - x0) / (y1 - y0) * (y - y0) : x1;
            break;
        }
    }
    // Interpolation leaves ~1e-12 relative error (10000 / 15 * 15 = 10000.000000000002): a
    // size within 1e-9 of a whole number is that number under both rules.
    const double whole = std::round(x);
    const double v = std::fabs(x - whole) <= 1e-9 * std::max(1.0, x)
                         ? whole
                         : (rounding == CdfSizeRounding::Exact ? std::ceil(x) : std::floor(x));
    return v < 1 ? 1 : static_cast<uint64_t>(v);
}

std::vector<TransferSpec>
MakePoissonBackground(const BackgroundRequest& r, const FlowSizeCdf& cdf)
{
    if (r.hosts.size() < 2)
    {
        throw InputError("", 0, "BackgroundRequest.hosts",
                         "background traffic needs at least 2 hosts; got " +
                             std::to_string(r.hosts.size()));
    }
    if (std::set<uint32_t>(r.hosts.begin(), r.hosts.end()).size() != r.hosts.size())
    {
        throw InputError("", 0, "BackgroundRequest.hosts", "a host is listed twice");
    }
    if (!(r.load > 0 && r.load <= 1))
    {
        throw InputError("", 0, "BackgroundRequest.load",
                         "expected an offered load in (0, 1]; got " + std::to_string(r.load));
    }
    if (r.durationPs == 0)
    {
        throw InputError("", 0, "BackgroundRequest.durationPs", "expected a duration > 0");
    }
    if (r.hostRateBps == 0)
    {
        throw InputError("", 0, "BackgroundRequest.hostRateBps", "expected a host link rate > 0");
    }
    // Expected number of flows, checked before generating any: a CDF of tiny (or zero) sizes
    // would otherwise generate flows without bound.
    const double meanBytes = cdf.MeanBytes();
    if (!(meanBytes >= 1))
    {
        throw InputError("", 0, "BackgroundRequest.cdf",
                         "the flow-size CDF's mean is " + std::to_string(meanBytes) +
                             " bytes; expected at least 1 byte");
    }
    const double expectedFlows = r.load * static_cast<double>(r.hostRateBps) *
                                 (static_cast<double>(r.durationPs) * 1e-12) / (meanBytes * 8) *
                                 static_cast<double>(r.hosts.size());
    constexpr double kMaxFlows = 5e6;
    if (expectedFlows > kMaxFlows)
    {
        throw InputError("", 0, "BackgroundRequest.durationPs",
                         "these settings would generate about " +
                             std::to_string(static_cast<uint64_t>(expectedFlows)) +
                             " background flows (more than 5 million); shorten the duration, "
                             "lower the load or use a CDF of larger flows");
    }
    // Mean inter-arrival per host, ps: mean bits / (load * rate).
    const double meanGapPs = cdf.MeanBytes() * 8.0 / (r.load * static_cast<double>(r.hostRateBps)) * 1e12;
    std::mt19937_64 rng(r.seed);
    auto gap = [&]() {
        // Exponential by inversion; 1 - u in (0, 1].
        return static_cast<uint64_t>(std::llround(-std::log(1.0 - Uniform01(rng)) * meanGapPs));
    };
    const uint64_t end = r.startPs + r.durationPs;
    // (time, host index): the earliest next arrival first, ties by host order (as a heap of
    // tuples in traffic_gen.py).
    using Entry = std::pair<uint64_t, uint32_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> next;
    for (uint32_t i = 0; i < r.hosts.size(); ++i)
    {
        next.emplace(r.startPs + gap(), i);
    }
    std::vector<TransferSpec> out;
    const uint32_t n = static_cast<uint32_t>(r.hosts.size());
    while (!next.empty())
    {
        const auto [t, i] = next.top();
        next.pop();
        if (t >= end)
        {
            continue;
        }
        uint32_t j = static_cast<uint32_t>(UniformBelow(rng, n - 1));
        if (j >= i)
        {
            ++j; // uniform among the others
        }
        TransferSpec f;
        f.externalId = out.size();
        f.src = r.hosts[i];
        f.dst = r.hosts[j];
        f.bytes = cdf.Sample(Uniform01(rng), r.sizeRounding);
        f.startPs = t;
        f.qpGroup = static_cast<uint32_t>(out.size());
        f.priority = r.priority;
        f.background = true;
        f.qps = r.qps;
        out.push_back(f);
        next.emplace(t + gap(), i);
    }
    return out;
}

} // namespace ns3
