// tusk locate over several runs of one fabric (tusk/locate/pool.h): pooled evidence. A cable
// that loses a copy or two per run is below the loss fit's significance in any one run (a few
// copies against the Bonferroni cut over every class); over four runs its lost copies and
// packets add up and it is named, while healthy runs with the same background of stray losses
// stay unnamed. Runs keep their own QPs (a path is compared with its own run's siblings) and
// their own time lines (no flow of one run shares a link with another's).

#include "locate/pool.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk::locate;

namespace
{

constexpr uint32_t kMiddles = 16; //!< switches between s0 and s1: one class each
constexpr uint32_t kQps = 8;      //!< host i -> host 8 + i

/** host0..7 -> s0 -> m0..m15 -> s1 -> host8..15. Link ids: 0..7 host uplinks, 8..23 s0->m,
 *  24..39 m->s1, 40..47 s1->host8..15. */
LinkIndex
SprayFabric()
{
    std::vector<DirectedLink> l;
    for (uint32_t h = 0; h < kQps; ++h)
    {
        l.push_back({h, "host" + std::to_string(h), "s0"});
    }
    for (uint32_t m = 0; m < kMiddles; ++m)
    {
        l.push_back({8 + m, "s0", "m" + std::to_string(m)});
    }
    for (uint32_t m = 0; m < kMiddles; ++m)
    {
        l.push_back({24 + m, "m" + std::to_string(m), "s1"});
    }
    for (uint32_t h = 0; h < kQps; ++h)
    {
        l.push_back({40 + h, "s1", "host" + std::to_string(8 + h)});
    }
    return LinkIndex(l);
}

/**
 * One run's paths.csv: every QP sprays 100 packets over each middle switch (RTT 10 us
 * everywhere, plus `rttOffsetUs`). `faultyLosses` lost copies on paths via m0 (QPs run,
 * run + 3, ...: a different QP each), one stray lost copy elsewhere (a path via m(1 + run % 15)
 * of QP (5 run + 2) % 8).
 */
std::vector<PathObservation>
Run(const LinkIndex& links, uint32_t run, uint32_t faultyLosses, double rttOffsetUs = 0)
{
    std::vector<PathObservation> rows;
    for (uint32_t q = 0; q < kQps; ++q)
    {
        for (uint32_t m = 0; m < kMiddles; ++m)
        {
            PathObservation p;
            p.src = q;
            p.dst = 8 + q;
            p.qpn = 1;
            p.packets = 100;
            p.rttSamples = 100;
            p.rttMinUs = 10 + rttOffsetUs;
            p.rttMedianUs = p.rttMinUs;
            FlowPath fp;
            fp.hops = links.Walk(std::to_string(q) + ">" + std::to_string(8 + m) + ">" +
                                     std::to_string(24 + m) + ">" + std::to_string(40 + q),
                                 "host" + std::to_string(q), "host" + std::to_string(8 + q));
            fp.packets = 100;
            p.paths.push_back(fp);
            rows.push_back(p);
        }
    }
    auto at = [&](uint32_t q, uint32_t m) -> PathObservation& { return rows[q * kMiddles + m]; };
    for (uint32_t i = 0; i < faultyLosses; ++i)
    {
        at((run + 3 * i) % kQps, 0).lost += 1;
    }
    at((5 * run + 2) % kQps, 1 + run % (kMiddles - 1)).lost += 1;
    return rows;
}

/** The named classes' first links, by name. */
std::vector<std::string>
Named(const Observations& obs, const PathLocateResult& r)
{
    std::vector<std::string> out;
    for (const auto& s : r.ranking)
    {
        if (s.named)
        {
            out.push_back(obs.links.Links()[s.links.front()].Name());
        }
    }
    return out;
}

} // namespace

TEST_CASE("locate pool: four runs each below significance name the lossy cable, healthy ones "
          "nothing",
          "[unit][locate]")
{
    Observations obs;
    obs.links = SprayFabric();
    // One run: 2 lost copies on m0's 800 packets against 1 stray copy on the other 12,000:
    // P(X >= 2) = 0.0022, above 0.01 / 24 classes. Not named, in any of the four.
    std::vector<std::vector<PathObservation>> faulty, healthy;
    for (uint32_t k = 0; k < 4; ++k)
    {
        faulty.push_back(Run(obs.links, k, 2));
        healthy.push_back(Run(obs.links, k, 0));
        const PathLocateResult one = LocateFromPaths(obs, faulty.back(), PathLocateOptions());
        CAPTURE(k);
        CHECK(one.named == 0);
        CHECK(one.classes == kMiddles + kQps);
        CHECK(obs.links.Links()[one.ranking[0].links.front()].Name() == "s0->m0");
    }
    // Pooled: 8 of 3,200 against 4 of 48,000: named, with the pooled counts, and nothing else.
    const auto rows = PoolPathRows(faulty);
    REQUIRE(rows.size() == 4 * kQps * kMiddles);
    CHECK(rows.back().run == 3);
    const PathLocateResult r = LocateFromPaths(obs, rows, PathLocateOptions());
    CHECK(Named(obs, r) == std::vector<std::string>{"s0->m0"});
    CHECK(r.ranking[0].lossRate == Approx(8.0 / 3200));
    CHECK(r.ranking[0].lossyFlows == 8);
    CHECK(r.ranking[0].flows == 4 * kQps); // paths of the four runs

    // Healthy runs with the same stray copies: nothing named, one run or four.
    const PathLocateResult h = LocateFromPaths(obs, PoolPathRows(healthy), PathLocateOptions());
    CHECK(h.named == 0);
}

TEST_CASE("locate pool: a path is compared with its own run's siblings", "[unit][locate]")
{
    Observations obs;
    obs.links = SprayFabric();
    // The second run's RTTs are all 10 us longer (a busier step): against the first run's
    // smallest RTT every one of its paths would look 10 us slow; against its own, none is.
    const auto rows = PoolPathRows({Run(obs.links, 0, 0), Run(obs.links, 1, 0, 10.0)});
    CHECK(PathsComparable(rows));
    const PathLocateResult r = LocateFromPaths(obs, rows, PathLocateOptions());
    CHECK(r.comparedPaths == rows.size());
    CHECK(r.slowPaths == 0);
    CHECK(*std::max_element(r.delayUs.begin(), r.delayUs.end()) == 0.0);
}

TEST_CASE("locate pool: completion times are laid end to end, ar.csv counters summed",
          "[unit][locate]")
{
    auto run = [](double horizon, bool unfinishedSecond) {
        Observations o;
        o.links = SprayFabric();
        o.mtuBytes = 4096;
        o.horizonUs = horizon;
        FlowObservation f;
        f.flowId = "0";
        f.startUs = 5;
        f.finishUs = horizon;
        o.flows.push_back(f);
        f.flowId = "1";
        f.finished = !unfinishedSecond;
        f.finishUs = unfinishedSecond ? std::nan("") : 50;
        o.flows.push_back(f);
        o.skippedFlows = 1;
        return o;
    };
    std::vector<Observations> runs;
    runs.push_back(run(100, true));
    runs.push_back(run(200, false));
    const Observations p = PoolObservations(std::move(runs));
    REQUIRE(p.flows.size() == 4);
    CHECK(p.skippedFlows == 2);
    CHECK(p.flows[1].flowId == "run1/1");
    CHECK(p.flows[2].flowId == "run2/0");
    CHECK(p.flows[2].run == 1);
    // Run 2 starts 1 ms after run 1's horizon; run 1's unfinished flow ends at its own.
    CHECK(p.flows[2].startUs == Approx(100 + 1000 + 5));
    CHECK(p.flows[2].finishUs == Approx(100 + 1000 + 200));
    REQUIRE(p.runHorizonUs.size() == 2);
    CHECK(p.runHorizonUs[0] == Approx(100));
    CHECK(p.runHorizonUs[1] == Approx(1300));
    CHECK(p.horizonUs == Approx(1300));
    CHECK_FALSE(p.flows[1].finished);

    ArObservation a;
    a.link = 8;
    a.candidates = 16;
    a.offered = 10;
    a.decisions = 1;
    a.packets = 3;
    a.bytes = 300;
    a.steeredPackets = 2;
    ArObservation b = a;
    b.link = 9;
    const auto ar = PoolArRows({{a, b}, {b, a, a}});
    REQUIRE(ar.size() == 2);
    CHECK(ar[0].link == 8);
    CHECK(ar[0].offered == 30);
    CHECK(ar[0].decisions == 3);
    CHECK(ar[0].bytes == 900);
    CHECK(ar[0].steeredPackets == 6);
    CHECK(ar[1].offered == 20);
}

} // namespace TUSK_TEST_FILE
