// tusk locate: path parsing, the load-explained slowdown, the NNLS solver, and the accuracy of
// the tomography on synthetic ground truth (tests/support/locate-synthetic.h): a fluid
// max-min model of a leaf-spine with planted slow or lossy link directions.

#include "locate-synthetic.h"
#include "locate/locate-command.h"
#include "locate/observations.h"
#include "locate/tomography.h"

#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <iostream>
#include <random>
#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk::locate;
using namespace tusk_test;

namespace
{

/** Outcome of one method over several placements. */
struct Tally
{
    uint32_t runs = 0;
    uint32_t top1 = 0;       //!< the first suspect holds a fault
    uint32_t allInTop3 = 0;  //!< every fault within the first three
    uint32_t falseRuns = 0;  //!< runs that named a healthy link
    uint32_t named = 0;      //!< links named, all runs
    uint32_t top1Links = 0;  //!< links in the first suspect's class, all runs
    double seconds = 0;
};

void
Score(Tally& t, const LocateResult& res, const std::vector<synth::Fault>& faults)
{
    ++t.runs;
    t.top1Links += res.ranking.empty() ? 0 : res.ranking[0].links.size();
    if (!faults.empty() && !res.ranking.empty() && synth::Hits(res.ranking[0], faults))
    {
        ++t.top1;
    }
    uint32_t found = 0;
    for (const auto& f : faults)
    {
        for (size_t i = 0; i < std::min<size_t>(3, res.ranking.size()); ++i)
        {
            if (synth::Hits(res.ranking[i], {f}))
            {
                ++found;
                break;
            }
        }
    }
    t.allInTop3 += found == faults.size();
    bool falseName = false;
    for (const auto& s : res.ranking)
    {
        if (s.named)
        {
            ++t.named;
            falseName |= !synth::Hits(s, faults);
        }
    }
    t.falseRuns += falseName;
}

/** Case: `faults` random directions at `factor` of their rate and `loss`, over `placements`
 *  seeds; every method on the same synthetic runs. */
struct Case
{
    std::string name;
    uint32_t faults = 0;
    double factor = 1.0, loss = 0.0;
    bool spray = false;
    uint32_t qps = 1;
};

/** How hard the synthetic observations are. */
struct Difficulty
{
    const char* name;
    uint32_t rounds;
    double noise, victims, spread;
};

std::vector<Tally>
Measure(const synth::Graph& g, const Case& k, const Difficulty& d, uint32_t placements,
        const std::vector<Method>& methods, uint64_t seed0 = 1000)
{
    std::vector<Tally> t(methods.size());
    for (uint32_t p = 0; p < placements; ++p)
    {
        synth::Config c;
        c.seed = seed0 + p;
        c.spray = k.spray;
        c.qps = k.qps;
        c.rounds = d.rounds;
        c.noiseSigma = d.noise;
        c.victimFraction = d.victims;
        c.spreadFactor = d.spread;
        c.spreadProbability = d.spread > 1 ? 0.5 : 0.0;
        c.faults = synth::RandomFaults(g, k.faults, k.factor, k.loss, c.seed);
        const auto r = synth::Generate(g, c);
        for (size_t i = 0; i < methods.size(); ++i)
        {
            TomographyOptions o;
            o.method = methods[i];
            if (getenv("LOCATE_MADK"))
            {
                o.madK = atof(getenv("LOCATE_MADK"));
            }
            if (getenv("LOCATE_SLOW"))
            {
                o.slowFactor = atof(getenv("LOCATE_SLOW"));
            }
            if (getenv("LOCATE_LASSO"))
            {
                o.lassoFlows = atof(getenv("LOCATE_LASSO"));
            }
            const auto t0 = std::chrono::steady_clock::now();
            const auto res = Locate(r.obs, o);
            t[i].seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            Score(t[i], res, c.faults);
        }
    }
    return t;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Paths

TEST_CASE("locate: a path of link ids is walked from the source host, each hop in its direction",
          "[unit][locate]")
{
    // host0 - leaf0 - spine0/spine1 - leaf1 - host1: link ids 0..5 (parallel directions).
    LinkIndex idx({{0, "host0", "leaf0"}, {0, "leaf0", "host0"},
                   {1, "host1", "leaf1"}, {1, "leaf1", "host1"},
                   {2, "leaf0", "spine0"}, {2, "spine0", "leaf0"},
                   {3, "leaf1", "spine0"}, {3, "spine0", "leaf1"},
                   {4, "leaf0", "spine1"}, {4, "spine1", "leaf0"},
                   {5, "leaf1", "spine1"}, {5, "spine1", "leaf1"}});
    const auto up = idx.Walk("0>2>3>1", "host0", "host1");
    REQUIRE(up.size() == 4);
    CHECK(idx.Links()[up[0]].Name() == "host0->leaf0");
    CHECK(idx.Links()[up[1]].Name() == "leaf0->spine0");
    CHECK(idx.Links()[up[2]].Name() == "spine0->leaf1");
    CHECK(idx.Links()[up[3]].Name() == "leaf1->host1");
    // The same ids backwards take the other direction of every link.
    const auto down = idx.Walk("1>3>2>0", "host1", "host0");
    CHECK(idx.Links()[down[1]].Name() == "leaf1->spine0");
    CHECK(down[1] != up[2]);

    CHECK_THROWS_WITH(idx.Walk("0>2>5>1", "host0", "host1"),
                      Catch::Contains("hop 3 (link_id 5, leaf1-spine1) does not start at spine0"));
    CHECK_THROWS_WITH(idx.Walk("0>2>3", "host0", "host1"), Catch::Contains("ends at leaf1"));
    CHECK_THROWS_WITH(idx.Walk("0>9", "host0", "host1"), Catch::Contains("link_id 9 is not in"));
    CHECK_THROWS_WITH(idx.Walk("0>>3", "host0", "host1"), Catch::Contains("hop 2 is \"\""));
    CHECK(FormatPaths({{{0, 2, 3, 1}, 120}, {{0, 4, 5, 1}, 98}}) == "0>2>3>1:120|0>4>5>1:98");
}

TEST_CASE("locate: a path to or from an in-network reduction's aggregation endpoint is walked",
          "[unit][locate]")
{
    // host0 - leaf0 - spine0 - leaf1 - host1, and leaf0's aggregation endpoint agg.leaf0
    // (link 6), which flows.csv numbers host 2 (after the real hosts) and links.csv names by
    // its switch.
    LinkIndex idx({{0, "host0", "leaf0"}, {0, "leaf0", "host0"},
                   {1, "host1", "leaf1"}, {1, "leaf1", "host1"},
                   {2, "leaf0", "spine0"}, {2, "spine0", "leaf0"},
                   {3, "leaf1", "spine0"}, {3, "spine0", "leaf1"},
                   {6, "leaf0", "agg.leaf0"}, {6, "agg.leaf0", "leaf0"}});
    const auto up = idx.Walk("0>6", "host0", "host2");
    REQUIRE(up.size() == 2);
    CHECK(idx.Links()[up[1]].Name() == "leaf0->agg.leaf0");
    const auto down = idx.Walk("6>2>3>1", "host2", "host1");
    REQUIRE(down.size() == 4);
    CHECK(idx.Links()[down[0]].Name() == "agg.leaf0->leaf0");
    CHECK(idx.Links()[down[3]].Name() == "leaf1->host1");
    // A host links.csv does name must still be where the path ends; an unnamed one must be an
    // aggregation endpoint.
    CHECK_THROWS_WITH(idx.Walk("6>2", "host2", "host1"), Catch::Contains("ends at spine0"));
    CHECK_THROWS_WITH(idx.Walk("0>2", "host0", "host2"), Catch::Contains("ends at spine0"));
    CHECK_THROWS_WITH(idx.Walk("2>3", "host2", "host1"), Catch::Contains("does not start at"));
}

TEST_CASE("locate: flows to or from aggregation endpoints are not evidence about links",
          "[unit][locate]")
{
    // An in-network reduction's flows end when the reduction does (it waits for every
    // contributor), not when their path delivers them: read, counted apart, left out. Host 2
    // is leaf0's aggregation endpoint (links.csv names it agg.leaf0).
    const std::string links = "link_id,from,to\n"
                              "0,host0,leaf0\n0,leaf0,host0\n1,host1,leaf1\n1,leaf1,host1\n"
                              "2,leaf0,spine0\n2,spine0,leaf0\n3,leaf1,spine0\n3,spine0,leaf1\n"
                              "6,leaf0,agg.leaf0\n6,agg.leaf0,leaf0\n";
    const std::string flows = "flow_id,src,dst,bytes,start_us,fct_us,ideal_fct_us,path\n"
                              "0,0,1,1000,0,10,5,0>2>3>1\n"
                              "1,0,2,1000,0,90,5,0>6\n"
                              "2,2,1,1000,0,90,5,6>2>3>1\n";
    std::istringstream f(flows);
    std::istringstream l(links);
    const auto obs = ReadObservations(f, "flows.csv", l, "links.csv", nullptr);
    CHECK(obs.links.HasAggregationEndpoints());
    REQUIRE(obs.flows.size() == 1);
    CHECK(obs.flows[0].flowId == "0");
    CHECK(obs.skippedReductionFlows == 2);
    // Without aggregation endpoints an unknown host is still an error, not a skipped flow.
    std::istringstream f2("flow_id,src,dst,bytes,start_us,fct_us,ideal_fct_us,path\n"
                          "0,0,7,1000,0,10,5,0>2>3>1\n");
    std::istringstream l2("link_id,from,to\n0,host0,leaf0\n0,leaf0,host0\n1,host1,leaf1\n"
                          "1,leaf1,host1\n2,leaf0,spine0\n2,spine0,leaf0\n3,leaf1,spine0\n"
                          "3,spine0,leaf1\n");
    CHECK_THROWS_WITH(ReadObservations(f2, "flows.csv", l2, "links.csv", nullptr),
                      Catch::Contains("not at the flow's destination host7"));
}

TEST_CASE("locate: a flow that never started (empty start_us) is counted apart, not refused",
          "[unit][locate]")
{
    // A run stopped by stop_time_ms writes its not-yet-started transfers with an empty
    // start_us and fct_us (results-format.md). They never entered the fabric: no evidence
    // either way. The started-but-unfinished flow 1 is kept (unfinished counts as slow).
    const std::string links = "link_id,from,to\n0,host0,leaf0\n0,leaf0,host0\n1,host1,leaf0\n"
                              "1,leaf0,host1\n";
    std::istringstream f("flow_id,src,dst,bytes,start_us,fct_us,ideal_fct_us,path\n"
                         "0,0,1,1000,0,10,5,0>1\n"
                         "1,0,1,1000,3,,5,0>1\n"
                         "2,1,0,1000,,,5,\n");
    std::istringstream l(links);
    const auto obs = ReadObservations(f, "flows.csv", l, "links.csv", nullptr);
    REQUIRE(obs.flows.size() == 2);
    CHECK(obs.flows[0].finished);
    CHECK(!obs.flows[1].finished);
    CHECK(obs.notStartedFlows == 1);
    CHECK(obs.skippedFlows == 0);
    // A row with an fct_us but no start is broken, and named.
    std::istringstream f2("flow_id,src,dst,bytes,start_us,fct_us,ideal_fct_us,path\n"
                          "0,0,1,1000,,10,5,0>1\n");
    std::istringstream l2(links);
    CHECK_THROWS_WITH(ReadObservations(f2, "flows.csv", l2, "links.csv", nullptr),
                      Catch::Contains("flows.csv:2") && Catch::Contains("start_us") &&
                          Catch::Contains("must have started"));
}

TEST_CASE("locate: a manifest that is not valid JSON is refused naming it and a missing one "
          "is noted",
          "[locate]")
{
    // A damaged manifest once read as none: the MTU and link rates the fit assumes changed
    // silently, and with them the ranking.
    const std::string links = "link_id,from,to\n0,host0,leaf0\n0,leaf0,host0\n1,host1,leaf0\n"
                              "1,leaf0,host1\n";
    const std::string flows = "flow_id,src,dst,bytes,start_us,fct_us,ideal_fct_us,path\n"
                              "0,0,1,1000,0,10,5,0>1\n";
    {
        std::istringstream f(flows), l(links), m("{\"scenario\": ");
        CHECK_THROWS_WITH(
            ReadObservations(f, "flows.csv", l, "links.csv", &m, "run/manifest.json"),
            Catch::Contains("run/manifest.json") && Catch::Contains("not valid JSON"));
    }
    {
        std::istringstream f(flows), l(links), m("{\"scenario\": {\"nic\": {\"mtu_bytes\": 1024}}}");
        const auto obs = ReadObservations(f, "flows.csv", l, "links.csv", &m);
        CHECK(obs.haveManifest);
        CHECK(obs.mtuBytes == 1024);
    }
    {
        std::istringstream f(flows), l(links);
        const auto obs = ReadObservations(f, "flows.csv", l, "links.csv", nullptr);
        CHECK(!obs.haveManifest);
        CHECK(obs.mtuBytes == 0); // unknown: the signals take 4096
    }
}

TEST_CASE("locate: a UTF-8 byte-order mark before a CSV header is skipped and UTF-16 with or "
          "without one is refused naming it",
          "[locate]")
{
    // A spreadsheet saving "CSV UTF-8" writes EF BB BF first: the first column's name was read
    // with it, and flows.csv was refused as "flow_id: missing column".
    const std::string bom = "\xEF\xBB\xBF";
    const std::string links = "link_id,from,to\n0,host0,leaf0\n0,leaf0,host0\n1,host1,leaf0\n"
                              "1,leaf0,host1\n";
    const std::string flows = "flow_id,src,dst,bytes,start_us,fct_us,ideal_fct_us,path\n"
                              "0,0,1,1000,0,10,5,0>1\n";
    std::istringstream f0(flows), l0(links);
    const auto plain = ReadObservations(f0, "flows.csv", l0, "links.csv", nullptr);
    std::istringstream f1(bom + flows), l1(bom + links);
    const auto marked = ReadObservations(f1, "flows.csv", l1, "links.csv", nullptr);
    REQUIRE(marked.flows.size() == plain.flows.size());
    REQUIRE(marked.flows.size() == 1);
    CHECK(marked.flows[0].src == plain.flows[0].src);
    CHECK(marked.flows[0].dst == plain.flows[0].dst);
    CHECK(marked.links.Links().size() == plain.links.Links().size());
    // Only before the header: the same bytes later in the file are the field's.
    {
        std::istringstream f("src,flow_id,dst,bytes,start_us,fct_us,ideal_fct_us,path\n"
                             "0,0,1,1000,0,10,5,0>1\n" +
                             bom + "1,1,0,1000,0,10,5,1>0\n"),
            l(links);
        CHECK_THROWS_WITH(ReadObservations(f, "flows.csv", l, "links.csv", nullptr),
                          Catch::Contains("flows.csv:3") && Catch::Contains("src"));
    }
    for (const std::string& utf16 : {std::string("\xFF\xFE"), std::string("\xFE\xFF")})
    {
        std::istringstream f(utf16 + flows), l(links);
        CHECK_THROWS_WITH(ReadObservations(f, "flows.csv", l, "links.csv", nullptr),
                          Catch::Contains("flows.csv:1") && Catch::Contains("UTF-16 byte-order mark"));
    }
    // UTF-16LE saved without a mark: a NUL after every ASCII byte. Refused as not UTF-8 text,
    // not as "flow_id: missing column" (the column is there, in another encoding).
    {
        std::string le;
        for (char c : flows)
        {
            le += c;
            le += '\0';
        }
        std::istringstream f(le), l(links);
        CHECK_THROWS_WITH(ReadObservations(f, "flows.csv", l, "links.csv", nullptr),
                          Catch::Contains("flows.csv:1") && Catch::Contains("NUL bytes") &&
                              !Catch::Contains("missing column"));
    }
}

// ---------------------------------------------------------------------------------------------
// Signals

namespace
{

FlowObservation
Obs(uint32_t src, uint32_t dst, double start, double finish, double ideal,
    std::vector<std::vector<uint32_t>> paths)
{
    FlowObservation f;
    f.src = src;
    f.dst = dst;
    f.bytes = 1'000'000;
    f.startUs = start;
    f.finishUs = finish;
    f.idealUs = ideal;
    for (auto& p : paths)
    {
        f.paths.push_back(FlowPath{p, 1.0});
    }
    return f;
}

} // namespace

TEST_CASE("locate: classes crossed by the very same slow flows are reported tied with the named "
          "one",
          "[unit][locate]")
{
    // host0 -> host3 twice, 10x slower than ideal; host1 and host2 send healthy flows through
    // leaf0->spine0->leaf1, one of them to host3. host0->leaf0 carries the two slow flows and
    // nothing else; leaf1->host3 carries them and one healthy flow; the spine links them and
    // 21 healthy flows. The slow flows cannot say which of the three it is: named first, the
    // host link (no healthy flow), tied with the other two.
    Observations obs;
    obs.links = LinkIndex({{0, "host0", "leaf0"}, {1, "host1", "leaf0"}, {2, "host2", "leaf0"},
                           {3, "leaf0", "spine0"}, {4, "spine0", "leaf1"}, {5, "leaf1", "host3"},
                           {6, "leaf1", "host4"}, {7, "leaf1", "host5"}});
    double t = 0;
    for (int i = 0; i < 10; ++i, t += 100)
    {
        obs.flows.push_back(Obs(1, 4, t, t + 10, 10, {{1, 3, 4, 6}}));
        obs.flows.push_back(Obs(2, 5, t + 50, t + 60, 10, {{2, 3, 4, 7}}));
    }
    obs.flows.push_back(Obs(1, 3, t, t + 10, 10, {{1, 3, 4, 5}}));
    obs.flows.push_back(Obs(0, 3, t + 100, t + 200, 10, {{0, 3, 4, 5}}));
    obs.flows.push_back(Obs(0, 3, t + 300, t + 400, 10, {{0, 3, 4, 5}}));
    obs.horizonUs = t + 400;
    const LocateResult r = Locate(obs, TomographyOptions());
    REQUIRE(r.named >= 1);
    const auto name = [&](size_t k) { return obs.links.Links()[r.ranking[k].links.front()].Name(); };
    CHECK(name(0) == "host0->leaf0");
    REQUIRE(r.ties.size() == 2);
    std::vector<std::string> tied;
    for (const FlowTie& tie : r.ties)
    {
        CHECK(tie.named == 0);
        CHECK(tie.badFlows == 2);
        tied.push_back(name(tie.tied));
    }
    std::sort(tied.begin(), tied.end());
    CHECK(tied == std::vector<std::string>{"leaf0->spine0", "leaf1->host3"});
    CommandOptions o;
    o.resultsDir = "run";
    std::ostringstream text;
    PrintTable(obs, r, o, text);
    INFO(text.str());
    CHECK(text.str().find("rank 1: tied with leaf1->host3 (rank ") != std::string::npos);
    CHECK(text.str().find("the same 2 slow or lossy flows cross both") != std::string::npos);
    const auto doc = nlohmann::json::parse(ToJson(obs, r, o));
    REQUIRE(doc.at("flow_ties").size() == 2);
    CHECK(doc.at("flow_ties")[0].at("named_flows") == 2);

    // One of the slow flows goes to host4 instead: leaf1->host3 no longer carries both, so it
    // is not tied (the spine links, which still do, are).
    obs.flows.back().dst = 4;
    obs.flows.back().paths = {FlowPath{{0, 3, 4, 6}, 1.0}};
    const LocateResult r2 = Locate(obs, TomographyOptions());
    for (const FlowTie& tie : r2.ties)
    {
        CHECK(obs.links.Links()[r2.ranking[tie.tied].links.front()].Name() != "leaf1->host3");
    }
}

TEST_CASE("locate: the load-explained slowdown is the harmonic mean of the busiest link's flow count",
          "[unit][locate]")
{
    Observations obs;
    obs.links = LinkIndex({{0, "a", "b"}, {1, "b", "c"}, {2, "d", "b"}});
    // A and B share direction 0 over [0, 10]; C shares direction 1 with A over [0, 10], then is
    // alone until 20: its time-average of 1/N is (10/2 + 10/1) / 20, so 20 / 15.
    obs.flows.push_back(Obs(0, 1, 0, 10, 5, {{0, 1}}));
    obs.flows.push_back(Obs(0, 1, 0, 10, 5, {{0}}));
    obs.flows.push_back(Obs(2, 1, 0, 20, 10, {{2, 1}}));
    obs.horizonUs = 20;
    const FlowSignals s = ComputeSignals(obs, TomographyOptions());
    CHECK(s.baseline[0] == Approx(2.0));
    CHECK(s.baseline[1] == Approx(2.0));
    CHECK(s.baseline[2] == Approx(20.0 / 15.0));
    // Slowdown 2 is what sharing explains: no excess; C at 2 is 1.5x its 4/3.
    CHECK(s.excess[0] == Approx(0.0).margin(1e-12));
    CHECK(s.excess[2] == Approx(std::log(2.0 / (20.0 / 15.0))));
    CHECK(s.excessThreshold == Approx(std::log(1.5)));
    CHECK(s.slowCount == 0); // 1.5x is not above the 1.5 floor
}

TEST_CASE("locate: sharing stretches a flow's transfer, not its path's latency",
          "[unit][locate]")
{
    // Two 1 MB flows share direction 0 over their whole lives at a nominal 100 Gb/s: each
    // transfer alone takes 80 us, its ideal FCT is 100 us (20 us of latency). Sharing
    // explains 20 + 2 x 80 = 180 us, a slowdown of 1.8 (not 2, which the whole ideal FCT
    // stretched twice would say). A flow that took 250 us is well over it. One
    // at a quarter of the rate, shared, takes 20 + 4 x 160 = 660 us: its rate is estimated
    // from the transfer alone, 160 / 640 = 1/4.
    Observations obs;
    obs.links = LinkIndex({{0, "a", "b"}, {1, "b", "c"}});
    obs.nominalRateBps = 100e9;
    obs.flows.push_back(Obs(0, 1, 0, 180, 100, {{0}}));
    obs.flows.push_back(Obs(0, 1, 0, 180, 100, {{0}}));
    obs.horizonUs = 180;
    FlowSignals s = ComputeSignals(obs, TomographyOptions());
    CHECK(s.baseline[0] == Approx(1.8));
    CHECK(s.excess[0] == Approx(0.0).margin(1e-12));

    obs.flows[1].finishUs = 250;
    obs.horizonUs = 250;
    s = ComputeSignals(obs, TomographyOptions());
    // Flow 0 shared for its 180 us: 1.8. Flow 1 shared for 180 of its 250 us, then alone:
    // harmonic count 250 / (180 / 2 + 70) = 1.5625, so 0.2 + 0.8 x 1.5625 = 1.45.
    CHECK(s.baseline[1] == Approx(0.2 + 0.8 * 250.0 / 160.0));
    CHECK(s.excess[1] == Approx(std::log(2.5 / 1.45))); // 1.72x: above the 1.5 floor

    // Without a nominal rate the whole ideal counts as transfer (the bound before).
    obs.nominalRateBps = 0;
    s = ComputeSignals(obs, TomographyOptions());
    CHECK(s.baseline[0] == Approx(2.0));

    // Eight flows on direction 1, two of them alone-slow at a quarter of the rate: the
    // rate estimate of their link is the transfer's, latency apart.
    Observations q;
    q.links = LinkIndex({{0, "a", "b"}, {1, "b", "c"}, {2, "d", "b"}});
    q.nominalRateBps = 100e9;
    for (uint32_t i = 0; i < 2; ++i)
    {
        q.flows.push_back(Obs(0, 1, 1000.0 * i, 1000.0 * i + 340, 100, {{0, 1}}));
    }
    for (uint32_t i = 0; i < 6; ++i)
    {
        q.flows.push_back(Obs(2, 1, 5000.0 + 1000.0 * i, 5000.0 + 1000.0 * i + 100, 100, {{2, 1}}));
    }
    q.horizonUs = 11000;
    const LocateResult r = Locate(q, TomographyOptions());
    REQUIRE_FALSE(r.ranking.empty());
    const auto& top = r.ranking.front();
    CHECK(q.links.Links()[top.links.front()].Name() == "a->b");
    CHECK(top.slowFlows == 2);
    CHECK(top.rateFactor == Approx(0.25)); // 80 / (340 - 20)
}

TEST_CASE("locate: a sprayed flow's share of a link follows its packet counts", "[unit][locate]")
{
    Observations obs;
    obs.links = LinkIndex({{0, "a", "b"}, {1, "b", "c"}, {2, "b", "c"}});
    auto f = Obs(0, 1, 0, 10, 10, {});
    f.paths = {FlowPath{{0, 1}, 30.0}, FlowPath{{0, 2}, 10.0}};
    f.pathCounts = true;
    f.retxPackets = 4;
    f.spuriousRetx = 2;
    obs.flows.push_back(f);
    const Incidence inc = BuildIncidence(obs);
    // Three directions, each crossed by the one flow: one class (nothing tells them apart).
    REQUIRE(inc.classes.size() == 1);
    CHECK(inc.classes[0].size() == 3);
    CHECK(inc.share.coeff(0, 0) == Approx((1.0 + 0.75 + 0.25) / 3));
    const FlowSignals s = ComputeSignals(obs, TomographyOptions());
    CHECK(s.packets[0] == 40.0);
    CHECK(s.loss[0] == Approx(2.0 / 40.0)); // retransmissions that were needed
}

TEST_CASE("locate: a direction no flow's data crossed is listed as unobserved and a crossed one "
          "is not",
          "[unit][locate]")
{
    // host0 - tor0 - agg0 - tor1 - host1, and a spare cable tor0 - agg1 no path takes. One flow
    // host0 -> host1: its data crosses 0>1>2>3 forward; the reverse directions carry at most
    // its ACKs, which flows.csv does not record, and the spare cable nothing.
    Observations obs;
    obs.links = LinkIndex({{0, "host0", "tor0"}, {0, "tor0", "host0"},
                           {1, "tor0", "agg0"}, {1, "agg0", "tor0"},
                           {2, "agg0", "tor1"}, {2, "tor1", "agg0"},
                           {3, "tor1", "host1"}, {3, "host1", "tor1"},
                           {4, "tor0", "agg1"}, {4, "agg1", "tor0"}});
    obs.flows.push_back(Obs(0, 1, 0, 10, 10, {{0, 2, 4, 6}}));
    const Incidence inc = BuildIncidence(obs);
    const std::vector<uint32_t> reverse = {1, 3, 5, 7, 8, 9};
    CHECK(inc.unused == reverse);
    CHECK(inc.unusedLinks == reverse.size());
    for (uint32_t l : {0u, 2u, 4u, 6u})
    {
        CHECK(std::find(inc.unused.begin(), inc.unused.end(), l) == inc.unused.end());
    }

    const nlohmann::json j = UnobservedJson(obs, inc.unused, "flows.csv");
    CHECK(j.at("unobserved_links") ==
          nlohmann::json({"tor0->host0", "agg0->tor0", "tor1->agg0", "host1->tor1", "tor0->agg1",
                          "agg1->tor0"}));
    CHECK(j.at("unobserved_by_tier").at("tor->agg") ==
          nlohmann::json({{"unobserved", 2}, {"directions", 3}}));
    CHECK(j.at("unobserved_by_tier").at("agg->tor") ==
          nlohmann::json({{"unobserved", 2}, {"directions", 3}}));
    CHECK(j.at("unobserved_by_tier").at("host->tor") ==
          nlohmann::json({{"unobserved", 1}, {"directions", 2}}));
    CHECK(j.at("unobserved_from") == "flows.csv");

    const std::string brief = UnobservedText(obs, inc.unused, "flows.csv", false);
    CHECK(brief == "unobserved: 6 of 10 link directions carried no flow's data frames (flows.csv "
                   "paths; ACKs are not counted): a fault on them cannot be seen: agg->tor 2 of "
                   "3, host->tor 1 of 2, tor->agg 2 of 3, tor->host 1 of 2 (--list-unobserved "
                   "names them)\n");
    const std::string all = UnobservedText(obs, inc.unused, "flows.csv", true);
    CHECK(all.find("\nunobserved directions: tor0->host0, agg0->tor0, tor1->agg0, host1->tor1, "
                   "tor0->agg1, agg1->tor0\n") != std::string::npos);
    CHECK(all.find("tor0->agg0") == std::string::npos);
    // Nothing unobserved: said when the list was asked for, silent otherwise.
    CHECK(UnobservedText(obs, {}, "flows.csv", false).empty());
    CHECK(UnobservedText(obs, {}, "flows.csv", true) ==
          "unobserved: none (every link direction carried some flow's data frames)\n");
}

// ---------------------------------------------------------------------------------------------
// Solver

TEST_CASE("locate: coordinate-descent NNLS meets the KKT conditions and matches least squares inside "
          "the orthant",
          "[unit][locate]")
{
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Eigen::MatrixXd dense(40, 6);
    std::vector<Eigen::Triplet<double>> ts;
    for (int i = 0; i < 40; ++i)
    {
        for (int j = 0; j < 6; ++j)
        {
            dense(i, j) = u(rng) < 0.4 ? u(rng) : 0.0;
            if (dense(i, j) != 0)
            {
                ts.emplace_back(i, j, dense(i, j));
            }
        }
    }
    Eigen::SparseMatrix<double> a(40, 6);
    a.setFromTriplets(ts.begin(), ts.end());
    const Eigen::VectorXd truth = (Eigen::VectorXd(6) << 1.0, 0.5, 2.0, 0.25, 1.5, 3.0).finished();
    Eigen::VectorXd yv = dense * truth;
    for (int i = 0; i < 40; ++i)
    {
        yv(i) += 0.01 * (u(rng) - 0.5);
    }
    std::vector<double> y(yv.data(), yv.data() + 40), x;
    NnlsCoordinateDescent(a, y, {}, {}, x, 1e-12, 100000);
    const Eigen::VectorXd ls = dense.colPivHouseholderQr().solve(yv);
    REQUIRE(ls.minCoeff() > 0); // the unconstrained optimum is inside: NNLS must find it
    for (int j = 0; j < 6; ++j)
    {
        CHECK(x[j] == Approx(ls(j)).margin(1e-6));
    }

    // Push the optimum outside: KKT, gradient g = A'(y - Ax) is 0 where x > 0 and <= 0 at 0.
    for (int i = 0; i < 40; ++i)
    {
        y[i] -= 3.0 * dense(i, 5) + 1.2 * dense(i, 2);
    }
    NnlsCoordinateDescent(a, y, {}, {}, x, 1e-12, 100000);
    Eigen::VectorXd xv = Eigen::Map<Eigen::VectorXd>(x.data(), 6);
    const Eigen::VectorXd g =
        dense.transpose() * (Eigen::Map<Eigen::VectorXd>(y.data(), 40) - dense * xv);
    uint32_t atZero = 0;
    for (int j = 0; j < 6; ++j)
    {
        CHECK(x[j] >= 0);
        if (x[j] > 0)
        {
            CHECK(g(j) == Approx(0.0).margin(1e-7));
        }
        else
        {
            ++atZero;
            CHECK(g(j) <= 1e-7);
        }
    }
    CHECK(atZero >= 1);
}

// ---------------------------------------------------------------------------------------------
// Accuracy on synthetic ground truth (the default method, Bayes). A 128-host leaf-spine
// (16 leaves x 8 spines x 8 hosts, 100 Gb/s), 8 rounds of random permutations of 2 MB flows,
// ECMP-like random paths, 10 % lognormal noise, 2 % of flows slowed up to 3x for reasons
// unrelated to links, and half the flows through a faulty link's upstream switch slowed 1.3x
// (congestion spreading). Targets: top-1 >= 95 % for one 1/4-rate link over >= 20
// placements, no suspect when nothing is wrong, two faults within the top 3.

namespace
{

const Difficulty kModerate{"moderate", 8, 0.1, 0.02, 1.3};

} // namespace

TEST_CASE("locate: one link at 1/4 of its rate is ranked first in at least 95 % of 20 placements",
          "[unit][locate]")
{
    const auto g = synth::LeafSpine(16, 8, 8);
    const Tally t = Measure(g, {"1 at 1/4", 1, 0.25}, kModerate, 20, {Method::Bayes})[0];
    INFO("top-1 " << t.top1 << "/" << t.runs << ", runs naming a healthy link " << t.falseRuns);
    CHECK(t.top1 >= 19);
    CHECK(t.falseRuns <= 1);
}

TEST_CASE("locate: with no fault no link is named, in 20 runs", "[unit][locate]")
{
    const auto g = synth::LeafSpine(16, 8, 8);
    const Tally t = Measure(g, {"none", 0}, kModerate, 20, {Method::Bayes})[0];
    CHECK(t.named == 0);
}

TEST_CASE("locate: two links at 1/4 are both within the top 3 in at least 95 % of 20 placements",
          "[unit][locate]")
{
    const auto g = synth::LeafSpine(16, 8, 8);
    const Tally t = Measure(g, {"2 at 1/4", 2, 0.25}, kModerate, 20, {Method::Bayes})[0];
    INFO("both in top 3: " << t.allInTop3 << "/" << t.runs);
    CHECK(t.allInTop3 >= 19);
}

TEST_CASE("locate: a link losing 1 % of its packets is ranked first and called lossy", "[unit][locate]")
{
    const auto g = synth::LeafSpine(16, 8, 8);
    for (uint64_t seed = 1; seed <= 5; ++seed)
    {
        synth::Config c;
        c.seed = seed;
        c.faults = synth::RandomFaults(g, 1, 1.0, 0.01, seed);
        const auto r = synth::Generate(g, c);
        const auto res = Locate(r.obs, TomographyOptions());
        REQUIRE(res.named >= 1);
        CHECK(synth::Hits(res.ranking[0], c.faults));
        CHECK(res.ranking[0].Kind().find("lossy") != std::string::npos);
        // Retransmissions / packets over its flows estimate the rate (binomial, >= 8 flows).
        CHECK(res.ranking[0].lossRate == Approx(0.01).epsilon(0.5));
    }
}

TEST_CASE("locate: sprayed traffic: the faulty uplink's class is first, and names the uplinks no flow "
          "set tells apart",
          "[unit][locate]")
{
    // Oblivious spraying sends every flow of a leaf over all its uplinks: their columns have the
    // same support, so the fault is located to that group, never to one member.
    const auto g = synth::LeafSpine(16, 8, 8);
    for (uint64_t seed = 1; seed <= 3; ++seed)
    {
        synth::Config c;
        c.seed = seed;
        c.spray = true;
        c.faults = synth::RandomFaults(g, 1, 0.25, 0.0, seed, true);
        const auto r = synth::Generate(g, c);
        const auto res = Locate(r.obs, TomographyOptions());
        REQUIRE(res.named >= 1);
        CHECK(synth::Hits(res.ranking[0], c.faults));
        CHECK(res.ranking[0].links.size() == 8); // the 8 uplinks of the leaf (or downlinks)
        CHECK(res.ranking[0].rateFactor == Approx(0.25).epsilon(0.3));
    }
}

// ---------------------------------------------------------------------------------------------
// Measurements for docs/locate.md (hidden: run by hand, see the doc)

TEST_CASE("locate accuracy table on synthetic data", "[.locate-accuracy]")
{
    const char* topo = getenv("LOCATE_TOPOLOGY");
    const auto g = topo && std::string(topo) == "fat-tree" ? synth::FatTree(8) : synth::LeafSpine(16, 8, 8);
    const std::vector<Case> cases = {
        {"no fault", 0},
        {"1 at 1/2", 1, 0.5},
        {"1 at 1/4", 1, 0.25},
        {"1 at 1/10", 1, 0.1},
        {"2 at 1/4", 2, 0.25},
        {"3 at 1/4", 3, 0.25},
        {"1 losing 1 %", 1, 1.0, 0.01},
        {"4 QPs, 1 at 1/4", 1, 0.25, 0.0, false, 4},
        {"spray, no fault", 0, 1.0, 0.0, true},
        {"spray, 1 at 1/4", 1, 0.25, 0.0, true},
    };
    const std::vector<Method> methods = {Method::Bayes, Method::Nnls, Method::Lasso};
    const uint32_t placements = getenv("LOCATE_PLACEMENTS") ? atoi(getenv("LOCATE_PLACEMENTS")) : 50;
    const std::vector<Difficulty> levels = {
        {"clean", 8, 0.05, 0.0, 1.0},
        kModerate,
        {"hard", 4, 0.2, 0.05, 1.5},
        {"harder", 2, 0.3, 0.10, 2.0},
    };
    const char* only = getenv("LOCATE_LEVEL");
    for (const auto& d : levels)
    {
        if (only && std::string(only) != d.name)
        {
            continue;
        }
        std::cout << fmt::format("\n{}: {} rounds, noise sigma {}, {:.0f} % victims, spread x{}\n", d.name,
                                 d.rounds, d.noise, 100 * d.victims, d.spread);
        std::cout << "| case | method | top-1 | links in top-1 class | all faults in top-3 | runs naming a healthy link | links named | locate s/run |\n|---|---|---|---|---|---|---|---|\n";
        for (const auto& k : cases)
        {
            const auto t = Measure(g, k, d, placements, methods);
            for (size_t i = 0; i < methods.size(); ++i)
            {
                std::cout << fmt::format("| {} | {} | {} | {:.2f} | {}/{} | {}/{} | {} | {:.3f} |\n", k.name,
                                         MethodName(methods[i]),
                                         k.faults ? fmt::format("{}/{}", t[i].top1, t[i].runs) : "-",
                                         double(t[i].top1Links) / t[i].runs,
                                         t[i].allInTop3, t[i].runs, t[i].falseRuns, t[i].runs,
                                         t[i].named, t[i].seconds / t[i].runs);
            }
            std::cout.flush();
        }
    }
}


TEST_CASE("locate at scale on synthetic data", "[.locate-scale]")
{
    // A k = 16 fat tree: 1,024 hosts, 3 tiers, 3,072 links (6,144 directions), 4 rounds.
    const auto g = synth::FatTree(16);
    const uint32_t placements = getenv("LOCATE_PLACEMENTS") ? atoi(getenv("LOCATE_PLACEMENTS")) : 10;
    for (const Case& k : std::vector<Case>{{"no fault", 0}, {"1 at 1/4", 1, 0.25}, {"2 at 1/4", 2, 0.25}})
    {
        const auto t0 = std::chrono::steady_clock::now();
        Difficulty d = kModerate;
        d.rounds = 4; // the fluid model is quadratic in concurrent flows
        const auto t = Measure(g, k, d, placements, {Method::Bayes})[0];
        const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::cout << fmt::format("| fat tree k=16, {} | {}/{} | {}/{} | {}/{} | {} | {:.2f} | {:.1f} |\n", k.name,
                                 t.top1, t.runs, t.allInTop3, t.runs, t.falseRuns, t.runs, t.named,
                                 t.seconds / t.runs, total / t.runs);
        std::cout.flush();
    }
}

TEST_CASE("locate: resends whose original was still in flight at the end are not losses",
          "[unit][locate]")
{
    // Two flows of 100 packets (paths with counts), each 10 resends. Flow 0's originals
    // arrived after their resends (spurious 10); flow 1's were overtaken on a slow path and
    // still on their way when the run ended (pkts_in_flight 10): neither lost a packet.
    // A third flow resent 10 that were lost (nothing spurious, nothing in flight): 10 %.
    const std::string flows =
        "flow_id,src,dst,bytes,start_us,fct_us,ideal_fct_us,retx_packets,spurious_retx,"
        "pkts_in_flight,paths\n"
        "f0,0,1,409600,0,10,5,10,10,0,0>1:100\n"
        "f1,0,1,409600,0,10,5,10,0,10,0>1:100\n"
        "f2,0,1,409600,0,10,5,10,0,0,0>1:100\n";
    const std::string links = "link_id,from,to\n0,host0,s\n1,s,host1\n";
    std::istringstream f(flows), l(links);
    const Observations obs = ReadObservations(f, "flows.csv", l, "links.csv", nullptr);
    REQUIRE(obs.flows.size() == 3);
    CHECK(obs.flows[1].inFlightPackets == 10);
    const FlowSignals s = ComputeSignals(obs, TomographyOptions());
    CHECK(s.loss[0] == 0.0);
    CHECK(s.loss[1] == 0.0);
    CHECK(s.loss[2] == Approx(0.1));
}

TEST_CASE("locate --what-if text: a derived run that did not finish says why, traffic moved in "
          "plain words",
          "[unit][locate]")
{
    nlohmann::json run = {{"name", "as-found-plus-down"}, {"finished", false},
                          {"status", "failed"},
                          {"failure", "PFC watchdog stopped the run at 12.000 ms"},
                          {"cct_us", nullptr}, {"fct_p99_us", 1.0}, {"fct_max_us", 2.0},
                          {"slowdown_mean", 3.0}};
    nlohmann::json ok = run;
    ok["name"] = "no-fault";
    ok["finished"] = true;
    ok["status"] = "ok";
    ok["failure"] = "";
    nlohmann::json w = {
        {"link", {{"from", "agg0"}, {"to", "core0"}, {"link_id", 3}}},
        {"rate_factor", 1.0},
        {"loss_rate", 0.0},
        {"evidence", "flows"},
        {"bytes",
         {{"source", "flows.csv"},
          {"siblings", nlohmann::json::array({1})},
          {"even_share_bytes", 1.1e6},
          {"group_bytes", 2.2e6},
          {"carried_bytes", 1.624e6},
          {"avoided_bytes", -0.524e6},
          {"siblings_extra_bytes", -0.524e6}}},
        {"queueing", {{"note", "no paths.csv"}}},
        {"runs", nlohmann::json::array({ok, run})},
        {"out_dir", "x.what-if"}};
    std::ostringstream out;
    PrintWhatIf(w, out);
    const std::string t = out.str();
    CAPTURE(t);
    CHECK(t.find("-0.524") == std::string::npos); // no negative "went elsewhere"
    CHECK(t.find("it carried 1.624 MB: 0.524 MB (48 % of its share) more than its share, none "
                 "of it moved elsewhere; its siblings carried 0.524 MB below their even shares") !=
          std::string::npos);
    CHECK(t.find("  as-found-plus-down did not finish (status failed): PFC watchdog stopped the "
                 "run at 12.000 ms\n") != std::string::npos);
    CHECK(t.find("no-fault did not finish") == std::string::npos);

    w["bytes"]["avoided_bytes"] = 0.395e6;
    w["bytes"]["even_share_bytes"] = 1.064e6;
    w["bytes"]["siblings_extra_bytes"] = 0.395e6;
    std::ostringstream out2;
    PrintWhatIf(w, out2);
    CHECK(out2.str().find("0.395 MB (37 % of its share) less, which its siblings carried "
                          "instead; its siblings carried 0.395 MB above their even shares") !=
          std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Loss per class

namespace
{

/** A 4-leaf, 4-spine fabric with 4 hosts a leaf: host i sends two flows of 2,048 packets, to
 *  hosts i + 4 and i + 8 (mod 16), each sprayed evenly over the four spines (512 packets a
 *  path), all at once and at their ideal FCT (none slow); flow (i, dst) lost lost(i, dst)
 *  frames. */
struct SprayedFabric
{
    Observations obs;
    std::map<std::string, uint32_t> dir; //!< "from->to" -> direction index
};

SprayedFabric
MakeSprayedFabric(const std::function<uint64_t(uint32_t, uint32_t)>& lost)
{
    SprayedFabric s;
    std::vector<DirectedLink> rows;
    uint32_t id = 0;
    auto add = [&](const std::string& a, const std::string& b) {
        rows.push_back({id, a, b});
        rows.push_back({id, b, a});
        ++id;
    };
    auto leaf = [](uint32_t h) { return "leaf" + std::to_string(h / 4); };
    for (uint32_t h = 0; h < 16; ++h)
    {
        add("host" + std::to_string(h), leaf(h));
    }
    for (uint32_t l = 0; l < 4; ++l)
    {
        for (uint32_t sp = 0; sp < 4; ++sp)
        {
            add("leaf" + std::to_string(l), "spine" + std::to_string(sp));
        }
    }
    for (uint32_t k = 0; k < rows.size(); ++k)
    {
        s.dir[rows[k].Name()] = k;
    }
    s.obs.links = LinkIndex(rows);
    for (uint32_t i = 0; i < 16; ++i)
    {
        for (uint32_t d : {4u, 8u})
        {
            const uint32_t j = (i + d) % 16;
            FlowObservation f = Obs(i, j, 0, 100, 100, {});
            const std::string hi = "host" + std::to_string(i), hj = "host" + std::to_string(j);
            for (uint32_t sp = 0; sp < 4; ++sp)
            {
                const std::string spine = "spine" + std::to_string(sp);
                f.paths.push_back(FlowPath{{s.dir.at(hi + "->" + leaf(i)),
                                            s.dir.at(leaf(i) + "->" + spine),
                                            s.dir.at(spine + "->" + leaf(j)),
                                            s.dir.at(leaf(j) + "->" + hj)},
                                           512.0});
            }
            f.pathCounts = true;
            f.retxPackets = lost(i, j);
            s.obs.flows.push_back(f);
        }
    }
    s.obs.horizonUs = 100;
    return s;
}

/** The class holding direction `name`. */
uint32_t
ClassOf(const SprayedFabric& s, const Incidence& inc, const std::string& name)
{
    const uint32_t d = s.dir.at(name);
    for (uint32_t c = 0; c < inc.classes.size(); ++c)
    {
        if (std::find(inc.classes[c].begin(), inc.classes[c].end(), d) != inc.classes[c].end())
        {
            return c;
        }
    }
    throw std::runtime_error("no class holds " + name);
}

} // namespace

TEST_CASE("locate: many flows each losing one frame below the per-flow floor name their class",
          "[unit][locate]")
{
    // leaf0's eight flows each lose one frame of 2,048 (0.05 %, below the 0.1 % per-flow
    // floor), all on leaf0's uplinks (one class of four: spraying crosses them all alike).
    const SprayedFabric s =
        MakeSprayedFabric([](uint32_t src, uint32_t) { return src / 4 == 0 ? 1 : 0; });
    const LocateResult r = Locate(s.obs, TomographyOptions());
    CHECK(r.signals.lossyCount == 0);
    REQUIRE(r.named == 1);
    const uint32_t up = ClassOf(s, r.incidence, "leaf0->spine2");
    CHECK(r.ranking[0].cls == up);
    CHECK(r.ranking[0].links.size() == 4);
    CHECK(r.ranking[0].Kind() == "lossy");
    REQUIRE(r.classLoss.size() == r.incidence.classes.size());
    CHECK(r.classLoss[up].named);
    CHECK(r.classLoss[up].lost == 8.0);
    CHECK(r.classLoss[up].lossyFlows == 8);
    CHECK(r.classLoss[up].pValue <= 0.01 / static_cast<double>(r.incidence.classes.size()));

    // Per flow (as before 2026-12-06) no flow is lossy, so nothing is named.
    TomographyOptions perFlow;
    perFlow.classLoss = false;
    const LocateResult old = Locate(s.obs, perFlow);
    CHECK(old.named == 0);

    // One frame lost by each of the sixteen flows of the even-numbered hosts (spread over every
    // leaf), or by every flow: no class stands out, nothing is named.
    const SprayedFabric even =
        MakeSprayedFabric([](uint32_t src, uint32_t dst) { return (src + dst) % 4 == 0 ? 1 : 0; });
    CHECK(Locate(even.obs, TomographyOptions()).named == 0);
    const SprayedFabric all = MakeSprayedFabric([](uint32_t, uint32_t) { return 1; });
    CHECK(Locate(all.obs, TomographyOptions()).named == 0);
}

TEST_CASE("locate: a healthy class whose flows lost frames on a lossy one is explained away",
          "[unit][locate]")
{
    // As above, but host0's two flows lost three frames each on leaf0's uplinks: on its own,
    // host0->leaf0 (crossed by those two flows only) lost improbably many frames (6 against
    // 0.4 expected at the other flows' rate); the uplinks explain them, and it is not named.
    const SprayedFabric s = MakeSprayedFabric(
        [](uint32_t src, uint32_t) -> uint64_t { return src == 0 ? 3 : src / 4 == 0 ? 1 : 0; });
    const LocateResult r = Locate(s.obs, TomographyOptions());
    const uint32_t up = ClassOf(s, r.incidence, "leaf0->spine0");
    const uint32_t host = ClassOf(s, r.incidence, "host0->leaf0");
    REQUIRE(r.classLoss.size() == r.incidence.classes.size());
    const double cut = 0.01 / static_cast<double>(r.incidence.classes.size());
    CHECK(r.classLoss[host].lost == 0.0); // explained: its flows cross the uplinks
    CHECK(r.classLoss[host].pValueAlone <= cut); // it would be named without the uplinks
    CHECK_FALSE(r.classLoss[host].named);
    REQUIRE(r.named == 1);
    CHECK(r.ranking[0].cls == up);
    CHECK(r.classLoss[up].lost == 12.0);
    // The per-flow threshold sees host0's flows (0.15 %) as lossy and nothing else.
    CHECK(r.signals.lossyCount == 2);
}

} // namespace TUSK_TEST_FILE
