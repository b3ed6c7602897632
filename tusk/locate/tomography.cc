#include "locate/tomography.h"

#include <boost/math/distributions/poisson.hpp>

#include <algorithm>
#include <tuple>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>

namespace tusk
{
namespace locate
{

double
Median(std::vector<double> v)
{
    if (v.empty())
    {
        return 0.0;
    }
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + mid, v.end());
    double m = v[mid];
    if (v.size() % 2 == 0)
    {
        m = (m + *std::max_element(v.begin(), v.begin() + mid)) / 2;
    }
    return m;
}

/** max(floor, median + k * 1.4826 * MAD): 1.4826 MAD estimates sigma for normal noise. */
double
RobustThreshold(const std::vector<double>& v, double floor, double k)
{
    const double med = Median(v);
    std::vector<double> dev(v.size());
    for (size_t i = 0; i < v.size(); ++i)
    {
        dev[i] = std::abs(v[i] - med);
    }
    return std::max(floor, med + k * 1.4826 * Median(dev));
}

namespace
{

/** Share of the flow's packets on each directed link it crossed: (link, share), link-sorted. */
std::vector<std::pair<uint32_t, double>>
LinkShares(const FlowObservation& f)
{
    std::map<uint32_t, double> m;
    const double total = f.PathPackets();
    for (const auto& p : f.paths)
    {
        // A path that visits a link twice (it cannot in a shortest-path fabric) counts once.
        std::vector<uint32_t> hops = p.hops;
        std::sort(hops.begin(), hops.end());
        hops.erase(std::unique(hops.begin(), hops.end()), hops.end());
        for (uint32_t l : hops)
        {
            m[l] += p.packets / total;
        }
    }
    return {m.begin(), m.end()};
}

/**
 * Number of flows (packet-share weighted) active on each directed link as a step function of
 * time: times[k] with value[k] on [times[k], times[k+1]).
 */
struct StepFunction
{
    std::vector<double> times;
    std::vector<double> values;

    double At(double t) const
    {
        auto it = std::upper_bound(times.begin(), times.end(), t);
        if (it == times.begin())
        {
            return 0.0;
        }
        return values[static_cast<size_t>(it - times.begin()) - 1];
    }
};

/** The part of a flow's ideal FCT that is its bytes at the nominal rate, µs (at most the
 *  ideal; the whole ideal when the rate is unknown). */
double
TransferUs(const Observations& obs, const FlowObservation& f)
{
    if (!(obs.nominalRateBps > 0))
    {
        return f.idealUs;
    }
    return std::min(f.idealUs, 8.0 * static_cast<double>(f.bytes) / obs.nominalRateBps * 1e6);
}

} // namespace

const char*
MethodName(Method m)
{
    switch (m)
    {
    case Method::Bayes:
        return "bayes";
    case Method::Nnls:
        return "nnls";
    case Method::Lasso:
        return "lasso";
    }
    return "?";
}

Method
ParseMethod(const std::string& name)
{
    for (Method m : {Method::Bayes, Method::Nnls, Method::Lasso})
    {
        if (name == MethodName(m))
        {
            return m;
        }
    }
    throw std::invalid_argument("unknown method \"" + name + "\"; expected bayes, nnls or lasso");
}

std::string
Suspect::Reason() const
{
    const bool slow = Has(namedFor, NamedFor::Slow);
    const bool lossy = Has(namedFor, NamedFor::Lossy);
    return slow && lossy ? "slow+lossy" : slow ? "slow" : lossy ? "lossy" : "";
}

bool
Suspect::NamedForLosses() const
{
    return Has(namedFor, NamedFor::Lossy);
}

std::string
Suspect::Kind() const
{
    if (namedFor != NamedFor::None)
    {
        return Reason();
    }
    const bool s = 2 * slowFlows >= flows && slowFlows > 0;
    const bool l = 2 * lossyFlows >= flows && lossyFlows > 0;
    if (s && l)
    {
        return "slow+lossy";
    }
    if (s || l)
    {
        return s ? "slow" : "lossy";
    }
    if (slowFlows == 0 && lossyFlows == 0)
    {
        return "-";
    }
    return slowFlows >= lossyFlows ? "slow" : "lossy";
}

FlowSignals
ComputeSignals(const Observations& obs, const TomographyOptions& o)
{
    const size_t nf = obs.flows.size();
    const size_t nl = obs.links.Links().size();
    FlowSignals s;
    s.slowdown.resize(nf);
    s.baseline.assign(nf, 1.0);
    s.excess.resize(nf);
    s.loss.resize(nf);
    s.lost.resize(nf);
    s.packets.resize(nf);
    s.slow.assign(nf, 0);
    s.lossy.assign(nf, 0);

    // Active intervals and shares.
    std::vector<double> begin(nf), end(nf);
    std::vector<std::vector<std::pair<uint32_t, double>>> shares(nf);
    std::vector<std::vector<std::pair<double, double>>> events(nl); // (time, +-share)
    for (size_t i = 0; i < nf; ++i)
    {
        const FlowObservation& f = obs.flows[i];
        begin[i] = f.startUs;
        const double horizon =
            f.run < obs.runHorizonUs.size() ? obs.runHorizonUs[f.run] : obs.horizonUs;
        end[i] = f.finished ? f.finishUs : std::max(horizon, f.startUs);
        s.slowdown[i] = std::max(end[i] - begin[i], 0.0) / f.idealUs;
        shares[i] = LinkShares(f);
        if (end[i] > begin[i])
        {
            for (const auto& [l, w] : shares[i])
            {
                events[l].emplace_back(begin[i], w);
                events[l].emplace_back(end[i], -w);
            }
        }
    }
    std::vector<StepFunction> load(nl);
    for (size_t l = 0; l < nl; ++l)
    {
        auto& ev = events[l];
        std::sort(ev.begin(), ev.end());
        double v = 0.0;
        for (size_t k = 0; k < ev.size();)
        {
            const double t = ev[k].first;
            for (; k < ev.size() && ev[k].first == t; ++k)
            {
                v += ev[k].second;
            }
            load[l].times.push_back(t);
            load[l].values.push_back(std::max(v, 0.0));
        }
    }

    // Load-explained slowdown: the harmonic mean over the flow's lifetime of the largest
    // number of flows sharing one of its links (at least 1).
    std::vector<double> cuts;
    for (size_t i = 0; i < nf; ++i)
    {
        const double a = begin[i], b = end[i];
        if (!(b > a))
        {
            continue;
        }
        cuts.assign({a, b});
        for (const auto& [l, w] : shares[i])
        {
            const auto& t = load[l].times;
            auto lo = std::upper_bound(t.begin(), t.end(), a);
            auto hi = std::lower_bound(t.begin(), t.end(), b);
            cuts.insert(cuts.end(), lo, hi);
        }
        std::sort(cuts.begin(), cuts.end());
        cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
        double inv = 0.0;
        for (size_t k = 0; k + 1 < cuts.size(); ++k)
        {
            double n = 1.0;
            for (const auto& [l, w] : shares[i])
            {
                n = std::max(n, load[l].At(cuts[k]));
            }
            inv += (cuts[k + 1] - cuts[k]) / n;
        }
        s.baseline[i] = inv > 0 ? (b - a) / inv : 1.0;
    }
    // Sharing slows only the transfer, not the path's latency: of the ideal FCT, the part
    // that is the flow's bytes at the nominal rate is stretched by the sharing, the rest
    // (propagation, one packet's store-and-forward per hop) is not. So the load-explained
    // FCT is latency + transfer x sharing, and the baseline slowdown that over the ideal.
    // Without a nominal rate the whole ideal FCT counts as transfer (an upper bound).
    for (size_t i = 0; i < nf; ++i)
    {
        const double transfer = TransferUs(obs, obs.flows[i]);
        const double latency = obs.flows[i].idealUs - transfer;
        s.baseline[i] = (latency + transfer * s.baseline[i]) / obs.flows[i].idealUs;
    }

    const double mtu = obs.mtuBytes > 0 ? obs.mtuBytes : o.defaultMtuBytes;
    for (size_t i = 0; i < nf; ++i)
    {
        const FlowObservation& f = obs.flows[i];
        s.excess[i] = std::max(0.0, std::log(std::max(s.slowdown[i], 1e-12) / s.baseline[i]));
        // Resends that were not needed are not losses: those whose duplicate arrived
        // (spurious) and those whose original was still on its way when the run ended (a
        // late original overtaken on a slow path: in flight, not lost).
        const uint64_t needless = f.spuriousRetx + f.inFlightPackets;
        const double lost =
            f.retxPackets > needless ? static_cast<double>(f.retxPackets - needless) : 0.0;
        s.packets[i] = f.pathCounts ? f.PathPackets()
                                    : std::ceil(static_cast<double>(f.bytes) / mtu) +
                                          static_cast<double>(f.retxPackets);
        s.packets[i] = std::max(s.packets[i], 1.0);
        s.loss[i] = std::min(lost / s.packets[i], 0.999);
        s.lost[i] = lost;
    }
    s.excessThreshold = RobustThreshold(s.excess, std::log(std::max(o.slowFactor, 1.0)), o.madK);
    s.lossThreshold = RobustThreshold(s.loss, o.lossFloor, o.madK);
    for (size_t i = 0; i < nf; ++i)
    {
        s.slow[i] = s.excess[i] > s.excessThreshold || !obs.flows[i].finished;
        s.lossy[i] = s.loss[i] > s.lossThreshold;
        s.slowCount += s.slow[i];
        s.lossyCount += s.lossy[i];
    }
    return s;
}

Incidence
BuildIncidence(const Observations& obs)
{
    const size_t nl = obs.links.Links().size();
    std::vector<std::vector<std::pair<uint32_t, double>>> col(nl); // (flow, share), flow-sorted
    for (uint32_t i = 0; i < obs.flows.size(); ++i)
    {
        for (const auto& [l, w] : LinkShares(obs.flows[i]))
        {
            col[l].emplace_back(i, w);
        }
    }
    Incidence inc;
    std::map<std::vector<uint32_t>, uint32_t> classOf;
    std::vector<std::vector<double>> shareSum;
    std::vector<std::vector<uint32_t>> support;
    for (uint32_t l = 0; l < nl; ++l)
    {
        if (col[l].empty())
        {
            ++inc.unusedLinks;
            inc.unused.push_back(l);
            continue;
        }
        std::vector<uint32_t> key;
        for (const auto& e : col[l])
        {
            key.push_back(e.first);
        }
        auto [it, fresh] = classOf.emplace(key, static_cast<uint32_t>(inc.classes.size()));
        if (fresh)
        {
            inc.classes.emplace_back();
            shareSum.emplace_back(key.size(), 0.0);
            support.push_back(key);
        }
        const uint32_t c = it->second;
        inc.classes[c].push_back(l);
        for (size_t k = 0; k < col[l].size(); ++k)
        {
            shareSum[c][k] += col[l][k].second;
        }
    }
    std::vector<Eigen::Triplet<double>> ts, tc;
    for (uint32_t c = 0; c < inc.classes.size(); ++c)
    {
        const double members = static_cast<double>(inc.classes[c].size());
        for (size_t k = 0; k < support[c].size(); ++k)
        {
            ts.emplace_back(support[c][k], c, shareSum[c][k] / members);
            tc.emplace_back(support[c][k], c, 1.0);
        }
    }
    const auto rows = static_cast<Eigen::Index>(obs.flows.size());
    const auto cols = static_cast<Eigen::Index>(inc.classes.size());
    inc.share.resize(rows, cols);
    inc.share.setFromTriplets(ts.begin(), ts.end());
    inc.crosses.resize(rows, cols);
    inc.crosses.setFromTriplets(tc.begin(), tc.end());
    inc.share.makeCompressed();
    inc.crosses.makeCompressed();
    return inc;
}

void
NnlsCoordinateDescent(const Eigen::SparseMatrix<double>& a,
                      const std::vector<double>& y,
                      const std::vector<double>& m,
                      const std::vector<double>& lambda,
                      std::vector<double>& x,
                      double tol,
                      uint32_t maxSweeps)
{
    using It = Eigen::SparseMatrix<double>::InnerIterator;
    const Eigen::Index nc = a.cols();
    x.resize(static_cast<size_t>(nc), 0.0);
    auto mult = [&](Eigen::Index f) { return m.empty() ? 1.0 : m[static_cast<size_t>(f)]; };
    // Residual r = y - A x, and each column's weighted squared norm.
    std::vector<double> r(y);
    std::vector<double> h(static_cast<size_t>(nc), 0.0);
    for (Eigen::Index c = 0; c < nc; ++c)
    {
        for (It it(a, c); it; ++it)
        {
            r[static_cast<size_t>(it.row())] -= it.value() * x[static_cast<size_t>(c)];
            h[static_cast<size_t>(c)] += mult(it.row()) * it.value() * it.value();
        }
    }
    for (uint32_t sweep = 0; sweep < maxSweeps; ++sweep)
    {
        double moved = 0.0;
        for (Eigen::Index c = 0; c < nc; ++c)
        {
            const size_t cu = static_cast<size_t>(c);
            if (h[cu] <= 0)
            {
                x[cu] = 0.0;
                continue;
            }
            double g = 0.0;
            for (It it(a, c); it; ++it)
            {
                g += mult(it.row()) * it.value() * r[static_cast<size_t>(it.row())];
            }
            const double pen = lambda.empty() ? 0.0 : lambda[cu];
            const double next = std::isinf(pen) ? 0.0 : std::max(0.0, x[cu] + (g - pen) / h[cu]);
            const double d = next - x[cu];
            if (d != 0.0)
            {
                for (It it(a, c); it; ++it)
                {
                    r[static_cast<size_t>(it.row())] -= it.value() * d;
                }
                x[cu] = next;
                moved = std::max(moved, std::abs(d) * std::sqrt(h[cu]));
            }
        }
        if (moved <= tol)
        {
            break;
        }
    }
}

GroupNnlsFit
NnlsGroupIntercepts(const Eigen::SparseMatrix<double>& a,
                    const std::vector<double>& y,
                    const std::vector<double>& m,
                    const std::vector<uint32_t>& group,
                    uint32_t groups,
                    const std::vector<double>& lambda,
                    double tol,
                    uint32_t maxSweeps)
{
    using It = Eigen::SparseMatrix<double>::InnerIterator;
    const size_t nr = static_cast<size_t>(a.rows());
    const size_t nc = static_cast<size_t>(a.cols());
    if (y.size() != nr || group.size() != nr || (!m.empty() && m.size() != nr))
    {
        throw std::invalid_argument("NnlsGroupIntercepts: y, m and group need one entry per row");
    }
    auto mult = [&](size_t f) { return m.empty() ? 1.0 : m[f]; };
    GroupNnlsFit fit;
    fit.x.assign(nc, 0.0);
    fit.contrast.assign(nc, 0.0);
    fit.identifiable.assign(nc, false);
    // Group weights, and per column the groups it touches with the column's weighted mean in
    // each (abar_gc), so that the within-group (centred) column is A_fc - abar_{g(f)c}.
    std::vector<double> wg(groups, 0.0);
    for (size_t f = 0; f < nr; ++f)
    {
        if (group[f] >= groups)
        {
            throw std::invalid_argument("NnlsGroupIntercepts: a row's group is out of range");
        }
        wg[group[f]] += mult(f);
    }
    std::vector<std::vector<std::pair<uint32_t, double>>> touches(nc);
    std::map<uint32_t, double> sums;
    for (size_t c = 0; c < nc; ++c)
    {
        sums.clear();
        double norm = 0.0;
        for (It it(a, static_cast<Eigen::Index>(c)); it; ++it)
        {
            const size_t f = static_cast<size_t>(it.row());
            const double mf = mult(f);
            if (mf <= 0)
            {
                continue;
            }
            sums[group[f]] += mf * it.value();
            norm += mf * it.value() * it.value();
        }
        double within = norm;
        for (const auto& [g, s] : sums)
        {
            const double abar = s / wg[g];
            touches[c].emplace_back(g, abar);
            within -= wg[g] * abar * abar;
        }
        fit.contrast[c] = std::max(0.0, within);
        fit.identifiable[c] = norm > 0 && within > 1e-9 * norm;
    }
    // Residual r = y - A x (x = 0) and its weighted mean per group, R_g: the within-group
    // residual of row f is r_f - R_{g(f)}.
    std::vector<double> r(y);
    std::vector<double> rg(groups, 0.0);
    for (size_t f = 0; f < nr; ++f)
    {
        if (mult(f) > 0)
        {
            rg[group[f]] += mult(f) * r[f] / wg[group[f]];
        }
    }
    for (uint32_t sweep = 0; sweep < maxSweeps; ++sweep)
    {
        double moved = 0.0;
        for (size_t c = 0; c < nc; ++c)
        {
            if (!fit.identifiable[c])
            {
                continue;
            }
            // d/dx_c of the profiled objective: -sum_f m_f A_fc (r_f - R_g(f)) (the centring
            // term vanishes: the within-group residuals sum to 0 over each group).
            double g = 0.0;
            for (It it(a, static_cast<Eigen::Index>(c)); it; ++it)
            {
                const size_t f = static_cast<size_t>(it.row());
                g += mult(f) * it.value() * (r[f] - rg[group[f]]);
            }
            const double pen = lambda.empty() ? 0.0 : lambda[c];
            const double h = fit.contrast[c];
            const double next = std::isinf(pen) ? 0.0 : std::max(0.0, fit.x[c] + (g - pen) / h);
            const double d = next - fit.x[c];
            if (d == 0.0)
            {
                continue;
            }
            for (It it(a, static_cast<Eigen::Index>(c)); it; ++it)
            {
                r[static_cast<size_t>(it.row())] -= it.value() * d;
            }
            for (const auto& [gi, abar] : touches[c])
            {
                rg[gi] -= abar * d;
            }
            fit.x[c] = next;
            moved = std::max(moved, std::abs(d) * std::sqrt(h));
        }
        if (moved <= tol)
        {
            break;
        }
    }
    fit.intercept = rg;
    return fit;
}

namespace
{

struct Posterior
{
    std::vector<double> bad; //!< P(class is bad | observations)
    double alpha = 0;        //!< posterior mean of P(flow bad | path good)
    double beta = 0;         //!< posterior mean of P(flow good | path crosses a bad class)
};

/** Bayes: Gibbs sampling of the binary tomography. */
Posterior
BayesPosterior(const Incidence& inc, const std::vector<char>& bad, const TomographyOptions& o)
{
    using It = Eigen::SparseMatrix<double>::InnerIterator;
    const auto& a = inc.crosses;
    const size_t nc = static_cast<size_t>(a.cols());
    const size_t nf = static_cast<size_t>(a.rows());
    const double prior = o.prior > 0 ? o.prior : 1.0 / std::max<size_t>(nc, 2);
    const double priorLogit = std::log(prior / (1 - prior));
    // Beta priors: false alarms alpha ~ Beta(1, 99) (mean 1 %), misses beta ~ Beta(1, 9).
    const double a0 = 1, b0 = 99, c0 = 1, d0 = 9;
    std::mt19937_64 rng(o.seed);
    std::uniform_real_distribution<double> unif(0.0, 1.0);
    auto drawBeta = [&](double p, double q) {
        std::gamma_distribution<double> gp(p, 1.0), gq(q, 1.0);
        const double x = gp(rng), y = gq(rng);
        return x / (x + y);
    };
    std::vector<char> z(nc, 0);
    std::vector<uint32_t> badOn(nf, 0); // bad classes on each flow's path
    double alpha = a0 / (a0 + b0), beta = c0 / (c0 + d0);
    std::vector<double> post(nc, 0.0);
    double alphaSum = 0, betaSum = 0;
    std::vector<uint32_t> order(nc);
    std::iota(order.begin(), order.end(), 0);
    const uint32_t total = o.burnIn + o.sweeps;
    for (uint32_t sweep = 0; sweep < total; ++sweep)
    {
        std::shuffle(order.begin(), order.end(), rng);
        const double lSlowBad = std::log(1 - beta), lFastBad = std::log(beta);
        const double lSlowOk = std::log(alpha), lFastOk = std::log(1 - alpha);
        for (uint32_t c : order)
        {
            double logit = priorLogit;
            for (It it(a, c); it; ++it)
            {
                const size_t f = static_cast<size_t>(it.row());
                if (badOn[f] - z[c] == 0)
                {
                    logit += bad[f] ? lSlowBad - lSlowOk : lFastBad - lFastOk;
                }
            }
            const double p = 1.0 / (1.0 + std::exp(-logit));
            if (sweep >= o.burnIn)
            {
                post[c] += p;
            }
            const char next = unif(rng) < p;
            if (next != z[c])
            {
                for (It it(a, c); it; ++it)
                {
                    badOn[static_cast<size_t>(it.row())] += next ? 1 : -1;
                }
                z[c] = next;
            }
        }
        double s0 = 0, f0 = 0, s1 = 0, f1 = 0;
        for (size_t f = 0; f < nf; ++f)
        {
            (badOn[f] ? (bad[f] ? s1 : f1) : (bad[f] ? s0 : f0)) += 1;
        }
        alpha = drawBeta(a0 + s0, b0 + f0);
        beta = drawBeta(c0 + f1, d0 + s1);
        if (sweep >= o.burnIn)
        {
            alphaSum += alpha;
            betaSum += beta;
        }
    }
    const double n = std::max<uint32_t>(o.sweeps, 1);
    for (auto& p : post)
    {
        p /= n;
    }
    return {post, alphaSum / n, betaSum / n};
}

/** ln P(X >= k), X ~ Poisson(lambda), k >= 1, lambda > 0: boost's tail, or where it underflows
 *  the Chernoff bound -(k ln(k / lambda) - k + lambda) (an upper bound, monotone in k). */
double
LogPoissonTail(double k, double lambda)
{
    const boost::math::poisson_distribution<double> d(lambda);
    const double p = boost::math::cdf(boost::math::complement(d, k - 1));
    if (p > 1e-300)
    {
        return std::log(p);
    }
    return -(k * std::log(k / lambda) - k + lambda);
}

/** NNLS or LASSO of both signals; returns (delay, loss) estimates per class. */
void
FitLinear(const Incidence& inc,
          const std::vector<double>& yDelay,
          const std::vector<double>& yLoss,
          const std::vector<double>& mult,
          const FlowSignals& s,
          const TomographyOptions& o,
          std::vector<double>& xDelay,
          std::vector<double>& xLoss)
{
    const size_t nc = inc.classes.size();
    auto fit = [&](const Eigen::SparseMatrix<double>& a, const std::vector<double>& y,
                   double threshold, std::vector<double>& x) {
        x.assign(nc, 0.0);
        if (o.method == Method::Nnls)
        {
            NnlsCoordinateDescent(a, y, mult, {}, x);
            return;
        }
        // Reweighted L1: the penalty of a column falls as its estimate grows.
        const double lambda = o.lassoFlows * threshold;
        std::vector<double> pen(nc, lambda);
        for (int round = 0; round < 4; ++round)
        {
            NnlsCoordinateDescent(a, y, mult, pen, x);
            for (size_t c = 0; c < nc; ++c)
            {
                pen[c] = lambda / (1.0 + x[c] / threshold);
            }
        }
        // Debias: refit without penalty on the support.
        for (size_t c = 0; c < nc; ++c)
        {
            pen[c] = x[c] > 0 ? 0.0 : std::numeric_limits<double>::infinity();
        }
        NnlsCoordinateDescent(a, y, mult, pen, x);
    };
    fit(inc.crosses, yDelay, s.excessThreshold, xDelay);
    fit(inc.share, yLoss, -std::log1p(-s.lossThreshold), xLoss);
}

} // namespace

std::vector<ClassLoss>
TestClassLosses(const Incidence& inc, const FlowSignals& s, const TomographyOptions& o)
{
    using It = Eigen::SparseMatrix<double>::InnerIterator;
    const size_t nc = inc.classes.size();
    const size_t nf = s.lost.size();
    std::vector<ClassLoss> out(nc);
    std::vector<double> residual(nf);
    double packetsAll = 0;
    for (size_t f = 0; f < nf; ++f)
    {
        residual[f] = std::floor(s.lost[f] + 0.5); // whole frames
        packetsAll += s.packets[f];
    }
    const double cut = o.lossAlpha / static_cast<double>(std::max<size_t>(nc, 1));
    const double logCut = std::log(cut);
    std::vector<char> taken(nc, 0);
    double lostAll = 0;
    // Class c against the lost frames not yet explained.
    auto evaluate = [&](size_t c) {
        ClassLoss v;
        for (It it(inc.share, static_cast<Eigen::Index>(c)); it; ++it)
        {
            const auto f = static_cast<size_t>(it.row());
            v.lost += residual[f];
            v.packets += s.packets[f];
            v.exposure += s.packets[f] * it.value();
            v.lossyFlows += residual[f] >= 0.5;
        }
        // The other flows' rate, with at least half a lost frame: one run cannot show a
        // fabric to be lossless, and a rate of 0 would make any lost frame decisive.
        const double rest = packetsAll - v.packets;
        const double q = rest > 0 ? std::max(lostAll - v.lost, 0.5) / rest : 1.0;
        v.expected = v.packets * std::min(q, 1.0);
        if (v.lost >= 0.5 && v.expected > 0)
        {
            v.logP = LogPoissonTail(v.lost, v.expected);
            v.pValue = std::exp(v.logP);
        }
        return v;
    };
    for (uint32_t round = 0;; ++round)
    {
        lostAll = 0;
        for (double r : residual)
        {
            lostAll += r;
        }
        if (lostAll < 0.5)
        {
            break;
        }
        int best = -1;
        ClassLoss bestValues;
        for (size_t c = 0; c < nc; ++c)
        {
            if (taken[c])
            {
                continue;
            }
            ClassLoss v = evaluate(c);
            if (round == 0)
            {
                out[c].pValueAlone = v.pValue;
            }
            const double rate = v.exposure > 0 ? v.lost / v.exposure : 0.0;
            const bool candidate = v.lossyFlows >= std::max<uint32_t>(o.minBadFlows, 1) &&
                                   v.exposure > 0 && rate >= o.lossFloor && v.logP <= logCut;
            if (!candidate)
            {
                continue;
            }
            const double bestRate = best < 0 ? 0.0 : bestValues.lost / bestValues.exposure;
            if (best < 0 || v.logP < bestValues.logP ||
                (v.logP == bestValues.logP && rate > bestRate))
            {
                best = static_cast<int>(c);
                bestValues = v;
            }
        }
        if (best < 0)
        {
            break;
        }
        const auto b = static_cast<size_t>(best);
        bestValues.named = true;
        bestValues.round = round;
        bestValues.pValueAlone = out[b].pValueAlone;
        out[b] = bestValues;
        taken[b] = 1;
        for (It it(inc.share, static_cast<Eigen::Index>(b)); it; ++it)
        {
            residual[static_cast<size_t>(it.row())] = 0.0;
        }
    }
    // The classes not named: against what the named ones left unexplained.
    lostAll = 0;
    for (double r : residual)
    {
        lostAll += r;
    }
    for (size_t c = 0; c < nc; ++c)
    {
        if (!taken[c])
        {
            const double alone = out[c].pValueAlone;
            out[c] = evaluate(c);
            out[c].pValueAlone = alone;
        }
    }
    return out;
}

LocateResult
Locate(const Observations& obs, const TomographyOptions& o)
{
    using It = Eigen::SparseMatrix<double>::InnerIterator;
    LocateResult res;
    res.signals = ComputeSignals(obs, o);
    res.incidence = BuildIncidence(obs);
    const FlowSignals& s = res.signals;
    const Incidence& inc = res.incidence;
    const size_t nc = inc.classes.size();
    const size_t nf = obs.flows.size();

    std::vector<double> conf(nc, 0.0), score(nc, 0.0);
    // The flows the fit takes as bad: slow ones, and with per-flow loss evidence lossy ones.
    const bool classLoss = o.classLoss && o.method == Method::Bayes;
    std::vector<char> bad(nf, 0);
    for (size_t f = 0; f < nf; ++f)
    {
        bad[f] = s.slow[f] || (!classLoss && s.lossy[f]);
    }
    std::vector<char> bayesNamed(nc, 0);
    if (o.method == Method::Bayes)
    {
        const Posterior post = BayesPosterior(inc, bad, o);
        conf = post.bad;
        // Score: the log Bayes factor of "this class is bad" from its own flows, at the
        // posterior-mean alpha and beta: each slow or lossy flow adds log((1 - beta) / alpha),
        // each good one log(beta / (1 - alpha)).
        const double slowBad = std::log((1 - post.beta) / post.alpha);
        const double fastBad = std::log(post.beta / (1 - post.alpha));
        for (size_t c = 0; c < nc; ++c)
        {
            for (It it(inc.crosses, static_cast<Eigen::Index>(c)); it; ++it)
            {
                const size_t f = static_cast<size_t>(it.row());
                score[c] += bad[f] ? slowBad : fastBad;
            }
        }
        if (classLoss)
        {
            // Confidence: 1 - the class's Bonferroni-corrected loss p-value (the one it was
            // named with, or against the losses the named classes left) when that is the
            // larger; score -ln p when that is the larger (both log evidence).
            res.classLoss = TestClassLosses(inc, s, o);
            for (size_t c = 0; c < nc; ++c)
            {
                const ClassLoss& cl = res.classLoss[c];
                uint32_t badFlows = 0;
                for (It it(inc.crosses, static_cast<Eigen::Index>(c)); it; ++it)
                {
                    badFlows += bad[static_cast<size_t>(it.row())];
                }
                bayesNamed[c] = conf[c] >= o.minConfidence && badFlows >= o.minBadFlows;
                conf[c] =
                    std::max(conf[c], 1.0 - std::min(1.0, cl.pValue * static_cast<double>(nc)));
                if (cl.logP < 0)
                {
                    score[c] = std::max(score[c], -cl.logP);
                }
            }
        }
    }
    else
    {
        std::vector<double> yLoss(nf);
        for (size_t f = 0; f < nf; ++f)
        {
            yLoss[f] = -std::log1p(-s.loss[f]);
        }
        const double tLoss = -std::log1p(-s.lossThreshold);
        auto strength = [&](const std::vector<double>& xd, const std::vector<double>& xl,
                            size_t c) {
            return std::max(xd[c] / s.excessThreshold, xl[c] / tLoss);
        };
        std::vector<double> xd, xl;
        FitLinear(inc, s.excess, yLoss, {}, s, o, xd, xl);
        for (size_t c = 0; c < nc; ++c)
        {
            score[c] = strength(xd, xl, c);
        }
        std::mt19937_64 rng(o.seed);
        std::uniform_int_distribution<size_t> pick(0, nf ? nf - 1 : 0);
        std::vector<double> mult(nf);
        for (uint32_t b = 0; b < o.bootstrap; ++b)
        {
            std::fill(mult.begin(), mult.end(), 0.0);
            for (size_t k = 0; k < nf; ++k)
            {
                mult[pick(rng)] += 1.0;
            }
            std::vector<double> bd, bl;
            FitLinear(inc, s.excess, yLoss, mult, s, o, bd, bl);
            for (size_t c = 0; c < nc; ++c)
            {
                conf[c] += strength(bd, bl, c) >= 1.0;
            }
        }
        for (auto& c : conf)
        {
            c /= std::max<uint32_t>(o.bootstrap, 1);
        }
    }

    std::vector<uint32_t> order(nc);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (conf[a] != conf[b])
        {
            return conf[a] > conf[b];
        }
        return score[a] > score[b];
    });
    for (uint32_t c : order)
    {
        Suspect sp;
        sp.cls = c;
        sp.links = inc.classes[c];
        sp.score = score[c];
        sp.confidence = conf[c];
        uint32_t badFlows = 0;
        for (It it(inc.crosses, static_cast<Eigen::Index>(c)); it; ++it)
        {
            const size_t f = static_cast<size_t>(it.row());
            badFlows += s.slow[f] || s.lossy[f];
        }
        if (classLoss)
        {
            const bool lossNamed = res.classLoss[c].named && conf[c] >= o.minConfidence;
            sp.named = bayesNamed[c] || lossNamed;
            if (lossNamed)
            {
                sp.namedFor = bayesNamed[c] ? NamedFor::Slow | NamedFor::Lossy : NamedFor::Lossy;
            }
        }
        else
        {
            sp.named = conf[c] >= o.minConfidence && badFlows >= o.minBadFlows &&
                       (o.method == Method::Bayes || score[c] >= 1.0);
        }
        res.ranking.push_back(std::move(sp));
    }
    // Named suspects form the prefix: confidence decides the order, and a suspect below the
    // method's own threshold is moved behind the named ones.
    std::stable_partition(res.ranking.begin(), res.ranking.end(),
                          [](const Suspect& x) { return x.named; });
    std::vector<char> named(nc, 0);
    for (const auto& sp : res.ranking)
    {
        if (sp.named)
        {
            named[sp.cls] = 1;
            ++res.named;
        }
    }

    // Evidence, and estimates from the flows that cross no other named suspect.
    std::vector<uint32_t> namedOn(nf, 0);
    for (size_t c = 0; c < nc; ++c)
    {
        if (named[c])
        {
            for (It it(inc.crosses, static_cast<Eigen::Index>(c)); it; ++it)
            {
                ++namedOn[static_cast<size_t>(it.row())];
            }
        }
    }
    for (auto& sp : res.ranking)
    {
        std::vector<double> factors;
        double lost = 0, crossing = 0;
        for (It it(inc.share, static_cast<Eigen::Index>(sp.cls)); it; ++it)
        {
            const size_t f = static_cast<size_t>(it.row());
            ++sp.flows;
            sp.slowFlows += s.slow[f];
            sp.lossyFlows += s.lossy[f];
            if (namedOn[f] > static_cast<uint32_t>(named[sp.cls]))
            {
                continue; // another named suspect is on this flow's path
            }
            if (s.slow[f])
            {
                // The transfer took this many times longer than sharing explains: latency
                // apart, as the rate is what the fault divides.
                const FlowObservation& fo = obs.flows[f];
                const double latency = fo.idealUs - TransferUs(obs, fo);
                const double took = fo.finishUs - fo.startUs - latency;
                const double explained = s.baseline[f] * fo.idealUs - latency;
                factors.push_back(fo.finished && took > 0 && explained > 0
                                      ? took / explained
                                      : std::exp(s.excess[f]));
            }
            lost += s.loss[f] * s.packets[f];
            crossing += it.value() * s.packets[f];
        }
        sp.rateFactor = factors.empty() ? 1.0 : 1.0 / Median(factors);
        sp.lossRate = crossing > 0 ? std::min(1.0, lost / crossing) : 0.0;
    }
    // Ties (since 2026-12-06): a named class and another crossed by the very same slow or lossy
    // flows, differing only in flows that were neither. Which of the two slowed them, those
    // flows cannot say; the fit's score put one first (usually, not always, the one with
    // fewer healthy flows: a switch-sprayed class with more flows was ranked first at 1,024 hosts).
    std::map<std::vector<Eigen::Index>, std::vector<size_t>> byBad; // bad flows -> ranks
    for (size_t k = 0; k < res.ranking.size(); ++k)
    {
        std::vector<Eigen::Index> bad;
        for (It it(inc.crosses, static_cast<Eigen::Index>(res.ranking[k].cls)); it; ++it)
        {
            const auto f = static_cast<size_t>(it.row());
            if (s.slow[f] || s.lossy[f])
            {
                bad.push_back(it.row());
            }
        }
        if (bad.size() >= std::max<uint32_t>(o.minBadFlows, 1))
        {
            byBad[bad].push_back(k);
        }
    }
    for (const auto& [bad, ranks] : byBad)
    {
        if (ranks.size() < 2 || !res.ranking[ranks.front()].named)
        {
            continue;
        }
        for (size_t j = 1; j < ranks.size(); ++j)
        {
            res.ties.push_back(FlowTie{ranks.front(), ranks[j], static_cast<uint32_t>(bad.size())});
        }
    }
    std::sort(res.ties.begin(), res.ties.end(), [](const FlowTie& a, const FlowTie& b) {
        return std::tie(a.named, a.tied) < std::tie(b.named, b.tied);
    });
    return res;
}

} // namespace locate
} // namespace tusk
