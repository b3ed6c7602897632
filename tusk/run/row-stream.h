/*
 * tusk: flows.csv, collectives.csv and waits.csv written while a run runs (RunOptions::
 * streamRows). A [[jobs]] workload built iteration by iteration (lazy-jobs.h) hands each
 * retiring iteration's rows here; they are appended to the staged files and dropped, so the
 * rows a run holds do not grow with its iterations; a whole build whose transfers come a
 * collective step after another (a standalone collective) hands its flow rows a few steps at a
 * time, its wait rows a step at a time (AddWaits) and its collective rows at the end
 * (AddCollectives; CollectResults, CollectiveRowStreamer). The files are byte-identical to what
 * WriteRunFiles writes from RunResult's tables, and the summary's flow part and the per-flow
 * invariants are the same values Summarize and InvariantViolations compute from the rows.
 *
 * Order. The files list rows in id order: job 0's transfers, job 1's, ..., then the other
 * transfers (background flows). A job's iterations retire in order, but jobs retire
 * interleaved, so each part (a job, or the rest) has its own file: job 0 writes into the
 * staged file itself, the others into scratch files appended to it at the end.
 *
 * Scratch files. The parts' text and spilled values go to unnamed files in the staging folder
 * (made as `.rows-XXXXXX` and unlinked at once): on the results' filesystem, not $TMPDIR,
 * whose tmpfs pages would be memory the run's peak RSS does not show. They never appear in
 * the folder, so never in the committed results or the marker's file list, and they vanish
 * with the process however it ends (an exception, Ctrl-C, SIGKILL); should it die between
 * making and unlinking one, the name is inside the staging folder, which goes with it.
 *
 * Exact statistics without the rows. Means are sums in id order: the values are spilled per
 * part to temporary binary files and summed in part order at the end, as std::accumulate over
 * RunResult::flows sums them. A nearest-rank percentile is an order statistic, found by a
 * radix selection over the spilled values (16 bits of the value's ordered bit pattern per
 * pass, until the candidates fit in memory), so it is the value std::sort would put at that
 * rank.
 */
#ifndef TUSK_RUN_ROW_STREAM_H
#define TUSK_RUN_ROW_STREAM_H

#include "run/runner.h"
#include "results/results-writer.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tusk
{

class AtomicFile;

/** A sequence of doubles appended in order and read back in order; spilled to an unnamed
 *  scratch file beyond a small buffer. */
class DoubleSpill
{
  public:
    /** \param dir the folder of the scratch file (RowStream: the staging folder; the name is
     *        removed as soon as it is made, see row-stream.h); "" = the system's temporary
     *        folder (std::tmpfile) */
    explicit DoubleSpill(std::string dir = "")
        : m_dir(std::move(dir))
    {
    }
    ~DoubleSpill();
    DoubleSpill(const DoubleSpill&) = delete;
    DoubleSpill& operator=(const DoubleSpill&) = delete;

    /** \throws WriteError when the temporary file cannot be written */
    void Push(double v);
    uint64_t Size() const { return m_size; }
    /** Calls fn(v) for every value, in the order pushed. */
    template <class Fn>
    void ForEach(Fn&& fn) const;

  private:
    void Flush();
    static constexpr size_t kBuffer = 8192;
    std::string m_dir;
    std::string m_name; //!< the scratch file, for errors
    std::FILE* m_file = nullptr;
    uint64_t m_onFile = 0;
    std::vector<double> m_buffer;
    uint64_t m_size = 0;
};

/**
 * \brief The `rank`-th smallest (1-based) of the values of `parts` together, as
 * std::sort would order them (nearest rank); NaN for none. Memory: at most 2^16 values and a
 * 2^16-bucket histogram, whatever the count.
 */
double OrderStatistic(const std::vector<const DoubleSpill*>& parts, uint64_t rank);

/** The rows of a run written to the staged files as the run goes. */
class RowStream
{
  public:
    /**
     * \param dir the staging folder (flows.csv, collectives.csv, waits.csv are written there,
     *        each through a temporary name renamed by Finish; the scratch files too)
     * \param parts jobs + 1: a part per job, the last for the other transfers
     * \param policy flows.csv's and collectives.csv's `policy` column
     * \param nodeIds RunResult::nodeIds (flows.csv's src_node, dst_node)
     * \param flowRows false ([output] flow_rows = "summary"): flows.csv and waits.csv are
     *        not written and their rows' text is not built (Shapes returns nothing); the
     *        summary, the invariants, the counts and collectives.csv are as with them
     * \throws WriteError when a file cannot be created
     */
    RowStream(const std::string& dir,
              size_t parts,
              std::string policy,
              std::vector<uint32_t> nodeIds,
              bool flowRows = true);
    ~RowStream();
    RowStream(const RowStream&) = delete;
    RowStream& operator=(const RowStream&) = delete;

    /**
     * \brief Rows of part `part`, in id order after the part's earlier rows: flows[k] is
     * transfer first + k (every transfer the collectives and waits refer to).
     * \throws WriteError
     */
    void Add(size_t part,
             uint64_t first,
             const std::vector<FlowRow>& flows,
             const std::vector<CollectiveRow>& collectives,
             const std::vector<WaitRow>& waits);
    /**
     * \brief Collective and wait rows of part `part` whose flow rows were added before (a
     * whole build streamed a few collective steps at a time, CollectResults): `flowOf(t)` is
     * the flow row of transfer t that a collective's critical flow or a wait's last transfer
     * names (its id, slowdown and paths are read).
     * \throws WriteError
     */
    void AddCollectives(size_t part,
                        const std::vector<CollectiveRow>& collectives,
                        const std::vector<WaitRow>& waits,
                        const std::function<const FlowRow&(int64_t)>& flowOf);
    /**
     * \brief Rows of part `part` that repeat earlier rows with their ids and times shifted
     * (fast mode: a replayed iteration's, IterationRows): flows.csv's row k is the line of
     * `shapes[k]` (Shapes) with id flows[k].id + idShift, start_us and finish_us of
     * flows[k]'s times + timeShift and collective_id flows[k].collective + collectiveShift;
     * the summary and invariants read flows[k] (its values and counters are the repeated
     * row's). Then the collective and wait rows as AddCollectives, `idOf(t)` the flow id a
     * wait's last transfer t has.
     * \throws WriteError
     */
    void AddShifted(size_t part,
                    const std::vector<FlowRow>& flows,
                    const std::vector<FlowCsvRowShape>& shapes,
                    uint64_t idShift,
                    uint64_t timeShift,
                    int64_t collectiveShift,
                    const std::vector<CollectiveRow>& collectives,
                    const std::vector<WaitRow>& waits,
                    const std::function<const FlowRow&(int64_t)>& flowOf,
                    const std::function<uint64_t(int64_t)>& idOf);
    /** The shapes of `flows`' lines of flows.csv (FlowCsvRowShapeOf with this stream's
     *  policy and node ids), each started and finished. */
    std::vector<FlowCsvRowShape> Shapes(const std::vector<FlowRow>& flows);
    /**
     * \brief Wait rows of part `part`, after its earlier ones (a whole build's collectives
     * built a step at a time, CollectiveRowStreamer): `idOf(t)` is the id flows.csv's row of
     * transfer t prints (a row's lastTransfer). Its collective rows follow with
     * AddCollectives (and no waits).
     * \throws WriteError
     */
    void AddWaits(size_t part,
                  const std::vector<WaitRow>& waits,
                  const std::function<uint64_t(int64_t)>& idOf);
    /** \brief Whether flows.csv's and waits.csv's row segments go through the segment cache
     *  (RowTextCache::segments; on by default; the numbers' cache is kept either way): it
     *  pays where rows repeat (a job's replayed iterations), and only costs where they do not
     *  (a standalone ring's rows, WholeRows: every flow row's tail prints its step, and at
     *  thousands of ranks a ring's distinct heads and wait segments outnumber the table).
     *  The bytes are the same either way. */
    void SetSegmentCache(bool on) { m_cache.segments = on; }
    /** \brief Whether flows.csv's segments are looked up among the same source's last rows
     *  (RowTextCache::bySource; off by default): a standalone ring's, whose replayed
     *  transfers repeat a rank's pooled transfers. The bytes are the same either way. */
    void SetSourceCache(bool on) { m_cache.bySource = on; }
    /** Whether flows.csv and waits.csv are written (the constructor's `flowRows`). */
    bool FlowRows() const { return m_flowRows; }
    /** \brief The files completed (parts joined in order, synced, renamed) and what the run
     *  keeps of the rows (StreamedRows). \throws WriteError */
    void Finish(StreamedRows& out);

  private:
    class ScratchText;
    struct Part;
    /** AddCollectives; waits' last flow ids from `idOf` when given, else from `flowOf`. */
    void AddCollectivesWith(size_t part,
                            const std::vector<CollectiveRow>& collectives,
                            const std::vector<WaitRow>& waits,
                            const std::function<const FlowRow&(int64_t)>& flowOf,
                            const std::function<uint64_t(int64_t)>* idOf);
    /** Append `text` to file i (flows, collectives, waits) of part `part`. */
    void Write(size_t part, int i, const std::string& text);
    std::string m_dir; //!< the staging folder (the staged files and the scratch files)
    std::string m_policy;
    std::vector<uint32_t> m_nodeIds;
    bool m_flowRows = true; //!< flows.csv and waits.csv written ([output] flow_rows)
    std::unique_ptr<AtomicFile> m_files[3]; //!< flows, collectives, waits (staged; only
                                            //!< collectives without m_flowRows)
    std::vector<std::unique_ptr<Part>> m_parts;
    StreamedRows m_totals; //!< the order-free part of the result (counts, integer sums)
    uint64_t m_maxRowsHeld = 0;
    std::string m_text; //!< scratch
    /** The text of the rows' numbers and flow-row segments already printed: a replayed
     *  iteration repeats its memo iteration's (same bytes as formatting them, RowTextCache). */
    RowTextCache m_cache;
};

} // namespace tusk

#endif
