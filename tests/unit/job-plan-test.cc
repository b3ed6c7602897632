// Unit tests of JobPlan: a job's iteration lowered alone (JobPlan::Expand) is exactly the part
// of the whole build (AppendJob) at that iteration's ids, and the ids of every iteration are
// known without building the ones before it. No Simulator.
#include "workload/model/job-model.h"
#include "workload/model/job-plan.h"
#include "workload/model/workload-builder.h"

#include <catch2/catch.hpp>

#include <numeric>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

std::vector<uint32_t>
Iota(uint32_t n)
{
    std::vector<uint32_t> v(n);
    std::iota(v.begin(), v.end(), 0);
    return v;
}

/** Every field of two transfers equal. */
void
CheckSame(const TransferSpec& a, const TransferSpec& b)
{
    CHECK(a.externalId == b.externalId);
    CHECK(a.src == b.src);
    CHECK(a.dst == b.dst);
    CHECK(a.bytes == b.bytes);
    CHECK(a.startPs == b.startPs);
    CHECK(a.trigger == b.trigger);
    CHECK(a.onSendDone == b.onSendDone);
    CHECK(a.onRecvDone == b.onRecvDone);
    CHECK(a.qpGroup == b.qpGroup);
    CHECK(a.priority == b.priority);
    CHECK(a.collective == b.collective);
    CHECK(a.step == b.step);
    CHECK(a.channel == b.channel);
    CHECK(a.qps == b.qps);
}

/** A job with a TP all-reduce every iteration, a DP all-reduce every 3rd (DiLoCo's H), a
 *  non-blocking entry every 2nd, a compute-only entry, and a leading every-4 entry, so that
 *  iterations differ in their collectives and some start from an earlier iteration's trigger. */
JobSpec
MixedJob(uint32_t iterations)
{
    JobSpec job;
    job.name = "mixed";
    job.hosts = Iota(8);
    job.degrees.tp = 2; // DP = 4
    job.iterations = iterations;
    job.syncEvery = 3;
    job.startPs = 5'000'000;
    job.iterationComputePs = 1'000'000;
    job.exec.channels = 2;
    job.exec.chunkBytes = 16384;
    JobCollective tp;
    tp.kind = "all-reduce";
    tp.group = "tp";
    tp.bytes = 1 << 16;
    JobCollective dp;
    dp.kind = "all-reduce";
    dp.group = "dp";
    dp.bytes = 1 << 18;
    dp.computePs = 2'000'000;
    JobCollective nb;
    nb.kind = "all-gather";
    nb.group = "world";
    nb.bytes = 1 << 15;
    nb.blocking = false;
    nb.every = 2;
    JobCollective idle;
    idle.kind = "all-reduce";
    idle.bytes = 0; // compute only
    idle.computePs = 300'000;
    return job.collectives = {tp, dp, nb, idle}, job;
}

} // namespace

TEST_CASE("JobPlan::Expand gives iteration i exactly as the whole build has it",
          "[unit][job][lazy]")
{
    for (bool leadingGap : {false, true})
    {
        CAPTURE(leadingGap);
        JobSpec job = MixedJob(7);
        if (leadingGap)
        {
            // Only an every-4 entry: iterations 0-2 and 4-6 have no traffic, so iteration 3
            // starts at an absolute time and 7 waits for 3's barrier plus carried compute.
            job.collectives.resize(1);
            job.collectives[0].every = 4;
            job.iterations = 8;
        }
        // A background-like transfer before the job: the job's ids start after it.
        WorkloadSpec whole;
        WorkloadBuilder wb(whole);
        TransferSpec first;
        first.src = 0;
        first.dst = 1;
        first.bytes = 10;
        wb.AddTransfer(first);
        WorkloadSpec planned = whole;
        WorkloadBuilder pb(planned);
        AppendJob(wb, whole, job);
        const JobPlan plan(pb, planned, job);
        REQUIRE(plan.BasesOf(plan.Iterations()).transfer == whole.transfers.size());
        REQUIRE(plan.BasesOf(plan.Iterations()).trigger == whole.triggers.size());
        REQUIRE(plan.BasesOf(plan.Iterations()).collective == whole.collectives.size());
        uint64_t expanded = 0;
        for (uint32_t i = 0; i < plan.Iterations(); ++i)
        {
            CAPTURE(i);
            const JobPlan::Bases b = plan.BasesOf(i);
            const WorkloadSpec f = plan.Expand(i);
            REQUIRE(f.transfers.size() == plan.TransfersIn(i));
            REQUIRE(f.triggers.size() == plan.BasesOf(i + 1).trigger - b.trigger);
            REQUIRE(f.collectives.size() == plan.BasesOf(i + 1).collective - b.collective);
            for (size_t k = 0; k < f.transfers.size(); ++k)
            {
                CheckSame(f.transfers[k], whole.transfers[b.transfer + k]);
            }
            for (size_t k = 0; k < f.triggers.size(); ++k)
            {
                const TriggerSpec& x = f.triggers[k];
                const TriggerSpec& y = whole.triggers[b.trigger + k];
                CHECK(x.kind == y.kind);
                CHECK(x.threshold == y.threshold);
                CHECK(x.externalId == y.externalId);
            }
            for (size_t k = 0; k < f.collectives.size(); ++k)
            {
                const CollectiveSpec& x = f.collectives[k];
                const CollectiveSpec& y = whole.collectives[b.collective + k];
                CHECK(x.iteration == y.iteration);
                CHECK(x.name == y.name);
                CHECK(x.group == y.group);
                CHECK(x.ranks == y.ranks);
                CHECK(x.steps == y.steps);
                CHECK(x.slices == y.slices);
                CHECK(x.job == y.job);
            }
            expanded += f.transfers.size();
        }
        CHECK(expanded + 1 == whole.transfers.size());
        if (leadingGap)
        {
            CHECK(plan.TransfersIn(0) == 0);
            CHECK(plan.StartTrigger(3) == -1);
            // 5 ms start + 4 iterations' 1 ms compute, as the whole build's first transfer has.
            CHECK(plan.CarriedPs(3) + 1'000'000 == whole.transfers[1].startPs);
            CHECK(plan.StartTrigger(7) == plan.StartTrigger(4));
            CHECK(plan.StartTrigger(4) >= 0);
        }
    }
}

TEST_CASE("JobPlan: an iteration's ids need no earlier iteration built", "[unit][job][lazy]")
{
    // Ids grow by the same counts in every iteration of the same pattern: the bases of
    // iteration i of a 1,000-iteration plan equal those of a 10-iteration whole build scaled.
    WorkloadSpec small;
    WorkloadBuilder sb(small);
    AppendJob(sb, small, MixedJob(6)); // one full period of every = 2 and 3
    WorkloadSpec empty;
    WorkloadBuilder eb(empty);
    const JobPlan plan(eb, empty, MixedJob(1000));
    const uint64_t perPeriod = small.transfers.size();
    CHECK(plan.BasesOf(600).transfer == 100 * perPeriod);
    CHECK(plan.BasesOf(1000).transfer == 166 * perPeriod + plan.BasesOf(4).transfer);
    CHECK(plan.Expand(999).transfers.front().externalId == plan.BasesOf(999).transfer);
}

} // namespace TUSK_TEST_FILE
