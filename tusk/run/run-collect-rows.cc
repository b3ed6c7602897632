/*
 * tusk: the rows of flows.csv, collectives.csv and waits.csv for a range of transfers and
 * collectives: the whole workload at the end of a run, or one job iteration when it retires
 * (jobs built iteration by iteration). See collect-rows.h.
 */
#include "run/collect-rows.h"
#include "run/waits.h"

#include "fabric/model/ideal-fct.h"
#include "fabric/helper/fair-share-ideal.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace tusk
{

using namespace ns3;

namespace
{

/** Per host: payload bytes sent and received through the NIC and through the scale-up port. */
struct HostBytes
{
    uint64_t netSent = 0;
    uint64_t netRecv = 0;
    uint64_t suSent = 0;
    uint64_t suRecv = 0;
};

} // namespace

Framing
RowSources::DataFraming() const
{
    Framing framing;
    framing.mtuBytes = spec.nic.mtuBytes;
    framing.headerBytes = DataHeaderBytes(spec);
    framing.phyOverheadBytes = spec.fabric.phyOverheadBytes;
    return framing;
}

uint64_t
RowSources::IdealFctPs(uint32_t src, uint32_t dst, uint64_t bytes) const
{
    const auto key = std::make_pair(static_cast<uint64_t>(src) << 32 | dst, bytes);
    if (const uint64_t* found = ideals->Find(key))
    {
        return *found;
    }
    return ideals->Insert(key, built.fabric.IdealFctPs(src, dst, bytes, DataFraming()));
}

namespace
{

/** The paths of `r` (transfer t's record, from `ts`'s source) decoded into `paths` (its
 *  storage reused): each (links, frames), those that do not decode to a path ending at the
 *  destination left out. */
void
DecodeFlowPaths(const RowSources& src,
                const TransferSpec& ts,
                const TransferRecord& r,
                decltype(FlowRow::paths)& paths)
{
    size_t kept = 0;
    for (const auto& [code, frames] : r.Paths())
    {
        if (kept == paths.size())
        {
            paths.emplace_back();
        }
        std::vector<uint32_t>& links = paths[kept].first;
        links.reserve(8); // one allocation for a path of up to 8 links, not 1, 2, 4, 8
        if (src.built.fabric.DecodePath(ts.src, code, links) &&
            (src.graph.links[links.back()].a == ts.dst ||
             src.graph.links[links.back()].b == ts.dst))
        {
            paths[kept++].second = frames;
        }
    }
    paths.resize(kept);
}

/** flows.csv's row of transfer `t` into `row`, which may hold an earlier transfer's row: its
 *  fields are all set anew and its path lists' storage is reused (AppendFlowRows); its paths
 *  left empty unless `withPaths`. */
void
FillFlowRow(const RowSources& src,
            const Framing& framing,
            uint32_t t,
            FlowRow& row,
            uint64_t& lastCompletion,
            bool withPaths)
{
    const ScenarioSpec& spec = src.spec;
    const BuiltFabric& built = src.built;
    const Executor& executor = src.executor;
    const TransferSpec& ts = src.transfer(t);
    // When: from the executor's trace sources. QP counters: from its record, counts of
    // messages still in progress included (an unfinished transfer's retransmissions are
    // what explains it).
    const MetricsSink::TransferTimes& when = src.sink.Times(t);
    // A finished transfer's record as it is (no copy of its path and message lists); an
    // unfinished one's with the counts of its messages in progress.
    const TransferRecord& held = executor.exec->GetRecord(t);
    TransferRecord pending;
    if (!(held.recvDone && held.sendDone))
    {
        pending = executor.exec->RecordWithPending(t);
    }
    const TransferRecord& r = held.recvDone && held.sendDone ? held : pending;
    decltype(row.paths) paths = std::move(row.paths); // its lists' storage, refilled below
    row = FlowRow();
    row.id = ts.externalId;
    row.src = ts.src;
    row.dst = ts.dst;
    row.bytes = ts.bytes;
    row.started = when.startPs != kNoTime;
    row.finished = when.deliveredPs != kNoTime;
    row.startPs = row.started ? when.startPs : 0;
    row.deliveredBytes = executor.exec->DeliveredBytes(t);
    row.qps = r.qps;
    row.entropy = r.entropy;
    row.retxPackets = r.retxPackets;
    row.retxBytes = r.retxBytes;
    row.retxTimeoutPackets = r.retxTimeoutPackets;
    row.oooPackets = r.oooPackets;
    row.reorderMax = r.reorderMax;
    row.reorderMean =
        r.oooPackets ? static_cast<double>(r.reorderSum) / static_cast<double>(r.oooPackets) : 0;
    row.naks = r.naks;
    row.spuriousRetx = r.duplicates;
    row.pktsSent = r.pktsSent;
    row.pktsReceived = r.pktsReceived;
    row.pktsInFlight = static_cast<int64_t>(r.pktsSent) - static_cast<int64_t>(r.pktsReceived);
    for (int k = 0; k < kDropReasons; ++k)
    {
        row.pktsDropped[k] = r.pktsDropped[k];
        row.pktsInFlight -= static_cast<int64_t>(r.pktsDropped[k]);
    }
    row.collective = ts.collective;
    row.step = ts.step;
    row.channel = ts.channel;
    row.job = ts.collective >= 0 ? src.collective(ts.collective).job : -1;
    row.background = ts.background;
    row.port = ts.port;
    row.scaleUp = executor.scaleUp && executor.scaleUp->SameServer(ts.src, ts.dst);
    if (withPaths)
    {
        DecodeFlowPaths(src, ts, r, paths);
    }
    else
    {
        paths.clear();
    }
    row.paths = std::move(paths);
    // Ideal: the transfer alone on its best path. Posted as one message: the closed form.
    // Split over several messages (QP scaling): the NIC interleaves their packets
    // round-robin, so the ideal is that packet sequence through the path's recurrence.
    // Inside a server: the scale-up domain's latency plus the bytes at its rate.
    if (row.scaleUp)
    {
        row.idealFctPs = executor.scaleUp->IdealFctPs(ts.bytes);
    }
    else if (r.Messages().size() > 1)
    {
        row.idealFctPs = built.fabric.IdealFctPsOfPackets(
            ts.src, ts.dst, RoundRobinPackets(r.Messages(), spec.nic.mtuBytes), framing);
    }
    else
    {
        row.idealFctPs = src.IdealFctPs(ts.src, ts.dst, ts.bytes);
    }
    if (row.finished)
    {
        row.finishPs = when.deliveredPs;
        row.fctPs = when.deliveredPs - when.startPs;
        row.slowdown = static_cast<double>(row.fctPs) / static_cast<double>(row.idealFctPs);
        lastCompletion = std::max(lastCompletion, when.deliveredPs);
    }
    if (when.acknowledgedPs != kNoTime)
    {
        row.acknowledged = true;
        row.fctSenderPs = when.acknowledgedPs - when.startPs;
        lastCompletion = std::max(lastCompletion, when.acknowledgedPs);
    }
}

} // namespace

void
AppendFlowRows(const RowSources& src,
               uint64_t first,
               uint64_t last,
               std::vector<FlowRow>& rows,
               uint64_t& lastCompletion,
               bool keepRecords,
               size_t reuse,
               bool paths)
{
    const Framing framing = src.DataFraming();
    const size_t at = rows.size() - std::min(reuse, rows.size());
    for (uint64_t id = first; id < last; ++id)
    {
        const auto t = static_cast<uint32_t>(id);
        const size_t k = at + (id - first);
        if (k == rows.size())
        {
            rows.emplace_back();
        }
        FillFlowRow(src, framing, t, rows[k], lastCompletion, paths);
        // Its paths and messages are in the row now: free them before the next row is built,
        // so the two copies of a transfer's results are not held for every transfer at once.
        if (!keepRecords)
        {
            src.executor.exec->ReleaseRecord(t);
        }
    }
    rows.resize(at + (last - first));
}

void
FillFlowPaths(const RowSources& src, uint32_t t, FlowRow& row)
{
    const TransferRecord& held = src.executor.exec->GetRecord(t);
    if (held.recvDone && held.sendDone)
    {
        DecodeFlowPaths(src, src.transfer(t), held, row.paths);
        return;
    }
    // Unfinished: as FillFlowRow reads it (the counts in progress do not change its paths).
    DecodeFlowPaths(src, src.transfer(t), src.executor.exec->RecordWithPending(t), row.paths);
}

namespace
{

bool
SameFairShareInputs(const std::vector<FairShareTransfer>& a, const std::vector<FairShareTransfer>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const FairShareTransfer& x, const FairShareTransfer& y) {
                          return x.src == y.src && x.dst == y.dst && x.group == y.group &&
                                 x.wireBytes == y.wireBytes && x.idealPs == y.idealPs &&
                                 x.onFabric == y.onFabric;
                      });
}

/** The fair ideal and slowdown of `row` from its fair ideal `fair`, ps. */
void
SetFairIdeal(FlowRow& row, uint64_t fair)
{
    row.fairIdealPs = fair;
    if (row.finished && fair > 0)
    {
        row.fairSlowdown = static_cast<double>(row.fctPs) / static_cast<double>(fair);
    }
}

/** ApplyFairShare's ideals of `fs` (rows[k] is fs[k]'s row) a group at a time, each looked up
 *  in `cache` by the group's input (FairShareCache::byGroup). False, nothing set, when a
 *  transfer is in no group or a group's transfers are not consecutive. */
bool
ApplyFairShareByGroup(const RowSources& src,
                      FlowRow* rows,
                      const std::vector<FairShareTransfer>& fs,
                      FairShareCache& cache)
{
    std::vector<std::pair<size_t, size_t>> groups; // [begin, end) of each group
    for (size_t k = 0; k < fs.size(); ++k)
    {
        if (fs[k].group < 0)
        {
            return false;
        }
        if (k == 0 || fs[k].group != fs[k - 1].group)
        {
            if (!groups.empty() && fs[k].group <= fs[groups.back().first].group)
            {
                return false; // ids are numbered by first appearance: a group seen before
            }
            groups.emplace_back(k, k + 1);
        }
        else
        {
            groups.back().second = k + 1;
        }
    }
    std::vector<FairShareTransfer> in;
    for (const auto& [b, e] : groups)
    {
        in.assign(fs.begin() + static_cast<std::ptrdiff_t>(b),
                  fs.begin() + static_cast<std::ptrdiff_t>(e));
        for (FairShareTransfer& x : in)
        {
            x.group = 0;
        }
        const std::vector<uint64_t>* fair = nullptr;
        for (const auto& [keyIn, out] : cache.entries)
        {
            if (SameFairShareInputs(keyIn, in))
            {
                fair = &out;
                break;
            }
        }
        (fair != nullptr ? cache.hits : cache.misses) += 1;
        if (fair == nullptr)
        {
            std::vector<uint64_t> computed =
                FairShareIdealPs(src.graph, *src.built.fabric.routes, src.built.fabric.ports, in);
            cache.entries.emplace_front(in, std::move(computed));
            fair = &cache.entries.front().second;
            while (cache.entries.size() > std::max<size_t>(cache.capacity, 1))
            {
                cache.entries.pop_back(); // never the front: the one just added
            }
        }
        for (size_t k = b; k < e; ++k)
        {
            SetFairIdeal(rows[k], (*fair)[k - b]);
        }
    }
    return true;
}

} // namespace

void
ApplyFairShare(const RowSources& src,
               FlowRow* rows,
               uint64_t first,
               uint64_t last,
               FairShareCache* cache)
{
    // Collective-aware ideal: the transfers released together share the fabric max-min
    // fairly: a collective's step (every channel), or, outside collectives, the transfers one
    // trigger releases at the same delay (none: posted at the same time), e.g. a connection
    // matrix's all-to-all. Background traffic takes no part. Groups never span two calls:
    // a call covers whole collectives.
    const Framing framing = src.DataFraming();
    std::map<std::tuple<int, int64_t, uint64_t>, int64_t> groupIds;
    const auto groupOf = [&](int kind, int64_t a, uint64_t b) {
        // try_emplace: no node built (and freed) for a group already seen.
        const auto id = static_cast<int64_t>(groupIds.size());
        return groupIds.try_emplace(std::make_tuple(kind, a, b), id).first->second;
    };
    std::vector<FairShareTransfer> fs(last - first);
    for (uint64_t id = first; id < last; ++id)
    {
        const TransferSpec& ts = src.transfer(static_cast<uint32_t>(id));
        const FlowRow& row = rows[id - first];
        FairShareTransfer& x = fs[id - first];
        x.src = ts.src;
        x.dst = ts.dst;
        x.idealPs = row.idealFctPs;
        x.onFabric = !row.scaleUp;
        if (ts.background)
        {
            x.group = -1;
        }
        else if (ts.collective >= 0 && ts.step >= 0)
        {
            x.group = groupOf(0, ts.collective, static_cast<uint64_t>(ts.step));
        }
        else if (ts.collective < 0)
        {
            x.group = groupOf(1, ts.trigger, ts.startPs);
        }
        const uint64_t n = framing.Packets(ts.bytes);
        x.wireBytes = (n - 1) * framing.WireBytes(framing.mtuBytes) +
                      framing.WireBytes(ts.bytes - (n - 1) * framing.mtuBytes);
    }
    if (cache != nullptr && cache->byGroup && ApplyFairShareByGroup(src, rows, fs, *cache))
    {
        return;
    }
    const std::vector<uint64_t>* cached = nullptr;
    if (cache != nullptr)
    {
        for (const auto& [in, out] : cache->entries)
        {
            if (SameFairShareInputs(in, fs))
            {
                cached = &out;
                break;
            }
        }
        (cached != nullptr ? cache->hits : cache->misses) += 1;
    }
    std::vector<uint64_t> computed;
    if (cached == nullptr)
    {
        computed = FairShareIdealPs(src.graph, *src.built.fabric.routes, src.built.fabric.ports, fs);
    }
    const std::vector<uint64_t>& fair = cached != nullptr ? *cached : computed;
    for (uint64_t k = 0; k < fs.size(); ++k)
    {
        FlowRow& row = rows[k];
        row.fairIdealPs = fair[k];
        if (row.finished && fair[k] > 0)
        {
            row.fairSlowdown = static_cast<double>(row.fctPs) / static_cast<double>(fair[k]);
        }
    }
    if (cache != nullptr && cached == nullptr && cache->capacity > 0)
    {
        cache->entries.emplace_front(std::move(fs), std::move(computed));
        if (cache->entries.size() > cache->capacity)
        {
            cache->entries.pop_back();
        }
    }
}

CollectiveFlow
CollectiveFlowOf(const FlowRow& f)
{
    CollectiveFlow c;
    c.id = f.id;
    c.bytes = f.bytes;
    c.startPs = f.startPs;
    c.finishPs = f.finishPs;
    c.idealFctPs = f.idealFctPs;
    c.src = f.src;
    c.dst = f.dst;
    c.collective = f.collective;
    c.step = f.step;
    c.started = f.started;
    c.finished = f.finished;
    c.scaleUp = f.scaleUp;
    return c;
}

namespace
{

/** A collective's row before its transfers are read: what its spec says, no start yet
 *  (UINT64_MAX), finished until a transfer says otherwise, every step's end 0. */
CollectiveRow
CollectiveRowHead(const RowSources& src, uint32_t c, const CollectiveSpec& cs)
{
    CollectiveRow row;
    row.id = c;
    row.kind = cs.kind;
    row.algorithm = cs.algorithm;
    row.job = cs.job;
    row.iteration = cs.iteration;
    row.name = cs.name;
    row.group = cs.group;
    row.slices = cs.slices;
    // n: an in-network all-reduce's aggregation endpoints are not ranks of the group.
    row.ranks = static_cast<uint32_t>(
        std::count_if(cs.ranks.begin(), cs.ranks.end(),
                      [&src](uint32_t h) { return !src.graph.IsAggregationEndpoint(h); }));
    row.bytesPerRank = cs.bytesPerRank;
    row.channels = cs.channels;
    row.busbwFactor = cs.busbwFactor;
    row.stepEndPs.assign(cs.steps, 0);
    row.stepSlowestRank.assign(cs.steps, -1);
    row.stepSlowestFlow.assign(cs.steps, -1);
    row.finished = true;
    row.startPs = UINT64_MAX;
    return row;
}

/** Byte bound: no rank can move its bytes faster than the port they use, ps. */
uint64_t
ByteBoundPs(const RowSources& src, const std::map<uint32_t, HostBytes>& bytes)
{
    double bound = 0;
    for (const auto& [h, b] : bytes)
    {
        const double nic = static_cast<double>(src.built.nics[h]->GetRateBps());
        bound = std::max(bound, static_cast<double>(std::max(b.netSent, b.netRecv)) * 8 / nic);
        if (src.executor.scaleUp)
        {
            const double su = static_cast<double>(src.executor.scaleUp->GetRateBps());
            bound = std::max(bound, static_cast<double>(std::max(b.suSent, b.suRecv)) * 8 / su);
        }
    }
    return static_cast<uint64_t>(std::llround(bound * 1e12));
}

/** A finished collective's completion time and bandwidths. */
void
SetCct(CollectiveRow& row, const CollectiveSpec& cs)
{
    if (row.finished && row.finishPs > row.startPs)
    {
        row.cctPs = row.finishPs - row.startPs;
        row.algbwGBps = static_cast<double>(cs.bytesPerRank) / (row.cctPs * 1e-12) / 1e9;
        row.busbwGBps = row.algbwGBps * cs.busbwFactor;
    }
}

/** A collective's row once its transfers are read: no transfer started, start 0; a step is
 *  complete only if every transfer of it was delivered (no end time, slowest rank or flow for
 *  a step still running). */
void
CloseSteps(CollectiveRow& row, const std::vector<bool>& stepUnfinished)
{
    if (row.startPs == UINT64_MAX)
    {
        row.startPs = 0;
    }
    for (size_t k = 0; k < stepUnfinished.size(); ++k)
    {
        if (stepUnfinished[k] || row.stepSlowestFlow[k] < 0)
        {
            row.stepEndPs[k] = kNoTime;
            row.stepSlowestRank[k] = -1;
            row.stepSlowestFlow[k] = -1;
        }
    }
}

/** One transfer's share of its collective's row (FlowRow or CollectiveFlow): its bytes per
 *  host, the start, the finish and each step's end and slowest flow and rank (`rankOf(host)`,
 *  -1 for none), or, unfinished, its step marked in `stepUnfinished` (CloseSteps). */
template <class Row, class RankOf>
void
AddToCollectiveRow(CollectiveRow& row,
                   std::map<uint32_t, HostBytes>& bytes,
                   std::vector<bool>& stepUnfinished,
                   const CollectiveSpec& cs,
                   const Row& f,
                   const RankOf& rankOf)
{
    const bool su = f.scaleUp;
    (su ? bytes[f.src].suSent : bytes[f.src].netSent) += f.bytes;
    (su ? bytes[f.dst].suRecv : bytes[f.dst].netRecv) += f.bytes;
    if (f.started)
    {
        // Dependency-free transfers start with the collective.
        row.startPs = std::min(row.startPs, f.startPs);
    }
    const bool inStep = f.step >= 0 && static_cast<uint32_t>(f.step) < cs.steps;
    if (!f.finished)
    {
        row.finished = false;
        if (inStep)
        {
            stepUnfinished[f.step] = true;
        }
        return;
    }
    row.finishPs = std::max(row.finishPs, f.finishPs);
    if (inStep && f.finishPs > row.stepEndPs[f.step])
    {
        row.stepEndPs[f.step] = f.finishPs;
        row.stepSlowestFlow[f.step] = static_cast<int64_t>(f.id);
        row.stepSlowestRank[f.step] = rankOf(f.src);
    }
}

/** AppendCollectiveRows over FlowRow or CollectiveFlow (the fields both have). */
template <class Row>
void
AppendCollectiveRowsOf(const RowSources& src,
                       const Row* rows,
                       uint64_t first,
                       uint64_t last,
                       uint64_t cFirst,
                       uint64_t cEnd,
                       std::vector<CollectiveRow>& collectives,
                       std::vector<WaitRow>& waits)
{
    const Executor& executor = src.executor;
    const auto rowOf = [&](uint32_t t) -> const Row& { return rows[t - first]; };
    std::vector<std::vector<uint32_t>> transfersOf(cEnd - cFirst);
    for (uint64_t t = first; t < last; ++t)
    {
        const int32_t c = rows[t - first].collective;
        if (c >= 0 && static_cast<uint64_t>(c) >= cFirst && static_cast<uint64_t>(c) < cEnd)
        {
            transfersOf[c - cFirst].push_back(static_cast<uint32_t>(t));
        }
    }
    for (auto c = static_cast<uint32_t>(cFirst); c < cEnd; ++c)
    {
        const CollectiveSpec& cs = src.collective(c);
        CollectiveRow row = CollectiveRowHead(src, c, cs);
        std::map<uint32_t, HostBytes> bytes;
        std::vector<bool> stepUnfinished(cs.steps, false);
        const auto rankOfHost = [&cs](uint32_t h) -> int64_t {
            const auto it = std::find(cs.ranks.begin(), cs.ranks.end(), h);
            return it == cs.ranks.end() ? -1 : static_cast<int64_t>(it - cs.ranks.begin());
        };
        for (uint32_t t : transfersOf[c - cFirst])
        {
            AddToCollectiveRow(row, bytes, stepUnfinished, cs, rowOf(t), rankOfHost);
        }
        CloseSteps(row, stepUnfinished);
        row.lowerBoundPs = ByteBoundPs(src, bytes);
        // Who waited (waits.csv): each rank's data per step against its idle-fabric time.
        std::vector<WaitTransfer> wt;
        wt.reserve(transfersOf[c - cFirst].size());
        for (uint32_t t : transfersOf[c - cFirst])
        {
            const Row& f = rowOf(t);
            WaitTransfer w;
            w.src = f.src;
            w.dst = f.dst;
            w.step = f.step;
            w.bytes = f.bytes;
            w.started = f.started;
            w.startPs = f.startPs;
            w.delivered = f.finished;
            w.deliveredPs = f.finished ? f.finishPs : 0;
            w.idealPs = f.idealFctPs; // flows.csv's: QP splits included
            wt.push_back(w);
        }
        const auto idealOf = [&](uint32_t srcHost, uint32_t dst, uint64_t b) {
            if (executor.scaleUp && executor.scaleUp->SameServer(srcHost, dst))
            {
                return executor.scaleUp->IdealFctPs(b);
            }
            return src.IdealFctPs(srcHost, dst, b);
        };
        CollectiveWaits cw =
            ComputeWaits(c, cs.ranks, cs.steps, row.startPs, wt, idealOf);
        row.ranksDelayed = cw.ranksDelayed;
        // (int64_t: with -1 and a uint32_t the conditional's type is unsigned, and -1 became
        // 4294967295, a flow index past the end when the collective did not finish)
        row.criticalFlow = cw.criticalTransfer < 0
                               ? int64_t{-1}
                               : static_cast<int64_t>(transfersOf[c - cFirst][cw.criticalTransfer]);
        for (WaitRow& w : cw.rows)
        {
            w.lastTransfer = w.lastTransfer < 0 ? int64_t{-1}
                                                : static_cast<int64_t>(transfersOf[c - cFirst][w.lastTransfer]);
        }
        // Moved, not copied row by row: one collective of a large ring has millions of rows,
        // and a copy that grows by doubling held them about three times at its peak.
        if (waits.empty())
        {
            waits = std::move(cw.rows);
        }
        else
        {
            waits.insert(waits.end(), cw.rows.begin(), cw.rows.end());
        }
        SetCct(row, cs);
        collectives.push_back(row);
    }
}

} // namespace

void
AppendCollectiveRows(const RowSources& src,
                     const FlowRow* rows,
                     uint64_t first,
                     uint64_t last,
                     uint64_t cFirst,
                     uint64_t cEnd,
                     std::vector<CollectiveRow>& collectives,
                     std::vector<WaitRow>& waits)
{
    AppendCollectiveRowsOf(src, rows, first, last, cFirst, cEnd, collectives, waits);
}

void
AppendCollectiveRows(const RowSources& src,
                     const CollectiveFlow* rows,
                     uint64_t first,
                     uint64_t last,
                     uint64_t cFirst,
                     uint64_t cEnd,
                     std::vector<CollectiveRow>& collectives,
                     std::vector<WaitRow>& waits)
{
    AppendCollectiveRowsOf(src, rows, first, last, cFirst, cEnd, collectives, waits);
}

} // namespace tusk

namespace tusk
{

namespace
{

/** The straggler of a path back: its transfer id (-1 none) and excess over its ideal, ps. */
struct Straggler
{
    int64_t t = -1;
    uint64_t excess = 0;
};

/** A rank's cell of a step (its row of waits.csv), as the critical path reads it. */
struct StepCell
{
    bool row = false;     //!< the rank has a row in the step (it received something)
    bool arrived = false; //!< all of it arrived
    uint64_t arrivalPs = 0;
    Straggler straggler; //!< of the path back from its last transfer
};

} // namespace

struct CollectiveRowStreamer::State
{
    State(const RowSources& s, uint64_t count, StartOfRest start, WaitSink w)
        : src(s),
          collectives(count),
          startOfRest(std::move(start)),
          waits(std::move(w))
    {
    }
    const RowSources& src;
    uint64_t collectives;
    StartOfRest startOfRest;
    WaitSink waits;
    std::vector<CollectiveRow> out;
    uint32_t next = 0; //!< the next collective to open
    // The collective being built (open).
    bool open = false;
    uint32_t c = 0;
    CollectiveSpec cs;
    CollectiveRow row;
    std::map<uint32_t, HostBytes> bytes;
    std::vector<bool> stepUnfinished;
    std::unordered_map<uint32_t, uint32_t> rankOf;
    uint32_t n = 0;
    // ComputeWaits' state, per rank.
    bool any = false;          //!< it has transfers
    bool allDelivered = true;  //!< every one of them delivered
    bool haveLast = false;     //!< a transfer delivered so far
    uint64_t lastDelivery = 0; //!< the latest delivery so far
    Straggler critical;        //!< the straggler of the path from that transfer
    bool startKnown = false;   //!< `start` resolved (startOfRest)
    uint64_t start = 0;
    std::vector<uint64_t> arrivalMax; //!< latest arrival of each rank so far (0: none)
    std::vector<bool> allArrived;
    std::vector<bool> delayed;
    int64_t prevStep = -1; //!< the step `prev` holds (-1: none)
    std::vector<StepCell> prev;
    std::vector<StepCell> cur;
    // Scratch, per step.
    std::vector<uint32_t> sendStart, recvStart, sendList, recvList, at;
    std::vector<uint32_t> sources;
    std::vector<WaitRow> stepRows;

    uint64_t Ideal(uint32_t s, uint32_t d, uint64_t b) const
    {
        if (src.executor.scaleUp && src.executor.scaleUp->SameServer(s, d))
        {
            return src.executor.scaleUp->IdealFctPs(b);
        }
        return src.IdealFctPs(s, d, b);
    }
    uint64_t IdealOf(const CollectiveFlow& f) const
    {
        return f.idealFctPs > 0 ? f.idealFctPs : Ideal(f.src, f.dst, f.bytes);
    }
    /** The straggler of the path back from transfer `t` (ComputeWaits' walk, one step). */
    Straggler PathFrom(int64_t t, const CollectiveFlow& f) const
    {
        const uint64_t delivered = f.finished ? f.finishPs : 0;
        const uint64_t took = delivered - f.startPs;
        const uint64_t need = IdealOf(f);
        Straggler here{t, took > need ? took - need : 0};
        if (f.step <= 0 || static_cast<uint32_t>(f.step) > cs.steps ||
            prevStep != f.step - 1)
        {
            return here;
        }
        const auto it = rankOf.find(f.src);
        if (it == rankOf.end())
        {
            return here;
        }
        const StepCell& p = prev[it->second];
        if (!p.row || !p.arrived || p.arrivalPs > f.startPs)
        {
            return here;
        }
        return here.excess >= p.straggler.excess ? here : p.straggler;
    }
    void Open(uint32_t id)
    {
        c = id;
        open = true;
        cs = src.collective(id);
        row = CollectiveRowHead(src, id, cs);
        bytes.clear();
        stepUnfinished.assign(cs.steps, false);
        rankOf.clear();
        n = static_cast<uint32_t>(cs.ranks.size());
        for (uint32_t i = 0; i < n; ++i)
        {
            rankOf.emplace(cs.ranks[i], i); // a host twice in a group: its first rank
        }
        any = false;
        allDelivered = true;
        haveLast = false;
        lastDelivery = 0;
        critical = Straggler();
        startKnown = false;
        start = 0;
        arrivalMax.assign(n, 0);
        allArrived.assign(n, true);
        delayed.assign(n * kDelayThresholds.size(), false);
        prevStep = -1;
        prev.assign(n, StepCell());
        cur.assign(n, StepCell());
    }
    void Close()
    {
        CloseSteps(row, stepUnfinished);
        row.lowerBoundPs = ByteBoundPs(src, bytes);
        for (uint32_t r = 0; r < n; ++r)
        {
            for (size_t j = 0; j < kDelayThresholds.size(); ++j)
            {
                row.ranksDelayed[j] += delayed[r * kDelayThresholds.size() + j] ? 1 : 0;
            }
        }
        row.criticalFlow = any && allDelivered ? critical.t : int64_t{-1};
        SetCct(row, cs);
        out.push_back(std::move(row));
        row = CollectiveRow();
        open = false;
        next = c + 1;
    }
    /** Open collective `id`, closing the open one and giving every collective between them
     *  (without transfers) its row. */
    void MoveTo(uint32_t id)
    {
        if (open && c == id)
        {
            return;
        }
        if (open)
        {
            Close();
        }
        while (next < id)
        {
            Open(next);
            Close();
        }
        Open(id);
    }
    /** The collective's start (its earliest transfer start), once `end` (a transfer id) is
     *  the first not added. */
    uint64_t Start(uint64_t end)
    {
        if (!startKnown)
        {
            start = std::min(row.startPs, startOfRest(c, end));
            start = start == UINT64_MAX ? 0 : start;
            startKnown = true;
        }
        return start;
    }
    void Group(uint64_t first, const CollectiveFlow* rows, size_t b, size_t e);
    void Waits(uint64_t first, const CollectiveFlow* rows, size_t b, size_t e);
};

void
CollectiveRowStreamer::State::Group(uint64_t first, const CollectiveFlow* rows, size_t b, size_t e)
{
    MoveTo(static_cast<uint32_t>(rows[b].collective));
    // collectives.csv (AppendCollectiveRowsOf's loops), in transfer order.
    const auto rankOfHost = [this](uint32_t h) -> int64_t {
        const auto it = rankOf.find(h);
        return it == rankOf.end() ? -1 : static_cast<int64_t>(it->second);
    };
    for (size_t k = b; k < e; ++k)
    {
        AddToCollectiveRow(row, bytes, stepUnfinished, cs, rows[k], rankOfHost);
    }
    // The transfer delivered last so far and the straggler of the path from it (before the
    // step's own cells replace the previous step's).
    for (size_t k = b; k < e; ++k)
    {
        const CollectiveFlow& f = rows[k];
        any = true;
        if (!f.finished)
        {
            allDelivered = false;
        }
        else if (!haveLast || f.finishPs > lastDelivery)
        {
            haveLast = true;
            lastDelivery = f.finishPs;
            critical = PathFrom(static_cast<int64_t>(first + k), f);
        }
    }
    if (rows[b].step >= 0 && static_cast<uint32_t>(rows[b].step) < cs.steps)
    {
        Waits(first, rows, b, e);
    }
}

void
CollectiveRowStreamer::State::Waits(uint64_t first, const CollectiveFlow* rows, size_t b, size_t e)
{
    // ComputeWaits for step k alone (waits.cc; the same row, field by field).
    const auto k = static_cast<uint32_t>(rows[b].step);
    constexpr uint32_t kNoRank = UINT32_MAX;
    sendStart.assign(n + 1, 0);
    recvStart.assign(n + 1, 0);
    std::vector<std::pair<uint32_t, uint32_t>> ranksOf(e - b, {kNoRank, kNoRank});
    for (size_t i = b; i < e; ++i)
    {
        if (auto it = rankOf.find(rows[i].src); it != rankOf.end())
        {
            ranksOf[i - b].first = it->second;
            ++sendStart[it->second + 1];
        }
        if (auto it = rankOf.find(rows[i].dst); it != rankOf.end())
        {
            ranksOf[i - b].second = it->second;
            ++recvStart[it->second + 1];
        }
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        sendStart[r + 1] += sendStart[r];
        recvStart[r + 1] += recvStart[r];
    }
    sendList.resize(sendStart.back());
    recvList.resize(recvStart.back());
    at.assign(sendStart.begin(), sendStart.end() - 1);
    for (size_t i = b; i < e; ++i)
    {
        if (ranksOf[i - b].first != kNoRank)
        {
            sendList[at[ranksOf[i - b].first]++] = static_cast<uint32_t>(i);
        }
    }
    at.assign(recvStart.begin(), recvStart.end() - 1);
    for (size_t i = b; i < e; ++i)
    {
        if (ranksOf[i - b].second != kNoRank)
        {
            recvList[at[ranksOf[i - b].second]++] = static_cast<uint32_t>(i);
        }
    }
    stepRows.clear();
    uint64_t stepIdeal = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        StepCell& cell = cur[r];
        cell = StepCell();
        if (recvStart[r] == recvStart[r + 1])
        {
            continue; // nothing to wait for in this step
        }
        WaitRow w;
        w.collective = c;
        w.step = k;
        w.rank = r;
        w.host = cs.ranks[r];
        const bool noSends = sendStart[r] == sendStart[r + 1];
        bool sendStarted = false;
        uint64_t ready = UINT64_MAX;
        for (uint32_t i = sendStart[r]; i < sendStart[r + 1]; ++i)
        {
            const CollectiveFlow& f = rows[sendList[i]];
            if (f.started)
            {
                sendStarted = true;
                ready = std::min(ready, f.startPs);
            }
        }
        w.ready = noSends ? static_cast<bool>(allArrived[r]) : sendStarted;
        w.readyPs = !w.ready      ? 0
                    : sendStarted ? ready
                                  : std::max(Start(first + e), arrivalMax[r]);
        w.sent = true;
        w.arrived = true;
        uint64_t stepBytes = 0;
        uint64_t ownIdeal = 0;
        int64_t last = -1; // index into rows
        sources.clear();
        for (uint32_t i = recvStart[r]; i < recvStart[r + 1]; ++i)
        {
            const uint32_t x = recvList[i];
            const CollectiveFlow& f = rows[x];
            stepBytes += f.bytes;
            ownIdeal = std::max(ownIdeal, IdealOf(f));
            sources.push_back(f.src);
            w.sent = w.sent && f.started;
            w.sentPs = std::max(w.sentPs, f.started ? f.startPs : 0);
            if (!f.finished)
            {
                w.arrived = false;
                continue;
            }
            if (last < 0 || f.finishPs > w.arrivalPs)
            {
                w.arrivalPs = f.finishPs;
                last = x;
            }
        }
        if (!w.arrived)
        {
            w.arrivalPs = 0;
            last = -1;
            allArrived[r] = false;
        }
        else
        {
            const CollectiveFlow& f = rows[last];
            const auto it = rankOf.find(f.src);
            w.fromRank = it == rankOf.end() ? -1 : it->second;
            arrivalMax[r] = std::max(arrivalMax[r], w.arrivalPs);
            w.lastTransfer = static_cast<int64_t>(first + last);
            cell.straggler = PathFrom(w.lastTransfer, f);
        }
        cell.row = true;
        cell.arrived = w.arrived;
        cell.arrivalPs = w.arrivalPs;
        w.idealPs = ownIdeal;
        std::sort(sources.begin(), sources.end());
        sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
        for (const uint32_t s : sources)
        {
            w.idealPs = std::max(w.idealPs, Ideal(s, w.host, stepBytes));
        }
        stepIdeal = std::max(stepIdeal, w.idealPs);
        stepRows.push_back(w);
    }
    for (WaitRow& w : stepRows)
    {
        CompleteWaitRow(w, stepIdeal, delayed);
    }
    prev.swap(cur);
    prevStep = k;
    if (!stepRows.empty())
    {
        waits(stepRows, [&](int64_t t) { return rows[t - first].id; });
    }
}

CollectiveRowStreamer::CollectiveRowStreamer(const RowSources& src,
                                             uint64_t collectives,
                                             StartOfRest startOfRest,
                                             WaitSink waits)
    : m(std::make_unique<State>(src, collectives, std::move(startOfRest), std::move(waits)))
{
}

CollectiveRowStreamer::~CollectiveRowStreamer() = default;

void
CollectiveRowStreamer::Add(uint64_t first, const CollectiveFlow* rows, size_t n)
{
    for (size_t b = 0; b < n;)
    {
        size_t e = b + 1;
        while (e < n && rows[e].collective == rows[b].collective && rows[e].step == rows[b].step)
        {
            ++e;
        }
        m->Group(first, rows, b, e);
        b = e;
    }
}

std::vector<CollectiveRow>
CollectiveRowStreamer::Finish()
{
    if (m->open)
    {
        m->Close();
    }
    while (m->next < m->collectives)
    {
        m->Open(m->next);
        m->Close();
    }
    return std::move(m->out);
}

void
CollectiveRowStreamer::ForEachCandidate(const std::function<void(int64_t)>& fn) const
{
    for (const CollectiveRow& c : m->out)
    {
        if (c.criticalFlow >= 0)
        {
            fn(c.criticalFlow);
        }
    }
    if (!m->open)
    {
        return;
    }
    if (m->critical.t >= 0)
    {
        fn(m->critical.t);
    }
    for (const StepCell& cell : m->prev)
    {
        if (cell.straggler.t >= 0)
        {
            fn(cell.straggler.t);
        }
    }
}

} // namespace tusk
