// Component tests of fast mode (simulator.mode = "fast", docs/fast-mode.md): iteration
// memoisation against packet mode on a tiny leaf-spine. The oracle is packet mode itself: the
// exact rule must reproduce its tables byte for byte, the steady rule within 5 % (the
// tolerance the fast-mode acceptance criterion states).

#include "run-helpers.h"

#include "results/fast-compare.h"
#include "results/results-writer.h"

#include <cmath>
#include <set>

using namespace tusk_test;

namespace
{

/** A ring all-reduce job over the 4 hosts of a 2-leaf, 2-spine leaf-spine (ECMP over the
 *  spines), `iterations` times, `computeUs` of compute before every iteration. */
tusk::ScenarioSpec
RingJob(uint32_t iterations, uint64_t computeUs, const std::string& mode)
{
    tusk::ScenarioSpec s = LeafSpine(2, 2, 2, 100);
    s.workload.kind = "jobs";
    s.simulator.mode = mode;
    tusk::JobEntry j;
    j.name = "ring";
    j.iterations = iterations;
    j.computePs = computeUs * 1'000'000;
    tusk::JobCollectiveEntry c;
    c.kind = "all-reduce";
    c.bytes = 64 * 1024;
    j.collectives.push_back(c);
    s.jobs.push_back(j);
    return s;
}

uint64_t
Replayed(const tusk::RunResult& r)
{
    return r.fast.replayedExact + r.fast.replayedSteady;
}

} // namespace

TEST_CASE("fast mode, exact rule: a job with compute time between iterations on an ECMP "
          "fabric is replayed, and its tables equal packet mode's byte for byte",
          "[component][fast-mode]")
{
    const uint32_t n = 10;
    const tusk::RunResult p = Run(RingJob(n, 20, "packet"));
    const tusk::RunResult f = Run(RingJob(n, 20, "fast"));
    REQUIRE(p.finished);
    REQUIRE(f.finished);
    INFO("exact refusals: " << f.fast.exactRefusals.size());
    // Iterations 0 and 1 are simulated (no memo yet; iteration 0 creates the connections, so
    // its start state differs), every later one replayed exactly.
    CHECK(f.fast.replayedExact == n - 2);
    CHECK(f.fast.replayedSteady == 0);
    CHECK(f.fast.simulated == 2);
    CHECK(f.fast.replayedBytes > 0);
    // The transfers, collectives, waits and iterations of packet mode, to the picosecond.
    CHECK(tusk::FlowsCsv(f) == tusk::FlowsCsv(p));
    CHECK(tusk::CollectivesCsv(f) == tusk::CollectivesCsv(p));
    CHECK(tusk::WaitsCsv(f) == tusk::WaitsCsv(p));
    CHECK(tusk::JobsCsv(f) == tusk::JobsCsv(p));
    // Frames and bytes per link are the memo's deltas added: equal too.
    REQUIRE(f.links.size() == p.links.size());
    for (size_t k = 0; k < p.links.size(); ++k)
    {
        CHECK(f.links[k].txFrames == p.links[k].txFrames);
        CHECK(f.links[k].txBytes == p.links[k].txBytes);
        CHECK(f.links[k].maxQueueBytes == p.links[k].maxQueueBytes);
    }
    CHECK(f.packetHops == p.packetHops);
    // Packet mode replays nothing and counts nothing.
    CHECK(Replayed(p) == 0);
    CHECK(p.fast.fallbacks.empty());
}

TEST_CASE("fast mode, steady rule: random spraying with no compute time is replayed once two "
          "iterations agree, within 5 % of packet mode",
          "[component][fast-mode]")
{
    const uint32_t n = 12;
    auto spec = [&](const std::string& mode) {
        tusk::ScenarioSpec s = RingJob(n, 0, mode);
        s.lb.policy = "spray";
        s.nic.receiver = "selective-repeat";
        return s;
    };
    const tusk::RunResult p = Run(spec("packet"));
    const tusk::RunResult f = Run(spec("fast"));
    REQUIRE(p.finished);
    REQUIRE(f.finished);
    // Spraying draws from a random stream per packet: never exact.
    CHECK(f.fast.replayedExact == 0);
    CHECK(f.fast.exactRefusals.count("policy_state") == 1);
    // K = 2 agreeing iterations, finished (acknowledged) before the decision: at most K + 1
    // iterations simulated.
    CHECK(f.fast.replayedSteady >= n - 2 - 1);
    for (const auto& m : tusk::CompareFastMetrics(p, f))
    {
        INFO(m.metric << " " << m.job << ": packet " << m.packet << " fast " << m.fast);
        CHECK(std::fabs(m.RelativeDifference()) <= 0.05);
    }
}

TEST_CASE("validate-fast compares a workload without jobs as a whole, and fast mode changes "
          "nothing there",
          "[component][fast-mode]")
{
    // A ring all-reduce workload (no [[jobs]]): fast mode has no iteration to replay, so the
    // two runs are the same simulation and every metric of the whole run must be equal.
    auto spec = [](const std::string& mode) {
        tusk::ScenarioSpec s = LeafSpine(2, 2, 4, 100);
        s.workload.kind = "ring-allreduce";
        s.workload.bytes = 1 << 20;
        s.simulator.mode = mode;
        return s;
    };
    const tusk::RunResult p = Run(spec("packet"));
    const tusk::RunResult f = Run(spec("fast"));
    REQUIRE(p.finished);
    REQUIRE(f.finished);
    CHECK(f.fast.iterations == 0);
    std::set<std::string> metrics;
    for (const auto& m : tusk::CompareFastMetrics(p, f))
    {
        INFO(m.metric << " " << m.job << ": packet " << m.packet << " fast " << m.fast);
        CHECK(m.job == "run");
        CHECK(m.packet > 0);
        CHECK(m.RelativeDifference() == 0.0);
        metrics.insert(m.metric);
    }
    CHECK(metrics == std::set<std::string>{"cct_mean_us", "fct_mean_us", "fct_p99_us"});
}

TEST_CASE("fast mode: the iterations a failure falls in are simulated packet by packet, the "
          "reason counted",
          "[component][fast-mode]")
{
    const uint32_t n = 10;
    auto spec = [&](const std::string& mode) {
        tusk::ScenarioSpec s = RingJob(n, 20, mode);
        // A spine link at half rate from 150 us to 200 us: in the middle of the job (an
        // iteration takes about 40 us: 20 us of compute and the all-reduce).
        tusk::FailureEntry e;
        e.kind = "degrade";
        e.link = "leaf0-spine0";
        e.rateDivisor = 2;
        e.atPs = 150'000'000;
        e.untilPs = 200'000'000;
        s.failures.push_back(e);
        return s;
    };
    const tusk::RunResult p = Run(spec("packet"));
    const tusk::RunResult f = Run(spec("fast"));
    REQUIRE(p.finished);
    REQUIRE(f.finished);
    // The iterations around the failure were simulated, the others replayed exactly: the
    // results are packet mode's (a replay across the failure would not be).
    CHECK(tusk::FlowsCsv(f) == tusk::FlowsCsv(p));
    CHECK(tusk::JobsCsv(f) == tusk::JobsCsv(p));
    CHECK(Replayed(f) >= 2); // before the failure and after it
    REQUIRE(f.fast.fallbacks.count("failure_in_span") == 1);
    CHECK(f.fast.fallbacks.at("failure_in_span") >= 2);
}

TEST_CASE("fast mode is deterministic: two runs of one seed give the same bytes",
          "[component][fast-mode]")
{
    tusk::ScenarioSpec s = RingJob(8, 0, "fast");
    s.lb.policy = "spray";
    s.nic.receiver = "selective-repeat";
    const tusk::RunResult a = Run(s);
    const tusk::RunResult b = Run(s);
    CHECK(Replayed(a) > 0);
    CHECK(tusk::FlowsCsv(a) == tusk::FlowsCsv(b));
    CHECK(tusk::LinksCsv(a) == tusk::LinksCsv(b));
    CHECK(tusk::JobsCsv(a) == tusk::JobsCsv(b));
}
