// [output] flow_rows: "all" (flows.csv and waits.csv written) or "summary" (neither); the
// key's reading, its echo in the manifest's scenario and a bad value's error.

#include "fabric/model/input-error.h"
#include "scenario/scenario-toml.h"

#include <catch2/catch.hpp>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using tusk::LoadScenarioString;

TEST_CASE("output.flow_rows: default all, summary read and echoed only when set",
          "[unit][scenario][flow-rows]")
{
    const auto d = LoadScenarioString("", "rows.toml");
    CHECK(d.output.flowRows == "all");
    // The default is not echoed: manifests of runs without the key stay as they were.
    CHECK_FALSE(tusk::ScenarioToJson(d)["output"].contains("flow_rows"));
    const auto s = LoadScenarioString("[output]\nflow_rows = \"summary\"\n", "rows.toml");
    CHECK(s.output.flowRows == "summary");
    CHECK(tusk::ScenarioToJson(s)["output"]["flow_rows"] == "summary");
    const auto a = LoadScenarioString("[output]\nflow_rows = \"all\"\n", "rows.toml");
    CHECK(a.output.flowRows == "all");
    const auto o = LoadScenarioString("", "rows.toml", {"output.flow_rows=summary"});
    CHECK(o.output.flowRows == "summary");
}

TEST_CASE("output.flow_rows: a bad value names the file, line and key and the values allowed",
          "[unit][scenario][flow-rows]")
{
    for (const std::string value : {"\"none\"", "true", "1", "\"Summary\""})
    {
        INFO(value);
        bool thrown = false;
        try
        {
            LoadScenarioString("name = \"x\"\n\n[output]\nflow_rows = " + value + "\n", "rows.toml");
        }
        catch (const ns3::InputError& e)
        {
            thrown = true;
            CHECK(e.File() == "rows.toml");
            CHECK(e.Line() == 4);
            CHECK(e.Key() == "output.flow_rows");
            CHECK(e.Message().find("\"all\" or \"summary\"") != std::string::npos);
        }
        CHECK(thrown);
    }
}

} // namespace TUSK_TEST_FILE
