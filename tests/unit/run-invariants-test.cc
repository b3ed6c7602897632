// The per-flow conservation invariants of tusk/run/run-invariants.cc on hand-made
// tables (the MMU and link-rate ones are injected into real runs in
// tests/component/metrics-sink-test.cc).

#include "run/run-stages.h"

#include <catch2/catch.hpp>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;

TEST_CASE("run invariants: per-flow packet conservation", "[unit][invariants]")
{
    RunResult r;
    r.conservation.inFlight = 5;
    FlowRow a;
    a.id = 7;
    a.src = 1;
    a.dst = 2;
    a.pktsSent = 10;
    a.pktsReceived = 8;
    a.pktsDropped[0] = 1;
    a.pktsInFlight = 1;
    r.flows.push_back(a);
    const ns3::Fabric none;
    CHECK(InvariantViolations(r, none, "").empty());

    // More received and dropped than sent.
    r.flows[0].pktsInFlight = -2;
    auto v = InvariantViolations(r, none, "");
    REQUIRE(v.size() == 1);
    CHECK(v[0] == "flow 7 (1 -> 2): 12 data frames received and dropped, but only 10 sent");

    // More in flight than the fabric holds.
    r.flows[0].pktsInFlight = 6;
    v = InvariantViolations(r, none, "");
    REQUIRE(v.size() == 1);
    CHECK(v[0] == "the flows have 6 data frames in flight, the fabric holds only 5 frames");

    // Frames the rows count in flight that arrived after the rows were built, and those a
    // replayed row copied from its memo (fast mode: no wire ever held them), are not asked
    // of the fabric; the rest still are.
    r.flows[0].pktsInFlight = 9;
    r.conservation.settledAfterRows = 1;
    r.conservation.replayedInFlight = 3;
    CHECK(InvariantViolations(r, none, "").empty());
    r.flows[0].pktsInFlight = 10;
    v = InvariantViolations(r, none, "");
    REQUIRE(v.size() == 1);
    CHECK(v[0] == "the flows have 6 data frames in flight, the fabric holds only 5 frames");
    r.conservation.settledAfterRows = 0;
    r.conservation.replayedInFlight = 0;

    // The sink's link-rate finding is passed on.
    r.flows[0].pktsInFlight = 1;
    CHECK(InvariantViolations(r, none, "x -> y sent ...") ==
          std::vector<std::string>{"x -> y sent ..."});
}

} // namespace TUSK_TEST_FILE
