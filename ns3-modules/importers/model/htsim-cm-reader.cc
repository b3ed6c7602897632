/*
 * tusk: importer for htsim connection matrices (.cm). See htsim-cm-reader.h for the syntax
 * and its source in uet-htsim.
 */
#include "htsim-cm-reader.h"

#include "fabric/helper/closest-name.h"
#include "fabric/model/fabric-units.h"
#include "fabric/model/input-error.h"
#include "fabric/model/input-excerpt.h"
#include "importers/model/input-text-reader.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <vector>

namespace ns3
{

namespace
{

const char* const kConnectionFields[] = {"id",
                                         "start",
                                         "size",
                                         "trigger",
                                         "send_done_trigger",
                                         "recv_done_trigger",
                                         "prio"};
const char* const kTriggerFields[] = {"id", "oneshot", "multishot", "barrier", "count"};
const char* const kLineStarts[] =
    {"Nodes", "Connections", "Triggers", "Failures", "SRC->DST", "trigger", "failure"};

/** "; did you mean 'x'?" for the valid word within a typo's distance of `word` (CloseName);
 *  "" when none is that close. */
template <size_t N>
std::string
DidYouMean(const std::string& word, const char* const (&valid)[N])
{
    const std::string near =
        CloseName(word, std::vector<std::string>(std::begin(valid), std::end(valid)),
                  LetterCase::INSENSITIVE);
    return near.empty() ? "" : "; did you mean '" + near + "'?";
}

template <size_t N>
std::string
JoinList(const char* const (&valid)[N])
{
    std::string s;
    for (size_t i = 0; i < N; ++i)
    {
        s += (i ? ", " : "");
        s += valid[i];
    }
    return s;
}

/** Printable excerpt of a token for messages (bounded length, QuoteExcerpt), in '...'. */
std::string
Quote(const std::string& s)
{
    return QuoteExcerpt(s, 24, '\'');
}

/** Strict unsigned decimal: digits only, no sign, no overflow of `max`. */
bool
ParseUnsigned(const std::string& s, uint64_t max, uint64_t& out)
{
    if (s.empty())
    {
        return false;
    }
    uint64_t v = 0;
    for (char c : s)
    {
        if (c < '0' || c > '9')
        {
            return false;
        }
        const uint64_t d = static_cast<uint64_t>(c - '0');
        if (v > max / 10 || (v == max / 10 && d > max % 10))
        {
            return false;
        }
        v = v * 10 + d;
    }
    out = v;
    return true;
}

bool
LooksNumeric(const std::string& s)
{
    return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' ||
                          s[0] == '+' || s[0] == '.');
}

enum class TriggerKindRead
{
    NONE,
    ONESHOT,
    MULTISHOT,
    BARRIER
};

/** A connection as read, before trigger ids are resolved. */
struct ConnectionRead
{
    unsigned line = 0;
    bool hasId = false;
    uint64_t id = 0;
    bool hasTrigger = false;
    uint64_t trigger = 0;
    unsigned triggerLine = 0;
    bool hasSendDone = false;
    uint64_t sendDone = 0;
    bool hasRecvDone = false;
    uint64_t recvDone = 0;
};

struct TriggerRead
{
    unsigned line = 0;
    uint64_t id = 0;
    TriggerSpec::Kind kind = TriggerSpec::ONESHOT;
    uint32_t count = 1;
};

class CmReader
{
  public:
    explicit CmReader(std::string path)
        : m_path(std::move(path))
    {
    }

    HtsimConnectionMatrix Read();

  private:
    /** `key` is often a token of the file: one that is not a plain field name or SRC->DST
     *  pair (a line of a file that is not a .cm) is left out; the message quotes it bounded. */
    [[noreturn]] void Fail(unsigned line, const std::string& key, const std::string& msg) const
    {
        throw InputError(m_path, line, PlainKey(key), msg);
    }

    void ParseHeader(const std::vector<std::string>& tok, unsigned line);
    void ParseConnection(const std::vector<std::string>& tok, unsigned line);
    void ParseTrigger(const std::vector<std::string>& tok, unsigned line);
    uint64_t NeedUnsigned(const std::vector<std::string>& tok,
                          size_t& i,
                          unsigned line,
                          uint64_t max,
                          const std::string& what);
    uint64_t ParseStartPs(const std::string& s, unsigned line) const;
    void CheckCounts() const;
    void Resolve();
    void CheckEveryConnectionCanStart() const;

    struct Header
    {
        bool seen = false;
        unsigned line = 0;
        uint32_t value = 0;
    };

    std::string m_path;
    Header m_nodes;
    Header m_connections;
    Header m_triggers;
    Header m_failures;
    bool m_inBody = false;
    unsigned m_firstBodyLine = 0;
    std::vector<ConnectionRead> m_conns;
    std::vector<TriggerRead> m_trigs;
    std::map<uint64_t, size_t> m_triggerById; //!< trigger id -> index in m_trigs
    std::map<uint64_t, unsigned> m_explicitIds; //!< connection id -> line
    HtsimConnectionMatrix m_out;
};

HtsimConnectionMatrix
CmReader::Read()
{
    InputTextReader in(m_path, "connection matrix", InputTextReader::HASH_COMMENTS);
    m_out.workload.description = "htsim connection matrix " + m_path;

    while (in.NextLine())
    {
        const unsigned line = in.Line();
        const std::vector<std::string>& tok = in.Tokens();
        const std::string& first = tok[0];
        if (first == "Nodes" || first == "Connections" || first == "Triggers" ||
            first == "Failures")
        {
            ParseHeader(tok, line);
            continue;
        }
        const bool isConnection = first.find("->") != std::string::npos;
        if (!isConnection && first != "trigger" && first != "failure")
        {
            std::string msg = "unknown line start " + Quote(first);
            if (LooksNumeric(first))
            {
                msg += "; a connection is written SRC->DST with no blanks around '->' "
                       "(e.g. 3->7)";
            }
            else
            {
                msg += DidYouMean(first, kLineStarts);
            }
            msg += " (expected one of " + JoinList(kLineStarts) + ")";
            Fail(line, first, msg);
        }
        if (!m_inBody)
        {
            m_inBody = true;
            m_firstBodyLine = line;
            if (!m_nodes.seen)
            {
                Fail(line, "Nodes", "missing header 'Nodes N' before the first connection");
            }
            if (!m_connections.seen)
            {
                Fail(line,
                     "Connections",
                     "missing header 'Connections C' before the first connection");
            }
        }
        if (isConnection)
        {
            ParseConnection(tok, line);
        }
        else if (first == "trigger")
        {
            ParseTrigger(tok, line);
        }
        else
        {
            Fail(line,
                 "failure",
                 "htsim link failures (failure switch_type/switch_id/link_id) are not "
                 "imported from a connection matrix; declare the failure in the scenario's "
                 "failures list instead");
        }
    }
    if (!m_nodes.seen)
    {
        Fail(in.Line() ? 1 : 0, "Nodes", "missing header 'Nodes N' (the file has no connections)");
    }
    if (!m_connections.seen)
    {
        Fail(m_nodes.line, "Connections", "missing header 'Connections C'");
    }
    CheckCounts();
    Resolve();
    CheckEveryConnectionCanStart();
    m_out.nodes = m_nodes.value;
    return std::move(m_out);
}

void
CmReader::ParseHeader(const std::vector<std::string>& tok, unsigned line)
{
    const std::string& key = tok[0];
    if (m_inBody)
    {
        Fail(line,
             key,
             "header line after the first connection or trigger (line " +
                 std::to_string(m_firstBodyLine) + "); headers come first");
    }
    Header* h = key == "Nodes"         ? &m_nodes
                : key == "Connections" ? &m_connections
                : key == "Triggers"    ? &m_triggers
                                       : &m_failures;
    if (h->seen)
    {
        Fail(line, key, "header given twice (first on line " + std::to_string(h->line) + ")");
    }
    if (tok.size() < 2)
    {
        Fail(line, key, "missing value: expected '" + key + " <non-negative integer>'");
    }
    uint64_t v = 0;
    if (!ParseUnsigned(tok[1], std::numeric_limits<uint32_t>::max(), v))
    {
        Fail(line,
             key,
             "expected a non-negative integer below 2^32, got " + Quote(tok[1]));
    }
    if (tok.size() > 2)
    {
        Fail(line,
             key,
             "trailing garbage " + Quote(tok[2]) + " after '" + key + " " + tok[1] + "'");
    }
    if (key == "Nodes" && v == 0)
    {
        Fail(line, key, "expected at least 1 node, got 0");
    }
    h->seen = true;
    h->line = line;
    h->value = static_cast<uint32_t>(v);
}

uint64_t
CmReader::NeedUnsigned(const std::vector<std::string>& tok,
                       size_t& i,
                       unsigned line,
                       uint64_t max,
                       const std::string& what)
{
    const std::string& key = tok[i];
    if (i + 1 >= tok.size())
    {
        Fail(line, key, "missing value after '" + key + "': expected " + what);
    }
    ++i;
    uint64_t v = 0;
    if (!ParseUnsigned(tok[i], max, v))
    {
        std::string msg = "expected " + what + ", got " + Quote(tok[i]);
        if (!tok[i].empty() && tok[i][0] == '-')
        {
            msg += " (negative)";
        }
        else if (!tok[i].empty() && std::all_of(tok[i].begin(), tok[i].end(), [](char c) {
                     return c >= '0' && c <= '9';
                 }))
        {
            msg += " (too large)";
        }
        Fail(line, key, msg);
    }
    return v;
}

uint64_t
CmReader::ParseStartPs(const std::string& s, unsigned line) const
{
    const std::string expect = "expected a non-negative decimal number of microseconds "
                               "(e.g. 0, 12, 1.5), got " + Quote(s);
    if (!s.empty() && s[0] == '-')
    {
        Fail(line, "start", expect + " (negative)");
    }
    const size_t dot = s.find('.');
    const std::string intPart = s.substr(0, dot);
    const std::string fracPart = dot == std::string::npos ? "" : s.substr(dot + 1);
    auto digits = [](const std::string& t) {
        return std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if ((intPart.empty() && fracPart.empty()) || !digits(intPart) || !digits(fracPart))
    {
        Fail(line, "start", expect);
    }
    const uint64_t psPerUs = 1000000;
    const uint64_t maxUs = (std::numeric_limits<uint64_t>::max() - (psPerUs - 1)) / psPerUs;
    uint64_t us = 0;
    if (!intPart.empty() && !ParseUnsigned(intPart, maxUs, us))
    {
        Fail(line, "start", expect + " (too large: at most " + std::to_string(maxUs) + " us)");
    }
    uint64_t fracPs = 0;
    for (size_t k = 0; k < fracPart.size(); ++k)
    {
        const uint64_t d = static_cast<uint64_t>(fracPart[k] - '0');
        if (k < 6)
        {
            fracPs = fracPs * 10 + d;
        }
        else if (d != 0)
        {
            Fail(line,
                 "start",
                 "start time " + Quote(s) + " is finer than 1 ps (6 decimals of us)");
        }
    }
    for (size_t k = fracPart.size(); k < 6; ++k)
    {
        fracPs *= 10;
    }
    return us * psPerUs + fracPs;
}

void
CmReader::ParseConnection(const std::vector<std::string>& tok, unsigned line)
{
    const uint32_t nodes = m_nodes.value;
    const std::string& pair = tok[0];
    const size_t arrow = pair.find("->");
    const std::string srcText = pair.substr(0, arrow);
    const std::string dstText = pair.substr(arrow + 2);
    uint64_t src = 0;
    uint64_t dst = 0;
    if (!ParseUnsigned(srcText, std::numeric_limits<uint32_t>::max(), src))
    {
        Fail(line,
             "src",
             "expected SRC->DST with SRC a non-negative host id, got " + Quote(pair));
    }
    if (!ParseUnsigned(dstText, std::numeric_limits<uint32_t>::max(), dst))
    {
        Fail(line,
             "dst",
             "expected SRC->DST with DST a non-negative host id, got " + Quote(pair));
    }
    if (src >= nodes)
    {
        Fail(line,
             "src",
             "host " + std::to_string(src) + " out of range: Nodes " + std::to_string(nodes) +
                 " allows 0.." + std::to_string(nodes - 1));
    }
    if (dst >= nodes)
    {
        Fail(line,
             "dst",
             "host " + std::to_string(dst) + " out of range: Nodes " + std::to_string(nodes) +
                 " allows 0.." + std::to_string(nodes - 1));
    }
    if (src == dst)
    {
        Fail(line, "dst", "a connection from host " + std::to_string(src) + " to itself");
    }

    ConnectionRead c;
    c.line = line;
    TransferSpec t;
    t.src = static_cast<uint32_t>(src);
    t.dst = static_cast<uint32_t>(dst);
    t.qpGroup = static_cast<uint32_t>(m_conns.size());
    t.priority = 3;
    bool hasStart = false;
    bool hasSize = false;
    bool hasPrio = false;
    std::string lastKey;
    std::string lastValue;

    for (size_t i = 1; i < tok.size(); ++i)
    {
        const std::string& key = tok[i];
        auto once = [&](bool& flag) {
            if (flag)
            {
                Fail(line, key, "field '" + key + "' given twice");
            }
            flag = true;
        };
        if (key == "start")
        {
            once(hasStart);
            if (i + 1 >= tok.size())
            {
                Fail(line, key, "missing value after 'start': expected microseconds");
            }
            ++i;
            t.startPs = ParseStartPs(tok[i], line);
        }
        else if (key == "size")
        {
            once(hasSize);
            t.bytes = NeedUnsigned(tok, i, line, kMaxTransferBytes,
                                   "a positive number of bytes, at most 2^50 (1024 TiB)");
            if (t.bytes == 0)
            {
                Fail(line, key, "size 0: expected at least 1 byte");
            }
        }
        else if (key == "id")
        {
            once(c.hasId);
            c.id = NeedUnsigned(tok, i, line, std::numeric_limits<uint64_t>::max(),
                                "a positive connection id");
            if (c.id == 0)
            {
                Fail(line,
                     key,
                     "connection id 0 is not allowed (htsim reserves it); ids start at 1");
            }
            auto it = m_explicitIds.find(c.id);
            if (it != m_explicitIds.end())
            {
                Fail(line,
                     key,
                     "duplicate connection id " + std::to_string(c.id) + " (first on line " +
                         std::to_string(it->second) + ")");
            }
            m_explicitIds[c.id] = line;
        }
        else if (key == "trigger" || key == "send_done_trigger" || key == "recv_done_trigger")
        {
            bool& flag = key == "trigger"             ? c.hasTrigger
                         : key == "send_done_trigger" ? c.hasSendDone
                                                      : c.hasRecvDone;
            once(flag);
            const uint64_t v = NeedUnsigned(tok, i, line, std::numeric_limits<uint64_t>::max(),
                                            "a positive trigger id");
            if (v == 0)
            {
                Fail(line,
                     key,
                     "trigger id 0 is not allowed (htsim reads 0 as 'no trigger'); omit the field");
            }
            uint64_t& target = key == "trigger"             ? c.trigger
                               : key == "send_done_trigger" ? c.sendDone
                                                            : c.recvDone;
            target = v;
        }
        else if (key == "prio")
        {
            once(hasPrio);
            t.priority = static_cast<uint8_t>(
                NeedUnsigned(tok, i, line, 7, "a traffic class 0..7"));
        }
        else if (LooksNumeric(key))
        {
            if (lastKey.empty())
            {
                Fail(line, key, "unexpected value " + Quote(key) + " with no field name before it");
            }
            Fail(line,
                 lastKey,
                 "trailing garbage " + Quote(key) + " after '" + lastKey + " " + lastValue + "'");
        }
        else
        {
            Fail(line,
                 key,
                 "unknown token " + Quote(key) + " in a connection" +
                     DidYouMean(key, kConnectionFields) + " (valid: " +
                     JoinList(kConnectionFields) + ")");
        }
        lastKey = key;
        lastValue = tok[i];
    }

    if (!hasSize)
    {
        Fail(line, "size", "missing field 'size BYTES'");
    }
    if (hasStart && c.hasTrigger)
    {
        Fail(line,
             "trigger",
             "a connection starts either at 'start' or by 'trigger', not both");
    }
    if (!hasStart && !c.hasTrigger)
    {
        Fail(line, "start", "missing 'start MICROSECONDS' or 'trigger ID'");
    }
    if (c.hasTrigger)
    {
        t.startPs = 0; // starts when the trigger fires
    }
    t.externalId = c.hasId ? c.id : m_conns.size() + 1;
    m_conns.push_back(c);
    m_out.workload.transfers.push_back(t);
}

void
CmReader::ParseTrigger(const std::vector<std::string>& tok, unsigned line)
{
    TriggerRead tr;
    tr.line = line;
    bool hasId = false;
    bool hasCount = false;
    TriggerKindRead kind = TriggerKindRead::NONE;
    std::string lastKey;
    std::string lastValue;
    for (size_t i = 1; i < tok.size(); ++i)
    {
        const std::string& key = tok[i];
        if (key == "id")
        {
            if (hasId)
            {
                Fail(line, key, "field 'id' given twice");
            }
            hasId = true;
            tr.id = NeedUnsigned(tok, i, line, std::numeric_limits<uint64_t>::max(),
                                 "a positive trigger id");
            if (tr.id == 0)
            {
                Fail(line, key, "trigger id 0 is not allowed (htsim reserves it); ids start at 1");
            }
        }
        else if (key == "oneshot" || key == "multishot" || key == "barrier")
        {
            if (kind != TriggerKindRead::NONE)
            {
                Fail(line, key, "trigger type given twice (one of oneshot, multishot, barrier)");
            }
            kind = key == "oneshot"     ? TriggerKindRead::ONESHOT
                   : key == "multishot" ? TriggerKindRead::MULTISHOT
                                        : TriggerKindRead::BARRIER;
        }
        else if (key == "count")
        {
            if (hasCount)
            {
                Fail(line, key, "field 'count' given twice");
            }
            hasCount = true;
            const uint64_t v = NeedUnsigned(tok, i, line, std::numeric_limits<uint32_t>::max(),
                                            "a positive activation count");
            if (v == 0)
            {
                Fail(line, key, "count 0: a barrier needs at least 1 activation");
            }
            tr.count = static_cast<uint32_t>(v);
        }
        else if (LooksNumeric(key) && !lastKey.empty())
        {
            Fail(line,
                 lastKey,
                 "trailing garbage " + Quote(key) + " after '" + lastKey +
                     (lastValue == lastKey ? "" : " " + lastValue) + "'");
        }
        else
        {
            Fail(line,
                 key,
                 "unknown token " + Quote(key) + " in a trigger" +
                     DidYouMean(key, kTriggerFields) + " (valid: " + JoinList(kTriggerFields) +
                     ")");
        }
        lastKey = key;
        lastValue = tok[i];
    }
    if (!hasId)
    {
        Fail(line, "id", "trigger without 'id K'");
    }
    if (kind == TriggerKindRead::NONE)
    {
        Fail(line, "trigger", "trigger without a type: expected oneshot, multishot or barrier");
    }
    if (kind == TriggerKindRead::BARRIER && !hasCount)
    {
        Fail(line, "count", "a barrier needs 'count N' (activations before it fires)");
    }
    if (kind != TriggerKindRead::BARRIER && hasCount)
    {
        Fail(line, "count", "'count' applies only to barrier triggers");
    }
    auto it = m_triggerById.find(tr.id);
    if (it != m_triggerById.end())
    {
        Fail(line,
             "id",
             "duplicate trigger id " + std::to_string(tr.id) + " (first on line " +
                 std::to_string(m_trigs[it->second].line) + ")");
    }
    tr.kind = kind == TriggerKindRead::ONESHOT     ? TriggerSpec::ONESHOT
              : kind == TriggerKindRead::MULTISHOT ? TriggerSpec::MULTISHOT
                                                   : TriggerSpec::BARRIER;
    if (kind != TriggerKindRead::BARRIER)
    {
        tr.count = 1;
    }
    m_triggerById[tr.id] = m_trigs.size();
    m_trigs.push_back(tr);

    TriggerSpec ts;
    ts.kind = tr.kind;
    ts.threshold = tr.count;
    ts.externalId = tr.id;
    m_out.workload.triggers.push_back(ts);
}

void
CmReader::CheckCounts() const
{
    if (m_conns.size() != m_connections.value)
    {
        Fail(m_connections.line,
             "Connections",
             "header says " + std::to_string(m_connections.value) + " connections, the file has " +
                 std::to_string(m_conns.size()));
    }
    const uint32_t triggers = m_triggers.seen ? m_triggers.value : 0;
    if (m_trigs.size() != triggers)
    {
        Fail(m_triggers.seen ? m_triggers.line : m_connections.line,
             "Triggers",
             (m_triggers.seen ? "header says " + std::to_string(triggers)
                              : std::string("no 'Triggers T' header (so 0)")) +
                 " triggers, the file has " + std::to_string(m_trigs.size()));
    }
    const uint32_t failures = m_failures.seen ? m_failures.value : 0;
    if (failures != 0)
    {
        Fail(m_failures.line,
             "Failures",
             "header says " + std::to_string(failures) +
                 " failures; htsim link failures are not imported from a connection matrix "
                 "(declare them in the scenario's failures list)");
    }
}

void
CmReader::Resolve()
{
    // Connection externalIds (explicit ids, or 1-based position) must be unique.
    std::map<uint64_t, size_t> byExternal;
    for (size_t k = 0; k < m_conns.size(); ++k)
    {
        const uint64_t ext = m_out.workload.transfers[k].externalId;
        auto ins = byExternal.emplace(ext, k);
        if (!ins.second)
        {
            const ConnectionRead& a = m_conns[ins.first->second];
            const ConnectionRead& b = m_conns[k];
            const ConnectionRead& noId = !b.hasId ? b : a;
            const ConnectionRead& other = !b.hasId ? a : b;
            Fail(noId.line,
                 "id",
                 "this connection has no id, so it is numbered by its position (" +
                     std::to_string(ext) + "), which the connection on line " +
                     std::to_string(other.line) + " uses as its id; give every connection an id");
        }
    }

    auto resolve = [this](uint64_t id, unsigned line, const char* key) -> uint32_t {
        auto it = m_triggerById.find(id);
        if (it == m_triggerById.end())
        {
            Fail(line,
                 key,
                 "trigger " + std::to_string(id) + " is not defined (no 'trigger id " +
                     std::to_string(id) + " ...' line)");
        }
        return static_cast<uint32_t>(it->second);
    };
    for (size_t k = 0; k < m_conns.size(); ++k)
    {
        const ConnectionRead& c = m_conns[k];
        TransferSpec& t = m_out.workload.transfers[k];
        if (c.hasTrigger)
        {
            t.trigger = static_cast<int32_t>(resolve(c.trigger, c.line, "trigger"));
        }
        if (c.hasSendDone)
        {
            t.onSendDone.push_back(resolve(c.sendDone, c.line, "send_done_trigger"));
        }
        if (c.hasRecvDone)
        {
            t.onRecvDone.push_back(resolve(c.recvDone, c.line, "recv_done_trigger"));
        }
    }
}

/*
 * Every connection must be able to start: propagate starts from the connections with a start
 * time, assuming each started connection completes (activating its send_done and recv_done
 * triggers once each), with htsim's firing rules. A connection left unstarted waits forever
 * (a cycle, or too few activations for a barrier or multishot); htsim would silently never
 * run it.
 */
void
CmReader::CheckEveryConnectionCanStart() const
{
    const auto& transfers = m_out.workload.transfers;
    const size_t nt = m_trigs.size();
    std::vector<std::vector<size_t>> waiting(nt);
    for (size_t k = 0; k < transfers.size(); ++k)
    {
        if (transfers[k].trigger >= 0)
        {
            waiting[static_cast<size_t>(transfers[k].trigger)].push_back(k);
        }
    }
    std::vector<bool> started(transfers.size(), false);
    std::vector<uint64_t> activations(nt, 0);
    std::vector<size_t> nextWaiter(nt, 0);
    std::deque<size_t> queue;
    for (size_t k = 0; k < transfers.size(); ++k)
    {
        if (transfers[k].trigger < 0)
        {
            started[k] = true;
            queue.push_back(k);
        }
    }
    auto start = [&](size_t k) {
        if (!started[k])
        {
            started[k] = true;
            queue.push_back(k);
        }
    };
    auto activate = [&](uint32_t j) {
        ++activations[j];
        const TriggerRead& tr = m_trigs[j];
        switch (tr.kind)
        {
        case TriggerSpec::ONESHOT:
            if (activations[j] == 1)
            {
                for (size_t k : waiting[j])
                {
                    start(k);
                }
            }
            break;
        case TriggerSpec::BARRIER:
            if (activations[j] == tr.count)
            {
                for (size_t k : waiting[j])
                {
                    start(k);
                }
            }
            break;
        case TriggerSpec::MULTISHOT:
            if (nextWaiter[j] < waiting[j].size())
            {
                start(waiting[j][nextWaiter[j]++]);
            }
            break;
        }
    };
    while (!queue.empty())
    {
        const size_t k = queue.front();
        queue.pop_front();
        for (uint32_t j : transfers[k].onSendDone)
        {
            activate(j);
        }
        for (uint32_t j : transfers[k].onRecvDone)
        {
            activate(j);
        }
    }
    for (size_t k = 0; k < transfers.size(); ++k)
    {
        if (started[k])
        {
            continue;
        }
        const size_t j = static_cast<size_t>(transfers[k].trigger);
        const TriggerRead& tr = m_trigs[j];
        std::string why;
        switch (tr.kind)
        {
        case TriggerSpec::ONESHOT:
            why = "oneshot trigger " + std::to_string(tr.id) + " (line " +
                  std::to_string(tr.line) +
                  ") is never activated by a connection that can start (no such connection "
                  "names it in send_done_trigger / recv_done_trigger, or they wait on it: a "
                  "cycle)";
            break;
        case TriggerSpec::BARRIER:
            why = "barrier trigger " + std::to_string(tr.id) + " (line " +
                  std::to_string(tr.line) + ") needs count " + std::to_string(tr.count) +
                  " activations, but connections that can start give it only " +
                  std::to_string(activations[j]);
            break;
        case TriggerSpec::MULTISHOT:
            why = "multishot trigger " + std::to_string(tr.id) + " (line " +
                  std::to_string(tr.line) + ") starts one waiting connection per activation: " +
                  std::to_string(waiting[j].size()) + " wait on it, but connections that can " +
                  "start activate it only " + std::to_string(activations[j]) + " time(s)";
            break;
        }
        Fail(m_conns[k].line, "trigger", "this connection can never start: " + why);
    }
}

} // namespace

HtsimConnectionMatrix
ReadHtsimConnectionMatrix(const std::string& path)
{
    CmReader reader(path);
    return reader.Read();
}

WorkloadSpec
ReadHtsimCm(const std::string& path)
{
    return ReadHtsimConnectionMatrix(path).workload;
}

} // namespace ns3
