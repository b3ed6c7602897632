// IntStackRef, FrameMeta's out-of-line INT header (HPCC): absent by default, shared by copies
// until one of them writes (copy on write), so that a switch's record never shows in another
// frame's copy, e.g. the one a trace listener kept.

#include "fabric/model/frame-meta.h"

#include <catch2/catch.hpp>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{
IntHop
Hop(uint64_t timeNs)
{
    uint8_t code = 0;
    REQUIRE(IntHop::RateCode(100'000'000'000ULL, code));
    return IntHop::Make(timeNs, 1000, 2000, code);
}
} // namespace

TEST_CASE("IntStackRef: absent by default, Start gives an empty present header",
          "[unit][int-stack-ref]")
{
    FrameMeta m;
    CHECK_FALSE(m.intStack.IsPresent());
    CHECK(m.intStack.Peek() == nullptr);
    CHECK(m.intStack.Get().nHops == 0);
    m.intStack.Start();
    REQUIRE(m.intStack.IsPresent());
    CHECK(m.intStack.Get().present);
    CHECK(m.intStack.Get().nHops == 0);
    m.intStack.Clear();
    CHECK_FALSE(m.intStack.IsPresent());
}

TEST_CASE("IntStackRef: a copy shares the records until one side pushes (copy on write)",
          "[unit][int-stack-ref]")
{
    FrameMeta a;
    a.intStack.Start();
    a.intStack.Push(Hop(100));
    FrameMeta b = a; // a listener's copy, or an ACK's echo
    REQUIRE(b.intStack.Peek() == a.intStack.Peek()); // shared, not copied
    a.intStack.Push(Hop(200));
    CHECK(a.intStack.Get().nHops == 2);
    CHECK(b.intStack.Get().nHops == 1); // the copy did not see the second hop
    CHECK(b.intStack.Get().hops[0].GetTimeNs() == 100);
    CHECK(a.intStack.Get().hops[1].GetTimeNs() == 200);
    // Two frames started from the shared empty header do not see each other's hops.
    FrameMeta c;
    FrameMeta d;
    c.intStack.Start();
    d.intStack.Start();
    c.intStack.Push(Hop(300));
    CHECK(d.intStack.Get().nHops == 0);
    FrameMeta e;
    e.intStack.Start();
    CHECK(e.intStack.Get().nHops == 0);
}

TEST_CASE("IntStackRef: Set keeps the records and marks the header present",
          "[unit][int-stack-ref]")
{
    IntStack s;
    s.Push(Hop(1));
    s.Push(Hop(2));
    s.present = false; // not read
    FrameMeta m;
    m.intStack.Set(s);
    REQUIRE(m.intStack.IsPresent());
    CHECK(m.intStack.Get().present);
    CHECK(m.intStack.Get().nHops == 2);
    CHECK(m.intStack.Get().hops[1].word == s.hops[1].word);
}

} // namespace TUSK_TEST_FILE
