// tusk locate from switch AR telemetry (ar.csv; tusk/locate/ar-signals.h) on hand-made
// tables: a 3-tier tree whose ToRs choose among 2 aggregation switches and whose aggregation
// switches choose among 2 cores, with the decisions an adaptive switch would count. An egress
// chosen a quarter as often as an even split is named, with the rate its bytes imply; an even
// fabric names nothing; a ToR uplink that avoids an aggregation switch whose own core uplink
// is slow is explained by it; a hash-only table gives no evidence; the deficit's test counts
// every decision and those not drawn uniformly; bad input is named by line and column.

#include "input-error-helpers.h"
#include "locate/ar-signals.h"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk::locate;
using namespace tusk_test;

namespace
{

/** tor0..3 -> agg0..3 (tor t to agg 2(t/2) and 2(t/2)+1), agg a -> core0, core1. */
LinkIndex
Tree()
{
    std::vector<DirectedLink> rows;
    uint32_t id = 0;
    for (uint32_t t = 0; t < 4; ++t)
    {
        for (uint32_t k = 0; k < 2; ++k)
        {
            const uint32_t a = 2 * (t / 2) + k;
            rows.push_back({id, fmt::format("tor{}", t), fmt::format("agg{}", a)});
            rows.push_back({id++, fmt::format("agg{}", a), fmt::format("tor{}", t)});
        }
    }
    for (uint32_t a = 0; a < 4; ++a)
    {
        for (uint32_t c = 0; c < 2; ++c)
        {
            rows.push_back({id, fmt::format("agg{}", a), fmt::format("core{}", c)});
            rows.push_back({id++, fmt::format("core{}", c), fmt::format("agg{}", a)});
        }
    }
    return LinkIndex(rows);
}

const char* const kHeader = "switch,port,link_id,to,candidates,offered,decisions,packets,bytes,"
                            "pkts_policy,pkts_hash,pkts_random,pkts_least_backlog,pkts_flowlet,"
                            "pkts_conga_metric,pkts_conweave_reroute\n";

/**
 * ar.csv of the tree: every switch 2,000 decisions over its 2 uplinks (1,000 each, +-3 by a
 * fixed pattern), 4 KiB per decision; `share` scales the decisions (and bytes) of one egress
 * by its name, the rest going to its sibling. `reason` is the column the frames count in.
 */
std::string
Table(const std::map<std::string, double>& share, const std::string& reason = "least_backlog")
{
    const LinkIndex idx = Tree();
    std::string s = kHeader;
    std::map<std::string, std::vector<const DirectedLink*>> up;
    for (const auto& d : idx.Links())
    {
        if ((d.from.rfind("tor", 0) == 0 && d.to.rfind("agg", 0) == 0) ||
            (d.from.rfind("agg", 0) == 0 && d.to.rfind("core", 0) == 0))
        {
            up[d.from].push_back(&d);
        }
    }
    int wobble = 0;
    for (const auto& [sw, links] : up)
    {
        const double total = 2000;
        std::vector<double> n(2, total / 2);
        for (int k = 0; k < 2; ++k)
        {
            const auto it = share.find(links[k]->Name());
            if (it != share.end())
            {
                n[k] = total / 2 * it->second;
                n[1 - k] = total - n[k];
            }
        }
        const double d = (wobble++ % 3) - 1.0; // -1, 0, +1
        n[0] += 3 * d;
        n[1] -= 3 * d;
        for (int k = 0; k < 2; ++k)
        {
            const auto dec = static_cast<uint64_t>(std::max(0.0, n[k])); // a never-chosen port stays 0
            s += fmt::format("{},{},{},{},2,2000,{},{},{}", sw, k, links[k]->linkId, links[k]->to,
                             dec, dec, dec * 4096);
            for (const char* r : {"policy", "hash", "random", "least_backlog", "flowlet",
                                  "conga_metric", "conweave_reroute"})
            {
                s += fmt::format(",{}", r == reason ? dec : 0);
            }
            s += "\n";
        }
    }
    return s;
}

ArLocateResult
Rank(const std::string& csv)
{
    Observations obs;
    obs.links = Tree();
    std::istringstream in(csv);
    const auto rows = ReadArObservations(in, "ar.csv", obs.links);
    return LocateFromAr(obs, rows, ArLocateOptions{});
}

std::string
NameOf(const ArSuspect& s)
{
    return Tree().Links()[s.link].Name();
}

} // namespace

TEST_CASE("ar evidence names the egress its switch avoids, with its rate", "[unit][locate]")
{
    // agg2 chooses core1 a quarter as often as an even split would (250 of 1,000).
    const auto r = Rank(Table({{"agg2->core1", 0.25}}));
    REQUIRE(r.named == 1);
    CHECK(NameOf(r.ranking[0]) == "agg2->core1");
    CHECK(r.ranking[0].decisionShare == Approx(0.25).margin(0.01));
    // Rate: its bytes over its sibling's, 250 / 1,750.
    CHECK(r.ranking[0].rateFactor == Approx(250.0 / 1750).margin(0.01));
    CHECK(r.ranking[0].capacityLost == Approx(1 - 250.0 / 1750).margin(0.01));
    // z: (1,000 - 250) / sqrt(2,000 x 1/2 x 1/2) = 33.5 binomial deviations.
    CHECK(r.ranking[0].z == Approx(750 / std::sqrt(500.0)).margin(0.5));
    CHECK(!r.ranking[1].named);
    CHECK(r.switches == 8);
    CHECK(r.egresses == 16);
}

TEST_CASE("ar evidence names nothing on an even fabric", "[unit][locate]")
{
    const auto r = Rank(Table({}));
    CHECK(r.named == 0);
    // A mild imbalance (0.8 of even) stays below the 0.7 floor.
    CHECK(Rank(Table({{"tor1->agg0", 0.8}})).named == 0);
}

TEST_CASE("ar evidence: a ToR avoiding an aggregation switch with a slow core uplink is "
          "explained by it",
          "[unit][locate]")
{
    // agg0->core0 at 0.2 of even; tor0 and tor1 avoid agg0 too (0.5), by back-pressure.
    const auto r = Rank(Table({{"agg0->core0", 0.2}, {"tor0->agg0", 0.5}, {"tor1->agg0", 0.5}}));
    REQUIRE(r.named == 1);
    CHECK(NameOf(r.ranking[0]) == "agg0->core0");
    int explained = 0;
    for (const auto& s : r.ranking)
    {
        explained += s.explained;
        CHECK((!s.explained || NameOf(s) == "tor0->agg0" || NameOf(s) == "tor1->agg0"));
    }
    CHECK(explained == 2);
}

TEST_CASE("ar.csv from a hash gives no adaptive evidence", "[unit][locate]")
{
    Observations obs;
    obs.links = Tree();
    std::istringstream hashed(Table({{"agg2->core1", 0.25}}, "hash"));
    CHECK(!ArHasAdaptiveDecisions(ReadArObservations(hashed, "ar.csv", obs.links)));
    std::istringstream steered(Table({}, "flowlet"));
    CHECK(ArHasAdaptiveDecisions(ReadArObservations(steered, "ar.csv", obs.links)));
}

TEST_CASE("bad ar.csv is named by line and column", "[unit][locate]")
{
    const LinkIndex links = Tree();
    auto error = [&](const std::string& body) {
        std::istringstream in(std::string(kHeader) + body);
        return std::string(
            ExpectInputError([&] { ReadArObservations(in, "ar.csv", links); }).what());
    };
    CHECK_THAT(error("tor0,0,0,agg0,2,10,11,11,100,0,0,0,11,0,0,0\n"),
               Catch::Contains("ar.csv:2") && Catch::Contains("decisions"));
    CHECK_THAT(error("tor0,0,99,agg0,2,10,5,5,100,0,0,0,5,0,0,0\n"),
               Catch::Contains("ar.csv:2") && Catch::Contains("link_id"));
    CHECK_THAT(error("tor0,0,0,agg1,2,10,5,5,100,0,0,0,5,0,0,0\n"),
               Catch::Contains("link_id")); // link 0 is tor0-agg0, not tor0-agg1
    CHECK_THAT(error("tor0,0,0,agg0,1,10,5,5,100,0,0,0,5,0,0,0\n"),
               Catch::Contains("candidates"));
    CHECK_THAT(error("tor0,0,0,agg0,2,x,5,5,100,0,0,0,5,0,0,0\n"), Catch::Contains("offered"));
    std::istringstream noColumn("switch,port\n");
    CHECK_THAT(std::string(ExpectInputError([&] {
                               ReadArObservations(noColumn, "ar.csv", links);
                           }).what()),
               Catch::Contains("link_id"));
}

TEST_CASE("ar evidence judges no egress on hashed decisions", "[unit][locate]")
{
    // agg2 hashes (as CONGA and ConWeave do away from the source ToR): its rows offer no
    // decision, so even a port it never uses is not named, and the even fabric's ranking
    // puts the judged egresses first.
    std::string csv;
    std::istringstream in(Table({{"agg2->core1", 0.0}}));
    for (std::string l; std::getline(in, l);)
    {
        if (l.rfind("agg2,", 0) == 0)
        {
            // switch,port,link_id,to,candidates,offered,decisions,...: no fresh decision.
            std::vector<std::string> f;
            std::stringstream ss(l);
            for (std::string x; std::getline(ss, x, ',');)
            {
                f.push_back(x);
            }
            f[5] = f[6] = "0";
            l.clear();
            for (size_t i = 0; i < f.size(); ++i)
            {
                l += (i ? "," : "") + f[i];
            }
        }
        csv += l + "\n";
    }
    const auto r = Rank(csv);
    CHECK(r.named == 0);
    CHECK(r.ranking.front().expected >= 20); // a judged egress first, not agg2's
}

TEST_CASE("ar evidence a policy deciding once per flow cannot judge is not enough for auto",
          "[unit][locate]")
{
    // DRILL-like: every egress offered 2,000 fresh decisions (an even choice: 1,000 each).
    Observations obs;
    obs.links = Tree();
    std::istringstream perPacket(Table({}));
    CHECK(ArJudgedShare(ReadArObservations(perPacket, "ar.csv", obs.links), ArLocateOptions{}) ==
          1.0);
    // ConWeave- or flowlet-like: the same frames, steered (`flowlet` continuations), but one
    // fresh decision per flow, 6 per switch: an even choice gives each egress 3, below the
    // 20 a named link needs, so not even a port its switch never chose can be named, and
    // `--evidence auto` must not rank from it (ArJudgedShare 0 < 1/2).
    std::string thin = kHeader;
    const auto tree = Tree(); // held: a range-for over a temporary's member would dangle
    for (const auto& d : tree.Links())
    {
        if ((d.from.rfind("tor", 0) == 0 && d.to.rfind("agg", 0) == 0) ||
            (d.from.rfind("agg", 0) == 0 && d.to.rfind("core", 0) == 0))
        {
            const bool avoided = d.Name() == "agg2->core1";
            const int dec = avoided ? 0 : (d.to == "core0" && d.from == "agg2" ? 6 : 3);
            thin += fmt::format("{},0,{},{},2,6,{},{},{},0,0,0,0,{},0,{}\n", d.from, d.linkId,
                                d.to, dec, dec * 500, dec * 500 * 4096, dec * 500 - dec, dec);
        }
    }
    std::istringstream thinIn(thin);
    const auto rows = ReadArObservations(thinIn, "ar.csv", obs.links);
    CHECK(ArHasAdaptiveDecisions(rows)); // it steered...
    CHECK(ArJudgedShare(rows, ArLocateOptions{}) == 0.0); // ...but no egress can be judged
    CHECK(LocateFromAr(obs, rows, ArLocateOptions{}).named == 0);
    // Half the egresses judged (the ToRs' uplinks per packet, the aggregation switches'
    // once per flow) is enough; fewer is not.
    std::string half = kHeader;
    std::istringstream full(Table({}));
    std::string line;
    std::getline(full, line); // header
    while (std::getline(full, line))
    {
        if (line.rfind("tor", 0) == 0)
        {
            half += line + "\n";
        }
    }
    std::istringstream thinAgain(thin);
    for (std::string l; std::getline(thinAgain, l);)
    {
        if (l.rfind("agg", 0) == 0)
        {
            half += l + "\n";
        }
    }
    std::istringstream halfIn(half);
    CHECK(ArJudgedShare(ReadArObservations(halfIn, "ar.csv", obs.links), ArLocateOptions{}) ==
          Approx(0.5));
    CHECK(ArJudgedShare({}, ArLocateOptions{}) == 0.0);
}

namespace
{

/** Table({}) with agg2's two rows (agg2->core0, link 12; agg2->core1, link 13) replaced. */
std::string
WithAgg2(const std::string& core0, const std::string& core1)
{
    std::string csv;
    std::istringstream in(Table({}));
    for (std::string l; std::getline(in, l);)
    {
        if (l.rfind("agg2,", 0) != 0)
        {
            csv += l + "\n";
        }
    }
    return csv + core0 + "\n" + core1 + "\n";
}

} // namespace

TEST_CASE("ar evidence tests the deficit over every decision and over those not drawn uniformly",
          "[unit][locate]")
{
    // The larger of the two tests counts. agg2 decides 2,000 times: 1,800 uniform draws (its compared ports tied: light load),
    // 900 each, and 200 steered by backlog, of which the slow core1 got 40 (an even choice:
    // 100). Its bytes say a third of even. Over all 2,000 decisions the deficit is 60 of
    // 1,000, 2.7 binomial deviations, chance; over the 200 steered ones, 60 of 100 with a
    // deviation of sqrt(200 x 1/4) = 7.1: 8.5, not chance.
    const std::string core0 = "agg2,0,12,core0,2,2000,1060,1060,4341760,0,0,900,160,0,0,0";
    const std::string core1 = "agg2,1,13,core1,2,2000,940,940,1200000,0,0,900,40,0,0,0";
    const auto r = Rank(WithAgg2(core0, core1));
    REQUIRE(r.named == 1);
    CHECK(NameOf(r.ranking[0]) == "agg2->core1");
    CHECK(r.ranking[0].z == Approx(60 / std::sqrt(50.0)).margin(0.01));
    CHECK(r.ranking[0].decisions == 940); // the column still counts every decision
    // Every decision a draw (LetFlow's new flowlets): the same bytes, but no steered
    // decision says the switch avoided core1, and nothing is named.
    const auto drawn = Rank(WithAgg2("agg2,0,12,core0,2,2000,1060,1060,4341760,0,0,1060,0,0,0,0",
                                     "agg2,1,13,core1,2,2000,940,940,1200000,0,0,940,0,0,0,0"));
    CHECK(drawn.named == 0);
    CHECK(drawn.ranking[0].z == Approx(60 / std::sqrt(500.0)).margin(0.01)); // over all: 2.7
    // The deficit in the draws, the steered decisions even (ports tie less often with a slow
    // one among them): over all decisions 200 of 1,000 short, 8.9 deviations, named.
    const auto inDraws = Rank(WithAgg2("agg2,0,12,core0,2,2000,1200,1200,4341760,0,0,1100,100,0,0,0",
                                       "agg2,1,13,core1,2,2000,800,800,1200000,0,0,700,100,0,0,0"));
    REQUIRE(inDraws.named == 1);
    CHECK(NameOf(inDraws.ranking[0]) == "agg2->core1");
    CHECK(inDraws.ranking[0].z == Approx(200 / std::sqrt(500.0)).margin(0.01));
    // More draws than decisions is refused, naming the line and column.
    Observations obs;
    obs.links = Tree();
    std::istringstream bad(std::string(kHeader) + "tor0,0,0,agg0,2,10,5,5,100,0,0,6,0,0,0,0\n");
    CHECK_THAT(std::string(ExpectInputError([&] {
                               ReadArObservations(bad, "ar.csv", obs.links);
                           }).what()),
               Catch::Contains("ar.csv:2") && Catch::Contains("pkts_random"));
}

} // namespace TUSK_TEST_FILE
