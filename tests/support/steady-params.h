/*
 * Helper of the steady-state judgement's unit tests (steady-judge-test, steady-components-test):
 * the parameters both judge with, K = 3 windows of 10 µs within 2 %, and floors of one
 * 4 KiB payload (a rate) and two 4,158-byte frames (a queue).
 */
#ifndef TUSK_TEST_STEADY_PARAMS_H
#define TUSK_TEST_STEADY_PARAMS_H

#include "run/steady-judge.h"

#include <cstdint>

namespace tusk_test
{

constexpr uint64_t kSteadyWindowPs = 10'000'000; // 10 µs

inline tusk::SteadyParams
SteadyTestParams()
{
    tusk::SteadyParams p;
    p.windows = 3;
    p.tolerance = 0.02;
    p.windowPs = kSteadyWindowPs;
    p.rateFloorBytes = 4096;
    p.queueFloorBytes = 8316;
    return p;
}

} // namespace tusk_test

#endif
