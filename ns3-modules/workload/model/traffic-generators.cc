/*
 * tusk: pure traffic generators. See traffic-generators.h.
 */
#include "traffic-generators.h"

#include "ring-steps.h"
#include "uniform-below.h"

#include "fabric/model/input-error.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <random>
#include <set>

namespace ns3
{

namespace
{

void
CheckRing(uint32_t n, uint64_t bytesPerRank, uint32_t channels)
{
    if (n == 0)
    {
        throw InputError("", 0, "ranks", "a ring all-reduce needs at least 1 rank");
    }
    if (channels == 0)
    {
        throw InputError("", 0, "channels", "expected at least 1 channel, got 0");
    }
    const uint64_t minBytes = static_cast<uint64_t>(n) * channels;
    if (bytesPerRank < minBytes)
    {
        throw InputError("",
                         0,
                         "bytesPerRank",
                         "ring all-reduce of " + std::to_string(n) + " ranks and " +
                             std::to_string(channels) + " channels needs at least n*C = " +
                             std::to_string(minBytes) +
                             " bytes per rank (one byte per piece), got " +
                             std::to_string(bytesPerRank));
    }
}

} // namespace

WorkloadSpec
MakePermutation(uint32_t hosts, uint64_t bytes, uint64_t seed)
{
    if (hosts < 2)
    {
        throw InputError("",
                         0,
                         "hosts",
                         "a permutation without self-sends needs at least 2 hosts, got " +
                             std::to_string(hosts));
    }
    if (bytes == 0)
    {
        throw InputError("", 0, "bytes", "expected at least 1 byte per transfer, got 0");
    }

    std::mt19937_64 rng(seed);
    std::vector<uint32_t> perm(hosts);
    bool deranged = false;
    while (!deranged)
    {
        for (uint32_t i = 0; i < hosts; ++i)
        {
            perm[i] = i;
        }
        // Fisher–Yates: for i from the top down, swap perm[i] with a uniform perm[j], j <= i.
        for (uint32_t i = hosts - 1; i > 0; --i)
        {
            const uint32_t j = static_cast<uint32_t>(UniformBelow(rng, uint64_t(i) + 1));
            std::swap(perm[i], perm[j]);
        }
        deranged = true;
        for (uint32_t i = 0; i < hosts; ++i)
        {
            if (perm[i] == i)
            {
                deranged = false;
                break;
            }
        }
    }

    WorkloadSpec w;
    w.description = "permutation of " + std::to_string(hosts) + " hosts, " +
                    std::to_string(bytes) + " B per flow, seed " + std::to_string(seed);
    w.transfers.reserve(hosts);
    for (uint32_t i = 0; i < hosts; ++i)
    {
        TransferSpec t;
        t.externalId = i;
        t.src = i;
        t.dst = perm[i];
        t.bytes = bytes;
        t.startPs = 0;
        t.qpGroup = i;
        w.transfers.push_back(t);
    }
    return w;
}

WorkloadSpec
MakeIncast(std::vector<uint32_t> senders, uint32_t dst, uint64_t bytes)
{
    if (senders.empty())
    {
        throw InputError("", 0, "senders", "an incast needs at least 1 sender");
    }
    if (bytes == 0)
    {
        throw InputError("", 0, "bytes", "expected at least 1 byte per transfer, got 0");
    }
    std::set<uint32_t> seen;
    for (uint32_t s : senders)
    {
        if (s == dst)
        {
            throw InputError("",
                             0,
                             "senders",
                             "sender " + std::to_string(s) + " is the incast destination");
        }
        if (!seen.insert(s).second)
        {
            throw InputError("",
                             0,
                             "senders",
                             "sender " + std::to_string(s) + " is listed twice");
        }
    }

    WorkloadSpec w;
    w.description = std::to_string(senders.size()) + ":1 incast into host " +
                    std::to_string(dst) + ", " + std::to_string(bytes) + " B per flow";
    w.transfers.reserve(senders.size());
    for (uint32_t i = 0; i < senders.size(); ++i)
    {
        TransferSpec t;
        t.externalId = i;
        t.src = senders[i];
        t.dst = dst;
        t.bytes = bytes;
        t.startPs = 0;
        t.qpGroup = i;
        w.transfers.push_back(t);
    }
    return w;
}

uint64_t
RingPieceBytes(uint64_t bytesPerRank,
               uint32_t n,
               uint32_t channels,
               uint32_t chunk,
               uint32_t channel)
{
    CheckRing(n, bytesPerRank, channels);
    if (chunk >= n)
    {
        throw InputError("",
                         0,
                         "chunk",
                         "chunk " + std::to_string(chunk) + " out of range 0.." +
                             std::to_string(n - 1));
    }
    if (channel >= channels)
    {
        throw InputError("",
                         0,
                         "channel",
                         "channel " + std::to_string(channel) + " out of range 0.." +
                             std::to_string(channels - 1));
    }
    const uint64_t chunkBytes = bytesPerRank / n + (chunk < bytesPerRank % n ? 1 : 0);
    return chunkBytes / channels + (channel < chunkBytes % channels ? 1 : 0);
}

void
CheckRingRanks(const std::vector<uint32_t>& ranks, uint64_t bytesPerRank, uint32_t channels)
{
    if (ranks.empty())
    {
        throw InputError("", 0, "ranks", "a ring all-reduce needs at least 1 rank");
    }
    if (ranks.size() > std::numeric_limits<uint32_t>::max())
    {
        throw InputError("", 0, "ranks", "too many ranks");
    }
    const uint32_t n = static_cast<uint32_t>(ranks.size());
    {
        std::set<uint32_t> seen;
        for (uint32_t r : ranks)
        {
            if (!seen.insert(r).second)
            {
                throw InputError("",
                                 0,
                                 "ranks",
                                 "host " + std::to_string(r) + " appears twice in the ring");
            }
        }
    }
    CheckRing(n, bytesPerRank, channels);
    // 2(n-1) n C transfers must fit in memory (and steps in 32 bits).
    const double transferCount = 2.0 * (double(n) - 1.0) * double(n) * double(channels);
    if (transferCount > 1e9)
    {
        throw InputError("",
                         0,
                         "ranks",
                         "a ring all-reduce of " + std::to_string(n) + " ranks and " +
                             std::to_string(channels) + " channels has 2(n-1)nC = " +
                             std::to_string(transferCount) + " transfers; at most 1e9 supported");
    }
}

WorkloadSpec
RingAllReduceRest(const std::vector<uint32_t>& ranks, uint64_t bytesPerRank, uint32_t channels)
{
    const uint32_t n = static_cast<uint32_t>(ranks.size());
    WorkloadSpec w;
    w.description = "ring all-reduce, " + std::to_string(n) + " ranks, " +
                    std::to_string(channels) + " channels, S = " + std::to_string(bytesPerRank) +
                    " B";
    CollectiveSpec coll;
    coll.kind = "ring-allreduce";
    coll.ranks = ranks;
    coll.bytesPerRank = bytesPerRank;
    coll.busbwFactor = BusBwFactor("ring-allreduce", n);
    coll.channels = channels;
    coll.steps = 2 * (n - 1);
    w.collectives.push_back(coll);
    return w;
}

WorkloadSpec
MakeRingAllReduce(std::vector<uint32_t> ranks,
                  uint64_t bytesPerRank,
                  uint32_t channels,
                  uint64_t startPs)
{
    CheckRingRanks(ranks, bytesPerRank, channels);
    const uint32_t n = static_cast<uint32_t>(ranks.size());
    WorkloadSpec w = RingAllReduceRest(ranks, bytesPerRank, channels);
    if (n == 1)
    {
        return w;
    }
    // Piece sizes z_{j,c}, computed once.
    std::vector<uint64_t> piece(static_cast<size_t>(n) * channels);
    for (uint32_t j = 0; j < n; ++j)
    {
        for (uint32_t c = 0; c < channels; ++c)
        {
            piece[size_t(j) * channels + c] = RingPieceBytes(bytesPerRank, n, channels, j, c);
        }
    }
    AppendRingSteps(w, ranks, piece, channels, startPs, 0, 2 * (n - 1));
    return w;
}

double
BusBwFactor(const std::string& kind, uint32_t n)
{
    if (n == 0)
    {
        throw InputError("", 0, "collective.ranks", "a collective needs at least 1 rank");
    }
    std::string k;
    k.reserve(kind.size());
    for (char ch : kind)
    {
        k.push_back(ch == '_' ? '-'
                              : static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
    }
    const double nn = n;
    if (k == "all-reduce" || k == "allreduce" || k == "ring-allreduce" ||
        k == "tree-allreduce" || k == "halving-doubling-allreduce")
    {
        return 2.0 * (nn - 1.0) / nn;
    }
    if (k == "all-gather" || k == "allgather" || k == "reduce-scatter" ||
        k == "reducescatter" || k == "all-to-all" || k == "alltoall")
    {
        return (nn - 1.0) / nn;
    }
    if (k == "broadcast" || k == "reduce" || k == "send-recv" || k == "sendrecv" ||
        k == "permutation" || k == "incast")
    {
        return 1.0;
    }
    throw InputError("",
                     0,
                     "collective.kind",
                     "unknown collective kind '" + kind +
                         "'; expected one of all-reduce, ring-allreduce, tree-allreduce, "
                         "halving-doubling-allreduce, all-gather, reduce-scatter, all-to-all, "
                         "broadcast, reduce, send-recv, permutation, incast");
}

double
RingAllReduceLowerBoundSeconds(uint32_t n, uint64_t bytesPerRank, double bitsPerSecond)
{
    if (n == 0)
    {
        throw InputError("", 0, "collective.ranks", "a collective needs at least 1 rank");
    }
    if (!(bitsPerSecond > 0.0) || bitsPerSecond == std::numeric_limits<double>::infinity())
    {
        throw InputError("",
                         0,
                         "bitsPerSecond",
                         "expected a positive, finite rate in bit/s, got " +
                             std::to_string(bitsPerSecond));
    }
    const double nn = n;
    return 2.0 * (nn - 1.0) / nn * static_cast<double>(bytesPerRank) * 8.0 / bitsPerSecond;
}

} // namespace ns3
