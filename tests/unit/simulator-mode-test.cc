/*
 * [simulator] mode: "packet" (the default) or "fast" (docs/fast-mode.md); any other value is
 * an input error naming file, line and key.
 */
#include "fabric/model/input-error.h"
#include "input-error-helpers.h"
#include "scenario/scenario-toml.h"

#include <catch2/catch.hpp>

#include <string>

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

} // namespace TUSK_TEST_FILE
