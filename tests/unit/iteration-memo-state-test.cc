// Unit tests of the exact rule's state test (IterationMemo::SameStartState, docs/fast-mode.md):
// a memo that created connections may stand for an iteration that starts with them, only when
// they ended the memo in the state they were created in and every other word is equal; an
// iteration that starts with connections created after the memo may use it only when their QPs
// are idle.
#include "workload/model/iteration-memo.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

using Words = std::vector<uint64_t>;
using Cursors = std::vector<uint32_t>;
using Idle = std::vector<uint8_t>;

bool
Same(const Words& c, const Cursors& cc, const Words& n, const Words& created, const Cursors& nc,
     const Words& now, const Cursors& nowc, const Idle& idle = {})
{
    return IterationMemo::SameStartState(c, cc, n, created, nc, now, nowc, idle);
}

} // namespace

TEST_CASE("SameStartState: equal words and cursors at the three instants as before",
          "[unit][fast-mode][iteration-memo]")
{
    const Words w{1, 2, 3, 4};
    const Cursors k{0, 1};
    CHECK(Same(w, k, w, {}, k, w, k));
    CHECK(Same(w, k, w, w, k, w, k));
    // Not a fixed point, or now elsewhere: refused.
    CHECK_FALSE(Same(w, k, {1, 2, 3, 5}, {}, k, {1, 2, 3, 5}, k));
    CHECK_FALSE(Same(w, k, w, {}, k, {1, 2, 3, 5}, k));
    CHECK_FALSE(Same(w, k, w, {}, {0, 0}, w, {0, 0}));
    CHECK_FALSE(Same(w, k, w, {}, k, w, {0, 0}));
}

TEST_CASE("SameStartState: connections created in the memo count as present in their creation "
          "state and only then",
          "[unit][fast-mode][iteration-memo]")
{
    // The memo started with one QP (words 1..4) and one connection; it created a second QP
    // (words 5..8 at its end) and connection (cursor 0).
    const Words c{1, 2, 3, 4};
    const Cursors cc{1};
    const Words n{1, 2, 3, 4, 5, 6, 7, 8};
    const Cursors nc{1, 0};
    const Words created{9, 9, 9, 9, 5, 6, 7, 8}; // the first QP's creation is long past
    CHECK(Same(c, cc, n, created, nc, n, nc));
    // A new QP that did not end the memo as it was created (its rate moved): refused.
    CHECK_FALSE(Same(c, cc, n, {9, 9, 9, 9, 5, 6, 7, 0}, nc, n, nc));
    // Creation state unknown: refused.
    CHECK_FALSE(Same(c, cc, n, {}, nc, n, nc));
    // A new connection whose round-robin cursor moved (not where a new one starts): refused.
    CHECK_FALSE(Same(c, cc, n, created, {1, 1}, n, {1, 1}));
    // The QPs there at the memo's start changed in it: refused.
    CHECK_FALSE(Same({1, 2, 3, 0}, cc, n, created, nc, n, nc));
    CHECK_FALSE(Same(c, {0}, n, created, nc, n, nc));
    // Now is not where the memo ended (e.g. now lacks the new QP): refused.
    CHECK_FALSE(Same(c, cc, n, created, nc, c, cc));
    CHECK_FALSE(Same(c, cc, n, created, nc, {1, 2, 3, 4, 5, 6, 7, 9}, nc));
    // More words at the memo's start than at its end: refused.
    CHECK_FALSE(Same(n, nc, c, {1, 2, 3, 4}, cc, c, cc));
}

TEST_CASE("SameStartState: connections created after the memo count as absent when idle and "
          "only then",
          "[unit][fast-mode][iteration-memo]")
{
    // The memo started and ended with one QP (words 1..4) and one connection (cursor 1); now
    // there is a second QP (words 5..8), created since, and its connection (cursor 2).
    const Words w{1, 2, 3, 4};
    const Cursors k{1};
    const Words now{1, 2, 3, 4, 5, 6, 7, 8};
    const Cursors nowc{1, 2};
    const Idle idle{0, 0, 0, 0, 1, 1, 1, 1}; // the memo's QP need not be idle (it is not asked)
    CHECK(Same(w, k, w, {}, k, now, nowc, idle));
    // The extra QP is not idle (data queued, something unacknowledged, listed to send, owed
    // credit: RdmaNic::IsQpIdle): refused.
    CHECK_FALSE(Same(w, k, w, {}, k, now, nowc, {0, 0, 0, 0, 0, 0, 0, 0}));
    // Idleness unknown: refused.
    CHECK_FALSE(Same(w, k, w, {}, k, now, nowc, {}));
    CHECK_FALSE(Same(w, k, w, {}, k, now, nowc, {1, 1, 1, 1}));
    // The memo's QPs and connections are not a prefix of now's, equal there: refused.
    CHECK_FALSE(Same(w, k, w, {}, k, {1, 2, 3, 0, 5, 6, 7, 8}, nowc, idle));
    CHECK_FALSE(Same(w, k, w, {}, k, {5, 6, 7, 8, 1, 2, 3, 4}, nowc, idle));
    CHECK_FALSE(Same(w, k, w, {}, k, now, {2, 1}, idle));
    CHECK_FALSE(Same(w, k, w, {}, k, now, {0, 2}, idle));
    // The memo was no fixed point: refused, extra QPs or not.
    CHECK_FALSE(Same({1, 2, 3, 0}, k, w, {}, k, now, nowc, idle));
    CHECK_FALSE(Same(w, {0}, w, {}, k, now, nowc, idle));
    // Now has fewer connections than the memo's end: refused.
    CHECK_FALSE(Same(w, {1, 0}, w, {}, {1, 0}, w, k, {0, 0, 0, 0}));
}

TEST_CASE("SameStartState: a memo that created connections stands for an iteration with more "
          "idle ones",
          "[unit][fast-mode][iteration-memo]")
{
    // DiLoCo's first inner step after an outer sync: the memo (the job's first iteration)
    // created the intra-site connection (words 5..8), the sync created a cross-site one
    // (words 9..12), idle now.
    const Words c{1, 2, 3, 4};
    const Cursors cc{1};
    const Words n{1, 2, 3, 4, 5, 6, 7, 8};
    const Cursors nc{1, 0};
    const Words created{9, 9, 9, 9, 5, 6, 7, 8};
    const Words now{1, 2, 3, 4, 5, 6, 7, 8, 7, 7, 7, 7};
    const Cursors nowc{1, 0, 3};
    const Idle idle{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    CHECK(Same(c, cc, n, created, nc, now, nowc, idle));
    // Each condition of the two broken alone: refused.
    CHECK_FALSE(Same(c, cc, n, {9, 9, 9, 9, 5, 6, 7, 0}, nc, now, nowc, idle));
    CHECK_FALSE(Same(c, cc, n, created, {1, 1}, now, {1, 1, 3}, idle));
    CHECK_FALSE(Same(c, cc, n, created, nc, now, nowc, {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0}));
    CHECK_FALSE(Same(c, cc, n, created, nc, {1, 2, 3, 4, 5, 6, 7, 9, 7, 7, 7, 7}, nowc, idle));
}

} // namespace TUSK_TEST_FILE
