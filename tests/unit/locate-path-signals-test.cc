// tusk locate from per-path telemetry (tusk/locate/path-signals.h): which paths carry a
// delay signal. A path's signal is its smallest RTT over the smallest of its QP's other paths of
// the same length; a QP that sent on one path only (ECMP, switch-side adaptive routing) has no
// reference, so its path says nothing about the links it crossed and must not pull their
// fitted delays to 0, and `--evidence auto` must not rank from such telemetry.

#include "locate/evidence-choice.h"
#include "locate/path-report.h"
#include "locate/path-signals.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk::locate;

namespace
{

/** host0..host3 -> s0 -> {a | b} -> s1 -> host4: link ids 0..3 the host uplinks, 4 s0->a,
 *  5 s0->b, 6 a->s1, 7 b->s1, 8 s1->host4; `more` appended. */
LinkIndex
TwoPathFabric(std::vector<DirectedLink> more = {})
{
    std::vector<DirectedLink> links = {{0, "host0", "s0"}, {1, "host1", "s0"}, {2, "host2", "s0"},
                                   {3, "host3", "s0"}, {4, "s0", "a"},     {5, "s0", "b"},
                                   {6, "a", "s1"},     {7, "b", "s1"},     {8, "s1", "host4"}};
    links.insert(links.end(), more.begin(), more.end());
    return LinkIndex(links);
}

/** One paths.csv row of QP `qpn` at host `src` to host4, via "a" or "b", its smallest RTT. */
PathObservation
Row(const LinkIndex& links, uint32_t src, uint32_t qpn, char via, double rttMinUs)
{
    PathObservation p;
    p.src = src;
    p.dst = 4;
    p.qpn = qpn;
    p.packets = 10;
    p.rttSamples = 10;
    p.rttMinUs = rttMinUs;
    p.rttMedianUs = rttMinUs;
    const std::string path = std::to_string(src) + (via == 'a' ? ">4>6>8" : ">5>7>8");
    FlowPath fp;
    fp.hops = links.Walk(path, "host" + std::to_string(src), "host4");
    fp.packets = 10;
    p.paths.push_back(fp);
    return p;
}

} // namespace

TEST_CASE("locate paths: a QP with one path has no reference and stays out of the delay fit",
          "[unit][locate]")
{
    Observations obs;
    obs.links = TwoPathFabric();
    // QPs at host0 and host1 spray over a and b: via a their smallest RTT is 10 us longer.
    // QPs at host2 and host3 sent everything via a (one entropy value): 30 us, no sibling.
    std::vector<PathObservation> rows = {
        Row(obs.links, 0, 1, 'a', 20), Row(obs.links, 0, 1, 'b', 10),
        Row(obs.links, 1, 1, 'a', 20), Row(obs.links, 1, 1, 'b', 10),
        Row(obs.links, 2, 1, 'a', 30), Row(obs.links, 3, 1, 'a', 30)};
    const PathLocateResult r = LocateFromPaths(obs, rows, PathLocateOptions());
    CHECK(r.comparedPaths == 4);
    REQUIRE(!r.ranking.empty());
    // First: the class {s0->a, a->s1} (crossed by the same paths), with the 10 us its compared
    // paths show. Counting the lone paths as 0 us (their own base) would fit 5 us: least
    // squares of 10, 10, 0, 0 on one unknown.
    const auto& top = r.ranking[0].links;
    REQUIRE(top.size() == 2);
    CHECK(obs.links.Links()[top[0]].Name() == "s0->a");
    CHECK(obs.links.Links()[top[1]].Name() == "a->s1");
    CHECK(r.delayUs[0] == Approx(10.0).epsilon(1e-3));
}

TEST_CASE("locate paths: per-path telemetry is comparable when half the QPs used two paths",
          "[unit][locate]")
{
    const LinkIndex links = TwoPathFabric();
    // ECMP or switch-side AR: every QP one entropy value, one row.
    std::vector<PathObservation> rows = {Row(links, 0, 1, 'a', 10), Row(links, 1, 1, 'b', 10),
                                         Row(links, 2, 1, 'a', 10), Row(links, 3, 1, 'b', 10)};
    CHECK_FALSE(PathsComparable(rows));
    // One QP of four sprays: still not.
    rows.push_back(Row(links, 0, 1, 'b', 10));
    CHECK_FALSE(PathsComparable(rows));
    // Two of four: yes (host spraying, REPS).
    rows.push_back(Row(links, 1, 1, 'a', 10));
    CHECK(PathsComparable(rows));
    // Two rows of one QP with paths of different lengths do not compare.
    std::vector<PathObservation> mixed = {Row(links, 0, 1, 'a', 10)};
    PathObservation longer = Row(links, 0, 1, 'b', 12);
    longer.paths[0].hops.push_back(longer.paths[0].hops.back());
    mixed.push_back(longer);
    CHECK_FALSE(PathsComparable(mixed));
    CHECK_FALSE(PathsComparable({}));
}

TEST_CASE("locate paths: a class feeds a slower one when its paths continue into it",
          "[unit][locate]")
{
    // Under PFC a slow link pauses the links feeding it: paths through s0->a are slow because
    // they continue into a->s1 (FeedsInto 1), and a named a->s1 with the larger delay explains
    // s0->a. Paths that do not cross s0->a do not count; a link before, not after, does not
    // feed.
    const LinkIndex links = TwoPathFabric();
    const std::vector<PathObservation> rows = {Row(links, 0, 1, 'a', 20),
                                               Row(links, 1, 1, 'a', 20),
                                               Row(links, 0, 1, 'b', 10)};
    auto id = [&](const std::string& name) {
        for (uint32_t l = 0; l < links.Links().size(); ++l)
        {
            if (links.Links()[l].Name() == name)
            {
                return l;
            }
        }
        FAIL("no link " << name);
        return 0u;
    };
    const std::vector<uint32_t> up = {id("s0->a")}, down = {id("a->s1")};
    CHECK(FeedsInto(rows, {0, 1}, up, down) == 1.0);
    CHECK(FeedsInto(rows, {0, 1, 2}, up, down) == Approx(2.0 / 3.0)); // row 2 does not cross s0->a
    CHECK(FeedsInto(rows, {0, 1}, down, up) == 0.0);                  // s0->a comes before a->s1
    CHECK(FeedsInto(rows, {0, 1}, up, {id("s1->host4")}) == 1.0);
    CHECK(FeedsInto(rows, {0, 1}, up, {id("b->s1")}) == 0.0);
    CHECK(FeedsInto(rows, {}, up, down) == 0.0);
}

TEST_CASE("locate paths: lost copies name the class every lossy path crosses, and only it",
          "[unit][locate]")
{
    Observations obs;
    obs.links = TwoPathFabric();
    // Four QPs spray 100 packets over a and b each; via a, three of them lost a copy (1 % of
    // the 300 packets a's paths carried). Host uplinks 0..2 each carry one lossy path too, but
    // so do their paths via b, which lost nothing.
    std::vector<PathObservation> rows;
    for (uint32_t src = 0; src < 4; ++src)
    {
        for (char via : {'a', 'b'})
        {
            PathObservation p = Row(obs.links, src, 1, via, 10);
            p.packets = 100;
            p.paths[0].packets = 100;
            p.lost = (via == 'a' && src < 3) ? 1 : 0;
            rows.push_back(p);
        }
    }
    PathLocateResult r = LocateFromPaths(obs, rows, PathLocateOptions());
    REQUIRE(r.named == 1);
    const auto& top = r.ranking[0];
    REQUIRE(top.links.size() == 2);
    CHECK(obs.links.Links()[top.links[0]].Name() == "s0->a");
    CHECK(top.lossRate == Approx(3.0 / 400)); // 3 lost copies of the 400 packets via a
    CHECK(top.rateFactor == 1.0);             // losses alone say nothing of its rate
    CHECK(top.lossyFlows == 3);

    // One lossy path is not enough to blame a link (it could be that path's own trouble).
    for (size_t i = 0; i < rows.size(); ++i)
    {
        rows[i].lost = i == 0 ? 1 : 0; // host0 via a
    }
    r = LocateFromPaths(obs, rows, PathLocateOptions());
    CHECK(r.named == 0);

    // No loss at all: nothing named, however many paths there are.
    for (auto& p : rows)
    {
        p.lost = 0;
    }
    r = LocateFromPaths(obs, rows, PathLocateOptions());
    CHECK(r.named == 0);
}

TEST_CASE("locate paths: a class with fewer than half a lost copy has p-value 1, not an error",
          "[unit][locate]")
{
    // Lost copies are shared among the classes a path crosses, and a named class's share is
    // explained away, so a class may hold 0.4 of a copy. P(X >= 0) = 1: before, the Poisson
    // tail was asked for P(X <= -1) and boost threw (`tusk locate` exited "internal error" on a
    // REPS run with a 60 % lossy link).
    Eigen::SparseMatrix<double> share(1, 2);
    share.insert(0, 0) = 0.9; // class 0 carries 90 % of the path's packets
    share.insert(0, 1) = 0.1; // class 1 the rest
    std::vector<LossClass> c;
    REQUIRE_NOTHROW(c = FitLossClasses(share, {4.0}, {100.0}, 0.001, 1, 0.01));
    REQUIRE(c.size() == 2);
    CHECK(c[1].lost == Approx(0.4));
    CHECK(c[1].pValue == 1.0);
    CHECK_FALSE(c[1].named);
}

namespace
{

constexpr uint32_t kLeaves = 16;
constexpr uint32_t kSpines = 4;
constexpr uint32_t kHostsPerLeaf = 2;
constexpr uint32_t kRowsPerSpine = 128; //!< entropy values per spine, QP and run

/** A leaf-spine fabric, 16 leaves x 4 spines (as a k = 8 fat tree's ToR has 4 uplinks), 2
 *  hosts a leaf: host h on leaf h / 2; link ids: 0..31 host uplinks, 32..63 leaf -> host
 *  downlinks, then leaf l -> spine s (64 + 4 l + s) and spine s -> leaf l (128 + 4 l + s). */
LinkIndex
LeafSpine()
{
    std::vector<DirectedLink> l;
    const uint32_t hosts = kLeaves * kHostsPerLeaf;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        l.push_back({h, "host" + std::to_string(h), "leaf" + std::to_string(h / kHostsPerLeaf)});
    }
    for (uint32_t h = 0; h < hosts; ++h)
    {
        l.push_back({hosts + h, "leaf" + std::to_string(h / kHostsPerLeaf),
                     "host" + std::to_string(h)});
    }
    for (uint32_t f = 0; f < kLeaves; ++f)
    {
        for (uint32_t s = 0; s < kSpines; ++s)
        {
            l.push_back({2 * hosts + kSpines * f + s, "leaf" + std::to_string(f),
                         "spine" + std::to_string(s)});
        }
    }
    for (uint32_t f = 0; f < kLeaves; ++f)
    {
        for (uint32_t s = 0; s < kSpines; ++s)
        {
            l.push_back({2 * hosts + kLeaves * kSpines + kSpines * f + s,
                         "spine" + std::to_string(s), "leaf" + std::to_string(f)});
        }
    }
    return LinkIndex(l);
}

/** The link index of leaf f's uplink to spine s, and of spine s's downlink to leaf f, in
 *  LeafSpine(): the host links first (2 per host), then the uplinks, then the downlinks. */
uint32_t
UpLink(uint32_t f, uint32_t s)
{
    return 2 * kLeaves * kHostsPerLeaf + kSpines * f + s;
}

uint32_t
DownLink(uint32_t f, uint32_t s)
{
    return 2 * kLeaves * kHostsPerLeaf + kLeaves * kSpines + kSpines * f + s;
}

/** One sprayed path of QP 1 from host h to host d (kLeaves x kHostsPerLeaf hosts), up leaf
 *  link `up` and down spine link `down` (link indices): a packet and an RTT sample of rttUs. */
PathObservation
SprayedPath(const LinkIndex& links, uint32_t h, uint32_t up, uint32_t down, uint32_t d,
            double rttUs, uint32_t run = 0)
{
    const uint32_t hosts = kLeaves * kHostsPerLeaf;
    PathObservation p;
    p.run = run;
    p.src = h;
    p.dst = d;
    p.qpn = 1;
    p.packets = 1;
    p.rttSamples = 1;
    p.rttMinUs = rttUs;
    p.rttMedianUs = rttUs;
    FlowPath fp;
    fp.hops = links.Walk(std::to_string(h) + ">" + std::to_string(up) + ">" +
                             std::to_string(down) + ">" + std::to_string(hosts + d),
                         "host" + std::to_string(h), "host" + std::to_string(d));
    fp.packets = 1;
    p.paths.push_back(fp);
    return p;
}

/** One run of the sprayed permutation over LeafSpine(), appended to `rows`: host h's QP sends
 *  to the host one leaf on (even h) or two (odd h), kRowsPerSpine rows over each spine, in
 *  host, spine, row order; a row's smallest RTT is rtt(source leaf, spine, whether it is its
 *  QP's first row, uplink, downlink), µs. */
template <class Rtt>
void
SprayPermutation(const LinkIndex& links, uint32_t run, std::vector<PathObservation>& rows,
                 Rtt&& rtt)
{
    const uint32_t hosts = kLeaves * kHostsPerLeaf;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        const uint32_t d = (h + kHostsPerLeaf * (1 + h % kHostsPerLeaf)) % hosts;
        const uint32_t fs = h / kHostsPerLeaf, fd = d / kHostsPerLeaf;
        for (uint32_t s = 0; s < kSpines; ++s)
        {
            const uint32_t up = UpLink(fs, s), down = DownLink(fd, s);
            for (uint32_t e = 0; e < kRowsPerSpine; ++e)
            {
                rows.push_back(SprayedPath(links, h, up, down, d,
                                           rtt(fs, s, s == 0 && e == 0, up, down), run));
            }
        }
    }
}

/**
 * Four runs of oblivious spraying over LeafSpine(): host h's one QP sends to a host one leaf
 * on (even h) or two (odd h), 128 entropy values over each spine per run (a fresh entropy per packet). Each
 * row's smallest RTT: 10 µs, plus a common offset of the QP (0..3 µs: its host links, its
 * receiver's queue), plus exponential queueing of mean 0.8 µs drawn per row, plus `faultUs`
 * on rows via leaf0 -> spine3. Measured from the QP's fastest of its 512 rows of a run, a
 * typical path is about 0.8 µs slow: what the fit without intercepts put on the host links.
 */
std::vector<PathObservation>
SprayedRuns(const LinkIndex& links, double faultUs, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<double> queueing(0.0, 0.3);
    std::uniform_real_distribution<double> offset(0.0, 3.0);
    std::vector<PathObservation> rows;
    for (uint32_t run = 0; run < 4; ++run)
    {
        double common = 0;
        SprayPermutation(links, run, rows, [&](uint32_t fs, uint32_t s, bool firstOfQp, uint32_t,
                                               uint32_t) {
            common = firstOfQp ? offset(rng) : common; // drawn once per QP, before its rows
            return 10 + common + queueing(rng) + (fs == 0 && s == 3 ? faultUs : 0);
        });
    }
    return rows;
}

} // namespace

TEST_CASE("locate paths: under spraying a QP's common offset is not put on its host links",
          "[unit][locate]")
{
    // Every path of a sprayed QP crosses its two host links, so per-path delays, differences
    // between a QP's paths, say nothing about them: they are confounded with the QP's common
    // offset (intercept). The fit without intercepts handed them the ~1 µs by which a QP's
    // typical path is slower than its fastest, and the pooled runs named them (OPS all-reduce,
    // 4 runs: healthy host links in 20/20 placements).
    Observations obs;
    obs.links = LeafSpine();
    obs.mtuBytes = 4096;
    obs.nominalRateBps = 100e9; // a frame: 0.33 µs; the delay floor 0.16 µs
    auto name = [&](const Suspect& s) { return obs.links.Links()[s.links.front()].Name(); };

    const PathLocateResult r = LocateFromPaths(obs, SprayedRuns(obs.links, 1.0, 7), {});
    REQUIRE(r.named >= 1);
    CHECK(name(r.ranking[0]) == "leaf0->spine3");
    CHECK(r.ranking[0].links.size() == 1);
    CHECK(r.delayUs[0] == Approx(1.0).margin(0.15));
    CHECK(r.named == 1);
    // The host links: one class per QP (host h -> leaf and leaf -> host h + 4), none named,
    // their delay not estimated (NaN), and counted as not identifiable.
    CHECK(r.unidentifiable == kLeaves * kHostsPerLeaf);
    for (size_t i = 0; i < r.ranking.size(); ++i)
    {
        CAPTURE(name(r.ranking[i]));
        const bool hostLink = name(r.ranking[i]).rfind("host", 0) == 0 ||
                              name(r.ranking[i]).find("->host") != std::string::npos;
        CHECK(std::isnan(r.delayUs[i]) == hostLink);
        CHECK_FALSE((hostLink && r.ranking[i].named));
    }

    // Healthy: nothing named.
    const PathLocateResult h = LocateFromPaths(obs, SprayedRuns(obs.links, 0.0, 8), {});
    CHECK(h.named == 0);
    CHECK(h.unidentifiable == kLeaves * kHostsPerLeaf);
}

namespace
{

/**
 * One run of oblivious spraying over LeafSpine(), each QP as in SprayedRuns, whose links queue
 * by tier: each leaf -> spine uplink adds a fixed delay drawn from an exponential of mean
 * `upMeanUs` (a congested tier: the hosts' bursts, PFC pauses), each spine -> leaf downlink
 * one of mean `downMeanUs`, every row a normal jitter of 0.3 µs, and the links of `extra` their
 * added delay besides (a slow link).
 */
std::vector<PathObservation>
TieredRun(const LinkIndex& links, double upMeanUs, double downMeanUs,
          const std::map<std::string, double>& extra, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<double> jitter(0.0, 0.3);
    std::exponential_distribution<double> up(1.0 / upMeanUs), down(1.0 / downMeanUs);
    std::vector<double> linkUs(links.Links().size(), 0.0);
    for (uint32_t l = 0; l < links.Links().size(); ++l)
    {
        const auto& dl = links.Links()[l];
        if (dl.from.rfind("leaf", 0) == 0 && dl.to.rfind("spine", 0) == 0)
        {
            linkUs[l] = up(rng);
        }
        else if (dl.from.rfind("spine", 0) == 0)
        {
            linkUs[l] = down(rng);
        }
        const auto it = extra.find(dl.Name());
        linkUs[l] += it == extra.end() ? 0.0 : it->second;
    }
    std::vector<PathObservation> rows;
    SprayPermutation(links, 0, rows, [&](uint32_t, uint32_t, bool, uint32_t up, uint32_t down) {
        return 10 + linkUs[up] + linkUs[down] + jitter(rng);
    });
    return rows;
}

} // namespace

TEST_CASE("locate paths: a class must stand out among its own tier and not only among all classes",
          "[unit][locate]")
{
    // The 128-host permutation of 2 x 2 MiB per host under oblivious spraying (bench,
    // 2026-12-06): the ToR uplinks' fitted delays spread over 0-15 µs, the core links' stayed
    // below 4 µs, and one exponential tail cut over all of them (about 13 µs) named the most
    // queued healthy uplink in 12 of 20 runs without a fault. Here the uplinks queue 3 µs on
    // average and the downlinks 0.2 µs.
    Observations obs;
    obs.links = LeafSpine();
    obs.mtuBytes = 4096;
    obs.nominalRateBps = 100e9;
    auto name = [&](const Suspect& s) { return obs.links.Links()[s.links.front()].Name(); };
    PathLocateOptions pooledOnly;
    pooledOnly.minTierClasses = 1000000; // no tier has that many: the pooled cut alone

    const auto healthy = TieredRun(obs.links, 3.0, 0.2, {}, 11);
    const PathLocateResult before = LocateFromPaths(obs, healthy, pooledOnly);
    const PathLocateResult h = LocateFromPaths(obs, healthy, {});
    CAPTURE(before.delayCutUs, h.delayCutUs);
    // The pooled cut alone names healthy uplinks (what the tier cut is for) ...
    CHECK(before.tierDelayCutUs.empty());
    REQUIRE(before.named >= 1);
    CHECK(name(before.ranking[0]).find("->spine") != std::string::npos);
    // ... the tier's own cut, set by its own queueing, does not.
    CHECK(h.named == 0);
    REQUIRE(h.tierDelayCutUs.count("leaf->spine") == 1);
    REQUIRE(h.tierDelayCutUs.count("spine->leaf") == 1);
    CHECK(h.delayCutUs == Approx(before.delayCutUs)); // the pooled cut is still computed
    CHECK(h.tierDelayCutUs.at("leaf->spine") > h.delayCutUs);
    CHECK(h.tierDelayCutUs.at("spine->leaf") < h.delayCutUs);
    CHECK(h.tierDelayCutUs.count("host->leaf") == 0); // host links: not identifiable

    // A slow uplink (40 µs, as a cable at 1/4 under load) stands out among its tier too, and
    // a slow downlink (20 µs) passes the pooled cut, the larger of the two for it.
    const PathLocateResult f =
        LocateFromPaths(obs, TieredRun(obs.links, 3.0, 0.2, {{"leaf5->spine2", 40.0}}, 11), {});
    REQUIRE(f.named >= 1);
    CHECK(name(f.ranking[0]) == "leaf5->spine2");
    CHECK(f.named == 1);
    const PathLocateResult g =
        LocateFromPaths(obs, TieredRun(obs.links, 3.0, 0.2, {{"spine1->leaf9", 20.0}}, 11), {});
    REQUIRE(g.named >= 1);
    CHECK(name(g.ranking[0]) == "spine1->leaf9");
    CHECK(g.named == 1);
}

TEST_CASE("locate paths: the fit with group intercepts recovers within-group contrasts and "
          "flags columns constant within their groups",
          "[unit][locate]")
{
    // Rows 0..3 in group 0, rows 4..7 in group 1. Column 0 is crossed by every row of group 0
    // (confounded with its intercept); column 1 by rows 0, 1 and 4; column 2 by rows 2, 3 and
    // 5. y = intercept (5 and -2) + 3 x [column 1] + 0 x [column 2] + 7 x [column 0].
    Eigen::SparseMatrix<double> a(8, 3);
    std::vector<Eigen::Triplet<double>> t;
    for (int f = 0; f < 4; ++f)
    {
        t.emplace_back(f, 0, 1.0);
    }
    for (int f : {0, 1, 4})
    {
        t.emplace_back(f, 1, 1.0);
    }
    for (int f : {2, 3, 5})
    {
        t.emplace_back(f, 2, 1.0);
    }
    a.setFromTriplets(t.begin(), t.end());
    const std::vector<uint32_t> group = {0, 0, 0, 0, 1, 1, 1, 1};
    std::vector<double> y(8);
    for (int f = 0; f < 8; ++f)
    {
        y[f] = (f < 4 ? 5.0 + 7.0 : -2.0) + ((f == 0 || f == 1 || f == 4) ? 3.0 : 0.0);
    }
    const GroupNnlsFit fit = NnlsGroupIntercepts(a, y, {}, group, 2, {}, 1e-12);
    CHECK_FALSE(fit.identifiable[0]);
    CHECK(fit.x[0] == 0.0);
    CHECK(fit.identifiable[1]);
    CHECK(fit.identifiable[2]);
    CHECK(fit.x[1] == Approx(3.0).margin(1e-9));
    CHECK(fit.x[2] == Approx(0.0).margin(1e-9));
    // Group 0's intercept absorbs column 0's 7 (5 + 7).
    CHECK(fit.intercept[0] == Approx(12.0).margin(1e-9));
    CHECK(fit.intercept[1] == Approx(-2.0).margin(1e-9));
    // Within-group variation of column 1: group 0 (1, 1, 0, 0) -> 4 x 0.25, group 1 (1, 0, 0,
    // 0) -> 0.75.
    CHECK(fit.contrast[1] == Approx(1.75));
    CHECK_THROWS_AS(NnlsGroupIntercepts(a, y, {}, std::vector<uint32_t>(8, 2), 2),
                    std::invalid_argument);
}

TEST_CASE("locate paths: a path reaching the switch a slow link leaves is paused by it",
          "[unit][locate]")
{
    // Under PFC the switch whose egress is slow pauses its ingress links: paths through s0->a
    // reach a, which a->s1 leaves, so they wait whether or not they take a->s1. Paths through
    // host0->s0 reach s0, which s0->b leaves; a path that never reaches the switch is not.
    const LinkIndex links = TwoPathFabric();
    const std::vector<PathObservation> rows = {Row(links, 0, 1, 'a', 20),
                                               Row(links, 1, 1, 'b', 20)};
    auto id = [&](const std::string& name) {
        for (uint32_t l = 0; l < links.Links().size(); ++l)
        {
            if (links.Links()[l].Name() == name)
            {
                return l;
            }
        }
        FAIL("no link " << name);
        return 0u;
    };
    CHECK(PausedBy(rows, {0}, {id("s0->a")}, {id("a->s1")}, links) == 1.0);
    CHECK(FeedsInto(rows, {0}, {id("host0->s0")}, {id("s0->b")}) == 0.0); // not its link
    CHECK(PausedBy(rows, {0}, {id("host0->s0")}, {id("s0->b")}, links) == 1.0); // its switch
    CHECK(PausedBy(rows, {1}, {id("s0->b")}, {id("a->s1")}, links) == 0.0);     // never at a
    CHECK(PausedBy(rows, {0, 1}, {id("s1->host4")}, {id("s0->a")}, links) == 0.0); // s0 before
    CHECK(PausedBy(rows, {}, {id("s0->a")}, {id("a->s1")}, links) == 0.0);
    // A sibling egress of the slow link (s0->b beside s0->a): its frames entered s0 over the
    // ingress links s0 paused and waited there, before taking s0->b.
    CHECK(FeedsInto(rows, {1}, {id("s0->b")}, {id("s0->a")}) == 0.0);
    CHECK(PausedBy(rows, {1}, {id("s0->b")}, {id("s0->a")}, links) == 1.0);
    CHECK(PausedBy(rows, {1}, {id("b->s1")}, {id("s0->a")}, links) == 0.0); // leaves b, not s0
}

namespace
{

constexpr uint32_t kSenders = 64;   //!< host0..host63, one QP each, all to host64
constexpr uint32_t kMiddles = 16;   //!< s0 -> m<k> -> s1: one class per middle switch
constexpr uint32_t kBusyMiddles = 12;

/** host<i> -> s0 (link i), s0 -> m<k> (100 + k), m<k> -> s1 (200 + k), s1 -> host64 (300). */
LinkIndex
MiddleFabric()
{
    std::vector<DirectedLink> l;
    for (uint32_t i = 0; i < kSenders; ++i)
    {
        l.push_back({i, "host" + std::to_string(i), "s0"});
    }
    for (uint32_t k = 0; k < kMiddles; ++k)
    {
        l.push_back({100 + k, "s0", "m" + std::to_string(k)});
        l.push_back({200 + k, "m" + std::to_string(k), "s1"});
    }
    l.push_back({300, "s1", "host" + std::to_string(kSenders)});
    return LinkIndex(l);
}

/** One entropy of sender `src`'s QP via middle `k`: `samples` RTT samples, smallest `rttMinUs`. */
PathObservation
MiddleRow(const LinkIndex& links, uint32_t src, uint32_t k, uint64_t samples, double rttMinUs)
{
    PathObservation p;
    p.src = src;
    p.dst = kSenders;
    p.qpn = 1;
    p.packets = samples;
    p.rttSamples = samples;
    p.rttMinUs = rttMinUs;
    p.rttMedianUs = rttMinUs;
    FlowPath fp;
    fp.hops = links.Walk(std::to_string(src) + ">" + std::to_string(100 + k) + ">" +
                             std::to_string(200 + k) + ">300",
                         "host" + std::to_string(src), "host" + std::to_string(kSenders));
    fp.packets = samples;
    p.paths.push_back(fp);
    return p;
}

} // namespace

TEST_CASE("locate paths: entropies tried once do not name a sparse healthy class, a slow class "
          "seen once per sender does",
          "[unit][locate]")
{
    // The failure of REPS in the 1,024-host all-reduce (docs/locate-bench-runs.md,
    // 2026-12-05): a path's smallest RTT is the smallest of its samples, each its fixed
    // delays plus that packet's queueing. A busy entropy (32 samples) reaches the floor: it fits exactly, and those
    // paths set sigma = 1.4826 x the median absolute residual near 0. An entropy REPS tried
    // once or twice keeps that packet's queueing, which is heavy-tailed: most one-packet paths
    // do not queue, about one in five queues for 0.4 to 2 µs. A class crossed only by a few
    // such entropies, 3 of 5 of them queued, fits ~0.5 µs at z >> the Bonferroni normal
    // quantile: the z-guard names it. Its slow-path count (3 of 5 at least halfway to its
    // fitted delay) is what one- and two-packet paths show anywhere (~1 in 5 queue that
    // much), so the count test (slowCountP) does not. A link at 1/4 of its
    // rate adds 3 frames (~1 µs) to every packet that crosses it: 12 senders that each tried
    // it once or twice are all slow, which one-packet paths are not (p ~ 0.2^12).
    Observations obs;
    obs.links = MiddleFabric();
    obs.mtuBytes = 4096;
    obs.nominalRateBps = 100e9; // a frame: 0.328 µs; the delay floor 0.164 µs
    const double frame = 8 * 4096 / 100e9 * 1e6;
    auto name = [&](const Suspect& s) { return obs.links.Links()[s.links.front()].Name(); };
    auto build = [&](bool fault) {
        std::mt19937 gen(2026); // raw 32-bit draws: the same numbers under every library
        auto uniform = [&]() { return (static_cast<double>(gen()) + 0.5) / 4294967296.0; };
        // One packet's queueing: 0 with probability 0.8, else 0.4 µs plus an exponential of
        // mean 0.5 µs (by inversion).
        auto queueing = [&]() {
            const double u = uniform();
            const double v = uniform();
            return u < 0.8 ? 0.0 : 0.4 - 0.5 * std::log(v);
        };
        std::vector<PathObservation> rows;
        for (uint32_t i = 0; i < kSenders; ++i)
        {
            for (uint32_t k = 0; k < kBusyMiddles; ++k)
            {
                rows.push_back(MiddleRow(obs.links, i, k, 32, 10.0)); // at the floor
            }
            for (uint32_t j = 0; j < 3; ++j) // entropies tried once or twice, anywhere busy
            {
                const uint64_t n = 1 + (gen() % 2);
                rows.push_back(
                    MiddleRow(obs.links, i, gen() % kBusyMiddles, n, 10.0 + queueing()));
            }
        }
        // The sparse healthy class m12: five senders tried it once or twice, three of those
        // packets queued (0.6-1.2 µs; a z-guard with the busy paths' sigma passes them).
        const double sparse[5] = {0.9, 0.0, 0.6, 1.2, 0.0};
        for (uint32_t i = 0; i < 5; ++i)
        {
            rows.push_back(MiddleRow(obs.links, 40 + i, 12, 1 + i % 2, 10.0 + sparse[i]));
        }
        // m13: twelve senders tried it once or twice; at 1/4 of its rate each packet is 3
        // frames later, plus its own queueing.
        for (uint32_t i = 0; i < 12; ++i)
        {
            rows.push_back(MiddleRow(obs.links, 2 * i, 13, 1 + i % 2,
                                     10.0 + (fault ? 3 * frame : 0.0) + queueing()));
        }
        return rows;
    };

    for (bool fault : {true, false})
    {
        CAPTURE(fault);
        const PathLocateResult r = LocateFromPaths(obs, build(fault), PathLocateOptions());
        bool sparseSeen = false;
        for (size_t i = 0; i < r.ranking.size(); ++i)
        {
            const std::string n = name(r.ranking[i]);
            CAPTURE(n, r.delayUs[i], r.delayZ[i], r.slowCountP[i]);
            if (n == "s0->m12")
            {
                sparseSeen = true;
                // The shape of the failure: every cut before the count test passes.
                CHECK(r.delayUs[i] >= r.delayCutUs);
                CHECK(r.delayZ[i] >= r.zCut);
                CHECK(r.ranking[i].slowFlows >= 2);
                // ... and the count test does not: 3 slow of 5 one- or two-packet paths.
                CHECK(r.slowCountP[i] > 0.01);
                CHECK_FALSE(r.ranking[i].named);
            }
            else if (n == "s0->m13")
            {
                CHECK(r.ranking[i].named == fault);
                if (fault)
                {
                    CHECK(i == 0);
                    CHECK(r.slowCountP[i] < 1e-6);
                }
            }
            else
            {
                CHECK_FALSE(r.ranking[i].named);
            }
        }
        CHECK(sparseSeen);
        CHECK(r.named == (fault ? 1u : 0u));
        // Bonferroni over the identifiable classes: m0..m13 (m14, m15 carried nothing; the
        // host links are every path's of their QP).
        CHECK(r.slowCountAlpha == Approx(0.01 / 14));
    }
}

TEST_CASE("locate paths: paths.csv with a zero minimum RTT or a path's row twice is refused, "
          "naming file, line and column",
          "[unit][locate]")
{
    const LinkIndex links = TwoPathFabric();
    const std::string header = "src,dst,qpn,entropy,packets,bytes,retx_packets,rtt_samples,"
                               "rtt_min_us,rtt_median_us,rtt_p99_us,ecn_acks,trims,nacks,"
                               "timeouts,losses,paths,traced_path\n";
    const std::string viaA = "0,4,1,49152,10,40960,0,10,4.5,4.7,5.0,0,0,0,0,0,0>4>6>8:10,\n";
    const std::string viaB = "0,4,1,49153,10,40960,0,10,4.6,4.8,5.1,0,0,0,0,0,0>5>7>8:10,\n";
    auto read = [&](const std::string& text) {
        std::istringstream in(text);
        return ReadPathObservations(in, "paths.csv", links);
    };
    REQUIRE(read(header + viaA + viaB).size() == 2);
    // A UTF-8 byte-order mark before the header is skipped (it was "src: missing column").
    const auto marked = read("\xEF\xBB\xBF" + header + viaA + viaB);
    REQUIRE(marked.size() == 2);
    CHECK(marked[0].src == 0);
    CHECK(marked[1].rttMinUs == 4.6);
    // A file with traced_path (written after losses) but no losses was edited: refused naming
    // the column (read as no losses, its traced paths were refused as on rows that lost none).
    {
        std::string h = header;
        h.erase(h.find(",losses"), 7);
        std::string a = viaA;
        a.erase(a.find(",0,0>4"), 2);
        CHECK_THROWS_WITH(read(h + a), Catch::Contains("losses: missing column") &&
                                           Catch::Contains("traced_path"));
    }
    // A zero minimum with samples: every other path of the QP would look that much slower.
    const std::string zero = "0,4,1,49153,10,40960,0,10,0,4.8,5.1,0,0,0,0,0,0>5>7>8:10,\n";
    CHECK_THROWS_WITH(read(header + viaA + zero),
                      "paths.csv:3: rtt_min_us: expected a positive RTT (µs) on a row with 10 "
                      "RTT sample(s); got 0");
    // The same sender's path twice: its evidence would count twice.
    CHECK_THROWS_WITH(read(header + viaA + viaB + viaA),
                      "paths.csv:4: entropy: a second row for src 0, dst 4, qpn 1, entropy 49152 "
                      "(the first is line 2): expected one row per sender's path");
}

TEST_CASE("locate paths: per-route paths.csv rows are a QP's siblings, its lost copies spread "
          "over its routes by frames",
          "[unit][locate]")
{
    // path_telemetry = "route": QP 1 of host0 keeps entropy 49152 while the switch spreads it
    // over a (30 frames) and b (10 frames); 4 copies never arrived (the row with no route).
    const LinkIndex links = TwoPathFabric();
    const std::string header = "src,dst,qpn,entropy,packets,bytes,retx_packets,rtt_samples,"
                               "rtt_min_us,rtt_median_us,rtt_p99_us,ecn_acks,trims,nacks,"
                               "timeouts,losses,paths,traced_path,route,first_us,last_us\n";
    // Side by side: arrivals over [0, 100] and [10, 90] µs.
    const std::string viaA =
        "0,4,1,49152,30,122880,0,30,5.5,5.7,6.0,0,0,0,0,0,0>4>6>8:30,,0>4>6>8,0,100\n";
    const std::string viaB =
        "0,4,1,49152,10,40960,0,10,4.5,4.8,5.1,0,0,0,0,0,0>5>7>8:10,,0>5>7>8,10,90\n";
    const std::string lost = "0,4,1,49152,4,16384,0,0,0,0,0,0,0,0,0,4,,,,,\n";
    auto read = [&](const std::string& text) {
        std::istringstream in(text);
        return ReadPathObservations(in, "paths.csv", links);
    };
    // A per-route file without the arrival spans or the losses: refused (read as absent, the
    // routes would count as side by side and the losses as none, whatever they were).
    for (const std::string col : {",first_us", ",last_us", ",losses"})
    {
        std::string h = header;
        h.erase(h.find(col), col.size());
        CHECK_THROWS_WITH(read(h + viaA),
                          Catch::Contains(col.substr(1)) && Catch::Contains("per-route"));
    }
    const auto rows = read(header + viaA + viaB + lost);
    REQUIRE(rows.size() == 3);
    // The two routes: one path each, compared with each other (one entropy, two siblings).
    CHECK(!rows[0].traced);
    CHECK(!rows[1].traced);
    REQUIRE(rows[0].paths.size() == 1);
    CHECK(rows[0].paths[0].packets == 30);
    CHECK(PathsComparable(rows));
    // The lost copies: on both routes, weighted 30 : 10 by their frames, for the loss fit only.
    const auto& l = rows[2];
    CHECK(l.traced);
    CHECK(l.lost == 4);
    CHECK(l.packets == 4);
    REQUIRE(l.paths.size() == 2);
    CHECK(l.paths[0].packets == 30);
    CHECK(l.paths[1].packets == 10);
    Observations obs;
    obs.links = links;
    const PathLocateResult r = LocateFromPaths(obs, rows, PathLocateOptions());
    CHECK(r.comparedPaths == 2);
    REQUIRE(!r.ranking.empty());
    // Via a 1 µs slower than via b: the class {s0->a, a->s1} carries it.
    for (size_t i = 0; i < r.ranking.size(); ++i)
    {
        if (obs.links.Links()[r.ranking[i].links[0]].Name() == "s0->a")
        {
            CHECK(r.delayUs[i] == Approx(1.0).epsilon(1e-3));
        }
    }
    // One route per row: a row whose `paths` is not its route, or a route twice, is refused.
    const std::string wrong =
        "0,4,1,49152,10,40960,0,10,4.5,4.8,5.1,0,0,0,0,0,0>4>6>8:10,,0>5>7>8,0,100\n";
    CHECK_THROWS_WITH(read(header + viaA + wrong),
                      "paths.csv:3: paths: expected the row's route alone (LINK>...:FRAMES with "
                      "the links of `route`)");
    CHECK_THROWS_WITH(read(header + viaA + viaB + viaA),
                      "paths.csv:4: route: a second row for src 0, dst 4, qpn 1, entropy 49152, "
                      "route \"0>4>6>8\" (the first is line 2): expected one row per sender's "
                      "path and route");
    // A QP the switches kept on one route has no sibling: not comparable.
    CHECK(!PathsComparable(read(header + viaA)));
}

TEST_CASE("locate paths: per-route rows are siblings only when their arrivals overlap",
          "[unit][locate]")
{
    // Routes a switch used side by side (per packet: DRILL) are compared; routes it used one
    // after the other (a ConWeave reroute) are not: the fabric's queueing changed in between.
    const LinkIndex links = TwoPathFabric();
    const std::string header = "src,dst,qpn,entropy,packets,bytes,retx_packets,rtt_samples,"
                               "rtt_min_us,rtt_median_us,rtt_p99_us,ecn_acks,trims,nacks,"
                               "timeouts,losses,paths,traced_path,route,first_us,last_us\n";
    auto row = [](const char* via, const char* span) {
        const std::string p = via[0] == 'a' ? "0>4>6>8" : "0>5>7>8";
        return "0,4,1,49152,10,40960,0,10,4.5,4.8,5.1,0,0,0,0,0," + p + ":10,," + p + "," +
               span + "\n";
    };
    auto read = [&](const std::string& text) {
        std::istringstream in(text);
        return ReadPathObservations(in, "paths.csv", links);
    };
    // Side by side: [0, 100] and [10, 90] µs.
    CHECK(PathsComparable(read(header + row("a", "0,100") + row("b", "10,90"))));
    // One after the other: [0, 50] then [50, 100]; or overlapping by less than half of the
    // shorter span: [0, 50] and [40, 100] (10 of 50).
    CHECK(!PathsComparable(read(header + row("a", "0,50") + row("b", "50,100"))));
    CHECK(!PathsComparable(read(header + row("a", "0,50") + row("b", "40,100"))));
    // Half of the shorter span: [0, 50] and [25, 100].
    CHECK(PathsComparable(read(header + row("a", "0,50") + row("b", "25,100"))));
    CHECK_THROWS_WITH(read(header + row("a", "50,0")),
                      "paths.csv:2: last_us: expected at least first_us (50); got 0");
}

namespace
{

/** TwoPathFabric with a second receiver: host0..host3 -> s0 -> {a | b} -> s1 -> {host4 |
 *  host5}; link 9 s1->host5. */
LinkIndex
TwoReceiverFabric()
{
    return TwoPathFabric({{9, "s1", "host5"}});
}

/** One path of host `src` to host `dst` (4 or 5) via "a" or "b" carrying `frames`. */
FlowPath
PathVia(const LinkIndex& links, uint32_t src, uint32_t dst, char via, double frames)
{
    FlowPath fp;
    fp.hops = links.Walk(std::to_string(src) + (via == 'a' ? ">4>6>" : ">5>7>") +
                             (dst == 4 ? "8" : "9"),
                         "host" + std::to_string(src), "host" + std::to_string(dst));
    fp.packets = frames;
    return fp;
}

/** A per-route row (one route, its frames delivered), or with `lost` copies and the routes
 *  `via` / `frames`, a row of copies no route was given (spread over those routes by their
 *  frames, as ReadPathObservations spreads a per-route file's row without a route). */
PathObservation
RouteRow(const LinkIndex& links, uint32_t src, uint32_t dst, uint32_t qpn, uint64_t lost,
         const std::string& via, const std::vector<double>& frames)
{
    PathObservation p;
    p.src = src;
    p.dst = dst;
    p.qpn = qpn;
    for (size_t r = 0; r < via.size(); ++r)
    {
        p.paths.push_back(PathVia(links, src, dst, via[r], frames[r]));
    }
    p.routed = lost == 0;
    p.traced = lost > 0;
    if (p.routed)
    {
        // Routes taken one after the other (a reroute): via a first, then via b.
        p.firstUs = via == "a" ? 0.0 : 100.0;
        p.lastUs = via == "a" ? 50.0 : 300.0;
    }
    p.lost = lost;
    p.packets = lost > 0 ? lost : static_cast<uint64_t>(frames[0]);
    p.rttSamples = lost > 0 ? 0 : p.packets;
    p.rttMinUs = lost > 0 ? 0.0 : 5.0;
    return p;
}

/** The incidence LocateFromPaths builds: each path one pseudo-flow. */
Incidence
IncidenceOf(const LinkIndex& links, const std::vector<PathObservation>& rows)
{
    Observations po;
    po.links = links;
    for (const auto& p : rows)
    {
        FlowObservation f;
        f.src = p.src;
        f.dst = p.dst;
        f.paths = p.paths;
        po.flows.push_back(f);
    }
    return BuildIncidence(po);
}

/** The class holding directed link `name`. */
size_t
ClassOf(const LinkIndex& links, const Incidence& inc, const std::string& name)
{
    for (size_t c = 0; c < inc.classes.size(); ++c)
    {
        for (uint32_t l : inc.classes[c])
        {
            if (links.Links()[l].Name() == name)
            {
                return c;
            }
        }
    }
    FAIL("no class holds " << name);
    return 0;
}

/** The rerouted fabric's rows: hosts 1-3 keep one route (a) to host 5 and lose 2 copies each;
 *  host 0's QPs 1..`qps` to host 4 took a (20 frames) then b (80 frames) and lost 2 copies
 *  each with no route (rows "ab"). Rows in that order: 6 for hosts 1-3, then 3 per QP. */
std::vector<PathObservation>
ReroutedRows(const LinkIndex& links, uint32_t qps)
{
    std::vector<PathObservation> rows;
    for (uint32_t h = 1; h <= 3; ++h)
    {
        rows.push_back(RouteRow(links, h, 5, 1, 0, "a", {20}));
        rows.push_back(RouteRow(links, h, 5, 1, 2, "a", {20}));
    }
    for (uint32_t q = 1; q <= qps; ++q)
    {
        rows.push_back(RouteRow(links, 0, 4, q, 0, "a", {20}));
        rows.push_back(RouteRow(links, 0, 4, q, 0, "b", {80}));
        rows.push_back(RouteRow(links, 0, 4, q, 2, "ab", {20, 80}));
    }
    return rows;
}

} // namespace

TEST_CASE("locate paths: a rerouted QP's lost copies go to the route whose link loses elsewhere",
          "[unit][locate]")
{
    // s0->a loses frames. Hosts 1-3 keep one route via a to host5 (ECMP-like: their lost
    // copies are placed for certain). Host 0's QPs 1 and 2 to host4 were rerouted: 20 frames
    // via a, 80 via b, and 2 copies each lost with no route. Spread by frames alone, s0->a gets
    // 0.2 of each copy, b 0.8 and host 0's own links (on both routes) all of it. By likelihood
    // the copies go via a, whose link loses the other hosts' copies.
    const LinkIndex links = TwoReceiverFabric();
    std::vector<PathObservation> rows = ReroutedRows(links, 2);
    const Incidence inc = IncidenceOf(links, rows);
    const size_t viaA = ClassOf(links, inc, "s0->a");
    const size_t viaB = ClassOf(links, inc, "s0->b");
    const size_t host0 = ClassOf(links, inc, "host0->s0");
    REQUIRE(viaA != viaB);
    REQUIRE(host0 != viaA);
    const size_t lostRow = 8; // host 0's first row of lost copies
    REQUIRE(rows[lostRow].lost == 2);
    CHECK(inc.share.coeff(lostRow, viaA) == Approx(0.2));
    const Eigen::SparseMatrix<double> placed = PlaceLostCopies(inc, rows);
    CHECK(placed.coeff(lostRow, viaA) > 0.8);
    CHECK(placed.coeff(lostRow, viaB) < 0.2);
    CHECK(placed.coeff(lostRow, viaA) + placed.coeff(lostRow, viaB) == Approx(1.0));
    CHECK(placed.coeff(lostRow, host0) == Approx(1.0)); // on both routes: all of it, as before
    // Rows that are not ambiguous keep their shares.
    CHECK(placed.coeff(1, viaA) == Approx(inc.share.coeff(1, viaA)));
    std::vector<double> lost, sent;
    for (const auto& p : rows)
    {
        lost.push_back(static_cast<double>(p.lost));
        sent.push_back(static_cast<double>(p.packets));
    }
    // By frames alone host 0's copies, 0.8 of them on b, are the background s0->a is tested
    // against, and it is not named (p 0.006 against 0.01 / classes); placed, it is, and host 0's
    // links and b are not.
    const auto byFrames = FitLossClasses(inc.share, lost, sent, 1e-3, 2, 0.01);
    CHECK(!byFrames[viaA].named);
    const auto byLikelihood = FitLossClasses(placed, lost, sent, 1e-3, 2, 0.01);
    CHECK(byLikelihood[viaA].named);
    CHECK(!byLikelihood[host0].named);
    CHECK(!byLikelihood[viaB].named);
    Observations obs;
    obs.links = links;
    const PathLocateResult r = LocateFromPaths(obs, rows, PathLocateOptions());
    REQUIRE(r.named == 1);
    CHECK(links.Links()[r.ranking[0].links[0]].Name() == "s0->a");
    CHECK(r.ranking[0].Reason() == "lossy");
}

TEST_CASE("locate paths: lost copies that no other loss tells apart keep their frames' split",
          "[unit][locate]")
{
    // Host 0's rerouted QP alone sent and lost: nothing says which route its copies took (each
    // route's links lose at the same rate under the frames' split), the likelihood is flat, and
    // the placement stays 20 : 80, however many steps are allowed.
    const LinkIndex links = TwoReceiverFabric();
    std::vector<PathObservation> rows;
    rows.push_back(RouteRow(links, 0, 4, 1, 0, "a", {20}));
    rows.push_back(RouteRow(links, 0, 4, 1, 0, "b", {80}));
    rows.push_back(RouteRow(links, 0, 4, 1, 2, "ab", {20, 80}));
    const Incidence inc = IncidenceOf(links, rows);
    const size_t viaA = ClassOf(links, inc, "s0->a");
    const size_t viaB = ClassOf(links, inc, "s0->b");
    for (uint32_t steps : {1u, 200u, 5000u})
    {
        const Eigen::SparseMatrix<double> placed = PlaceLostCopies(inc, rows, steps);
        CHECK(placed.coeff(2, viaA) == Approx(0.2).epsilon(1e-6));
        CHECK(placed.coeff(2, viaB) == Approx(0.8).epsilon(1e-6));
    }
}

TEST_CASE("locate paths: lost copies of a QP spread per packet keep their frames' split",
          "[unit][locate]")
{
    // The rerouted case above, but host 0's routes were used side by side (DRILL): each copy's
    // route was drawn anew, so its placement is the frames' split, not a likelihood.
    const LinkIndex links = TwoReceiverFabric();
    std::vector<PathObservation> rows = ReroutedRows(links, 1);
    const Incidence inc = IncidenceOf(links, rows);
    const size_t viaA = ClassOf(links, inc, "s0->a");
    // One after the other: placed by likelihood.
    CHECK(PlaceLostCopies(inc, rows).coeff(8, viaA) > 0.5);
    // Side by side: [0, 50] and [10, 60].
    rows[7].firstUs = 10;
    rows[7].lastUs = 60;
    CHECK(PlaceLostCopies(inc, rows).coeff(8, viaA) == Approx(0.2));
    // No arrival times: as side by side.
    rows[6].firstUs = rows[6].lastUs = rows[7].firstUs = rows[7].lastUs = std::nan("");
    CHECK(PlaceLostCopies(inc, rows).coeff(8, viaA) == Approx(0.2));
}

TEST_CASE("locate auto: lost copies of rerouted QPs make paths.csv evidence for losses only",
          "[unit][locate]")
{
    // The rerouted fabric above: s0->a loses frames; host 0's QPs 1-3 were moved from a to b
    // (routes one after the other) and lost 2 copies each with no route; hosts 1-3 kept one
    // route each and lost 2 copies each. Their routes'
    // smallest RTTs were taken at different times, so they are not compared for delay
    // (PathsComparable is false: completion times before 2026-12-06), but their lost copies,
    // placed by likelihood, are comparable: auto ranks from paths.csv for losses.
    const LinkIndex links = TwoReceiverFabric();
    std::vector<PathObservation> rows = ReroutedRows(links, 3);
    // Route b was used later, under queueing: 12 µs above route a, which no link explains.
    rows[7].rttMinUs = rows[10].rttMinUs = rows[13].rttMinUs = 17.0;
    CHECK(!PathsComparable(rows)); // the rule before: completion times
    CHECK(AutoPathEvidence(rows) == PathEvidence::LossesOnly);

    Observations obs;
    obs.links = links;
    PathLocateOptions lossesOnly;
    lossesOnly.compareSequentialRoutes = false;
    const PathLocateResult r = LocateFromPaths(obs, rows, lossesOnly);
    CHECK(r.comparedPaths == 0);
    CHECK(r.sequentialPaths == 6); // host 0's two routes, for each of its three QPs
    REQUIRE(r.named == 1);
    CHECK(links.Links()[r.ranking[0].links[0]].Name() == "s0->a");
    CHECK(r.ranking[0].Reason() == "lossy");
    // s0->a is on one of host 0's two routes: the routes tell its losses apart. Host 0's
    // uplink (link 0) and s1->host4 (8) are on both: the routes add nothing for them, and auto
    // would leave such a class to completion times.
    CHECK(TellsReroutedRoutesApart(rows, r.ranking[0].links));
    CHECK(!TellsReroutedRoutesApart(rows, {0}));
    CHECK(!TellsReroutedRoutesApart(rows, {8}));
    // Compared (--evidence paths), the later route's queueing is put on route b's links.
    const PathLocateResult forced = LocateFromPaths(obs, rows, PathLocateOptions());
    CHECK(forced.comparedPaths == 6);
    CHECK(forced.sequentialPaths == 0);
    bool bDelayed = false;
    for (size_t i = 0; i < forced.ranking.size(); ++i)
    {
        for (uint32_t l : forced.ranking[i].links)
        {
            if (links.Links()[l].Name() == "s0->b")
            {
                bDelayed = forced.delayUs[i] > 10.0;
            }
        }
    }
    CHECK(bDelayed);

    // Without lost copies the rerouted QPs say nothing comparable: completion times, as before.
    std::vector<PathObservation> lossless;
    for (const auto& p : rows)
    {
        if (p.lost == 0)
        {
            lossless.push_back(p);
        }
    }
    CHECK(AutoPathEvidence(lossless) == PathEvidence::None);
    // Lost copies on QPs with one route (ECMP-like) do not qualify either: completion times.
    std::vector<PathObservation> oneRoute(rows.begin(), rows.begin() + 6);
    CHECK(AutoPathEvidence(oneRoute) == PathEvidence::None);
    // Nor do they when fewer than half of the QPs that lost copies rerouted (here 1 of 4):
    // for the others paths.csv's losses say what completion times do.
    std::vector<PathObservation> fewRerouted(rows.begin(), rows.begin() + 9);
    CHECK(AutoPathEvidence(fewRerouted) == PathEvidence::None);
    std::vector<PathObservation> halfRerouted(rows.begin(), rows.begin() + 12); // 2 of 5: no
    CHECK(AutoPathEvidence(halfRerouted) == PathEvidence::None);
    CHECK(AutoPathEvidence(rows) == PathEvidence::LossesOnly); // 3 of 6: half
    // Host 0's QPs alone, their routes used side by side: compared for delays and losses, as
    // before.
    std::vector<PathObservation> host0(rows.begin() + 6, rows.end());
    CHECK(AutoPathEvidence(host0) == PathEvidence::LossesOnly);
    for (auto& p : host0)
    {
        if (p.routed)
        {
            p.firstUs = 0;
            p.lastUs = 300;
        }
    }
    CHECK(PathsComparable(host0));
    CHECK(AutoPathEvidence(host0) == PathEvidence::Compared);
}

TEST_CASE("locate auto: the output states which evidence was used and the rule that chose it "
          "with its numbers",
          "[unit][locate]")
{
    // The rerouted fabric of the test above: hosts 1-3 keep one route to host5 and lose 2
    // copies each; host 0's QPs 1-3 were moved from a to b and lost 2 copies each.
    const LinkIndex links = TwoReceiverFabric();
    std::vector<PathObservation> rows = ReroutedRows(links, 3);
    auto withPaths = [](const std::vector<PathObservation>& r) {
        EvidenceFacts f;
        f.pathsPresent = f.pathsRead = true;
        f.paths = CountPathEvidence(r);
        return f;
    };
    auto has = [](const EvidenceChoice& c, const std::string& text) {
        INFO(c.reason);
        return c.reason.find(text) != std::string::npos;
    };

    // Per-route losses: 3 of the 6 QPs that lost copies were rerouted (half), none of the 6
    // used two routes side by side, and the loss fit's first class, s0->a, is on one of host
    // 0's two routes.
    EvidenceFacts f = withPaths(rows);
    CHECK(f.paths.qps == 6);
    CHECK(f.paths.sideBySideQps == 0);
    CHECK(f.paths.lossyQps == 6);
    CHECK(f.paths.reroutedLossyQps == 3);
    REQUIRE(f.paths.evidence == PathEvidence::LossesOnly);
    Observations obs;
    obs.links = links;
    PathLocateOptions lossesOnly;
    lossesOnly.compareSequentialRoutes = false;
    const PathLocateResult r = LocateFromPaths(obs, rows, lossesOnly);
    REQUIRE(r.named >= 1);
    REQUIRE(r.ranking[0].NamedForLosses());
    f.firstLossClass = r.ranking[0].links;
    f.tellsRoutesApart = TellsReroutedRoutesApart(rows, r.ranking[0].links);
    EvidenceChoice c = ExplainEvidence(f, links);
    CHECK(c.evidence == "paths");
    CHECK(c.rule == "paths_rerouted_losses");
    CHECK(c.reason.rfind("per-route losses only (paths.csv): ar.csv absent; ", 0) == 0);
    CHECK(has(c, "0 of 6 QPs used two or more paths side by side (< half)"));
    CHECK(has(c, "3 of 6 QPs that lost copies were rerouted (\u2265 half)"));
    CHECK(has(c, "the first class named for losses, s0->a (+1 alike), is crossed by some"));
    CHECK(c.numbers.at("rerouted_lossy_qps") == 3);
    CHECK(c.numbers.at("lossy_qps") == 6);
    CHECK(c.numbers.at("first_loss_class") == nlohmann::json({"s0->a", "a->s1"}));
    CHECK(c.numbers.at("tells_routes_apart") == true);

    // The same counts, but the first class is host 0's uplink, on both of its routes: left to
    // completion times, saying so.
    f.firstLossClass = std::vector<uint32_t>{0};
    f.tellsRoutesApart = TellsReroutedRoutesApart(rows, {0});
    c = ExplainEvidence(f, links);
    CHECK(c.evidence == "flows");
    CHECK(c.rule == "flows_loss_class_shared");
    CHECK(has(c, "host0->s0, is crossed by all or none of each rerouted lossy QP's routes"));
    // No class named for losses.
    f.firstLossClass.reset();
    c = ExplainEvidence(f, links);
    CHECK(c.rule == "flows_loss_class_shared");
    CHECK(has(c, "the loss fit named no class"));
    CHECK(c.numbers.at("first_loss_class").is_null());

    // 1 of the 4 QPs that lost copies rerouted: below half, completion times.
    c = ExplainEvidence(withPaths({rows.begin(), rows.begin() + 9}), links);
    CHECK(c.evidence == "flows");
    CHECK(c.rule == "flows_paths_not_comparable");
    CHECK(has(c, "0 of 4 QPs used two or more paths side by side (< half)"));
    CHECK(has(c, "1 of 4 QPs that lost copies were rerouted (< half)"));
    // Hosts 1-3 alone: one route each, none rerouted.
    c = ExplainEvidence(withPaths({rows.begin(), rows.begin() + 6}), links);
    CHECK(c.rule == "flows_paths_not_comparable");
    CHECK(has(c, "none of the 3 QPs that lost copies was rerouted"));
    // No lost copy at all.
    std::vector<PathObservation> lossless;
    for (const auto& p : rows)
    {
        if (p.lost == 0)
        {
            lossless.push_back(p);
        }
    }
    c = ExplainEvidence(withPaths(lossless), links);
    CHECK(c.rule == "flows_paths_not_comparable");
    CHECK(has(c, "no QP lost a copy"));
    CHECK(c.numbers.at("lossy_qps") == 0);

    // Host 0's routes used side by side: its 3 QPs compared, per-path RTTs.
    std::vector<PathObservation> host0(rows.begin() + 6, rows.end());
    for (auto& p : host0)
    {
        if (p.routed)
        {
            p.firstUs = 0;
            p.lastUs = 300;
        }
    }
    f = withPaths(host0);
    f.arPresent = f.arRead = true; // ar.csv whose switches did not steer
    c = ExplainEvidence(f, links);
    CHECK(c.evidence == "paths");
    CHECK(c.rule == "paths_side_by_side");
    CHECK(c.reason == "per-path RTTs and losses (paths.csv): ar.csv: no switch steered (hash or "
                      "random choices say nothing of a link's rate); 3 of 3 QPs used two or "
                      "more paths side by side (\u2265 half)");
    CHECK(c.numbers.at("side_by_side_qps") == 3);

    // ar.csv: steered, judged on at least half of the egresses, or not.
    EvidenceFacts a;
    a.arPresent = a.arRead = a.arSteered = true;
    a.arJudgedShare = 0.75;
    c = ExplainEvidence(a, links);
    CHECK(c.evidence == "ar");
    CHECK(c.rule == "ar_steered");
    CHECK(has(c, "75 % of the egresses made enough decisions to be judged (\u2265 half)"));
    // ... unless it named nothing while flows lost frames: the switches do not avoid a link
    // that loses frames without being slower, so ar.csv's silence says nothing of it (DRILL
    // under 1 % loss, bench 2026-12-06: ar.csv found the cable in 1 of 20 runs).
    a.flowsThatLost = 5;
    c = ExplainEvidence(a, links);
    CHECK(c.evidence == "flows");
    CHECK(c.rule == "flows_no_paths");
    CHECK(has(c, "ar.csv named no egress, and 5 flows lost frames"));
    CHECK(c.numbers.at("flows_that_lost") == 5);
    CHECK(c.numbers.at("ar_named") == 0);
    a.arNamed = 1; // it named an egress: its answer stands, losses or not
    c = ExplainEvidence(a, links);
    CHECK(c.evidence == "ar");
    CHECK(c.rule == "ar_steered");
    a.arNamed = 0;
    a.flowsThatLost = 0; // no flow lost a frame: nothing is hidden from it
    c = ExplainEvidence(a, links);
    CHECK(c.evidence == "ar");
    a.arJudgedShare = 0.4;
    c = ExplainEvidence(a, links);
    CHECK(c.evidence == "flows");
    CHECK(c.rule == "flows_no_paths");
    CHECK(c.reason == "completion times (flows.csv): ar.csv: the switches steered, and 40 % of "
                      "the egresses made enough decisions to be judged (< half); paths.csv "
                      "absent");
    // Asked for: that evidence, whatever was present.
    f.option = "flows";
    c = ExplainEvidence(f, links);
    CHECK(c.evidence == "flows");
    CHECK(c.rule == "asked");
    CHECK(c.reason == "completion times (flows.csv): --evidence flows, as asked");
    CHECK(EvidenceChoiceJson(c).at("option") == "flows");
}

TEST_CASE("locate paths: classes that carry the very same lost copies are reported tied, not "
          "picked silently",
          "[unit][locate]")
{
    // host1's two QPs go via a and lose 2 copies each; host0 (via a and b), host2 and host3
    // (via b) lose nothing. host1->s0, {s0->a, a->s1} and s1->host4 carry the same 4 copies on
    // the same 2 paths: the copies cannot say which of them lost them. The fit names host1->s0
    // (the fewest delivered packets); the other two are reported tied with it.
    Observations obs;
    obs.links = TwoPathFabric();
    std::vector<PathObservation> rows = {Row(obs.links, 1, 1, 'a', 10), Row(obs.links, 1, 2, 'a', 10),
                                         Row(obs.links, 0, 1, 'a', 10), Row(obs.links, 0, 1, 'b', 10),
                                         Row(obs.links, 2, 1, 'b', 10), Row(obs.links, 3, 1, 'b', 10)};
    rows[0].lost = rows[1].lost = 2;
    const auto name = [&](const PathLocateResult& r, size_t k) {
        return obs.links.Links()[r.ranking[k].links.front()].Name();
    };
    const PathLocateResult r = LocateFromPaths(obs, rows, PathLocateOptions());
    REQUIRE(r.named >= 1);
    CHECK(name(r, 0) == "host1->s0");
    REQUIRE(r.lossTies.size() == 2);
    std::vector<std::string> tied;
    for (const LossTie& t : r.lossTies)
    {
        CHECK(t.named == 0);
        CHECK(t.lost == Approx(4.0));
        CHECK(t.lossyPaths == 2);
        CHECK(t.namedRate == Approx(4.0 / 20));
        CHECK(!r.ranking[t.tied].named);
        tied.push_back(name(r, t.tied));
        CHECK(t.tiedRate == Approx(tied.back() == "s0->a" ? 4.0 / 30 : 4.0 / 60));
    }
    std::sort(tied.begin(), tied.end());
    CHECK(tied == std::vector<std::string>{"s0->a", "s1->host4"});
    std::ostringstream text;
    PrintPathTable(obs, r, "run", 10, text);
    CHECK(text.str().find("rank 1: tied on losses with s0->a (+1 alike)") != std::string::npos);
    const auto doc = nlohmann::json::parse(PathJson(obs, r, "run", 10));
    REQUIRE(doc.at("loss_ties").size() == 2);
    CHECK(doc.at("loss_ties")[0].at("named_rank") == 1);
    CHECK(doc.at("loss_ties")[0].at("named_links")[0].at("from") == "host1");

    // host0's path via a loses a copy too: {s0->a, a->s1} now carries copies host1->s0 does not,
    // so it is not tied with it (whichever is named).
    rows[2].lost = 1;
    const PathLocateResult r2 = LocateFromPaths(obs, rows, PathLocateOptions());
    for (const LossTie& t : r2.lossTies)
    {
        const std::set<std::string> pair = {name(r2, t.named), name(r2, t.tied)};
        CHECK(pair != std::set<std::string>{"host1->s0", "s0->a"});
    }
    // Without losses, no tie.
    rows[0].lost = rows[1].lost = rows[2].lost = 0;
    CHECK(LocateFromPaths(obs, rows, PathLocateOptions()).lossTies.empty());
}

namespace
{

/** A two-tier fabric for per-packet spreading: ToRs t0..t3 with hosts 4k..4k+3 (host<i> ->
 *  t<k>, t<k> -> host<i>), each ToR up to spines p0..p3 and back. Link ids: the host cable of
 *  host i is i; t<k>-p<j> is 100 + 4k + j. */
LinkIndex
SpreadFabric()
{
    std::vector<DirectedLink> l;
    for (uint32_t i = 0; i < 16; ++i)
    {
        const std::string h = "host" + std::to_string(i), t = "t" + std::to_string(i / 4);
        l.push_back({i, h, t});
        l.push_back({i, t, h});
    }
    for (uint32_t k = 0; k < 4; ++k)
    {
        for (uint32_t j = 0; j < 4; ++j)
        {
            const std::string t = "t" + std::to_string(k), p = "p" + std::to_string(j);
            l.push_back({100 + 4 * k + j, t, p});
            l.push_back({100 + 4 * k + j, p, t});
        }
    }
    return LinkIndex(l);
}

/** The directed link index of `name` ("t0->p1"). */
uint32_t
SpreadLink(const LinkIndex& links, const std::string& name)
{
    for (uint32_t l = 0; l < links.Links().size(); ++l)
    {
        if (links.Links()[l].Name() == name)
        {
            return l;
        }
    }
    FAIL("no link " << name);
    return 0;
}

/** Host `src`'s QP `qpn` to `dst`, spread per packet over the four spines (25 frames each,
 *  side by side: arrival spans all [0, 100] µs), and, with `lost` > 0, its row of lost copies
 *  spread over those routes by their frames (as ReadPathObservations reads a per-route
 *  paths.csv's row without a route). */
std::vector<PathObservation>
SpreadQp(const LinkIndex& links, uint32_t src, uint32_t dst, uint32_t qpn, uint64_t lost)
{
    const std::string from = "t" + std::to_string(src / 4), to = "t" + std::to_string(dst / 4);
    std::vector<FlowPath> routes;
    for (uint32_t j = 0; j < 4; ++j)
    {
        const std::string p = "p" + std::to_string(j);
        FlowPath fp;
        fp.hops = {SpreadLink(links, "host" + std::to_string(src) + "->" + from),
                   SpreadLink(links, from + "->" + p), SpreadLink(links, p + "->" + to),
                   SpreadLink(links, to + "->host" + std::to_string(dst))};
        fp.packets = 25;
        routes.push_back(fp);
    }
    std::vector<PathObservation> rows;
    for (const auto& fp : routes)
    {
        PathObservation p;
        p.src = src;
        p.dst = dst;
        p.qpn = qpn;
        p.paths = {fp};
        p.routed = true;
        p.firstUs = 0.0;
        p.lastUs = 100.0;
        p.packets = 25;
        p.rttSamples = 25;
        p.rttMinUs = 5.0;
        p.rttMedianUs = 5.0;
        rows.push_back(p);
    }
    if (lost > 0)
    {
        PathObservation p;
        p.src = src;
        p.dst = dst;
        p.qpn = qpn;
        p.paths = routes;
        p.traced = true;
        p.lost = lost;
        p.packets = lost;
        rows.push_back(p);
    }
    return rows;
}

/** Every host sends QPs 1 and 2 to the same host number on the next ToR, QPs 3 and 4 to the
 *  one after; `lost` (src, qpn) -> copies lost. */
std::vector<PathObservation>
SpreadRows(const LinkIndex& links, const std::map<std::pair<uint32_t, uint32_t>, uint64_t>& lost)
{
    std::vector<PathObservation> rows;
    for (uint32_t src = 0; src < 16; ++src)
    {
        for (uint32_t q = 1; q <= 4; ++q)
        {
            const uint32_t dst = (src + (q <= 2 ? 4 : 8)) % 16;
            const auto it = lost.find({src, q});
            const auto r = SpreadQp(links, src, dst, q, it == lost.end() ? 0 : it->second);
            rows.insert(rows.end(), r.begin(), r.end());
        }
    }
    return rows;
}

} // namespace

TEST_CASE("locate paths: copies spread per packet name the ToR's uplinks that lost them, not a "
          "host link",
          "[unit][locate]")
{
    // t0->p0 loses: five of t0's 16 QPs lost one copy each, two of them host0's; one stray
    // copy elsewhere (host8). Each copy's route is unknown (drawn per packet over the four
    // spines): by frames t0->p0 gets a quarter of each, host0->t0 all of host0's two.
    const LinkIndex links = SpreadFabric();
    const auto rows =
        SpreadRows(links, {{{0, 1}, 1}, {{0, 3}, 1}, {{1, 1}, 1}, {{2, 3}, 1}, {{3, 2}, 1},
                           {{8, 1}, 1}});
    const uint32_t host0 = SpreadLink(links, "host0->t0");
    std::vector<uint32_t> uplinks;
    for (uint32_t j = 0; j < 4; ++j)
    {
        uplinks.push_back(SpreadLink(links, "t0->p" + std::to_string(j)));
    }
    std::sort(uplinks.begin(), uplinks.end());

    // By frames (the per-class loss fit as before): the host link carries more of the lost
    // copies than the cable, and the cable no lossy path (a quarter of a copy on each).
    const Incidence inc = IncidenceOf(links, rows);
    std::vector<double> lost, sent;
    for (const auto& p : rows)
    {
        lost.push_back(static_cast<double>(p.lost));
        sent.push_back(static_cast<double>(p.packets));
    }
    const auto byFrames = FitLossClasses(inc.share, lost, sent, 1e-3, 2, 0.01);
    const size_t hostClass = ClassOf(links, inc, "host0->t0");
    const size_t cableClass = ClassOf(links, inc, "t0->p0");
    CHECK(byFrames[hostClass].lost == Approx(2.0));
    CHECK(byFrames[cableClass].lost == Approx(5 * 0.25));
    CHECK(byFrames[cableClass].lossyPaths == 0);
    CHECK(byFrames[hostClass].pValue < byFrames[cableClass].pValue);

    // Per QP: t0's uplinks (the links crossed by t0's 16 QPs and no other) are named, 5 of
    // 16 lossy against 1 of the other 48; host0's link (2 of its 4 QPs) is not.
    const SpreadLossFit fit = FitSpreadLosses(rows, 2, 0.01);
    CHECK(fit.qps == 64);
    CHECK(fit.lossyQps == 6);
    REQUIRE(fit.named.size() == 1);
    CHECK(fit.named[0].links == uplinks);
    CHECK(fit.named[0].qps == 16);
    CHECK(fit.named[0].lossyQps == 5);
    // 5 copies over the 400 frames one uplink carried (16 QPs x 25).
    CHECK(fit.named[0].rate == Approx(5.0 / 400.0));
    CHECK(fit.named[0].pValue < 0.01 / static_cast<double>(fit.groups));
    CHECK(std::count(fit.spreadRow.begin(), fit.spreadRow.end(), true) == 6);

    Observations obs;
    obs.links = links;
    const PathLocateResult r = LocateFromPaths(obs, rows, PathLocateOptions());
    CHECK(r.spreadLossyQps == 6);
    REQUIRE(r.named == 1);
    std::vector<uint32_t> first = r.ranking[0].links;
    std::sort(first.begin(), first.end());
    CHECK(first == uplinks);
    CHECK(r.ranking[0].Reason() == "lossy");
    CHECK(r.ranking[0].lossRate == Approx(5.0 / 400.0));
    for (const auto& s : r.ranking)
    {
        CHECK((!s.named ||
               std::find(s.links.begin(), s.links.end(), host0) == s.links.end()));
    }
}

TEST_CASE("locate paths: a lossy host link under per-packet spreading is still named",
          "[unit][locate]")
{
    // host0's link loses: each of its four QPs lost 3 copies (1 % of 256 frames is 2.6); one
    // stray copy elsewhere. Its link's group is its four QPs, all lossy.
    const LinkIndex links = SpreadFabric();
    const auto rows = SpreadRows(
        links, {{{0, 1}, 3}, {{0, 2}, 3}, {{0, 3}, 3}, {{0, 4}, 3}, {{8, 1}, 1}});
    const SpreadLossFit fit = FitSpreadLosses(rows, 2, 0.01);
    REQUIRE(fit.named.size() == 1);
    CHECK(fit.named[0].links == std::vector<uint32_t>{SpreadLink(links, "host0->t0")});
    CHECK(fit.named[0].lossyQps == 4);

    // Two lossy QPs of one host and nothing else: host0's link is the smallest group holding
    // both (p 0 against a fabric that lost nothing else), but so small a count fits many
    // groups, whoever lost them: named with a floor of 2 lossy QPs, not with the default 3.
    const auto two = SpreadRows(links, {{{0, 1}, 1}, {{0, 2}, 1}});
    const SpreadLossFit loose = FitSpreadLosses(two, 2, 0.01);
    REQUIRE(loose.named.size() == 1);
    CHECK(loose.named[0].links == std::vector<uint32_t>{SpreadLink(links, "host0->t0")});
    CHECK(FitSpreadLosses(two, PathLocateOptions().minSpreadLossyQps, 0.01).named.empty());
    Observations twoObs;
    twoObs.links = links;
    CHECK(LocateFromPaths(twoObs, two, PathLocateOptions()).named == 0);

    // Nothing lost: nothing spread, nothing named.
    const auto healthy = SpreadRows(links, {});
    const SpreadLossFit none = FitSpreadLosses(healthy, 2, 0.01);
    CHECK(none.named.empty());
    CHECK(std::count(none.spreadRow.begin(), none.spreadRow.end(), true) == 0);
    Observations obs;
    obs.links = links;
    CHECK(LocateFromPaths(obs, healthy, PathLocateOptions()).named == 0);
}

TEST_CASE("locate paths: lost copies of routes used one after the other are not fitted per QP",
          "[unit][locate]")
{
    // The rerouted fabric (ReroutedRows): routes a then b, not side by side; PlaceLostCopies
    // places those copies, FitSpreadLosses leaves them.
    const LinkIndex links = TwoReceiverFabric();
    const auto rows = ReroutedRows(links, 2);
    const SpreadLossFit fit = FitSpreadLosses(rows, 2, 0.01);
    CHECK(fit.named.empty());
    CHECK(std::count(fit.spreadRow.begin(), fit.spreadRow.end(), true) == 0);
}

} // namespace TUSK_TEST_FILE
