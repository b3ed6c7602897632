/*
 * tusk: a run's flow, collective and wait rows written as it runs. See row-stream.h.
 */
#include "run/row-stream.h"

#include "run/flow-summary.h"
#include "run/run-stages.h"
#include "run/stats.h"
#include "results/results-dir.h"
#include "results/results-writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace tusk
{

constexpr size_t kSpillChunk = 8192; //!< values read back at a time

namespace
{

/**
 * An unnamed scratch file, open for reading and writing, in folder `dir`: made as
 * `dir/.rows-XXXXXX` and unlinked at once (row-stream.h, "Scratch files"); for "" a
 * std::tmpfile. `name` is set to what errors call it. \throws WriteError
 */
std::FILE*
OpenScratchFile(const std::string& dir, std::string& name)
{
    if (dir.empty())
    {
        name = "a temporary file (tmpfile)";
        std::FILE* f = std::tmpfile();
        if (f == nullptr)
        {
            throw WriteError(name, errno);
        }
        return f;
    }
    std::string path = dir + "/.rows-XXXXXX";
    std::vector<char> buf(path.begin(), path.end());
    buf.push_back('\0');
    const int fd = ::mkostemp(buf.data(), O_CLOEXEC);
    if (fd < 0)
    {
        throw WriteError(path + " (a scratch file of the streamed rows)", errno);
    }
    path = buf.data();
    name = path + " (a scratch file of the streamed rows, unlinked)";
    // Unlinked at once: the open file is its only reference, so it never shows in the folder
    // (the marker's file list, the manifest) and goes with this process, however it ends.
    ::unlink(path.c_str());
    std::FILE* f = ::fdopen(fd, "w+b");
    if (f == nullptr)
    {
        const int err = errno;
        ::close(fd);
        throw WriteError(name, err);
    }
    return f;
}

} // namespace

template <class Fn>
void
DoubleSpill::ForEach(Fn&& fn) const
{
    if (m_file != nullptr)
    {
        std::vector<double> chunk(kSpillChunk);
        if (std::fflush(m_file) != 0 || std::fseek(m_file, 0, SEEK_SET) != 0)
        {
            throw WriteError(m_name, errno);
        }
        for (uint64_t left = m_onFile; left > 0;)
        {
            const size_t want = static_cast<size_t>(std::min<uint64_t>(left, chunk.size()));
            if (std::fread(chunk.data(), sizeof(double), want, m_file) != want)
            {
                throw WriteError(m_name + ": short read", EIO);
            }
            for (size_t k = 0; k < want; ++k)
            {
                fn(chunk[k]);
            }
            left -= want;
        }
    }
    for (double v : m_buffer)
    {
        fn(v);
    }
}

namespace
{

constexpr size_t kTextChunk = 1 << 20; //!< bytes of CSV text built before each write

/** A double's bits as an unsigned key in the order of the values (negative values reversed). */
uint64_t
OrderedKey(double v)
{
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    return (b >> 63) != 0 ? ~b : (b | (uint64_t{1} << 63));
}

double
FromOrderedKey(uint64_t k)
{
    const uint64_t b = (k >> 63) != 0 ? (k & ~(uint64_t{1} << 63)) : ~k;
    double v = 0;
    std::memcpy(&v, &b, sizeof v);
    return v;
}

template <class Fn>
void
ForEachOf(const std::vector<const DoubleSpill*>& parts, Fn&& fn)
{
    for (const DoubleSpill* p : parts)
    {
        p->ForEach(fn);
    }
}

uint64_t
SizeOf(const std::vector<const DoubleSpill*>& parts)
{
    uint64_t n = 0;
    for (const DoubleSpill* p : parts)
    {
        n += p->Size();
    }
    return n;
}

/** As Mean (stats.h): the values summed in order from 0, divided by their count. */
double
MeanOf(const std::vector<const DoubleSpill*>& parts)
{
    const uint64_t n = SizeOf(parts);
    if (n == 0)
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    double sum = 0.0;
    ForEachOf(parts, [&sum](double v) { sum += v; });
    return sum / static_cast<double>(n);
}

/** As Max (stats.h, std::max_element): the first largest value. */
double
MaxOf(const std::vector<const DoubleSpill*>& parts)
{
    bool any = false;
    double m = 0;
    ForEachOf(parts, [&](double v) {
        if (!any || m < v)
        {
            m = v;
        }
        any = true;
    });
    return any ? m : std::numeric_limits<double>::quiet_NaN();
}

/** As Quantile (stats.h) by nearest rank. */
double
NearestRankOf(const std::vector<const DoubleSpill*>& parts, double q)
{
    const uint64_t n = SizeOf(parts);
    return n == 0 ? std::numeric_limits<double>::quiet_NaN()
                  : OrderStatistic(parts, NearestRank(n, q));
}

} // namespace

// ---- DoubleSpill ------------------------------------------------------------------------

DoubleSpill::~DoubleSpill()
{
    if (m_file != nullptr)
    {
        std::fclose(m_file);
    }
}

void
DoubleSpill::Push(double v)
{
    m_buffer.push_back(v);
    ++m_size;
    if (m_buffer.size() >= kBuffer)
    {
        Flush();
    }
}

void
DoubleSpill::Flush()
{
    if (m_buffer.empty())
    {
        return;
    }
    if (m_file == nullptr)
    {
        m_file = OpenScratchFile(m_dir, m_name);
    }
    if (std::fseek(m_file, 0, SEEK_END) != 0 ||
        std::fwrite(m_buffer.data(), sizeof(double), m_buffer.size(), m_file) != m_buffer.size())
    {
        throw WriteError(m_name, errno);
    }
    m_onFile += m_buffer.size();
    m_buffer.clear();
}

double
OrderStatistic(const std::vector<const DoubleSpill*>& parts, uint64_t rank)
{
    uint64_t candidates = SizeOf(parts);
    if (rank < 1 || rank > candidates)
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    constexpr unsigned kDigit = 16;
    constexpr uint64_t kFit = uint64_t{1} << kDigit; // candidates held in memory at the end
    uint64_t prefix = 0; // the top `bits` bits every candidate's key has
    unsigned bits = 0;
    const auto candidate = [&](uint64_t key) { return bits == 0 || (key >> (64 - bits)) == prefix; };
    while (bits < 64)
    {
        if (candidates <= kFit)
        {
            std::vector<uint64_t> keys;
            keys.reserve(candidates);
            ForEachOf(parts, [&](double v) {
                const uint64_t k = OrderedKey(v);
                if (candidate(k))
                {
                    keys.push_back(k);
                }
            });
            std::nth_element(keys.begin(), keys.begin() + (rank - 1), keys.end());
            return FromOrderedKey(keys[rank - 1]);
        }
        // Too many: count the candidates by their next 16 bits and keep the bucket of `rank`.
        std::vector<uint64_t> histogram(kFit, 0);
        const unsigned shift = 64 - kDigit - bits;
        ForEachOf(parts, [&](double v) {
            const uint64_t k = OrderedKey(v);
            if (candidate(k))
            {
                ++histogram[(k >> shift) & (kFit - 1)];
            }
        });
        uint64_t bucket = 0;
        while (rank > histogram[bucket])
        {
            rank -= histogram[bucket++];
        }
        candidates = histogram[bucket];
        prefix = (prefix << kDigit) | bucket;
        bits += kDigit;
    }
    return FromOrderedKey(prefix); // every candidate has the same value
}

// ---- RowStream --------------------------------------------------------------------------

/** A part's text in an unnamed scratch file (OpenScratchFile), joined into its staged file at
 *  the end. */
class RowStream::ScratchText
{
  public:
    explicit ScratchText(const std::string& dir)
        : m_file(OpenScratchFile(dir, m_name))
    {
    }
    ~ScratchText() { std::fclose(m_file); }
    ScratchText(const ScratchText&) = delete;
    ScratchText& operator=(const ScratchText&) = delete;

    void Write(const std::string& text)
    {
        if (!text.empty() && std::fwrite(text.data(), 1, text.size(), m_file) != text.size())
        {
            throw WriteError(m_name, errno);
        }
    }
    /** Appends what it holds to `to`. */
    void AppendTo(AtomicFile& to)
    {
        if (std::fflush(m_file) != 0 || std::fseek(m_file, 0, SEEK_SET) != 0)
        {
            throw WriteError(m_name, errno);
        }
        std::vector<char> chunk(kTextChunk);
        size_t n = 0;
        while ((n = std::fread(chunk.data(), 1, chunk.size(), m_file)) > 0)
        {
            to.Write(chunk.data(), n);
        }
        if (std::ferror(m_file))
        {
            throw WriteError(m_name, EIO);
        }
    }

  private:
    std::string m_name; //!< for errors; before m_file (set by OpenScratchFile)
    std::FILE* m_file;
};

/** What a part (a job, or the other transfers) keeps until the files are joined: its text
 *  (part 0 writes into the staged files), its values in id order, its collective briefs and
 *  its per-flow invariant violations. */
struct RowStream::Part
{
    explicit Part(const std::string& dir)
        : values{DoubleSpill(dir), DoubleSpill(dir), DoubleSpill(dir), DoubleSpill(dir)}
    {
    }
    std::unique_ptr<ScratchText> files[3]; //!< parts after the first (made when first written)
    DoubleSpill values[kFlowStats];        //!< by FlowStat (SummarizeFlow), in id order
    std::vector<CollectiveBrief> collectives;
    std::vector<std::string> violations;
};

RowStream::RowStream(const std::string& dir,
                     size_t parts,
                     std::string policy,
                     std::vector<uint32_t> nodeIds,
                     bool flowRows)
    : m_dir(dir),
      m_policy(std::move(policy)),
      m_nodeIds(std::move(nodeIds)),
      m_flowRows(flowRows)
{
    const char* names[3] = {"flows.csv", "collectives.csv", "waits.csv"};
    const std::string headers[3] = {FlowsCsvHeader(!m_nodeIds.empty()), CollectivesCsvHeader(),
                                    WaitsCsvHeader()};
    for (int i = 0; i < 3; ++i)
    {
        if (!m_flowRows && i != 1)
        {
            continue; // [output] flow_rows = "summary": collectives.csv only
        }
        m_files[i] = std::make_unique<AtomicFile>(dir + "/" + names[i]);
        m_files[i]->Write(headers[i]);
    }
    for (size_t p = 0; p < parts; ++p)
    {
        m_parts.push_back(std::make_unique<Part>(dir));
    }
}

RowStream::~RowStream() = default;

void
RowStream::Write(size_t part, int i, const std::string& text)
{
    if (!m_files[i])
    {
        return; // a file not written ([output] flow_rows = "summary"; no text is built for it)
    }
    // Part 0 into the staged file itself, the others into their scratch files.
    if (part == 0)
    {
        m_files[i]->Write(text);
        return;
    }
    Part& p = *m_parts.at(part);
    if (!p.files[i])
    {
        p.files[i] = std::make_unique<ScratchText>(m_dir);
    }
    p.files[i]->Write(text);
}

void
RowStream::Add(size_t part,
               uint64_t first,
               const std::vector<FlowRow>& flows,
               const std::vector<CollectiveRow>& collectives,
               const std::vector<WaitRow>& waits)
{
    Part& p = *m_parts.at(part);
    const auto write = [&](int i, const std::string& text) { Write(part, i, text); };
    const auto rowOf = [&](int64_t t) -> const FlowRow& {
        return flows.at(static_cast<size_t>(static_cast<uint64_t>(t) - first));
    };
    m_maxRowsHeld = std::max<uint64_t>(m_maxRowsHeld, flows.size());
    m_totals.flows += flows.size();

    // flows.csv, and what the summary and the invariants read of each flow (as Summarize and
    // InvariantViolations on RunResult::flows, in the same order: SummarizeFlow).
    RunSummary& s = m_totals.flowSummary;
    m_text.clear();
    for (const FlowRow& f : flows)
    {
        if (m_flowRows)
        {
            AppendFlowCsvRow(m_text, f, m_policy, m_nodeIds, &m_cache);
            if (m_text.size() >= kTextChunk)
            {
                write(0, m_text);
                m_text.clear();
            }
        }
        SummarizeFlow(s, f,
                      [&p](FlowStat k, double v) { p.values[static_cast<size_t>(k)].Push(v); });
        if (f.pktsInFlight < 0)
        {
            p.violations.push_back(FlowConservationViolation(f));
        }
        m_totals.flowsInFlight += f.pktsInFlight;
    }
    write(0, m_text);
    AddCollectives(part, collectives, waits, rowOf);
}

void
RowStream::AddShifted(size_t part,
                      const std::vector<FlowRow>& flows,
                      const std::vector<FlowCsvRowShape>& shapes,
                      uint64_t idShift,
                      uint64_t timeShift,
                      int64_t collectiveShift,
                      const std::vector<CollectiveRow>& collectives,
                      const std::vector<WaitRow>& waits,
                      const std::function<const FlowRow&(int64_t)>& flowOf,
                      const std::function<uint64_t(int64_t)>& idOf)
{
    Part& p = *m_parts.at(part);
    m_maxRowsHeld = std::max<uint64_t>(m_maxRowsHeld, flows.size());
    m_totals.flows += flows.size();
    ++m_totals.shiftedIterations;
    RunSummary& s = m_totals.flowSummary;
    m_text.clear();
    for (size_t k = 0; k < flows.size(); ++k)
    {
        const FlowRow& f = flows[k];
        if (m_flowRows)
        {
            AppendShapedFlowCsvRow(
                m_text, shapes[k], f.id + idShift, f.startPs + timeShift, f.finishPs + timeShift,
                f.collective < 0 ? f.collective
                                 : static_cast<int32_t>(f.collective + collectiveShift));
            if (m_text.size() >= kTextChunk)
            {
                Write(part, 0, m_text);
                m_text.clear();
            }
        }
        // The values and counters are the repeated row's; its id is not read (a row in
        // violation is never repeated: IterationRows).
        SummarizeFlow(s, f,
                      [&p](FlowStat k, double v) { p.values[static_cast<size_t>(k)].Push(v); });
        if (f.pktsInFlight < 0)
        {
            throw std::logic_error("RowStream::AddShifted: a row in violation of conservation");
        }
        m_totals.flowsInFlight += f.pktsInFlight;
    }
    Write(part, 0, m_text);
    AddCollectivesWith(part, collectives, waits, flowOf, &idOf);
}

std::vector<FlowCsvRowShape>
RowStream::Shapes(const std::vector<FlowRow>& flows)
{
    std::vector<FlowCsvRowShape> shapes;
    if (!m_flowRows)
    {
        return shapes; // no flows.csv: AddShifted reads none
    }
    shapes.reserve(flows.size());
    for (const FlowRow& f : flows)
    {
        shapes.push_back(FlowCsvRowShapeOf(f, m_policy, m_nodeIds, &m_cache));
    }
    return shapes;
}

void
RowStream::AddCollectives(size_t part,
                          const std::vector<CollectiveRow>& collectives,
                          const std::vector<WaitRow>& waits,
                          const std::function<const FlowRow&(int64_t)>& rowOf)
{
    AddCollectivesWith(part, collectives, waits, rowOf, nullptr);
}

void
RowStream::AddCollectivesWith(size_t part,
                              const std::vector<CollectiveRow>& collectives,
                              const std::vector<WaitRow>& waits,
                              const std::function<const FlowRow&(int64_t)>& rowOf,
                              const std::function<uint64_t(int64_t)>* idOf)
{
    Part& p = *m_parts.at(part);
    const auto write = [&](int i, const std::string& text) { Write(part, i, text); };
    m_text.clear();
    for (const CollectiveRow& c : collectives)
    {
        AppendCollectiveCsvRow(m_text, c, c.criticalFlow >= 0 ? &rowOf(c.criticalFlow) : nullptr,
                               m_policy);
        p.collectives.emplace_back(c);
    }
    write(1, m_text);

    if (idOf != nullptr)
    {
        AddWaits(part, waits, *idOf);
    }
    else if (!m_flowRows)
    {
        m_totals.waits += waits.size(); // no waits.csv: counted, not printed
    }
    else
    {
        m_totals.waits += waits.size();
        m_text.clear();
        for (const WaitRow& w : waits)
        {
            AppendWaitCsvRow(m_text, w, w.arrived ? &rowOf(w.lastTransfer) : nullptr, &m_cache);
            if (m_text.size() >= kTextChunk)
            {
                write(2, m_text);
                m_text.clear();
            }
        }
        write(2, m_text);
        m_text.clear();
    }
    m_text.shrink_to_fit();
}

void
RowStream::AddWaits(size_t part,
                    const std::vector<WaitRow>& waits,
                    const std::function<uint64_t(int64_t)>& idOf)
{
    m_totals.waits += waits.size();
    if (!m_flowRows)
    {
        return; // no waits.csv: counted, not printed
    }
    m_text.clear();
    for (const WaitRow& w : waits)
    {
        const uint64_t id = w.arrived ? idOf(w.lastTransfer) : 0; // its row prints the id alone
        AppendWaitCsvRow(m_text, w, w.arrived ? &id : nullptr, &m_cache);
        if (m_text.size() >= kTextChunk)
        {
            Write(part, 2, m_text);
            m_text.clear();
        }
    }
    Write(part, 2, m_text);
    m_text.clear();
}

void
RowStream::Finish(StreamedRows& out)
{
    for (size_t k = 1; k < m_parts.size(); ++k)
    {
        for (int i = 0; i < 3; ++i)
        {
            if (m_parts[k]->files[i] && m_files[i])
            {
                m_parts[k]->files[i]->AppendTo(*m_files[i]);
                m_parts[k]->files[i].reset();
            }
        }
    }
    for (auto& file : m_files)
    {
        if (file)
        {
            file->Commit();
        }
    }
    out = std::move(m_totals);
    out.active = true;
    out.maxRowsHeld = m_maxRowsHeld;
    // The values of every part, in part order (id order), by FlowStat.
    struct Spilled
    {
        std::vector<const DoubleSpill*> of[kFlowStats];
        const std::vector<const DoubleSpill*>& At(FlowStat k) const
        {
            return of[static_cast<size_t>(k)];
        }
        double Sum(FlowStat k) const
        {
            double sum = 0.0;
            ForEachOf(At(k), [&sum](double v) { sum += v; });
            return sum;
        }
        double Mean(FlowStat k) const { return MeanOf(At(k)); }
        double Max(FlowStat k) const { return MaxOf(At(k)); }
        double NearestRank(FlowStat k, double q) const { return NearestRankOf(At(k), q); }
    } spilled;
    for (const auto& p : m_parts)
    {
        out.collectives.insert(out.collectives.end(), p->collectives.begin(),
                               p->collectives.end());
        out.flowViolations.insert(out.flowViolations.end(), p->violations.begin(),
                                  p->violations.end());
        for (size_t k = 0; k < kFlowStats; ++k)
        {
            spilled.of[k].push_back(&p->values[k]);
        }
    }
    FinishFlowSummary(out.flowSummary, out.flows, spilled);
    m_parts.clear();
}

} // namespace tusk
