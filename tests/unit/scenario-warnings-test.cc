// ScenarioWarnings: valid settings that are probably a mistake are reported, sensible ones not.

#include "runner.h"

#include <catch2/catch.hpp>

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
