/*
 * flows.csv's row text: the `path` and `paths` columns written in place into the row's buffer
 * are the text of PathField / PathsField (locate::FormatPaths, which `tusk locate` reads
 * back), and reorder_mean's +0 shortcut gives fmt's "{:.3f}" text (and -0 still fmt's).
 */
#include "results/results-writer.h"
#include "locate/observations.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace
{

std::vector<std::string>
Split(const std::string& line)
{
    std::vector<std::string> out;
    std::string cell;
    std::istringstream in(line);
    while (std::getline(in, cell, ','))
    {
        out.push_back(cell);
    }
    if (!line.empty() && line.back() == ',')
    {
        out.emplace_back();
    }
    return out;
}

/** The value of column `name` in `f`'s flows.csv line. */
std::string
Column(const tusk::FlowRow& f, const std::string& name)
{
    std::string header = tusk::FlowsCsvHeader(false);
    header.pop_back(); // '\n'
    std::string line;
    tusk::AppendFlowCsvRow(line, f, "ecmp", {});
    REQUIRE(line.back() == '\n');
    line.pop_back();
    const auto names = Split(header);
    const auto cells = Split(line);
    REQUIRE(names.size() == cells.size());
    for (size_t k = 0; k < names.size(); ++k)
    {
        if (names[k] == name)
        {
            return cells[k];
        }
    }
    FAIL("no column " << name);
    return "";
}

} // namespace

TEST_CASE("flows.csv's path and paths columns are PathField's and FormatPaths's text, for no, one and several paths")
{
    tusk::FlowRow f;
    CHECK(Column(f, "path").empty());
    CHECK(Column(f, "paths").empty());
    f.paths = {{{0, 12, 345, 1}, 120}};
    CHECK(Column(f, "path") == "0>12>345>1");
    CHECK(Column(f, "paths") == "0>12>345>1:120");
    CHECK(Column(f, "path") == tusk::PathField(f));
    f.paths = {{{0, 2, 3, 1}, 120}, {{0, 4, 5, 1}, 98}, {{7}, 18446744073709551615ULL}};
    CHECK(Column(f, "path").empty());
    CHECK(Column(f, "paths") == "0>2>3>1:120|0>4>5>1:98|7:18446744073709551615");
    CHECK(Column(f, "paths") == tusk::locate::FormatPaths(f.paths));
    CHECK(Column(f, "paths") == tusk::PathsField(f));
}

TEST_CASE("flows.csv's reorder_mean: +0 is 0.000 as fmt prints it, -0 and other values still fmt's")
{
    tusk::FlowRow f;
    f.reorderMean = 0.0;
    CHECK(Column(f, "reorder_mean") == "0.000");
    f.reorderMean = -0.0;
    CHECK(Column(f, "reorder_mean") == "-0.000");
    f.reorderMean = 1.0 / 3.0;
    CHECK(Column(f, "reorder_mean") == "0.333");
    f.reorderMean = 2.5e-4;
    CHECK(Column(f, "reorder_mean") == "0.000");
    // fair_slowdown (9 decimals) of a finished row with a fair ideal: +0 is not reachable
    // there (fct > 0), a value is fmt's.
    f.finished = true;
    f.fctPs = 3;
    f.fairIdealPs = 2;
    f.fairSlowdown = 1.5;
    CHECK(Column(f, "fair_slowdown") == "1.500000000");
}

TEST_CASE("FixedTextCache gives fmt's fixed-decimal text for every value, hit or miss, across decimal carries and evictions")
{
    tusk::FixedTextCache cache;
    // Values at a decimal carry (0.9999995 and its neighbours round up or down at 6 decimals
    // as their binary value says), signed zeros, NaN, huge values (longer than an entry).
    std::vector<double> values = {0.9999995,    std::nextafter(0.9999995, 0.0),
                                  std::nextafter(0.9999995, 2.0), 0.99999999995,
                                  9.9999999995, 0.0005,        0.0015,  1.0 / 3.0,
                                  0.0,          -0.0,          1e300,   -2.5e-10,
                                  123456.7890123456};
    // And enough pseudo-random values to collide in and evict every entry several times.
    uint64_t x = 88172645463325252ULL;
    for (int k = 0; k < 100000; ++k)
    {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        values.push_back(static_cast<double>(x % 10000000) / 997.0);
    }
    for (int round = 0; round < 2; ++round) // the first round mostly misses, the second hits
    {
        for (int decimals : {3, 6, 9})
        {
            for (double v : values)
            {
                INFO("value " << fmt::format("{:.17g}", v) << " decimals " << decimals);
                const std::string expected = fmt::format("{:.{}f}", v, decimals);
                REQUIRE(std::string(cache.Get(v, decimals)) == expected);
                REQUIRE(std::string(cache.Get(v, decimals)) == expected); // a hit now
            }
        }
    }
    CHECK(cache.Get(std::nan(""), 9).empty());
    CHECK(cache.Hits() > cache.Misses());
}

TEST_CASE("a replayed flows.csv and waits.csv row, times shifted across a decimal carry, is the row formatted without the cache")
{
    // A memo iteration's row, then the same row shifted as a replayed iteration's is: start
    // 0.999999 µs + 1 ps -> 1.000000, finish across a carry too; slowdowns and delay equal
    // (cache hits). Formatted with the cache, the shifted row's bytes must be those of the
    // row formatted from scratch, and its times the shifted values'.
    tusk::FlowRow f;
    f.id = 7;
    f.src = 1;
    f.dst = 2;
    f.bytes = 4096;
    f.started = f.finished = f.acknowledged = true;
    f.startPs = 999999;
    f.fctPs = 9000001;
    f.finishPs = f.startPs + f.fctPs;
    f.fctSenderPs = 9999999;
    f.idealFctPs = 3000000;
    f.slowdown = static_cast<double>(f.fctPs) / static_cast<double>(f.idealFctPs);
    f.fairIdealPs = 4500000;
    f.fairSlowdown = static_cast<double>(f.fctPs) / static_cast<double>(f.fairIdealPs);
    f.reorderMean = 0.9999995;
    f.paths = {{{0, 5, 9, 2}, 3}};
    tusk::WaitRow w;
    w.collective = 3;
    w.readyPs = 999999;
    w.sent = w.arrived = true;
    w.sentPs = 999999;
    w.arrivalPs = 1999999999;
    w.idealPs = 1;
    w.stepIdealPs = 999999999999;
    w.waitPs = 1000000;
    w.networkWaitPs = 999999;
    w.delay = 0.9999995;
    w.fromRank = 4;
    w.lastTransfer = 7;
    tusk::RowTextCache cache;
    for (uint64_t shift : {uint64_t{0}, uint64_t{1}, uint64_t{1000000}, uint64_t{123456789012345}})
    {
        tusk::FlowRow g = f;
        g.id = f.id + shift;
        g.startPs = f.startPs + shift;
        g.finishPs = f.finishPs + shift;
        tusk::WaitRow v = w;
        v.readyPs += shift;
        v.sentPs += shift;
        v.arrivalPs += shift;
        std::string cached, fresh;
        tusk::AppendFlowCsvRow(cached, g, "ecmp", {}, &cache);
        tusk::AppendFlowCsvRow(fresh, g, "ecmp", {});
        CHECK(cached == fresh);
        std::string cachedWait, freshWait;
        tusk::AppendWaitCsvRow(cachedWait, v, &g, &cache);
        tusk::AppendWaitCsvRow(freshWait, v, &g);
        CHECK(cachedWait == freshWait);
        if (shift == 1)
        {
            CHECK(Column(g, "start_us") == "1.000000");
            CHECK(Column(g, "finish_us") == "10.000001");
            CHECK(cachedWait == "3,0,0,0,1.000000,1.000000,2000.000000,0.000001,999999.999999,"
                                "1.000000,0.999999,1.000000,4,8\n");
        }
    }
    CHECK(cache.hits > 0); // the segments copied (their numbers inside them)
    CHECK(Column(f, "slowdown") == "3.000000333");
    CHECK(Column(f, "reorder_mean") == "1.000");
}

TEST_CASE("flows.csv rows formatted with the segment cache equal rows formatted from scratch when any one printed input differs")
{
    // Rows that share all but one input of a cached segment (a path link, its frame count, a
    // drop count, the policy, the step, a head counter, reorder_mean's bits): each must get
    // its own text, as formatting gives it, whatever the cache holds.
    tusk::FlowRow base;
    base.id = 1;
    base.started = base.finished = base.acknowledged = true;
    base.startPs = 5;
    base.finishPs = 1000005;
    base.fctPs = 1000000;
    base.idealFctPs = 900000;
    base.slowdown = 1000000.0 / 900000.0;
    base.step = 3;
    base.channel = 1;
    base.collective = 2;
    base.job = 0;
    base.pktsSent = base.pktsReceived = 120;
    base.paths = {{{0, 12, 345, 1}, 120}};
    std::vector<std::pair<tusk::FlowRow, std::string>> variants;
    const auto add = [&](auto change, std::string policy = "ecmp") {
        tusk::FlowRow f = base;
        change(f);
        variants.emplace_back(f, policy);
    };
    add([](tusk::FlowRow&) {});
    add([](tusk::FlowRow& f) { f.paths = {{{0, 12, 346, 1}, 120}}; });
    add([](tusk::FlowRow& f) { f.paths = {{{0, 12, 345, 1}, 119}}; });
    add([](tusk::FlowRow& f) { f.paths = {{{0, 12, 345, 1}, 60}, {{0, 13, 345, 1}, 60}}; });
    add([](tusk::FlowRow& f) { f.paths.clear(); });
    add([](tusk::FlowRow& f) { f.pktsDropped[1] = 7; });
    add([](tusk::FlowRow& f) { f.pktsDropped[8] = 1; });
    add([](tusk::FlowRow&) {}, "spray");
    add([](tusk::FlowRow& f) { f.step = 4; });
    add([](tusk::FlowRow& f) { f.step = -1; f.channel = -1; f.job = -1; f.collective = -1; });
    add([](tusk::FlowRow& f) { f.background = true; });
    add([](tusk::FlowRow& f) { f.retxPackets = 1; });
    add([](tusk::FlowRow& f) { f.reorderMean = 0.9995; });
    add([](tusk::FlowRow& f) { f.reorderMean = -0.0; });
    add([](tusk::FlowRow& f) { f.finished = false; });
    add([](tusk::FlowRow& f) { f.pktsInFlight = -2; });
    tusk::RowTextCache cache;
    for (int round = 0; round < 3; ++round)
    {
        for (size_t k = 0; k < variants.size(); ++k)
        {
            INFO("variant " << k << " round " << round);
            std::string cached, fresh;
            tusk::AppendFlowCsvRow(cached, variants[k].first, variants[k].second, {}, &cache);
            tusk::AppendFlowCsvRow(fresh, variants[k].first, variants[k].second, {});
            CHECK(cached == fresh);
        }
    }
    CHECK(cache.hits > 0);
    tusk::FlowRow dropped = base;
    dropped.pktsDropped[1] = 12;
    CHECK(Column(dropped, "pkts_dropped_no_route") == "12");
    CHECK(Column(dropped, "pkts_dropped_buffer_overflow") == "0");
}

TEST_CASE("flows.csv rows formatted with the cache by source equal rows formatted from scratch when any one printed input differs")
{
    // RowTextCache::bySource (a standalone ring's rows): a row's head and fair ideal are
    // looked up among its source's last rows, channel to paths in its source's one entry.
    // Rows that differ in one input of either (more of them than a source keeps, so entries
    // are replaced), from two sources and with node ids, must each get their own text.
    tusk::FlowRow base;
    base.id = 1;
    base.src = 3;
    base.dst = 4;
    base.started = base.finished = base.acknowledged = true;
    base.startPs = 5;
    base.finishPs = 1000005;
    base.fctPs = 1000000;
    base.fctSenderPs = 1000300;
    base.idealFctPs = 900000;
    base.slowdown = 1000000.0 / 900000.0;
    base.fairIdealPs = 950000;
    base.fairSlowdown = 1000000.0 / 950000.0;
    base.step = 3;
    base.channel = 1;
    base.collective = 2;
    base.job = -1;
    base.pktsSent = base.pktsReceived = 120;
    base.paths = {{{0, 12, 345, 1}, 120}};
    std::vector<std::pair<tusk::FlowRow, std::string>> variants;
    const auto add = [&](auto change, std::string policy = "ecmp") {
        tusk::FlowRow f = base;
        change(f);
        variants.emplace_back(f, policy);
    };
    add([](tusk::FlowRow&) {});
    add([](tusk::FlowRow& f) { f.id = 77; f.startPs = 999995; f.finishPs = 1999995; });
    add([](tusk::FlowRow& f) { f.step = 4; f.collective = 5; });
    add([](tusk::FlowRow& f) { f.src = 9; });
    add([](tusk::FlowRow& f) { f.dst = 5; f.bytes = 8; });
    add([](tusk::FlowRow& f) { f.fctPs = 1000001; });
    add([](tusk::FlowRow& f) { f.fctSenderPs = 1000301; });
    add([](tusk::FlowRow& f) { f.acknowledged = false; });
    add([](tusk::FlowRow& f) { f.fairIdealPs = 950001; });
    add([](tusk::FlowRow& f) { f.fairIdealPs = 0; });
    add([](tusk::FlowRow& f) { f.fairSlowdown = 1.5; });
    add([](tusk::FlowRow& f) { f.entropy = 12345; });
    add([](tusk::FlowRow& f) { f.paths = {{{0, 12, 346, 1}, 120}}; });
    add([](tusk::FlowRow& f) { f.paths = {{{0, 12, 345, 1}, 60}, {{0, 13, 345, 1}, 60}}; });
    add([](tusk::FlowRow& f) { f.paths.clear(); });
    add([](tusk::FlowRow& f) { f.pktsDropped[8] = 1; });
    add([](tusk::FlowRow&) {}, "spray");
    add([](tusk::FlowRow& f) { f.channel = 0; });
    add([](tusk::FlowRow& f) { f.pktsInFlight = -2; });
    add([](tusk::FlowRow& f) { f.finished = false; });
    add([](tusk::FlowRow& f) { f.reorderMean = 0.9995; });
    const std::vector<uint32_t> nodes{10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
    for (const auto* ids : {&nodes, static_cast<const std::vector<uint32_t>*>(nullptr)})
    {
        tusk::RowTextCache cache;
        cache.bySource = true;
        const std::vector<uint32_t> none;
        const std::vector<uint32_t>& nodeIds = ids != nullptr ? *ids : none;
        for (int round = 0; round < 3; ++round)
        {
            for (size_t k = 0; k < variants.size(); ++k)
            {
                INFO("variant " << k << " round " << round << " node ids " << !nodeIds.empty());
                std::string cached, fresh;
                tusk::AppendFlowCsvRow(cached, variants[k].first, variants[k].second, nodeIds,
                                       &cache);
                tusk::AppendFlowCsvRow(fresh, variants[k].first, variants[k].second, nodeIds);
                CHECK(cached == fresh);
                // Again at once: every segment from the cache.
                const uint64_t hits = cache.hits;
                std::string again;
                tusk::AppendFlowCsvRow(again, variants[k].first, variants[k].second, nodeIds,
                                       &cache);
                CHECK(again == fresh);
                CHECK(cache.hits == hits + 2);
            }
        }
    }
}

TEST_CASE("flows.csv's times are ps printed as µs with 6 decimals, exact, across carries and at the extremes")
{
    tusk::FlowRow f;
    f.started = true;
    for (uint64_t ps : {uint64_t{0}, uint64_t{1}, uint64_t{999999}, uint64_t{1000000},
                        uint64_t{1000001}, uint64_t{9999999}, uint64_t{10000000},
                        uint64_t{123456789012}, uint64_t{18446744073709551615ULL}})
    {
        f.startPs = ps;
        CHECK(Column(f, "start_us") == fmt::format("{}.{:06d}", ps / 1000000, ps % 1000000));
    }
    f.startPs = 18446744073709551615ULL;
    CHECK(Column(f, "start_us") == "18446744073709.551615");
}

TEST_CASE("waits.csv rows formatted with the segment cache equal rows formatted from scratch when any one printed input differs")
{
    tusk::WaitRow base;
    base.collective = 1;
    base.step = 2;
    base.rank = 3;
    base.host = 4;
    base.readyPs = 10;
    base.sent = base.arrived = true;
    base.sentPs = 20;
    base.arrivalPs = 3000000;
    base.idealPs = 1000000;
    base.stepIdealPs = 1500000;
    base.waitPs = 1999990;
    base.networkWaitPs = 1999980;
    base.delay = 1999990.0 / 1500000.0;
    base.fromRank = 2;
    tusk::FlowRow last;
    last.id = 99;
    std::vector<tusk::WaitRow> variants(9, base);
    variants[1].idealPs += 1;
    variants[2].stepIdealPs += 1;
    variants[3].waitPs = 0;
    variants[4].networkWaitPs = 999999;
    variants[5].delay = 0.9999995;
    variants[6].fromRank = -1;
    variants[7].arrived = false;
    variants[8].sent = false;
    tusk::RowTextCache cache;
    for (int round = 0; round < 3; ++round)
    {
        for (size_t k = 0; k < variants.size(); ++k)
        {
            INFO("variant " << k << " round " << round);
            std::string cached, fresh;
            tusk::AppendWaitCsvRow(cached, variants[k], &last, &cache);
            tusk::AppendWaitCsvRow(fresh, variants[k], &last);
            CHECK(cached == fresh);
        }
    }
    CHECK(cache.hits > 0);
    std::string line;
    tusk::AppendWaitCsvRow(line, variants[5], &last, &cache);
    CHECK(line == "1,2,3,4,0.000010,0.000020,3.000000,1.000000,1.500000,1.999990,1.999980,1.000000,2,99\n");
}

TEST_CASE("a flows.csv row from its shape, id, times and collective shifted, is the row formatted from scratch")
{
    // Fast mode writes a replayed iteration's flows.csv rows from its memo iteration's shapes
    // (FlowCsvRowShapeOf): the line without id, start_us, finish_us and collective_id, those
    // four formatted from the shifted values (AppendShapedFlowCsvRow). Every shift, across
    // decimal carries and digit counts, with and without node ids, two paths and a hundred (a
    // line longer than the function's stack buffer), a collective of -1: the bytes of
    // AppendFlowCsvRow on the shifted row.
    tusk::FlowRow f;
    f.id = 9;
    f.src = 3;
    f.dst = 12;
    f.bytes = 1048576;
    f.started = f.finished = f.acknowledged = true;
    f.startPs = 999999;
    f.fctPs = 123456789;
    f.finishPs = f.startPs + f.fctPs;
    f.fctSenderPs = 130000000;
    f.idealFctPs = 100000000;
    f.slowdown = 1.23456789;
    f.fairIdealPs = 110000000;
    f.fairSlowdown = 1.1223344;
    f.qps = 2;
    f.entropy = 50000;
    f.collective = 99;
    f.step = 4;
    f.channel = 1;
    f.job = 0;
    f.pktsSent = f.pktsReceived = 257;
    f.paths = {{{0, 5, 9, 2}, 200}, {{1, 6, 9, 2}, 57}};
    tusk::FlowRow sprayed = f;
    sprayed.paths.clear();
    for (uint32_t k = 0; k < 100; ++k)
    {
        sprayed.paths.push_back({{k, 1000 + k, 2000 + k, 3000 + k}, 1 + k});
    }
    std::string longLine;
    tusk::AppendFlowCsvRow(longLine, sprayed, "ecmp", {});
    REQUIRE(longLine.size() > 2048);
    const std::vector<uint32_t> nodeIds = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22};
    const std::vector<uint64_t> shifts = {0, 1, 91, 1000000, 123456789012345};
    for (const tusk::FlowRow& row : {f, sprayed})
    {
        for (const std::vector<uint32_t>& nodes : {std::vector<uint32_t>{}, nodeIds})
        {
            for (int32_t collective : {99, -1})
            {
                tusk::FlowRow g0 = row;
                g0.collective = collective;
                tusk::RowTextCache cache;
                const tusk::FlowCsvRowShape shape =
                    tusk::FlowCsvRowShapeOf(g0, "ecmp", nodes, &cache);
                for (uint64_t shift : shifts)
                {
                    tusk::FlowRow g = g0;
                    g.id += shift;
                    g.startPs += shift;
                    g.finishPs += shift;
                    if (g.collective >= 0)
                    {
                        g.collective += static_cast<int32_t>(shift % 1000);
                    }
                    std::string shaped = "x"; // appended to what is there
                    std::string fresh = "x";
                    tusk::AppendShapedFlowCsvRow(shaped, shape, g.id, g.startPs, g.finishPs,
                                                 g.collective);
                    tusk::AppendFlowCsvRow(fresh, g, "ecmp", nodes);
                    CHECK(shaped == fresh);
                }
            }
        }
    }
    // Not for a row that did not finish (its times are blank, not shifted).
    tusk::FlowRow unfinished = f;
    unfinished.finished = false;
    CHECK_THROWS(tusk::FlowCsvRowShapeOf(unfinished, "ecmp", {}));
}

TEST_CASE("a waits.csv row with its last flow's id is the row with its last flow's row")
{
    tusk::WaitRow w;
    w.collective = 3;
    w.readyPs = 5;
    w.sent = w.arrived = true;
    w.sentPs = 6;
    w.arrivalPs = 70;
    w.idealPs = 8;
    w.lastTransfer = 2;
    w.fromRank = 1;
    tusk::FlowRow last;
    last.id = 123456;
    const uint64_t id = last.id;
    std::string byRow, byId;
    tusk::AppendWaitCsvRow(byRow, w, &last);
    tusk::AppendWaitCsvRow(byId, w, &id);
    CHECK(byRow == byId);
    CHECK(byId.substr(byId.size() - 8) == ",123456\n");
}

} // namespace TUSK_TEST_FILE
