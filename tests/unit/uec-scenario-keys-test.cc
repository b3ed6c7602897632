// The scenario keys of the UEC transport: [nic] transport and [[failures]] (docs/scenario-format.md).

#include "fabric/model/input-error.h"
#include "scenario/scenario-toml.h"

#include <catch2/catch.hpp>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using tusk::LoadScenarioString;

namespace
{

ns3::InputError
LoadError(const std::string& text)
{
    try
    {
        LoadScenarioString(text, "uec.toml");
    }
    catch (const ns3::InputError& e)
    {
        return e;
    }
    FAIL("expected an ns3::InputError");
    throw std::logic_error("unreachable");
}

} // namespace

TEST_CASE("UEC keys: transport and failures, defaults and values", "[unit][scenario][uec]")
{
    const auto d = LoadScenarioString("", "uec.toml");
    CHECK(d.nic.transport == "roce");
    CHECK(d.failures.empty());
    const auto s = LoadScenarioString(R"(
[nic]
transport = "uec-rud"

[[failures]]
at_us = 50
kind = "link_down"
link = "leaf0-spine1"

[[failures]]
at_us = 120.5
kind = "degrade"
link = "spine1-leaf1"
rate_divisor = 2
)",
                                      "uec.toml");
    CHECK(s.nic.transport == "uec-rud");
    REQUIRE(s.failures.size() == 2);
    CHECK(s.failures[0].atPs == 50'000'000);
    CHECK(s.failures[0].kind == "link_down");
    CHECK(s.failures[0].link == "leaf0-spine1");
    CHECK(s.failures[0].line == 5);
    CHECK(s.failures[1].atPs == 120'500'000);
    CHECK(s.failures[1].rateDivisor == 2);
    const auto j = tusk::ScenarioToJson(s);
    CHECK(j["nic"]["transport"] == "uec-rud");
    CHECK(j["failures"][1]["rate_divisor"] == 2);
    CHECK(j["failures"][0]["link"] == "leaf0-spine1");
    CHECK(LoadScenarioString("", "uec.toml", {"nic.transport=uec-rod"}).nic.transport ==
          "uec-rod");
}

TEST_CASE("UEC keys: bad values name file, line and key", "[unit][scenario][uec]")
{
    struct Case
    {
        std::string text;
        std::string key;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {"[nic]\ntransport = \"uet\"", "nic.transport", "\"uec-rud\""},
        {"[nic]\nreceiver = \"go-back-n\"\ntransport = \"uec-rud\"", "nic.transport",
         "nic.receiver cannot be set"},
        {"[nic]\ntransport = \"uec-rud\"\nrto_us = 5", "nic.rto_us", "at least 10 us"},
        {"[[failures]]\nkind = \"link_down\"\nlink = \"a-b\"", "failures[0].at_us", "required"},
        {"[[failures]]\nat_us = 1\nlink = \"a-b\"", "failures[0].kind", "required"},
        {"[[failures]]\nat_us = 1\nkind = \"cut\"\nlink = \"a-b\"", "failures[0].kind",
         "\"degrade\""},
        {"[[failures]]\nat_us = 1\nkind = \"link_down\"", "failures[0].link", "required"},
        {"[[failures]]\nat_us = 1\nkind = \"link_down\"\nlink = \"leaf0\"", "failures[0].link",
         "<from>-<to>"},
        {"[[failures]]\nat_us = 1\nkind = \"degrade\"\nlink = \"a-b\"",
         "failures[0].rate_divisor", "required"},
        {"[[failures]]\nat_us = 1\nkind = \"degrade\"\nlink = \"a-b\"\nrate_divisor = 0",
         "failures[0].rate_divisor", ">= 1"},
        {"[[failures]]\nat_us = 1\nkind = \"link_up\"\nlink = \"a-b\"\nrate_divisor = 2",
         "failures[0].rate_divisor", "valid only when failures[0].kind is \"degrade\""},
        {"[[failures]]\nat_us = -1\nkind = \"link_up\"\nlink = \"a-b\"", "failures[0].at_us",
         ""},
        {"[[failures]]\nat_us = 1\nkind = \"link_up\"\nlink = \"a-b\"\nwhen = 3",
         "failures[0]", "when"},
    };
    for (const auto& c : cases)
    {
        INFO(c.text);
        const auto e = LoadError("\n" + c.text + "\n");
        CHECK(e.File() == "uec.toml");
        CHECK(e.Key().rfind(c.key, 0) == 0);
        CHECK(e.Line() >= 2);
        CHECK(e.Message().find(c.expected) != std::string::npos);
    }
}

} // namespace TUSK_TEST_FILE
