/*
 * The congestion-control sections of a scenario ([hpcc], [timely], [swift], [dctcp], [nscc],
 * [rccc]) and the nic keys that select them: values in their units, errors naming file, line
 * and key, the echo of the section in use, the warning for a section that changes nothing.
 */
#include "fabric/model/input-error.h"
#include "input-error-helpers.h"
#include "run/runner.h"
#include "scenario/scenario-toml.h"

#include <catch2/catch.hpp>

#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace
{

using tusk::LoadScenarioString;
using tusk_test::ExpectInputError;

const std::string kName = "cc.toml";

ns3::InputError
LoadError(const std::string& text)
{
    return ExpectInputError([&] { LoadScenarioString(text, kName, {}); });
}

bool
Contains(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("CC sections: keys read in their units, nic selects the control, window and credits",
          "[unit][scenario][cc]")
{
    const auto spec = LoadScenarioString(R"([nic]
congestion_control = "hpcc"
sender_window = "variable"
receiver_credit = true
[hpcc]
target_utilisation = 0.9
max_stage = 0
fast_react = false
rate_ai_mbps = 40
[rccc]
grant_bytes = "8KiB"
[timely]
t_low_us = 25
)",
                                         kName, {});
    CHECK(spec.nic.congestionControl == "hpcc");
    CHECK(spec.nic.senderWindow == "variable");
    CHECK(spec.nic.receiverCredit);
    CHECK(spec.ccSettings.at("hpcc.target_utilisation") == Approx(0.9));
    CHECK(spec.ccSettings.at("hpcc.max_stage") == 0);
    CHECK(spec.ccSettings.at("hpcc.fast_react") == 0);
    CHECK(spec.ccSettings.at("hpcc.rate_ai_mbps") == 40);
    CHECK(spec.ccSettings.at("rccc.grant_bytes") == 8192);
    CHECK(spec.ccSettings.at("timely.t_low_us") == 25);
    CHECK(spec.ccSettings.count("hpcc.wai_bytes") == 0); // not given: the attribute's default

    // The echo: the section in use with every key as used (given or the attribute's initial
    // value), [rccc] in use with receiver credits, a section not in use with its given keys.
    const auto j = tusk::ScenarioToJson(spec);
    CHECK(j["hpcc"]["target_utilisation"] == 0.9);
    CHECK(j["hpcc"]["fast_react"] == false);
    CHECK(j["hpcc"]["wai_bytes"] == 80);     // HpccCongestionControl::AdditiveIncreaseBytes
    CHECK(j["hpcc"]["min_rate_mbps"] == 100); // HpccCongestionControl::MinRate, 100 Mb/s
    CHECK(j["rccc"]["grant_bytes"] == 8192);
    CHECK(j["rccc"]["window_bytes"] == 0);
    CHECK(j["timely"].size() == 1);
    CHECK(j["timely"]["t_low_us"] == 25);
    CHECK_FALSE(j.contains("swift"));

    // [timely] changes nothing under HPCC: a warning says so; [hpcc] and [rccc] do not get one.
    const auto w = tusk::ScenarioWarnings(spec);
    REQUIRE(w.size() == 1);
    CHECK(Contains(w[0], "[timely] is set but nic.congestion_control is \"hpcc\""));
}

TEST_CASE("CC sections: a value out of range or an unknown key names file, line and key",
          "[unit][scenario][cc]")
{
    auto e = LoadError("[nic]\ncongestion_control = \"hpcc\"\n[hpcc]\ntarget_utilisation = 1.5\n");
    CHECK(e.File() == kName);
    CHECK(e.Line() == 4);
    CHECK(e.Key() == "hpcc.target_utilisation");

    e = LoadError("[swift]\nbeta = -0.1\n");
    CHECK(e.Line() == 2);
    CHECK(e.Key() == "swift.beta");

    e = LoadError("[dctcp]\ngain = 0.1\n"); // the key is `g`
    CHECK(e.Line() == 2);
    CHECK(Contains(e.Key(), "dctcp"));
    CHECK(Contains(e.Message(), "g"));

    e = LoadError("[nic]\nsender_window = \"bdp\"\n");
    CHECK(e.Key() == "nic.sender_window");
    CHECK(Contains(e.Message(), "\"variable\""));

    e = LoadError("[nic]\ncongestion_control = \"cubic\"\n");
    CHECK(e.Key() == "nic.congestion_control");
    CHECK(Contains(e.Message(), "\"timely\""));

    e = LoadError("[nscc]\nquick_adapt_gate = 31\n");
    CHECK(e.Key() == "nscc.quick_adapt_gate");
}

TEST_CASE("CC sections: --set reaches them like any key", "[unit][scenario][cc]")
{
    const auto spec = LoadScenarioString("[nic]\ncongestion_control = \"swift\"\n", kName,
                                         {"swift.base_target_us=4.5", "nic.sender_window=\"fixed\""});
    CHECK(spec.ccSettings.at("swift.base_target_us") == Approx(4.5));
    CHECK(spec.nic.senderWindow == "fixed");
    CHECK(spec.LineOf("swift.base_target_us") == 0); // from the command line
}

} // namespace TUSK_TEST_FILE
