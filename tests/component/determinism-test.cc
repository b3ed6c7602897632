// Determinism (design.md): the same scenario and seed give byte-identical results files; a
// different seed gives a different ECMP outcome.

#include "run-helpers.h"

#include "results-writer.h"

using namespace tusk_test;

namespace
{

tusk::ScenarioSpec
Permutation(uint64_t seed, const std::string& policy)
{
    auto spec = LeafSpine(4, 4, 4, 100);
    spec.seed = seed;
    spec.lb.policy = policy;
    spec.workload.kind = "permutation";
    spec.workload.bytes = 500'000;
    return spec;
}

} // namespace

TEST_CASE("same scenario and seed twice: byte-identical flows.csv, links.csv, collectives.csv",
          "[component][determinism]")
{
    const std::string policy = GENERATE(std::string("ecmp"), std::string("spray"));
    auto a = Run(Permutation(7, policy));
    auto b = Run(Permutation(7, policy));
    REQUIRE(a.finished);
    CHECK(tusk::FlowsCsv(a) == tusk::FlowsCsv(b));
    CHECK(tusk::LinksCsv(a) == tusk::LinksCsv(b));
    CHECK(tusk::CollectivesCsv(a) == tusk::CollectivesCsv(b));
    CHECK(a.events == b.events);
}

TEST_CASE("a different seed changes the random choices", "[component][determinism]")
{
    auto a = Run(Permutation(1, "ecmp"));
    auto b = Run(Permutation(2, "ecmp"));
    CHECK(tusk::FlowsCsv(a) != tusk::FlowsCsv(b));
}
