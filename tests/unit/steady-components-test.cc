// The steady-state probe's per-component judgement (tusk/run/steady-components.h) as pure
// logic: how a window's transfers are partitioned into components by the ports they share,
// how a component keeps its identity across windows, and that each component is judged and
// ledgered on its own (docs/fast-mode.md, "Steady-state fast-forward within an iteration").

#include "run/steady-components.h"

#include "steady-params.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using tusk::ComponentWindow;
using tusk::SteadyComponents;
using tusk::SteadyParams;
using tusk::SteadyReason;

namespace
{

constexpr uint64_t kWindowPs = tusk_test::kSteadyWindowPs;
constexpr uint64_t kPerWindow = 1'000'000; // bytes a steady transfer delivers in a window

SteadyParams
Params()
{
    return tusk_test::SteadyTestParams();
}

ComponentWindow::Transfer
Transfer(uint32_t id, std::vector<uint32_t> ports, uint64_t remaining = 1ULL << 40)
{
    ComponentWindow::Transfer t;
    t.id = id;
    t.windowBytes = kPerWindow;
    t.remainingBytes = remaining;
    t.ports = std::move(ports);
    return t;
}

/** Window i holding `transfers` (sorted by id), 16 ports with empty queues. */
ComponentWindow
Window(uint64_t i, std::vector<ComponentWindow::Transfer> transfers)
{
    ComponentWindow w;
    w.endPs = (i + 1) * kWindowPs;
    w.transfers = std::move(transfers);
    w.queues.assign(16, 0);
    w.pfc.assign(16, 0);
    return w;
}

} // namespace

TEST_CASE("transfers sharing a port, transitively, are one component, and an unattributed one "
          "joins all",
          "[unit][steady]")
{
    // 1 and 2 share port 2, 2 and 3 port 4: one component; 4 alone; 5 has no port yet.
    ComponentWindow w = Window(0, {Transfer(1, {0, 2}), Transfer(4, {7}), Transfer(5, {}),
                                   Transfer(8, {3, 4}), Transfer(9, {2, 4})});
    CHECK(SteadyComponents::Partition(w) == std::vector<uint32_t>{0, 1, 2, 0, 0});
    w.transfers[2].unattributed = true;
    CHECK(SteadyComponents::Partition(w) == std::vector<uint32_t>{0, 0, 0, 0, 0});
    CHECK(SteadyComponents::Partition(Window(0, {})).empty());
}

TEST_CASE("a component steady beside one with a transfer start every window is judged steady",
          "[unit][steady]")
{
    SteadyComponents judge(Params());
    std::vector<std::vector<SteadyReason>> verdicts;
    for (uint64_t i = 0; i < 8; ++i)
    {
        // Transfer 1 on ports 0 and 1, steady; on ports 5 and 6 transfer 100 + i starts in
        // window i and ends in window i + 1.
        std::vector<ComponentWindow::Transfer> ts{Transfer(1, {0, 1})};
        if (i > 0)
        {
            auto ended = Transfer(uint32_t(100 + i - 1), {5, 6});
            ended.ended = true;
            ts.push_back(ended);
        }
        auto fresh = Transfer(uint32_t(100 + i), {5, 6});
        fresh.started = true;
        ts.push_back(fresh);
        verdicts.push_back(judge.Add(Window(i, std::move(ts)), UINT64_MAX));
    }
    // The steady one is component 0 (its first transfer comes first).
    CHECK(verdicts[1][0] == SteadyReason::WARMING);
    CHECK(verdicts[2][0] == SteadyReason::STEADY);
    CHECK(verdicts[7][0] == SteadyReason::STEADY);
    for (uint64_t i = 0; i < 8; ++i)
    {
        CHECK(verdicts[i][1] != SteadyReason::STEADY);
    }
    const auto s = judge.Stats();
    CHECK(s.steady == 6);
    CHECK(s.probed == 8 + 8); // one busy component per window, and the steady one
    CHECK(s.seen == 1 + 8);   // the steady one, and a new set on ports 5 and 6 each window
    CHECK(s.mostInWindow == 2);
    CHECK(s.componentPs == s.probed * kWindowPs);
}

TEST_CASE("a merge of two steady components restarts the stretch", "[unit][steady]")
{
    SteadyComponents judge(Params());
    std::vector<std::vector<SteadyReason>> verdicts;
    for (uint64_t i = 0; i < 10; ++i)
    {
        // From window 5 on, transfer 2's frames also take port 0: it shares it with 1.
        const std::vector<uint32_t> second =
            i < 5 ? std::vector<uint32_t>{1} : std::vector<uint32_t>{0, 1};
        verdicts.push_back(
            judge.Add(Window(i, {Transfer(1, {0}), Transfer(2, second)}), UINT64_MAX));
    }
    REQUIRE(verdicts[4].size() == 2);
    CHECK(verdicts[4][0] == SteadyReason::STEADY);
    CHECK(verdicts[4][1] == SteadyReason::STEADY);
    REQUIRE(verdicts[5].size() == 1);
    CHECK(verdicts[5][0] == SteadyReason::WARMING);
    CHECK(verdicts[6][0] == SteadyReason::WARMING);
    CHECK(verdicts[7][0] == SteadyReason::STEADY);
    CHECK(judge.Stats().seen == 3);
    CHECK(judge.Stats().notSteady.at("warming") == 2 + 2 + 2);
}

TEST_CASE("a PFC frame, a CE regime change, a failure or a QP's state breaks the component of "
          "its port only, and a failure no port names breaks all",
          "[unit][steady]")
{
    struct Case
    {
        const char* name;
        SteadyReason first;  //!< the component on ports 0, 1
        SteadyReason second; //!< the component on ports 5, 6
        std::function<void(ComponentWindow&)> mark;
    };
    const std::vector<Case> cases = {
        {"pfc", SteadyReason::STEADY, SteadyReason::PFC,
         [](ComponentWindow& w) { w.pfc[5] = 1; }},
        {"ecn", SteadyReason::ECN_REGIME, SteadyReason::STEADY,
         [](ComponentWindow& w) {
             w.marks.assign(16, 0);
             w.marks[1] = 4;
         }},
        {"failure", SteadyReason::FAILURE, SteadyReason::STEADY,
         [](ComponentWindow& w) {
             w.failed.assign(16, 0);
             w.failed[0] = 1;
         }},
        {"failure-all", SteadyReason::FAILURE, SteadyReason::FAILURE,
         [](ComponentWindow& w) { w.failureAll = true; }},
        {"unused-port", SteadyReason::STEADY, SteadyReason::STEADY,
         [](ComponentWindow& w) {
             w.drops.assign(16, 0);
             w.drops[9] = 3; // a port no transfer uses
         }},
        {"cc", SteadyReason::STEADY, SteadyReason::CC_STATE,
         [](ComponentWindow& w) { w.cc[1].words[0] = 40e9; }},
    };
    for (const auto& c : cases)
    {
        SECTION(c.name)
        {
            SteadyComponents judge(Params());
            std::vector<SteadyReason> last;
            for (uint64_t i = 0; i < 6; ++i)
            {
                ComponentWindow w = Window(i, {Transfer(1, {0, 1}), Transfer(2, {5, 6})});
                const double nan = std::nan("");
                w.cc.push_back({0, 1, {50e9, nan, nan, nan}, false});
                w.cc.push_back({1, 2, {50e9, nan, nan, nan}, false});
                if (i == 4)
                {
                    c.mark(w);
                }
                last = judge.Add(w, UINT64_MAX);
            }
            REQUIRE(last.size() == 2);
            CHECK(last[0] == c.first);
            CHECK(last[1] == c.second);
        }
    }
}

TEST_CASE("each component's horizon is its own first end, and a jump its component leaves is "
          "broken",
          "[unit][steady]")
{
    // Transfer 1 (ports 0) has 100 windows left after window 2, transfer 2 (port 5) 10: with
    // the fabric as one component the first end (10) bounds both, here each its own.
    SteadyComponents judge(Params());
    for (uint64_t i = 0; i < 3; ++i)
    {
        judge.Add(Window(i, {Transfer(1, {0}, (103 - i - 1) * kPerWindow),
                             Transfer(2, {5}, (13 - i - 1) * kPerWindow)}),
                  UINT64_MAX);
    }
    auto s = judge.Stats();
    CHECK(s.jumps == 2);
    CHECK(s.skippablePs == (100 - 3) * kWindowPs + (10 - 3) * kWindowPs);
    CHECK(s.skippableBytes == (100 - 3 + 10 - 3) * kPerWindow);
    CHECK(s.jumpsBroken == 0);
    // Transfer 3 joins transfer 1's port within its jump: that component is gone, its jump
    // passed over the join.
    auto joined = Transfer(3, {0});
    joined.started = true;
    judge.Add(Window(3, {Transfer(1, {0}, 99 * kPerWindow), Transfer(2, {5}, 9 * kPerWindow),
                         joined}),
              UINT64_MAX);
    s = judge.Stats();
    CHECK(s.jumpsBroken == 1);
    CHECK(s.seen == 3);
}

TEST_CASE("transfers acknowledged after the last window count in their own component's jump",
          "[unit][steady]")
{
    // Two components, each jumping after window 2 (transfer 1: 100 windows left, transfer 2:
    // 10). Transfer 2 is acknowledged 5 µs after window 5 and the run stops there: inside its
    // component's jump (to 10 windows), 50 µs before its predicted end (13 windows); transfer
    // 1's component counts nothing.
    SteadyComponents judge(Params());
    for (uint64_t i = 0; i < 6; ++i)
    {
        judge.Add(Window(i, {Transfer(1, {0}, (103 - i - 1) * kPerWindow),
                             Transfer(2, {5}, (13 - i - 1) * kPerWindow)}),
                  UINT64_MAX);
    }
    REQUIRE(judge.Stats().jumps == 2);
    const uint64_t stopPs = 6 * kWindowPs + kWindowPs / 2;
    judge.AddTailEnds(stopPs, {2, 9}); // 9 is in no component (an ended transfer unseen)
    const auto s = judge.Stats();
    CHECK(s.endsInJumps == 1);
    CHECK(s.endsPredicted == 1);
    CHECK(s.endErrorMaxPs == 13 * kWindowPs - stopPs);
}

} // namespace TUSK_TEST_FILE
