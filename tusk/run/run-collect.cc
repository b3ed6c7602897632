/*
 * tusk: the tables of a finished run: flows (with ideal FCTs), collectives, jobs, links,
 * packet conservation, and why the run failed if it did.
 */
#include "run/run-stages.h"
#include "fabric/model/kernel/run-clock.h"
#include "run/collect-rows.h"
#include "run/lazy-jobs.h"
#include "run/row-stream.h"
#include "run/fabric-kinds.h"
#include "run/failure-kinds.h"
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
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

namespace tusk
{

using namespace ns3;

namespace
{

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

/** "; host H's NIC is down since T us (failures[i], KIND): ..." for every host whose NIC a
 *  failure took down before `atPs` (a NIC kind that TAKES_DOWN, failure-kinds.h) and nothing
 *  brought back by then; "" if none. A stalled or
 *  unfinished run with such a host is that failure's doing, whatever else it says. */
std::string
HostsDownNote(const ScenarioSpec& spec, uint64_t atPs)
{
    std::map<uint32_t, std::pair<uint64_t, size_t>> down; // host -> (since, failure index)
    std::vector<size_t> order(spec.failures.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return spec.failures[a].atPs < spec.failures[b].atPs;
    });
    for (const size_t i : order)
    {
        const FailureEntry& f = spec.failures[i];
        const FailureKindInfo* kind = FindFailureKind(f.kind);
        if (!f.host || f.atPs > atPs || kind == nullptr || kind->target != FailureKindInfo::NIC)
        {
            continue;
        }
        if (kind->effect == FailureKindInfo::TAKES_DOWN && (!f.untilPs || *f.untilPs > atPs))
        {
            down.emplace(*f.host, std::make_pair(f.atPs, i));
        }
        else if (kind->effect == FailureKindInfo::BRINGS_UP)
        {
            down.erase(*f.host);
        }
    }
    std::string note;
    for (const auto& [host, since] : down)
    {
        note += fmt::format("; host {}'s NIC is down since {:.3f} us (failures[{}], {}): its "
                            "flows and those to it cannot finish",
                            host, since.first / 1e6, since.second,
                            spec.failures[since.second].kind);
    }
    return note;
}

/** The setting that keeps what a go-back-N receiver discards: selective repeat for RoCE, RUD for
 *  UEC's ROD (whose receivers nic.receiver does not set). */
std::string
OutOfOrderKeeper(const ScenarioSpec& spec)
{
    return spec.nic.transport == "uec-rod"
               ? "nic.transport = \"uec-rud\" (an EV per packet, selective retransmission)"
               : "nic.receiver = \"selective-repeat\"";
}

} // namespace

std::string
WatchdogTimeoutHint(const ScenarioSpec& spec, const RunSummary& summary, uint64_t watchdogPs)
{
    if (spec.nic.rtoPs <= watchdogPs)
    {
        return "";
    }
    if (ReceiverInEffect(spec.nic) == "go-back-n" && summary.drops == 0 &&
        summary.oooPackets > 0)
    {
        // Nothing was lost: a go-back-N receiver discards what arrives out of order and NAKs
        // once per expected PSN, so a discarded frame with no later arrival to NAK it (a
        // message's tail, or an expected PSN already NAKed) waits for the retransmission timer.
        return fmt::format(
            "; no frame was dropped: the go-back-N receivers discarded {} out-of-order "
            "arrivals, and a discarded frame that no later arrival NAKs (at a message's tail, "
            "or after its expected PSN was NAKed once already) is resent only after the "
            "retransmission timeout (nic.rto_us = {:.3f} us), longer than the watchdog; a "
            "policy that reorders packets wants {} (or set nic.rto_us below the watchdog, "
            "workload.watchdog_ms)",
            summary.oooPackets, spec.nic.rtoPs / 1e6, OutOfOrderKeeper(spec));
    }
    // A lost frame with no NACK to recover it waits for the retransmission timer; when that
    // timer is longer than the watchdog, the watchdog fires first.
    return fmt::format("; the retransmission timeout (nic.rto_us = {:.3f} us) is longer than the "
                       "watchdog: a frame lost without a NACK is resent only after it; set "
                       "nic.rto_us below the watchdog (workload.watchdog_ms) or raise the watchdog",
                       spec.nic.rtoPs / 1e6);
}

std::string
RtoBelowRttWarning(const ScenarioSpec& spec, const PairRtt& longest)
{
    if (longest.rttPs == 0 || spec.nic.rtoPs >= longest.rttPs)
    {
        return "";
    }
    // No ACK can come back sooner than the base RTT: a timer shorter than it fires for every
    // packet on such a path, and each firing resends from the oldest unacknowledged PSN.
    constexpr uint64_t kDeployedRtoPs = 67'108'864'000; // 4.096 µs × 2^14
    return fmt::format("nic.rto_us ({:.3f} µs) is shorter than the longest base RTT ({:.3f} µs, "
                       "host {} -> {}, {} links): every packet on that path times out before "
                       "its ACK can return and is resent{}",
                       spec.nic.rtoPs / 1e6, longest.rttPs / 1e6, longest.src, longest.dst,
                       longest.links,
                       longest.rttPs < kDeployedRtoPs
                           ? "; a deployed NIC's timeout is 67108.864 µs (nic.rto_us's default)"
                           : "");
}

std::string
GoBackNResendNote(const ScenarioSpec& spec, const RunSummary& summary)
{
    if (ReceiverInEffect(spec.nic) != "go-back-n" || summary.oooPackets == 0)
    {
        return "";
    }
    // A go-back-N receiver discards every packet that overtakes a missing one (lost, or
    // overtaken on another path), and its sender resends from the missing one on: under a
    // policy that reorders one QP's packets the resends reorder again, and the run can resend
    // faster than it delivers.
    return fmt::format("; the go-back-N receivers discarded {} out-of-order arrivals (after a "
                       "loss, or overtaken on another path) and the senders resent {} packets "
                       "({} B of payload); where the policy reorders one QP's packets "
                       "(per-packet spraying, DRILL, per-packet adaptive routing), {} keeps them",
                       summary.oooPackets, summary.retxPackets, summary.retxBytes,
                       OutOfOrderKeeper(spec));
}

namespace
{

/** PathClassRow::baseRttPs of the pair (src, dst): an MTU data frame there and its ACK back. */
uint64_t
BaseRttPs(const ScenarioSpec& spec, const BuiltFabric& built, uint32_t src, uint32_t dst)
{
    Framing data;
    data.mtuBytes = spec.nic.mtuBytes;
    data.headerBytes = kRoceDataOverheadBytes;
    data.phyOverheadBytes = spec.fabric.phyOverheadBytes;
    // The ACK: a data frame's headers plus the 4-byte AETH (IBA 9.3.5), no payload.
    const uint64_t aethBytes = 4;
    return built.fabric.IdealFctPs(src, dst, spec.nic.mtuBytes, data) +
           built.fabric.IdealFctPs(dst, src, aethBytes, data);
}

} // namespace

std::vector<PathClassRow>
PathClasses(const ScenarioSpec& spec, const BuiltFabric& built, uint32_t numHosts)
{
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
        c.baseRttPs = BaseRttPs(spec, built, 0, dst);
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

PairRtt
LongestBaseRtt(const ScenarioSpec& spec, const BuiltFabric& built,
               const ns3::WorkloadSpec& workload)
{
    PairRtt longest;
    auto consider = [&](uint32_t src, uint32_t dst, uint32_t links, uint64_t rttPs) {
        if (rttPs > longest.rttPs)
        {
            longest = {src, dst, links, rttPs};
        }
    };
    const uint32_t numHosts = built.fabric.graph.NumRankHosts();
    for (const auto& c : PathClasses(spec, built, numHosts))
    {
        consider(c.src, c.dst, c.links, c.baseRttPs);
    }
    const uint32_t gpus = spec.scaleUp.gpusPerServer;
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (const auto& t : workload.transfers)
    {
        if (seen.size() >= kRttPairsChecked)
        {
            break;
        }
        if (t.src == t.dst || t.src >= numHosts || t.dst >= numHosts ||
            (gpus > 1 && t.src / gpus == t.dst / gpus))
        {
            continue; // refused by BuildWorkload, or over the scale-up domain
        }
        const auto pair = std::minmax(t.src, t.dst); // the RTT is the same both ways round
        if (!seen.insert(pair).second)
        {
            continue;
        }
        if (const uint32_t links = built.fabric.HopCount(t.src, t.dst); links > 0)
        {
            consider(t.src, t.dst, links, BaseRttPs(spec, built, t.src, t.dst));
        }
    }
    return longest;
}


namespace
{

/** Flow rows a streamed whole build holds at a time (at least; whole collective steps). */
constexpr uint64_t kStreamChunk = 4096;

} // namespace

bool
StreamableWhole(const WorkloadSpec& workload)
{
    for (size_t t = 0; t < workload.transfers.size(); ++t)
    {
        const TransferSpec& ts = workload.transfers[t];
        if (ts.collective < 0 || ts.step < 0 || ts.background ||
            static_cast<size_t>(ts.collective) >= workload.collectives.size())
        {
            return false;
        }
        if (t > 0)
        {
            const TransferSpec& prev = workload.transfers[t - 1];
            if (std::make_pair(ts.collective, ts.step) < std::make_pair(prev.collective, prev.step))
            {
                return false;
            }
        }
    }
    return !workload.transfers.empty();
}

WholeRows::WholeRows(RowSources src,
                     MetricsSink& sink,
                     uint64_t transfers,
                     uint64_t collectives,
                     RowStream& stream)
    : m_src(std::move(src)),
      m_sink(sink),
      m_transfers(transfers),
      m_stream(stream),
      m_collectives(
          m_src,
          collectives,
          // A collective's earliest start among its transfers from `from` on (asked only
          // when a rank that sends nothing in a step reads the collective's start before its
          // end; the sink's times of those are still held).
          [this](uint32_t c, uint64_t from) {
              uint64_t start = UINT64_MAX;
              for (uint64_t t = from; t < m_transfers; ++t)
              {
                  const TransferSpec& ts = m_src.transfer(static_cast<uint32_t>(t));
                  if (ts.collective != static_cast<int32_t>(c))
                  {
                      break;
                  }
                  const uint64_t at = m_src.sink.Times(static_cast<uint32_t>(t)).startPs;
                  if (at != kNoTime)
                  {
                      start = std::min(start, at);
                  }
              }
              return start;
          },
          [this](const std::vector<WaitRow>& waits, const std::function<uint64_t(int64_t)>& idOf) {
              m_stream.AddWaits(0, waits, idOf);
          })
{
    m_stream.SetSegmentCache(false);
    m_stream.SetSourceCache(true);
    m_fairShares.byGroup = true;
}

WholeRows::~WholeRows() = default;

void
WholeRows::Add(uint64_t last, bool releaseTimes)
{
    const uint64_t first = m_next;
    // The previous range's rows overwritten: their path lists' storage reused, so a unit
    // retiring during the run allocates none for most rows (a heap the simulation's small
    // objects share).
    // Without flows.csv ([output] flow_rows = "summary") no row's paths are decoded but the
    // critical-flow candidates' (below, from their records, then freed): the summary and
    // collectives.csv's step columns do not read them.
    const bool paths = m_stream.FlowRows();
    AppendFlowRows(m_src, first, last, m_chunk, m_lastCompletion, !paths, m_chunk.size(), paths);
    ApplyFairShare(m_src, m_chunk.data(), first, last, &m_fairShares);
    m_slim.clear();
    for (const FlowRow& f : m_chunk)
    {
        m_slim.push_back(CollectiveFlowOf(f));
    }
    m_stream.Add(0, first, m_chunk, {}, {});
    m_collectives.Add(first, m_slim.data(), m_slim.size());
    // The rows that may still be a collective's critical flow: those of this range among the
    // candidates now (moved: the chunk is written), and the earlier ones still among them.
    // Their ids sorted, each once (a vector reused from range to range, not a set's node
    // per id: a candidate per rank).
    std::vector<int64_t>& candidates = m_candidateIds;
    candidates.clear();
    m_collectives.ForEachCandidate([&](int64_t t) { candidates.push_back(t); });
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    m_candidates.erase(std::remove_if(m_candidates.begin(), m_candidates.end(),
                                      [&](const std::pair<int64_t, std::unique_ptr<FlowRow>>& c) {
                                          return !std::binary_search(candidates.begin(),
                                                                     candidates.end(), c.first);
                                      }),
                       m_candidates.end());
    for (auto it = std::lower_bound(candidates.begin(), candidates.end(),
                                    static_cast<int64_t>(first));
         it != candidates.end() && *it < static_cast<int64_t>(last); ++it)
    {
        FlowRow& row = m_chunk[*it - first];
        if (!paths)
        {
            FillFlowPaths(m_src, static_cast<uint32_t>(*it), row);
        }
        // Its id is above every kept one's (earlier ranges): the list stays sorted.
        m_candidates.emplace_back(*it, std::make_unique<FlowRow>(std::move(row)));
    }
    if (!paths)
    {
        for (uint64_t t = first; t < last; ++t)
        {
            m_src.executor.exec->ReleaseRecord(static_cast<uint32_t>(t)); // as AppendFlowRows
        }
    }
    if (releaseTimes)
    {
        m_sink.ReleaseTimes(first, last); // in the rows now
    }
    m_next = last;
}

void
WholeRows::Finish(StreamedRows& out)
{
    const auto stepOf = [&](uint64_t t) {
        const TransferSpec& ts = m_src.transfer(static_cast<uint32_t>(t));
        return std::make_pair(ts.collective, ts.step);
    };
    while (m_next < m_transfers)
    {
        // At least kStreamChunk transfers, ending where a (collective, step) ends.
        uint64_t b = std::min<uint64_t>(m_next + kStreamChunk, m_transfers);
        while (b < m_transfers && stepOf(b) == stepOf(b - 1))
        {
            ++b;
        }
        Add(b, false);
    }
    std::vector<FlowRow>().swap(m_chunk);
    std::vector<CollectiveFlow>().swap(m_slim);
    const std::vector<CollectiveRow> collectives = m_collectives.Finish();
    m_stream.AddCollectives(0, collectives, {}, [&](int64_t t) -> const FlowRow& {
        const auto at = std::lower_bound(
            m_candidates.begin(), m_candidates.end(), t,
            [](const std::pair<int64_t, std::unique_ptr<FlowRow>>& c, int64_t id) {
                return c.first < id;
            });
        if (at == m_candidates.end() || at->first != t)
        {
            throw std::out_of_range("WholeRows: no kept row for critical flow " +
                                    std::to_string(t));
        }
        return *at->second;
    });
    m_candidates.clear();
    m_src.executor.exec->ReleaseRecords();
    m_stream.Finish(out);
}

void
CollectResults(const ScenarioSpec& spec,
               const TopologyGraph& graph,
               const WorkloadSpec& workload,
               const BuiltFabric& built,
               const Executor& executor,
               Observers& observers,
               RunResult& result,
               IterationRows* retired,
               WholeRows* whole)
{
    MetricsSink& sink = observers.Sink();
    const uint64_t endPs = RunClock::NowPs(); // the run's time (steady-state jumps' added)
    result.events = Simulator::GetEventCount();
    result.finished = executor.exec->AllDone();
    result.hosts = graph.NumRankHosts(); // aggregation endpoints are not hosts of the workload
    result.switches = graph.NumSwitches();
    result.nodeIds = ImportedNodeIds(spec);

    // ---- flows, collectives, waits -----------------------------------------------------
    const RowSources rows{spec,
                          graph,
                          built,
                          executor,
                          sink,
                          [&](uint32_t t) -> const TransferSpec& {
                              return executor.exec->GetTransfer(t);
                          },
                          [&](uint32_t c) -> const CollectiveSpec& {
                              return executor.exec->GetCollective(static_cast<int32_t>(c));
                          }};
    uint64_t lastCompletion = 0;
    const JobWindow* window = executor.exec->GetJobWindow();
    if (window != nullptr && retired != nullptr)
    {
        // Jobs built iteration by iteration: the retired iterations' rows are built; those of
        // iterations still live (a run that stopped early) now, keeping their records
        // (DescribeBlocked reads them below); then the other transfers' (background flows).
        for (const auto& range : window->LiveRanges())
        {
            retired->Add(range);
        }
        retired->MoveInto(result);
        lastCompletion = retired->LastCompletion();
        const uint64_t first = window->TransfersEnd();
        const uint64_t last = executor.exec->TotalTransfers();
        RowStream* stream = retired->Stream();
        // Streaming: the other transfers' rows are the stream's last part, then the files are
        // complete and the tables stay empty (RunResult::streamed).
        std::vector<FlowRow> tailFlows;
        std::vector<CollectiveRow> tailCollectives;
        std::vector<WaitRow> tailWaits;
        auto& flows = stream != nullptr ? tailFlows : result.flows;
        auto& collectives = stream != nullptr ? tailCollectives : result.collectives;
        auto& waits = stream != nullptr ? tailWaits : result.waits;
        const size_t at = flows.size();
        AppendFlowRows(rows, first, last, flows, lastCompletion);
        executor.exec->ReleaseRecords();
        ApplyFairShare(rows, flows.data() + at, first, last);
        AppendCollectiveRows(rows, flows.data() + at, first, last, window->CollectivesEnd(),
                             window->CollectivesEnd() + workload.collectives.size(), collectives,
                             waits);
        if (stream != nullptr)
        {
            stream->Add(workload.jobs.size(), first, tailFlows, tailCollectives, tailWaits);
            stream->Finish(result.streamed);
        }
    }
    else if (whole != nullptr)
    {
        // A whole build streamed (StreamableWhole, WholeRows): the rows not built yet (a
        // ring's units whose rows were final were built as they retired), then
        // collectives.csv's. (A ring built a window of steps at a time, RingStepUnits: its
        // transfers are built again here, a window at a time, GetTransfer.)
        whole->Finish(result.streamed);
        lastCompletion = whole->LastCompletion();
    }
    else
    {
        const uint64_t n = executor.exec->TotalTransfers();
        result.flows.reserve(result.flows.size() + n);
        const size_t at = result.flows.size();
        AppendFlowRows(rows, 0, n, result.flows, lastCompletion);
        // Every record is in a row: free them all (unless transfers remain unfinished, when
        // DescribeBlocked reads them below), before the collective, wait and job rows grow.
        executor.exec->ReleaseRecords();
        ApplyFairShare(rows, result.flows.data() + at, 0, n);
        AppendCollectiveRows(rows, result.flows.data() + at, 0, n, 0, workload.collectives.size(),
                             result.collectives, result.waits);
    }
    result.simEndPs = result.finished ? lastCompletion : endPs;
    result.pathClasses = PathClasses(spec, built, graph.NumRankHosts());

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
        ForEachCollective(result, [&](const CollectiveBrief& c) {
            if (c.job != static_cast<int32_t>(j))
            {
                return;
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
                return;
            }
            row.finishPs = std::max(row.finishPs, c.finishPs);
            if (inRange)
            {
                row.iterationEndPs[c.iteration] =
                    std::max(row.iterationEndPs[c.iteration], c.finishPs);
            }
        });
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
    result.dropEvents = sink.TakeDropEvents();
    Conservation& cons = result.conservation;
    cons.settledAfterRows = executor.exec->RetiredFramesSettled();
    cons.replayedInFlight = executor.exec->ReplayedFramesInFlight();
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
        result.failure += HostsDownNote(spec, executor.exec->GetStallPs());
        for (const auto& line : executor.exec->DescribeBlocked())
        {
            result.failure += "; " + line;
        }
        result.failure += WatchdogTimeoutHint(spec, result.summary,
                                              static_cast<uint64_t>(timeout.Get().GetPicoSeconds()));
        if (!result.rtoWarning.empty())
        {
            result.failure += "; " + result.rtoWarning;
        }
    }
    else if (!result.finished && spec.requireFinish)
    {
        // The same count as flows.csv (finished = every byte delivered) and the manifest.
        result.failure = fmt::format("{} of {} transfers unfinished at {:.3f} ms (stop_time_ms = "
                                     "{:.3f})",
                                     result.streamed.active
                                         ? result.streamed.flowSummary.unfinished
                                         : std::count_if(result.flows.begin(), result.flows.end(),
                                                         [](const FlowRow& f) { return !f.finished; }),
                                     FlowCount(result), endPs / 1e9, spec.stopTimePs / 1e9);
        result.failure += HostsDownNote(spec, endPs);
        for (const auto& line : executor.exec->DescribeBlocked(4))
        {
            result.failure += "; " + line;
        }
        result.failure += GoBackNResendNote(spec, result.summary);
        if (!result.rtoWarning.empty())
        {
            result.failure += "; " + result.rtoWarning;
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
