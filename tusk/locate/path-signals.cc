#include "locate/path-signals.h"

#include "locate/csv-reader.h"

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/poisson.hpp>

#include <algorithm>
#include <cctype>
#include <functional>
#include <iterator>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <tuple>

namespace tusk
{
namespace locate
{

namespace
{

/** The positive values of v. */
std::vector<double>
Positive(const std::vector<double>& v)
{
    std::vector<double> pos;
    std::copy_if(v.begin(), v.end(), std::back_inserter(pos), [](double x) { return x > 0; });
    return pos;
}

/**
 * The delay above which a class is an outlier: the positive delays of a healthy fabric (its
 * queueing) fall off like an exponential of scale s = median / ln 2, whose largest of n values
 * is about s ln n; a class above s (ln n + ln 100) would be a 1 % event among n healthy ones.
 */
double
ExponentialTailCut(const std::vector<double>& v)
{
    std::vector<double> pos = Positive(v);
    if (pos.empty())
    {
        return 0.0;
    }
    const double scale = Median(pos) / std::log(2.0);
    return scale * (std::log(static_cast<double>(pos.size())) + std::log(100.0));
}

std::string
TierOf(const std::string& name)
{
    return VertexTier(name);
}

/** P(X >= k) for X ~ Poisson(lambda), k rounded to the nearest count (the residual losses of
 *  later rounds are fractional); 0 when lambda = 0 and k > 0. */
double
PoissonTail(double k, double lambda)
{
    const double count = std::floor(k + 0.5);
    if (count <= 0)
    {
        return 1.0; // P(X >= 0); boost refuses a cdf at -1 (k in (0, 0.5) was an internal error)
    }
    if (lambda <= 0)
    {
        return 0.0;
    }
    const boost::math::poisson_distribution<double> d(lambda);
    return boost::math::cdf(boost::math::complement(d, count - 1));
}

/** Whether two of these arrival spans (first, last µs) overlap by at least half of the
 *  shorter one: routes a switch used side by side (per packet), not one after the other. */
bool
AnyPairSideBySide(const std::vector<std::pair<double, double>>& s)
{
    for (size_t i = 0; i < s.size(); ++i)
    {
        for (size_t j = i + 1; j < s.size(); ++j)
        {
            const double overlap =
                std::min(s[i].second, s[j].second) - std::max(s[i].first, s[j].first);
            const double shorter = std::min(s[i].second - s[i].first, s[j].second - s[j].first);
            if (overlap >= 0.5 * shorter && overlap >= 0)
            {
                return true;
            }
        }
    }
    return false;
}

/** Each directed link's class in an Incidence (its index in inc.classes), for the fits that
 *  map a path's links to classes. */
class LinkClasses
{
  public:
    explicit LinkClasses(const Incidence& inc)
        : m_none(inc.classes.size())
    {
        for (size_t c = 0; c < inc.classes.size(); ++c)
        {
            for (uint32_t l : inc.classes[c])
            {
                if (l >= m_of.size())
                {
                    m_of.resize(l + 1, m_none);
                }
                m_of[l] = c;
            }
        }
    }
    /** Link l's class; None() when no class holds it (no path crossed it). */
    size_t Of(uint32_t l) const { return l < m_of.size() ? m_of[l] : m_none; }
    size_t None() const { return m_none; }
    /** Link l's class, which must exist (a path's link): std::out_of_range otherwise. */
    size_t At(uint32_t l) const
    {
        const size_t c = Of(l);
        if (c == m_none)
        {
            throw std::out_of_range("a link in no class");
        }
        return c;
    }

  private:
    size_t m_none;
    std::vector<size_t> m_of;
};

} // namespace

std::vector<LossClass>
FitLossClasses(const Eigen::SparseMatrix<double>& share, const std::vector<double>& lost,
               const std::vector<double>& packets, double lossFloor, uint32_t minLossyPaths,
               double alpha)
{
    using It = Eigen::SparseMatrix<double>::InnerIterator;
    const auto nc = static_cast<size_t>(share.cols());
    std::vector<LossClass> out(nc);
    std::vector<double> residual = lost;
    double packetsAll = 0;
    for (double n : packets)
    {
        packetsAll += n;
    }
    const double cut = alpha / static_cast<double>(std::max<size_t>(nc, 1));
    std::vector<bool> taken(nc, false);
    for (uint32_t round = 0;; ++round)
    {
        double lostAll = 0;
        for (double r : residual)
        {
            lostAll += r;
        }
        int best = -1;
        LossClass bestValues; // this round's values of the best candidate so far
        std::vector<size_t> candidates; // this round's, with their values below
        std::vector<LossClass> candidateValues;
        for (size_t c = 0; c < nc; ++c)
        {
            if (taken[c])
            {
                continue;
            }
            double l = 0, n = 0;
            uint32_t lossy = 0;
            for (It it(share, static_cast<Eigen::Index>(c)); it; ++it)
            {
                const auto i = static_cast<size_t>(it.row());
                l += residual[i] * it.value();
                n += packets[i] * it.value();
                lossy += residual[i] * it.value() >= 0.5;
            }
            LossClass& lc = out[c];
            if (round == 0)
            {
                lc.packets = n;
                lc.lost = l;
                lc.rate = n > 0 ? l / n : 0.0;
            }
            // The rate of the paths' packets elsewhere: what this class would lose if healthy.
            const double outside = packetsAll > n ? std::max(0.0, lostAll - l) / (packetsAll - n)
                                                  : 0.0;
            const double p = PoissonTail(l, n * outside);
            const bool candidate =
                lossy >= minLossyPaths && n > 0 && l / n >= lossFloor && p <= cut;
            if (round == 0)
            {
                lc.pValue = p;
                lc.lossyPaths = lossy;
            }
            if (candidate)
            {
                LossClass v;
                v.pValue = p;
                v.rate = l / n;
                v.lost = l;
                v.packets = n;
                v.lossyPaths = lossy;
                candidates.push_back(c);
                candidateValues.push_back(v);
            }
            // A class keeps its round-0 values unless it is named (then: the round's values);
            // a candidate beaten later in the round must not keep this round's p-value.
            if (candidate &&
                (best < 0 || p < bestValues.pValue ||
                 (p == bestValues.pValue && l / n > bestValues.rate)))
            {
                bestValues.pValue = p;
                bestValues.rate = l / n;
                bestValues.lost = l;
                bestValues.packets = n;
                bestValues.lossyPaths = lossy;
                best = static_cast<int>(c);
            }
        }
        if (best < 0)
        {
            break;
        }
        {
            LossClass& b = out[static_cast<size_t>(best)];
            b.pValue = bestValues.pValue;
            b.rate = bestValues.rate;
            b.lost = bestValues.lost;
            b.packets = bestValues.packets;
            b.lossyPaths = bestValues.lossyPaths;
        }
        // Tied: another candidate of this round carries the very same lost copies (each path's
        // residual losses times its share, path for path): which of the two lost them, the
        // copies cannot say; only their delivered packets differ, which the p-value weighed.
        {
            auto lossVector = [&](size_t c) {
                std::vector<std::pair<Eigen::Index, double>> v;
                for (It it(share, static_cast<Eigen::Index>(c)); it; ++it)
                {
                    const double x = residual[static_cast<size_t>(it.row())] * it.value();
                    if (x > 1e-12)
                    {
                        v.emplace_back(it.row(), x);
                    }
                }
                return v;
            };
            const auto mine = lossVector(static_cast<size_t>(best));
            for (size_t k = 0; k < candidates.size(); ++k)
            {
                const size_t c = candidates[k];
                if (static_cast<int>(c) == best || out[c].tiedWith >= 0)
                {
                    continue;
                }
                const auto theirs = lossVector(c);
                const bool same =
                    theirs.size() == mine.size() &&
                    std::equal(mine.begin(), mine.end(), theirs.begin(),
                               [](const auto& a, const auto& b) {
                                   return a.first == b.first &&
                                          std::abs(a.second - b.second) <=
                                              1e-9 * std::max(1.0, a.second);
                               });
                if (same)
                {
                    out[c].tiedWith = best;
                    out[c].tiedRate = candidateValues[k].rate;
                    out[c].tiedPValue = candidateValues[k].pValue;
                }
            }
        }
        // Named: its losses explain those of the paths that cross it.
        taken[static_cast<size_t>(best)] = true;
        out[static_cast<size_t>(best)].named = true;
        for (It it(share, best); it; ++it)
        {
            residual[static_cast<size_t>(it.row())] *= 1.0 - it.value();
        }
    }
    return out;
}

Eigen::SparseMatrix<double>
PlaceLostCopies(const Incidence& inc, const std::vector<PathObservation>& paths,
                uint32_t maxIterations)
{
    using It = Eigen::SparseMatrix<double>::InnerIterator;
    const size_t np = paths.size();
    const size_t nc = inc.classes.size();
    // Directed link -> its class; a class's members (its share on a row is their mean).
    const LinkClasses classOf(inc);
    // The rows whose lost copies could have taken one of several paths: their paths, each
    // with its frames (the prior) and the classes it crosses (once each).
    struct Ambiguous
    {
        size_t row = 0;
        std::vector<double> prior;                 //!< frames per path, summing to 1
        std::vector<std::vector<uint32_t>> links;  //!< per path, its distinct directed links
        std::vector<std::vector<uint32_t>> cls;    //!< per path, its distinct classes
        std::vector<double> weight;                //!< per path, the current placement
    };
    // Each QP's routes' arrival spans: only a QP whose routes were used one after the other
    // (a reroute, a new flowlet) has its copies placed by likelihood. A QP spread per packet
    // (DRILL) sends each copy on a route drawn anew, over sibling links that carry the same
    // QPs in the same proportions: the likelihood is flat along what would tell them apart,
    // and the EM fitted noise (2026-12-05 bench: DRILL under 1 % loss named a healthy class in
    // 8/20 pooled placements instead of 4/20).
    using Qp = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;
    std::map<Qp, std::vector<std::pair<double, double>>> spans;
    for (const auto& p : paths)
    {
        if (p.routed && !p.traced && !std::isnan(p.firstUs) && !std::isnan(p.lastUs))
        {
            spans[{p.run, p.src, p.dst, p.qpn}].emplace_back(p.firstUs, p.lastUs);
        }
    }
    auto oneAfterAnother = [&](const PathObservation& p) {
        const auto it = spans.find({p.run, p.src, p.dst, p.qpn});
        return it != spans.end() && it->second.size() >= 2 && !AnyPairSideBySide(it->second);
    };
    std::vector<Ambiguous> amb;
    std::vector<bool> isAmb(np, false);
    for (size_t i = 0; i < np; ++i)
    {
        const auto& p = paths[i];
        // Only rows that hold lost copies alone (a per-route file's copies without a route):
        // a row that also holds delivered frames sent its packets by its frames for certain.
        if (!p.traced || p.lost == 0 || p.paths.size() < 2 || !oneAfterAnother(p))
        {
            continue;
        }
        Ambiguous a;
        a.row = i;
        double total = 0;
        for (const auto& fp : p.paths)
        {
            total += fp.packets;
        }
        if (!(total > 0))
        {
            continue;
        }
        for (const auto& fp : p.paths)
        {
            a.prior.push_back(fp.packets / total);
            std::vector<uint32_t> hops = fp.hops;
            std::sort(hops.begin(), hops.end());
            hops.erase(std::unique(hops.begin(), hops.end()), hops.end());
            std::vector<uint32_t> cs;
            for (uint32_t l : hops)
            {
                cs.push_back(static_cast<uint32_t>(classOf.At(l)));
            }
            std::sort(cs.begin(), cs.end());
            cs.erase(std::unique(cs.begin(), cs.end()), cs.end());
            a.links.push_back(std::move(hops));
            a.cls.push_back(std::move(cs));
        }
        // Classes every route crosses (its host links, and under one ToR its uplink...) say
        // nothing of which route a copy took, whichever link lost it: left out of the routes'
        // loss probabilities, whose common part would only pull the placement back to the
        // frames' split (their rates hold the copies of every row at full share).
        std::vector<uint32_t> common = a.cls.front();
        for (const auto& cs : a.cls)
        {
            std::vector<uint32_t> both;
            std::set_intersection(common.begin(), common.end(), cs.begin(), cs.end(),
                                  std::back_inserter(both));
            common = std::move(both);
        }
        for (auto& cs : a.cls)
        {
            std::vector<uint32_t> own;
            std::set_difference(cs.begin(), cs.end(), common.begin(), common.end(),
                                std::back_inserter(own));
            cs = std::move(own);
        }
        a.weight = a.prior;
        isAmb[i] = true;
        amb.push_back(std::move(a));
    }
    if (amb.empty())
    {
        return inc.share;
    }
    // A row's share of each class under path weights w: the mean over the class's links of the
    // weight of the paths that cross the link (BuildIncidence's share, with w for the frames).
    auto rowShares = [&](const Ambiguous& a) {
        std::map<uint32_t, double> perLink;
        for (size_t r = 0; r < a.links.size(); ++r)
        {
            for (uint32_t l : a.links[r])
            {
                perLink[l] += a.weight[r];
            }
        }
        std::map<uint32_t, double> perClass;
        for (const auto& [l, w] : perLink)
        {
            const auto c = static_cast<uint32_t>(classOf.At(l));
            perClass[c] += w / static_cast<double>(inc.classes[c].size());
        }
        return perClass;
    };
    // The rows that are not ambiguous contribute fixed lost copies and packets per class.
    std::vector<double> fixedLost(nc, 0.0), fixedPackets(nc, 0.0);
    for (size_t c = 0; c < nc; ++c)
    {
        for (It it(inc.share, static_cast<Eigen::Index>(c)); it; ++it)
        {
            const auto i = static_cast<size_t>(it.row());
            if (!isAmb[i])
            {
                fixedLost[c] += static_cast<double>(paths[i].lost) * it.value();
                fixedPackets[c] += static_cast<double>(paths[i].packets) * it.value();
            }
        }
    }
    std::vector<double> rate(nc, 0.0);
    for (uint32_t iter = 0; iter < maxIterations; ++iter)
    {
        // M step: each class's loss rate, its lost copies over its packets.
        std::vector<double> lost = fixedLost, packets = fixedPackets;
        for (const auto& a : amb)
        {
            for (const auto& [c, s] : rowShares(a))
            {
                lost[c] += static_cast<double>(paths[a.row].lost) * s;
                packets[c] += static_cast<double>(paths[a.row].packets) * s;
            }
        }
        for (size_t c = 0; c < nc; ++c)
        {
            rate[c] = packets[c] > 0 ? lost[c] / packets[c] : 0.0;
        }
        // E step: a lost copy took path r with probability proportional to the frames sent
        // on r times r's loss probability on the classes that tell its routes apart (the sum
        // of their rates: 1 - prod(1 - p) for small rates).
        double change = 0;
        for (auto& a : amb)
        {
            std::vector<double> w(a.prior.size(), 0.0);
            double sum = 0;
            for (size_t r = 0; r < w.size(); ++r)
            {
                double lambda = 0;
                for (uint32_t c : a.cls[r])
                {
                    lambda += rate[c];
                }
                w[r] = a.prior[r] * lambda;
                sum += w[r];
            }
            for (size_t r = 0; r < w.size(); ++r)
            {
                w[r] = sum > 0 ? w[r] / sum : a.prior[r];
                change = std::max(change, std::abs(w[r] - a.weight[r]));
            }
            a.weight = std::move(w);
        }
        if (change < 1e-9)
        {
            break;
        }
    }
    std::vector<Eigen::Triplet<double>> ts;
    for (size_t c = 0; c < nc; ++c)
    {
        for (It it(inc.share, static_cast<Eigen::Index>(c)); it; ++it)
        {
            if (!isAmb[static_cast<size_t>(it.row())])
            {
                ts.emplace_back(it.row(), it.col(), it.value());
            }
        }
    }
    for (const auto& a : amb)
    {
        for (const auto& [c, s] : rowShares(a))
        {
            ts.emplace_back(static_cast<Eigen::Index>(a.row), static_cast<Eigen::Index>(c), s);
        }
    }
    Eigen::SparseMatrix<double> out(inc.share.rows(), inc.share.cols());
    out.setFromTriplets(ts.begin(), ts.end());
    out.makeCompressed();
    return out;
}

namespace
{

/** A `paths` cell (LINK>LINK>...:FRAMES, "|" between paths) walked from host`src` to
 *  host`dst` against `links`; paths with no frame left out. \throws ns3::InputError */
std::vector<FlowPath>
ParsePathsColumn(const std::string& text,
                 const std::string& file,
                 unsigned line,
                 const LinkIndex& links,
                 uint32_t srcHost,
                 uint32_t dstHost)
{
    std::vector<FlowPath> out;
    const std::string src = "host" + std::to_string(srcHost);
    const std::string dst = "host" + std::to_string(dstHost);
    size_t pos = 0;
    size_t index = 0;
    while (!text.empty() && pos <= text.size())
    {
        size_t end = text.find('|', pos);
        end = end == std::string::npos ? text.size() : end;
        std::string item = text.substr(pos, end - pos);
        ++index;
        const size_t colon = item.rfind(':');
        uint64_t frames = 0;
        const char* n = colon == std::string::npos ? nullptr : item.data() + colon + 1;
        const auto [q, ec] = n ? std::from_chars(n, item.data() + item.size(), frames)
                               : std::from_chars_result{nullptr, std::errc::invalid_argument};
        if (!n || ec != std::errc() || q != item.data() + item.size() || n == q)
        {
            throw ns3::InputError(file, line, "paths",
                                  fmt::format("path {} \"{}\": expected LINK>LINK>...:FRAMES",
                                              index, item));
        }
        item.resize(colon);
        FlowPath fp;
        fp.packets = static_cast<double>(frames);
        try
        {
            fp.hops = links.Walk(item, src, dst);
        }
        catch (const std::invalid_argument& e)
        {
            throw ns3::InputError(file, line, "paths",
                                  fmt::format("{} to {}, path {}: {}", src, dst, index, e.what()));
        }
        if (fp.packets > 0)
        {
            out.push_back(std::move(fp));
        }
        pos = end + 1;
    }
    return out;
}

/** A row none of whose copies arrived, placed whole on `traced` (its `traced_path` cell: the
 *  route a probe with its headers takes), marked `traced`. `what` names a copy ("copy",
 *  "probe") in the message of a row that lost none. \throws ns3::InputError */
void
PlaceOnTracedPath(PathObservation& p,
                  const std::string& traced,
                  const std::string& file,
                  const LinkIndex& links,
                  const char* what)
{
    if (p.lost == 0)
    {
        throw ns3::InputError(file, p.line, "traced_path",
                              fmt::format("a traced path on a row that lost no {}", what));
    }
    const std::string src = "host" + std::to_string(p.src);
    const std::string dst = "host" + std::to_string(p.dst);
    FlowPath fp;
    fp.packets = static_cast<double>(p.packets);
    try
    {
        fp.hops = links.Walk(traced, src, dst);
    }
    catch (const std::invalid_argument& e)
    {
        throw ns3::InputError(file, p.line, "traced_path",
                              fmt::format("{} to {}: {}", src, dst, e.what()));
    }
    p.paths.push_back(std::move(fp));
    p.traced = true;
}

} // namespace

std::vector<PathObservation>
ReadPathObservations(std::istream& in, const std::string& file, const LinkIndex& links)
{
    CsvReader csv(file, in);
    const std::string why = "one of paths.csv's columns (docs/results-format.md, \"paths.csv\")";
    const size_t cSrc = csv.Require("src", why);
    const size_t cDst = csv.Require("dst", why);
    const size_t cQpn = csv.Require("qpn", why);
    const size_t cPackets = csv.Require("packets", why);
    const size_t cSamples = csv.Require("rtt_samples", why);
    const size_t cMin = csv.Require("rtt_min_us", why);
    const size_t cMedian = csv.Require("rtt_median_us", why);
    const auto cP99 = csv.Find("rtt_p99_us");
    const size_t cEcn = csv.Require("ecn_acks", why);
    const size_t cTrims = csv.Require("trims", why);
    const size_t cNacks = csv.Require("nacks", why);
    const size_t cTimeouts = csv.Require("timeouts", why);
    const auto cLosses = csv.Find("losses"); // written since 2026-12-04
    const size_t cPaths = csv.Require("paths", why);
    const auto cTraced = csv.Find("traced_path"); // written since 2026-12-04 (evening)
    const auto cEntropy = csv.Find("entropy");
    // path_telemetry = "route" (since 2026-12-05): a row per QP, entropy and delivered route;
    // the entropy's row with an empty route holds what no route is given (lost copies).
    const auto cRoute = csv.Find("route");
    const auto cFirst = csv.Find("first_us"); // per route: its arrival span
    const auto cLast = csv.Find("last_us");
    if (cRoute)
    {
        // Every per-route file tusk wrote has them (the arrival spans since the route rows'
        // first day, the losses before those); read as absent, a QP's routes would count as
        // used side by side and its lost copies as none, and --evidence auto would compare
        // what it must not.
        const std::string perRoute = "a column of per-route paths.csv (a `route` column; "
                                     "docs/results-format.md, \"paths.csv\")";
        csv.Require("first_us", perRoute);
        csv.Require("last_us", perRoute);
        csv.Require("losses", perRoute);
    }
    if (cTraced)
    {
        // `losses` came before `traced_path` (a traceroute of an entropy whose copies were
        // all lost): a file with the later column and without the earlier was edited, and
        // read as no losses its traced paths would be refused as on rows that lost nothing.
        csv.Require("losses", "a column of paths.csv with a `traced_path` column "
                              "(docs/results-format.md, \"paths.csv\")");
    }
    // One row per (src, dst, qpn, entropy[, route]): a second would count that path's
    // evidence twice.
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint64_t, std::string>, unsigned> rowOf;
    // Per route: each (src, dst, qpn, entropy)'s routes and their frames, and its rows
    // without a route that lost copies, to spread over them once every row is read.
    using EntropyKey = std::tuple<uint32_t, uint32_t, uint32_t, uint64_t>;
    std::map<EntropyKey, std::vector<FlowPath>> routesOf;
    std::vector<std::pair<EntropyKey, PathObservation>> unrouted;
    std::vector<PathObservation> out;
    std::vector<std::string> f;
    while (csv.Next(f))
    {
        PathObservation p;
        p.line = csv.Line();
        p.src = csv.Integer<uint32_t>(f, cSrc, "src");
        p.dst = csv.Integer<uint32_t>(f, cDst, "dst");
        p.qpn = csv.Integer<uint32_t>(f, cQpn, "qpn");
        p.packets = csv.Integer<uint64_t>(f, cPackets, "packets");
        p.rttSamples = csv.Integer<uint64_t>(f, cSamples, "rtt_samples");
        p.rttMinUs = csv.Real(f, cMin, "rtt_min_us");
        if (p.rttSamples > 0 && !(p.rttMinUs > 0))
        {
            // Every RTT holds the path's propagation and serialisation: a zero (or negative)
            // minimum would set the delays of every other path of its QP.
            throw ns3::InputError(file, p.line, "rtt_min_us",
                                  fmt::format("expected a positive RTT (µs) on a row with {} RTT "
                                              "sample(s); got {}",
                                              p.rttSamples, f[cMin]));
        }
        uint64_t entropy = 0;
        const std::string route = cRoute ? f[*cRoute] : std::string();
        if (cEntropy)
        {
            entropy = csv.Integer<uint64_t>(f, *cEntropy, "entropy");
            const auto [it, fresh] =
                rowOf.emplace(std::make_tuple(p.src, p.dst, p.qpn, entropy, route), p.line);
            if (!fresh)
            {
                throw ns3::InputError(
                    file, p.line, cRoute ? "route" : "entropy",
                    fmt::format("a second row for src {}, dst {}, qpn {}, entropy {}{} (the "
                                "first is line {}): expected one row per sender's path{}",
                                p.src, p.dst, p.qpn, entropy,
                                cRoute ? fmt::format(", route \"{}\"", route) : "", it->second,
                                cRoute ? " and route" : ""));
            }
        }
        p.rttMedianUs = csv.Real(f, cMedian, "rtt_median_us");
        p.rttP99Us = cP99 ? csv.Real(f, *cP99, "rtt_p99_us") : std::nan("");
        p.ecnAcks = csv.Integer<uint64_t>(f, cEcn, "ecn_acks");
        // NACKs are read (and checked) but not counted as losses: under spraying most of them
        // flag reordering, not loss (their resends arrive twice). `losses` counts the copies
        // that never arrived while a later one did: with it, timeouts are not counted (a
        // timeout after a loss is that loss; one without is delay).
        (void)csv.Integer<uint64_t>(f, cNacks, "nacks");
        const uint64_t timeouts = csv.Integer<uint64_t>(f, cTimeouts, "timeouts");
        const uint64_t trims = csv.Integer<uint64_t>(f, cTrims, "trims");
        const uint64_t losses = cLosses ? csv.Integer<uint64_t>(f, *cLosses, "losses") : 0;
        if (cLosses && losses > p.packets)
        {
            // Each lost copy is one of the packets sent with this entropy (resends included).
            throw ns3::InputError(file, p.line, "losses",
                                  fmt::format("expected at most `packets` ({}) lost copies; got {}",
                                              p.packets, losses));
        }
        p.lost = trims + (cLosses ? losses : timeouts);
        const std::string src = "host" + std::to_string(p.src);
        const std::string dst = "host" + std::to_string(p.dst);
        p.paths = ParsePathsColumn(f[cPaths], file, p.line, links, p.src, p.dst);
        if (!route.empty())
        {
            // A route row: its `paths` is its route alone, with the frames that took it.
            std::vector<uint32_t> hops;
            try
            {
                hops = links.Walk(route, src, dst);
            }
            catch (const std::invalid_argument& e)
            {
                throw ns3::InputError(file, p.line, "route",
                                      fmt::format("{} to {}: {}", src, dst, e.what()));
            }
            if (p.paths.size() > 1 || (p.paths.size() == 1 && p.paths[0].hops != hops))
            {
                throw ns3::InputError(file, p.line, "paths",
                                      "expected the row's route alone (LINK>...:FRAMES with "
                                      "the links of `route`)");
            }
            if (!p.paths.empty())
            {
                routesOf[{p.src, p.dst, p.qpn, entropy}].push_back(p.paths[0]);
            }
            p.routed = true;
            if (cFirst && cLast)
            {
                p.firstUs = csv.Real(f, *cFirst, "first_us");
                p.lastUs = csv.Real(f, *cLast, "last_us");
                if (!(p.lastUs >= p.firstUs))
                {
                    throw ns3::InputError(file, p.line, "last_us",
                                          fmt::format("expected at least first_us ({}); got {}",
                                                      f[*cFirst], f[*cLast]));
                }
            }
        }
        if (p.paths.empty() && cTraced && !f[*cTraced].empty())
        {
            // Every copy lost: the path a probe with its headers takes (the sender's
            // traceroute) carries them all.
            PlaceOnTracedPath(p, f[*cTraced], file, links, "copy");
        }
        if (!p.paths.empty())
        {
            out.push_back(std::move(p));
        }
        else if (cRoute && route.empty() && p.lost > 0)
        {
            unrouted.emplace_back(EntropyKey{p.src, p.dst, p.qpn, entropy}, std::move(p));
        }
    }
    // A per-route file's lost copies with neither a route nor a traced path: the sender knows
    // the routes its entropy's frames arrived by, not the one a lost copy took; spread over
    // them by their frames, as a per-entropy row's `paths` spreads them, in the loss fit only.
    for (auto& [key, p] : unrouted)
    {
        const auto r = routesOf.find(key);
        if (r == routesOf.end())
        {
            continue; // no frame of this entropy arrived and none was traced: nowhere to put
        }
        p.paths = r->second;
        p.traced = true;
        out.push_back(std::move(p));
    }
    return out;
}

std::vector<PathObservation>
ReadProbeObservations(std::istream& in, const std::string& file, const LinkIndex& links)
{
    CsvReader csv(file, in);
    const std::string why = "one of probes.csv's columns (docs/results-format.md, \"probes.csv\")";
    const size_t cSrc = csv.Require("src", why);
    const size_t cDst = csv.Require("dst", why);
    const size_t cEntropy = csv.Require("entropy", why);
    const size_t cSent = csv.Require("sent", why);
    const size_t cJudged = csv.Require("judged", why);
    const size_t cReceived = csv.Require("received", why);
    const size_t cLosses = csv.Require("losses", why);
    const size_t cMin = csv.Require("owd_min_us", why);
    const size_t cMedian = csv.Require("owd_median_us", why);
    const size_t cP99 = csv.Require("owd_p99_us", why);
    const size_t cPaths = csv.Require("paths", why);
    const size_t cTraced = csv.Require("traced_path", why);
    // A file with one probe size may lack `bytes` (written before large probes existed).
    const std::optional<size_t> cBytes = csv.Find("bytes");
    std::map<std::tuple<uint32_t, uint32_t, uint64_t, uint32_t>, unsigned> rowOf;
    std::map<uint32_t, unsigned> sizes; // probe size -> its first line
    std::vector<PathObservation> out;
    std::vector<std::string> f;
    while (csv.Next(f))
    {
        PathObservation p;
        p.line = csv.Line();
        p.src = csv.Integer<uint32_t>(f, cSrc, "src");
        p.dst = csv.Integer<uint32_t>(f, cDst, "dst");
        p.qpn = kProbeStreamQpn;
        const auto entropy = csv.Integer<uint64_t>(f, cEntropy, "entropy");
        if (entropy == 0 || entropy > 65535)
        {
            throw ns3::InputError(file, p.line, "entropy",
                                  fmt::format("expected a UDP source port in 1..65535; got {}",
                                              f[cEntropy]));
        }
        if (cBytes)
        {
            p.probeBytes = csv.Integer<uint32_t>(f, *cBytes, "bytes");
            if (p.probeBytes < 64 || p.probeBytes > 9216)
            {
                throw ns3::InputError(file, p.line, "bytes",
                                      fmt::format("expected a probe's bytes on the wire, "
                                                  "64..9216; got {}",
                                                  f[*cBytes]));
            }
            // [probes] sends `bytes` and at most one `large_bytes`: a third size is an edit.
            sizes.emplace(p.probeBytes, p.line);
            if (sizes.size() > 2)
            {
                std::string seen;
                for (const auto& [b, line] : sizes)
                {
                    seen += fmt::format("{}{} (line {})", seen.empty() ? "" : ", ", b, line);
                }
                throw ns3::InputError(file, p.line, "bytes",
                                      fmt::format("expected at most two probe sizes (`bytes` "
                                                  "and `large_bytes`); got {}",
                                                  seen));
            }
        }
        const auto [it, fresh] =
            rowOf.emplace(std::make_tuple(p.src, p.dst, entropy, p.probeBytes), p.line);
        if (!fresh)
        {
            throw ns3::InputError(
                file, p.line, "entropy",
                cBytes ? fmt::format("a second row for src {}, dst {}, entropy {}, bytes {} (the "
                                     "first is line {}): expected one row per probe stream and "
                                     "size",
                                     p.src, p.dst, entropy, p.probeBytes, it->second)
                       : fmt::format("a second row for src {}, dst {}, entropy {} (the first "
                                     "is line {}): expected one row per probe stream; a file "
                                     "with probes of two sizes needs its `bytes` column",
                                     p.src, p.dst, entropy, it->second));
        }
        const auto sent = csv.Integer<uint64_t>(f, cSent, "sent");
        const auto judged = csv.Integer<uint64_t>(f, cJudged, "judged");
        const auto received = csv.Integer<uint64_t>(f, cReceived, "received");
        const auto losses = csv.Integer<uint64_t>(f, cLosses, "losses");
        if (judged > sent)
        {
            throw ns3::InputError(file, p.line, "judged",
                                  fmt::format("expected at most `sent` ({}) probes judged; got {}",
                                              sent, judged));
        }
        if (received > judged || losses != judged - received)
        {
            throw ns3::InputError(file, p.line, "losses",
                                  fmt::format("expected judged ({}) = received ({}) + losses; "
                                              "got losses {}",
                                              judged, received, losses));
        }
        // A probe is one packet and one delay sample: the one-way delays stand where paths.csv
        // has RTTs (a stream's paths compared with each other, so the constant half cancels).
        p.packets = judged;
        p.rttSamples = received;
        p.rttMinUs = csv.Real(f, cMin, "owd_min_us");
        if (received > 0 && !(p.rttMinUs > 0))
        {
            throw ns3::InputError(file, p.line, "owd_min_us",
                                  fmt::format("expected a positive delay (µs) on a row with {} "
                                              "probe(s) received; got {}",
                                              received, f[cMin]));
        }
        p.rttMedianUs = csv.Real(f, cMedian, "owd_median_us");
        p.rttP99Us = csv.Real(f, cP99, "owd_p99_us");
        // The quantiles come from a sketch with 1 % relative error (a bucket's midpoint may lie
        // just below the exact minimum), written to 1 ns.
        if (received > 0 && (p.rttMedianUs < p.rttMinUs * 0.98 - 0.001 ||
                             p.rttP99Us < p.rttMedianUs - 0.001))
        {
            throw ns3::InputError(file, p.line, "owd_median_us",
                                  fmt::format("expected owd_min_us <= owd_median_us <= "
                                              "owd_p99_us (within the sketch's 1 %); got {}, {}, "
                                              "{}",
                                              f[cMin], f[cMedian], f[cP99]));
        }
        p.lost = losses;
        p.paths = ParsePathsColumn(f[cPaths], file, p.line, links, p.src, p.dst);
        double routed = 0;
        for (const auto& fp : p.paths)
        {
            routed += fp.packets;
        }
        if (!f[cPaths].empty() && routed != static_cast<double>(received))
        {
            throw ns3::InputError(file, p.line, "paths",
                                  fmt::format("expected the probes on its paths to add up to "
                                              "`received` ({}); they add up to {}",
                                              received, routed));
        }
        if (!f[cPaths].empty() && !f[cTraced].empty())
        {
            throw ns3::InputError(file, p.line, "traced_path",
                                  "a traced path on a row whose probes arrived by `paths`: "
                                  "expected one or the other");
        }
        if (p.paths.empty() && !f[cTraced].empty())
        {
            PlaceOnTracedPath(p, f[cTraced], file, links, "probe");
        }
        if (!p.paths.empty())
        {
            out.push_back(std::move(p));
        }
    }
    // Several sizes (`large_bytes`): delays from the largest only (PathObservation::lossOnly).
    uint32_t largest = 0;
    for (const auto& p : out)
    {
        largest = std::max(largest, p.probeBytes);
    }
    for (auto& p : out)
    {
        p.lossOnly = p.probeBytes < largest;
    }
    return out;
}

namespace
{

using PathKey = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, size_t, uint32_t>;

/** A row's comparison group: its run, its QP and its path length (hops of its first path; a
 *  row's paths have one length in a shortest-path fabric). */
PathKey
KeyOf(const PathObservation& p)
{
    return PathKey{p.run, p.src, p.dst, p.qpn, p.paths.front().hops.size(), p.probeBytes};
}

/** Rows per comparison group (traced rows, whose frames all got lost, are not compared). */
std::map<PathKey, size_t>
GroupSizes(const std::vector<PathObservation>& paths)
{
    std::map<PathKey, size_t> n;
    for (const auto& p : paths)
    {
        if (!p.traced)
        {
            ++n[KeyOf(p)];
        }
    }
    return n;
}

} // namespace

namespace
{

/** PathsComparable's counts: (QPs, QPs with a pair of rows of one length side by side). */
std::pair<size_t, size_t>
SideBySideQps(const std::vector<PathObservation>& paths)
{
    // Per-route rows with arrival times (since 2026-12-05): two routes of a QP are siblings
    // only when the switch used them side by side, their arrival spans overlapping by at least
    // half of the shorter span. A switch that moved the QP (ConWeave reroutes, flowlet-ar
    // between flowlets) used its routes one after the other, and the queueing of the fabric
    // changes in between, so their smallest RTTs differ by when, not by which links (bench:
    // ConWeave, top-1 0-2/10 from such rows against 8/10 and 20/20 from completion times on
    // the same runs); DRILL's per-packet choice uses them all the time.
    std::map<PathKey, std::vector<std::pair<double, double>>> spans;
    for (const auto& p : paths)
    {
        if (p.routed && !p.traced && !std::isnan(p.firstUs) && !std::isnan(p.lastUs))
        {
            spans[KeyOf(p)].emplace_back(p.firstUs, p.lastUs);
        }
    }
    auto sideBySide = [&](const PathKey& key) {
        const auto it = spans.find(key);
        if (it == spans.end())
        {
            return true; // no arrival times: compared as before
        }
        return AnyPairSideBySide(it->second);
    };
    // (run, src, dst, qpn) -> has a sibling pair
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, bool> qps;
    for (const auto& [key, n] : GroupSizes(paths))
    {
        bool& pair =
            qps[{std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key)}];
        pair = pair || (n >= 2 && sideBySide(key));
    }
    size_t paired = 0;
    for (const auto& [qp, pair] : qps)
    {
        paired += pair;
    }
    return {qps.size(), paired};
}

/** AutoPathEvidence's loss counts: (QPs that lost copies, of which rerouted). */
std::pair<size_t, size_t>
ReroutedLossyQps(const std::vector<PathObservation>& paths)
{
    // Per QP (run, src, dst, qpn): its routes' arrival spans and its lost copies (on any row:
    // a per-route file keeps them on the entropy's row without a route, spread over its routes).
    using Qp = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;
    std::map<Qp, std::vector<std::pair<double, double>>> spans;
    std::map<Qp, uint64_t> lost;
    for (const auto& p : paths)
    {
        const Qp qp{p.run, p.src, p.dst, p.qpn};
        if (p.routed && !p.traced && !std::isnan(p.firstUs) && !std::isnan(p.lastUs))
        {
            spans[qp].emplace_back(p.firstUs, p.lastUs);
        }
        lost[qp] += p.lost;
    }
    size_t lossy = 0, rerouted = 0;
    for (const auto& [qp, n] : lost)
    {
        if (n == 0)
        {
            continue;
        }
        ++lossy;
        const auto it = spans.find(qp);
        rerouted += it != spans.end() && it->second.size() >= 2 && !AnyPairSideBySide(it->second);
    }
    return {lossy, rerouted};
}

} // namespace

namespace
{
/** FitSpreadLosses: two links' QP sets agree when their intersection holds this share of
 *  their union. */
constexpr double kSpreadAgree = 0.9;
} // namespace

SpreadLossFit
FitSpreadLosses(const std::vector<PathObservation>& paths, uint32_t minLossyQps, double alpha)
{
    SpreadLossFit fit;
    fit.spreadRow.assign(paths.size(), false);
    // Arrival spans per comparison group (QP and length) of the per-route rows.
    std::map<PathKey, std::vector<std::pair<double, double>>> spans;
    for (const auto& p : paths)
    {
        if (p.routed && !p.traced && !std::isnan(p.firstUs) && !std::isnan(p.lastUs))
        {
            spans[KeyOf(p)].emplace_back(p.firstUs, p.lastUs);
        }
    }
    using Qp = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>; // run, src, dst, qpn
    std::map<Qp, uint32_t> qpIndex;
    std::vector<double> qpLost;
    auto indexOf = [&](const PathObservation& p) {
        const auto [it, fresh] = qpIndex.emplace(Qp{p.run, p.src, p.dst, p.qpn},
                                                 static_cast<uint32_t>(qpIndex.size()));
        if (fresh)
        {
            qpLost.push_back(0);
        }
        return it->second;
    };
    bool any = false;
    for (size_t i = 0; i < paths.size(); ++i)
    {
        const auto& p = paths[i];
        if (!p.traced || p.routed || p.lost == 0 || p.paths.size() < 2)
        {
            continue;
        }
        const auto it = spans.find(KeyOf(p));
        if (it != spans.end() && it->second.size() >= 2 && AnyPairSideBySide(it->second))
        {
            fit.spreadRow[i] = true;
            any = true;
        }
    }
    if (!any)
    {
        return fit;
    }
    // Each directed link's QPs (delivered frames only) and frames; each QP's spread copies.
    std::map<uint32_t, std::map<uint32_t, double>> linkQps; // link -> QP -> frames
    for (size_t i = 0; i < paths.size(); ++i)
    {
        const auto& p = paths[i];
        if (p.traced && !fit.spreadRow[i])
        {
            continue; // a traced path or copies placed otherwise: not a delivered frame
        }
        const uint32_t q = indexOf(p);
        if (fit.spreadRow[i])
        {
            qpLost[q] += static_cast<double>(p.lost);
        }
        if (p.traced)
        {
            continue;
        }
        for (const auto& fp : p.paths)
        {
            for (uint32_t l : fp.hops)
            {
                linkQps[l][q] += fp.packets;
            }
        }
    }
    const size_t nq = qpIndex.size();
    std::vector<bool> lossy(nq, false);
    uint32_t lossyAll = 0;
    for (size_t q = 0; q < nq; ++q)
    {
        lossy[q] = qpLost[q] > 0;
        lossyAll += lossy[q];
    }
    fit.qps = static_cast<uint32_t>(nq);
    fit.lossyQps = lossyAll;
    // Groups: the links with one QP set.
    std::map<std::vector<uint32_t>, std::vector<uint32_t>> byQps;
    for (const auto& [l, m] : linkQps)
    {
        std::vector<uint32_t> qs;
        for (const auto& [q, frames] : m)
        {
            if (frames > 0)
            {
                qs.push_back(q);
            }
        }
        if (!qs.empty())
        {
            byQps[qs].push_back(l);
        }
    }
    // Siblings whose QP sets nearly agree are one group: a switch spreading per packet leaves
    // a QP's few frames off one of them now and then (a pod's 16 uplinks to the core carry
    // about 8 frames of each of its QPs: a 128-host DRILL run had 111 QPs on one and 112 on
    // its 15 siblings). Agree: the sets' intersection holds 90 % of their union (Jaccard);
    // disjoint hosts' links, a ToR's uplinks and its pod's core uplinks stay apart (Jaccard
    // 0 and about 0.2 in a fat tree).
    std::vector<std::vector<uint32_t>> setOf;
    std::vector<std::vector<uint32_t>> linksOf;
    for (const auto& [qs, links] : byQps)
    {
        setOf.push_back(qs);
        linksOf.push_back(links);
    }
    const size_t ng = setOf.size();
    std::vector<size_t> parent(ng);
    std::iota(parent.begin(), parent.end(), size_t{0});
    std::function<size_t(size_t)> root = [&](size_t x) {
        while (parent[x] != x)
        {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    };
    for (size_t a = 0; a < ng; ++a)
    {
        for (size_t b = a + 1; b < ng; ++b)
        {
            const double na = static_cast<double>(setOf[a].size());
            const double nb = static_cast<double>(setOf[b].size());
            if (std::min(na, nb) < kSpreadAgree * std::max(na, nb))
            {
                continue; // the intersection cannot reach 90 % of the union
            }
            std::vector<uint32_t> both;
            std::set_intersection(setOf[a].begin(), setOf[a].end(), setOf[b].begin(),
                                  setOf[b].end(), std::back_inserter(both));
            const double common = static_cast<double>(both.size());
            if (common >= kSpreadAgree * (na + nb - common))
            {
                parent[root(a)] = root(b);
            }
        }
    }
    std::map<size_t, std::pair<std::set<uint32_t>, std::vector<uint32_t>>> merged;
    for (size_t g = 0; g < ng; ++g)
    {
        auto& m = merged[root(g)];
        m.first.insert(setOf[g].begin(), setOf[g].end());
        m.second.insert(m.second.end(), linksOf[g].begin(), linksOf[g].end());
    }
    std::vector<std::pair<std::vector<uint32_t>, std::vector<uint32_t>>> groups;
    for (auto& [r, m] : merged)
    {
        std::sort(m.second.begin(), m.second.end());
        groups.emplace_back(std::vector<uint32_t>(m.first.begin(), m.first.end()), m.second);
    }
    fit.groups = groups.size();
    const double cut = alpha / static_cast<double>(std::max<size_t>(fit.groups, 1));
    std::vector<bool> residual = lossy;
    std::set<const std::vector<uint32_t>*> taken;
    for (;;)
    {
        const std::vector<uint32_t>* best = nullptr;
        SpreadLossGroup bestGroup;
        for (const auto& [qs, links] : groups)
        {
            if (taken.count(&qs))
            {
                continue;
            }
            uint32_t k = 0;
            double lost = 0;
            for (uint32_t q : qs)
            {
                k += residual[q];
                lost += residual[q] ? qpLost[q] : 0.0;
            }
            if (k < std::max<uint32_t>(minLossyQps, 1))
            {
                continue;
            }
            // The outside rate counts every other lossy QP, explained or not: a later round
            // is tested against the fabric's loss as the first was (with only the residual,
            // the last few copies stand out against nothing, and two of one host's QPs would
            // name its link).
            uint32_t inside = 0;
            for (uint32_t q : qs)
            {
                inside += lossy[q];
            }
            const auto n = static_cast<uint32_t>(qs.size());
            const double outside = nq > n ? static_cast<double>(lossyAll - inside) /
                                                static_cast<double>(nq - n)
                                          : 0.0;
            double p = 0.0;
            if (outside > 0)
            {
                const boost::math::binomial_distribution<double> d(n, std::min(1.0, outside));
                p = boost::math::cdf(boost::math::complement(d, static_cast<double>(k) - 1));
            }
            if (p > cut)
            {
                continue;
            }
            const bool better =
                !best || p < bestGroup.pValue ||
                (p == bestGroup.pValue &&
                 (k > bestGroup.lossyQps ||
                  (k == bestGroup.lossyQps && links.size() < bestGroup.links.size())));
            if (better)
            {
                double frames = 0;
                for (uint32_t l : links)
                {
                    for (const auto& [q, f] : linkQps[l])
                    {
                        frames += f;
                    }
                }
                frames /= static_cast<double>(links.size());
                best = &qs;
                bestGroup.links = links;
                bestGroup.qps = n;
                bestGroup.lossyQps = k;
                bestGroup.lost = lost;
                bestGroup.rate = frames > 0 ? lost / frames : 0.0;
                bestGroup.pValue = p;
            }
        }
        if (!best)
        {
            break;
        }
        taken.insert(best);
        for (uint32_t q : *best)
        {
            residual[q] = false;
        }
        fit.named.push_back(std::move(bestGroup));
    }
    return fit;
}

bool
PathsComparable(const std::vector<PathObservation>& paths)
{
    const auto [qps, paired] = SideBySideQps(paths);
    return qps > 0 && 2 * paired >= qps;
}

PathEvidenceCounts
CountPathEvidence(const std::vector<PathObservation>& paths)
{
    PathEvidenceCounts c;
    std::tie(c.qps, c.sideBySideQps) = SideBySideQps(paths);
    std::tie(c.lossyQps, c.reroutedLossyQps) = ReroutedLossyQps(paths);
    // As PathsComparable asks half of the QPs to have siblings, half of the QPs that lost
    // copies must have rerouted: for a QP with one route paths.csv's losses say what its
    // completion time does (flowlet-ar, 2026-12-06 bench: one rerouted QP in a pool of four
    // runs took it to paths.csv and a healthy class was named beside the cable).
    c.evidence = c.qps > 0 && 2 * c.sideBySideQps >= c.qps ? PathEvidence::Compared
                 : c.reroutedLossyQps > 0 && 2 * c.reroutedLossyQps >= c.lossyQps
                     ? PathEvidence::LossesOnly
                     : PathEvidence::None;
    return c;
}

PathEvidence
AutoPathEvidence(const std::vector<PathObservation>& paths)
{
    return CountPathEvidence(paths).evidence;
}

bool
TellsReroutedRoutesApart(const std::vector<PathObservation>& paths,
                         const std::vector<uint32_t>& cls)
{
    using Qp = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;
    struct Routes
    {
        std::vector<std::pair<double, double>> spans;
        size_t crossing = 0;
        uint64_t lost = 0;
    };
    std::map<Qp, Routes> qps;
    for (const auto& p : paths)
    {
        Routes& r = qps[{p.run, p.src, p.dst, p.qpn}];
        r.lost += p.lost;
        if (p.routed && !p.traced && !std::isnan(p.firstUs) && !std::isnan(p.lastUs))
        {
            r.spans.emplace_back(p.firstUs, p.lastUs);
            const auto inClass = [&](uint32_t l) {
                return std::find(cls.begin(), cls.end(), l) != cls.end();
            };
            r.crossing +=
                std::any_of(p.paths.begin(), p.paths.end(), [&](const FlowPath& fp) {
                    return std::any_of(fp.hops.begin(), fp.hops.end(), inClass);
                });
        }
    }
    for (const auto& [qp, r] : qps)
    {
        if (r.lost > 0 && r.spans.size() >= 2 && !AnyPairSideBySide(r.spans) && r.crossing > 0 &&
            r.crossing < r.spans.size())
        {
            return true;
        }
    }
    return false;
}

namespace
{

/** The comparison groups (QP and path length) of per-route rows with arrival times whose two
 *  or more routes were used one after the other (no two spans overlap by half the shorter). */
std::set<PathKey>
SequentialGroups(const std::vector<PathObservation>& paths)
{
    std::map<PathKey, std::vector<std::pair<double, double>>> spans;
    for (const auto& p : paths)
    {
        if (p.routed && !p.traced && !std::isnan(p.firstUs) && !std::isnan(p.lastUs))
        {
            spans[KeyOf(p)].emplace_back(p.firstUs, p.lastUs);
        }
    }
    std::set<PathKey> out;
    for (const auto& [key, s] : spans)
    {
        if (s.size() >= 2 && !AnyPairSideBySide(s))
        {
            out.insert(key);
        }
    }
    return out;
}

/** The share of `rows` some of whose frame paths cross a link of `up`, and every such path
 *  `after(hops, u)` (u: its first hop in `up`); 0 without rows. */
template <class After>
double
ShareCrossingUp(const std::vector<PathObservation>& paths, const std::vector<size_t>& rows,
                const std::vector<uint32_t>& up, After&& after)
{
    if (rows.empty())
    {
        return 0.0;
    }
    size_t count = 0;
    for (size_t i : rows)
    {
        bool all = true, any = false;
        for (const auto& fp : paths[i].paths)
        {
            const auto u = std::find_if(fp.hops.begin(), fp.hops.end(), [&](uint32_t l) {
                return std::find(up.begin(), up.end(), l) != up.end();
            });
            if (u == fp.hops.end())
            {
                continue;
            }
            any = true;
            all = all && after(fp.hops, u);
        }
        count += any && all;
    }
    return static_cast<double>(count) / static_cast<double>(rows.size());
}

bool
Contains(const std::vector<uint32_t>& set, uint32_t l)
{
    return std::find(set.begin(), set.end(), l) != set.end();
}

} // namespace

double
FeedsInto(const std::vector<PathObservation>& paths, const std::vector<size_t>& rows,
          const std::vector<uint32_t>& up, const std::vector<uint32_t>& down)
{
    return ShareCrossingUp(paths, rows, up, [&](const auto& hops, auto u) {
        return std::any_of(u + 1, hops.end(), [&](uint32_t l) { return Contains(down, l); });
    });
}

double
PausedBy(const std::vector<PathObservation>& paths, const std::vector<size_t>& rows,
         const std::vector<uint32_t>& up, const std::vector<uint32_t>& down,
         const LinkIndex& links)
{
    const auto& dl = links.Links();
    // The switches a link of `down` leaves.
    std::vector<std::string> heads;
    for (uint32_t l : down)
    {
        heads.push_back(dl[l].from);
    }
    auto isHead = [&](const std::string& v) {
        return std::find(heads.begin(), heads.end(), v) != heads.end();
    };
    return ShareCrossingUp(paths, rows, up, [&](const auto& hops, auto u) {
        // Its own link leaving that switch (since 2026-12-05, late evening): the path entered
        // the switch over an ingress link it paused, and waited there before taking `up`.
        return isHead(dl[*u].from) || std::any_of(u, hops.end(), [&](uint32_t l) {
                   return isHead(dl[l].to) || (l != *u && Contains(down, l));
               });
    });
}

namespace
{

/** The size excess of probe routes (ProbeSizeExcess), per class. */
struct SizeExcessFit
{
    uint32_t smallBytes = 0, largeBytes = 0; //!< the probe sizes compared (0: no evidence)
    size_t routes = 0;                       //!< routes with both sizes' smallest delays
    std::vector<double> medianUs;            //!< per class: its routes' median excess, µs
    std::vector<double> lowerQuartileUs;     //!< per class: their lower quartile, µs
    std::vector<size_t> classRoutes;         //!< per class: routes crossing it
    std::vector<double> pValue;              //!< per class: its excess-route count's p-value
    /** Per class: 1 / (1 + q x R / (8 (L - S))), q the lower quartile of its routes' excess. */
    std::vector<double> rateFactor;
    std::vector<std::vector<size_t>> excessRoutes; //!< per class: its routes above its threshold
    std::vector<std::vector<uint32_t>> routeLinks; //!< per route: its directed links
    double largePerRoute = 0, smallPerRoute = 0;   //!< medians of the probes received
};

/**
 * The size excess of each probe route, as pathchar measures a link's rate (V. Jacobson,
 * "pathchar: a tool to infer characteristics of Internet paths", 1997; A. B. Downey,
 * "Using pathchar to estimate Internet link characteristics", SIGCOMM 1999): a probe of B
 * bytes is serialised once per link, 8 B / R_l, so on one route the smallest delay of large
 * probes (L bytes) exceeds that of small ones (S) by sum_l 8 (L - S) / R_l, whatever the
 * propagation and the switches' fixed latency; a link at 1/D of its nominal rate adds
 * (D - 1) x 8 (L - S) / R there. The excess over the nominal sum is 0 on a healthy route
 * whose smallest delays met no queue, and queueing cannot make it negative by more than the
 * small probes' own (their minimum is over many more samples). Per route (run, src, dst,
 * links: probe streams of one route pooled, the smallest delay of each size over all of
 * them); per class the median over the routes crossing it (robust to the few routes that also
 * cross another slow link, or whose large probes all queued), and the count of its routes at
 * least t = max(floor, median / 2) above nominal against the rate rho(t) = (routes above t +
 * 1) / (routes + 2) of all routes (Laplace): a binomial upper tail. Nominal rates: the
 * manifest's host_link_gbps for links with a host end, fabric_link_gbps for the others; none
 * given, no size evidence.
 */
SizeExcessFit
ProbeSizeExcess(const Observations& obs,
                const std::vector<PathObservation>& paths,
                const Incidence& inc,
                double floorUs)
{
    SizeExcessFit f;
    const size_t nc = inc.classes.size();
    f.medianUs.assign(nc, 0.0);
    f.lowerQuartileUs.assign(nc, 0.0);
    f.classRoutes.assign(nc, 0);
    f.pValue.assign(nc, 1.0);
    f.rateFactor.assign(nc, 1.0);
    f.excessRoutes.assign(nc, {});
    const double hostBps = (obs.hostLinkGbps > 0 ? obs.hostLinkGbps : obs.fabricLinkGbps) * 1e9;
    const double fabricBps =
        (obs.fabricLinkGbps > 0 ? obs.fabricLinkGbps : obs.hostLinkGbps) * 1e9;
    if (!(hostBps > 0) || !(fabricBps > 0))
    {
        return f;
    }
    uint32_t small = std::numeric_limits<uint32_t>::max(), large = 0;
    for (const auto& p : paths)
    {
        if (p.qpn == kProbeStreamQpn && p.probeBytes > 0)
        {
            small = std::min(small, p.probeBytes);
            large = std::max(large, p.probeBytes);
        }
    }
    if (large == 0 || small >= large)
    {
        return f;
    }
    using RouteKey = std::tuple<uint32_t, uint32_t, uint32_t, std::vector<uint32_t>>;
    constexpr double kNone = std::numeric_limits<double>::infinity();
    struct Size // one size's probes on a route, its streams pooled
    {
        double minUs = kNone; //!< smallest delay
        double probes = 0;    //!< received
    };
    std::map<RouteKey, std::pair<Size, Size>> minOf; // (small, large)
    for (const auto& p : paths)
    {
        if (p.qpn != kProbeStreamQpn || p.traced || p.rttSamples == 0 || p.paths.size() != 1 ||
            (p.probeBytes != small && p.probeBytes != large))
        {
            continue;
        }
        auto& both = minOf[RouteKey{p.run, p.src, p.dst, p.paths.front().hops}];
        Size& m = p.probeBytes == small ? both.first : both.second;
        m.minUs = std::min(m.minUs, p.rttMinUs);
        m.probes += static_cast<double>(p.rttSamples);
    }
    const auto& dl = obs.links.Links();
    const LinkClasses classOf(inc);
    const double bits = 8.0 * static_cast<double>(large - small);
    auto rateOf = [&](uint32_t l) {
        return VertexTier(dl[l].from) == "host" || VertexTier(dl[l].to) == "host" ? hostBps
                                                                                   : fabricBps;
    };
    std::vector<double> excess, smallCounts, largeCounts;
    std::vector<std::vector<size_t>> routesOf(nc);
    for (const auto& [key, m] : minOf)
    {
        if (m.first.minUs == kNone || m.second.minUs == kNone)
        {
            continue;
        }
        smallCounts.push_back(m.first.probes);
        largeCounts.push_back(m.second.probes);
        const auto& hops = std::get<3>(key);
        double nominalUs = 0;
        for (uint32_t l : hops)
        {
            nominalUs += bits / rateOf(l) * 1e6;
        }
        const size_t r = excess.size();
        excess.push_back(m.second.minUs - m.first.minUs - nominalUs);
        f.routeLinks.push_back(hops);
        std::set<size_t> crossed;
        for (uint32_t l : hops)
        {
            if (classOf.Of(l) < nc)
            {
                crossed.insert(classOf.Of(l));
            }
        }
        for (size_t c : crossed)
        {
            routesOf[c].push_back(r);
        }
    }
    f.routes = excess.size();
    if (f.routes == 0)
    {
        return f;
    }
    f.smallBytes = small;
    f.largeBytes = large;
    f.smallPerRoute = Median(smallCounts);
    f.largePerRoute = Median(largeCounts);
    std::vector<double> sorted = excess;
    std::sort(sorted.begin(), sorted.end());
    for (size_t c = 0; c < nc; ++c)
    {
        if (routesOf[c].empty())
        {
            continue;
        }
        std::vector<double> v;
        for (size_t r : routesOf[c])
        {
            v.push_back(excess[r]);
        }
        f.classRoutes[c] = v.size();
        f.medianUs[c] = Median(v);
        const double t = std::max(floorUs, f.medianUs[c] / 2);
        double above = 0;
        for (size_t r : routesOf[c])
        {
            if (excess[r] >= t)
            {
                above += 1;
                f.excessRoutes[c].push_back(r);
            }
        }
        const double all = static_cast<double>(
            std::distance(std::lower_bound(sorted.begin(), sorted.end(), t), sorted.end()));
        const double rho = (all + 1) / (static_cast<double>(f.routes) + 2);
        if (above > 0)
        {
            const boost::math::binomial_distribution<double> d(static_cast<double>(v.size()),
                                                                std::min(1.0, rho));
            f.pValue[c] = boost::math::cdf(boost::math::complement(d, above - 1));
        }
        // The rate from the lower quartile: a slow link puts its excess on every route across
        // it, and queueing only adds (the large probes' minimum is over fewer samples), so the
        // lower routes are the truer ones; the quartile, not the least, for the few whose small
        // probes queued instead.
        std::sort(v.begin(), v.end());
        const double q1 = v[(v.size() - 1) / 4];
        f.lowerQuartileUs[c] = q1;
        const double rate = rateOf(inc.classes[c].front());
        f.rateFactor[c] = 1.0 / (1.0 + std::max(0.0, q1) * 1e-6 * rate / bits);
    }
    return f;
}

} // namespace

PathLocateResult
LocateFromPaths(const Observations& obs,
                const std::vector<PathObservation>& paths,
                const PathLocateOptions& o)
{
    using It = Eigen::SparseMatrix<double>::InnerIterator;
    PathLocateResult res;
    res.paths = paths.size();
    res.probeStreams = static_cast<size_t>(std::count_if(
        paths.begin(), paths.end(), [](const PathObservation& p) { return p.qpn == kProbeStreamQpn; }));
    {
        std::set<uint32_t> sizes;
        for (const auto& p : paths)
        {
            if (p.qpn == kProbeStreamQpn)
            {
                sizes.insert(p.probeBytes);
            }
        }
        res.probeSizes = sizes.size();
    }
    res.perRoute = std::any_of(paths.begin(), paths.end(),
                               [](const PathObservation& p) { return p.routed; });
    // The incidence of paths on link classes, each path one pseudo-flow.
    Observations po;
    po.links = obs.links;
    for (const auto& p : paths)
    {
        FlowObservation f;
        f.src = p.src;
        f.dst = p.dst;
        f.paths = p.paths;
        po.flows.push_back(std::move(f));
    }
    const Incidence inc = BuildIncidence(po);
    const size_t np = paths.size();
    const size_t nc = inc.classes.size();
    res.classes = nc;
    res.unusedLinks = inc.unusedLinks;
    res.unused = inc.unused;

    // One frame (MTU payload; headers are a few percent) at the nominal rate, µs.
    const double mtu = obs.mtuBytes ? obs.mtuBytes : 4096.0;
    res.frameUs = obs.nominalRateBps > 0 ? 8 * mtu / obs.nominalRateBps * 1e6 : 0.0;

    // y_p: the path's smallest RTT over the smallest of its QP's paths of the same length. A
    // path alone in its group has no reference (its y would be 0 whatever it crossed): it is
    // left out of the delay fit.
    const auto groupSize = GroupSizes(paths);
    // Routes used one after the other are compared only when asked (--evidence paths): their
    // smallest RTTs were taken under different queueing (AutoPathEvidence).
    const std::set<PathKey> sequential =
        o.compareSequentialRoutes ? std::set<PathKey>{} : SequentialGroups(paths);
    std::map<PathKey, double> base;
    for (const auto& p : paths)
    {
        if (p.rttSamples >= o.minRttSamples && !p.traced && !p.lossOnly)
        {
            auto [it, fresh] = base.emplace(KeyOf(p), p.rttMinUs);
            it->second = fresh ? p.rttMinUs : std::min(it->second, p.rttMinUs);
        }
    }
    std::vector<double> y(np, 0.0), w(np, 0.0), loss(np, 0.0);
    for (size_t i = 0; i < np; ++i)
    {
        const auto& p = paths[i];
        if (p.rttSamples >= o.minRttSamples && !p.traced && !p.lossOnly &&
            groupSize.at(KeyOf(p)) >= 2 && sequential.count(KeyOf(p)) == 0)
        {
            y[i] = p.rttMinUs - base[KeyOf(p)];
            w[i] = 1.0; // every path one observation: the busiest must not drown the rest
            ++res.comparedPaths;
        }
        else if (!p.traced && sequential.count(KeyOf(p)) > 0)
        {
            ++res.sequentialPaths;
        }
        if (p.packets > 0)
        {
            loss[i] = -std::log1p(-std::min(0.999999, double(p.lost) / double(p.packets)));
        }
    }
    // With no nominal rate the floor comes from the data: the median delay of the paths.
    res.delayFloorUs = res.frameUs > 0 ? o.delayFloorFrames * res.frameUs
                                       : std::max(1e-3, Median(y));
    // The delay fit: y_p = a_q + sum of its links' delays + noise, with a free intercept a_q
    // per comparison group (QP and path length; what all of the QP's paths share: its host
    // links, the receiver's downlink queue, the NICs, and the queueing its paths have in
    // common, which y_p, measured from the QP's fastest path, leaves positive). Only a path's
    // difference from its siblings is evidence, so a class that every path of each of its QPs
    // crosses (a QP's host links under spraying) is confounded with the intercepts: not
    // identifiable, its delay not estimated (and not named), rather than handed the QPs'
    // common offset (before 2026-12-05 it was: pooled OPS runs named healthy host links).
    std::vector<uint32_t> groupOf(np, 0);
    std::map<PathKey, uint32_t> groupIds;
    for (size_t i = 0; i < np; ++i)
    {
        if (w[i] > 0)
        {
            groupOf[i] = groupIds.emplace(KeyOf(paths[i]), uint32_t(groupIds.size())).first->second;
        }
    }
    const GroupNnlsFit fit = NnlsGroupIntercepts(inc.crosses, y, w, groupOf,
                                                 std::max<uint32_t>(1, uint32_t(groupIds.size())),
                                                 {}, 1e-6);
    const std::vector<double>& xd = fit.x;
    // Each compared path's deviation from its QP's common level (its intercept), and the
    // residual scale: 1.4826 x the median absolute residual of the fit (robust to the slow
    // paths themselves).
    std::vector<double> above(np, 0.0), resid, signedResid(np, 0.0);
    {
        std::vector<double> ax(np, 0.0);
        for (size_t c = 0; c < nc; ++c)
        {
            for (It it(inc.crosses, static_cast<Eigen::Index>(c)); it; ++it)
            {
                ax[static_cast<size_t>(it.row())] += it.value() * xd[c];
            }
        }
        for (size_t i = 0; i < np; ++i)
        {
            if (w[i] > 0)
            {
                above[i] = y[i] - fit.intercept[groupOf[i]];
                signedResid[i] = above[i] - ax[i];
                resid.push_back(std::abs(signedResid[i]));
            }
        }
    }
    res.residualSigmaUs = 1.4826 * Median(resid);
    // Which classes the fit can judge, and the cut on their delays: the exponential tail of the
    // identifiable classes' positive delays (the others are 0 by construction, not evidence of
    // health), and a significance floor: x_c / (sigma / sqrt(contrast_c)), x_c in standard
    // errors of its conditional least-squares estimate, at least the one-sided normal
    // quantile of delayAlpha / identifiable classes (Bonferroni).
    std::vector<double> judged;
    for (size_t c = 0; c < nc; ++c)
    {
        if (fit.identifiable[c])
        {
            judged.push_back(xd[c]);
        }
        else
        {
            ++res.unidentifiable;
        }
    }
    const double delayCut = std::max(res.delayFloorUs, ExponentialTailCut(judged));
    res.delayCutUs = delayCut;
    // The tail cut per tier (since 2026-12-06). Healthy links of different tiers queue by
    // different amounts: under oblivious spraying in a congested fabric a ToR's uplinks take
    // the hosts' bursts first and PFC pauses them, so their fitted delays spread over 0-15 µs
    // while the core links' stay below 2-4 µs (128-host permutation of 2 x 2 MiB per host,
    // 2026-12-06). One exponential over all of them has the scale of the quiet majority, and
    // the most queued healthy uplink passed it (named in 12 of 20 runs without a fault). So a
    // class must also stand out among the classes of its own tiers (the from and to vertex
    // kinds of each of its links, as the rate estimate compares a link with its peers): the
    // same exponential tail cut over the identifiable classes of that tier, for every tier
    // with at least minTierClasses positive delays (fewer give the median no footing). The
    // larger cut decides, so this only ever names less.
    std::vector<std::set<std::string>> tiersOf(nc);
    {
        const auto& dls = obs.links.Links();
        std::map<std::string, std::vector<double>> tierDelays;
        for (size_t c = 0; c < nc; ++c)
        {
            for (uint32_t l : inc.classes[c])
            {
                tiersOf[c].insert(TierOf(dls[l].from) + "->" + TierOf(dls[l].to));
            }
            if (fit.identifiable[c])
            {
                for (const auto& t : tiersOf[c])
                {
                    tierDelays[t].push_back(xd[c]);
                }
            }
        }
        for (const auto& [t, v] : tierDelays)
        {
            if (Positive(v).size() >= std::max<uint32_t>(1, o.minTierClasses))
            {
                res.tierDelayCutUs[t] = ExponentialTailCut(v);
            }
        }
    }
    auto cutOf = [&](size_t c) {
        double cut = delayCut;
        for (const auto& t : tiersOf[c])
        {
            const auto it = res.tierDelayCutUs.find(t);
            if (it != res.tierDelayCutUs.end())
            {
                cut = std::max(cut, it->second);
            }
        }
        return cut;
    };
    res.zCut = judged.empty()
                   ? 0.0
                   : boost::math::quantile(boost::math::complement(
                         boost::math::normal_distribution<double>(),
                         o.delayAlpha / static_cast<double>(judged.size())));
    // The slow-path count test (since 2026-12-05, evening). A path's smallest RTT is the
    // smallest of its n RTT samples, each the path's fixed delays plus that packet's queueing,
    // so how far its residual strays depends on n: a path REPS tried once carries one packet's
    // queueing, a busy one almost none, and that queueing is heavy-tailed (most one-packet
    // paths do not queue, a few queue for a microsecond). A normal-theory z with one sigma
    // (or one per n: tried, z fell only from ~30 to ~10) named healthy classes whose 2-3 slow
    // paths were such one-packet entropies. So the test is of counts, against the residuals'
    // own distribution per sample-count bin (floor(log2 n)). Class c with fitted delay x_c is
    // tested at the threshold t = max(floor, x_c / 2), halfway to what it claims: path p
    // counts as slow for c when it is at least t above its QP's fastest path (y_p; the fit
    // can pull an intercept below the fastest path, and a set of classes each path of a QP
    // crosses once is fitted only up to a common shift, y_p is neither) and its residual plus
    // c's own share, r_p + A_pc x_c (what c adds beyond what the path's other links explain),
    // is at least t too. If c is healthy its paths are slow as often as the other paths of
    // their bin are: min(y, r) >= t at rate rho_b(t) = (those + 1) / (paths + 2) (Laplace),
    // independently, so the count S is Poisson-binomial with mean lambda = sum of the rates;
    // for S >= lambda + 1 its upper tail is at most that of Binomial(paths, lambda / paths)
    // (W. Hoeffding, "On the distribution of the number of successes in independent trials",
    // Ann. Math. Statist. 27(3), 1956), which is the p-value (Boost.Math). Named only at a
    // p-value of at most delayAlpha / identifiable classes (Bonferroni, as the z-guard).
    // Nothing here assumes normal residuals or one scale for them: in a congested fabric,
    // where most paths are microseconds above their QP's fastest, t grows with the claim.
    auto binOf = [&](size_t i) {
        return static_cast<size_t>(
            std::floor(std::log2(static_cast<double>(std::max<uint64_t>(1, paths[i].rttSamples)))));
    };
    std::vector<std::vector<double>> binSlack; // per bin, sorted min(y_p, r_p) of its paths
    for (size_t i = 0; i < np; ++i)
    {
        if (w[i] > 0)
        {
            const size_t b = binOf(i);
            if (b >= binSlack.size())
            {
                binSlack.resize(b + 1);
            }
            binSlack[b].push_back(std::min(y[i], signedResid[i]));
        }
    }
    for (auto& v : binSlack)
    {
        std::sort(v.begin(), v.end());
    }
    auto slowRate = [&](size_t b, double t) {
        const auto& v = binSlack[b];
        const auto at = std::lower_bound(v.begin(), v.end(), t);
        return (static_cast<double>(std::distance(at, v.end())) + 1) /
               (static_cast<double>(v.size()) + 2);
    };
    res.slowCountAlpha =
        judged.empty() ? 0.0 : o.delayAlpha / static_cast<double>(judged.size());
    auto slowCountP = [&](size_t c) {
        const double t = std::max(res.delayFloorUs, xd[c] / 2);
        double n = 0, slow = 0, lambda = 0;
        for (It it(inc.crosses, static_cast<Eigen::Index>(c)); it; ++it)
        {
            const size_t i = static_cast<size_t>(it.row());
            if (w[i] <= 0 || it.value() <= 0)
            {
                continue;
            }
            n += 1;
            slow += std::min(y[i], signedResid[i] + it.value() * xd[c]) >= t;
            lambda += slowRate(binOf(i), t);
        }
        if (n <= 0 || slow <= 0)
        {
            return 1.0;
        }
        const boost::math::binomial_distribution<double> d(n, std::min(1.0, lambda / n));
        return boost::math::cdf(boost::math::complement(d, slow - 1));
    };
    auto zOf = [&](size_t c) {
        return res.residualSigmaUs > 0
                   ? xd[c] * std::sqrt(fit.contrast[c]) / res.residualSigmaUs
                   : std::numeric_limits<double>::infinity();
    };
    // Size excess (large and small probes on one route, ProbeSizeExcess): a class is slow when
    // the lower quartile of its routes' excess passes the delay floor (half an MTU frame:
    // what a large probe's smallest delay can keep of a data frame it waited behind, not
    // being preempted; a slow link puts its excess on every route across it, so three in
    // four of them, not half: on a busy healthy link the large probes' few samples all queued
    // on half of the routes, medians 0.17-0.20 µs, in 14 of the 420 runs of the 128-host
    // all-reduce bench, 2026-12-07) and its count of such routes is significant (Bonferroni
    // over the classes with routes). Largest median first, a class most of whose excess
    // routes cross an already named one is explained by it (a route's excess is on its slow
    // link).
    const SizeExcessFit size = ProbeSizeExcess(obs, paths, inc, res.delayFloorUs);
    res.sizeSmallBytes = size.smallBytes;
    res.sizeLargeBytes = size.largeBytes;
    res.sizeRoutes = size.routes;
    res.sizeSmallPerRoute = size.smallPerRoute;
    res.sizeLargePerRoute = size.largePerRoute;
    res.sizeMinLargePerRoute = o.minLargeProbesPerRoute;
    std::vector<bool> sizeSlow(nc, false);
    {
        const size_t tested = static_cast<size_t>(std::count_if(
            size.classRoutes.begin(), size.classRoutes.end(), [](size_t n) { return n > 0; }));
        res.sizeAlpha = tested > 0 ? o.delayAlpha / static_cast<double>(tested) : 0.0;
        std::vector<size_t> order;
        for (size_t c = 0; c < nc; ++c)
        {
            if (size.classRoutes[c] > 0 && size.lowerQuartileUs[c] >= res.delayFloorUs &&
                size.excessRoutes[c].size() >= o.minBadPaths && size.pValue[c] <= res.sizeAlpha)
            {
                order.push_back(c);
            }
        }
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return size.medianUs[a] > size.medianUs[b];
        });
        std::set<uint32_t> namedLinks;
        for (size_t c : order)
        {
            size_t through = 0;
            for (size_t r : size.excessRoutes[c])
            {
                const auto& hops = size.routeLinks[r];
                through += std::any_of(hops.begin(), hops.end(),
                                       [&](uint32_t l) { return namedLinks.count(l) > 0; });
            }
            if (2 * through > size.excessRoutes[c].size())
            {
                ++res.explained;
                continue;
            }
            sizeSlow[c] = true;
            namedLinks.insert(inc.classes[c].begin(), inc.classes[c].end());
        }
    }
    const double tLoss = -std::log1p(-o.lossFloor);
    // Copies a switch spread per packet (DRILL) are counted per QP (FitSpreadLosses), not per
    // class: by frames they fall whole on the links every route of their QP crosses.
    const SpreadLossFit spread = FitSpreadLosses(paths, o.minSpreadLossyQps, o.lossAlpha);
    res.spreadLossyQps = spread.lossyQps;
    std::vector<double> lostCopies(np, 0.0), sent(np, 0.0);
    for (size_t i = 0; i < np; ++i)
    {
        if (spread.spreadRow[i] || paths[i].delayOnly)
        {
            continue;
        }
        lostCopies[i] = static_cast<double>(paths[i].lost);
        sent[i] = static_cast<double>(paths[i].packets);
    }
    const std::vector<LossClass> lc =
        FitLossClasses(PlaceLostCopies(inc, paths), lostCopies, sent, o.lossFloor,
                       o.minBadPaths, o.lossAlpha);
    for (size_t i = 0; i < np; ++i)
    {
        res.slowPaths += w[i] > 0 && above[i] >= res.delayFloorUs;
        res.lossyPaths += loss[i] >= tLoss;
    }

    // Frames per directed link, and the median over links of the same tiers (from, to): an
    // adaptive load balancer sends a link about what it can carry, so a slow link's share of
    // its peers' load estimates its rate / nominal.
    const auto& dl = obs.links.Links();
    std::vector<double> frames(dl.size(), 0.0);
    for (const auto& p : paths)
    {
        if (p.traced || p.qpn == kProbeStreamQpn)
        {
            // Lost on the way: not the link's load. A probe stream's: hashed onto its path,
            // not balanced by load, so its count says nothing of what the link can carry.
            continue;
        }
        for (const auto& fp : p.paths)
        {
            for (uint32_t l : fp.hops)
            {
                frames[l] += fp.packets;
            }
        }
    }
    std::map<std::pair<std::string, std::string>, std::vector<double>> peerLoads;
    for (size_t l = 0; l < dl.size(); ++l)
    {
        peerLoads[{TierOf(dl[l].from), TierOf(dl[l].to)}].push_back(frames[l]);
    }
    std::map<std::pair<std::string, std::string>, double> peerMedian;
    for (const auto& [k, v] : peerLoads)
    {
        peerMedian[k] = Median(v);
    }
    auto loadShare = [&](const std::vector<uint32_t>& cls) {
        double share = 0;
        for (uint32_t l : cls)
        {
            const double m = peerMedian[{TierOf(dl[l].from), TierOf(dl[l].to)}];
            share += m > 0 ? std::min(1.0, frames[l] / m) : 1.0;
        }
        return share / static_cast<double>(cls.size());
    };

    struct Row
    {
        Suspect s;
        double delay = 0;
        double marks = 0;
        bool slowOnly = false;          //!< named for its delay alone
        bool identifiable = true;       //!< its delay can be told from its QPs' intercepts
        double z = 0;                   //!< its delay in standard errors
        double slowP = 1;               //!< its slow-path count's p-value (slowCountP)
        std::vector<size_t> slowRows;   //!< its paths above the delay floor
    };
    std::vector<Row> rows;
    for (size_t c = 0; c < nc; ++c)
    {
        Row r;
        r.s.cls = static_cast<uint32_t>(c);
        r.s.links = inc.classes[c];
        r.delay = xd[c];
        double marks = 0, samples = 0;
        for (It it(inc.crosses, static_cast<Eigen::Index>(c)); it; ++it)
        {
            const size_t i = static_cast<size_t>(it.row());
            ++r.s.flows;
            if (w[i] > 0 && above[i] >= res.delayFloorUs)
            {
                ++r.s.slowFlows;
                r.slowRows.push_back(i);
            }
            r.s.lossyFlows += loss[i] >= tLoss;
            marks += static_cast<double>(paths[i].ecnAcks);
            samples += static_cast<double>(paths[i].rttSamples);
        }
        r.marks = samples > 0 ? marks / samples : 0.0;
        r.identifiable = fit.identifiable[c];
        r.z = r.identifiable ? zOf(c) : 0.0;
        r.slowP = r.identifiable && xd[c] > 0 ? slowCountP(c) : 1.0;
        // A class whose rate the size excess measured as nominal (its routes' median below
        // the floor, over at least minBadPaths routes) is not named slow for its delay: that
        // is queueing, not a slower link (under host spraying a slow link's PFC pauses
        // queue the links that feed it: named for 24.9 µs of fitted delay at an excess of 0,
        // 2026-12-07 bench). A link slowed less than the floor shows is then not named at
        // all: larger probes see milder slowdowns.
        const bool measuredNominal =
            size.classRoutes[c] >= o.minBadPaths && size.medianUs[c] < res.delayFloorUs;
        const bool aboveDelayCuts = r.identifiable && xd[c] >= cutOf(c) && r.z >= res.zCut &&
                                    r.s.slowFlows >= o.minBadPaths &&
                                    r.slowP <= res.slowCountAlpha;
        res.nominalByProbes += aboveDelayCuts && measuredNominal;
        const bool slowByDelay = aboveDelayCuts && !measuredNominal;
        const bool slow = slowByDelay || sizeSlow[c];
        const bool lossy = lc[c].named;
        r.s.named = slow || lossy;
        // Congestion spreading explains a delay, not a size excess (ProbeSizeExcess).
        r.slowOnly = slow && !lossy && !sizeSlow[c];
        // Named for its fitted delay, its losses or both: say which, not the share of its
        // paths above the delay floor (under spraying most paths are, healthy or not).
        r.s.namedFor = (slow ? NamedFor::Slow : NamedFor::None) |
                       (lossy ? NamedFor::Lossy : NamedFor::None);
        r.s.score = std::max({xd[c] / res.delayFloorUs, size.medianUs[c] / res.delayFloorUs,
                              lc[c].rate / o.lossFloor});
        // Confidence: how far the class stands above the delay cut, in [0, 1]; for losses, 1 -
        // the Bonferroni-adjusted p-value of its losses.
        r.s.confidence = std::min(1.0, xd[c] / cutOf(c) / 2);
        if (sizeSlow[c])
        {
            r.s.confidence = std::max(
                r.s.confidence, std::max(0.0, 1.0 - size.pValue[c] / res.sizeAlpha * o.delayAlpha));
        }
        if (lc[c].lost > 0)
        {
            r.s.confidence = std::max(
                r.s.confidence,
                std::max(0.0, 1.0 - lc[c].pValue * static_cast<double>(std::max<size_t>(nc, 1))));
        }
        // Rate: its load over the median load of its peers (same tiers), when its delay says
        // it is slow; a class named for its losses alone has no evidence of a lower rate (a
        // load balancer that avoids lossy paths moves load off a link that is not slow), and
        // its capacity lost is its loss rate.
        // From the size excess when it named the class (the serialisation a probe's bytes
        // took there, ProbeSizeExcess): a rate measured, not a share.
        r.s.rateFactor = sizeSlow[c] ? size.rateFactor[c] : slow ? loadShare(r.s.links) : 1.0;
        r.s.lossRate = lossy ? lc[c].rate : 0.0;
        rows.push_back(std::move(r));
    }
    // A group the spread-loss fit named is one row: its classes' links together (the copies
    // cannot say which of them lost), on the row of its member with the largest delay.
    if (!spread.named.empty())
    {
        const LinkClasses classOfLink(inc);
        std::vector<bool> mergedAway(nc, false);
        for (const SpreadLossGroup& g : spread.named)
        {
            std::set<size_t> members;
            for (uint32_t l : g.links)
            {
                const size_t c = classOfLink.Of(l);
                if (c < nc && !mergedAway[c])
                {
                    members.insert(c);
                }
            }
            if (members.empty())
            {
                continue;
            }
            size_t base = *members.begin();
            for (size_t m : members)
            {
                base = rows[m].delay > rows[base].delay ? m : base;
            }
            std::set<uint32_t> links;
            std::set<size_t> crossing;
            for (size_t m : members)
            {
                links.insert(inc.classes[m].begin(), inc.classes[m].end());
                for (It it(inc.crosses, static_cast<Eigen::Index>(m)); it; ++it)
                {
                    crossing.insert(static_cast<size_t>(it.row()));
                }
                mergedAway[m] = m != base;
            }
            Row& r = rows[base];
            r.s.links.assign(links.begin(), links.end());
            r.s.flows = static_cast<uint32_t>(crossing.size());
            r.s.slowFlows = 0;
            r.s.lossyFlows = 0;
            r.slowRows.clear();
            for (size_t i : crossing)
            {
                if (w[i] > 0 && above[i] >= res.delayFloorUs)
                {
                    ++r.s.slowFlows;
                    r.slowRows.push_back(i);
                }
                r.s.lossyFlows += loss[i] >= tLoss;
            }
            r.s.named = true;
            r.s.namedFor = r.s.namedFor | NamedFor::Lossy;
            r.slowOnly = false;
            r.s.lossRate = std::max(r.s.lossRate, g.rate);
            r.s.score = std::max(r.s.score, g.rate / o.lossFloor);
            r.s.confidence = std::max(
                r.s.confidence,
                std::max(0.0, 1.0 - g.pValue * static_cast<double>(std::max<size_t>(
                                                   spread.groups, 1))));
        }
        std::vector<Row> kept;
        for (size_t c = 0; c < rows.size(); ++c)
        {
            if (!mergedAway[rows[c].s.cls])
            {
                kept.push_back(std::move(rows[c]));
            }
        }
        rows = std::move(kept);
    }
    // Congestion spreading: largest delay first, a class named for delay alone whose slow paths
    // mostly continue into an already named class with a larger delay is explained by it.
    std::vector<size_t> order(rows.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return rows[a].delay > rows[b].delay; });
    std::vector<size_t> kept;
    for (size_t k : order)
    {
        Row& r = rows[k];
        if (!r.s.named)
        {
            continue;
        }
        // Congestion spreading: explained by a named class with a larger delay whose link its
        // slow paths mostly continue into (FeedsInto), or whose switch they mostly reach
        // (PausedBy: PFC pauses a slow egress's ingress links, since 2026-12-05), unless that
        // class holds the other direction of one of its cables (a degraded cable slows both).
        auto sameCable = [&](const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
            return std::any_of(a.begin(), a.end(), [&](uint32_t x) {
                return std::any_of(b.begin(), b.end(),
                                   [&](uint32_t y) { return dl[x].linkId == dl[y].linkId; });
            });
        };
        const bool explained = r.slowOnly && std::any_of(kept.begin(), kept.end(), [&](size_t d) {
            return rows[d].delay > r.delay && !sameCable(r.s.links, rows[d].s.links) &&
                   PausedBy(paths, r.slowRows, r.s.links, rows[d].s.links, obs.links) >= 0.5;
        });
        if (explained)
        {
            r.s.named = false;
            r.s.namedFor = NamedFor::None;
            r.s.rateFactor = 1.0;
            ++res.explained;
            continue;
        }
        kept.push_back(k);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        if (a.s.named != b.s.named)
        {
            return a.s.named;
        }
        return a.s.score > b.s.score;
    });
    for (auto& r : rows)
    {
        res.named += r.s.named;
        res.delayUs.push_back(r.identifiable ? r.delay
                                             : std::numeric_limits<double>::quiet_NaN());
        res.delayZ.push_back(r.z);
        res.slowCountP.push_back(r.slowP);
        res.markRate.push_back(r.marks);
        const size_t c = r.s.cls;
        res.sizeExcessUs.push_back(size.classRoutes[c] > 0
                                       ? size.medianUs[c]
                                       : std::numeric_limits<double>::quiet_NaN());
        res.sizeExcessQ1Us.push_back(size.classRoutes[c] > 0
                                         ? size.lowerQuartileUs[c]
                                         : std::numeric_limits<double>::quiet_NaN());
        res.sizeExcessRoutes.push_back(size.classRoutes[c]);
        res.sizeExcessP.push_back(size.pValue[c]);
        res.sizeNamed.push_back(sizeSlow[c]);
        res.ranking.push_back(std::move(r.s));
    }
    // Ties of the loss fit, by ranking index.
    const size_t absent = std::numeric_limits<size_t>::max(); // merged into a spread group
    std::vector<size_t> rankOf(nc, absent);
    for (size_t k = 0; k < res.ranking.size(); ++k)
    {
        rankOf[res.ranking[k].cls] = k;
    }
    for (size_t k = 0; k < res.ranking.size(); ++k)
    {
        const LossClass& t = lc[res.ranking[k].cls];
        if (t.tiedWith < 0 || rankOf[static_cast<size_t>(t.tiedWith)] == absent)
        {
            continue;
        }
        const LossClass& n = lc[static_cast<size_t>(t.tiedWith)];
        LossTie tie;
        tie.named = rankOf[static_cast<size_t>(t.tiedWith)];
        tie.tied = k;
        tie.lost = n.lost;
        tie.lossyPaths = n.lossyPaths;
        tie.namedRate = n.rate;
        tie.tiedRate = t.tiedRate;
        tie.namedPValue = n.pValue;
        tie.tiedPValue = t.tiedPValue;
        res.lossTies.push_back(tie);
    }
    std::sort(res.lossTies.begin(), res.lossTies.end(), [](const LossTie& a, const LossTie& b) {
        return std::tie(a.named, a.tied) < std::tie(b.named, b.tied);
    });
    return res;
}

} // namespace locate
} // namespace tusk
