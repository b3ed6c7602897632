/*
 * tusk: simulated time and serialisation arithmetic shared by the models and by the
 * ideal-FCT computation, so that both round in exactly the same way.
 */
#ifndef TUSK_FABRIC_UNITS_H
#define TUSK_FABRIC_UNITS_H

#include <cstdint>

namespace ns3
{

/**
 * The physically meaningful range of a link's line rate, bit/s: 1 Mb/s (below any data-centre
 * or management link) to 100 Tb/s (far above any port built). The scenario keys and the
 * topology importers refuse rates outside it: a frame's serialisation at 1e-9 Gb/s lasts
 * days of simulated time.
 */
constexpr uint64_t kMinLinkRateBps = 1'000'000ULL;
constexpr uint64_t kMaxLinkRateBps = 100'000'000'000'000ULL;
/** The longest one-way link delay or latency, ps: 1 s (200,000 km of fibre, five times
 *  around the earth). */
constexpr uint64_t kMaxLinkDelayPs = 1'000'000'000'000ULL;
/** The largest transfer or message, bytes: 1024 TiB (a day at 10 Tb/s). The scenario keys and
 *  the workload importers refuse larger sizes: near 2^64 a transfer's byte counters overflow
 *  and it never sends. */
constexpr uint64_t kMaxTransferBytes = 1ULL << 50;

/**
 * \brief Switch ns-3 to picosecond time resolution (idempotent; call before building).
 *
 * With picoseconds, the serialisation time of any whole number of bytes at any integer-Gb/s
 * rate is an exact integer (a byte at 100 Gb/s is 80 ps), so a run's times carry no rounding
 * drift and a lone flow's FCT equals its ideal FCT exactly.
 */
void EnsurePicosecondResolution();

/** Serialisation time of `bytes` at `rateBps` bit/s, in ps, rounded up. rateBps > 0. */
inline uint64_t SerializationPs(uint64_t bytes, uint64_t rateBps)
{
    // bytes * 8e12 overflows 64 bits above ~2.3 MB; frames are far smaller, but stay exact
    // for any size with 128-bit arithmetic.
    const unsigned __int128 num = static_cast<unsigned __int128>(bytes) * 8ULL * 1'000'000'000'000ULL;
    return static_cast<uint64_t>((num + rateBps - 1) / rateBps);
}

} // namespace ns3

#endif
