// The steady-state probe's judgement (tusk/run/steady-judge.h) as pure logic: when the fabric
// counts as steady over the last K windows, why not, and the ledger of the fast-forwards a
// steady stretch would allow (docs/fast-mode.md, "Steady-state fast-forward within an
// iteration").

#include "run/steady-judge.h"

#include "steady-params.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using tusk::SteadyJudge;
using tusk::SteadyLedger;
using tusk::SteadyParams;
using tusk::SteadyReason;
using tusk::SteadyWindow;

namespace
{

constexpr uint64_t kWindowPs = tusk_test::kSteadyWindowPs;

SteadyParams
Params()
{
    return tusk_test::SteadyTestParams();
}

/** Window i of one transfer (id 7) delivering `bytes` in it, `remaining` left after it, one
 *  queue of `queue` bytes and one QP at `rate` bit/s. */
SteadyWindow
Window(uint64_t i, uint64_t bytes, uint64_t remaining, uint64_t queue = 0, double rate = 1e11)
{
    SteadyWindow w;
    w.endPs = (i + 1) * kWindowPs;
    w.flows.push_back({7, bytes, remaining});
    w.queues.push_back(queue);
    w.cc.push_back({0, {rate, std::nan(""), std::nan(""), std::nan("")}});
    return w;
}

/** Feed windows 0..n-1 made by `make` and return the last verdict. */
SteadyReason
Feed(SteadyJudge& judge, uint64_t n, const std::function<SteadyWindow(uint64_t)>& make)
{
    SteadyReason r = SteadyReason::COUNT;
    for (uint64_t i = 0; i < n; ++i)
    {
        r = judge.Add(make(i), UINT64_MAX);
    }
    return r;
}

} // namespace

TEST_CASE("a transfer at a constant rate is steady once K windows agree", "[unit][steady]")
{
    SteadyJudge judge(Params());
    const uint64_t perWindow = 125'000; // 100 Gb/s over 10 µs
    std::vector<SteadyReason> verdicts;
    for (uint64_t i = 0; i < 6; ++i)
    {
        verdicts.push_back(
            judge.Add(Window(i, perWindow, (100 - i) * perWindow), UINT64_MAX));
    }
    CHECK(verdicts[0] == SteadyReason::WARMING);
    CHECK(verdicts[1] == SteadyReason::WARMING);
    CHECK(verdicts[2] == SteadyReason::STEADY);
    CHECK(verdicts[5] == SteadyReason::STEADY);
    CHECK(judge.Stats().steady == 4);
    CHECK(judge.Stats().notSteady.at("warming") == 2);
}

TEST_CASE("a rate varying within one MTU of payload or the tolerance is steady, beyond is not",
          "[unit][steady]")
{
    // One packet more or less per window: a window's edge cuts at a packet.
    SteadyJudge small(Params());
    CHECK(Feed(small, 4, [](uint64_t i) { return Window(i, 40'960 + (i % 2) * 4096, 1 << 30); }) ==
          SteadyReason::STEADY);
    // 1 % of a large rate: within 2 %.
    SteadyJudge within(Params());
    CHECK(Feed(within, 4, [](uint64_t i) {
              return Window(i, 10'000'000 + (i % 2) * 100'000, 1ULL << 40);
          }) == SteadyReason::STEADY);
}

TEST_CASE("a ramp is not steady: its rate varies", "[unit][steady]")
{
    SteadyJudge judge(Params());
    // +5 % a window: the three last windows span 10 %.
    CHECK(Feed(judge, 6, [](uint64_t i) {
              return Window(i, static_cast<uint64_t>(10'000'000 * std::pow(1.05, i)), 1ULL << 40);
          }) == SteadyReason::RATE);
    CHECK(judge.Stats().steady == 0);
    CHECK(judge.Stats().notSteady.at("rate_varies") == 4);
}

TEST_CASE("a 5 % oscillation is beyond a 2 % tolerance and within a 6 % one", "[unit][steady]")
{
    auto oscillating = [](uint64_t i) {
        return Window(i, i % 2 == 0 ? 10'000'000 : 10'500'000, 1ULL << 40);
    };
    SteadyJudge strict(Params());
    CHECK(Feed(strict, 8, oscillating) == SteadyReason::RATE);
    CHECK(strict.Stats().steady == 0);
    SteadyParams loose = Params();
    loose.tolerance = 0.06;
    SteadyJudge lenient(loose);
    CHECK(Feed(lenient, 8, oscillating) == SteadyReason::STEADY);
}

TEST_CASE("a queue or a congestion-control word that oscillates beyond the tolerance is not "
          "steady",
          "[unit][steady]")
{
    SteadyJudge queue(Params());
    CHECK(Feed(queue, 5, [](uint64_t i) {
              return Window(i, 1'000'000, 1ULL << 40, i % 2 == 0 ? 100'000 : 110'000);
          }) == SteadyReason::QUEUE);
    // Two frames of queue more or less are noise.
    SteadyJudge floor(Params());
    CHECK(Feed(floor, 5, [](uint64_t i) {
              return Window(i, 1'000'000, 1ULL << 40, i % 2 == 0 ? 0 : 8000);
          }) == SteadyReason::STEADY);
    SteadyJudge cc(Params());
    CHECK(Feed(cc, 5, [](uint64_t i) {
              return Window(i, 1'000'000, 1ULL << 40, 0, i % 2 == 0 ? 50e9 : 45e9);
          }) == SteadyReason::CC_STATE);
}

TEST_CASE("a flow end, a flow start, a PFC frame, a drop or a failure breaks K windows",
          "[unit][steady]")
{
    struct Case
    {
        const char* name;
        SteadyReason reason;
        std::function<void(SteadyWindow&)> mark;
    };
    const std::vector<Case> cases = {
        {"flow_end", SteadyReason::FLOW_END, [](SteadyWindow& w) { w.flowEnds = 1; }},
        {"flow_start", SteadyReason::FLOW_START, [](SteadyWindow& w) { w.flowStarts = 1; }},
        {"pfc", SteadyReason::PFC, [](SteadyWindow& w) { w.pfcFrames = 2; }},
        {"drop", SteadyReason::DROP, [](SteadyWindow& w) { w.drops = 1; }},
        {"failure", SteadyReason::FAILURE, [](SteadyWindow& w) { w.failure = true; }},
    };
    for (const auto& c : cases)
    {
        SECTION(c.name)
        {
            SteadyJudge judge(Params());
            std::vector<SteadyReason> verdicts;
            for (uint64_t i = 0; i < 10; ++i)
            {
                SteadyWindow w = Window(i, 1'000'000, 1ULL << 40);
                if (i == 5)
                {
                    c.mark(w);
                }
                verdicts.push_back(judge.Add(std::move(w), UINT64_MAX));
            }
            CHECK(verdicts[4] == SteadyReason::STEADY);
            // The event's window and the K - 1 after it hold it among their last K.
            CHECK(verdicts[5] == c.reason);
            CHECK(verdicts[6] == c.reason);
            CHECK(verdicts[7] == c.reason);
            CHECK(verdicts[8] == SteadyReason::STEADY);
            CHECK(judge.Stats().notSteady.at(tusk::SteadyReasonName(c.reason)) == 3);
        }
    }
}

TEST_CASE("CE marks in some of the K windows and not in others change the regime",
          "[unit][steady]")
{
    SteadyJudge judge(Params());
    CHECK(Feed(judge, 6, [](uint64_t i) {
              SteadyWindow w = Window(i, 1'000'000, 1ULL << 40);
              w.ecnMarks = i == 4 ? 3 : 0;
              return w;
          }) == SteadyReason::ECN_REGIME);
    // Marks in every window: a regime of its own, steady.
    SteadyJudge marking(Params());
    CHECK(Feed(marking, 6, [](uint64_t i) {
              SteadyWindow w = Window(i, 1'000'000, 1ULL << 40);
              w.ecnMarks = 5 + i;
              return w;
          }) == SteadyReason::STEADY);
}

TEST_CASE("no active transfer is idle, active transfers delivering nothing are stalled",
          "[unit][steady]")
{
    SteadyJudge idle(Params());
    CHECK(Feed(idle, 4, [](uint64_t i) {
              SteadyWindow w;
              w.endPs = (i + 1) * kWindowPs;
              return w;
          }) == SteadyReason::IDLE);
    SteadyJudge stalled(Params());
    CHECK(Feed(stalled, 4, [](uint64_t i) { return Window(i, 0, 1'000'000); }) ==
          SteadyReason::STALLED);
}

TEST_CASE("the horizon: the first transfer's end at its rate less K windows, capped, and after a "
          "jump the stretch restarts",
          "[unit][steady]")
{
    const SteadyParams p = Params();
    const uint64_t perWindow = 1'000'000;
    // 100 windows' worth left after window 2: the first jump skips 100 - K windows.
    const uint64_t total = 103 * perWindow;
    auto make = [&](uint64_t i) {
        return Window(i, perWindow, total - (i + 1) * perWindow);
    };
    SteadyJudge judge(p);
    for (uint64_t i = 0; i < 3; ++i)
    {
        judge.Add(make(i), UINT64_MAX);
    }
    REQUIRE(judge.Stats().jumps == 1);
    CHECK(judge.Stats().skippablePs == (100 - p.windows) * kWindowPs);
    CHECK(judge.Stats().skippableBytes == (100 - p.windows) * perWindow);
    // Windows inside the jump and the K after its end jump no more; then the stretch is
    // steady again, but the transfer ends within the margin: no second jump.
    for (uint64_t i = 3; i < 102; ++i)
    {
        judge.Add(make(i), UINT64_MAX);
    }
    CHECK(judge.Stats().jumps == 1);
    CHECK(judge.Stats().steady == 100);

    // A known arrival caps the horizon, and after the capped jump the stretch restarts K
    // windows later.
    SteadyJudge capped(p);
    for (uint64_t i = 0; i < 3; ++i)
    {
        capped.Add(make(i), 3 * kWindowPs + 20 * kWindowPs);
    }
    CHECK(capped.Stats().skippablePs == 20 * kWindowPs);
    for (uint64_t i = 3; i < 3 + 20 + 2; ++i)
    {
        capped.Add(make(i), UINT64_MAX);
    }
    CHECK(capped.Stats().jumps == 1); // windows 23 and 24 are the new stretch's first two
    capped.Add(make(25), UINT64_MAX);
    CHECK(capped.Stats().jumps == 2);
    CHECK(capped.Stats().skippablePs == 20 * kWindowPs + (77 - p.windows) * kWindowPs);
}


TEST_CASE("a jump's credit is measured at the first window after it: exact at a constant "
          "rate, off by the ramp under a slow ramp",
          "[unit][steady]")
{
    // A jump capped at 50 windows (a known arrival), measured at the window ending at its end.
    const uint64_t capPs = 3 * kWindowPs + 50 * kWindowPs;
    auto run = [&](double growth) {
        SteadyJudge judge(Params());
        uint64_t delivered = 0;
        for (uint64_t i = 0; i < 3 + 50; ++i)
        {
            const auto bytes = static_cast<uint64_t>(1'000'000 * std::pow(growth, i));
            delivered += bytes;
            judge.Add(Window(i, bytes, (1ULL << 40) - delivered), capPs);
        }
        return judge.Stats();
    };
    const SteadyLedger flat = run(1.0);
    REQUIRE(flat.jumps == 1);
    REQUIRE(flat.jumpsMeasured == 1);
    CHECK(flat.bytesCredited == Approx(50 * 1'000'000.0).epsilon(1e-12));
    CHECK(flat.bytesDelivered == 50 * 1'000'000.0);
    CHECK(flat.bytesErrorMaxRel < 1e-12);
    CHECK(flat.jumpsOff == 0);
    // 0.5 % a window: 1 % across K = 3 windows passes the 2 % tolerance, but over the 50
    // windows of the jump the rate grows by 28 %: the credit (at the K windows' mean rate)
    // falls short of the delivered bytes by about 12 %.
    const SteadyLedger ramp = run(1.005);
    REQUIRE(ramp.jumps == 1);
    REQUIRE(ramp.jumpsMeasured == 1);
    double expected = 0;
    for (uint64_t i = 3; i < 53; ++i)
    {
        expected += 1'000'000 * std::pow(1.005, i);
    }
    CHECK(ramp.bytesDelivered == Approx(expected).epsilon(1e-5));
    const double mean = 1'000'000 * (1 + 1.005 + 1.005 * 1.005) / 3;
    CHECK(ramp.bytesCredited == Approx(50 * mean).epsilon(1e-5));
    CHECK(ramp.bytesErrorMaxRel == Approx((expected - 50 * mean) / expected).epsilon(1e-3));
    CHECK(ramp.bytesErrorMaxRel > 0.1);
    CHECK(ramp.jumpsOff == 1);
}

TEST_CASE("bounded jumps: one span first, doubling while the credit agrees, back to one span "
          "when it does not",
          "[unit][steady]")
{
    SteadyParams p = Params();
    p.maxJumpSpans = 4;
    const uint64_t span = p.windows * kWindowPs;
    // Constant rate, far from its end: jumps of 1, 2, 4 and 4 spans (3, 6, 12 and 12 windows),
    // each taken K windows after the last one's end, at windows 2, 8, 17 and 32.
    SteadyJudge flat(p);
    for (uint64_t i = 0; i < 33; ++i)
    {
        flat.Add(Window(i, 1'000'000, (1ULL << 40) - (i + 1) * 1'000'000), UINT64_MAX);
    }
    CHECK(flat.Stats().jumps == 4);
    CHECK(flat.Stats().skippablePs == (1 + 2 + 4 + 4) * span);
    CHECK(flat.Stats().jumpsMeasured == 3);
    CHECK(flat.Stats().jumpsOff == 0);
    // The rate doubles inside the third jump (windows 18 to 29): its credit falls short, and
    // the fourth jump (window 32, steady again at the new rate) is one span again.
    SteadyJudge step(p);
    uint64_t delivered = 0;
    for (uint64_t i = 0; i < 33; ++i)
    {
        const uint64_t bytes = i < 18 ? 1'000'000 : 2'000'000;
        delivered += bytes;
        step.Add(Window(i, bytes, (1ULL << 40) - delivered), UINT64_MAX);
    }
    CHECK(step.Stats().jumps == 4);
    CHECK(step.Stats().jumpsMeasured == 3);
    CHECK(step.Stats().jumpsOff == 1);
    CHECK(step.Stats().skippablePs == (1 + 2 + 4 + 1) * span);
    // Unbounded (the default), the same windows make one jump to the transfer's horizon.
    SteadyJudge unbounded(Params());
    for (uint64_t i = 0; i < 33; ++i)
    {
        unbounded.Add(Window(i, 1'000'000, (1ULL << 40) - (i + 1) * 1'000'000), UINT64_MAX);
    }
    CHECK(unbounded.Stats().jumps == 1);
    CHECK(unbounded.Stats().skippablePs > 1000 * span);
}

TEST_CASE("a window in which fast mode replays an active transfer is not judged steady",
          "[unit][steady]")
{
    // A replayed transfer delivers nothing packet by packet: without the flag these windows
    // would read as stalled, or as steady where another transfer moves.
    SteadyJudge judge(Params());
    CHECK(Feed(judge, 4, [](uint64_t i) {
              SteadyWindow w = Window(i, 1'000'000, 1ULL << 40);
              w.replayed = i == 2;
              return w;
          }) == SteadyReason::REPLAYED);
    CHECK(judge.Stats().notSteady.at("replayed") == 2); // windows 2 and 3 hold window 2
    CHECK(judge.Stats().steady == 0);
}

TEST_CASE("a transfer acknowledged inside a jump is counted: the jump ran past its end",
          "[unit][steady]")
{
    // Steady for K windows with 100 windows' worth left: a jump of 97 windows. The transfer
    // then ends 10 windows in (its rate rose), inside the jump.
    const uint64_t perWindow = 1'000'000;
    SteadyJudge judge(Params());
    for (uint64_t i = 0; i < 3; ++i)
    {
        judge.Add(Window(i, perWindow, 103 * perWindow - (i + 1) * perWindow), UINT64_MAX);
    }
    REQUIRE(judge.Stats().jumps == 1);
    for (uint64_t i = 3; i < 13; ++i)
    {
        SteadyWindow w = Window(i, perWindow, (13 - i) * perWindow);
        w.flowEnds = i == 12 ? 1 : 0;
        judge.Add(std::move(w), UINT64_MAX);
    }
    CHECK(judge.Stats().endsInJumps == 1);
    CHECK(judge.Stats().jumpedWindows == 10);
    CHECK(judge.Stats().jumpedNotSteady == 1); // window 12 holds the end
}

TEST_CASE("a transfer acknowledged after the last window, inside a jump, is counted at the stop "
          "time with its end error",
          "[unit][steady]")
{
    // The same jump as above (97 windows from window 2's end, 30 µs; its end predicted K
    // windows after the jump's, at 1,030 µs). The transfer is acknowledged 5 µs into window
    // 13, and the run stops there, before that window is probed.
    const uint64_t perWindow = 1'000'000;
    SteadyJudge judge(Params());
    for (uint64_t i = 0; i < 13; ++i)
    {
        judge.Add(Window(i, perWindow, 103 * perWindow - (i + 1) * perWindow), UINT64_MAX);
    }
    REQUIRE(judge.Stats().jumps == 1);
    REQUIRE(judge.JumpEndPs() == 3 * kWindowPs + 97 * kWindowPs);
    CHECK(judge.Stats().endsInJumps == 0);
    CHECK(judge.Stats().endsPredicted == 0);
    const uint64_t stopPs = 13 * kWindowPs + kWindowPs / 2;
    judge.AddTailEnds(stopPs, 0); // nothing ended: nothing counted
    CHECK(judge.Stats().endsPredicted == 0);
    judge.AddTailEnds(stopPs, 1);
    CHECK(judge.Stats().endsInJumps == 1);
    CHECK(judge.Stats().endsPredicted == 1);
    CHECK(judge.Stats().endErrorMaxPs == 103 * kWindowPs - stopPs);
    // The jump reaches past the run's end: no later window measures it. Once every transfer
    // is done, the stop measures it: all 100 windows' worth left at the jump's start were
    // delivered, where the jump would have credited 10.5 windows' worth.
    CHECK(judge.Stats().jumpsMeasured == 0);
    judge.AddTailEnds(stopPs, 0, true);
    REQUIRE(judge.Stats().jumpsMeasured == 1);
    CHECK(judge.Stats().bytesDelivered == 100.0 * perWindow);
    CHECK(judge.Stats().bytesCredited == Approx(10.5 * perWindow));
    CHECK(judge.Stats().bytesErrorMaxRel == Approx(0.895));
    CHECK(judge.Stats().jumpsOff == 1);
    judge.AddTailEnds(stopPs, 0, true); // measured once
    CHECK(judge.Stats().jumpsMeasured == 1);
}

} // namespace TUSK_TEST_FILE
