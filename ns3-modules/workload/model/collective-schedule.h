/*
 * tusk: collectives as pure step generators (no ns-3 objects, no Simulator).
 *
 * A CollectiveSchedule lists the point-to-point sends ("ops") of one collective in rank space
 * (ranks 0 .. n-1), each with the ops it depends on. It says nothing about hosts, channels,
 * QPs or time: WorkloadBuilder (workload-builder.h) lowers a schedule onto hosts with
 * NCCL-like channels and chunking, and WorkloadExecutor runs the result.
 *
 * Dependency rule. Op o may depend on op d only if the dependency can be observed where o
 * starts, at rank o.src:
 *   - d.dst == o.src: o waits until d's last byte has been delivered at o.src (recv-done),
 *     "my input has arrived" (a ring step forwarding what it received);
 *   - d.src == o.src: o waits until d is fully acknowledged at o.src (send-done),
 *     "my previous send is complete" (pairwise all-to-all).
 * Dependencies always point to earlier ops (d < o), so a schedule is acyclic by construction.
 * op.step is the dependency level: 0 for an op without dependencies, else 1 + the largest
 * step of its dependencies; steps = 1 + the largest step (0 for an empty schedule).
 *
 * Sizes follow nccl-tests (doc/PERFORMANCE.md): S is the per-rank buffer size nccl-tests
 * reports: the buffer of an all-reduce and a broadcast, the whole output of an all-gather, the
 * whole input of a reduce-scatter, the whole send buffer of an all-to-all. Wherever a buffer is
 * cut into n blocks, block j holds z_j = floor(S / n) + (j < S mod n ? 1 : 0) bytes (BlockBytes),
 * so the blocks add up to S exactly.
 *
 * Errors: invalid arguments throw ns3::InputError with an empty file name, line 0 and a key
 * "collective.<field>" ("collective.ranks", "collective.bytes", "collective.kind",
 * "collective.algorithm", "collective.root", "collective.peer", "collective.local_size"), so that
 * a scenario reader can re-throw it with its own file, line and key.
 *
 * Sources: nccl-tests doc/PERFORMANCE.md (sizes, busbw factors); NCCL src/graph/trees.cc
 * (ncclGetBtree / ncclGetDtree: the double binary tree); R. Thakur, R. Rabenseifner,
 * W. Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA 2005
 * (recursive halving / doubling, and the pre/post step for a non-power-of-two rank count).
 */
#ifndef TUSK_COLLECTIVE_SCHEDULE_H
#define TUSK_COLLECTIVE_SCHEDULE_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** One point-to-point send of a collective, in rank space. */
struct CollectiveOp
{
    uint32_t src = 0;           //!< sending rank, 0 .. n-1
    uint32_t dst = 0;           //!< receiving rank, != src
    uint64_t bytes = 0;         //!< payload bytes, >= 1
    uint32_t step = 0;          //!< dependency level (see the file comment)
    std::vector<uint32_t> deps; //!< indices of earlier ops this one waits for
};

/** The ops of one collective. */
struct CollectiveSchedule
{
    /** Canonical kind: "all-reduce", "all-gather", "reduce-scatter", "all-to-all",
     *  "broadcast", "send-recv", "permutation" or "incast". */
    std::string kind;
    /** "ring", "halving-doubling", "double-binary-tree", "hierarchical-ring", "direct",
     *  "pairwise", "chain" (broadcast) or "p2p" (send-recv, permutation, incast). */
    std::string algorithm;
    uint32_t ranks = 0;       //!< n
    uint64_t bytes = 0;       //!< S, the per-rank size as nccl-tests uses it, bytes
    double busbwFactor = 1.0; //!< busbw = algbw * factor (BusBwFactor)
    uint32_t steps = 0;       //!< 1 + the largest op step; 0 without ops
    std::vector<CollectiveOp> ops;
};

/** What to generate (MakeCollectiveSchedule). */
struct CollectiveRequest
{
    std::string kind;       //!< any name CanonicalCollectiveKind accepts
    std::string algorithm;  //!< "" = DefaultCollectiveAlgorithm(kind)
    uint32_t ranks = 0;     //!< n >= 1
    uint64_t bytes = 0;     //!< S, bytes
    uint32_t root = 0;      //!< broadcast: root; incast: destination; send-recv: sender
    uint32_t peer = 1;      //!< send-recv: receiver
    uint32_t localSize = 1; //!< hierarchical-ring: consecutive ranks per server (divides n)
    uint64_t seed = 0;      //!< permutation: seed of the derangement (MakePermutation)
    /** in-network: the aggregation endpoint (any id, e.g. its host id) of every rank's leaf;
     *  size n (in-network-schedule.h). Empty for the other algorithms. */
    std::vector<uint32_t> leafOf;
};

/**
 * \brief The canonical name of a collective kind. Case-insensitive, '_' equals '-', and the
 * dash may be omitted: "allreduce", "ALL_REDUCE" -> "all-reduce"; "sendrecv" -> "send-recv".
 * \throws InputError key "collective.kind" for an unknown kind, listing the valid ones
 */
std::string CanonicalCollectiveKind(const std::string& kind);

/** "All_Reduce" -> "allreduce": lower case without '-', '_' and ' ' (how kind and algorithm
 *  names are compared). */
std::string SquashCollectiveName(const std::string& s);

/** The canonical kinds, in documentation order. */
const std::vector<std::string>& CollectiveKinds();

/**
 * \brief The algorithms registered for a kind (collective-registry.h), the default first.
 * Built in: all-reduce: ring, halving-doubling, double-binary-tree, hierarchical-ring,
 * in-network;
 * all-gather and reduce-scatter: ring; all-to-all: direct, pairwise; broadcast: chain;
 * send-recv, permutation, incast: p2p.
 * \throws InputError key "collective.kind" for an unknown kind
 */
std::vector<std::string> CollectiveAlgorithms(const std::string& kind);

/** \brief The first entry of CollectiveAlgorithms(kind). */
std::string DefaultCollectiveAlgorithm(const std::string& kind);

/** \brief z_j = floor(S / n) + (j < S mod n ? 1 : 0): block j of S cut into n blocks.
 *  \throws InputError key "collective.ranks" if n == 0 or j >= n */
uint64_t BlockBytes(uint64_t bytes, uint32_t n, uint32_t j);

/**
 * \brief Generate the schedule of a request with the builder registered for its kind and
 * algorithm (collective-registry.h; the built-ins are the functions below).
 * \throws InputError as those functions, and key "collective.algorithm" for an algorithm the
 *         kind does not have
 */
CollectiveSchedule MakeCollectiveSchedule(const CollectiveRequest& request);

/**
 * \brief Ring all-reduce: reduce-scatter then all-gather around ranks 0 -> 1 -> ... -> n-1 -> 0.
 *
 * 2(n-1) steps, n ops each: op k*n + i is rank i -> i+1 in step k, carrying block
 * (i - k) mod n of S (the chunk rule of MakeRingAllReduce) and depending on op
 * (k-1)*n + (i-1) (its input arrived). Sent by rank i: 2S - z_{i+1} - z_{i+2}; received:
 * 2S - z_i - z_{i+1} (indices mod n), i.e. 2(n-1)/n * S each when n divides S.
 * \throws InputError "collective.ranks" (n == 0), "collective.bytes" (S < n, a block would be empty)
 */
CollectiveSchedule RingAllReduceSchedule(uint32_t n, uint64_t bytes);

/**
 * \brief Ring reduce-scatter: n-1 steps; in step k rank i sends block (i - k - 1) mod n to
 * rank i+1, so that rank i ends with the reduced block i. Sent by rank i: every block but
 * block i, S - z_i; received: every block but block i-1, S - z_{i-1} (indices mod n);
 * (n-1)/n * S each when n divides S. Dependencies as the ring all-reduce.
 * \throws InputError "collective.ranks", "collective.bytes" (S < n)
 */
CollectiveSchedule RingReduceScatterSchedule(uint32_t n, uint64_t bytes);

/**
 * \brief Ring all-gather of a total output of S bytes: rank i owns block i; in step k
 * (0 .. n-2) it sends block (i - k) mod n to rank i+1. Sent by rank i: S - z_{i+1}; received:
 * S - z_i. Dependencies as the ring all-reduce.
 * \throws InputError "collective.ranks", "collective.bytes" (S < n)
 */
CollectiveSchedule RingAllGatherSchedule(uint32_t n, uint64_t bytes);

/**
 * \brief Recursive halving-doubling all-reduce (Rabenseifner; Thakur et al. 2005).
 *
 * With p = 2^m the largest power of two <= n and r = n - p: a pre-step in which each even rank
 * i < 2r sends its whole buffer S to rank i+1 (and sits out); the p remaining ranks (odd i < 2r
 * as i/2, i >= 2r as i-r) run a reduce-scatter by recursive halving (m steps: in step k
 * partner v XOR 2^(m-1-k), send the half of the current block range the partner keeps) and an
 * all-gather by recursive doubling (m steps: partner v XOR 2^k, send every block held); a
 * post-step returns the result S from each odd rank i < 2r to i-1. Blocks: S cut into p.
 * For n = 2^m every rank sends and receives 2(p-1)/p * S when p divides S.
 * Steps: 2m, plus 2 when r > 0.
 * \throws InputError "collective.ranks", "collective.bytes" (S < p)
 */
CollectiveSchedule HalvingDoublingAllReduceSchedule(uint32_t n, uint64_t bytes);

/**
 * \brief NCCL's double binary tree all-reduce (NCCL 2.4, src/graph/trees.cc).
 *
 * Tree 0 is NCCL's btree (root 0; the parent of rank r with lowest set bit b is
 * (r XOR b) | 2b, or r XOR b if that is >= n); tree 1 is its mirror r -> n-1-r for even n
 * or its shift r -> r+1 for odd n, so that most interior ranks of one tree are leaves of the
 * other. Tree 0 carries the first ceil(S/2) bytes, tree 1 the other floor(S/2). In each tree,
 * reduce: every non-root rank sends its half to its parent after receiving it from all its
 * children; broadcast: the root, once it has heard from all its children, and every other rank,
 * once it has received from its parent, sends the half to each child.
 * \throws InputError "collective.ranks", "collective.bytes" (S < 2 for n >= 2)
 */
CollectiveSchedule DoubleBinaryTreeAllReduceSchedule(uint32_t n, uint64_t bytes);

/** \brief Parent of rank r in NCCL's btree over n ranks (-1 for the root 0). */
int32_t BtreeParent(uint32_t n, uint32_t r);
/** \brief Parent of rank r in tree t (0 or 1) of NCCL's double binary tree (-1 for its root). */
int32_t DoubleTreeParent(uint32_t n, uint32_t tree, uint32_t r);

/**
 * \brief Hierarchical (2D) ring all-reduce: n = m * L ranks in m servers of L consecutive ranks.
 * (1) ring reduce-scatter of S inside each server (L blocks of S; local rank l ends with block
 * l); (2) for each l, a ring all-reduce of block l across the m servers among the ranks with
 * local index l (the same rail); (3) ring all-gather inside each server. Phase 2 at a rank
 * starts when its last phase-1 input arrived, phase 3 when its last phase-2 input arrived.
 * L = 1 or L = n give a plain ring all-reduce's traffic. Sent by every rank when L divides S
 * and m divides S/L: 2(L-1)/L * S inside the server plus 2(m-1)/m * S/L across servers.
 * \throws InputError "collective.ranks", "collective.local_size" (0, or not dividing n),
 *         "collective.bytes" (S < n)
 */
CollectiveSchedule HierarchicalRingAllReduceSchedule(uint32_t n, uint64_t bytes, uint32_t localSize);

/**
 * \brief All-to-all, all sends at once: rank i sends block j of its S-byte send buffer to
 * every rank j != i, peers in the order i+1, i+2, ... (mod n). One step. Sent by rank i:
 * S - z_i; received by rank i: (n-1) * z_i.
 * \throws InputError "collective.ranks", "collective.bytes" (S < n)
 */
CollectiveSchedule DirectAllToAllSchedule(uint32_t n, uint64_t bytes);

/**
 * \brief Pairwise (serialised) all-to-all: n-1 steps; in step k (1 .. n-1) rank i sends block
 * (i+k) mod n to rank (i+k) mod n, after its step k-1 send is acknowledged and its step k-1
 * input has arrived. Bytes as DirectAllToAllSchedule.
 * \throws InputError "collective.ranks", "collective.bytes" (S < n)
 */
CollectiveSchedule PairwiseAllToAllSchedule(uint32_t n, uint64_t bytes);

/**
 * \brief Broadcast along a chain (NCCL's ring broadcast): root -> root+1 -> ... -> root+n-1
 * (mod n), each rank forwarding S bytes once they arrived. n-1 steps; every rank but the last
 * of the chain sends S, every rank but the root receives S.
 * \throws InputError "collective.ranks", "collective.root" (>= n), "collective.bytes" (S == 0)
 */
CollectiveSchedule ChainBroadcastSchedule(uint32_t n, uint64_t bytes, uint32_t root);

/**
 * \brief Point-to-point send of S bytes from rank src to rank dst (pipeline parallelism).
 * \throws InputError "collective.ranks" (n < 2), "collective.root" / "collective.peer"
 *         (out of range or equal), "collective.bytes" (S == 0)
 */
CollectiveSchedule SendRecvSchedule(uint32_t n, uint64_t bytes, uint32_t src, uint32_t dst);

/**
 * \brief Every rank sends S bytes to perm[i], perm a uniformly random derangement drawn as in
 * MakePermutation(n, S, seed). One step.
 * \throws InputError "collective.ranks" (n < 2), "collective.bytes" (S == 0)
 */
CollectiveSchedule PermutationSchedule(uint32_t n, uint64_t bytes, uint64_t seed);

/**
 * \brief Every rank except root sends S bytes to root. One step.
 * \throws InputError "collective.ranks" (n < 2), "collective.root" (>= n), "collective.bytes"
 */
CollectiveSchedule IncastSchedule(uint32_t n, uint64_t bytes, uint32_t root);

/** Bytes each rank sends and receives in a schedule (index = rank). */
struct RankBytes
{
    std::vector<uint64_t> sent;
    std::vector<uint64_t> received;
};

/** \brief Sum the ops' bytes per sending and per receiving rank. */
RankBytes ScheduleRankBytes(const CollectiveSchedule& schedule);

/**
 * \brief Check the invariants every generator guarantees: ranks in range, src != dst,
 * bytes >= 1, dependencies earlier and observable at the op's source (see the file comment),
 * steps consistent with the dependency levels.
 * \throws InputError key "collective.ops" naming the first broken op
 */
void ValidateSchedule(const CollectiveSchedule& schedule);

} // namespace ns3

#endif
