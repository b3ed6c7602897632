/*
 * tusk: pure traffic generators (no ns-3 objects, no Simulator).
 *
 * Each generator returns a WorkloadSpec (see workload-spec.h): point-to-point transfers plus the
 * triggers that order them. Host ids are the fabric's host indices. Invalid arguments throw
 * ns3::InputError with an empty file name, line 0 and a key naming the workload field
 * ("workload.hosts", "workload.bytes", ...), so that a scenario reader can re-throw it with
 * its own file and line.
 *
 * Sources: nccl-tests doc/PERFORMANCE.md (algbw, busbw and the busbw factors); NCCL's ring
 * all-reduce (reduce-scatter then all-gather around a ring, one ring per channel).
 */
#ifndef TUSK_TRAFFIC_GENERATORS_H
#define TUSK_TRAFFIC_GENERATORS_H

#include "workload-spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/*
 * Errors: InputError with file "", line 0 and the key of the parameter at fault (its name
 * here: "bytes", "ranks", ...); a scenario layer reports its own key instead.
 */

/**
 * \brief A random permutation in which no host sends to itself (a derangement).
 *
 * Hosts 0 .. hosts-1 each send exactly one transfer of `bytes` bytes and receive exactly one.
 * The derangement is drawn uniformly from all derangements of `hosts` elements: a
 * Fisher–Yates shuffle driven by std::mt19937_64(seed), with our own unbiased bounded draw
 * (rejection on the 64-bit output), repeated until the result has no fixed point (expected
 * e ≈ 2.72 shuffles). No implementation-defined library algorithm is involved
 * (std::shuffle and std::uniform_int_distribution are), so a seed gives the same permutation
 * with every standard library.
 *
 * Transfer i is host i → perm[i], starts at 0 ps, externalId = qpGroup = i.
 *
 * \param hosts number of hosts, >= 2
 * \param bytes payload bytes per transfer, >= 1
 * \param seed  seed of the std::mt19937_64 generator
 * \return hosts transfers, no triggers, no collectives
 * \throws InputError key "hosts" if hosts < 2, "bytes" if bytes == 0
 */
WorkloadSpec MakePermutation(uint32_t hosts, uint64_t bytes, uint64_t seed);

/**
 * \brief Incast: every sender sends `bytes` bytes to `dst`, all starting at 0 ps.
 *
 * Transfer i is senders[i] → dst, externalId = qpGroup = i.
 *
 * \param senders source host ids: non-empty, distinct, none equal to dst
 * \param dst     destination host id
 * \param bytes   payload bytes per transfer, >= 1
 * \return senders.size() transfers, no triggers, no collectives
 * \throws InputError key "senders" (empty, duplicate, or a sender equal to dst), "bytes"
 *         (bytes == 0)
 */
WorkloadSpec MakeIncast(std::vector<uint32_t> senders, uint32_t dst, uint64_t bytes);

/**
 * \brief Bytes of one ring all-reduce piece: chunk `chunk` (0..n-1) on channel `channel`.
 *
 * The per-rank buffer of S bytes is split into n chunks, chunk j holding
 *   z_j = floor(S / n) + (j < S mod n ? 1 : 0) bytes,
 * and chunk j is split over the C channels, channel c carrying
 *   z_{j,c} = floor(z_j / C) + (c < z_j mod C ? 1 : 0) bytes.
 * Hence sum_c z_{j,c} = z_j and sum_j z_j = S exactly.
 *
 * \throws InputError as MakeRingAllReduce for invalid n / C / S, key "chunk" or
 *         "channel" for an index out of range
 */
uint64_t RingPieceBytes(uint64_t bytesPerRank,
                        uint32_t n,
                        uint32_t channels,
                        uint32_t chunk,
                        uint32_t channel);

/**
 * \brief NCCL-style ring all-reduce over `ranks` with `channels` parallel rings.
 *
 * n = ranks.size() ranks; rank i sends to rank (i + 1) mod n. The collective has
 * 2(n − 1) sequential steps: steps 0 .. n−2 are the reduce-scatter, steps n−1 .. 2n−3 the
 * all-gather. In step k, on every channel c, rank i sends the piece (chunk (i − k) mod n,
 * channel c) of z_{(i−k) mod n, c} bytes (see RingPieceBytes) to rank i + 1. This is the
 * standard ring schedule: in the reduce-scatter rank i forwards (reduced) the chunk it
 * received in step k − 1; after step n − 2 it owns the fully reduced chunk (i + 1) mod n,
 * which it sends first in the all-gather, then forwards what it receives.
 *
 * Bytes, exact (n >= 2; indices mod n):
 *   sent by rank i     = 2S − z_{i+1} − z_{i+2}
 *   received by rank i = 2S − z_i − z_{i+1}
 * i.e. exactly 2(n − 1)/n · S when n divides S; per step and channel a rank sends one piece.
 * Over all ranks the collective moves 2(n − 1) · S bytes.
 *
 * Dependencies: step 0 of every (rank, channel) starts at startPs (absolute). Step k > 0 of
 * (rank i, channel c) waits on its own ONESHOT trigger, activated by the recv-done of step
 * k − 1 of (rank i − 1 → i, channel c), i.e. when the data it forwards has arrived; its
 * startPs is 0 (no delay after the trigger).
 *
 * Transfers are ordered by step, then rank, then channel (index = (k·n + i)·C + c), so the
 * per-channel connection rank i → i + 1 (qpGroup = c) is posted in step order. Each transfer
 * has collective = 0, step = k, channel = c, externalId = its index. Trigger t has
 * externalId t. One CollectiveSpec: kind "ring-allreduce", ranks, bytesPerRank = S,
 * busbwFactor = 2(n − 1)/n, channels = C, steps = 2(n − 1).
 *
 * n = 1 gives zero transfers (and steps = 0, busbwFactor = 0).
 *
 * \param ranks        host id of each rank: non-empty, distinct
 * \param bytesPerRank S, the per-rank buffer size as nccl-tests uses it, bytes; >= n · C so
 *                     that every piece has at least one byte
 * \param channels     C, the number of channels (rings), >= 1
 * \param startPs      start time of step 0, ps
 * \throws InputError key "ranks" (empty or duplicate ranks, or more than 1e9 transfers),
 *         "channels" (C == 0), "bytesPerRank" (S < n · C)
 */
WorkloadSpec MakeRingAllReduce(std::vector<uint32_t> ranks,
                               uint64_t bytesPerRank,
                               uint32_t channels,
                               uint64_t startPs);

/** \brief MakeRingAllReduce's checks of its arguments. \throws InputError as it does */
void CheckRingRanks(const std::vector<uint32_t>& ranks, uint64_t bytesPerRank, uint32_t channels);

/** MakeRingAllReduce's spec without its transfers and triggers: the description and the
 *  collective (RingStepUnits builds the transfers a window of steps at a time). */
WorkloadSpec RingAllReduceRest(const std::vector<uint32_t>& ranks,
                               uint64_t bytesPerRank,
                               uint32_t channels);

/**
 * \brief busbw = algbw × factor, as nccl-tests doc/PERFORMANCE.md defines it.
 *
 * all-reduce 2(n − 1)/n; all-gather, reduce-scatter, all-to-all (n − 1)/n; broadcast and
 * reduce 1; send-recv 1 (nccl-tests sendrecv). Permutation and incast are not nccl-tests
 * collectives; their factor is 1 (busbw = algbw). Kind names are case-insensitive and '_'
 * equals '-'. Accepted: "all-reduce", "allreduce", "ring-allreduce", "tree-allreduce",
 * "halving-doubling-allreduce", "all-gather", "allgather", "reduce-scatter",
 * "reducescatter", "all-to-all", "alltoall", "broadcast", "reduce", "send-recv", "sendrecv",
 * "permutation", "incast".
 *
 * \param kind collective kind
 * \param n    number of ranks, >= 1
 * \throws InputError key "collective.kind" (unknown kind, listing the valid ones),
 *         "collective.ranks" (n == 0)
 */
double BusBwFactor(const std::string& kind, uint32_t n);

/**
 * \brief Lower bound of a ring all-reduce's CCT on any fabric: 2(n − 1)/n · S · 8 / B seconds.
 *
 * Each rank must send 2(n − 1)/n · S payload bytes through its NIC of B bit/s (oracles 1, 3).
 * n = 8, S = 1 GiB, B = 400 Gb/s gives 37.58 ms.
 *
 * \param n             number of ranks, >= 1
 * \param bytesPerRank  S, bytes
 * \param bitsPerSecond B, the NIC rate, bit/s, > 0
 * \return seconds
 * \throws InputError key "collective.ranks" (n == 0), "bitsPerSecond" (B not > 0)
 */
double RingAllReduceLowerBoundSeconds(uint32_t n, uint64_t bytesPerRank, double bitsPerSecond);

} // namespace ns3

#endif
