// The rule of steady-state jumps (tusk/run/steady-jumper.h) as pure logic: when a jump is
// proposed, how long, and how the bound grows while the windows after each jump agree with
// the windows before it and falls back when they do not (docs/fast-mode.md, "The jump").

#include "run/steady-jumper.h"

#include "steady-params.h"

#include <catch2/catch.hpp>

#include <optional>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using tusk::SteadyJumper;
using tusk::SteadyParams;
using tusk::SteadyWindow;

namespace
{

constexpr uint64_t kW = tusk_test::kSteadyWindowPs; // 10 µs
constexpr uint64_t kSpan = 3 * kW;                  // K = 3 windows

/** A window ending at `endPs` in which transfer 7 delivered `bytes` and has `remaining`. */
SteadyWindow
Window(uint64_t endPs, uint64_t bytes, uint64_t remaining = 1'000'000'000'000)
{
    SteadyWindow w;
    w.endPs = endPs;
    w.flows.push_back({7, bytes, remaining});
    w.queues.push_back(0);
    return w;
}

/** Feeds windows of `bytes` each, keeping the run's time across the jumps it makes. */
struct Driver
{
    SteadyJumper jumper;
    uint64_t nowPs = 0;

    explicit Driver(uint32_t maxSpans)
        : jumper([maxSpans] {
              SteadyParams p = tusk_test::SteadyTestParams();
              p.maxJumpSpans = maxSpans;
              return p;
          }())
    {
    }

    /** The windows before the first jump can be proposed: the transfer's first (partial)
     *  window and 4K - 1 whole ones (a history of 4K whole windows, with the next). */
    void Warm(uint64_t bytes)
    {
        for (int i = 0; i < 12; ++i)
        {
            REQUIRE_FALSE(Next(bytes));
        }
    }

    /** One window; a proposed jump is made whole (its span added to the run's time). */
    std::optional<SteadyJumper::Jump> Next(uint64_t bytes, uint64_t capPs = UINT64_MAX)
    {
        nowPs += kW;
        // 100 MB left throughout: a horizon of about 1 ms, past every jump here.
        auto j = jumper.Add(Window(nowPs, bytes, 100'000'000), capPs);
        if (j)
        {
            jumper.Made(*j, j->spanPs, 0, 0);
            nowPs += j->spanPs;
        }
        return j;
    }
};

} // namespace

TEST_CASE("a jump after K steady windows is one span long, and the bound doubles while the "
          "windows after each jump agree with those before",
          "[unit][steady-jump]")
{
    Driver d(4);
    d.Warm(1'000'000); // steady from the third window; a history of 4K windows first
    CHECK(d.jumper.Stats().refused.at("history") == 10);
    const auto first = d.Next(1'000'000);
    REQUIRE(first);
    CHECK(first->spanPs == kSpan);
    REQUIRE(first->rates.size() == 1);
    CHECK(first->rates[0].first == 7);
    CHECK(first->rates[0].second == Approx(1e6 / kW)); // bytes per ps
    // K windows after the jump, then a jump of twice the bound, and so on up to 4 spans.
    CHECK_FALSE(d.Next(1'000'000));
    CHECK_FALSE(d.Next(1'000'000));
    const auto second = d.Next(1'000'000);
    REQUIRE(second);
    CHECK(second->spanPs == 2 * kSpan);
    d.Next(1'000'000);
    d.Next(1'000'000);
    const auto third = d.Next(1'000'000);
    REQUIRE(third);
    CHECK(third->spanPs == 4 * kSpan);
    d.Next(1'000'000);
    d.Next(1'000'000);
    const auto fourth = d.Next(1'000'000);
    REQUIRE(fourth);
    CHECK(fourth->spanPs == 4 * kSpan); // the most
    const auto& s = d.jumper.Stats();
    CHECK(s.jumps == 4);
    CHECK(s.rechecks == 3);
    CHECK(s.rechecksOff == 0);
    CHECK(s.recheckErrorMax == 0);
    CHECK(s.skippedPs == 11 * kSpan);
}

TEST_CASE("a rate that differs after a jump beyond the tolerance sends the bound back to one "
          "span, and a difference within it does not",
          "[unit][steady-jump]")
{
    Driver d(1024);
    d.Warm(1'000'000);
    REQUIRE(d.Next(1'000'000)); // jump 1: one span
    d.Next(1'002'000);          // +0.2 %: within the 2 % tolerance
    d.Next(1'002'000);
    const auto second = d.Next(1'002'000);
    REQUIRE(second);
    CHECK(second->spanPs == 2 * kSpan);
    // After the second jump the transfer runs 5 % slower: steady again, but not the rate the
    // jump assumed; the re-check sends the bound back to one span, and the new rate must
    // build a history of its own (4K windows of the new steady stretch) before a jump.
    d.Next(950'000);
    d.Next(950'000);
    CHECK_FALSE(d.Next(950'000));
    CHECK(d.jumper.BoundSpans() == 1);
    std::optional<SteadyJumper::Jump> third;
    for (int i = 0; i < 20 && !third; ++i)
    {
        third = d.Next(950'000);
    }
    REQUIRE(third);
    CHECK(third->spanPs == kSpan);
    CHECK(third->rates[0].second == Approx(950'000.0 / kW));
    const auto& s = d.jumper.Stats();
    CHECK(s.rechecks == 2);
    CHECK(s.rechecksOff == 1);
    // The rate the second jump assumed is its history's mean, between 1,000,000 and
    // 1,002,000 bytes a window: 950,000 is 5.0 to 5.2 % below it.
    CHECK(s.recheckErrorMax > 1.0 - 950'000.0 / 1'000'000.0);
    CHECK(s.recheckErrorMax < 1.0 - 950'000.0 / 1'002'000.0);
    CHECK(d.jumper.BoundSpans() == 1);
}

TEST_CASE("a jump ends at the next time the scenario gave, and one shorter than a window is "
          "refused",
          "[unit][steady-jump]")
{
    Driver d(1024);
    d.Warm(1'000'000);
    // The next timed start 12 µs after the window's end: a 12 µs jump.
    const auto capped = d.Next(1'000'000, 13 * kW + 12'000'000);
    REQUIRE(capped);
    CHECK(capped->spanPs == 12'000'000);

    Driver e(1024);
    e.Warm(1'000'000);
    CHECK_FALSE(e.Next(1'000'000, 13 * kW + 5'000'000)); // 5 µs: shorter than W
    CHECK(e.jumper.Stats().refused.at("short") == 1);
    CHECK(e.jumper.Stats().jumps == 0);
}

TEST_CASE("a jump stops K windows before the first transfer would end", "[unit][steady-jump]")
{
    // 1 MB per 10 µs window; after the 13th window `left` MB are left.
    auto firstJump = [](uint64_t left) {
        SteadyJumper j(tusk_test::SteadyTestParams());
        std::optional<SteadyJumper::Jump> jump;
        for (uint64_t i = 1; i <= 13; ++i)
        {
            jump = j.Add(Window(i * kW, 1'000'000, (left + 13 - i) * 1'000'000), UINT64_MAX);
            if (i < 13)
            {
                REQUIRE_FALSE(jump);
            }
        }
        return jump;
    };
    // 9 MB left: it would end 90 µs later, so the horizon is 60 µs, and the first jump's bound
    // (one span, 30 µs) is shorter.
    const auto far = firstJump(9);
    REQUIRE(far);
    CHECK(far->spanPs == kSpan);
    // 4 MB left (40 µs): the horizon is 10 µs, one window.
    const auto near = firstJump(4);
    REQUIRE(near);
    CHECK(near->spanPs == 10'000'000);
    // 3 MB left (30 µs): no horizon.
    CHECK_FALSE(firstJump(3));
}

TEST_CASE("a rate that climbs slowly passes the K-window test, but the trend test bounds what "
          "its jumps skip",
          "[unit][steady-jump]")
{
    // Windows of a transfer growing by `growth` a window (ignoring the jumps, as a congestion
    // control frozen by them would not); jumps made whole. The windows skipped in all.
    auto skipped = [](double growth) {
        SteadyParams p = tusk_test::SteadyTestParams();
        p.maxJumpSpans = 1024;
        SteadyJumper j(p);
        uint64_t left = 10'000'000'000;
        uint64_t now = 0;
        uint64_t skippedPs = 0;
        double bytes = 1'000'000;
        for (int i = 1; i <= 60; ++i)
        {
            now += kW;
            const auto b = static_cast<uint64_t>(bytes);
            left -= b;
            if (const auto jump = j.Add(Window(now, b, left), UINT64_MAX))
            {
                j.Made(*jump, jump->spanPs, 0, 0);
                now += jump->spanPs;
                skippedPs += jump->spanPs;
            }
            bytes *= growth;
        }
        return static_cast<double>(skippedPs) / static_cast<double>(kW);
    };
    // +0.3 % a window (a DCQCN sender's additive increase): any K = 3 windows agree within the
    // 2 % tolerance, but at that slope the jumps of one stretch may skip 0.02 / 0.003 = 6.7
    // windows in all (the 95 % bound on the slope only adds to it).
    const double climbing = skipped(1.003);
    CHECK(climbing > 0);
    CHECK(climbing <= 0.02 / 0.003);
    // A constant rate: no slope, no limit but the bound's doubling.
    CHECK(skipped(1.0) > 100);
}

} // namespace TUSK_TEST_FILE
