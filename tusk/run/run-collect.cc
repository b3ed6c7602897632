/*
 * tusk: the tables of a finished run: flows (with ideal FCTs), collectives, jobs, links,
 * packet conservation, and why the run failed if it did.
 */
#include "run/run-stages.h"
#include "run/fabric-kinds.h"
#include "results/tool-outputs.h"

#include "fabric/model/fabric-units.h"
#include "fabric/model/ideal-fct.h"
#include "fabric/helper/fair-share-ideal.h"
#include "rdma/model/rdma-queue-pair.h"
#include "rdma/model/headers/roce-header.h"

#include "ns3/simulator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
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

/** For a stuck InfiniBand run: the ports whose frames wait for credit now ("" if none). A
 *  cycle of them, each waiting for the next switch's input buffer, is a credit loop: routes
 *  with a cyclic buffer dependency deadlock an InfiniBand fabric as they do PFC (credits
 *  wait as pauses do; IBA has no watchdog to break it). */
std::string
CreditWaitNote(const Fabric& fabric)
{
    const TopologyGraph& g = fabric.graph;
    std::vector<std::string> between; // switch to switch: where a loop would be
    std::vector<std::string> others;   // to or from a host
    std::map<uint32_t, std::set<uint32_t>> waitsFor; // switch -> switches it waits for
    for (const auto& link : fabric.links)
    {
        const TopoLink& l = g.links[link.graphLink];
        for (const auto& [dev, from, to] : {std::make_tuple(link.devA, l.a, l.b),
                                            std::make_tuple(link.devB, l.b, l.a)})
        {
            for (uint8_t vl = 0; vl < 8; ++vl)
            {
                if (dev->IsCreditStalled(vl))
                {
                    const bool fabricLink = from >= g.numHosts && to >= g.numHosts;
                    if (fabricLink)
                    {
                        waitsFor[from].insert(to);
                    }
                    (fabricLink ? between : others)
                        .push_back(fmt::format("{}->{} VL {}", g.vertices[from].name,
                                               g.vertices[to].name, vl));
                }
            }
        }
    }
    const size_t count = between.size() + others.size();
    std::vector<std::string> waiting = std::move(between);
    waiting.insert(waiting.end(), others.begin(), others.end());
    constexpr size_t kShown = 8;
    waiting.resize(std::min(waiting.size(), kShown));
    if (count == 0)
    {
        return "";
    }
    // A cycle of switches each waiting for the next one's input buffer: a credit loop.
    std::vector<uint32_t> cycle;
    std::map<uint32_t, int> state; // 1 = on the current path, 2 = done
    std::vector<uint32_t> path;
    std::function<bool(uint32_t)> visit = [&](uint32_t v) {
        state[v] = 1;
        path.push_back(v);
        for (uint32_t w : waitsFor[v])
        {
            if (state[w] == 1)
            {
                cycle.assign(std::find(path.begin(), path.end(), w), path.end());
                cycle.push_back(w);
                return true;
            }
            if (state[w] == 0 && visit(w))
            {
                return true;
            }
        }
        path.pop_back();
        state[v] = 2;
        return false;
    };
    for (const auto& [v, next] : waitsFor)
    {
        if (state[v] == 0 && visit(v))
        {
            break;
        }
    }
    std::string note;
    if (!cycle.empty())
    {
        std::vector<std::string> names;
        for (uint32_t v : cycle)
        {
            names.push_back(g.vertices[v].name);
        }
        note = fmt::format("; InfiniBand credit loop: {} (each switch's port waits for credit "
                           "from the next one's full input buffer: the routes have a cyclic "
                           "buffer dependency, which credits never clear)",
                           fmt::join(names, " -> "));
    }
    return note + fmt::format("; {} port VL(s) wait for credit ({}{})", count,
                              fmt::join(waiting, ", "), count > waiting.size() ? ", ..." : "");
}

} // namespace

std::vector<PathClassRow>
PathClasses(const ScenarioSpec& spec, const BuiltFabric& built, uint32_t numHosts)
{
    Framing data;
    data.mtuBytes = spec.nic.mtuBytes;
    data.headerBytes = kRoceDataOverheadBytes;
    data.phyOverheadBytes = spec.fabric.phyOverheadBytes;
    // The ACK: a data frame's headers plus the 4-byte AETH (IBA 9.3.5), no payload.
    const uint64_t aethBytes = 4;
    std::map<uint32_t, PathClassRow> classes;
    for (uint32_t dst = 1; dst < numHosts; ++dst)
    {
        const uint32_t links = built.fabric.HopCount(0, dst);
        if (links == 0)
        {
            continue; // no path (a host cut off)
        }
        PathClassRow& c = classes[links];
        if (c.pairs++ > 0)
        {
            continue;
        }
        c.links = links;
        c.src = 0;
        c.dst = dst;
        c.baseRttPs = built.fabric.IdealFctPs(0, dst, spec.nic.mtuBytes, data) +
                      built.fabric.IdealFctPs(dst, 0, aethBytes, data);
        c.hostRateBps = built.nics[0]->GetRateBps();
        c.hpccPairRttPs = HpccPairRtt(built.fabric.graph, 0, dst, spec.nic.mtuBytes).first * 1000;
        c.bdpBytes = static_cast<uint64_t>(
            (static_cast<unsigned __int128>(c.baseRttPs) * c.hostRateBps + 8'000'000'000'000ULL - 1) /
            8'000'000'000'000ULL);
    }
    std::vector<PathClassRow> out;
    for (const auto& [links, c] : classes)
    {
        out.push_back(c);
    }
    return out;
}


void
CollectResults(const ScenarioSpec& spec,
               const TopologyGraph& graph,
               const WorkloadSpec& workload,
               const BuiltFabric& built,
               const Executor& executor,
               Observers& observers,
               RunResult& result)
{
    MetricsSink& sink = observers.Sink();
    const auto& times = sink.Transfers();
    const uint64_t endPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    result.events = Simulator::GetEventCount();
    result.finished = executor.exec->AllDone();
    result.hosts = graph.numHosts;
    result.switches = graph.NumSwitches();
    result.nodeIds = ImportedNodeIds(spec);

    // ---- flows ------------------------------------------------------------------------
    Framing framing;
    framing.mtuBytes = spec.nic.mtuBytes;
    framing.headerBytes = DataHeaderBytes(spec);
    framing.phyOverheadBytes = spec.fabric.phyOverheadBytes;
    uint64_t lastCompletion = 0;
    result.flows.reserve(result.flows.size() + workload.transfers.size());
    for (uint32_t t = 0; t < workload.transfers.size(); ++t)
    {
        const TransferSpec& ts = workload.transfers[t];
        // When: from the executor's trace sources. QP counters: from its record, counts of
        // messages still in progress included (an unfinished transfer's retransmissions are
        // what explains it).
        const MetricsSink::TransferTimes& when = times[t];
        const TransferRecord r = executor.exec->RecordWithPending(t);
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
        row.job = ts.collective >= 0 ? workload.collectives[ts.collective].job : -1;
        row.background = ts.background;
        row.port = ts.port;
        row.scaleUp = executor.scaleUp && executor.scaleUp->SameServer(ts.src, ts.dst);
        for (const auto& [code, frames] : r.paths)
        {
            std::vector<uint32_t> links;
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
            row.idealFctPs = built.fabric.IdealFctPs(ts.src, ts.dst, ts.bytes, framing);
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
        result.flows.push_back(std::move(row));
        // Its paths and messages are in the row now: free them before the next row is built,
        // so the two copies of a transfer's results are not held for every transfer at once.
        executor.exec->ReleaseRecord(t);
    }
    // Every record is in a row: free them all (unless transfers remain unfinished, when
    // DescribeBlocked reads them below), before the collective, wait and job rows grow.
    executor.exec->ReleaseRecords();
    // Collective-aware ideal: the transfers released together share the fabric max-min
    // fairly: a collective's step (every channel), or, outside collectives, the transfers one
    // trigger releases at the same delay (none: posted at the same time), e.g. a connection
    // matrix's all-to-all. Background traffic takes no part.
    {
        std::map<std::tuple<int, int64_t, uint64_t>, int64_t> groupIds;
        const auto groupOf = [&](int kind, int64_t a, uint64_t b) {
            return groupIds.emplace(std::make_tuple(kind, a, b), groupIds.size()).first->second;
        };
        std::vector<FairShareTransfer> fs(result.flows.size());
        for (uint32_t t = 0; t < result.flows.size(); ++t)
        {
            const TransferSpec& ts = workload.transfers[t];
            const FlowRow& row = result.flows[t];
            FairShareTransfer& x = fs[t];
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
        const std::vector<uint64_t> fair =
            FairShareIdealPs(graph, *built.fabric.routes, built.fabric.ports, fs);
        for (uint32_t t = 0; t < result.flows.size(); ++t)
        {
            FlowRow& row = result.flows[t];
            row.fairIdealPs = fair[t];
            if (row.finished && fair[t] > 0)
            {
                row.fairSlowdown = static_cast<double>(row.fctPs) / static_cast<double>(fair[t]);
            }
        }
    }
    result.simEndPs = result.finished ? lastCompletion : endPs;
    result.pathClasses = PathClasses(spec, built, graph.numHosts);

    // ---- collectives -------------------------------------------------------------------
    std::vector<std::vector<uint32_t>> transfersOf(workload.collectives.size());
    for (uint32_t t = 0; t < workload.transfers.size(); ++t)
    {
        const int32_t c = workload.transfers[t].collective;
        if (c >= 0 && static_cast<size_t>(c) < transfersOf.size())
        {
            transfersOf[c].push_back(t);
        }
    }
    for (uint32_t c = 0; c < workload.collectives.size(); ++c)
    {
        const CollectiveSpec& cs = workload.collectives[c];
        CollectiveRow row;
        row.id = c;
        row.kind = cs.kind;
        row.algorithm = cs.algorithm;
        row.job = cs.job;
        row.iteration = cs.iteration;
        row.name = cs.name;
        row.group = cs.group;
        row.slices = cs.slices;
        row.ranks = static_cast<uint32_t>(cs.ranks.size());
        row.bytesPerRank = cs.bytesPerRank;
        row.channels = cs.channels;
        row.busbwFactor = cs.busbwFactor;
        row.stepEndPs.assign(cs.steps, 0);
        row.stepSlowestRank.assign(cs.steps, -1);
        row.stepSlowestFlow.assign(cs.steps, -1);
        row.finished = true;
        row.startPs = UINT64_MAX;
        std::map<uint32_t, HostBytes> bytes;
        for (uint32_t t : transfersOf[c])
        {
            const TransferSpec& ts = workload.transfers[t];
            const MetricsSink::TransferTimes& r = times[t];
            const bool su = executor.scaleUp && executor.scaleUp->SameServer(ts.src, ts.dst);
            (su ? bytes[ts.src].suSent : bytes[ts.src].netSent) += ts.bytes;
            (su ? bytes[ts.dst].suRecv : bytes[ts.dst].netRecv) += ts.bytes;
            if (r.startPs != kNoTime)
            {
                // Dependency-free transfers start with the collective.
                row.startPs = std::min(row.startPs, r.startPs);
            }
            if (r.deliveredPs == kNoTime)
            {
                row.finished = false;
                continue;
            }
            row.finishPs = std::max(row.finishPs, r.deliveredPs);
            if (ts.step >= 0 && static_cast<uint32_t>(ts.step) < cs.steps &&
                r.deliveredPs > row.stepEndPs[ts.step])
            {
                row.stepEndPs[ts.step] = r.deliveredPs;
                row.stepSlowestFlow[ts.step] = static_cast<int64_t>(ts.externalId);
                const auto it = std::find(cs.ranks.begin(), cs.ranks.end(), ts.src);
                row.stepSlowestRank[ts.step] =
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
        for (uint32_t t : transfersOf[c])
        {
            const TransferSpec& ts = workload.transfers[t];
            if (times[t].deliveredPs == kNoTime && ts.step >= 0 &&
                static_cast<uint32_t>(ts.step) < cs.steps)
            {
                stepUnfinished[ts.step] = true;
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
        wt.reserve(transfersOf[c].size());
        for (uint32_t t : transfersOf[c])
        {
            const TransferSpec& ts = workload.transfers[t];
            WaitTransfer w;
            w.src = ts.src;
            w.dst = ts.dst;
            w.step = ts.step;
            w.bytes = ts.bytes;
            w.started = times[t].startPs != kNoTime;
            w.startPs = w.started ? times[t].startPs : 0;
            w.delivered = times[t].deliveredPs != kNoTime;
            w.deliveredPs = w.delivered ? times[t].deliveredPs : 0;
            w.idealPs = result.flows[t].idealFctPs; // flows.csv's: QP splits included
            wt.push_back(w);
        }
        const auto idealOf = [&](uint32_t src, uint32_t dst, uint64_t b) {
            if (executor.scaleUp && executor.scaleUp->SameServer(src, dst))
            {
                return executor.scaleUp->IdealFctPs(b);
            }
            return built.fabric.IdealFctPs(src, dst, b, framing);
        };
        CollectiveWaits cw =
            ComputeWaits(c, cs.ranks, cs.steps, row.startPs, wt, idealOf);
        row.ranksDelayed = cw.ranksDelayed;
        // (int64_t: with -1 and a uint32_t the conditional's type is unsigned, and -1 became
        // 4294967295, a flow index past the end when the collective did not finish)
        row.criticalFlow = cw.criticalTransfer < 0
                               ? int64_t{-1}
                               : static_cast<int64_t>(transfersOf[c][cw.criticalTransfer]);
        for (WaitRow& w : cw.rows)
        {
            w.lastTransfer = w.lastTransfer < 0 ? int64_t{-1}
                                                : static_cast<int64_t>(transfersOf[c][w.lastTransfer]);
            result.waits.push_back(w);
        }
        if (row.finished && row.finishPs > row.startPs)
        {
            row.cctPs = row.finishPs - row.startPs;
            row.algbwGBps = static_cast<double>(cs.bytesPerRank) / (row.cctPs * 1e-12) / 1e9;
            row.busbwGBps = row.algbwGBps * cs.busbwFactor;
        }
        result.collectives.push_back(row);
    }

    // ---- jobs --------------------------------------------------------------------------
    for (uint32_t j = 0; j < workload.jobs.size(); ++j)
    {
        const JobInfo& ji = workload.jobs[j];
        JobRow row;
        row.id = j;
        row.name = ji.name;
        row.hosts = ji.hosts;
        row.tp = ji.tp;
        row.pp = ji.pp;
        row.dp = ji.dp;
        row.ep = ji.ep;
        row.placement = ji.placement;
        row.source = ji.source;
        row.note = ji.note;
        row.iterations = ji.iterations;
        row.startPs = ji.startPs;
        row.iterationEndPs.assign(ji.iterations, 0);
        row.finished = true;
        std::vector<bool> iterationDone(ji.iterations, true);
        for (const auto& c : result.collectives)
        {
            if (c.job != static_cast<int32_t>(j))
            {
                continue;
            }
            ++row.collectives;
            const bool inRange = c.iteration >= 0 && static_cast<uint32_t>(c.iteration) < ji.iterations;
            if (!c.finished)
            {
                row.finished = false;
                if (inRange)
                {
                    iterationDone[c.iteration] = false;
                }
                continue;
            }
            row.finishPs = std::max(row.finishPs, c.finishPs);
            if (inRange)
            {
                row.iterationEndPs[c.iteration] =
                    std::max(row.iterationEndPs[c.iteration], c.finishPs);
            }
        }
        for (uint32_t i = 0; i < ji.iterations; ++i)
        {
            if (!iterationDone[i])
            {
                row.iterationEndPs[i] = 0;
            }
        }
        if (!row.finished)
        {
            row.finishPs = 0;
        }
        result.jobs.push_back(row);
    }
    result.chakraNodes = CollectChakraNodes(*executor.exec);

    // ---- links, PFC events and conservation --------------------------------------------
    result.links = sink.LinkRows(std::max<uint64_t>(result.simEndPs, 1), Simulator::Now());
    result.pfcEvents = sink.TakePfcEvents();
    Conservation& cons = result.conservation;
    for (const auto& nic : built.nics)
    {
        for (uint32_t k = 0; k < nic->GetNPlanes(); ++k) // every port of a multi-plane NIC
        {
            cons.sent += nic->GetPlanePort(k)->GetCounters().txFrames;
            cons.received += nic->GetPlanePort(k)->GetCounters().rxFrames;
        }
    }
    for (const auto& row : result.links)
    {
        for (int k = 0; k < kDropReasons; ++k)
        {
            if (static_cast<DropReason>(k) != DropReason::NIC_STALE)
            {
                cons.dropped += row.drops[k];
            }
        }
        result.packetHops += row.txFrames;
    }
    for (const auto& l : built.fabric.links)
    {
        cons.inFlight += l.channel->GetFramesInFlight();
    }
    // Byte share of each uplink among the uplinks of its switch.
    {
        std::map<std::string, uint64_t> upTotal;
        for (const auto& l : result.links)
        {
            if (l.uplink)
            {
                upTotal[l.from] += l.txBytes;
            }
        }
        for (auto& l : result.links)
        {
            if (l.uplink)
            {
                const uint64_t total = upTotal[l.from];
                l.byteShare = total ? static_cast<double>(l.txBytes) / static_cast<double>(total) : 0;
            }
        }
    }
    for (const auto& sw : built.fabric.switches)
    {
        // Frames a policy generated count as sent, those it consumed as received, and those
        // it holds (ConWeave's reorder queues) as in flight.
        cons.sent += sw->GetFramesInjected();
        cons.received += sw->GetFramesConsumed();
        cons.inFlight += sw->GetFramesInPipeline() + sw->GetFramesHeld();
        for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
        {
            cons.inFlight += sw->GetPort(p)->GetQueuedFrames();
        }
    }

    for (auto& h : result.headroom)
    {
        h.maxUsedBytes = sink.MaxHeadroomUsed(h.rateBps, h.delayPs);
    }
    for (size_t s = 0; s < built.fabric.switches.size(); ++s)
    {
        const Ptr<SharedBufferMmu> mmu = built.fabric.switches[s]->GetMmu();
        if (!mmu)
        {
            continue;
        }
        SwitchRow row;
        row.name = graph.vertices[graph.numHosts + s].name;
        row.bufferBytes = mmu->GetBufferBytes();
        row.reservedPoolBytes = mmu->GetReservedPoolBytes();
        row.headroomPoolBytes = mmu->GetHeadroomPoolBytes();
        row.sharedPoolBytes = mmu->GetSharedPoolBytes();
        row.maxTotalBytes = mmu->GetPeakUsed();
        row.maxReservedBytes = mmu->GetPeakReservedUsed();
        row.maxSharedBytes = mmu->GetPeakSharedUsed();
        row.maxHeadroomBytes = mmu->GetPeakHeadroomUsed();
        result.switchRows.push_back(row);
    }
    result.summary = Summarize(result, spec.lb.policy, sink.TrimmedFrames());
    for (const auto& nic : built.nics) // CNPs: counted per QP at the notification point
    {
        for (uint32_t q = 0; q < nic->GetNQps(); ++q)
        {
            const ns3::QpCounters& c = nic->GetQp(ns3::RdmaNic::kFirstQpn + q)->GetCounters();
            result.summary.cnps += c.cnpsSent + c.oooCnpsSent;
        }
    }
    const std::string& deadlock = observers.Deadlock();

    if (!deadlock.empty())
    {
        result.failure = deadlock;
    }
    else if (executor.exec->IsStalled())
    {
        // The watchdog stopped a run that could not progress: always a failure, and named.
        TimeValue timeout;
        executor.exec->GetAttribute("StallTimeout", timeout);
        result.failure = fmt::format("watchdog: no progress for {:.3f} ms at {:.3f} ms",
                                     timeout.Get().GetPicoSeconds() / 1e9,
                                     executor.exec->GetStallPs() / 1e9);
        for (const auto& line : executor.exec->DescribeBlocked())
        {
            result.failure += "; " + line;
        }
    }
    else if (!result.finished && spec.requireFinish)
    {
        // The same count as flows.csv (finished = every byte delivered) and the manifest.
        result.failure = fmt::format("{} of {} transfers unfinished at {:.3f} ms (stop_time_ms = "
                                     "{:.3f})",
                                     std::count_if(times.begin(), times.end(),
                                                   [](const MetricsSink::TransferTimes& r) {
                                                       return r.deliveredPs == kNoTime;
                                                   }),
                                     times.size(), endPs / 1e9, spec.stopTimePs / 1e9);
        for (const auto& line : executor.exec->DescribeBlocked(4))
        {
            result.failure += "; " + line;
        }
    }
    if (!result.failure.empty() && FabricKindOf(spec).UsesCredits())
    {
        result.failure += CreditWaitNote(built.fabric);
    }
    if (!cons.Holds())
    {
        result.failure += fmt::format("{}packet conservation violated: sent {} != received {} + "
                                      "dropped {} + in flight {}",
                                      result.failure.empty() ? "" : "; ", cons.sent,
                                      cons.received, cons.dropped, cons.inFlight);
    }
    result.invariantViolations = InvariantViolations(result, built.fabric, sink.LinkRateViolation());
    for (const auto& v : result.invariantViolations)
    {
        result.failure += (result.failure.empty() ? "" : "; ") + ("invariant violated: " + v);
    }
}

} // namespace tusk
