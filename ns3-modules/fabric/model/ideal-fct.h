/*
 * tusk: ideal flow completion time (docs/analysis.md).
 *
 * The FCT of a flow alone on the idle fabric along a path: the NIC sends its packets back to
 * back at line rate, every hop stores and forwards, and the last byte is delivered when the
 * last frame's last bit reaches the receiver. Computed exactly (integer picoseconds, the same
 * rounding as the simulator), so a lone flow's slowdown is 1 to the last picosecond.
 */
#ifndef TUSK_IDEAL_FCT_H
#define TUSK_IDEAL_FCT_H

#include <cstdint>
#include <vector>

namespace ns3
{

/** One link of a path, in the direction of travel. */
struct PathHop
{
    uint64_t rateBps; //!< line rate, bit/s
    uint64_t delayPs; //!< propagation delay, ps
};

/** How payload becomes frames on the wire. */
struct Framing
{
    uint32_t mtuBytes = 4096;       //!< payload bytes per full packet
    uint32_t headerBytes = 62;      //!< per-frame header + trailer bytes (RoCEv2: 14+20+8+12+4+4)
    uint32_t minFrameBytes = 64;    //!< Ethernet minimum frame (padding), bytes
    uint32_t phyOverheadBytes = 20; //!< preamble + SFD + inter-frame gap, bytes

    /** Bytes that occupy the wire for a packet carrying `payload` bytes. */
    uint64_t WireBytes(uint64_t payload) const
    {
        uint64_t frame = payload + headerBytes;
        if (frame < minFrameBytes)
        {
            frame = minFrameBytes;
        }
        return frame + phyOverheadBytes;
    }

    /** Number of packets of a message of `payload` bytes (at least one). */
    uint64_t Packets(uint64_t payload) const
    {
        return payload == 0 ? 1 : (payload + mtuBytes - 1) / mtuBytes;
    }
};

/**
 * \brief Ideal FCT in ps of `payloadBytes` sent alone along `path`.
 *
 * For n packets of wire size S (the last one L <= S) through links with serialisation times
 * a_h = S/r_h, b_h = L/r_h and delays d_h (plus `switchLatencyPs` at each switch):
 *   D(k, h) = D(1, h) + (k - 1) * max_{j<=h} a_j        for the n-1 full packets,
 *   D(n, h) = max(D(n-1, h), D(n, h-1) + d_{h-1} + lat) + b_h,
 * and the FCT is D(n, H) + d_H. O(path length).
 *
 * \param payloadBytes message size in bytes (0 is treated as one empty packet)
 * \param path the links from the source NIC to the destination NIC; must not be empty
 * \param framing MTU and per-frame overheads
 * \param switchLatencyPs forwarding latency of each switch on the path, ps
 */
uint64_t IdealFctPs(uint64_t payloadBytes,
                    const std::vector<PathHop>& path,
                    const Framing& framing,
                    uint64_t switchLatencyPs);

/**
 * \brief Ideal FCT in ps of a sequence of packets (payload bytes each, in transmission order)
 * sent back to back alone along `path`: the store-and-forward recurrence
 * D(k, h) = max(D(k-1, h), D(k, h-1) + d_{h-1} + lat) + s_k / r_h, packet by packet,
 * O(packets x hops). For a transfer split into several messages over several QPs, which the
 * NIC interleaves packet by packet; for one message it equals IdealFctPs.
 */
uint64_t IdealFctPsOfPackets(const std::vector<uint32_t>& payloads,
                             const std::vector<PathHop>& path,
                             const Framing& framing,
                             uint64_t switchLatencyPs);

/**
 * \brief The packets, in the order a NIC serving its QPs round-robin sends them, of a
 * transfer posted as `messages` (QP index, bytes), each QP sending its messages in order.
 */
std::vector<uint32_t> RoundRobinPackets(const std::vector<std::pair<uint32_t, uint64_t>>& messages,
                                        uint32_t mtuBytes);

/**
 * \brief Base RTT under the ConWeave convention (docs/oracles.md, oracle 20): 2·hops·delay + hops·packet/C,
 * in ps, for `hops` links of equal `rateBps` and one-way `delayPs`, packet of `packetBytes`.
 */
uint64_t BaseRttPs(uint32_t hops, uint64_t delayPs, uint64_t packetBytes, uint64_t rateBps);

} // namespace ns3

#endif
