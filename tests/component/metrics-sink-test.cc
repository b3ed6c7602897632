// The metrics sink (tusk/run/metrics-sink.h) builds links.csv, the PFC events, the trimmed frames,
// the headroom used and the transfer times from trace sources. The ports keep their own
// counters of the same events (PortCounters): on runs that exercise every column (PFC pauses,
// ECN marks, drops of several reasons, trimming, the PFC watchdog) the two sources must agree,
// and the transfer times must be the executor's records.

#include "run-helpers.h"

#include "results/results-writer.h"
#include "scenario/scenario-toml.h"

#include "fabric/helper/fabric-helper.h"
#include "workload/model/workload-executor.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <map>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

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

// A run shorter than the 10 µs utilisation window had max_util < mean_util
// (the busiest window counted idle time after the run's end). Such a run is one window.
TEST_CASE("links.csv of a run shorter than the utilisation window: max_util equals mean_util",
          "[component][metrics]")
{
    tusk::ScenarioSpec spec = LeafSpine(1, 1, 2, 100, 100);
    AddFlow(spec, 0, 1, 8000);
    const auto r = RunAndCompare(spec);
    REQUIRE(r.finished);
    REQUIRE(r.simEndPs < 10'000'000); // shorter than the 10 µs window
    int busy = 0;
    for (const auto& l : r.links)
    {
        CAPTURE(l.from, l.to, l.meanUtilisation, l.maxUtilisation);
        CHECK(l.maxUtilisation >= l.meanUtilisation);
        CHECK(l.maxUtilisation == Approx(l.meanUtilisation).epsilon(1e-9));
        busy += l.meanUtilisation > 0.05 ? 1 : 0;
    }
    CHECK(busy >= 2); // host 0 -> leaf and leaf -> host 1 carried the flow
}

// Per-flow packet conservation in flows.csv. Each flow's data frames sent =
// received + dropped (by reason) + in flight, in flight never negative; the per-flow counts
// add up to the QPs' own counters (an independent source) and the drops to links.csv's.
TEST_CASE("flows.csv per-flow packet counts: sent = received + dropped + in flight, and they "
          "add up to the QP counters",
          "[component][metrics]")
{
    const bool trimming = GENERATE(false, true);
    tusk::ScenarioSpec spec = tusk::LoadScenarioString(kIncast, "sink.toml");
    spec.pfc.enabled = false;
    spec.requireFinish = false;
    spec.stopTimePs = 300'000'000; // 0.3 ms: drops (or trims) and frames still in flight
    if (trimming)
    {
        spec.ns3Defaults["ns3::SwitchNode::TrimThresholdBytes"] = "200000";
    }
    uint64_t qpSent = 0;
    uint64_t qpReceived = 0;
    uint64_t qpTrimmed = 0;
    tusk::RunOptions o;
    o.afterRun = [&](ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics) {
        for (const auto& nic : nics)
        {
            for (uint32_t q = 0; q < nic->GetNQps(); ++q)
            {
                const auto& c = nic->GetQp(ns3::RdmaNic::kFirstQpn + q)->GetCounters();
                qpSent += c.dataPacketsSent;
                qpReceived += c.dataPacketsReceived + c.trimmedReceived;
                qpTrimmed += c.trimmedReceived;
            }
        }
    };
    const auto r = Run(spec, o);
    uint64_t sent = 0;
    uint64_t received = 0;
    uint64_t dropped = 0;
    int64_t inFlight = 0;
    for (const auto& f : r.flows)
    {
        CAPTURE(f.id);
        uint64_t d = 0;
        for (int k = 0; k < tusk::kDropReasons; ++k)
        {
            d += f.pktsDropped[k];
        }
        // pktsInFlight is sent - received - dropped (run-collect.cc), so sent = received +
        // dropped + in flight holds by construction; what can fail is a negative remainder.
        CHECK(f.pktsInFlight >= 0);
        CHECK(f.pktsSent >= (f.deliveredBytes + 4095) / 4096); // at least what it delivered
        sent += f.pktsSent;
        received += f.pktsReceived;
        dropped += d;
        inFlight += f.pktsInFlight;
    }
    CAPTURE(trimming, r.summary.drops, r.summary.trimmedFrames);
    CHECK(sent == qpSent);
    CHECK(received == qpReceived);
    CHECK(dropped <= r.summary.drops); // data frames among all dropped frames
    if (trimming)
    {
        CHECK(qpTrimmed > 0); // trimmed frames reached the receiver: counted as received
    }
    else
    {
        CHECK(dropped > 0);
        CHECK(dropped == r.summary.drops); // every frame dropped was a data frame of a flow
    }
    CHECK(inFlight > 0); // stopped mid-run
    CHECK(static_cast<uint64_t>(inFlight) <= r.conservation.inFlight);
}

// The invariants are checked at the end of every run (every run of the
// suite passes through them); two faults injected here must each be reported as a failure.
TEST_CASE("run invariants: a NIC faster than its link breaks the link-rate invariant",
          "[component][invariants]")
{
    tusk::ScenarioSpec spec = LeafSpine(1, 1, 2, 100, 100);
    AddFlow(spec, 0, 1, 400'000);
    tusk::RunOptions o;
    o.beforeRun = [](ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics) {
        nics[0]->SetDataRate(ns3::DataRate("200Gbps")); // on a 100 Gb/s link
    };
    const auto r = Run(spec, o);
    INFO(r.failure);
    REQUIRE(r.invariantViolations.size() == 1);
    CHECK(r.invariantViolations[0].find("host0 -> ") == 0);
    CHECK(r.invariantViolations[0].find("faster than its 100 Gb/s line rate") != std::string::npos);
    CHECK(r.failure.find("invariant violated: host0 -> ") != std::string::npos);

    // The same run at the link's rate keeps every invariant.
    const auto fine = Run(spec);
    CHECK(fine.invariantViolations.empty());
    CHECK(fine.failure.empty());
}

TEST_CASE("run invariants: MMU bytes not held by any queue break the MMU invariant",
          "[component][invariants]")
{
    tusk::ScenarioSpec spec = LeafSpine(1, 1, 2, 100, 100);
    AddFlow(spec, 0, 1, 100'000);
    tusk::RunOptions o;
    o.beforeRun = [](ns3::Fabric& f, const std::vector<ns3::Ptr<ns3::RdmaNic>>&) {
        f.switches[0]->GetMmu()->Admit(0, 1, 3, 1000); // charged, never enqueued
    };
    const auto r = Run(spec, o);
    INFO(r.failure);
    REQUIRE(r.invariantViolations.size() == 2);
    CHECK(r.invariantViolations[0] == "leaf0 port 1 queue 3: the MMU counts 1000 bytes, the "
                                      "queue holds 0");
    CHECK(r.invariantViolations[1] == "leaf0: the MMU counts 1000 bytes in use, its queues "
                                      "hold 0");
}

// drops.csv ([output] drop_log): one row per frame a port dropped, with when, where and why.
// The ports count their drops themselves (links.csv, checked against PortCounters above): the
// log must hold exactly those drops, per port and reason, in time order, none of a failure
// before it happened; asking for it must not change the run.
TEST_CASE("drops.csv lists every drop links.csv counts, per port and reason, in time order",
          "[component][metrics]")
{
    const std::string failure = R"(
[[failures]]
at_us = 100
kind = "link_down"
link = "host0-leaf0"
)";
    tusk::ScenarioSpec spec = tusk::LoadScenarioString(kIncast + failure, "sink.toml");
    spec.pfc.enabled = false; // lossy drops at the incast port, besides the dead link
    spec.requireFinish = false;
    spec.stopTimePs = 300'000'000;
    const auto plain = Run(spec);
    CHECK(plain.dropEvents.empty()); // off by default
    spec.output.dropLog = true;
    const auto r = Run(spec);
    REQUIRE(r.links.size() == plain.links.size());

    std::map<std::pair<uint32_t, int>, uint64_t> logged; // (links.csv row, reason) -> drops
    uint64_t prevPs = 0;
    for (const auto& d : r.dropEvents)
    {
        CAPTURE(d.timePs, d.port, ns3::DropReasonName(d.reason));
        CHECK(d.timePs >= prevPs);
        prevPs = d.timePs;
        REQUIRE(d.port < r.links.size());
        ++logged[{d.port, static_cast<int>(d.reason)}];
        if (d.reason == ns3::DropReason::LINK_DOWN)
        {
            CHECK(d.timePs >= 100'000'000); // not before the link failed
            const auto& l = r.links[d.port];
            CHECK(((l.from == "host0" && l.to == "leaf0") || (l.from == "leaf0" && l.to == "host0")));
        }
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < r.links.size(); ++i)
    {
        for (int k = 0; k < tusk::kDropReasons; ++k)
        {
            CAPTURE(i, r.links[i].from, r.links[i].to, k);
            CHECK(logged[{i, k}] == r.links[i].drops[k]);
            CHECK(r.links[i].drops[k] == plain.links[i].drops[k]); // the run is unchanged
            total += r.links[i].drops[k];
        }
    }
    CHECK(r.dropEvents.size() == total);
    uint64_t threshold = 0;
    uint64_t linkDown = 0;
    for (const auto& l : r.links)
    {
        threshold += l.drops[static_cast<int>(ns3::DropReason::EGRESS_THRESHOLD)];
        linkDown += l.drops[static_cast<int>(ns3::DropReason::LINK_DOWN)];
    }
    CHECK(threshold > 0); // both reasons occur, so the log is tested on both
    CHECK(linkDown > 0);
    REQUIRE(r.flows.size() == plain.flows.size());
    for (size_t i = 0; i < r.flows.size(); ++i)
    {
        CHECK(r.flows[i].deliveredBytes == plain.flows[i].deliveredBytes);
        CHECK(r.flows[i].pktsSent == plain.flows[i].pktsSent);
    }

    // The file: a header and one line per drop, the link named as links.csv names it (host 0's
    // data frames caught on the dead link count at leaf0's end).
    const std::string csv = tusk::DropsCsv(r);
    CHECK(csv.rfind("time_us,link_id,from,to,reason,kind,src,dst,dst_qp,entropy\n", 0) == 0);
    CHECK(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')) == total + 1);
    CHECK(csv.find(",leaf0,host0,link_down,data,0,8,") != std::string::npos);
}

} // namespace TUSK_TEST_FILE
