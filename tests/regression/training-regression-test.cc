// Long checks of training jobs (ctest label "regression"): oracle 1 through the job machinery
// (channels, chunking, barriers), and the scenarios run to completion.

#include "run-helpers.h"

#include "scenario/scenario-toml.h"
#include "workload/model/traffic-generators.h"

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

TEST_CASE("a 1 GiB ring all-reduce job on 8 x 400G ranks takes 37.58 ms (oracle 1)",
          "[regression][oracle1][job]")
{
    auto spec = LeafSpine(1, 1, 8, 400);
    spec.nic.ackInterval = 16;
    spec.workload.kind = "jobs";
    tusk::JobEntry j;
    j.name = "oracle1";
    j.channels = 2;
    j.chunkBytes = 8ULL << 20; // 64 MiB per op and channel -> 8 pipelined chunks
    tusk::JobCollectiveEntry c;
    c.kind = "all-reduce";
    c.algorithm = "ring";
    c.bytes = 1ULL << 30;
    j.collectives.push_back(c);
    spec.jobs.push_back(j);
    auto r = Run(spec);
    REQUIRE(r.finished);
    const auto& row = r.collectives.at(0);
    CHECK(row.slices == 8);
    // nccl-tests PERFORMANCE.md: 2 (n-1)/n S / B = 37.58 ms; algbw 28.57 GB/s; busbw 50.0 GB/s;
    // +-3 % for headers (oracle 1). Never faster than the bound (oracle 3).
    const double cct = row.cctPs * 1e-12;
    CHECK(cct >= ns3::RingAllReduceLowerBoundSeconds(8, 1ULL << 30, 400e9));
    CHECK(cct == Approx(37.58e-3).epsilon(0.03));
    CHECK(row.algbwGBps == Approx(28.57).epsilon(0.03));
    CHECK(row.busbwGBps == Approx(50.0).epsilon(0.03));
    // The reported byte bound is the same 2 (n-1)/n S / B (8 divides S): 37.58 ms to the ps.
    CHECK(row.lowerBoundPs * 1e-12 ==
          Approx(ns3::RingAllReduceLowerBoundSeconds(8, 1ULL << 30, 400e9)).epsilon(1e-12));
}

TEST_CASE("the training-job scenarios run to completion above their byte bounds", "[regression][job]")
{
    const std::string dir = std::string(TUSK_SOURCE_DIR) + "/scenarios/";
    for (const char* name : {"llama3-8b-dp-allreduce.toml", "moe-all-to-all.toml",
                             "simai-micro-allreduce.toml", "background-mix.toml"})
    {
        CAPTURE(name);
        auto r = Run(tusk::LoadScenarioFile(dir + name));
        INFO(r.failure);
        CHECK(r.failure.empty());
        CHECK(r.finished);
        REQUIRE_FALSE(r.collectives.empty());
        for (const auto& c : r.collectives)
        {
            CHECK(c.finished);
            CHECK(c.cctPs >= c.lowerBoundPs);
        }
        for (const auto& j : r.jobs)
        {
            CHECK(j.finished);
        }
        if (std::string(name) == "simai-micro-allreduce.toml")
        {
            // 8-GPU TP workload mapped onto 16 ranks: DP scaled 1 -> 2, and said so.
            REQUIRE(r.jobs.size() == 1);
            CHECK(r.jobs[0].dp == 2);
            CHECK(r.jobs[0].note.find("scaling DP 1 -> 2") != std::string::npos);
            CHECK(r.collectives.size() == 4); // 2 layers x 2 TP groups
        }
    }
}

} // namespace TUSK_TEST_FILE
