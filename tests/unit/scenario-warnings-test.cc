// ScenarioWarnings: valid settings that are probably a mistake are reported, sensible ones not.

#include "run/runner.h"
#include "scenario/scenario-toml.h"
#include "scratch-dir.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;

TEST_CASE("scenario warnings: lossy data under PFC, duplicate priorities, slow refresh",
          "[unit][scenario]")
{
    ScenarioSpec ok;
    CHECK(ScenarioWarnings(ok).empty()); // defaults: data priority 3 is lossless

    ScenarioSpec lossy = ok;
    lossy.pfc.losslessPriorities = {5};
    REQUIRE(ScenarioWarnings(lossy).size() == 1);
    CHECK(ScenarioWarnings(lossy)[0].find("data_priority (3)") != std::string::npos);

    ScenarioSpec noPfc = lossy;
    noPfc.pfc.enabled = false; // nothing is lossless on purpose: no warning
    CHECK(ScenarioWarnings(noPfc).empty());

    ScenarioSpec twice = ok;
    twice.pfc.losslessPriorities = {3, 3};
    CHECK(ScenarioWarnings(twice).size() == 1);

    // 100 quanta = 51,200 bit times = 0.128 us at 400 Gb/s: a 100 us refresh is far too slow.
    ScenarioSpec slow = ok;
    slow.pfc.pauseQuanta = 100;
    slow.pfc.refreshPs = 100'000'000;
    CHECK(ScenarioWarnings(slow).size() == 1);
    slow.pfc.refreshPs = 100'000; // 0.1 us: shorter than the pause
    CHECK(ScenarioWarnings(slow).empty());
}

TEST_CASE("scenario warnings: [buffer] and [pfc] on an InfiniBand fabric do nothing, and PFC's "
          "own warnings stay quiet there",
          "[unit][scenario][ib]")
{
    ScenarioSpec ib;
    ib.fabric.kind = "infiniband";
    CHECK(ScenarioWarnings(ib).empty()); // nothing given: nothing to say
    ib.keyLines["buffer.total_bytes"] = 12;
    ib.keyLines["pfc.lossless_priorities"] = 15;
    ib.pfc.losslessPriorities = {5}; // data priority 3 not listed: an Ethernet warning only
    const auto w = ScenarioWarnings(ib);
    REQUIRE(w.size() == 2);
    CHECK(w[0].find("[buffer] is set but fabric.kind is \"infiniband\"") != std::string::npos);
    CHECK(w[1].find("[pfc] is set") != std::string::npos);
}

TEST_CASE("scenario warnings: InfiniBand credits over a long haul limit its rate (oracle 21)",
          "[unit][scenario]")
{
    auto spec = tusk::LoadScenarioString(
        "name = \"x\"\n[fabric]\nkind = \"infiniband\"\n[topology]\nkind = \"multi-site\"\n"
        "sites = 2\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\nlong_haul_gbps = 400\n"
        "long_haul_delay_ms = 1\n[workload]\nkind = \"permutation\"\n",
        "ms.toml", {});
    const auto w = tusk::ScenarioWarnings(spec);
    // 128 KiB per 2 ms round trip: 1,048,576 bit / 2e-3 s = 0.524 Gb/s.
    REQUIRE(w.size() == 1);
    CHECK(w[0].find("131072 bytes in flight at most") != std::string::npos);
    CHECK(w[0].find("at most 0.524 Gb/s of its 400") != std::string::npos);
    // A short haul is covered: 128 KiB at 400 Gb/s is 2.62 us, the round trip of 0.2 us x 2.
    spec.topology.multiSite.longHaulDelayPs = 1'000'000; // 1 us
    CHECK(tusk::ScenarioWarnings(spec).empty());
    spec.topology.multiSite.longHaulDelayPs = 1'000'000'000;
    spec.fabric.kind = "ethernet";
    for (const auto& s : tusk::ScenarioWarnings(spec))
    {
        CHECK(s.find("credits") == std::string::npos);
    }
}

TEST_CASE("scenario warnings: plane_link_gbps without planes or dual_tor has no effect",
          "[unit][scenario][planes]")
{
    const std::string head = "name = \"x\"\n[topology]\nkind = \"leaf-spine\"\nleaves = 2\n"
                             "spines = 2\nhosts_per_leaf = 2\nplane_link_gbps = 50\n";
    const std::string tail = "[workload]\nkind = \"permutation\"\n";
    // One plane, one ToR per host: the host links run at host_link_gbps, so the key is named.
    const auto one = ScenarioWarnings(LoadScenarioString(head + tail, "x.toml"));
    REQUIRE(one.size() == 1);
    CHECK(one[0].find("topology.plane_link_gbps = 50 has no effect") != std::string::npos);
    // Where it sets the host ports' rate, nothing to say.
    CHECK(ScenarioWarnings(LoadScenarioString(head + "planes = 2\n" + tail, "x.toml")).empty());
    CHECK(ScenarioWarnings(LoadScenarioString(head + "dual_tor = true\n" + tail, "x.toml")).empty());
}

TEST_CASE("scenario warnings: a SimAI workload's vpp and ga, which the import does not model, "
          "are named with file, line and key",
          "[unit][scenario][simai]")
{
    const tusk_test::ScratchDir dir("warnings");
    const std::string path = dir.Path("simai-ga.txt");
    auto write = [&](const std::string& header) {
        std::ofstream(path) << "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 "
                            << header
                            << " all_gpus: 4 checkpoints: 0 checkpoint_initiates: 0\n1\n"
                               "l -1 1 ALLREDUCE 1024 1 NONE 0 1 NONE 0 1\n";
    };
    ScenarioSpec spec;
    spec.jobs.emplace_back();
    spec.jobs[0].file = path;
    write("pp: 2 vpp: 1 ga: 1");
    CHECK(ScenarioWarnings(spec).empty());
    write("pp: 2 vpp: 1 ga: 24");
    auto w = ScenarioWarnings(spec);
    REQUIRE(w.size() == 1);
    CHECK(w[0].rfind(path + ":1: ga: 24: gradient accumulation is not modelled", 0) == 0);
    write("pp: 1 vpp: 4 ga: 1"); // without a pipeline, virtual stages change nothing
    CHECK(ScenarioWarnings(spec).empty());
    write("pp: 2 vpp: 4 ga: 1");
    w = ScenarioWarnings(spec);
    REQUIRE(w.size() == 1);
    CHECK(w[0].rfind(path + ":1: vpp: 4: virtual pipeline stages are not modelled", 0) == 0);
}

} // namespace TUSK_TEST_FILE
