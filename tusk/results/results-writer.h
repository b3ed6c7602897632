/*
 * tusk: results of a run on disk (docs/results-format.md), written atomically.
 */
#ifndef TUSK_RESULTS_WRITER_H
#define TUSK_RESULTS_WRITER_H

#include "results/results-dir.h"
#include "run/runner.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tusk
{

/**
 * \brief The text of the rows' fixed-decimal numbers (fmt's "{:.Nf}" with N decimals, "" for
 * NaN: what flows.csv and waits.csv print), kept by the value's bit pattern and N, so that a
 * value printed before is copied instead of formatted again. A replayed iteration (fast mode)
 * repeats its memo iteration's slowdowns and delays exactly, and printing a double to 9
 * decimals costs about 1,000 instructions (a hit: a few tens). The text is a function of
 * (bits, N) alone, so a hit gives the bytes formatting gives. Direct-mapped, kEntries entries
 * of 48 bytes (384 KiB); a text longer than 38 characters is formatted each time.
 */
class FixedTextCache
{
  public:
    FixedTextCache();
    /** \brief The text of `v` with `decimals` decimals; valid until the next call. */
    std::string_view Get(double v, int decimals);
    uint64_t Hits() const { return m_hits; }
    uint64_t Misses() const { return m_misses; }

    static constexpr unsigned kBits = 13;
    static constexpr size_t kEntries = size_t{1} << kBits;

  private:
    struct Entry
    {
        uint64_t bits = 0;
        int8_t decimals = -1; //!< -1: empty
        uint8_t size = 0;
        char text[38];
    };
    std::vector<Entry> m_entries;
    std::string m_formatted; //!< the last text formatted (a miss)
    uint64_t m_hits = 0;
    uint64_t m_misses = 0;
};

/**
 * \brief What flows.csv's and waits.csv's rows print, kept: their numbers (FixedTextCache)
 * and segments of a row by everything the segment prints. flows.csv's head is `fct_us` to
 * `spurious_retx` (16 columns), its tail `step` to `fair_slowdown` (step, channel, policy,
 * job, background, scale_up, the packet counts, path, paths, the fair ideal and slowdown);
 * waits.csv's segment `ideal_us` to `from_rank`. A replayed iteration's row differs from its
 * memo row only in ids, the times it started, ended or was ready and the collective, so the
 * segments are copied from the memo row's text. A
 * segment is reused only when every input it prints is equal (compared, not hashed: the hash
 * only finds the entry), so its bytes are those of formatting it. Per segment a hash table
 * of at most kMaxEntries entries (emptied when full): a job whose iterations alternate
 * between two timings keeps about twice an iteration's segments, each a few hundred bytes.
 */
class RowTextCache
{
  public:
    RowTextCache();
    ~RowTextCache();
    RowTextCache(const RowTextCache&) = delete;
    RowTextCache& operator=(const RowTextCache&) = delete;

    FixedTextCache numbers; //!< slowdown, fair_slowdown, reorder_mean, waits.csv's delay
    /** false: segments are printed, never kept nor looked up (the numbers still are): for
     *  rows that rarely repeat, where keeping them only costs (RowStream::SetSegmentCache). */
    bool segments = true;
    /** true: flows.csv's segments looked up among those of the same source host's last
     *  kSourceWays rows instead (every input compared, nothing hashed; `segments` not
     *  consulted for them): a standalone ring's replayed transfer repeats its pooled
     *  transfer's, a few steps back from the same rank, all but its ids, times and step
     *  (RowStream::SetSourceCache). The head (`fct_us` to `spurious_retx`) and the fair
     *  ideal and slowdown are kept together, `channel` to `paths` once per source. Memory:
     *  kSourceWays entries a source host, a few hundred bytes each. */
    bool bySource = false;
    static constexpr size_t kSourceWays = 8;
    static constexpr uint32_t kMaxSources = 1u << 20; //!< hosts past these: printed
    uint64_t hits = 0;      //!< segments copied
    uint64_t misses = 0;    //!< segments formatted

    static constexpr size_t kMaxEntries = 16384;
    struct Tables; //!< the segments' entries (results-writer.cc)
    Tables& Segments() { return *m_tables; }

  private:
    std::unique_ptr<Tables> m_tables;
};

/** Write flows.csv, collectives.csv, links.csv and manifest.json of `r` into `dir`. */
void WriteRunFiles(const RunResult& r, const std::string& dir);

/** flows.csv as text (deterministic: the same run gives the same bytes). */
std::string FlowsCsv(const RunResult& r);
/** flows.csv's header line; `nodes`: with the imported topology's node ids (RunResult::nodeIds). */
std::string FlowsCsvHeader(bool nodes);
/** Append `f`'s line of flows.csv to `s` (FlowsCsv is the header and one per row; a run that
 *  streams its rows, RunOptions::streamRows, writes the same lines as its iterations retire).
 *  With `cache`, its numbers and segments from there when printed before (the same bytes). */
void AppendFlowCsvRow(std::string& s,
                      const FlowRow& f,
                      const std::string& policy,
                      const std::vector<uint32_t>& nodeIds,
                      RowTextCache* cache = nullptr);
/**
 * \brief flows.csv's line of a finished flow row without its id, start_us, finish_us and
 * collective_id: the rest of its text, in three pieces (fast mode writes a replayed
 * iteration's rows from its memo iteration's: only those four fields differ, fast-mode.md).
 * text = ",src,dst,bytes," + ("," + fct_us .. spurious_retx + ",") + ("," + step .. the end
 * of the line, newline included); headEnd and tailBegin are where the second and third begin.
 */
struct FlowCsvRowShape
{
    std::string text;
    uint32_t headBegin = 0;
    uint32_t tailBegin = 0;
};
/** \brief The shape of `f`'s line (AppendFlowCsvRow's bytes with the four fields cut out);
 *  `f` must be started and finished. */
FlowCsvRowShape FlowCsvRowShapeOf(const FlowRow& f,
                                  const std::string& policy,
                                  const std::vector<uint32_t>& nodeIds,
                                  RowTextCache* cache = nullptr);
/** \brief Append the line of shape `shape` with id `id`, start_us and finish_us of `startPs`
 *  and `finishPs` and collective_id `collective`: AppendFlowCsvRow's bytes for the row of
 *  that shape with those four fields (unit test: "a flows.csv row from its shape ..."). */
void AppendShapedFlowCsvRow(std::string& s,
                            const FlowCsvRowShape& shape,
                            uint64_t id,
                            uint64_t startPs,
                            uint64_t finishPs,
                            int32_t collective);
/** collectives.csv's header line. */
std::string CollectivesCsvHeader();
/** Append `c`'s line of collectives.csv to `s`; `crit` is the flow row of c.criticalFlow
 *  (nullptr if -1). */
void AppendCollectiveCsvRow(std::string& s,
                            const CollectiveRow& c,
                            const FlowRow* crit,
                            const std::string& policy);
/** waits.csv's header line. */
std::string WaitsCsvHeader();
/** Append `w`'s line of waits.csv to `s`; `last` is the flow row of w.lastTransfer (read only
 *  when w.arrived). With `cache`, its numbers and the segment from ideal_us to from_rank
 *  from there when printed before (the same bytes). */
void AppendWaitCsvRow(std::string& s,
                      const WaitRow& w,
                      const FlowRow* last,
                      RowTextCache* cache = nullptr);
/** As above, with the id of w.lastTransfer's flow row (`lastId`, read only when w.arrived;
 *  nullptr: none). */
void AppendWaitCsvRow(std::string& s,
                      const WaitRow& w,
                      const uint64_t* lastId,
                      RowTextCache* cache = nullptr);
/** One line for the printed header: base RTT and BDP per path class (manifest "path_classes"),
 *  "" without classes. */
std::string PathClassesLine(const RunResult& r);
/** One line for the printed summary: what the steady-state probe found (manifest
 *  "steady_probe"), "" when it was off. */
std::string SteadyProbeLine(const RunResult& r);
/** simulator.steady_jump: one line of what the jumps skipped and why they were refused ("" when
 *  off). */
std::string SteadyJumpLine(const RunResult& r);
std::string CollectivesCsv(const RunResult& r);
/** waits.csv: per collective step and rank, its wait (results-format.md, "waits.csv"). */
std::string WaitsCsv(const RunResult& r);
/** flows.csv's `path` (the single path, or "") and `paths` (PATH:FRAMES|...) of `f`. */
std::string PathField(const FlowRow& f);
std::string PathsField(const FlowRow& f);
/** jobs.csv: one row per training job (docs/results-format.md). */
std::string JobsCsv(const RunResult& r);
/** chakra_nodes.csv: every node of a Chakra trace, when it started and ended. */
std::string ChakraNodesCsv(const RunResult& r);
/** chakra_ranks.csv: per rank, its node count and iteration time (its last node's end). */
std::string ChakraRanksCsv(const RunResult& r);
/** One CSV field, quoted (RFC 4180) when it holds a comma, a quote or a line break. */
std::string CsvField(const std::string& s);
std::string LinksCsv(const RunResult& r);
/** drops.csv ([output] drop_log = true): every frame a port dropped, in time order. */
std::string DropsCsv(const RunResult& r);

/** pfc_events.csv: every PFC frame sent or received, in time order. */
std::string PfcEventsCsv(const RunResult& r);
/** timeseries.csv ([output] sample_us > 0): time_us, link_id, from, to, tx_bytes, util,
 *  queue_bytes, paused_us; one row per sampled switch port per sample instant. */
std::string TimeSeriesCsv(const RunResult& r);
/** switch_timeseries.csv ([output] sample_us > 0): each switch's MMU pools at each instant. */
std::string SwitchTimeSeriesCsv(const RunResult& r);
/** switches.csv: each switch's buffer pools and the most each held. */
std::string SwitchesCsv(const RunResult& r);
/** cc_trace.csv ([output] cc_trace = true): every change of a QP's congestion-control state. */
std::string CcTraceCsv(const RunResult& r);

/**
 * \brief Run `spec` and write its results into `out` atomically: a StagedResults (lock, check,
 * staging folder, also where pcaps go), WriteRunFiles, Commit. On an exception the staging
 * folder is removed and the previous results in `out` are intact.
 * \throws ns3::InputError (exit 2) for bad input or a destination that may not be replaced;
 *         WriteError (exit 3) on an OS error while writing
 */
RunResult RunInto(const ScenarioSpec& spec, const std::string& out, RunOptions options);

} // namespace tusk

#endif
