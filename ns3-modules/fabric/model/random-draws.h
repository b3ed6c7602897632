/*
 * tusk: RandomDraws, the count of the random draws that can change a load-balancing policy's
 * choice (fast mode's steady rule, docs/fast-mode.md, "Rule (b), steady").
 */
#ifndef TUSK_RANDOM_DRAWS_H
#define TUSK_RANDOM_DRAWS_H

#include "ns3/random-variable-stream.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief The draws of every load-balancing policy, switch side (LoadBalancer) and host side
 * (PathSelector), go through here and are counted: a uniform integer among two or more values
 * (Integer with hi > lo) or a uniform real (Value). A draw among one value changes nothing and
 * is not counted, though it still advances the stream as rng.GetInteger does, so a policy's
 * choices are those of calling its stream directly.
 *
 * Fast mode's probe reads Count() at every iteration decision: an iteration in whose span it
 * grew was shaped by random draws, a sample of their outcomes rather than a fixed point, and
 * the steady rule does not replay it (IterationMemo). One counter per thread (a simulation
 * runs on one thread), read as differences; the cost per draw is one increment.
 */
class RandomDraws
{
  public:
    /** A uniform integer in [lo, hi] from `rng`, counted when hi > lo. */
    static uint32_t Integer(UniformRandomVariable& rng, uint32_t lo, uint32_t hi)
    {
        s_count += hi > lo ? 1 : 0;
        return rng.GetInteger(lo, hi);
    }
    /** A uniform real in [0, 1) from `rng`, counted. */
    static double Value(UniformRandomVariable& rng)
    {
        ++s_count;
        return rng.GetValue();
    }
    /** Draws counted on this thread so far (count; only differences are meaningful). */
    static uint64_t Count() { return s_count; }

  private:
    static thread_local uint64_t s_count;
};

} // namespace ns3

#endif
