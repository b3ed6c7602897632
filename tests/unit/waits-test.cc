// waits.csv's arithmetic (tusk/run/waits.cc) on hand-made transfers: a rank's ideal time in a step,
// and the straggler's, count a transfer split over QPs by its own packet sequence (flows.csv's
// ideal FCT), not as one message of its bytes.

#include "run/waits.h"

#include <catch2/catch.hpp>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;

TEST_CASE("waits: a transfer split over QPs is held to its own ideal time, not one message's",
          "[unit][waits]")
{
    // Two ranks, one step, each sends to the other at time 0. As one message the bytes would
    // need 10 us; split over QPs (their last packets interleaved) host 1's transfer needs
    // 12 us, as flows.csv's ideal FCT says. It arrives at 12 us: no wait.
    const IdealFn oneMessage = [](uint32_t, uint32_t, uint64_t) -> uint64_t {
        return 10'000'000;
    };
    std::vector<WaitTransfer> t(2);
    for (uint32_t i = 0; i < 2; ++i)
    {
        t[i].src = i;
        t[i].dst = 1 - i;
        t[i].step = 0;
        t[i].bytes = 1'000'000;
        t[i].started = true;
        t[i].startPs = 0;
        t[i].delivered = true;
        t[i].deliveredPs = 12'000'000;
    }
    t[1].idealPs = 12'000'000; // split over QPs
    const CollectiveWaits w = ComputeWaits(0, {0, 1}, 1, 0, t, oneMessage);
    REQUIRE(w.rows.size() == 2);
    const WaitRow& atHost0 = w.rows[0]; // receives host 1's split transfer
    const WaitRow& atHost1 = w.rows[1]; // receives host 0's single message
    CHECK(atHost0.idealPs == 12'000'000);
    CHECK(atHost0.waitPs == 0);
    CHECK(atHost1.idealPs == 10'000'000);
    CHECK(atHost1.waitPs == 2'000'000);
    CHECK(atHost0.stepIdealPs == 12'000'000);
    // The straggler: the single message, 2 us beyond its ideal; the split one is on time.
    CHECK(w.criticalTransfer == 0);
    CHECK(w.ranksDelayed[0] == 1); // host 1 waited 2/12 of the step's ideal time (> 1 %)
}

TEST_CASE("waits: in a run stopped early, a rank that never began a step has no ready time "
          "and no wait",
          "[unit][waits]")
{
    // A 3-rank ring, 3 steps: in step k rank r sends to r + 1. The run stopped after step 0's
    // transfers into ranks 1 and 2 arrived, and rank 0's step-0 data (from rank 2) did not:
    // rank 0 never began step 1 (its send did not start); a rank with nothing to send in a
    // step begins it only when all its earlier data arrived.
    const IdealFn ideal = [](uint32_t, uint32_t, uint64_t) -> uint64_t { return 1'000'000; };
    std::vector<WaitTransfer> t;
    auto add = [&](uint32_t src, int32_t step, bool started, bool delivered) {
        WaitTransfer w;
        w.src = src;
        w.dst = (src + 1) % 3;
        w.step = step;
        w.bytes = 1000;
        w.started = started;
        w.startPs = started ? 10'000'000 * static_cast<uint64_t>(step) : 0;
        w.delivered = delivered;
        w.deliveredPs = delivered ? w.startPs + 1'500'000 : 0;
        t.push_back(w);
    };
    add(0, 0, true, true);   // into rank 1, arrived at 1.5 us
    add(1, 0, true, true);   // into rank 2, arrived
    add(2, 0, true, false);  // into rank 0, never arrived
    add(0, 1, false, false); // rank 0 never began step 1
    add(1, 1, true, true);   // rank 1 began step 1 at 10 us, into rank 2 at 11.5 us
    // Step 2: only rank 2 receives (from rank 1), and rank 1 sends nothing else: rank 1's
    // readiness is its earlier data, which all arrived.
    add(1, 2, true, true);
    const CollectiveWaits w = ComputeWaits(0, {0, 1, 2}, 3, 0, t, ideal);
    auto row = [&](uint32_t step, uint32_t rank) -> const WaitRow& {
        for (const auto& r : w.rows)
        {
            if (r.step == step && r.rank == rank)
            {
                return r;
            }
        }
        FAIL("no row for step " << step << " rank " << rank);
        return w.rows.front();
    };
    // Step 1, rank 1 receives rank 0's transfer, which never started: rank 1 began the step
    // (its own send started at 10 us), nothing arrived, so no wait.
    CHECK(row(1, 1).ready);
    CHECK(row(1, 1).readyPs == 10'000'000);
    CHECK_FALSE(row(1, 1).arrived);
    // Step 0, rank 0: began at 0 (its send started), its data never arrived.
    CHECK(row(0, 0).ready);
    CHECK_FALSE(row(0, 0).arrived);
    // Step 2, rank 2 receives from rank 1; rank 2 sends nothing in step 2, and its step-0 and
    // step-1 data arrived, so it is ready at its last arrival (11.5 us) and its wait counts.
    CHECK(row(2, 2).ready);
    CHECK(row(2, 2).readyPs == 11'500'000);
    CHECK(row(2, 2).arrived);
    CHECK(row(2, 2).waitPs == 20'000'000 + 1'500'000 - 11'500'000 - 1'000'000);
    // No collective end: nothing is critical.
    CHECK(w.criticalTransfer == -1);
}

TEST_CASE("waits: a rank that sends nothing in a step, with earlier data missing, is not ready",
          "[unit][waits]")
{
    // Two ranks, 2 steps; in step 1 only rank 1 sends (to rank 0). Rank 0 sends nothing in
    // step 1 and its step-0 data never arrived: it never began step 1, so its row has no ready
    // time and no wait even though step 1's data reached it.
    const IdealFn ideal = [](uint32_t, uint32_t, uint64_t) -> uint64_t { return 1'000'000; };
    std::vector<WaitTransfer> t(3);
    t[0] = {0, 1, 0, 1000, true, 0, true, 1'000'000, 0};  // into rank 1, on time
    t[1] = {1, 0, 0, 1000, true, 0, false, 0, 0};         // into rank 0, never arrived
    t[2] = {1, 0, 1, 1000, true, 5'000'000, true, 6'000'000, 0}; // into rank 0, arrived
    const CollectiveWaits w = ComputeWaits(0, {0, 1}, 2, 0, t, ideal);
    REQUIRE(w.rows.size() == 3);
    const WaitRow& last = w.rows.back();
    REQUIRE(last.step == 1);
    REQUIRE(last.rank == 0);
    CHECK_FALSE(last.ready);
    CHECK(last.arrived);
    CHECK(last.waitPs == 0);
    CHECK(last.delay == 0);
    CHECK(w.ranksDelayed[0] == 0);
}

} // namespace TUSK_TEST_FILE
