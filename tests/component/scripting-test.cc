// The scripting API (tusk/api/scripting.h, docs/scripting.md): the same validation and messages as
// the command line, the same bytes as `tusk run`, runs repeated in one process, tables added in
// code, a topology written in code, callbacks on trace sources.
#include "cli-helpers.h"

#include "api/scripting.h"

#include "ns3/callback.h"

#include <nlohmann/json.hpp>

#include <algorithm>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

/** kSmallScenario (2x2 leaf-spine, 2 hosts per leaf: hosts 0,1 on leaf0) with a flows
 *  workload and no flows yet. */
tusk::Scenario
FlowsScenario()
{
    tusk::Scenario s = tusk::Scenario::FromString(kSmallScenario);
    s.Set("workload.kind", "flows"); // drops workload.bytes, as --set does
    return s;
}

const char* const kResultFiles[] = {"flows.csv", "links.csv", "collectives.csv"};

} // namespace

TEST_CASE("a script run writes the bytes of `tusk run` with the same --set, and repeats in one process",
          "[component][scripting]")
{
    const auto dir = Scratch("scripting-bytes");
    Write(dir / "small.toml", kSmallScenario);
    const Outcome cli = Tusk("run " + (dir / "small.toml").string() +
                             " --set lb.policy=spray --set workload.bytes=300KB --seed 3 -q --out " +
                             (dir / "cli").string());
    REQUIRE(cli.status == 0);

    tusk::Scenario s = tusk::Scenario::Load((dir / "small.toml").string());
    s.Set("lb.policy", "spray").Set("workload.bytes", "300KB").Set("seed", 3);
    const tusk::RunResult first = s.Run((dir / "script").string());
    const tusk::RunResult second = s.Run(); // no files; the simulator was reset in between
    for (const char* f : kResultFiles)
    {
        INFO(f);
        CHECK(Slurp(dir / "script" / f) == Slurp(dir / "cli" / f));
    }
    CHECK(nlohmann::json::parse(Slurp(dir / "script" / "manifest.json"))["scenario"] ==
          nlohmann::json::parse(Slurp(dir / "cli" / "manifest.json"))["scenario"]);
    REQUIRE(first.flows.size() == 4); // permutation of 4 hosts
    REQUIRE(second.flows.size() == first.flows.size());
    for (size_t i = 0; i < first.flows.size(); ++i)
    {
        CHECK(first.flows[i].bytes == 300'000);
        CHECK(second.flows[i].finishPs == first.flows[i].finishPs);
    }
    CHECK(first.summary.policy == "spray");
    CHECK(first.spec.seed == 3);
}

TEST_CASE("Set rejects what --set rejects, with the same message, and leaves the scenario unchanged",
          "[component][scripting]")
{
    const auto dir = Scratch("scripting-errors");
    Write(dir / "small.toml", kSmallScenario);
    tusk::Scenario s = tusk::Scenario::Load((dir / "small.toml").string());
    std::string message;
    try
    {
        s.Set("topology.leaves", 0);
    }
    catch (const ns3::InputError& e)
    {
        message = e.what();
    }
    REQUIRE(message.rfind("--set: topology.leaves: ", 0) == 0);
    const Outcome cli = Tusk("run " + (dir / "small.toml").string() + " --set topology.leaves=0 -q --out " +
                             (dir / "never").string());
    CHECK(cli.status == 2);
    CHECK(cli.output.find(message) != std::string::npos);
    CHECK(s.Spec().topology.leafSpine.leaves == 2);
    CHECK(s.Overrides().empty());

    CHECK_THROWS_WITH(s.AddFlow(0, 1, 1000), Catch::Contains("workload.flows")); // not a flows workload
    CHECK(s.Text().find("[[workload.flows]]") == std::string::npos);
    CHECK_THROWS_WITH(s.Set("lb.policy", "no-such-policy").Run(), Catch::Contains("lb.policy"));
}

TEST_CASE("flows and failures added in code run as if written in the file", "[component][scripting]")
{
    tusk::Scenario s = FlowsScenario();
    // Not complete yet: a flows workload without flows says so when run, as the file would.
    CHECK_THROWS_WITH(s.Run(), Catch::Contains("workload.flows: required"));
    s.AddFlow(0, 2, 200'000).AddFlow(1, 3, 100'000, 5.5);
    // Complete now: a change that breaks it is refused at once and undone.
    CHECK_THROWS_WITH(s.AddFlow(0, 99, 1000), Catch::Contains("workload.flows[2].dst"));
    CHECK_THROWS_AS(s.Set("workload.flows", "[]"), ns3::InputError);
    // Take one of leaf0's two uplinks down before anything starts: every flow crosses
    // leaf0-spine1 in neither direction.
    s.AddFailure(0, "link_down", "leaf0-spine1");
    // Routing does not reconverge: leaf1's ACKs hashed through spine1 are lost, and a lost
    // last ACK is recovered by the retransmission timer; a short one keeps the run short.
    s.Set("nic.rto_us", 1000);
    REQUIRE(s.Spec().workload.flows.size() == 2);
    REQUIRE(s.Spec().failures.size() == 1);
    const tusk::RunResult r = s.Run();
    REQUIRE(r.finished);
    REQUIRE(r.flows.size() == 2);
    CHECK(r.flows[0].bytes == 200'000);
    CHECK(r.flows[1].startPs == 5'500'000);
    for (const tusk::LinkRow& l : r.links)
    {
        if ((l.from == "leaf0" && l.to == "spine1") || (l.from == "spine1" && l.to == "leaf0"))
        {
            CHECK(l.txBytes == 0);
        }
        if (l.from == "leaf0" && l.to == "spine0")
        {
            CHECK(l.txBytes >= 300'000); // both flows' payload went the one way left
        }
    }
}

TEST_CASE("AddFailure takes a switch or a NIC by its kind's key", "[component][scripting]")
{
    tusk::Scenario s = FlowsScenario();
    s.AddFlow(0, 2, 100'000);
    s.AddFailure(0, "switch_down", "spine1").AddFailure(50, "nic_down", "3");
    REQUIRE(s.Spec().failures.size() == 2);
    CHECK(s.Spec().failures[0].switchName == "spine1");
    CHECK(s.Spec().failures[1].host == 3u);
    // A host id that is not an integer is the loader's error, named by its key.
    CHECK_THROWS_WITH(s.AddFailure(0, "nic_down", "host3"), Catch::Contains("failures[2].host"));
    CHECK(s.Spec().failures.size() == 2); // refused and undone
}

TEST_CASE("a topology written in code: the slower spine's links run at their own rate",
          "[component][scripting]")
{
    // Two leaves with two hosts each, two spines; spine1's links at 25 Gb/s.
    tusk::Topology t;
    std::vector<uint32_t> hosts;
    for (int h = 0; h < 4; ++h)
    {
        hosts.push_back(t.AddHost());
    }
    const uint32_t leaf0 = t.AddSwitch(), leaf1 = t.AddSwitch();
    const uint32_t spine0 = t.AddSwitch(), spine1 = t.AddSwitch();
    for (int h = 0; h < 4; ++h)
    {
        t.AddLink(hosts[h], h < 2 ? leaf0 : leaf1, 100, 1000);
    }
    for (uint32_t leaf : {leaf0, leaf1})
    {
        t.AddLink(leaf, spine0, 100, 1000);
        t.AddLink(leaf, spine1, 25, 1000);
    }
    CHECK(t.HpccText().rfind("8 4 8\n4 5 6 7\n0 4 100Gbps 1000ns 0\n", 0) == 0);
    CHECK_THROWS_AS(t.AddLink(0, 99, 100, 0), ns3::InputError);

    const auto dir = Scratch("scripting-topology");
    tusk::Scenario s = FlowsScenario();
    s.UseTopology(t, (dir / "topology.txt").string()).AddFlow(0, 2, 500'000).AddFlow(1, 3, 500'000);
    const tusk::RunResult r = s.Run();
    REQUIRE(r.finished);
    CHECK(r.hosts == 4);
    CHECK(r.switches == 4);
    int slow = 0;
    for (const tusk::LinkRow& l : r.links)
    {
        if (l.from == "node7" || l.to == "node7")
        {
            CHECK(l.rateBps == 25'000'000'000ULL);
            ++slow;
        }
    }
    CHECK(slow == 4); // two links, both directions
}

namespace
{
uint64_t g_maxQueue = 0;
uint64_t g_queueEvents = 0;
void
OnQueueBytes(uint64_t bytes)
{
    g_maxQueue = std::max(g_maxQueue, bytes);
    ++g_queueEvents;
}
} // namespace

TEST_CASE("a callback connected by path sees the queue the metrics sink sees", "[component][scripting]")
{
    // A 3-to-1 incast: host 3's leaf port queues.
    tusk::Scenario s = FlowsScenario();
    s.AddFlow(0, 3, 300'000).AddFlow(1, 3, 300'000).AddFlow(2, 3, 300'000);
    s.Connect("/NodeList/*/DeviceList/*/$ns3::FabricNetDevice/QueueBytes",
              ns3::MakeCallback(&OnQueueBytes));
    g_maxQueue = g_queueEvents = 0;
    const tusk::RunResult r = s.Run();
    uint64_t sinkMax = 0;
    for (const tusk::LinkRow& l : r.links)
    {
        sinkMax = std::max(sinkMax, l.maxQueueBytes);
    }
    CHECK(g_queueEvents > 0);
    CHECK(sinkMax > 10'000); // an incast queues
    CHECK(g_maxQueue == sinkMax);

    tusk::Scenario bad = FlowsScenario();
    bad.AddFlow(0, 3, 1000).Connect("/NodeList/*/DeviceList/*/$ns3::FabricNetDevice/NoSuchTrace",
                                    ns3::MakeCallback(&OnQueueBytes));
    CHECK_THROWS_WITH(bad.Run(), Catch::Contains("matches no trace source"));
    // The failed run left nothing behind: the next run is the first one again.
    g_maxQueue = 0;
    CHECK(s.Run().flows[2].finishPs == r.flows[2].finishPs);
    CHECK(g_maxQueue == sinkMax);
}

TEST_CASE("a run stopped by its poll function writes nothing, and the next run is unaffected",
          "[component][scripting]")
{
    const auto dir = Scratch("scripting-poll");
    tusk::Scenario s = FlowsScenario();
    s.AddFlow(0, 3, 2'000'000); // 160 µs at 100 Gb/s: several 20 µs ticks
    int ticks = 0;
    CHECK_THROWS_AS(s.Run((dir / "out").string(), false, [&ticks]() { return ++ticks < 3; }),
                    tusk::RunInterrupted);
    CHECK(ticks == 3);
    CHECK(std::distance(std::filesystem::directory_iterator(dir),
                        std::filesystem::directory_iterator()) == 0); // no results, no staging
    const tusk::RunResult r = s.Run();
    CHECK(r.finished);
    CHECK(r.flows[0].deliveredBytes == 2'000'000);
}

} // namespace TUSK_TEST_FILE
