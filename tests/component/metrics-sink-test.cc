// The metrics sink (tusk/metrics-sink.h) builds links.csv, the PFC events, the trimmed frames,
// the headroom used and the transfer times from trace sources. The ports keep their own
// counters of the same events (PortCounters): on runs that exercise every column (PFC pauses,
// ECN marks, drops of several reasons, trimming, the PFC watchdog) the two sources must agree,
// and the transfer times must be the executor's records.

#include "run-helpers.h"

#include "scenario-toml.h"

#include "fabric/helper/fabric-helper.h"
#include "workload/model/workload-executor.h"

#include "ns3/simulator.h"

using namespace tusk_test;

namespace
{

/** 8 hosts into one 100 Gb/s port, 2 MiB each, with ECN marking. */
const std::string kIncast = R"(name = "sink"
[topology]
leaves = 1
spines = 1
hosts_per_leaf = 9
host_link_gbps = 100
fabric_link_gbps = 100
[buffer]
total_bytes = "4MiB"
[ecn]
enabled = true
[workload]
kind = "incast"
incast_dst = 8
bytes = "2MiB"
)";

/** Run `spec` and check every links.csv row against its port's counters. */
tusk::RunResult
RunAndCompare(const tusk::ScenarioSpec& spec)
{
    std::vector<ns3::PortCounters> counters;
    std::vector<uint64_t> trimmed;
    tusk::RunOptions o;
    o.afterRun = [&](ns3::Fabric& f, const std::vector<ns3::Ptr<ns3::RdmaNic>>&) {
        for (const auto& l : f.links)
        {
            for (const auto& dev : {l.devA, l.devB})
            {
                dev->FlushUtilisation(ns3::Simulator::Now()); // as the sink does at the end
                counters.push_back(dev->GetCounters());
            }
        }
        for (const auto& sw : f.switches)
        {
            trimmed.push_back(sw->GetTrimmedFrames());
        }
    };
    const tusk::RunResult r = Run(spec, o);
    REQUIRE(r.links.size() == counters.size());
    for (size_t i = 0; i < counters.size(); ++i)
    {
        const auto& row = r.links[i];
        const auto& pc = counters[i];
        CAPTURE(i, row.from, row.to);
        CHECK(row.txFrames == pc.txFrames);
        CHECK(row.txBytes == pc.txBytes);
        CHECK(row.meanUtilisation ==
              pc.txWireBytes * 8.0 / (row.rateBps * (std::max<uint64_t>(r.simEndPs, 1) * 1e-12)));
        CHECK(row.maxUtilisation == pc.maxWindowUtilisation);
        CHECK(row.maxQueueBytes == pc.maxQueueBytes);
        CHECK(row.pfcPauseTx == pc.pfcXoffTx);
        CHECK(row.pfcFramesTx == pc.pfcTx);
        CHECK(row.pfcFramesRx == pc.pfcRx);
        CHECK(row.ecnMarks == pc.ecnMarks);
        CHECK(row.watchdogTriggers == pc.watchdogTriggers);
        for (int k = 0; k < tusk::kDropReasons; ++k)
        {
            CHECK(row.drops[k] == pc.drops[k]);
        }
    }
    uint64_t trims = 0;
    for (uint64_t t : trimmed)
    {
        trims += t;
    }
    CHECK(r.summary.trimmedFrames == trims);
    return r;
}

uint64_t
Sum(const tusk::RunResult& r, uint64_t tusk::LinkRow::*field)
{
    uint64_t s = 0;
    for (const auto& l : r.links)
    {
        s += l.*field;
    }
    return s;
}

} // namespace

TEST_CASE("links.csv from trace sources agrees with the ports' counters: lossless incast with "
          "ECN",
          "[component][metrics]")
{
    const auto r = RunAndCompare(tusk::LoadScenarioString(kIncast, "sink.toml"));
    REQUIRE(r.finished);
    CHECK(Sum(r, &tusk::LinkRow::pfcPauseTx) > 0);
    CHECK(Sum(r, &tusk::LinkRow::ecnMarks) > 0);
    CHECK(r.pfcEvents.size() >= Sum(r, &tusk::LinkRow::pfcFramesTx));
    // Headroom: some was used (the incast pauses its senders), never more than there is
    // (0 drops: oracle 12's lossless property).
    REQUIRE(r.headroom.size() == 1);
    CHECK(r.headroom[0].maxUsedBytes > 0);
    CHECK(r.headroom[0].maxUsedBytes <= r.headroom[0].headroomBytes);
    CHECK(r.summary.drops == 0);
    // Transfer times from the executor's trace sources are its records' times.
    for (const auto& f : r.flows)
    {
        CHECK(f.started);
        CHECK(f.finished);
        CHECK(f.fctPs == f.finishPs - f.startPs);
    }
}

TEST_CASE("links.csv from trace sources agrees with the ports' counters: lossy drops and "
          "trimming",
          "[component][metrics]")
{
    tusk::ScenarioSpec spec = tusk::LoadScenarioString(kIncast, "sink.toml");
    spec.pfc.enabled = false;
    spec.requireFinish = false;
    spec.stopTimePs = 300'000'000; // 0.3 ms: drops and trims, not the recovery
    spec.ns3Defaults["ns3::SwitchNode::TrimThresholdBytes"] = "200000";
    const auto r = RunAndCompare(spec);
    CHECK(r.summary.trimmedFrames > 0);
    CHECK(Sum(r, &tusk::LinkRow::pfcFramesTx) == 0);
    CHECK(r.headroom[0].maxUsedBytes == 0); // no lossless class
}

TEST_CASE("links.csv from trace sources agrees with the ports' counters: the PFC watchdog",
          "[component][metrics]")
{
    const std::string file = std::string(TUSK_SOURCE_DIR) + "/scenarios/pfc-deadlock.toml";
    const auto r = RunAndCompare(tusk::LoadScenarioFile(
        file, {"pfc.watchdog_us=200", "pfc.watchdog_action=forward"}));
    CHECK(Sum(r, &tusk::LinkRow::watchdogTriggers) > 0);
    CHECK(r.summary.drops > 0);
}
