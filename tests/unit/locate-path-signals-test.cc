// tusk locate from per-path telemetry (tusk/locate/path-signals.h): which paths carry a
// delay signal. A path's signal is its smallest RTT over the smallest of its QP's other paths of
// the same length; a QP that sent on one path only (ECMP, switch-side adaptive routing) has no
// reference, so its path says nothing about the links it crossed and must not pull their
// fitted delays to 0, and `--evidence auto` must not rank from such telemetry.

#include "locate/path-signals.h"

#include <catch2/catch.hpp>

using namespace tusk::locate;

namespace
{

/** host0..host3 -> s0 -> {a | b} -> s1 -> host4: link ids 0..3 the host uplinks, 4 s0->a,
 *  5 s0->b, 6 a->s1, 7 b->s1, 8 s1->host4. */
LinkIndex
TwoPathFabric()
{
    return LinkIndex({{0, "host0", "s0"},
                      {1, "host1", "s0"},
                      {2, "host2", "s0"},
                      {3, "host3", "s0"},
                      {4, "s0", "a"},
                      {5, "s0", "b"},
                      {6, "a", "s1"},
                      {7, "b", "s1"},
                      {8, "s1", "host4"}});
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
