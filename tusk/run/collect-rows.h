/*
 * tusk: the rows of flows.csv, collectives.csv and waits.csv for a range of transfer ids and
 * the collectives among them. CollectResults builds them for the whole workload at the end of
 * the run; a job built iteration by iteration has each iteration's built when it retires
 * (IterationRows, lazy-jobs.h), from its records before the executor frees them. Either way
 * the rows are the same: every row depends only on its own transfer, the collective-aware
 * ideal on its group (a collective's step, within one iteration), and a collective's row on
 * its own transfers.
 */
#ifndef TUSK_RUN_COLLECT_ROWS_H
#define TUSK_RUN_COLLECT_ROWS_H

#include "run/run-stages.h"
#include "run/waits.h"

#include "fabric/model/ideal-fct.h"

#include "fabric/helper/fair-share-ideal.h"
#include "workload/model/flat-index.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tusk
{

/** What the rows are built from. */
struct RowSources
{
    const ScenarioSpec& spec;
    const ns3::TopologyGraph& graph;
    const BuiltFabric& built;
    const Executor& executor;
    const MetricsSink& sink;
    /** The transfer and the collective of an id (the workload's, or a live iteration's). */
    std::function<const ns3::TransferSpec&(uint32_t)> transfer;
    std::function<const ns3::CollectiveSpec&(uint32_t)> collective;

    /** A data packet's framing on the wire (MTU, headers, PHY overhead). */
    ns3::Framing DataFraming() const;

    /** Fabric::IdealFctPs(src, dst, bytes, DataFraming()), each distinct (src, dst, bytes)
     *  computed once: a function of those alone during a run (the graph, the routes, the
     *  ports' rates and the cached path profiles do not change), asked for every flow row and
     *  every rank of waits.csv, and a job's iterations (a replayed one and its memo) ask for
     *  the same ones. */
    uint64_t IdealFctPs(uint32_t src, uint32_t dst, uint64_t bytes) const;

    /** The answers of IdealFctPs so far, by (src << 32 | dst, bytes); shared by copies. */
    struct IdealKeyHash
    {
        size_t operator()(const std::pair<uint64_t, uint64_t>& k) const
        {
            return std::hash<uint64_t>()(k.first * 0x9E3779B97F4A7C15ULL ^ k.second);
        }
    };
    /** A FlatIndex: one cache line a lookup (an unordered_map's bucket and nodes took three,
     *  cold at 8,192 hosts, where each row of a ring step asks for another rank's). */
    using IdealCache = ns3::FlatIndex<std::pair<uint64_t, uint64_t>, uint64_t, IdealKeyHash>;
    std::shared_ptr<IdealCache> ideals = std::make_shared<IdealCache>();
};

/**
 * \brief flows.csv's rows of transfers [first, last), appended to `rows` in id order, from the
 * sink's times and the executor's records (each record's path and message lists freed once
 * its row is built, unless `keepRecords`: the row can then be built again, the same);
 * `lastCompletion` maxed with their delivery and acknowledgement times, ps.
 * The collective-aware ideal is left to ApplyFairShare.
 *
 * `reuse`: the last min(reuse, rows.size()) rows of `rows` are scratch, overwritten (every
 * field set anew) before any row is appended, their path lists' storage reused; `rows` ends
 * with the rows of [first, last) after the rows before those. A caller that builds rows a
 * range at a time into the same vector (WholeRows) passes its size, so the rows' path lists
 * are not allocated for every row again.
 *
 * `paths` false: the rows' path lists (FlowRow::paths) are left empty, not decoded from the
 * records (the summary and collectives.csv's step columns do not read them; FillFlowPaths
 * fills a row's later, while its record's lists are held).
 */
void AppendFlowRows(const RowSources& src,
                    uint64_t first,
                    uint64_t last,
                    std::vector<FlowRow>& rows,
                    uint64_t& lastCompletion,
                    bool keepRecords = false,
                    size_t reuse = 0,
                    bool paths = true);

/** \brief `row`'s path list (FlowRow::paths), the row of transfer `t` built by AppendFlowRows
 *  with `paths` false: decoded from t's record, whose lists must still be held (keepRecords). */
void FillFlowPaths(const RowSources& src, uint32_t t, FlowRow& row);

/**
 * The collective-aware ideals of the last few calls of ApplyFairShare, keyed by their whole
 * input (FairShareIdealPs is a function of its transfers alone: the graph, routes and ports do
 * not change during a run). Consecutive iterations of a job have the same traffic (and a
 * replayed iteration always has its memo iteration's), so the fair shares are computed once.
 */
struct FairShareCache
{
    /** The inputs and outputs of the calls kept, most recent first. */
    std::deque<std::pair<std::vector<ns3::FairShareTransfer>, std::vector<uint64_t>>> entries;
    /** How many calls are kept (a job's iterations can alternate over a few patterns). */
    size_t capacity = 4;
    /** Keyed by each group's input (its transfers with group ids dropped) instead of the
     *  whole call's, when every transfer of a call is in a group and each group's transfers
     *  are consecutive (else the whole call's): a streamed ring's ranges hold several steps,
     *  and the ranges differ, but its steps' inputs repeat (every step, when its bytes split
     *  evenly over its ranks). FairShareIdealPs treats its groups independently, so a group's
     *  ideals are the same computed alone. */
    bool byGroup = false;
    uint64_t hits = 0;   //!< calls answered from the cache
    uint64_t misses = 0; //!< calls computed
};

/** \brief The collective-aware ideal (fairIdealPs, fairSlowdown) of rows[0 .. last - first),
 *  the rows of transfers [first, last), which must hold whole groups (collective steps).
 *  With a cache: FairShareIdealPs only for an input not among the cache's. */
void ApplyFairShare(const RowSources& src,
                    FlowRow* rows,
                    uint64_t first,
                    uint64_t last,
                    FairShareCache* cache = nullptr);

/**
 * What collectives.csv's and waits.csv's rows read of a flow row (the fields of FlowRow of the
 * same names): 64 bytes against a FlowRow's 328 and its paths, made for each chunk of a whole
 * build whose flow rows are streamed (CollectResults, RunOptions::streamRows) and read by
 * CollectiveRowStreamer.
 */
struct CollectiveFlow
{
    uint64_t id = 0;
    uint64_t bytes = 0;
    uint64_t startPs = 0;
    uint64_t finishPs = 0;
    uint64_t idealFctPs = 0;
    uint32_t src = 0;
    uint32_t dst = 0;
    int32_t collective = -1;
    int32_t step = -1;
    bool started = false;
    bool finished = false;
    bool scaleUp = false;
};

/** The fields of `f` collectives.csv's and waits.csv's rows read. */
CollectiveFlow CollectiveFlowOf(const FlowRow& f);

/**
 * \brief collectives.csv's rows of collectives [cFirst, cEnd) and their waits.csv rows,
 * appended in collective order, from the flow rows of transfers [first, last) (rows[k] is
 * transfer first + k), which must include every transfer of those collectives.
 */
void AppendCollectiveRows(const RowSources& src,
                          const FlowRow* rows,
                          uint64_t first,
                          uint64_t last,
                          uint64_t cFirst,
                          uint64_t cEnd,
                          std::vector<CollectiveRow>& collectives,
                          std::vector<WaitRow>& waits);
/** \brief As above, from the slim rows of transfers [first, last) (rows[k] is transfer
 *  first + k): the same rows. */
void AppendCollectiveRows(const RowSources& src,
                          const CollectiveFlow* rows,
                          uint64_t first,
                          uint64_t last,
                          uint64_t cFirst,
                          uint64_t cEnd,
                          std::vector<CollectiveRow>& collectives,
                          std::vector<WaitRow>& waits);

/**
 * \brief collectives.csv's and waits.csv's rows of a whole build whose transfers come a
 * collective step after another (StreamableWhole), built as the steps come instead of from
 * every transfer's CollectiveFlow at the end: the same rows as AppendCollectiveRows over all
 * of them. What it holds grows with a collective's ranks and steps, not its transfers:
 * per rank, its latest arrival, whether all its data arrived and its delay flags (waits.csv's
 * ComputeWaits, whose rows of a step are handed on as soon as the step is in) and, for the
 * critical path, the previous step's cells (arrival and the straggler of the path back from
 * the transfer delivered last into it); per step, collectives.csv's step columns.
 *
 * The critical path (waits.h, CollectiveWaits::criticalTransfer) runs back from the transfer
 * delivered last, one step at a time, and its straggler is the first transfer on it (from
 * that end) with the largest excess over its ideal. The path back from a transfer of step k
 * continues into a cell of step k - 1 and never depends on later steps, so the straggler of
 * the path from each cell's last transfer is known when step k is in: that transfer itself if
 * its excess is at least the straggler's of the cell it continues into, else that straggler.
 * The collective's is the straggler of the path from its transfer delivered last (first in
 * transfer order among equal times), found when that transfer is read.
 *
 * One input is known only at the collective's end: its start (the earliest start of its
 * transfers), which a rank that sends nothing in a step reads (it is ready when its earlier
 * data arrived, or at the start). The first such row asks `startOfRest` for the earliest
 * start among the transfers not yet added (a ring never asks: every rank sends in every
 * step).
 */
class CollectiveRowStreamer
{
  public:
    /** A step's wait rows (their lastTransfer a transfer id) and the id flows.csv's row of
     *  such a transfer prints (FlowRow::id). */
    using WaitSink = std::function<void(const std::vector<WaitRow>& rows,
                                        const std::function<uint64_t(int64_t)>& idOf)>;
    /** The earliest start, ps, of the started transfers of collective `c` from transfer id
     *  `from` on (UINT64_MAX if none). */
    using StartOfRest = std::function<uint64_t(uint32_t c, uint64_t from)>;

    /** \param collectives the workload's collectives (every one gets a row, in order) */
    CollectiveRowStreamer(const RowSources& src,
                          uint64_t collectives,
                          StartOfRest startOfRest,
                          WaitSink waits);
    ~CollectiveRowStreamer();
    CollectiveRowStreamer(const CollectiveRowStreamer&) = delete;
    CollectiveRowStreamer& operator=(const CollectiveRowStreamer&) = delete;

    /** \brief The slim rows of transfers [first, first + n) (rows[k] is transfer first + k):
     *  whole (collective, step) groups, after those added before in (collective, step) order. */
    void Add(uint64_t first, const CollectiveFlow* rows, size_t n);
    /** \brief After the last Add: every collective's row, in order. */
    std::vector<CollectiveRow> Finish();
    /** \brief Calls fn with every transfer id added so far that is, or may still become, a
     *  collective's critical flow (CollectiveRow::criticalFlow), with repeats: the closed
     *  collectives' critical flows and, of the open one, the straggler of the path from the
     *  transfer delivered last and those of the paths from the last step's cells (a later
     *  step's paths continue into these only). At most one per rank of the open collective
     *  plus one, and one per closed collective. */
    void ForEachCandidate(const std::function<void(int64_t)>& fn) const;

  private:
    struct State;
    std::unique_ptr<State> m;
};

class RowStream; // row-stream.h

/**
 * \brief A whole build's rows streamed (StreamableWhole: its transfers come a collective step
 * after another): flows.csv's rows a range of whole steps at a time, written and dropped;
 * collectives.csv's and waits.csv's built from them as they come (CollectiveRowStreamer),
 * the wait rows written as each step is in, the collective rows at the end. The rows of the
 * transfers that are or may become a collective's critical flow are kept (at most one per
 * rank plus one; CollectiveRowStreamer::ForEachCandidate) for collectives.csv's critical flow
 * columns, so no record is read again.
 *
 * A standalone ring built a window of steps at a time hands it each unit whose rows are final
 * when it retires (WorkloadExecutor::SetFinalUnitCallback: Add, then the executor frees its
 * records, and Add frees the sink's times); Finish builds the rest from the records at the
 * end (CollectResults).
 */
class WholeRows
{
  public:
    /** \param sink the sink of `src` (its times are freed); \param transfers the workload's
     *  transfers; \param collectives its collectives; `sink` and `stream` must outlive this */
    WholeRows(RowSources src,
              MetricsSink& sink,
              uint64_t transfers,
              uint64_t collectives,
              RowStream& stream);
    ~WholeRows();
    WholeRows(const WholeRows&) = delete;
    WholeRows& operator=(const WholeRows&) = delete;

    /** \brief The rows of transfers [Next(), last), whole (collective, step) groups, built
     *  from their records (whose path and message lists are freed) and the sink's times
     *  (freed too when `releaseTimes`), written to the stream. */
    void Add(uint64_t last, bool releaseTimes);
    /** The first transfer whose rows are not built. */
    uint64_t Next() const { return m_next; }
    /** The latest delivery or acknowledgement among the rows built, ps. */
    uint64_t LastCompletion() const { return m_lastCompletion; }
    /** \brief After the run: the rest of the rows, a few thousand at a time (whole steps),
     *  then collectives.csv's; the stream finished into `out`. */
    void Finish(StreamedRows& out);

  private:
    RowSources m_src;
    MetricsSink& m_sink;
    uint64_t m_transfers;
    RowStream& m_stream;
    CollectiveRowStreamer m_collectives;
    uint64_t m_next = 0;
    uint64_t m_lastCompletion = 0;
    /** The rows that may be a critical flow, by id, sorted (a vector walked once a range:
     *  at 8,192 ranks a map's walk over its thousands of nodes missed the cache at each). */
    std::vector<std::pair<int64_t, std::unique_ptr<FlowRow>>> m_candidates;
    std::vector<int64_t> m_candidateIds;     //!< scratch: the candidates' ids, sorted
    std::vector<FlowRow> m_chunk;            //!< scratch
    std::vector<CollectiveFlow> m_slim;      //!< scratch
    /** The collective-aware ideals of the latest ranges: a ring whose bytes split evenly over
     *  its ranks has every step's input the same, so they are computed once. */
    FairShareCache m_fairShares; //!< by group (set in the constructor)
};

} // namespace tusk

#endif
