#include "results/results-writer.h"

#include "results/planes-table.h"
#include "run/fabric-kinds.h"

#include "cli/plugins.h"
#include "scenario/scenario-inputs.h"
#include "scenario/scenario-text.h"
#include "scenario/scenario-toml.h"
#include "run/stats.h"
#include "results/paths-writer.h"
#include "results/tool-outputs.h"
#include "locate/observations.h"
#include "cli/code-identity.h"
#include "cli/git-revision.h"
#include "results/metric-catalogue.h"
#include "tusk-version.h"

#include "fabric/model/fabric-net-device.h"

#include <algorithm>
#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstring>
#include <iterator>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace tusk
{

namespace
{

} // namespace

std::string
CsvField(const std::string& s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos)
    {
        return s;
    }
    std::string q = "\"";
    for (char c : s)
    {
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return q + "\"";
}

namespace
{

/** "00" to "99", each two characters. */
constexpr char kDigitPairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                  "8081828384858687888990919293949596979899";

/** ps as µs with 6 decimals, exact to the picosecond, in a stack buffer (no std::string: a
 *  flows.csv or waits.csv row prints up to seven times, and flows.csv has a row per
 *  transfer). The empty text for a default-constructed one (a field left blank). */
struct UsText
{
    UsText() = default;
    explicit UsText(uint64_t ps)
    {
        // "{}.{:06d}" of (ps / 10^6, ps % 10^6), by hand: the integer part by to_chars, the
        // 6 decimals as three digit pairs (about a third of the instructions of a second
        // to_chars; a ring's row prints up to 13 of these, its wait row included).
        const uint64_t us = ps / 1000000;
        auto frac = static_cast<uint32_t>(ps - us * 1000000);
        char* end = std::to_chars(buf, buf + 20, us).ptr;
        *end = '.';
        for (int k = 2; k >= 0; --k)
        {
            std::memcpy(end + 1 + 2 * k, kDigitPairs + 2 * (frac % 100), 2);
            frac /= 100;
        }
        size = static_cast<size_t>(end + 7 - buf);
    }
    fmt::string_view View() const { return {buf, size}; }

    char buf[32];
    size_t size = 0;
};

/** UsText(ps) when `when`, else the empty text. */
UsText
UsIf(bool when, uint64_t ps)
{
    return when ? UsText(ps) : UsText();
}

std::string
Us(uint64_t ps)
{
    const UsText t(ps);
    return std::string(t.buf, t.size);
}

/** An integer's decimal text in a stack buffer, or the empty text (a field left blank). */
struct IntText
{
    IntText() = default;
    explicit IntText(int64_t v) { size = static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf); }
    explicit IntText(uint64_t v) { size = static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf); }
    fmt::string_view View() const { return {buf, size}; }

    char buf[24];
    size_t size = 0;
};

std::string
Num(double v, int decimals = 6)
{
    if (std::isnan(v))
    {
        return "";
    }
    if (v == 0 && !std::signbit(v) && decimals > 0 && decimals <= 9)
    {
        // +0 (most rows' reorder_mean): the text fmt's "{:.Nf}" gives, without formatting.
        return std::string("0.000000000", static_cast<size_t>(decimals) + 2);
    }
    switch (decimals)
    {
    case 3:
        return fmt::format(FMT_COMPILE("{:.3f}"), v);
    case 6:
        return fmt::format(FMT_COMPILE("{:.6f}"), v);
    case 9:
        return fmt::format(FMT_COMPILE("{:.9f}"), v);
    default:
        return fmt::format("{:.{}f}", v, decimals);
    }
}

/** A number's text (Num's) in a stack buffer, or in a string when longer. */
struct NumText
{
    NumText() = default;
    explicit NumText(std::string_view t)
    {
        if (t.size() <= sizeof buf)
        {
            std::memcpy(buf, t.data(), t.size());
            size = t.size();
        }
        else
        {
            spill.assign(t); // longer than buf: never empty
        }
    }
    fmt::string_view View() const
    {
        return !spill.empty() ? fmt::string_view(spill.data(), spill.size())
                              : fmt::string_view(buf, size);
    }

    char buf[40];
    size_t size = 0;
    std::string spill; //!< the text when longer than buf

};

/** Num(v, decimals)'s text, from `cache` when given. */
NumText
NumOf(double v, int decimals, FixedTextCache* cache)
{
    if (cache != nullptr)
    {
        return NumText(cache->Get(v, decimals));
    }
    return NumText(Num(v, decimals));
}

} // namespace

FixedTextCache::FixedTextCache()
    : m_entries(kEntries)
{
}

std::string_view
FixedTextCache::Get(double v, int decimals)
{
    if (std::isnan(v))
    {
        return {};
    }
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    // Fibonacci hashing of the bits and the decimals: the top kBits bits pick the entry.
    const uint64_t h = (bits ^ (static_cast<uint64_t>(decimals) << 56)) * 0x9E3779B97F4A7C15ULL;
    Entry& e = m_entries[h >> (64 - kBits)];
    if (e.decimals == decimals && e.bits == bits)
    {
        ++m_hits;
        return {e.text, e.size};
    }
    ++m_misses;
    m_formatted = Num(v, decimals);
    if (m_formatted.size() <= sizeof e.text && decimals >= 0 && decimals <= 127)
    {
        e.bits = bits;
        e.decimals = static_cast<int8_t>(decimals);
        e.size = static_cast<uint8_t>(m_formatted.size());
        std::memcpy(e.text, m_formatted.data(), m_formatted.size());
    }
    return m_formatted;
}

std::string
PathClassesLine(const RunResult& r)
{
    std::string s;
    for (const auto& c : r.pathClasses)
    {
        s += fmt::format("{}{} switch{} {:.3f} µs (BDP {} B at {:g} Gb/s)", s.empty() ? "" : "; ",
                         c.links - 1, c.links == 2 ? "" : "es", c.baseRttPs / 1e6, c.bdpBytes,
                         static_cast<double>(c.hostRateBps) / 1e9);
    }
    return s.empty() ? s : "base RTT (an MTU packet and its ACK, idle fabric): " + s + "\n";
}

namespace
{

/** The reason with the largest count ("" if none; the first of equal ones). */
std::string
TopReason(const std::map<std::string, uint64_t>& counts)
{
    std::string top;
    uint64_t most = 0;
    for (const auto& [reason, n] : counts)
    {
        if (n > most)
        {
            top = reason;
            most = n;
        }
    }
    return top;
}

/** The most frequent reason the probe's windows were not steady ("" if none). */
std::string
TopSteadyReason(const SteadyLedger& s)
{
    return TopReason(s.notSteady);
}

/** part / whole, 0 when whole is 0. */
double
Share(uint64_t part, uint64_t whole)
{
    return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

} // namespace

/** "12.3 % of the time" for skippable time `partPs` of a run of `wholePs`, saying so when the
 *  jumps reach past the run's end (a jump's horizon at its rate overshot the transfers' ends:
 *  `ends_in_jumps` counts them). */
static std::string
SkipShareText(uint64_t partPs, uint64_t wholePs)
{
    const double share = Share(partPs, wholePs);
    return fmt::format("{:.1f} % of the time{}", 100.0 * share,
                       share > 1.0 ? ", past the run's end" : "");
}

/** The probe line's third line: the fabric's jumps, unbounded and under each bound, as the
 *  share of the time they skip and their largest credit error. */
static std::string
BoundedJumpsLine(const SteadyProbeStats& s, uint64_t simEndPs)
{
    bool any = s.jumps > 0;
    for (const auto& b : s.bounded)
    {
        any = any || b.fabric.jumps > 0;
    }
    if (!any)
    {
        return "  jumps: none, unbounded or bounded\n";
    }
    auto credit = [](const SteadyLedger& l) {
        return l.jumpsMeasured > 0 ? fmt::format("{:.1f} %", 100.0 * l.bytesErrorMaxRel)
                                   : std::string("-");
    };
    std::string line = fmt::format("  jumps unbounded: skip {}, credit off by at most {}",
                                   SkipShareText(s.skippablePs, simEndPs), credit(s));
    for (const auto& b : s.bounded)
    {
        line += fmt::format("; bounded to {} spans and checked again: {}, {}", b.maxJumpSpans,
                            SkipShareText(b.fabric.skippablePs, simEndPs), credit(b.fabric));
    }
    return line + "\n";
}

std::string
SteadyProbeLine(const RunResult& r)
{
    const SteadyProbeStats& s = r.steady;
    if (!s.active)
    {
        return "";
    }
    if (s.probed == 0)
    {
        return fmt::format("steady probe (W {:g} µs, K {}, tolerance {:g}): no window probed "
                           "(the run ended within its first window)\n",
                           s.windowPs / 1e6, s.windows, s.tolerance);
    }
    const std::string top = TopSteadyReason(s);
    const SteadyComponentStats& c = s.components;
    const std::string ctop = TopSteadyReason(c);
    return fmt::format("steady probe (W {:g} µs, K {}, tolerance {:g}): steady {:.1f} % of {} "
                       "windows; a fast-forward could skip {:.1f} µs ({}), {} "
                       "B in {} jump(s), {} of their windows not steady, {} transfer end(s) "
                       "inside them; most often not steady: {}\n",
                       s.windowPs / 1e6, s.windows, s.tolerance, 100.0 * Share(s.steady, s.probed),
                       s.probed, s.skippablePs / 1e6, SkipShareText(s.skippablePs, r.simEndPs),
                       s.skippableBytes, s.jumps, s.jumpedNotSteady, s.endsInJumps,
                       top.empty() ? "-" : top) +
           fmt::format("  per component ({} seen): steady {:.1f} % of {} component-windows; "
                       "could skip {:.1f} µs of component-time ({:.1f} %), {} B in {} jump(s), "
                       "{} broken by a change of the component; most often not steady: {}\n",
                       c.seen, 100.0 * Share(c.steady, c.probed), c.probed, c.skippablePs / 1e6,
                       100.0 * Share(c.skippablePs, c.componentPs), c.skippableBytes, c.jumps,
                       c.jumpsBroken, ctop.empty() ? "-" : ctop) +
           BoundedJumpsLine(s, r.simEndPs);
}

std::string
SteadyJumpLine(const RunResult& r)
{
    const SteadyJumpStats& j = r.steadyJump;
    if (!j.active)
    {
        return "";
    }
    std::string refused;
    for (const auto& [why, n] : j.refused)
    {
        refused += fmt::format("{}{} {}", refused.empty() ? "" : ", ", why, n);
    }
    const std::string top = TopReason(j.notSteady);
    return fmt::format("steady jumps (at most {} spans): {} jump(s) skipped {:.1f} µs ({}), {} "
                       "data packets ({} B) counted delivered; {} re-checked on the K windows "
                       "after, {} with a rate beyond the tolerance (largest change {:.2f} %, a "
                       "failure among them counts too), {} not re-checked; refused: "
                       "{}; most often not steady: {}\n",
                       j.maxSpans, j.jumps, j.skippedPs / 1e6, SkipShareText(j.skippedPs, r.simEndPs),
                       j.skippedPackets, j.skippedBytes, j.rechecks, j.rechecksOff,
                       100.0 * j.recheckErrorMax, j.notRechecked,
                       refused.empty() ? "none" : refused, top.empty() ? "-" : top);
}

/** Counts by reason as an object (reason: count), in the map's order. */
static nlohmann::ordered_json
CountsJson(const std::map<std::string, uint64_t>& counts)
{
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (const auto& [reason, n] : counts)
    {
        o[reason] = n;
    }
    return o;
}

/** The manifest's "steady_jump" (results-format.md): what steady-state jumps skipped. */
static nlohmann::ordered_json
SteadyJumpJson(const RunResult& r)
{
    const SteadyJumpStats& j = r.steadyJump;
    return {{"max_spans", j.maxSpans},
            {"jumps", j.jumps},
            {"skipped_us", j.skippedPs / 1e6},
            {"skipped_time_share",
             r.simEndPs > 0 ? nlohmann::ordered_json(static_cast<double>(j.skippedPs) /
                                                     static_cast<double>(r.simEndPs))
                            : nullptr},
            {"longest_jump_us", j.longestPs / 1e6},
            {"skipped_packets", j.skippedPackets},
            {"skipped_bytes", j.skippedBytes},
            {"rechecks", j.rechecks},
            {"rechecks_off", j.rechecksOff},
            {"recheck_error_max_share", j.recheckErrorMax},
            {"not_rechecked", j.notRechecked},
            {"refused", CountsJson(j.refused)},
            {"not_steady", CountsJson(j.notSteady)}};
}

/** The largest (`mean` false) or mean distance of the first transfer end after each jump from
 *  where its horizon put it, µs; null when no end was predicted. */
static nlohmann::ordered_json
EndErrorJson(const SteadyLedger& s, bool mean)
{
    if (s.endsPredicted == 0)
    {
        return nullptr;
    }
    return mean ? s.endErrorSumPs / 1e6 / static_cast<double>(s.endsPredicted)
                : s.endErrorMaxPs / 1e6;
}

/** The windows not steady by reason, as an object (reason: windows). */
static nlohmann::ordered_json
NotSteadyJson(const SteadyLedger& s)
{
    return CountsJson(s.notSteady);
}

/** A ledger's "jump_credit" (results-format.md): its jumps' credited bytes against the bytes
 *  the packet simulation delivered over the same time. */
static nlohmann::ordered_json
JumpCreditJson(const SteadyLedger& s)
{
    if (s.jumpsMeasured == 0)
    {
        return nullptr;
    }
    return {{"jumps_measured", s.jumpsMeasured},
            {"bytes_credited", std::llround(s.bytesCredited)},
            {"bytes_delivered", std::llround(s.bytesDelivered)},
            {"error_share", s.bytesErrorSum / std::max(s.bytesDelivered, 1.0)},
            {"error_max_share", s.bytesErrorMaxRel},
            {"jumps_off_tolerance", s.jumpsOff}};
}

/** One bound's ledger in "steady_probe.bounded": what its jumps skip and how wrong they are;
 *  `wholePs` the time its skippable time is a share of (the run's, or the component-time). */
static nlohmann::ordered_json
BoundedLedgerJson(const SteadyLedger& s, uint64_t wholePs, uint64_t startedBytes,
                  const std::string& time = "time")
{
    return {{"jumps", s.jumps},
            {"skippable_" + time + "_us", s.skippablePs / 1e6},
            {"skippable_" + time + "_share", Share(s.skippablePs, wholePs)},
            {"skippable_bytes_share", Share(s.skippableBytes, startedBytes)},
            {"jumped_windows_not_steady", s.jumpedNotSteady},
            {"ends_in_jumps", s.endsInJumps},
            {"end_error_max_us", EndErrorJson(s, false)},
            {"jump_credit", JumpCreditJson(s)}};
}

/** The manifest's "steady_probe.components" (results-format.md): the per-component
 *  judgement's figures, windows and times summed over components. */
static nlohmann::ordered_json
SteadyComponentsJson(const SteadyComponentStats& c, uint64_t startedBytes)
{
    const nlohmann::ordered_json reasons = NotSteadyJson(c);
    return {{"seen", c.seen},
            {"most_in_one_window", c.mostInWindow},
            {"windows_judged", c.probed},
            {"windows_steady", c.steady},
            {"steady_share", c.probed > 0 ? nlohmann::ordered_json(Share(c.steady, c.probed))
                                          : nullptr},
            {"component_time_us", c.componentPs / 1e6},
            {"jumps", c.jumps},
            {"skippable_component_time_us", c.skippablePs / 1e6},
            {"skippable_component_time_share", Share(c.skippablePs, c.componentPs)},
            {"skippable_bytes", c.skippableBytes},
            {"skippable_bytes_share", Share(c.skippableBytes, startedBytes)},
            {"jumped_windows", c.jumpedWindows},
            {"jumped_windows_not_steady", c.jumpedNotSteady},
            {"ends_in_jumps", c.endsInJumps},
            {"jumps_broken", c.jumpsBroken},
            {"ends_predicted", c.endsPredicted},
            {"end_error_max_us", EndErrorJson(c, false)},
            {"end_error_mean_us", EndErrorJson(c, true)},
            {"jump_credit", JumpCreditJson(c)},
            {"steady_windows_cc_state_partial", c.steadyCcPartial},
            {"windows_unattributed", c.windowsUnattributed},
            {"top_reason_not_steady",
             c.notSteady.empty() ? nullptr : nlohmann::ordered_json(TopSteadyReason(c))},
            {"not_steady", reasons}};
}

/** The manifest's "steady_probe" (results-format.md): what the steady-state probe found. */
static nlohmann::ordered_json
SteadyProbeJson(const RunResult& r)
{
    const SteadyProbeStats& s = r.steady;
    const nlohmann::ordered_json reasons = NotSteadyJson(s);
    nlohmann::ordered_json bounded = nlohmann::ordered_json::array();
    for (const auto& b : s.bounded)
    {
        nlohmann::ordered_json c = BoundedLedgerJson(b.components, b.components.componentPs,
                                                     s.startedBytes, "component_time");
        c["jumps_broken"] = b.components.jumpsBroken;
        bounded.push_back({{"max_jump_spans", b.maxJumpSpans},
                           {"fabric", BoundedLedgerJson(b.fabric, r.simEndPs, s.startedBytes)},
                           {"components", std::move(c)}});
    }
    return {{"window_us", s.windowPs / 1e6},
            {"windows", s.windows},
            {"tolerance", s.tolerance},
            {"windows_probed", s.probed},
            {"windows_steady", s.steady},
            {"steady_time_share",
             s.probed > 0 ? nlohmann::ordered_json(Share(s.steady, s.probed)) : nullptr},
            {"jumps", s.jumps},
            {"skippable_time_us", s.skippablePs / 1e6},
            {"skippable_time_share", Share(s.skippablePs, r.simEndPs)},
            {"skippable_bytes", s.skippableBytes},
            {"skippable_bytes_share", Share(s.skippableBytes, s.startedBytes)},
            {"jumped_windows", s.jumpedWindows},
            {"jumped_windows_not_steady", s.jumpedNotSteady},
            {"ends_in_jumps", s.endsInJumps},
            {"ends_predicted", s.endsPredicted},
            {"end_error_max_us", EndErrorJson(s, false)},
            {"end_error_mean_us", EndErrorJson(s, true)},
            {"jump_credit", JumpCreditJson(s)},
            {"steady_windows_cc_state_partial", s.steadyCcPartial},
            {"top_reason_not_steady",
             s.notSteady.empty() ? nullptr : nlohmann::ordered_json(TopSteadyReason(s))},
            {"not_steady", reasons},
            {"components", SteadyComponentsJson(s.components, s.startedBytes)},
            {"bounded", bounded}};
}

namespace
{

/** Append the links joined by '>' (the text of fmt::join(links, ">"), by hand: a row per
 *  flow) to `buf`. */
void
AppendJoinedLinks(fmt::memory_buffer& buf, const std::vector<uint32_t>& links)
{
    char num[16];
    for (size_t k = 0; k < links.size(); ++k)
    {
        if (k > 0)
        {
            buf.push_back('>');
        }
        buf.append(num, std::to_chars(num, num + sizeof num, links[k]).ptr);
    }
}

/** Append flows.csv's `paths` field, locate::FormatPaths's text ("links:packets" joined by
 *  '|'; tests/unit/flow-row-text-test.cc checks they are equal), to `buf`. */
template <typename Paths>
void
AppendPathsField(fmt::memory_buffer& buf, const Paths& paths)
{
    char num[24];
    for (size_t k = 0; k < paths.size(); ++k)
    {
        if (k > 0)
        {
            buf.push_back('|');
        }
        AppendJoinedLinks(buf, paths[k].first);
        buf.push_back(':');
        buf.append(num, std::to_chars(num, num + sizeof num, paths[k].second).ptr);
    }
}

std::string
JoinLinks(const std::vector<uint32_t>& links)
{
    fmt::memory_buffer buf;
    AppendJoinedLinks(buf, links);
    return fmt::to_string(buf);
}

} // namespace

// results-format.md, "Paths in flows.csv": `path` when every frame took one path, `paths`
// always (PATH:FRAMES items, in order of first arrival).
std::string
PathField(const FlowRow& f)
{
    return f.paths.size() == 1 ? JoinLinks(f.paths.front().first) : std::string();
}

std::string
PathsField(const FlowRow& f)
{
    return locate::FormatPaths(f.paths); // the format tusk locate reads back
}

std::string
FlowsCsvHeader(bool nodes)
{
    std::string s = "flow_id,src,dst,bytes,start_us,finish_us,fct_us,fct_sender_us,ideal_fct_us,slowdown,"
                    "finished,delivered_bytes,qps,entropy,retx_packets,ooo_packets,retx_bytes,retx_timeout_packets,"
                    "reorder_max,reorder_mean,naks,spurious_retx,collective,step,channel,policy,"
                    "job,background,scale_up,pkts_sent,pkts_received";
    for (int k = 0; k < kDropReasons; ++k)
    {
        s += fmt::format(",pkts_dropped_{}", ns3::DropReasonName(static_cast<ns3::DropReason>(k)));
    }
    s += ",pkts_in_flight,path,paths,fair_ideal_fct_us,fair_slowdown";
    // An imported topology that numbers nodes its own way (HPCC): the file's ids as well.
    s += nodes ? ",src_node,dst_node\n" : "\n";
    return s;
}

namespace
{

using FlowPaths = std::vector<std::pair<std::vector<uint32_t>, uint64_t>>;

// A cached segment of a row (RowTextCache) is defined by one list of its printed fields, in
// order: VisitFlowHead, VisitFlowTail, VisitWaitSegment. The same list is walked by
// SegmentText, which prints it, and by SegmentKey, which records every input the text depends
// on, so a field added to a segment cannot be printed without being keyed (a cache hit would
// then copy wrong text). A field is one of:
//   Us(shown, ps)             µs text of ps, or blank when !shown
//   Num(shown, v, decimals)   Num's text of v, or blank when !shown
//   Int(v) / IntIf(shown, v)  an integer's text (or blank)
//   Text(s)                   a string as it is
//   Paths(paths)              two fields: `path` (the single path, or blank) and `paths`

/** flows.csv from `fct_us` to `spurious_retx`. */
template <class V>
void
VisitFlowHead(V& v, const FlowRow& f)
{
    v.Us(f.finished, f.fctPs);
    v.Us(f.acknowledged, f.fctSenderPs);
    v.Us(true, f.idealFctPs);
    v.Num(f.finished, f.slowdown, 9);
    v.Int(f.finished ? 1 : 0);
    v.Int(f.deliveredBytes);
    v.Int(f.qps);
    v.Int(f.entropy);
    v.Int(f.retxPackets);
    v.Int(f.oooPackets);
    v.Int(f.retxBytes);
    v.Int(f.retxTimeoutPackets);
    v.Int(f.reorderMax);
    v.Num(true, f.reorderMean, 3);
    v.Int(f.naks);
    v.Int(f.spuriousRetx);
}

/** flows.csv from `channel` to `paths` (the tail's middle). */
template <class V>
void
VisitFlowMid(V& v, const FlowRow& f, const std::string& policy)
{
    v.Int(f.channel);
    v.Text(policy);
    v.Int(f.job);
    v.Int(f.background ? 1 : 0);
    v.Int(f.scaleUp ? 1 : 0);
    v.Int(f.pktsSent);
    v.Int(f.pktsReceived);
    v.Ints(f.pktsDropped, kDropReasons);
    v.Int(f.pktsInFlight);
    v.Paths(f.paths); // path and paths (PathField, PathsField: locate::FormatPaths's text)
}

/** flows.csv's `fair_ideal_fct_us` and `fair_slowdown`. */
template <class V>
void
VisitFlowFair(V& v, const FlowRow& f)
{
    v.Us(f.fairIdealPs != 0, f.fairIdealPs);
    v.Num(f.finished && f.fairIdealPs != 0, f.fairSlowdown, 9);
}

/** flows.csv from `step` to `fair_slowdown`. */
template <class V>
void
VisitFlowTail(V& v, const FlowRow& f, const std::string& policy)
{
    v.Int(f.step);
    VisitFlowMid(v, f, policy);
    VisitFlowFair(v, f);
}

/** waits.csv from `ideal_us` to `from_rank`. */
template <class V>
void
VisitWaitSegment(V& v, const WaitRow& w)
{
    v.Us(true, w.idealPs);
    v.Us(true, w.stepIdealPs);
    v.Us(w.arrived && w.ready, w.waitPs);
    v.Us(w.arrived && w.ready, w.networkWaitPs);
    v.Num(w.arrived && w.ready, w.delay, 6);
    v.IntIf(w.arrived, w.fromRank);
}

uint64_t
Bits(double v)
{
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

/** What a segment prints, as words (integers, times, doubles' bit patterns, one bit per field
 *  that may be blank) and the paths and text it prints as they are. */
struct SegmentKey
{
    static constexpr size_t kMaxWords = 24;
    uint64_t words[kMaxWords];
    size_t n = 0;
    uint64_t shown = 0;   //!< bit k: the k-th field that may be blank is shown
    unsigned blanks = 0;  //!< fields that may be blank, so far
    const FlowPaths* paths = nullptr;
    const std::string* text = nullptr;

    void Add(uint64_t w) { words[n++] = w; }
    void Shown(bool s) { shown |= static_cast<uint64_t>(s) << blanks++; }

    // The field visitor (see VisitFlowHead).
    void Us(bool s, uint64_t ps)
    {
        Shown(s);
        Add(ps);
    }
    void Num(bool s, double v, int /* decimals: fixed per field */)
    {
        Shown(s);
        Add(Bits(v));
    }
    template <class T>
    void Ints(const T* v, int count)
    {
        for (int k = 0; k < count; ++k)
        {
            Int(v[k]);
        }
    }
    template <class T>
    void Int(T v)
    {
        Add(static_cast<uint64_t>(v));
    }
    template <class T>
    void IntIf(bool s, T v)
    {
        Shown(s);
        Add(static_cast<uint64_t>(v));
    }
    void Text(const std::string& s) { text = &s; }
    void Paths(const FlowPaths& p) { paths = &p; }

    static uint64_t Mix(uint64_t h, uint64_t w)
    {
        h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
        return h ^ (h >> 29);
    }
    uint64_t Hash() const
    {
        uint64_t h = Mix(n, shown);
        for (size_t k = 0; k < n; ++k)
        {
            h = Mix(h, words[k]);
        }
        if (paths != nullptr)
        {
            for (const auto& [links, frames] : *paths)
            {
                for (uint32_t l : links)
                {
                    h = Mix(h, l);
                }
                h = Mix(h, frames ^ 0xA5A5A5A5A5A5A5A5ULL);
            }
        }
        return h * 0x9E3779B97F4A7C15ULL;
    }
};

/** The field visitor that prints a segment, fields separated by commas. */
class SegmentText
{
  public:
    SegmentText(fmt::memory_buffer& buf, FixedTextCache* numbers)
        : m_buf(buf),
          m_numbers(numbers)
    {
    }
    void Us(bool s, uint64_t ps) { Put(UsIf(s, ps).View()); }
    void Num(bool s, double v, int decimals)
    {
        Put((s ? NumOf(v, decimals, m_numbers) : NumText()).View());
    }
    template <class T>
    void Int(T v)
    {
        Sep();
        if (v == 0)
        {
            m_buf.push_back('0'); // most counters of most rows
            return;
        }
        char num[24];
        m_buf.append(num, std::to_chars(num, num + sizeof num, v).ptr);
    }
    template <class T>
    void IntIf(bool s, T v)
    {
        if (s)
        {
            Int(v);
            return;
        }
        Sep();
    }
    /** Int of each of v[0 .. count): all zero (a row's drop counters, mostly), one append. */
    template <class T>
    void Ints(const T* v, int count)
    {
        static constexpr char kZeros[] = ",0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0";
        bool zero = count <= static_cast<int>(sizeof kZeros / 2);
        for (int k = 0; k < count && zero; ++k)
        {
            zero = v[k] == 0;
        }
        if (!zero || count == 0)
        {
            for (int k = 0; k < count; ++k)
            {
                Int(v[k]);
            }
            return;
        }
        const char* from = kZeros + (m_first ? 1 : 0); // no comma before a segment's first
        m_buf.append(from, kZeros + 2 * count);
        m_first = false;
    }
    void Text(const std::string& s) { Put(s); }
    void Paths(const FlowPaths& p)
    {
        Sep();
        if (p.size() == 1)
        {
            AppendJoinedLinks(m_buf, p.front().first);
        }
        m_buf.push_back(',');
        AppendPathsField(m_buf, p);
    }

  private:
    void Sep()
    {
        if (!m_first)
        {
            m_buf.push_back(',');
        }
        m_first = false;
    }
    void Put(fmt::string_view t)
    {
        Sep();
        m_buf.append(t.data(), t.data() + t.size());
    }

    fmt::memory_buffer& m_buf;
    FixedTextCache* m_numbers;
    bool m_first = true;
};

} // namespace

/** A segment's entry: its inputs and its text. */
struct RowTextCache::Tables
{
    struct Entry
    {
        size_t n = 0;
        uint64_t shown = 0;
        uint64_t words[SegmentKey::kMaxWords];
        FlowPaths paths;
        std::string text0; //!< the key's Text field
        std::string text;
    };
    std::unordered_map<uint64_t, Entry> head;
    std::unordered_map<uint64_t, Entry> tail;
    std::unordered_map<uint64_t, Entry> wait; //!< waits.csv from `ideal_us` to `from_rank`

    // By source (RowTextCache::bySource).
    static constexpr size_t kWayWords = 20;
    /** A row's head and fair segments: their inputs, their text (head, then fair). */
    struct Way
    {
        size_t n = 0; //!< 0: empty
        uint64_t shown = 0;
        uint64_t words[kWayWords];
        std::string text;
        size_t headSize = 0;
    };
    struct Source
    {
        Way ways[RowTextCache::kSourceWays];
        size_t next = 0;  //!< the way replaced next
        Entry mid;        //!< `channel` to `paths` (text0: the policy)
        bool midSet = false;
    };
    std::vector<Source> sources; //!< by flow source host
};

RowTextCache::RowTextCache()
    : m_tables(std::make_unique<Tables>())
{
}

RowTextCache::~RowTextCache() = default;

namespace
{

/** Append the segment that `visit` lists (called with a SegmentKey or a SegmentText): copied
 *  from `table` when an entry has exactly the same inputs, else printed and kept. Without a
 *  cache, or with its segments off, printed (its numbers through the cache's, if any). */
template <class Visit>
void
AppendSegment(fmt::memory_buffer& buf,
              RowTextCache* cache,
              std::unordered_map<uint64_t, RowTextCache::Tables::Entry> RowTextCache::Tables::*table,
              Visit&& visit)
{
    FixedTextCache* numbers = cache != nullptr ? &cache->numbers : nullptr;
    SegmentText print(buf, numbers);
    if (cache == nullptr || !cache->segments)
    {
        visit(print);
        return;
    }
    SegmentKey key;
    visit(key);
    auto& entries = cache->Segments().*table;
    // Keyed by the inputs' 64-bit hash; an entry whose inputs differ (a hash collision) is
    // replaced. Bounded: past kMaxEntries the table starts again empty.
    const uint64_t h = key.Hash();
    auto it = entries.find(h);
    if (it != entries.end() && it->second.n == key.n && it->second.shown == key.shown &&
        std::equal(key.words, key.words + key.n, it->second.words) &&
        (key.paths == nullptr || it->second.paths == *key.paths) &&
        (key.text == nullptr || it->second.text0 == *key.text))
    {
        ++cache->hits;
        buf.append(it->second.text.data(), it->second.text.data() + it->second.text.size());
        return;
    }
    ++cache->misses;
    if (it == entries.end())
    {
        if (entries.size() >= RowTextCache::kMaxEntries)
        {
            entries.clear();
        }
        it = entries.emplace(h, RowTextCache::Tables::Entry()).first;
    }
    auto& e = it->second;
    const size_t at = buf.size();
    visit(print);
    e.n = key.n;
    e.shown = key.shown;
    std::copy(key.words, key.words + key.n, e.words);
    if (key.paths != nullptr)
    {
        e.paths = *key.paths;
    }
    if (key.text != nullptr)
    {
        e.text0 = *key.text;
    }
    e.text.assign(buf.data() + at, buf.size() - at);
}

} // namespace

namespace
{

/** AppendFlowCsvRow's line into `buf`; with `at`, where start_us ([0]), fct_us ([1]), the comma
 *  before collective_id ([2]) and step ([3]) begin. */
void
FlowCsvRowInto(fmt::memory_buffer& buf,
               const FlowRow& f,
               const std::string& policy,
               const std::vector<uint32_t>& nodeIds,
               RowTextCache* cache,
               size_t* at)
{
    // Formatted into a stack buffer with compiled format strings, then appended (no temporary
    // string per call, no format string parsed per row, the times' text on the stack): a
    // fast-mode run writes a million rows. With a cache, the head and tail segments are
    // copied when printed before with the same inputs (RowTextCache).
    const auto out = std::back_inserter(buf);
    fmt::format_to(out, FMT_COMPILE("{},{},{},{},"), f.id, f.src, f.dst, f.bytes);
    if (at != nullptr)
    {
        at[0] = buf.size();
    }
    fmt::format_to(out, FMT_COMPILE("{},{},"), UsIf(f.started, f.startPs).View(),
                   UsIf(f.finished, f.finishPs).View());
    if (at != nullptr)
    {
        at[1] = buf.size();
    }
    AppendSegment(buf, cache, &RowTextCache::Tables::head,
                  [&](auto& v) { VisitFlowHead(v, f); });
    if (at != nullptr)
    {
        at[2] = buf.size();
    }
    fmt::format_to(out, FMT_COMPILE(",{},"), f.collective);
    if (at != nullptr)
    {
        at[3] = buf.size();
    }
    AppendSegment(buf, cache, &RowTextCache::Tables::tail,
                  [&](auto& v) { VisitFlowTail(v, f, policy); });
    if (!nodeIds.empty())
    {
        fmt::format_to(out, FMT_COMPILE(",{},{}"), nodeIds.at(f.src), nodeIds.at(f.dst));
    }
    buf.push_back('\n');
}

} // namespace

namespace
{

/** FlowCsvRowInto with the cache by source (RowTextCache::bySource). */
void
FlowCsvRowBySource(fmt::memory_buffer& buf,
                   const FlowRow& f,
                   const std::string& policy,
                   const std::vector<uint32_t>& nodeIds,
                   RowTextCache& cache)
{
    using Tables = RowTextCache::Tables;
    const auto out = std::back_inserter(buf);
    fmt::format_to(out, FMT_COMPILE("{},{},{},{},{},{},"), f.id, f.src, f.dst, f.bytes,
                   UsIf(f.started, f.startPs).View(), UsIf(f.finished, f.finishPs).View());
    auto& sources = cache.Segments().sources;
    if (sources.size() <= f.src)
    {
        sources.resize(static_cast<size_t>(f.src) + 1);
    }
    Tables::Source& src = sources[f.src];
    // The head and the fair ideal, together: a replayed transfer's are its pooled
    // transfer's, one of the source's last few rows (every input compared, none hashed).
    SegmentKey key;
    VisitFlowHead(key, f);
    VisitFlowFair(key, f);
    const Tables::Way* way = nullptr;
    for (const Tables::Way& w : src.ways)
    {
        if (w.n == key.n && w.shown == key.shown &&
            std::equal(key.words, key.words + key.n, w.words))
        {
            way = &w;
            break;
        }
    }
    const size_t headAt = buf.size();
    if (way != nullptr)
    {
        ++cache.hits;
        buf.append(way->text.data(), way->text.data() + way->headSize);
    }
    else
    {
        ++cache.misses;
        SegmentText print(buf, &cache.numbers);
        VisitFlowHead(print, f);
    }
    const size_t headEnd = buf.size();
    fmt::format_to(out, FMT_COMPILE(",{},{},"), f.collective, f.step);
    // `channel` to `paths`: a source's are mostly the same row after row.
    SegmentKey mid;
    VisitFlowMid(mid, f, policy);
    Tables::Entry& m = src.mid;
    if (src.midSet && m.n == mid.n && m.shown == mid.shown &&
        std::equal(mid.words, mid.words + mid.n, m.words) && m.paths == *mid.paths &&
        m.text0 == *mid.text)
    {
        ++cache.hits;
        buf.append(m.text.data(), m.text.data() + m.text.size());
    }
    else
    {
        ++cache.misses;
        const size_t at = buf.size();
        SegmentText print(buf, &cache.numbers);
        VisitFlowMid(print, f, policy);
        m.n = mid.n;
        m.shown = mid.shown;
        std::copy(mid.words, mid.words + mid.n, m.words);
        m.paths = *mid.paths;
        m.text0 = *mid.text;
        m.text.assign(buf.data() + at, buf.size() - at);
        src.midSet = true;
    }
    buf.push_back(',');
    if (way != nullptr)
    {
        buf.append(way->text.data() + way->headSize, way->text.data() + way->text.size());
    }
    else
    {
        const size_t fairAt = buf.size();
        SegmentText print(buf, &cache.numbers);
        VisitFlowFair(print, f);
        if (key.n <= Tables::kWayWords)
        {
            Tables::Way& w = src.ways[src.next];
            src.next = (src.next + 1) % RowTextCache::kSourceWays;
            w.n = key.n;
            w.shown = key.shown;
            std::copy(key.words, key.words + key.n, w.words);
            w.text.assign(buf.data() + headAt, headEnd - headAt);
            w.headSize = w.text.size();
            w.text.append(buf.data() + fairAt, buf.size() - fairAt);
        }
    }
    if (!nodeIds.empty())
    {
        fmt::format_to(out, FMT_COMPILE(",{},{}"), nodeIds.at(f.src), nodeIds.at(f.dst));
    }
    buf.push_back('\n');
}

} // namespace

void
AppendFlowCsvRow(std::string& s,
                 const FlowRow& f,
                 const std::string& policy,
                 const std::vector<uint32_t>& nodeIds,
                 RowTextCache* cache)
{
    fmt::memory_buffer buf;
    if (cache != nullptr && cache->bySource && f.src < RowTextCache::kMaxSources)
    {
        FlowCsvRowBySource(buf, f, policy, nodeIds, *cache);
    }
    else
    {
        FlowCsvRowInto(buf, f, policy, nodeIds, cache, nullptr);
    }
    s.append(buf.data(), buf.size());
}

FlowCsvRowShape
FlowCsvRowShapeOf(const FlowRow& f,
                  const std::string& policy,
                  const std::vector<uint32_t>& nodeIds,
                  RowTextCache* cache)
{
    if (!f.started || !f.finished)
    {
        throw std::logic_error("FlowCsvRowShapeOf: the flow row is not started and finished");
    }
    fmt::memory_buffer buf;
    size_t at[4] = {};
    FlowCsvRowInto(buf, f, policy, nodeIds, cache, at);
    const size_t idEnd = IntText(f.id).size;
    FlowCsvRowShape shape;
    // ",src,dst,bytes," | "," head "," | "," tail ... "\n" (the commas around start_us,
    // finish_us and collective_id belong to the pieces).
    shape.text.assign(buf.data() + idEnd, at[0] - idEnd);
    shape.headBegin = static_cast<uint32_t>(shape.text.size());
    shape.text.append(buf.data() + at[1] - 1, at[2] + 1 - (at[1] - 1));
    shape.tailBegin = static_cast<uint32_t>(shape.text.size());
    shape.text.append(buf.data() + at[3] - 1, buf.size() - (at[3] - 1));
    return shape;
}

void
AppendShapedFlowCsvRow(std::string& s,
                       const FlowCsvRowShape& shape,
                       uint64_t id,
                       uint64_t startPs,
                       uint64_t finishPs,
                       int32_t collective)
{
    const IntText idText(id);
    const UsText start(startPs);
    const UsText finish(finishPs);
    const IntText collectiveText(static_cast<int64_t>(collective));
    const char* t = shape.text.data();
    // Into a stack buffer, then one append (each append checks and may grow s); a line
    // longer than the buffer (many paths) into a heap one.
    const size_t size = idText.size + start.size + 1 + finish.size + collectiveText.size +
                        shape.text.size();
    char stack[1024];
    std::vector<char> heap;
    char* line = stack;
    if (size > sizeof stack)
    {
        heap.resize(size);
        line = heap.data();
    }
    char* p = line;
    const auto put = [&p](const char* from, size_t n) {
        std::memcpy(p, from, n);
        p += n;
    };
    put(idText.buf, idText.size);
    put(t, shape.headBegin);
    put(start.buf, start.size);
    *p++ = ',';
    put(finish.buf, finish.size);
    put(t + shape.headBegin, shape.tailBegin - shape.headBegin);
    put(collectiveText.buf, collectiveText.size);
    put(t + shape.tailBegin, shape.text.size() - shape.tailBegin);
    s.append(line, size);
}

std::string
FlowsCsv(const RunResult& r)
{
    std::string s = FlowsCsvHeader(!r.nodeIds.empty());
    for (const auto& f : r.flows)
    {
        AppendFlowCsvRow(s, f, r.summary.policy, r.nodeIds);
    }
    return s;
}

std::string
CollectivesCsvHeader()
{
    return "collective_id,kind,ranks,bytes_per_rank,channels,start_us,finish_us,cct_us,"
           "lower_bound_us,algbw_GBps,busbw_GBps,busbw_factor,finished,step_end_us,"
           "policy,algorithm,job,iteration,name,group,slices,step_us,step_slowest_rank,"
           "step_slowest_flow,ranks_delayed_1pct,ranks_delayed_10pct,ranks_delayed_50pct,"
           "critical_flow,critical_slowdown,critical_paths\n";
}

void
AppendCollectiveCsvRow(std::string& s,
                       const CollectiveRow& c,
                       const FlowRow* crit,
                       const std::string& policy)
{
    std::string steps;
    std::string stepUs;
    std::string slowRank;
    std::string slowFlow;
    uint64_t prev = c.startPs;
    for (size_t i = 0; i < c.stepEndPs.size(); ++i)
    {
        const char* sep = i ? ";" : "";
        const bool done = c.stepSlowestFlow[i] >= 0;
        steps += sep + (done ? Us(c.stepEndPs[i]) : std::string());
        // How far this step's completion moved the collective's front (0 when it ended
        // before an earlier step did; pipelined steps overlap).
        stepUs += sep + (done ? Us(c.stepEndPs[i] > prev ? c.stepEndPs[i] - prev : 0) : "");
        if (done)
        {
            prev = std::max(prev, c.stepEndPs[i]);
        }
        slowRank += sep + (done ? std::to_string(c.stepSlowestRank[i]) : "");
        slowFlow += sep + (done ? std::to_string(c.stepSlowestFlow[i]) : "");
    }
    s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                     c.id, c.kind, c.ranks, c.bytesPerRank, c.channels, Us(c.startPs),
                     c.finished ? Us(c.finishPs) : "", c.finished ? Us(c.cctPs) : "",
                     Us(c.lowerBoundPs), c.finished ? Num(c.algbwGBps) : "",
                     c.finished ? Num(c.busbwGBps) : "", Num(c.busbwFactor), c.finished ? 1 : 0,
                     steps, policy, c.algorithm, c.job, c.iteration, c.name, c.group,
                     c.slices, stepUs, slowRank, slowFlow);
    // The row goes on: who waited (waits.csv).
    s += fmt::format(",{},{},{},{},{},{}\n", c.ranksDelayed[0], c.ranksDelayed[1],
                     c.ranksDelayed[2], crit ? std::to_string(crit->id) : "",
                     crit ? Num(crit->slowdown, 9) : "", crit ? PathsField(*crit) : "");
}

/** The flow row of transfer `id` (rows are in id order; a run stopped early has gaps where
 *  a job's iterations never started, so an id is not a position); nullptr when absent. */
static const FlowRow*
FlowById(const RunResult& r, int64_t id)
{
    if (id < 0)
    {
        return nullptr;
    }
    const auto it = std::lower_bound(r.flows.begin(), r.flows.end(), static_cast<uint64_t>(id),
                                     [](const FlowRow& f, uint64_t v) { return f.id < v; });
    return it != r.flows.end() && it->id == static_cast<uint64_t>(id) ? &*it : nullptr;
}

std::string
CollectivesCsv(const RunResult& r)
{
    std::string s = CollectivesCsvHeader();
    for (const auto& c : r.collectives)
    {
        AppendCollectiveCsvRow(s, c, FlowById(r, c.criticalFlow),
                               r.summary.policy);
    }
    return s;
}

std::string
WaitsCsvHeader()
{
    return "collective,step,rank,host,ready_us,sent_us,arrival_us,ideal_us,step_ideal_us,"
           "wait_us,network_wait_us,delay,from_rank,last_flow\n";
}

void
AppendWaitCsvRow(std::string& s, const WaitRow& w, const FlowRow* last, RowTextCache* cache)
{
    const uint64_t id = last != nullptr ? last->id : 0;
    AppendWaitCsvRow(s, w, last != nullptr ? &id : nullptr, cache);
}

void
AppendWaitCsvRow(std::string& s, const WaitRow& w, const uint64_t* lastId, RowTextCache* cache)
{
    // Into a stack buffer, then appended (a std::string's back_inserter resizes it per piece).
    // With a cache, `ideal_us` to `from_rank` copied when printed before with the same inputs.
    fmt::memory_buffer buf;
    const auto out = std::back_inserter(buf);
    fmt::format_to(out, FMT_COMPILE("{},{},{},{},{},{},{},"), w.collective, w.step, w.rank, w.host,
                   UsIf(w.ready, w.readyPs).View(), UsIf(w.sent, w.sentPs).View(),
                   UsIf(w.arrived, w.arrivalPs).View());
    AppendSegment(buf, cache, &RowTextCache::Tables::wait,
                  [&](auto& v) { VisitWaitSegment(v, w); });
    buf.push_back(',');
    fmt::format_to(out, FMT_COMPILE("{}\n"),
                   (w.arrived && lastId != nullptr ? IntText(*lastId) : IntText()).View());
    s.append(buf.data(), buf.size());
}

std::string
WaitsCsv(const RunResult& r)
{
    std::string s = WaitsCsvHeader();
    for (const auto& w : r.waits)
    {
        AppendWaitCsvRow(s, w, w.arrived ? FlowById(r, w.lastTransfer) : nullptr);
    }
    return s;
}

std::string
JobsCsv(const RunResult& r)
{
    std::string s = "job_id,name,ranks,tp,pp,dp,ep,placement,iterations,collectives,start_us,"
                    "finish_us,jct_us,iteration_us,finished,policy\n";
    for (const auto& j : r.jobs)
    {
        std::string its;
        uint64_t prev = j.startPs;
        for (size_t i = 0; i < j.iterationEndPs.size(); ++i)
        {
            const uint64_t end = j.iterationEndPs[i];
            its += (i ? ";" : "") + (end ? Us(end > prev ? end - prev : 0) : std::string());
            prev = end ? end : prev;
        }
        s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", j.id, j.name,
                         j.hosts.size(), j.tp, j.pp, j.dp, j.ep, j.placement, j.iterations,
                         j.collectives, Us(j.startPs), j.finished ? Us(j.finishPs) : "",
                         j.finished ? Us(j.finishPs - std::min(j.finishPs, j.startPs)) : "", its,
                         j.finished ? 1 : 0, r.summary.policy);
    }
    return s;
}

std::string
ChakraNodesCsv(const RunResult& r)
{
    std::string s = "rank,node_id,name,type,detail,start_us,end_us,duration_us\n";
    for (const auto& n : r.chakraNodes)
    {
        const bool ended = n.startPs >= 0 && n.endPs >= 0;
        s += fmt::format("{},{},{},{},{},{},{},{}\n", n.rank, n.nodeId, CsvField(n.name), n.type,
                         CsvField(n.detail), n.startPs >= 0 ? Us(n.startPs) : "",
                         n.endPs >= 0 ? Us(n.endPs) : "",
                         ended ? Us(n.endPs - n.startPs) : "");
    }
    return s;
}

std::string
ChakraRanksCsv(const RunResult& r)
{
    // rank -> (nodes, nodes ended, last end)
    std::map<uint32_t, std::tuple<uint64_t, uint64_t, int64_t>> ranks;
    for (const auto& n : r.chakraNodes)
    {
        auto& [nodes, ended, last] = ranks.try_emplace(n.rank, 0, 0, 0).first->second;
        ++nodes;
        if (n.endPs >= 0)
        {
            ++ended;
            last = std::max(last, n.endPs);
        }
    }
    std::string s = "rank,nodes,finished,iteration_us\n";
    for (const auto& [rank, v] : ranks)
    {
        const auto& [nodes, ended, last] = v;
        s += fmt::format("{},{},{},{}\n", rank, nodes, ended == nodes ? 1 : 0,
                         ended == nodes ? Us(static_cast<uint64_t>(last)) : "");
    }
    return s;
}

std::string
LinksCsv(const RunResult& r)
{
    std::string s = "link_id,from,to,from_tier,to_tier,uplink,rate_gbps,tx_frames,tx_bytes,"
                    "byte_share,mean_util,max_util,max_queue_bytes,pfc_pause_tx,pfc_frames_tx,pfc_frames_rx,"
                    "paused_us,ecn_marks,pfc_watchdog_triggers";
    for (int k = 0; k < kDropReasons; ++k)
    {
        s += fmt::format(",drops_{}", ns3::DropReasonName(static_cast<ns3::DropReason>(k)));
    }
    // The credit column comes last, and only on a fabric kind with credits (Ethernet files stay
    // as they were).
    const bool ib = FabricKindOf(r.spec).UsesCredits();
    s += ib ? ",credit_stall_us\n" : "\n";
    for (const auto& l : r.links)
    {
        s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", l.link, l.from,
                         l.to, l.fromTier, l.toTier, l.uplink ? 1 : 0, Num(l.rateBps / 1e9, 3),
                         l.txFrames, l.txBytes, l.byteShare < 0 ? "" : Num(l.byteShare),
                         Num(l.meanUtilisation), Num(l.maxUtilisation),
                         l.maxQueueBytes, l.pfcPauseTx, l.pfcFramesTx, l.pfcFramesRx,
                         Us(l.pausedPs), l.ecnMarks, l.watchdogTriggers);
        for (int k = 0; k < kDropReasons; ++k)
        {
            s += fmt::format(",{}", l.drops[k]);
        }
        s += ib ? "," + Us(l.creditStallPs) + "\n" : "\n";
    }
    return s;
}

std::string
TimeSeriesCsv(const RunResult& r)
{
    const TimeSeries& ts = r.timeSeries;
    std::string s = "time_us,link_id,from,to,tx_bytes,util,queue_bytes,paused_us\n";
    s.reserve(s.size() + ts.rows.size() * 48);
    for (const auto& row : ts.rows)
    {
        const SampledPort& p = ts.ports[row.port];
        s += fmt::format("{},{},{},{},{},{},{},{}\n", Us(row.timePs), p.link, p.from, p.to,
                         row.txBytes, Num(row.utilisation), row.queueBytes, Us(row.pausedPs));
    }
    return s;
}

std::string
SwitchTimeSeriesCsv(const RunResult& r)
{
    const TimeSeries& ts = r.timeSeries;
    std::string s = "time_us,switch,total_bytes,reserved_bytes,shared_bytes,headroom_bytes,"
                    "paused_ingress\n";
    for (const auto& row : ts.switchRows)
    {
        s += fmt::format("{},{},{},{},{},{},{}\n", Us(row.timePs), ts.switches[row.sw],
                         row.totalBytes, row.reservedBytes, row.sharedBytes, row.headroomBytes,
                         row.pausedIngress);
    }
    return s;
}

std::string
SwitchesCsv(const RunResult& r)
{
    std::string s = "switch,buffer_bytes,reserved_pool_bytes,headroom_pool_bytes,shared_pool_bytes,"
                    "max_total_bytes,max_reserved_bytes,max_shared_bytes,max_headroom_bytes\n";
    for (const auto& w : r.switchRows)
    {
        s += fmt::format("{},{},{},{},{},{},{},{},{}\n", w.name, w.bufferBytes, w.reservedPoolBytes,
                         w.headroomPoolBytes, w.sharedPoolBytes, w.maxTotalBytes,
                         w.maxReservedBytes, w.maxSharedBytes, w.maxHeadroomBytes);
    }
    return s;
}

std::string
CcTraceCsv(const RunResult& r)
{
    std::string s = "time_us,src,dst,qpn,cc,rate_gbps,target_gbps,alpha,window_bytes\n";
    s.reserve(s.size() + r.ccTrace.size() * 64);
    for (const auto& c : r.ccTrace)
    {
        s += fmt::format("{},{},{},{},{},{},{},{},{}\n", Us(c.timePs), c.src, c.dst, c.qpn, c.cc,
                         Num(c.rateBps * 1e-9), Num(c.targetRateBps * 1e-9), Num(c.alpha),
                         Num(c.windowBytes, 0));
    }
    return s;
}

std::string
PfcEventsCsv(const RunResult& r)
{
    std::string s = "time_us,node,peer,direction,priority,quanta,kind,depth\n";
    for (const auto& e : r.pfcEvents)
    {
        s += fmt::format("{},{},{},{},{},{},{},{}\n", Us(e.event.timePs), e.at, e.peer,
                         e.event.sent ? "sent" : "received", unsigned(e.event.priority),
                         e.event.quanta, e.event.quanta == 0 ? "XON" : "XOFF",
                         unsigned(e.event.depth));
    }
    return s;
}

std::string
DropsCsv(const RunResult& r)
{
    static const char* const kKinds[] = {"data", "ack", "nak", "cnp", "pfc", "lb_control",
                                         "probe"};
    std::string s = "time_us,link_id,from,to,reason,kind,src,dst,dst_qp,entropy\n";
    s.reserve(s.size() + r.dropEvents.size() * 64);
    for (const auto& d : r.dropEvents)
    {
        const LinkRow& port = r.links.at(d.port);
        const auto kind = static_cast<size_t>(d.kind);
        s += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", Us(d.timePs), port.link, port.from,
                         port.to, ns3::DropReasonName(d.reason),
                         kind < std::size(kKinds) ? kKinds[kind] : "other", d.srcHost, d.dstHost,
                         d.dstQp, d.entropy);
    }
    return s;
}

/** The manifest's "fast_mode" (docs/results-format.md): what the iteration memoisation
 *  replayed, with the shares of simulated time and bytes, and why it simulated the rest. */
static nlohmann::ordered_json
FastModeJson(const RunResult& r)
{
    const auto& f = r.fast;
    const double timeShare =
        r.simEndPs > 0 ? static_cast<double>(f.replayedPs) / static_cast<double>(r.simEndPs) : 0.0;
    const double byteShare =
        f.totalBytes > 0 ? static_cast<double>(f.replayedBytes) / static_cast<double>(f.totalBytes)
                         : 0.0;
    nlohmann::ordered_json fallbacks = nlohmann::ordered_json::object();
    for (const auto& [reason, n] : f.fallbacks)
    {
        fallbacks[reason] = n;
    }
    nlohmann::ordered_json exact = nlohmann::ordered_json::object();
    for (const auto& [reason, n] : f.exactRefusals)
    {
        exact[reason] = n;
    }
    nlohmann::ordered_json j = {{"iterations", f.iterations},
            {"iterations_replayed", f.Replayed()},
            {"iterations_replayed_exact", f.replayedExact},
            {"iterations_replayed_steady", f.replayedSteady},
            {"iterations_replayed_sampled", f.replayedSampled},
            {"iterations_simulated", f.simulated},
            {"replayed_time_share", timeShare},
            {"replayed_bytes_share", byteShare},
            {"replayed_time_us", static_cast<double>(f.replayedPs) / 1e6},
            {"replayed_bytes", f.replayedBytes},
            {"fallbacks", fallbacks},
            {"exact_refusals", exact}};
    if (!f.recurrenceSpanWhy.empty())
    {
        j["recurrence_span"] = f.recurrenceSpan;
        j["recurrence_span_why"] = f.recurrenceSpanWhy;
    }
    if (!f.steadyTrendSpanWhy.empty())
    {
        j["steady_trend_span"] = f.steadyTrendSpan;
        j["steady_trend_span_why"] = f.steadyTrendSpanWhy;
    }
    if (f.ringSteps > 0)
    {
        // A standalone ring's steps (ring-step-memo.h); absent otherwise.
        nlohmann::ordered_json ringFallbacks = nlohmann::ordered_json::object();
        for (const auto& [reason, n] : f.ringFallbacks)
        {
            ringFallbacks[reason] = n;
        }
        j["ring_steps"] = f.ringSteps;
        j["ring_steps_replayed"] = f.ringStepsReplayed;
        j["ring_steps_simulated"] = f.ringStepsSimulated;
        j["ring_first_replayed_step"] = f.ringFirstReplayed;
        j["ring_step_fallbacks"] = ringFallbacks;
    }
    return j;
}

void
WriteRunFiles(const RunResult& r, const std::string& dir)
{
    WriteFileAtomic(dir + "/pfc_events.csv", PfcEventsCsv(r));
    if (r.spec.output.dropLog)
    {
        WriteFileAtomic(dir + "/drops.csv", DropsCsv(r));
    }
    // [output] flow_rows = "summary": neither flows.csv nor waits.csv (nor their text).
    const bool flowRows = r.spec.output.flowRows == "all";
    if (!r.streamed.active) // else written while the run ran (RunOptions::streamRows)
    {
        if (flowRows)
        {
            WriteFileAtomic(dir + "/flows.csv", FlowsCsv(r));
        }
        WriteFileAtomic(dir + "/collectives.csv", CollectivesCsv(r));
        if (flowRows)
        {
            WriteFileAtomic(dir + "/waits.csv", WaitsCsv(r));
        }
    }
    WriteFileAtomic(dir + "/jobs.csv", JobsCsv(r));
    WriteFileAtomic(dir + "/links.csv", LinksCsv(r));
    if (const std::string planes = PlanesCsv(r.links); !planes.empty())
    {
        WriteFileAtomic(dir + "/planes.csv", planes); // a multi-plane fabric's results per plane
    }
    WriteFileAtomic(dir + "/switches.csv", SwitchesCsv(r));
    if (r.timeSeries.intervalPs > 0)
    {
        WriteFileAtomic(dir + "/timeseries.csv", TimeSeriesCsv(r));
        WriteFileAtomic(dir + "/switch_timeseries.csv", SwitchTimeSeriesCsv(r));
    }
    WriteToolOutputs(r, dir); // [output] formats
    if (r.spec.output.ccTrace)
    {
        WriteFileAtomic(dir + "/cc_trace.csv", CcTraceCsv(r));
    }
    const bool pathTelemetry = WritePathTelemetry(r, dir); // [output] path_telemetry
    const bool arTelemetry = WriteArTelemetry(r, dir);     // [output] ar_telemetry
    const bool probes = WriteProbes(r, dir);               // [probes]
    if (!r.chakraNodes.empty())
    {
        WriteFileAtomic(dir + "/chakra_nodes.csv", ChakraNodesCsv(r));
        WriteFileAtomic(dir + "/chakra_ranks.csv", ChakraRanksCsv(r));
    }

    nlohmann::ordered_json m;
    m["tusk_version"] = TUSK_VERSION;
    m["git_revision"] = GitRevision();
    m["code_hash"] = CodeIdentity(); // what a resumed sweep compares (code-identity.h)
    m["ns3_version"] = "3.37";
    for (const auto& p : LoadedPlugins()) // `tusk rerun` loads them and checks their bytes
    {
        m["plugins"].push_back({{"path", p.path}, {"sha256", p.sha256}});
    }
    m["scenario_name"] = r.spec.name;
    m["scenario_file"] = r.spec.sourceFile;
    m["seed"] = r.spec.seed;
    m["policy"] = r.summary.policy;
    m["policy_type_id"] = r.policyTypeId;
    m["path_selector_type_id"] = r.pathSelectorTypeId;
    m["qps_per_connection"] = r.qpsPerConnection;
    m["qp_scaling"] = r.qpScaling;
    m["status"] = r.failure.empty() ? "ok" : "failed";
    m["failure"] = r.failure;
    m["warnings"] = r.warnings;
    m["finished"] = r.finished;
    m["hosts"] = r.hosts;
    m["switches"] = r.switches;
    m["transfers"] = FlowCount(r);
    m["unfinished_transfers"] = r.summary.unfinished;
    m["sim_end_us"] = static_cast<double>(r.simEndPs) / 1e6;
    m["wall_time_s"] = r.wallSeconds;
    m["setup_time_s"] = r.setupSeconds;
    m["run_time_s"] = r.runSeconds;
    m["events"] = r.events;
    m["packet_hops"] = r.packetHops;
    m["conservation"] = {{"sent_frames", r.conservation.sent},
                         {"received_frames", r.conservation.received},
                         {"dropped_frames", r.conservation.dropped},
                         {"in_flight_frames", r.conservation.inFlight},
                         {"holds", r.conservation.Holds()}};
    m["invariants"] = {{"checked", {"per-flow packet conservation", "MMU counters = queued bytes",
                                    "link rate over 10 frames"}},
                       {"violations", r.invariantViolations},
                       {"hold", r.invariantViolations.empty()}};
    if (r.spec.simulator.mode == "fast")
    {
        m["fast_mode"] = FastModeJson(r);
    }
    if (r.steady.active)
    {
        m["steady_probe"] = SteadyProbeJson(r);
    }
    if (r.steadyJump.active)
    {
        m["steady_jump"] = SteadyJumpJson(r);
    }
    if (r.spec.probes.intervalPs > 0)
    {
        uint64_t sent = 0, judged = 0, lost = 0;
        for (const auto& p : r.probes)
        {
            sent += p.sent;
            judged += p.judged;
            lost += p.losses;
        }
        m["probes"] = {{"streams", r.probes.size()},
                       {"sent", sent},
                       {"judged", judged},
                       {"unjudged", sent - judged},
                       {"lost", lost}};
    }
    nlohmann::ordered_json classes = nlohmann::ordered_json::array();
    for (const auto& c : r.pathClasses)
    {
        classes.push_back({{"links", c.links},
                           {"switches", c.links - 1},
                           {"src", c.src},
                           {"dst", c.dst},
                           {"pairs_from_src", c.pairs},
                           {"base_rtt_us", static_cast<double>(c.baseRttPs) / 1e6},
                           {"host_rate_gbps", InUnit(c.hostRateBps, kBpsPerGbps)},
                           {"bdp_bytes", c.bdpBytes}});
    }
    m["path_classes"] = classes;
    // The catalogue's metrics in its order, then how the percentiles were taken, then the
    // metrics of one fabric kind (credit_stall_fraction: InfiniBand only, no key on Ethernet).
    const RunSummary& s = r.summary;
    auto value = [&s](const MetricInfo& metric) {
        const MetricValue v = metric.value(s);
        return v.isCount ? nlohmann::ordered_json(v.count)
                         : std::isnan(v.real) ? nlohmann::ordered_json() : nlohmann::ordered_json(v.real);
    };
    m["summary"] = nlohmann::ordered_json::object();
    for (const auto& metric : MetricCatalogue())
    {
        if (!metric.onlyCredits)
        {
            m["summary"][metric.name] = value(metric);
        }
    }
    m["summary"]["quantile_method"] = s.quantileMethod;
    for (const auto& metric : MetricCatalogue())
    {
        if (metric.onlyCredits && HasMetric(metric, r.spec))
        {
            m["summary"][metric.name] = value(metric);
        }
    }
    nlohmann::ordered_json byReason = nlohmann::ordered_json::object();
    for (int k = 0; k < kDropReasons; ++k)
    {
        byReason[ns3::DropReasonName(static_cast<ns3::DropReason>(k))] = s.dropsByReason[k];
    }
    m["summary"]["drops_by_reason"] = byReason;
    m["scenario"] = ScenarioToJson(r.spec);
    // The files the scenario read besides itself, with the SHA-256 of their bytes: a sweep
    // keeps these results only while they are unchanged (RunHash).
    m["inputs"] = InputsJson(r.spec);
    // What the scenario keys and the models made of the scenario: every attribute the run set
    // (by declaring TypeId) and the PFC headroom each class of switch port got.
    nlohmann::ordered_json headroom = nlohmann::ordered_json::array();
    for (const auto& h : r.headroom)
    {
        headroom.push_back({{"rate_gbps", InUnit(h.rateBps, kBpsPerGbps)},
                            {"delay_ns", InUnit(h.delayPs, kPsPerNs)},
                            {"headroom_bytes", h.headroomBytes},
                            {"ports", h.ports},
                            {"max_used_bytes", h.maxUsedBytes}});
    }
    m["resolved"] = {{"attributes", r.attributes}, {"headroom", headroom}};
    // Which of those values came from --hpcc-config (key -> "file:line KEY value"); explicit
    // --set values win over imported ones and are not listed.
    m["imported"] = nlohmann::json::object();
    for (const auto& [key, from] : r.spec.imported)
    {
        m["imported"][key] = from;
    }
    nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
    for (const auto& j : r.jobs)
    {
        jobs.push_back({{"job_id", j.id},
                        {"name", j.name},
                        {"ranks", j.hosts.size()},
                        {"hosts", j.hosts},
                        {"tp", j.tp},
                        {"pp", j.pp},
                        {"dp", j.dp},
                        {"ep", j.ep},
                        {"placement", j.placement},
                        {"source", j.source},
                        {"note", j.note}});
    }
    m["jobs"] = jobs;
    m["files"] = flowRows ? nlohmann::ordered_json{"flows.csv", "collectives.csv", "waits.csv",
                                                   "jobs.csv", "links.csv", "pfc_events.csv",
                                                   "switches.csv"}
                          : nlohmann::ordered_json{"collectives.csv", "jobs.csv", "links.csv",
                                                   "pfc_events.csv", "switches.csv"};
    if (r.timeSeries.intervalPs > 0)
    {
        m["files"].push_back("timeseries.csv");
        m["files"].push_back("switch_timeseries.csv");
    }
    if (r.spec.output.dropLog)
    {
        m["files"].push_back("drops.csv");
    }
    if (HasPlanes(r.links))
    {
        m["files"].push_back("planes.csv");
    }
    if (r.spec.output.ccTrace)
    {
        m["files"].push_back("cc_trace.csv");
    }
    if (pathTelemetry)
    {
        m["files"].push_back("paths.csv");
    }
    if (arTelemetry)
    {
        m["files"].push_back("ar.csv");
    }
    if (probes)
    {
        m["files"].push_back("probes.csv");
    }
    if (!r.chakraNodes.empty())
    {
        m["files"].push_back("chakra_nodes.csv");
        m["files"].push_back("chakra_ranks.csv");
    }
    WriteFileAtomic(dir + "/manifest.json", m.dump(2) + "\n");
}

RunResult
RunInto(const ScenarioSpec& spec, const std::string& out, RunOptions options)
{
    (void)CodeIdentity(); // now: a rebuild during the run must not relabel its results
    StagedResults staged(out, "run");
    options.pcapDir = staged.Path();
    if (options.streamRows)
    {
        options.streamDir = staged.Path();
    }
    const RunResult r = RunScenario(spec, options);
    WriteRunFiles(r, staged.Path());
    staged.Commit();
    return r;
}

} // namespace tusk
