// The PathSelector seam alone, no Simulator (docs/architecture.md, host side): the EV pool map every
// selector draws from, the NIC's default FixedPathSelector, the counting and trace sources of
// the non-virtual interface, and the registry of short names. Each policy has its own file,
// <name>-path-selector-test.cc.

#include "lb-policies/policy-registry.h"
#include "rdma/model/path-selector.h"

#include "ns3/callback.h"
#include "ns3/object-factory.h"

#include <catch2/catch.hpp>

#include <set>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

TEST_CASE("fixed path selector: the QP's own entropy on every packet", "[unit][path-selector]")
{
    auto ps = CreateObject<FixedPathSelector>();
    ps->SetBaseEntropy(50123);
    for (int i = 0; i < 100; ++i)
    {
        CHECK(ps->NextEntropy(MicroSeconds(i)) == 50123);
    }
}

TEST_CASE("EV pool: index and entropy are inverse maps over the dynamic port range",
          "[unit][path-selector][uec]")
{
    for (uint16_t base : {0, 49152, 50000, 65535})
    {
        std::set<uint16_t> seen;
        for (uint32_t i = 0; i < 16384; ++i)
        {
            const uint16_t e = PathSelector::PoolEntropyOf(base, i);
            CHECK(e >= 49152);
            seen.insert(e);
            if (PathSelector::PoolIndexOf(base, e) != i)
            {
                FAIL("PoolIndexOf(" << base << ", " << e << ") != " << i);
            }
        }
        CHECK(seen.size() == 16384);
    }
}

TEST_CASE("path selector interface: every choice and feedback is counted and traced",
          "[unit][path-selector]")
{
    auto ps = CreateObject<FixedPathSelector>();
    ps->SetBaseEntropy(50123);
    std::vector<uint16_t> chosen;
    std::vector<std::pair<uint16_t, PathSelector::Feedback>> feedback;
    REQUIRE(ps->TraceConnectWithoutContext(
        "EntropyChosen", Callback<void, uint16_t>([&](uint16_t e) { chosen.push_back(e); })));
    REQUIRE(ps->TraceConnectWithoutContext(
        "Feedback",
        Callback<void, uint16_t, PathSelector::Feedback>(
            [&](uint16_t e, PathSelector::Feedback fb) { feedback.emplace_back(e, fb); })));
    for (int i = 0; i < 5; ++i)
    {
        ps->NextEntropy(MicroSeconds(i));
    }
    ps->OnFeedback(50123, PathSelector::GOOD, Time(0));
    ps->OnFeedback(50123, PathSelector::GOOD, Time(0));
    ps->OnFeedback(50124, PathSelector::ECN, Time(0));
    ps->OnFeedback(50125, PathSelector::TIMEOUT, Time(0));
    CHECK(ps->GetEntropiesChosen() == 5);
    CHECK(chosen == std::vector<uint16_t>(5, 50123));
    CHECK(ps->GetFeedbackCount(PathSelector::GOOD) == 2);
    CHECK(ps->GetFeedbackCount(PathSelector::ECN) == 1);
    CHECK(ps->GetFeedbackCount(PathSelector::NACK) == 0);
    CHECK(ps->GetFeedbackCount(PathSelector::TIMEOUT) == 1);
    REQUIRE(feedback.size() == 4);
    CHECK(feedback[2] == std::make_pair(uint16_t{50124}, PathSelector::ECN));
    // The trace sources declare their callback types (ns-3 TypeId introspection).
    TypeId::TraceSourceInformation info;
    REQUIRE(PathSelector::GetTypeId().LookupTraceSourceByName("Feedback", &info) != nullptr);
    CHECK(info.callback == "ns3::PathSelector::FeedbackTracedCallback");
}

TEST_CASE("path selector registry: every short name builds its selector, lists are sorted",
          "[unit][path-selector][registry]")
{
    const auto& selectors = PathSelectors();
    std::set<std::string> names;
    for (const auto& s : selectors)
    {
        INFO(s.name);
        names.insert(s.name);
        CHECK(ResolvePathSelector(s.name) == s.typeId);
        CHECK(ResolvePathSelector(s.typeId) == s.typeId);
        CHECK_FALSE(s.description.empty());
        ObjectFactory f(s.typeId);
        Ptr<PathSelector> ps = f.Create<PathSelector>();
        REQUIRE(ps);
        ps->SetBaseEntropy(50000);
        CHECK(ps->NextEntropy(Time(0)) >= 49152);
    }
    // The nine selectors of the host seam, each registered from its own file (README.md).
    CHECK(names == std::set<std::string>{"bitmap", "ethereal", "fixed", "mrc", "oblivious-spray",
                                         "path-set-spray", "plb", "random-spray", "reps"});
    CHECK(PathSelectorNameList() ==
          "\"bitmap\", \"ethereal\", \"fixed\", \"mrc\", \"oblivious-spray\", "
          "\"path-set-spray\", \"plb\", \"random-spray\", \"reps\"");
    for (size_t i = 1; i < selectors.size(); ++i)
    {
        CHECK(selectors[i - 1].name < selectors[i].name);
    }
    // A selector's policy preset: ECMP switches and that selector.
    const PolicyInfo* reps = FindPolicy("host-reps");
    REQUIRE(reps != nullptr);
    CHECK(reps->typeId == "ns3::EcmpLoadBalancer");
    CHECK(reps->pathSelector == "ns3::RepsPathSelector");
    CHECK(ResolvePathSelector("ns3::EcmpLoadBalancer").empty());
    CHECK(ResolvePathSelector("nope").empty());
}

} // namespace TUSK_TEST_FILE
