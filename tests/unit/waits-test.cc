// waits.csv's arithmetic (tusk/run/waits.cc) on hand-made transfers: a rank's ideal time in a step,
// and the straggler's, count a transfer split over QPs by its own packet sequence (flows.csv's
// ideal FCT), not as one message of its bytes.

#include "run/waits.h"

#include <catch2/catch.hpp>

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
