/*
 * tusk: an unbiased uniform integer from a std::mt19937_64, the same on every platform (the
 * standard library's distributions may differ between implementations; the raw engine does not).
 */
#ifndef TUSK_UNIFORM_BELOW_H
#define TUSK_UNIFORM_BELOW_H

#include <cstdint>
#include <limits>
#include <random>

namespace ns3
{

/**
 * \brief A uniform integer in [0, bound) from the raw 64-bit output of `rng`, without modulo
 * bias: draws above the largest multiple of `bound` are rejected and drawn again.
 * \param bound at least 1
 */
inline uint64_t
UniformBelow(std::mt19937_64& rng, uint64_t bound)
{
    const uint64_t max = std::numeric_limits<uint64_t>::max();
    // Number of values to reject at the top so that the accepted range is a multiple of bound.
    const uint64_t reject = (max % bound + 1) % bound;
    uint64_t x;
    do
    {
        x = rng();
    } while (x > max - reject);
    return x % bound;
}

} // namespace ns3

#endif
