#include "results/fast-compare.h"

#include "run/stats.h"

#include <limits>

namespace tusk
{

double
FastMetric::RelativeDifference() const
{
    if (packet == 0)
    {
        return fast == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    }
    return (fast - packet) / packet;
}

namespace
{

/** Job index meaning every flow and collective of the run, in a job or not. */
constexpr int32_t kWholeRun = -2;

/** The values of one run the metrics are computed from, for job `job` (-1: every job;
 *  kWholeRun: the whole run). */
struct JobValues
{
    std::vector<double> cct;
    std::vector<double> iteration;
    std::vector<double> fct;
};

JobValues
ValuesOf(const RunResult& r, int32_t job)
{
    JobValues v;
    for (const auto& c : r.collectives)
    {
        if (c.finished && (job == kWholeRun || (job < 0 ? c.job >= 0 : c.job == job)))
        {
            v.cct.push_back(static_cast<double>(c.cctPs) / 1e6);
        }
    }
    for (const auto& j : r.jobs)
    {
        if (job >= 0 && j.id != static_cast<uint32_t>(job))
        {
            continue;
        }
        uint64_t prev = j.startPs;
        for (uint64_t end : j.iterationEndPs)
        {
            if (end == 0)
            {
                break;
            }
            v.iteration.push_back(static_cast<double>(end - prev) / 1e6);
            prev = end;
        }
    }
    for (const auto& f : r.flows)
    {
        if (f.finished && (job == kWholeRun || (job < 0 ? f.job >= 0 : f.job == job)))
        {
            v.fct.push_back(static_cast<double>(f.fctPs) / 1e6);
        }
    }
    return v;
}

void
Add(std::vector<FastMetric>& out,
    const std::string& job,
    const std::string& metric,
    const std::vector<double>& a,
    const std::vector<double>& b,
    double (*f)(const std::vector<double>&))
{
    if (!a.empty() && !b.empty())
    {
        out.push_back(FastMetric{metric, job, f(a), f(b)});
    }
}

double
P99(const std::vector<double>& v)
{
    return Quantile(v, 0.99);
}

} // namespace

std::vector<FastMetric>
CompareFastMetrics(const RunResult& packet, const RunResult& fast)
{
    std::vector<FastMetric> out;
    std::vector<std::pair<int32_t, std::string>> jobs;
    for (const auto& j : packet.jobs)
    {
        jobs.emplace_back(static_cast<int32_t>(j.id), j.name);
    }
    if (jobs.empty())
    {
        // No [[jobs]]: nothing to replay, fast mode simulates every packet; the whole run's
        // collectives and flows are compared (they must be equal).
        jobs.emplace_back(kWholeRun, "run");
    }
    else if (jobs.size() != 1)
    {
        jobs.emplace_back(-1, "all");
    }
    for (const auto& [id, name] : jobs)
    {
        const JobValues a = ValuesOf(packet, id);
        const JobValues b = ValuesOf(fast, id);
        Add(out, name, "cct_mean_us", a.cct, b.cct, &Mean);
        Add(out, name, "iteration_mean_us", a.iteration, b.iteration, &Mean);
        Add(out, name, "iteration_max_us", a.iteration, b.iteration, &Max);
        Add(out, name, "fct_mean_us", a.fct, b.fct, &Mean);
        Add(out, name, "fct_p99_us", a.fct, b.fct, &P99);
    }
    return out;
}

} // namespace tusk
