/*
 * tusk: SteadyJumper (steady-jumper.h).
 */
#include "run/steady-jumper.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <limits>
#include <cmath>

namespace tusk
{

SteadyJumper::SteadyJumper(const SteadyParams& p)
    : m_p(p)
{
    m_p.maxJumpSpans = std::max<uint32_t>(1, p.maxJumpSpans);
    m_stats.active = true;
    m_stats.maxSpans = m_p.maxJumpSpans;
}

std::optional<SteadyJumper::Jump>
SteadyJumper::Add(SteadyWindow w, uint64_t capPs)
{
    m_last.push_back(std::move(w));
    while (m_last.size() > m_p.windows)
    {
        m_last.pop_front();
    }
    ++m_sinceJump;
    // Each active transfer's history of whole windows: a transfer seen for the first time
    // started in this window (partial); one no longer active leaves its history.
    std::map<uint32_t, History> history;
    for (const auto& f : m_last.back().flows)
    {
        const auto it = m_history.find(f.id);
        History h;
        if (it != m_history.end())
        {
            h = std::move(it->second);
            h.bytes.push_back(static_cast<double>(f.windowBytes));
            while (h.bytes.size() > kHistoryWindowsPerK * m_p.windows)
            {
                h.bytes.pop_front();
            }
        }
        h.remaining = f.remainingBytes;
        history.emplace(f.id, std::move(h));
    }
    m_history = std::move(history);
    if (!m_jumpRates.empty() && m_sinceJump == m_p.windows)
    {
        Recheck();
    }
    const SteadyReason r = SteadyJudge::Judge(m_last, m_p);
    if (r != SteadyReason::STEADY)
    {
        ++m_stats.notSteady[SteadyReasonName(r)];
        m_steadyRun = 0;
        m_stretchSkippedWindows = 0;
        return std::nullopt;
    }
    ++m_steadyRun;
    if (m_sinceJump < m_p.windows)
    {
        return std::nullopt; // the stretch after a jump has not yet lasted K windows
    }
    const uint64_t nowPs = m_last.back().endPs;
    const uint64_t spanPs = m_p.windowPs * m_p.windows;
    uint64_t horizonPs = SteadyJudge::HorizonPs(m_last, m_p);
    horizonPs = capPs > nowPs ? std::min(horizonPs, capPs - nowPs) : 0;
    horizonPs = std::min(horizonPs, static_cast<uint64_t>(m_bound) * spanPs);
    if (horizonPs < m_p.windowPs)
    {
        Refuse("short");
        return std::nullopt;
    }
    Jump j;
    j.spanPs = horizonPs;
    const std::string why = RatesFromHistory(j);
    if (!why.empty())
    {
        Refuse(why);
        return std::nullopt;
    }
    if (j.spanPs < m_p.windowPs)
    {
        Refuse("short");
        return std::nullopt;
    }
    return j;
}

std::string
SteadyJumper::RatesFromHistory(Jump& j) const
{
    j.windows = 0;
    double budget = std::numeric_limits<double>::infinity(); // windows a jump may skip
    for (const auto& f : m_last.back().flows)
    {
        // A transfer that moved in none of the K windows waits behind another on its QP and
        // is credited nothing, or is stalled, which the probe refuses (SteadyProbe::Jump).
        if (BytesOver(m_last, f.id) == 0)
        {
            j.rates.emplace_back(f.id, 0.0);
            continue;
        }
        // Only the windows of the current steady stretch: the K of its first verdict and one
        // more per verdict since (a start's transient and an earlier regime are left out).
        const History& whole = m_history.at(f.id);
        const size_t usable = std::min<size_t>(whole.bytes.size(), m_steadyRun + m_p.windows - 1);
        History h;
        h.remaining = whole.remaining;
        h.bytes.assign(whole.bytes.end() - static_cast<std::ptrdiff_t>(usable), whole.bytes.end());
        const size_t n = h.bytes.size();
        double sum = 0;
        for (const double y : h.bytes)
        {
            sum += y;
        }
        if (n < 4 * m_p.windows || sum * m_p.tolerance < 4.0 * m_p.rateFloorBytes)
        {
            return "history";
        }
        j.rates.emplace_back(f.id, sum / static_cast<double>(n * m_p.windowPs));
        j.windows = j.windows == 0 ? static_cast<uint32_t>(n)
                                   : std::min(j.windows, static_cast<uint32_t>(n));
        budget = std::min(budget, SkipBudgetWindows(h));
    }
    // What the stretch's jumps have skipped counts against the budget.
    const double left = budget - m_stretchSkippedWindows;
    if (left < 1)
    {
        return "trend";
    }
    if (std::isfinite(left))
    {
        j.spanPs = std::min<uint64_t>(j.spanPs, static_cast<uint64_t>(left * m_p.windowPs));
    }
    return "";
}

double
SteadyJumper::SkipBudgetWindows(const History& h) const
{
    const size_t n = h.bytes.size();
    // Least squares of bytes per window on the window's index.
    const double xbar = static_cast<double>(n - 1) / 2;
    double ybar = 0;
    for (const double y : h.bytes)
    {
        ybar += y;
    }
    ybar /= static_cast<double>(n);
    double sxx = 0;
    double sxy = 0;
    for (size_t i = 0; i < n; ++i)
    {
        const double dx = static_cast<double>(i) - xbar;
        sxx += dx * dx;
        sxy += dx * (h.bytes[i] - ybar);
    }
    const double slope = sxy / sxx;
    double sse = 0;
    for (size_t i = 0; i < n; ++i)
    {
        const double r = h.bytes[i] - ybar - slope * (static_cast<double>(i) - xbar);
        sse += r * r;
    }
    const double se = std::sqrt(sse / static_cast<double>(n - 2) / sxx);
    const boost::math::students_t t(static_cast<double>(n - 2));
    const double tcrit = boost::math::quantile(boost::math::complement(t, 0.025));
    // The steepest slope the windows allow at 95 %, bytes per window per window.
    const double steepest = std::abs(slope) + tcrit * se;
    if (steepest <= 0)
    {
        return std::numeric_limits<double>::infinity();
    }
    // Each window a jump skips delays the rest of a climb by a window: at the steepest slope,
    // the skipped windows may delay it by at most the tolerance of the rate.
    return m_p.tolerance * ybar / steepest;
}

void
SteadyJumper::Made(const Jump& jump, uint64_t spanPs, uint64_t packets, uint64_t bytes)
{
    ++m_stats.jumps;
    m_stats.skippedPs += spanPs;
    m_stats.longestPs = std::max(m_stats.longestPs, spanPs);
    m_stats.skippedPackets += packets;
    m_stats.skippedBytes += bytes;
    m_stretchSkippedWindows += static_cast<double>(spanPs) / static_cast<double>(m_p.windowPs);
    m_jumpRates = jump.rates;
    m_sinceJump = 0;
}

void
SteadyJumper::Break()
{
    m_last.clear();
    m_history.clear();
    m_steadyRun = 0;
    m_stretchSkippedWindows = 0;
    if (!m_jumpRates.empty())
    {
        ++m_stats.notRechecked;
        m_jumpRates.clear();
    }
    m_bound = 1;
}

void
SteadyJumper::Refuse(const std::string& reason)
{
    ++m_stats.refused[reason];
}

void
SteadyJumper::Recheck()
{
    const double overPs = static_cast<double>(m_p.windowPs * m_p.windows);
    const auto& now = m_last.back().flows;
    double worst = -1;
    bool off = false;
    for (const auto& [id, before] : m_jumpRates)
    {
        const bool active = std::binary_search(
            now.begin(), now.end(), SteadyWindow::Flow{id, 0, 0},
            [](const SteadyWindow::Flow& a, const SteadyWindow::Flow& b) { return a.id < b.id; });
        // A transfer that started or ended within the K windows is not compared: it was
        // active in all of them only when it is in the oldest and the newest.
        const auto& oldest = m_last.front().flows;
        const bool through =
            active && std::binary_search(oldest.begin(), oldest.end(), SteadyWindow::Flow{id, 0, 0},
                                         [](const SteadyWindow::Flow& a,
                                            const SteadyWindow::Flow& b) { return a.id < b.id; });
        if (!through || before <= 0)
        {
            continue;
        }
        const double after = static_cast<double>(BytesOver(m_last, id)) / overPs;
        const double diff = std::abs(after - before);
        worst = std::max(worst, diff / before);
        // A window's edge cuts at a packet: one MTU of payload per window is allowed whatever
        // the tolerance, as the judgement allows it (SteadyParams::rateFloorBytes).
        const double floor = static_cast<double>(m_p.rateFloorBytes) / m_p.windowPs;
        off = off || diff > std::max(m_p.tolerance * before, floor);
    }
    m_jumpRates.clear();
    if (worst < 0)
    {
        ++m_stats.notRechecked;
        m_bound = 1;
        return;
    }
    ++m_stats.rechecks;
    m_stats.recheckErrorMax = std::max(m_stats.recheckErrorMax, worst);
    if (off)
    {
        ++m_stats.rechecksOff;
        m_bound = 1;
    }
    else
    {
        m_bound = std::min(2 * m_bound, m_p.maxJumpSpans);
    }
}

} // namespace tusk
