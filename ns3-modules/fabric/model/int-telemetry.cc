#include "int-telemetry.h"

#include <algorithm>

namespace ns3
{

namespace
{
constexpr uint64_t kG = 1'000'000'000ULL;
constexpr uint64_t kRates[8] = {25 * kG, 50 * kG, 100 * kG, 200 * kG, 400 * kG, 800 * kG, 40 * kG,
                                10 * kG};
} // namespace

bool
IntHop::RateCode(uint64_t rateBps, uint8_t& code)
{
    for (uint8_t c = 0; c < 8; ++c)
    {
        if (kRates[c] == rateBps)
        {
            code = c;
            return true;
        }
    }
    return false;
}

uint64_t
IntHop::RateOfCode(uint8_t code)
{
    return kRates[code & 7];
}

IntHop
IntHop::Make(uint64_t timeNs, uint64_t txBytes, uint64_t qlenBytes, uint8_t rateCode)
{
    const uint64_t u = UnitMultiplier(RateOfCode(rateCode));
    const uint64_t time = timeNs & ((1ULL << kTimeBits) - 1);
    const uint64_t bytes = (txBytes / (kByteUnit * u)) & ((1ULL << kBytesBits) - 1);
    const uint64_t qlen = std::min<uint64_t>(qlenBytes / (kQlenUnit * u), (1ULL << kQlenBits) - 1);
    IntHop h;
    h.word = (rateCode & 7u) | (time << kRateBits) | (bytes << (kRateBits + kTimeBits)) |
             (qlen << (kRateBits + kTimeBits + kBytesBits));
    return h;
}

} // namespace ns3
