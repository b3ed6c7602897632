// Component tests of what a run holds per transfer: the executor's transfer records are freed
// once their result rows are built, so the collection stage does not hold two copies of every
// transfer's results (docs/performance.md, "Memory"). A [[jobs]] run builds its iterations as
// they start and frees each when it has finished; an edited workload (RunOptions::editWorkload)
// is built whole, every record held until the rows are built. Tiny leaf-spine, job of a few
// iterations.

#include "run-helpers.h"

#include "workload/model/workload-executor.h"

using namespace tusk_test;

namespace
{

/** A ring all-reduce job over the 4 hosts of a 2x1x2 leaf-spine, `iterations` times. */
tusk::ScenarioSpec
RingJob(uint32_t iterations)
{
    tusk::ScenarioSpec s = LeafSpine(2, 1, 2, 100);
    s.workload.kind = "jobs";
    tusk::JobEntry j;
    j.name = "ring";
    j.iterations = iterations;
    tusk::JobCollectiveEntry c;
    c.kind = "all-reduce";
    c.bytes = 16 * 1024;
    j.collectives.push_back(c);
    s.jobs.push_back(j);
    return s;
}

struct Held
{
    uint64_t afterRun = 0;     //!< records held when the simulation stopped
    uint64_t afterCollect = 0; //!< records held when the results were collected
};

Held
RunAndCount(const tusk::ScenarioSpec& s, tusk::RunResult& result, bool whole)
{
    Held h;
    tusk::RunOptions o;
    if (whole)
    {
        o.editWorkload = [](ns3::WorkloadSpec&) {};
    }
    o.afterRun = [&h](ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&) {
        h.afterRun = ns3::WorkloadExecutor::LiveRecords();
    };
    o.afterCollect = [&h]() { h.afterCollect = ns3::WorkloadExecutor::LiveRecords(); };
    result = Run(s, o);
    return h;
}

} // namespace

TEST_CASE("a finished run frees every transfer record once its flow rows are built, however "
          "many iterations it ran",
          "[component][memory]")
{
    const uint64_t before = ns3::WorkloadExecutor::LiveRecords();
    for (uint32_t iterations : {2u, 8u})
    {
        for (bool whole : {true, false})
        {
            CAPTURE(iterations, whole);
            tusk::RunResult r;
            const Held h = RunAndCount(RingJob(iterations), r, whole);
            REQUIRE(r.finished);
            // Built whole: one record per transfer while the run is on (grows with the
            // iterations); built iteration by iteration: every iteration freed once finished.
            CHECK(h.afterRun == before + (whole ? r.flows.size() : 0));
            // ... none once the rows hold the results: flat in the iteration count.
            CHECK(h.afterCollect == before);
            CHECK(ns3::WorkloadExecutor::LiveRecords() == before);
        }
    }
}

TEST_CASE("an unfinished run keeps its transfer records to name what is blocked",
          "[component][memory]")
{
    tusk::ScenarioSpec s = RingJob(4);
    s.stopTimePs = 2'000'000; // 2 us: the first step has not finished
    s.requireFinish = true;
    tusk::RunResult r;
    tusk::RunOptions o;
    uint64_t held = 0;
    o.afterCollect = [&held]() { held = ns3::WorkloadExecutor::LiveRecords(); };
    o.progress = false;
    r = tusk::RunScenario(s, o);
    REQUIRE_FALSE(r.finished);
    // The unfinished iteration's records (the first of four: built iteration by iteration,
    // the later ones do not exist yet).
    CHECK(held >= r.flows.size() / 4);
    CHECK(held > 0);
    // DescribeBlocked read the records: the failure names a transfer that waits or is in flight.
    CHECK_THAT(r.failure, Catch::Contains("transfers unfinished"));
    CHECK_THAT(r.failure, Catch::Contains("transfer "));
}
