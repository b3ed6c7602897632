#include "ideal-fct.h"

#include "fabric-units.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

uint64_t
IdealFctPs(uint64_t payloadBytes,
           const std::vector<PathHop>& path,
           const Framing& framing,
           uint64_t switchLatencyPs)
{
    if (path.empty())
    {
        throw std::invalid_argument("IdealFctPs: empty path");
    }
    const uint64_t n = framing.Packets(payloadBytes);
    const uint64_t lastPayload = payloadBytes - (n - 1) * framing.mtuBytes;
    const uint64_t fullWire = framing.WireBytes(framing.mtuBytes);
    const uint64_t lastWire = framing.WireBytes(lastPayload);
    const size_t hops = path.size();

    uint64_t firstDone = 0;   // D(1, h): first full packet leaves link h
    uint64_t maxFull = 0;     // max_{j<=h} a_j
    uint64_t lastArrival = 0; // arrival of the last packet at the sender of link h
    for (size_t h = 0; h < hops; ++h)
    {
        const uint64_t a = SerializationPs(fullWire, path[h].rateBps);
        const uint64_t b = SerializationPs(lastWire, path[h].rateBps);
        const uint64_t hopLatency = (h + 1 < hops) ? switchLatencyPs : 0;
        firstDone += a;
        maxFull = std::max(maxFull, a);
        uint64_t linkFree = 0; // D(n-1, h)
        if (n >= 2)
        {
            linkFree = firstDone + (n - 2) * maxFull;
        }
        const uint64_t lastDone = std::max(linkFree, lastArrival) + b;
        lastArrival = lastDone + path[h].delayPs + hopLatency;
        firstDone += path[h].delayPs + hopLatency;
    }
    return lastArrival;
}

uint64_t
BaseRttPs(uint32_t hops, uint64_t delayPs, uint64_t packetBytes, uint64_t rateBps)
{
    return 2ULL * hops * delayPs + hops * SerializationPs(packetBytes, rateBps);
}

} // namespace ns3
