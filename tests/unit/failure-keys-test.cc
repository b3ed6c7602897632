// The failure model's keys: every [[failures]] kind and [[failure_rates]], their
// errors (file, line and key), the draw of random failures (reproducible, echoed so that a
// manifest reruns the same failures), and the gray failure's hash buckets.

#include "input-error-helpers.h"

#include "fabric/model/gray-failure-model.h"
#include "run/run-stages.h"
#include "scenario/scenario-toml.h"

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <catch2/catch.hpp>

#include <set>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using tusk::LoadScenarioString;
using tusk_test::ExpectInputError;

namespace
{

const char* const kTopology = R"(
stop_time_ms = 10
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
)";

tusk::ScenarioSpec
Load(const std::string& failures)
{
    return LoadScenarioString(std::string(kTopology) + failures, "f.toml");
}

} // namespace

TEST_CASE("failure keys: every kind reads its keys", "[unit][scenario][failures]")
{
    const auto s = Load(R"(
[[failures]]
at_us = 0
kind = "degrade"
link = "leaf0-spine1"
rate_gbps = 25
until_us = 500
[[failures]]
at_us = 0
kind = "loss"
link = "leaf1-spine0"
loss_rate = 0.01
[[failures]]
at_us = 10
kind = "gray"
link = "leaf1-spine1"
hash_fraction = 0.25
[[failures]]
at_us = 20
kind = "flap"
link = "leaf0-spine0"
period_us = 100
down_us = 30
count = 3
[[failures]]
at_us = 30
kind = "switch_down"
switch = "spine1"
until_us = 80
[[failures]]
at_us = 40
kind = "nic_down"
host = 3
)");
    REQUIRE(s.failures.size() == 6);
    CHECK(s.failures[0].rateBps == 25'000'000'000ULL);
    CHECK_FALSE(s.failures[0].rateDivisor);
    CHECK(s.failures[0].untilPs == 500'000'000ULL);
    CHECK(s.failures[1].lossRate == 0.01);
    CHECK(s.failures[1].line == 15);
    CHECK(s.failures[2].hashFraction == 0.25);
    CHECK_FALSE(s.failures[2].lossRate); // 1 when the run applies it
    CHECK(s.failures[3].periodPs == 100'000'000ULL);
    CHECK(s.failures[3].downPs == 30'000'000ULL);
    CHECK(s.failures[3].count == 3u);
    CHECK(s.failures[4].switchName == "spine1");
    CHECK(s.failures[5].host == 3u);

    // The echo reads back to the same spec (the manifest reproduces the run).
    const nlohmann::json echo = tusk::ScenarioToJson(s);
    CHECK(tusk::ScenarioToJson(tusk::LoadScenarioJson(echo, "manifest.json")) == echo);
    CHECK(echo["failures"][1]["loss_rate"] == 0.01);
    CHECK_FALSE(echo["failures"][1].contains("rate_divisor"));
}

TEST_CASE("failure windows: each change of the fabric, in order, with its links",
          "[unit][failures][fast]")
{
    // What fast mode's span checks and the steady-state probe take nothing from.
    const auto s = Load(R"(
[[failures]]
at_us = 0
kind = "degrade"
link = "leaf0-spine1"
rate_gbps = 25
until_us = 500
[[failures]]
at_us = 20
kind = "flap"
link = "leaf0-spine0"
period_us = 100
down_us = 30
count = 3
[[failures]]
at_us = 40
kind = "nic_down"
host = 3
)");
    const auto graph = tusk::BuildGraph(s);
    auto linkName = [&](uint32_t gl) {
        return graph.vertices[graph.links[gl].a].name + "-" + graph.vertices[graph.links[gl].b].name;
    };
    const auto w = tusk::FailureWindows(s, &graph);
    // The timed degrade: its repair, then its start, as two instants.
    REQUIRE(w.size() == 4);
    CHECK(w[0].fromPs == 500'000'000ULL);
    CHECK(w[0].toPs == 500'000'000ULL);
    CHECK(w[1].fromPs == 0);
    CHECK(w[1].toPs == 0);
    for (int i : {0, 1})
    {
        REQUIRE(w[i].links.size() == 1);
        CHECK(linkName(w[i].links[0]) == "leaf0-spine1");
    }
    // The flap: from its start to its last transition, 20 + 3 x 100 us.
    CHECK(w[2].fromPs == 20'000'000ULL);
    CHECK(w[2].toPs == 320'000'000ULL);
    REQUIRE(w[2].links.size() == 1);
    CHECK(linkName(w[2].links[0]) == "leaf0-spine0");
    // The NIC: its host's one link.
    CHECK(w[3].fromPs == 40'000'000ULL);
    REQUIRE(w[3].links.size() == 1);
    CHECK((graph.links[w[3].links[0]].a == 3 || graph.links[w[3].links[0]].b == 3));
    // Without a graph: the same windows, no links.
    const auto bare = tusk::FailureWindows(s);
    REQUIRE(bare.size() == w.size());
    for (size_t i = 0; i < w.size(); ++i)
    {
        CHECK(bare[i].fromPs == w[i].fromPs);
        CHECK(bare[i].toPs == w[i].toPs);
        CHECK(bare[i].links.empty());
    }
}

TEST_CASE("failure keys: bad values name file, line and key", "[unit][scenario][failures]")
{
    struct Case
    {
        std::string text;
        std::string key;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {"kind = \"degrade\"\nlink = \"leaf0-spine0\"\nrate_divisor = 2\nrate_gbps = 10",
         "failures[0].rate_gbps", "not both"},
        {"kind = \"degrade\"\nlink = \"leaf0-spine0\"", "failures[0].rate_divisor",
         "rate_divisor or rate_gbps"},
        {"kind = \"degrade\"\nlink = \"leaf0-spine0\"\nrate_gbps = 0", "failures[0].rate_gbps",
         "expected a number > 0"},
        {"kind = \"loss\"\nlink = \"leaf0-spine0\"", "failures[0].loss_rate", "required"},
        {"kind = \"loss\"\nlink = \"leaf0-spine0\"\nloss_rate = 1.5", "failures[0].loss_rate",
         "expected a number in [0, 1]"},
        {"kind = \"loss\"\nlink = \"leaf0-spine0\"\nloss_rate = 0.1\nhash_fraction = 0.5",
         "failures[0].hash_fraction", "valid only when failures[0].kind is \"gray\""},
        {"kind = \"gray\"\nlink = \"leaf0-spine0\"", "failures[0].hash_fraction", "required"},
        {"kind = \"flap\"\nlink = \"leaf0-spine0\"\nperiod_us = 10\ndown_us = 4",
         "failures[0].until_us", "until_us or count"},
        // until_us and count both: one rule (section-failures.cc), one message; the run's own
        // check no longer has a second, different one.
        {"kind = \"flap\"\nlink = \"leaf0-spine0\"\nperiod_us = 10\ndown_us = 4\ncount = 2\n"
         "until_us = 50",
         "failures[0].count", "takes until_us or count, not both"},
        {"kind = \"flap\"\nlink = \"leaf0-spine0\"\nperiod_us = 10\ndown_us = 10\ncount = 2",
         "failures[0].down_us", "less than period_us"},
        {"kind = \"flap\"\nlink = \"leaf0-spine0\"\ndown_us = 4\ncount = 2",
         "failures[0].period_us", "required"},
        {"kind = \"switch_down\"\nlink = \"leaf0-spine0\"", "failures[0].link",
         "valid only when"},
        {"kind = \"switch_down\"", "failures[0].switch", "required"},
        {"kind = \"nic_down\"\nhost = -1", "failures[0].host", "expected an integer >= 0"},
        {"kind = \"link_up\"\nlink = \"leaf0-spine0\"\nuntil_us = 5", "failures[0].until_us",
         "valid only when"},
        {"kind = \"link_down\"\nlink = \"leaf0-spine0\"\nuntil_us = 1", "failures[0].until_us",
         "after at_us"},
    };
    for (const auto& c : cases)
    {
        INFO(c.text);
        const auto e = ExpectInputError([&] { Load("\n[[failures]]\nat_us = 1\n" + c.text + "\n"); });
        CHECK(e.File() == "f.toml");
        CHECK(e.Key() == c.key);
        CHECK(e.Line() >= 9);
        CHECK(e.Message().find(c.expected) != std::string::npos);
    }

    const std::vector<Case> rates = {
        {"component = \"router\"\nmtbf_us = 5", "failure_rates[0].component", "\"switch\""},
        {"component = \"switch\"", "failure_rates[0].mtbf_us", "required"},
        {"component = \"switch\"\nmtbf_us = 5\nkind = \"loss\"", "failure_rates[0].kind",
         "\"switch_down\""},
        {"component = \"link\"\nmtbf_us = 5\nkind = \"loss\"", "failure_rates[0].loss_rate",
         "required"},
        {"component = \"nic\"\nmtbf_us = 5\nlinks = \"host\"", "failure_rates[0].links",
         "valid only when failure_rates[0].kind is"},
    };
    for (const auto& c : rates)
    {
        INFO(c.text);
        const auto e = ExpectInputError([&] { Load("\n[[failure_rates]]\n" + c.text + "\n"); });
        CHECK(e.File() == "f.toml");
        CHECK(e.Key() == c.key);
        CHECK(e.Line() >= 9);
        CHECK(e.Message().find(c.expected) != std::string::npos);
    }
}

TEST_CASE("failure keys: names the topology does not have are input errors",
          "[unit][scenario][failures]")
{
    struct Case
    {
        std::string text;
        std::string key;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {"kind = \"link_down\"\nlink = \"leaf0-spine7\"", "failures[0].link", "no link"},
        {"kind = \"switch_down\"\nswitch = \"spine3\"", "failures[0].switch", "did you mean"},
        {"kind = \"nic_down\"\nhost = 4", "failures[0].host", "below 4"},
    };
    for (const auto& c : cases)
    {
        INFO(c.text);
        const auto spec = Load("\n[[failures]]\nat_us = 1\n" + c.text + "\n");
        const auto e = ExpectInputError([&] { tusk::CheckFailures(spec, tusk::BuildGraph(spec)); });
        CHECK(e.File() == "f.toml");
        CHECK(e.Key() == c.key);
        CHECK(e.Line() == 9);
        CHECK(e.Message().find(c.expected) != std::string::npos);
    }
}

TEST_CASE("failure keys: an unknown link's error gives a link of the topology as its example",
          "[unit][scenario][failures]")
{
    // On a fat tree a leaf-spine name would be no help: the example is one of its own links,
    // between two switches.
    const auto spec = LoadScenarioString("stop_time_ms = 10\n[topology]\nkind = \"fat-tree\"\n"
                                         "k = 4\n[[failures]]\nat_us = 1\nkind = \"link_down\"\n"
                                         "link = \"leaf0-spine1\"\n",
                                         "f.toml");
    const auto graph = tusk::BuildGraph(spec);
    const auto e = ExpectInputError([&] { tusk::CheckFailures(spec, graph); });
    CHECK(e.Key() == "failures[0].link");
    const std::string m = e.Message();
    const size_t at = m.find("(e.g. \"");
    REQUIRE(at != std::string::npos);
    const std::string example = m.substr(at + 7, m.find('"', at + 7) - at - 7);
    CHECK(example.find("leaf") == std::string::npos);
    bool found = false;
    for (const auto& l : graph.links)
    {
        found = found || (graph.vertices[l.a].name + "-" + graph.vertices[l.b].name == example &&
                          l.a >= graph.numHosts && l.b >= graph.numHosts);
    }
    CHECK(found);
}

TEST_CASE("failure rates: drawn reproducibly, at the rate asked, listed in the echo",
          "[unit][scenario][failures]")
{
    // 8 links by name (4 host links and 4 leaf-spine links), 4 switches.
    const std::string rates = R"(
[[failure_rates]]
component = "link"
mtbf_us = 2000
duration_us = 100
[[failure_rates]]
component = "switch"
mtbf_us = 50000
)";
    const auto spec = Load(rates);
    const auto graph = tusk::BuildGraph(spec);
    const auto drawn = tusk::DrawFailures(spec, graph);
    REQUIRE_FALSE(drawn.empty());
    // Same seed, same failures; another seed, others.
    const auto again = tusk::DrawFailures(spec, graph);
    REQUIRE(again.size() == drawn.size());
    for (size_t i = 0; i < drawn.size(); ++i)
    {
        CHECK(again[i].atPs == drawn[i].atPs);
        CHECK(again[i].link == drawn[i].link);
    }
    auto other = spec;
    other.seed = 2;
    const auto drawn2 = tusk::DrawFailures(other, graph);
    CHECK((drawn2.size() != drawn.size() || drawn2[0].atPs != drawn[0].atPs));

    // Each link is up 10 ms minus its repairs; its failures are a Poisson process of mean
    // gap 2 ms while up: over 8 links about 8 x 10 / 2.1 failures. The count must lie in the
    // 99.9 % interval of a Poisson law of that mean (Boost.Math quantiles).
    size_t links = 0;
    size_t switches = 0;
    std::set<std::string> linkNames;
    for (const auto& f : drawn)
    {
        CHECK(f.drawnFrom.has_value());
        CHECK(f.atPs < spec.stopTimePs);
        if (f.kind == "link_down")
        {
            ++links;
            linkNames.insert(f.link);
            CHECK(f.untilPs == f.atPs + 100'000'000ULL);
        }
        else
        {
            CHECK(f.kind == "switch_down");
            CHECK_FALSE(f.untilPs); // never repaired
            ++switches;
        }
    }
    CHECK(linkNames.size() > 1);
    const double mean = 8.0 * 10.0 / 2.1;
    boost::math::poisson_distribution<> law(mean);
    CHECK(links >= boost::math::quantile(law, 0.0005));
    CHECK(links <= boost::math::quantile(boost::math::complement(law, 0.0005)));
    CHECK(switches <= 4); // at most one failure each: never repaired
    for (size_t i = 1; i < drawn.size(); ++i)
    {
        CHECK(drawn[i - 1].atPs <= drawn[i].atPs);
    }

    // The resolved spec lists them; resolving its echo gives the same spec (tusk rerun).
    const auto resolved = tusk::ResolveScenario(spec);
    CHECK(resolved.failures.size() == drawn.size());
    const nlohmann::json echo = tusk::ScenarioToJson(resolved);
    CHECK(echo["failures"].size() == drawn.size());
    CHECK(echo["failures"][0].contains("drawn_from"));
    const auto reread = tusk::LoadScenarioJson(echo, "manifest.json");
    CHECK(tusk::ScenarioToJson(tusk::ResolveScenario(reread)) == echo);
}

TEST_CASE("gray failure hash seeds come from the run's seed sequence", "[unit][failures]")
{
    // All 64 bits of the run seed count (seeds 2^32 apart once gave the same buckets), and
    // each entry has its own.
    const uint64_t seed = 12345;
    CHECK(tusk::GrayHashSeed(seed, 0) == tusk::GrayHashSeed(seed, 0));
    CHECK(tusk::GrayHashSeed(seed, 0) != tusk::GrayHashSeed(seed + (1ULL << 32), 0));
    CHECK(tusk::GrayHashSeed(seed, 0) != tusk::GrayHashSeed(seed, 1));
    CHECK(tusk::GrayHashSeed(seed, 0) != tusk::GrayHashSeed(seed + 1, 0));
    // A spec that passes the loader passes CheckFailures: the keys are checked once.
    const auto spec = Load(R"(
[[failures]]
at_us = 1
kind = "flap"
link = "leaf0-spine0"
period_us = 10
down_us = 4
count = 2
)");
    CHECK_NOTHROW(tusk::CheckFailures(spec, tusk::BuildGraph(spec)));
}

TEST_CASE("gray failure: a fixed fraction of the flows, the same flows every time",
          "[unit][failures]")
{
    // Over many 5-tuples the fraction in bad buckets is hash_fraction (a binomial count).
    auto model = ns3::CreateObject<ns3::GrayFailureModel>();
    model->SetAttribute("HashFraction", ns3::DoubleValue(0.25));
    model->SetAttribute("HashSeed", ns3::UintegerValue(7));
    // A second model with the same seed: the same flows are hit every time, not by chance.
    auto again = ns3::CreateObject<ns3::GrayFailureModel>();
    again->SetAttribute("HashFraction", ns3::DoubleValue(0.25));
    again->SetAttribute("HashSeed", ns3::UintegerValue(7));
    const uint32_t n = 20000;
    uint32_t affected = 0;
    ns3::FrameMeta frame;
    frame.dstPort = 4791;
    for (uint32_t i = 0; i < n; ++i)
    {
        frame.srcHost = i % 64;
        frame.dstHost = (i / 64) % 64;
        frame.srcPort = static_cast<uint16_t>(49152 + i / 4096);
        affected += model->IsAffected(frame);
        CHECK(again->IsAffected(frame) == model->IsAffected(frame));
    }
    // 1,024 of 4,096 buckets.
    boost::math::binomial_distribution<> law(n, 1024.0 / 4096.0);
    CHECK(affected >= boost::math::quantile(law, 0.0005));
    CHECK(affected <= boost::math::quantile(boost::math::complement(law, 0.0005)));

    // Another seed picks other flows; the bucket ignores everything but the 5-tuple.
    frame.srcHost = 1;
    frame.dstHost = 2;
    frame.srcPort = 50000;
    uint32_t differ = 0;
    for (uint32_t seed = 0; seed < 64; ++seed)
    {
        differ += ns3::GrayFailureModel::Bucket(frame, seed) !=
                  ns3::GrayFailureModel::Bucket(frame, seed + 1);
    }
    // Independent buckets: two seeds agree with probability 1/4096, so 64 pairs give at most 3
    // agreements except with probability C(64,4)/4096^4, about 2e-9; a seed that did not enter
    // the hash would give 0 differences.
    CHECK(differ > 60);
    ns3::FrameMeta other = frame;
    other.psn = 99;
    other.ecn = ns3::ECN_CE;
    other.ttl = 3;
    CHECK(ns3::GrayFailureModel::Bucket(other, 5) == ns3::GrayFailureModel::Bucket(frame, 5));
}

} // namespace TUSK_TEST_FILE
