#include "ideal-fct.h"

#include "fabric-units.h"

#include <algorithm>
#include <deque>
#include <map>
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
IdealFctPsOfPackets(const std::vector<uint32_t>& payloads,
                    const std::vector<PathHop>& path,
                    const Framing& framing,
                    uint64_t switchLatencyPs)
{
    if (path.empty())
    {
        throw std::invalid_argument("IdealFctPsOfPackets: empty path");
    }
    std::vector<uint64_t> linkFree(path.size(), 0);
    uint64_t arrival = 0;
    for (uint32_t payload : payloads)
    {
        uint64_t t = 0; // every packet is ready at the NIC at time 0
        for (size_t h = 0; h < path.size(); ++h)
        {
            const uint64_t start = std::max(linkFree[h], t);
            linkFree[h] = start + SerializationPs(framing.WireBytes(payload), path[h].rateBps);
            t = linkFree[h] + path[h].delayPs + (h + 1 < path.size() ? switchLatencyPs : 0);
        }
        arrival = std::max(arrival, t);
    }
    return arrival;
}

std::vector<uint32_t>
RoundRobinPackets(const std::vector<std::pair<uint32_t, uint64_t>>& messages, uint32_t mtuBytes)
{
    std::map<uint32_t, std::deque<uint32_t>> perQp; // in QP order of first use
    std::vector<uint32_t> order;
    for (const auto& [qp, bytes] : messages)
    {
        if (perQp.find(qp) == perQp.end())
        {
            order.push_back(qp);
        }
        auto& q = perQp[qp];
        for (uint64_t left = bytes; left > 0;)
        {
            const uint64_t p = std::min<uint64_t>(left, mtuBytes);
            q.push_back(static_cast<uint32_t>(p));
            left -= p;
        }
    }
    std::vector<uint32_t> out;
    for (bool any = true; any;)
    {
        any = false;
        for (uint32_t qp : order)
        {
            auto& q = perQp[qp];
            if (!q.empty())
            {
                out.push_back(q.front());
                q.pop_front();
                any = true;
            }
        }
    }
    return out;
}

uint64_t
BaseRttPs(uint32_t hops, uint64_t delayPs, uint64_t packetBytes, uint64_t rateBps)
{
    return 2ULL * hops * delayPs + hops * SerializationPs(packetBytes, rateBps);
}

} // namespace ns3
