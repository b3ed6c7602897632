/*
 * tusk: collective algorithms by (kind, algorithm). See collective-registry.h.
 */
#include "collective-registry.h"

#include "in-network-schedule.h"

#include "fabric/model/input-error.h"
#include "fabric/model/registry.h"

#include "ns3/abort.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <tuple>

namespace ns3
{

namespace
{

Registry<CollectiveAlgorithmInfo>&
Table()
{
    static Registry<CollectiveAlgorithmInfo> table("collective algorithms");
    return table;
}

[[noreturn]] void
Fail(const std::string& field, const std::string& message)
{
    throw InputError("", 0, "collective." + field, message);
}

using R = CollectiveRequest;

/** The built-in algorithms: one row each (kind, algorithm, order, builder). */
const CollectiveAlgorithmRegistration kBuiltIn[] = {
    {{"", "RingAllReduceSchedule", "all-reduce", "ring", 0,
      "reduce-scatter then all-gather around a ring, 2(n-1) steps",
      "Patarasuk and Yuan, JPDC 2009; NCCL ring",
      [](const R& r) { return RingAllReduceSchedule(r.ranks, r.bytes); }}},
    {{"", "HalvingDoublingAllReduceSchedule", "all-reduce", "halving-doubling", 1,
      "recursive halving reduce-scatter, recursive doubling all-gather",
      "Thakur, Rabenseifner and Gropp, IJHPCA 2005",
      [](const R& r) { return HalvingDoublingAllReduceSchedule(r.ranks, r.bytes); }}},
    {{"", "DoubleBinaryTreeAllReduceSchedule", "all-reduce", "double-binary-tree", 2,
      "NCCL's two complementary binary trees, half of S each: reduce up, broadcast down",
      "NCCL 2.4 src/graph/trees.cc",
      [](const R& r) { return DoubleBinaryTreeAllReduceSchedule(r.ranks, r.bytes); }}},
    {{"", "HierarchicalRingAllReduceSchedule", "all-reduce", "hierarchical-ring", 3,
      "ring reduce-scatter in each server, ring all-reduce across servers per rail, "
      "ring all-gather in each server",
      "2-D all-reduce, Ying et al. 2018",
      [](const R& r) { return HierarchicalRingAllReduceSchedule(r.ranks, r.bytes, r.localSize); }}},
    {{"", "InNetworkAllReduceSchedule", "all-reduce", "in-network", 4,
      "SHARP/CollNet-style switch aggregation: ranks up to their leaf's aggregation endpoint, "
      "leaves to the root's, the sum back down; S once each way per link "
      "(needs topology.in_network_reduction)",
      "Graham et al., SHArP, COMHPC 2016; NCCL CollNet",
      [](const R& r) {
          if (r.leafOf.size() != r.ranks)
          {
              Fail("algorithm", "in-network needs switches that aggregate: set [topology] "
                                "in_network_reduction = true (leaf-spine or fat-tree)");
          }
          return InNetworkAllReduceSchedule(r.leafOf, r.bytes, 1).schedule;
      }}},
    {{"", "RingAllGatherSchedule", "all-gather", "ring", 0, "n-1 ring steps",
      "NCCL ring", [](const R& r) { return RingAllGatherSchedule(r.ranks, r.bytes); }}},
    {{"", "RingReduceScatterSchedule", "reduce-scatter", "ring", 0, "n-1 ring steps",
      "NCCL ring", [](const R& r) { return RingReduceScatterSchedule(r.ranks, r.bytes); }}},
    {{"", "DirectAllToAllSchedule", "all-to-all", "direct", 0, "every pair at once, one step",
      "NCCL's all-to-all (grouped send/recv)",
      [](const R& r) { return DirectAllToAllSchedule(r.ranks, r.bytes); }}},
    {{"", "PairwiseAllToAllSchedule", "all-to-all", "pairwise", 1,
      "n-1 serialised steps, rank i to i+k in step k", "Thakur et al., IJHPCA 2005",
      [](const R& r) { return PairwiseAllToAllSchedule(r.ranks, r.bytes); }}},
    {{"", "ChainBroadcastSchedule", "broadcast", "chain", 0, "root along a chain of all ranks",
      "NCCL ring broadcast",
      [](const R& r) { return ChainBroadcastSchedule(r.ranks, r.bytes, r.root); }}},
    {{"", "SendRecvSchedule", "send-recv", "p2p", 0, "one send from root to peer",
      "pipeline-parallel activations",
      [](const R& r) { return SendRecvSchedule(r.ranks, r.bytes, r.root, r.peer); }}},
    {{"", "PermutationSchedule", "permutation", "p2p", 0, "a random derangement, one step",
      "htsim permutation matrices",
      [](const R& r) { return PermutationSchedule(r.ranks, r.bytes, r.seed); }}},
    {{"", "IncastSchedule", "incast", "p2p", 0, "every rank to root, one step",
      "htsim incast matrices", [](const R& r) { return IncastSchedule(r.ranks, r.bytes, r.root); }}},
};

/** floor(log2(v)) for v >= 1, 0 for v == 0 (NCCL's log2i). */
int
Log2i(uint64_t v)
{
    int l = 0;
    while (v >>= 1)
    {
        ++l;
    }
    return l;
}

} // namespace

CollectiveAlgorithmRegistration::CollectiveAlgorithmRegistration(CollectiveAlgorithmInfo info)
{
    const auto& kinds = CollectiveKinds();
    NS_ABORT_MSG_IF(std::find(kinds.begin(), kinds.end(), info.kind) == kinds.end(),
                    "collective algorithm " << info.algorithm << ": unknown kind " << info.kind);
    NS_ABORT_MSG_IF(!info.build, "collective algorithm " << info.kind << "/" << info.algorithm
                                                         << " has no builder");
    info.name = info.kind + "/" + info.algorithm;
    Table().Register(std::move(info));
}

std::vector<CollectiveAlgorithmInfo>
CollectiveAlgorithmTable()
{
    std::vector<CollectiveAlgorithmInfo> all = Table().All();
    const auto& kinds = CollectiveKinds();
    auto pos = [&](const std::string& k) { return std::find(kinds.begin(), kinds.end(), k) - kinds.begin(); };
    std::stable_sort(all.begin(), all.end(), [&](const auto& a, const auto& b) {
        return std::make_tuple(pos(a.kind), a.order, a.algorithm) <
               std::make_tuple(pos(b.kind), b.order, b.algorithm);
    });
    return all;
}

const CollectiveAlgorithmInfo*
FindCollectiveAlgorithm(const std::string& kind, const std::string& algorithm)
{
    return Table().Find(kind + "/" + algorithm);
}

std::vector<std::string>
CollectiveAlgorithms(const std::string& kind)
{
    const std::string k = CanonicalCollectiveKind(kind);
    std::vector<std::string> out;
    for (const auto& a : CollectiveAlgorithmTable())
    {
        if (a.kind == k)
        {
            out.push_back(a.algorithm);
        }
    }
    return out;
}

std::string
DefaultCollectiveAlgorithm(const std::string& kind)
{
    const auto algorithms = CollectiveAlgorithms(kind);
    if (algorithms.empty())
    {
        Fail("algorithm", "no algorithm is registered for " + CanonicalCollectiveKind(kind));
    }
    return algorithms.front();
}

CollectiveSchedule
MakeCollectiveSchedule(const CollectiveRequest& r)
{
    const std::string kind = CanonicalCollectiveKind(r.kind);
    const auto valid = CollectiveAlgorithms(kind);
    const std::string wanted =
        SquashCollectiveName(r.algorithm.empty() ? DefaultCollectiveAlgorithm(kind) : r.algorithm);
    auto it = std::find_if(valid.begin(), valid.end(), [&](const std::string& a) {
        return SquashCollectiveName(a) == wanted;
    });
    if (it == valid.end())
    {
        std::string list;
        for (const auto& a : valid)
        {
            list += (list.empty() ? "" : ", ") + a;
        }
        Fail("algorithm",
             "\"" + r.algorithm + "\" is not an algorithm of " + kind + "; expected " + list);
    }
    return FindCollectiveAlgorithm(kind, *it)->build(r);
}

std::vector<AutoAlgorithmEstimate>
AutoAllReduceEstimates(const AutoAlgorithmInput& in)
{
    std::vector<AutoAlgorithmEstimate> out;
    const uint32_t n = std::max<uint32_t>(in.ranks, 1);
    const uint32_t perNode = std::max<uint32_t>(std::min(in.ranksPerServer, n), 1);
    const uint32_t nodes = std::max<uint32_t>(n / perNode, 1);
    const double S = static_cast<double>(in.bytes);
    // NCCL src/graph/tuning.cc, Simple protocol: baseLat, hwLat[NVLINK], hwLat[NET] (µs).
    const double ringBase = 8.4, ringIntra = 3.4, ringInter = 9.6;
    const double treeBase = 0.0, treeIntra = 28, treeInter = 50;
    const double collnetBase = 0.0, collnetIntra = 4.0, collnetInter = 10.7;
    // Tree correction factor, Simple protocol, by log2(S / 64) for S from 64 B to 128 MB.
    static const double kTreeCorrection[22] = {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6,
                                                .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9};
    const double busBw = in.linkGBps;
    if (n < 2)
    {
        out.push_back({"ring", 0, busBw, 0});
        return out;
    }
    {
        const double nsteps = 2.0 * (n - 1);
        const double inter = 2.0 * (nodes - 1);
        double lat = ringBase + (nsteps - inter) * ringIntra + inter * ringInter;
        if (nodes > 1 && S >= n / 16.0 * 65536)
        {
            lat *= 1.9;
        }
        const double bw = busBw * n / nsteps;
        out.push_back({"ring", lat, bw, lat + S / (1000 * bw)});
    }
    {
        const double maxTree = nodes > 2 ? 80.0 : 110.0;
        double bw = 0.5 * std::min(busBw * 0.9, maxTree);
        const int logSize = Log2i(in.bytes >> 6);
        if (logSize < 22)
        {
            bw *= kTreeCorrection[logSize];
        }
        const double lat =
            treeBase + 2 * ((double(n) / nodes - 1) * treeIntra + Log2i(nodes) * treeInter);
        out.push_back({"double-binary-tree", lat, bw, lat + S / (1000 * bw)});
    }
    if (in.innetworkReduction && FindCollectiveAlgorithm("all-reduce", "in-network"))
    {
        const double bw = 0.5 * 0.9 * busBw;
        const double lat = collnetBase + 2 * (double(n) / nodes - 1) * collnetIntra + collnetInter;
        out.push_back({"in-network", lat, bw, lat + S / (1000 * bw)});
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.timeUs < b.timeUs; });
    return out;
}

std::string
AutoAllReduceAlgorithm(const AutoAlgorithmInput& in)
{
    return AutoAllReduceEstimates(in).front().algorithm;
}

std::string
ChooseCollectiveAlgorithm(const std::string& kind,
                          const std::string& requested,
                          const AutoAlgorithmInput& in)
{
    const std::string k = CanonicalCollectiveKind(kind);
    if (requested == "auto")
    {
        return k == "all-reduce" ? AutoAllReduceAlgorithm(in) : DefaultCollectiveAlgorithm(k);
    }
    if (!requested.empty() && FindCollectiveAlgorithm(k, requested))
    {
        return requested;
    }
    return DefaultCollectiveAlgorithm(k);
}

} // namespace ns3
