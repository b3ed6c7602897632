/*
 * tusk: the flow hash shared by the policies that identify flows (ECMP, flowlet tables).
 */
#ifndef TUSK_FLOW_HASH_H
#define TUSK_FLOW_HASH_H

#include "fabric/model/frame-meta.h"

#include "ns3/hash.h"

#include <cstdint>
#include <cstring>

namespace ns3
{

/** Which header fields identify a flow. */
enum class FlowHashFields : uint8_t
{
    FIVE_TUPLE = 0,        //!< src IP, dst IP, protocol, UDP src port, UDP dst port
    FIVE_TUPLE_DST_QP = 1, //!< the 5-tuple and the BTH destination QP (Meta's E-ECMP)
};

/** The hash function applied to the fields. */
enum class FlowHashFunction : uint8_t
{
    /** MurmurHash3 (ns-3's Hash32): avalanche, every field bit affects every hash bit. */
    MURMUR3 = 0,
    /** FNV-1a 32-bit (Fowler, Noll, Vo). */
    FNV1A = 1,
    /** XOR of the key's 16-bit words, the linear "XOR" hash mode of commodity switch ASICs:
     *  consecutive UDP source ports land on consecutive residues, so 2^k QPs with consecutive
     *  ports use 2^k distinct ports of a 2^k-way group. */
    XOR_FOLD = 2,
};

/**
 * \brief Hash of a frame's flow fields under `seed`. The key is the seed, then the fields in
 * the order of a 5-tuple (IPv4 source, destination, protocol, UDP source and destination
 * port), then optionally the destination QP. No allocation; a few dozen instructions.
 */
inline uint32_t
FlowHash(const FrameMeta& frame, uint32_t seed, FlowHashFields fields, FlowHashFunction fn)
{
    char key[4 + 4 + 4 + 1 + 2 + 2 + 4];
    size_t n = 0;
    auto put32 = [&](uint32_t v) {
        std::memcpy(key + n, &v, 4);
        n += 4;
    };
    auto put16 = [&](uint16_t v) {
        std::memcpy(key + n, &v, 2);
        n += 2;
    };
    put32(seed);
    put32(HostAddressBits(frame.srcHost));
    put32(HostAddressBits(frame.dstHost));
    key[n++] = static_cast<char>(frame.protocol);
    put16(frame.srcPort);
    put16(frame.dstPort);
    if (fields == FlowHashFields::FIVE_TUPLE_DST_QP)
    {
        put32(frame.dstQp);
    }
    switch (fn)
    {
    case FlowHashFunction::FNV1A: {
        uint32_t h = 2166136261u;
        for (size_t i = 0; i < n; ++i)
        {
            h ^= static_cast<uint8_t>(key[i]);
            h *= 16777619u;
        }
        return h;
    }
    case FlowHashFunction::XOR_FOLD: {
        // Word-wise on the values (not the byte string), so that the UDP source port enters
        // as one 16-bit word.
        uint32_t h = (seed ^ (seed >> 16)) & 0xFFFF;
        const uint32_t src = HostAddressBits(frame.srcHost);
        const uint32_t dst = HostAddressBits(frame.dstHost);
        h ^= (src ^ (src >> 16)) & 0xFFFF;
        h ^= (dst ^ (dst >> 16)) & 0xFFFF;
        h ^= frame.protocol;
        h ^= frame.srcPort;
        h ^= frame.dstPort;
        if (fields == FlowHashFields::FIVE_TUPLE_DST_QP)
        {
            h ^= (frame.dstQp ^ (frame.dstQp >> 16)) & 0xFFFF;
        }
        return h;
    }
    case FlowHashFunction::MURMUR3:
    default:
        return Hash32(key, n);
    }
}

} // namespace ns3

#endif
