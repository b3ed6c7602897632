// Key paths and override values (tusk/scenario/key-path.h): one reading for `--set`, sweep axes and
// sweep/suite edits. The cases below are those where the two readers used to differ: `--set`
// took `ns3.ns3::X::Y` and spaces around '=' where a sweep refused them, a sweep refused an
// empty quoted key that `--set` let through, neither read 'literal' keys or spaces around dots.

#include "scenario/key-path.h"
#include "scenario/scenario-toml.h"
#include "sweep/sweep-plan.h"

#include "fabric/model/input-error.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using tusk::KeyPath;
using tusk::KeyPathError;
using tusk::ParseKeyPath;
using Keys = std::vector<std::string>;
using Indices = std::vector<long>;

namespace
{

/** The message of ParseKeyPath's error for `text` ("" if it parses). */
std::string
Refusal(const std::string& text)
{
    try
    {
        ParseKeyPath(text);
    }
    catch (const KeyPathError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST_CASE("key paths: bare, quoted, literal, indexed, free-form keys", "[unit][key-path]")
{
    KeyPath p = ParseKeyPath("topology.leaves");
    CHECK(p.keys == Keys{"topology", "leaves"});
    CHECK(p.index == Indices{-1, -1});
    // Both spellings of an element of an array of tables are one path.
    p = ParseKeyPath("failures[1].at_us");
    CHECK(p.keys == Keys{"failures", "at_us"});
    CHECK(p.index == Indices{1, -1});
    CHECK(ParseKeyPath("failures.1.at_us").index == p.index);
    CHECK(ParseKeyPath("failures.1.at_us").keys == p.keys);
    CHECK(p.Text() == "failures[1].at_us");
    // A quoted key of digits is a key, not an index.
    p = ParseKeyPath("a.\"0\"");
    CHECK(p.keys == Keys{"a", "0"});
    CHECK(p.index == Indices{-1, -1});
    // Quoted keys as TOML has them: basic with \" and \\, literal; spaces around dots.
    CHECK(ParseKeyPath(R"(a."b \"c\" \\".d)").keys == Keys{"a", R"(b "c" \)", "d"});
    CHECK(ParseKeyPath("a.'b.c'").keys == Keys{"a", "b.c"});
    CHECK(ParseKeyPath("  lb . policy  ").keys == Keys{"lb", "policy"});
    // After ns3. and lb.attributes. the rest is one key, typed or quoted.
    CHECK(ParseKeyPath("ns3.ns3::RdmaNic::Mtu").keys == Keys{"ns3", "ns3::RdmaNic::Mtu"});
    CHECK(ParseKeyPath("ns3.\"ns3::RdmaNic::Mtu\"").keys == Keys{"ns3", "ns3::RdmaNic::Mtu"});
    CHECK(ParseKeyPath("ns3.'ns3::RdmaNic::Mtu'").keys == Keys{"ns3", "ns3::RdmaNic::Mtu"});
    CHECK(ParseKeyPath("lb.attributes.Flowlet.Gap").keys == Keys{"lb", "attributes", "Flowlet.Gap"});
    CHECK(ParseKeyPath("ns3.ns3::X::Y").Text() == "ns3.ns3::X::Y");
    CHECK(ParseKeyPath("a.'b c'").Text() == "a.\"b c\"");
}

TEST_CASE("key paths: what is refused, and why", "[unit][key-path]")
{
    CHECK(Refusal("") == "empty key path");
    CHECK(Refusal("a..b") == "an empty key");
    CHECK(Refusal("a.") == "the key path ends with '.'");
    CHECK(Refusal("a.\"\"") == "an empty quoted key");
    CHECK(Refusal("a.\"b") == "unterminated quoted key \"b");
    CHECK(Refusal("a.\"b\"c") == "'.' expected after `b`, found 'c'");
    CHECK(Refusal("a.\"b\\n\"") == "a quoted key may escape only \\\" and \\\\");
    CHECK(Refusal("lb.po!icy").find("a key cannot have '!'") == 0);
    CHECK(Refusal("lb.po licy") == "'.' expected after `po`, found 'l'");
    CHECK(Refusal("failures[x].at_us").find("malformed index in `failures[x]`") == 0);
    CHECK(Refusal("failures[1234567].at_us").find("malformed index") == 0);
    CHECK(Refusal("[1].at_us").find("a key cannot have '['") == 0);
    CHECK(Refusal("failures[0][1]") == "'.' expected after `failures`, found '['");
}

TEST_CASE("key paths: --set and a sweep's --set read the same paths and values",
          "[unit][key-path][sweep]")
{
    // The sweep's spelling of a run's --set (CommandLineEdit) takes what `tusk run --set`
    // takes: a free-form ns-3 attribute path, spaces around '=', a literal key.
    tusk::RunEdit e = tusk::CommandLineEdit("ns3.ns3::RdmaNic::Mtu=1024");
    CHECK(e.key == "ns3.ns3::RdmaNic::Mtu");
    CHECK(e.value == "1024");
    e = tusk::CommandLineEdit("lb.policy = spray");
    CHECK(e.key == "lb.policy");
    CHECK(e.value == "\"spray\""); // not " spray"
    CHECK(tusk::SplitKeyPath("ns3.ns3::X::Y") == Keys{"ns3", "ns3::X::Y"});
    CHECK(tusk::SplitKeyPath("failures[1].at_us") == Keys{"failures", "1", "at_us"});
    CHECK(tusk::SplitKeyPath("a.\"\"").empty());
    // `tusk run --set` refuses an empty quoted key with the reason, naming --set.
    try
    {
        tusk::LoadScenarioString(tusk::kDefaultScenarioToml, "s.toml", {"lb.\"\"=1"});
        FAIL("an empty quoted key was taken");
    }
    catch (const ns3::InputError& x)
    {
        CHECK(x.File() == "--set");
        CHECK_THAT(x.Message(), Catch::Contains("an empty quoted key"));
    }
    // A literal key and spaces around a dot reach the same scenario key as the bare path.
    const auto spec = tusk::LoadScenarioString(tusk::kDefaultScenarioToml, "s.toml",
                                               {"'lb' . policy = spray"});
    CHECK(spec.lb.policy == "spray");
}

TEST_CASE("override values: TOML if the text is one value, else the text", "[unit][key-path]")
{
    auto v = [](const std::string& text) { return tusk::ParseOverrideValue(text); };
    CHECK(v("4").get("v")->is_integer());
    CHECK(v(" 2.5 ").get("v")->is_floating_point());
    CHECK(v("[0, 1]").get("v")->is_array());
    CHECK(v("{k = 8}").get("v")->is_table());
    CHECK(v("\"text\"").get("v")->value<std::string>() == "text");
    CHECK(v("spray").get("v")->value<std::string>() == "spray");
    CHECK(v(" 1GiB ").get("v")->value<std::string>() == "1GiB");
    CHECK(v("0-7").get("v")->value<std::string>() == "0-7");
    CHECK(v("1\nw = 2").get("v")->value<std::string>() == "1\nw = 2"); // not one value
}

} // namespace TUSK_TEST_FILE
