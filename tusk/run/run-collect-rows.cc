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
    auto it = ideals->find(key);
    if (it == ideals->end())
    {
        it = ideals->emplace(key, built.fabric.IdealFctPs(src, dst, bytes, DataFraming())).first;
    }
    return it->second;
}

void
AppendFlowRows(const RowSources& src,
               uint64_t first,
               uint64_t last,
               std::vector<FlowRow>& rows,
               uint64_t& lastCompletion,
               bool keepRecords)
{
    const ScenarioSpec& spec = src.spec;
    const TopologyGraph& graph = src.graph;
    const BuiltFabric& built = src.built;
    const Executor& executor = src.executor;
    const Framing framing = src.DataFraming();
    for (uint64_t id = first; id < last; ++id)
    {
        const auto t = static_cast<uint32_t>(id);
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
        FlowRow row;
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
        for (const auto& [code, frames] : r.paths)
        {
            std::vector<uint32_t> links;
            links.reserve(8); // one allocation for a path of up to 8 links, not 1, 2, 4, 8
            if (built.fabric.DecodePath(ts.src, code, links) &&
                (graph.links[links.back()].a == ts.dst || graph.links[links.back()].b == ts.dst))
            {
                row.paths.emplace_back(std::move(links), frames);
            }
        }
        // Ideal: the transfer alone on its best path. Posted as one message: the closed form.
        // Split over several messages (QP scaling): the NIC interleaves their packets
        // round-robin, so the ideal is that packet sequence through the path's recurrence.
        // Inside a server: the scale-up domain's latency plus the bytes at its rate.
        if (row.scaleUp)
        {
            row.idealFctPs = executor.scaleUp->IdealFctPs(ts.bytes);
        }
        else if (r.messages.size() > 1)
        {
            row.idealFctPs = built.fabric.IdealFctPsOfPackets(
                ts.src, ts.dst, RoundRobinPackets(r.messages, spec.nic.mtuBytes), framing);
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
        rows.push_back(std::move(row));
        // Its paths and messages are in the row now: free them before the next row is built,
        // so the two copies of a transfer's results are not held for every transfer at once.
        if (!keepRecords)
        {
            executor.exec->ReleaseRecord(t);
        }
    }
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
    const BuiltFabric& built = src.built;
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
        std::map<uint32_t, HostBytes> bytes;
        for (uint32_t t : transfersOf[c - cFirst])
        {
            const Row& f = rowOf(t);
            const bool su = f.scaleUp;
            (su ? bytes[f.src].suSent : bytes[f.src].netSent) += f.bytes;
            (su ? bytes[f.dst].suRecv : bytes[f.dst].netRecv) += f.bytes;
            if (f.started)
            {
                // Dependency-free transfers start with the collective.
                row.startPs = std::min(row.startPs, f.startPs);
            }
            if (!f.finished)
            {
                row.finished = false;
                continue;
            }
            row.finishPs = std::max(row.finishPs, f.finishPs);
            if (f.step >= 0 && static_cast<uint32_t>(f.step) < cs.steps &&
                f.finishPs > row.stepEndPs[f.step])
            {
                row.stepEndPs[f.step] = f.finishPs;
                row.stepSlowestFlow[f.step] = static_cast<int64_t>(f.id);
                const auto it = std::find(cs.ranks.begin(), cs.ranks.end(), f.src);
                row.stepSlowestRank[f.step] =
                    it == cs.ranks.end() ? -1 : static_cast<int64_t>(it - cs.ranks.begin());
            }
        }
        if (row.startPs == UINT64_MAX)
        {
            row.startPs = 0;
        }
        // A step is complete only if every transfer of it was delivered: no end time (and no
        // slowest rank or flow) for a step still running.
        std::vector<bool> stepUnfinished(cs.steps, false);
        for (uint32_t t : transfersOf[c - cFirst])
        {
            const Row& f = rowOf(t);
            if (!f.finished && f.step >= 0 && static_cast<uint32_t>(f.step) < cs.steps)
            {
                stepUnfinished[f.step] = true;
            }
        }
        for (uint32_t k = 0; k < cs.steps; ++k)
        {
            if (stepUnfinished[k] || row.stepSlowestFlow[k] < 0)
            {
                row.stepEndPs[k] = kNoTime;
                row.stepSlowestRank[k] = -1;
                row.stepSlowestFlow[k] = -1;
            }
        }
        // Byte bound: no rank can move its bytes faster than the port they use.
        double bound = 0;
        for (const auto& [h, b] : bytes)
        {
            const double nic = static_cast<double>(built.nics[h]->GetRateBps());
            bound = std::max(bound, static_cast<double>(std::max(b.netSent, b.netRecv)) * 8 / nic);
            if (executor.scaleUp)
            {
                const double su = static_cast<double>(executor.scaleUp->GetRateBps());
                bound = std::max(bound, static_cast<double>(std::max(b.suSent, b.suRecv)) * 8 / su);
            }
        }
        row.lowerBoundPs = static_cast<uint64_t>(std::llround(bound * 1e12));
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
        if (row.finished && row.finishPs > row.startPs)
        {
            row.cctPs = row.finishPs - row.startPs;
            row.algbwGBps = static_cast<double>(cs.bytesPerRank) / (row.cctPs * 1e-12) / 1e9;
            row.busbwGBps = row.algbwGBps * cs.busbwFactor;
        }
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
