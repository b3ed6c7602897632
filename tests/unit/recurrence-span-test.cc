/*
 * Fast mode's recurrence check (IterationMemo RecurrenceSpan, docs/fast-mode.md "A rare
 * iteration with a long period") applies where the state behind such a recurrence lives: a
 * switch policy or host path selector that keeps state between frames. The runner turns it off
 * (span 0) only for a policy registered without state and the fixed selector; the scenario's
 * own [ns3] value always wins.
 */
#include "lb-policies/policy-registry.h"
#include "run/run-stages.h"
#include "scenario/scenario-toml.h"

#include <catch2/catch.hpp>

#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;

namespace
{

/** A receiver that takes packets out of order (the spraying policies refuse go-back-N). */
const std::string kSr = "[nic]\nreceiver = \"selective-repeat\"\n";

/** A small fast-mode scenario with `extra` appended. */
ScenarioSpec
Spec(const std::string& extra)
{
    return LoadScenarioString(R"(name = "span"
[simulator]
mode = "fast"
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
[workload]
kind = "permutation"
bytes = "1MB"
)" + extra, "span.toml");
}

/** The runner's recurrence span for Spec(extra). */
RecurrenceSpanChoice
Choice(const std::string& extra)
{
    const ScenarioSpec s = Spec(extra);
    return ChooseRecurrenceSpan(s, ValidateRun(s));
}

} // namespace

TEST_CASE("recurrence span: 0 for a policy without state and the fixed selector - the default "
          "for a stateful policy or path selector - an explicit ns3 value wins",
          "[unit][fast-mode]")
{
    // ECMP (the default policy) and its stateless relatives: no check.
    for (const char* policy :
         {"ecmp", "eecmp", "qp4-split", "qp4-rr", "pinning", "ns3::EcmpLoadBalancer"})
    {
        INFO(policy);
        const RecurrenceSpanChoice c = Choice(std::string("[lb]\npolicy = \"") + policy + "\"\n");
        REQUIRE(c.span.has_value());
        CHECK(*c.span == 0);
        CHECK(c.why == "stateless_policy");
    }
    CHECK(Choice("").why == "stateless_policy");
    CHECK(Choice("[lb]\npolicy = \"ecmp\"\npath_selector = \"fixed\"\n").why ==
          "stateless_policy");
    // Policies that keep state between frames keep the attribute's default.
    for (const char* policy :
         {"conga", "letflow", "drill", "spray", "rr-spray", "ar", "flowlet-ar", "conweave",
          "source-route", "mrc", "ns3::SourceRouteLoadBalancer", "ns3::CongaLoadBalancer"})
    {
        INFO(policy);
        const RecurrenceSpanChoice c = Choice(std::string("[lb]\npolicy = \"") + policy + "\"\n" + kSr);
        CHECK_FALSE(c.span.has_value());
        CHECK(c.why == "policy_state");
    }
    // ECMP switches under a host path selector that keeps state (a preset or the key).
    const RecurrenceSpanChoice reps =
        Choice("[lb]\npolicy = \"ecmp\"\npath_selector = \"reps\"\n" + kSr);
    CHECK_FALSE(reps.span.has_value());
    CHECK(reps.why == "path_selector_state");
    CHECK(Choice("[lb]\npolicy = \"host-reps\"\n" + kSr).why == "policy_state");
    // The scenario's own value, whatever the policy.
    for (const char* policy : {"ecmp", "conga"})
    {
        INFO(policy);
        const RecurrenceSpanChoice c = Choice(
            std::string("[lb]\npolicy = \"") + policy + "\"\n[ns3]\n\"ns3::IterationMemo::RecurrenceSpan\" = 7\n");
        CHECK_FALSE(c.span.has_value());
        CHECK(c.why == "ns3_setting");
    }
}

TEST_CASE("steady trend span: off for a policy without state and the fixed selector - the "
          "default for a stateful one - each check's own ns3 value wins for that check alone",
          "[unit][fast-mode]")
{
    // (the trend span, the recurrence span) the runner chooses for Spec(extra)
    auto choose = [](const std::string& extra) {
        const ScenarioSpec s = Spec(extra);
        const RunPlan plan = ValidateRun(s);
        return std::make_pair(ChooseSteadyTrendSpan(s, plan), ChooseRecurrenceSpan(s, plan));
    };
    const auto off = choose("").first; // ECMP, the fixed selector
    REQUIRE(off.span.has_value());
    CHECK(*off.span == 0); // at most SteadyIterations: no trend check
    CHECK(off.why == "stateless_policy");
    const auto conga = choose("[lb]\npolicy = \"conga\"\n" + kSr);
    CHECK_FALSE(conga.first.span.has_value());
    CHECK(conga.first.why == "policy_state");
    const auto reps = choose("[lb]\npolicy = \"ecmp\"\npath_selector = \"reps\"\n" + kSr);
    CHECK(reps.first.why == "path_selector_state");
    // The trend span set, the recurrence span not: each check keeps its own choice.
    const auto set = choose("[ns3]\n\"ns3::IterationMemo::SteadyTrendSpan\" = 6\n");
    CHECK_FALSE(set.first.span.has_value());
    CHECK(set.first.why == "ns3_setting");
    REQUIRE(set.second.span.has_value());
    CHECK(*set.second.span == 0);
    CHECK(set.second.why == "stateless_policy");
}

TEST_CASE("policy registry: keepsState is false exactly for the presets that hash or pin - a "
          "raw TypeId keeps state unless every preset on it is stateless",
          "[unit][fast-mode]")
{
    for (const ns3::PolicyInfo& p : ns3::SwitchPolicies())
    {
        INFO(p.name);
        const bool stateless = p.name == "ecmp" || p.name == "eecmp" || p.name == "qp4-split" ||
                               p.name == "qp4-rr" || p.name == "pinning" ||
                               p.name == "ib-static";
        CHECK(p.keepsState == !stateless);
        CHECK(ns3::PolicyKeepsState(p.name) == p.keepsState);
    }
    CHECK_FALSE(ns3::PolicyKeepsState("ns3::EcmpLoadBalancer"));
    CHECK_FALSE(ns3::PolicyKeepsState("ns3::IbStaticLoadBalancer"));
    CHECK(ns3::PolicyKeepsState("ns3::SourceRouteLoadBalancer"));
    CHECK(ns3::PolicyKeepsState("ns3::LeastLoadedLoadBalancer"));
    // A LoadBalancer no preset names (a plug-in registered without a preset): the check stays.
    CHECK(ns3::PolicyKeepsState("ns3::NoSuchLoadBalancer"));
}

} // namespace TUSK_TEST_FILE
