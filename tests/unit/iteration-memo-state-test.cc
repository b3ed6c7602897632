// Unit tests of the exact rule's state test (IterationMemo::SameStartState, docs/fast-mode.md):
// a memo that created connections may stand for an iteration that starts with them, only when
// they ended the memo in the state they were created in and every other word is equal.
#include "workload/model/iteration-memo.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

using namespace ns3;

namespace
{

using Words = std::vector<uint64_t>;
using Cursors = std::vector<uint32_t>;

bool
Same(const Words& c, const Cursors& cc, const Words& n, const Words& created, const Cursors& nc,
     const Words& now, const Cursors& nowc)
{
    return IterationMemo::SameStartState(c, cc, n, created, nc, now, nowc);
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
