/*
 * [simulator] mode: "packet" (the default) or "fast" (docs/fast-mode.md); any other value is
 * an input error naming file, line and key.
 */
#include "fabric/model/input-error.h"
#include "input-error-helpers.h"
#include "run/runner.h"
#include "scenario/scenario-toml.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

TEST_CASE("simulator.mode: packet by default, fast when asked, anything else an error naming "
          "file, line and key",
          "[unit][scenario][fast-mode]")
{
    CHECK(tusk::LoadScenarioString("", "m.toml", {}).simulator.mode == "packet");
    CHECK(tusk::LoadScenarioString("[simulator]\nmode = \"fast\"\n", "m.toml", {}).simulator.mode ==
          "fast");
    const auto e = tusk_test::ExpectInputError([] {
        tusk::LoadScenarioString("seed = 2\n[simulator]\nmode = \"turbo\"\n", "m.toml", {});
    });
    CHECK(e.File() == "m.toml");
    CHECK(e.Line() == 3);
    CHECK(e.Key() == "simulator.mode");
    CHECK(e.Message().find("\"fast\"") != std::string::npos);
}


TEST_CASE("simulator.steady_window_us: 0 (automatic) or at least 1 µs, and a shorter window, even "
          "one that rounds to 0 ps, is an error naming file, line and key",
          "[unit][scenario][steady]")
{
    auto window = [](const std::string& value) {
        return tusk::LoadScenarioString("[simulator]\nsteady_probe = true\nsteady_window_us = " +
                                            value + "\n",
                                        "w.toml", {})
            .simulator.steadyWindowPs;
    };
    CHECK(window("0") == 0);
    CHECK(window("1") == 1'000'000);
    CHECK(window("12.5") == 12'500'000);
    for (const char* tooShort : {"0.5", "0.000001", "1e-12"})
    {
        INFO(tooShort);
        const auto e = tusk_test::ExpectInputError([&] { window(tooShort); });
        CHECK(e.File() == "w.toml");
        CHECK(e.Line() == 3);
        CHECK(e.Key() == "simulator.steady_window_us");
    }
}


TEST_CASE("the steady-state probe's parameters without the probe: a warning says they change "
          "nothing",
          "[unit][scenario][steady]")
{
    auto warnings = [](const std::string& simulator) {
        return tusk::ScenarioWarnings(
            tusk::LoadScenarioString("[simulator]\n" + simulator, "w.toml", {}));
    };
    auto mentions = [](const std::vector<std::string>& w) {
        return std::count_if(w.begin(), w.end(), [](const std::string& s) {
            return s.find("simulator.steady_probe is false") != std::string::npos;
        });
    };
    CHECK(mentions(warnings("steady_windows = 5\n")) == 1);
    CHECK(mentions(warnings("steady_probe = false\nsteady_tolerance = 0.1\n")) == 1);
    CHECK(mentions(warnings("steady_window_us = 10\n")) == 1);
    CHECK(mentions(warnings("steady_probe = true\nsteady_windows = 5\n")) == 0);
    CHECK(mentions(warnings("mode = \"fast\"\n")) == 0);
}

} // namespace TUSK_TEST_FILE
