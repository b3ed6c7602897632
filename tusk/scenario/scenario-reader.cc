#include "scenario/scenario-reader.h"

#include "fabric/model/input-excerpt.h"

#include "scenario/scenario-text.h"
#include "scenario/scenario-toml.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace tusk
{

using ns3::InputError;

const char* const kSetFile = "--set";

namespace
{

/** Largest host list the reader expands when the topology's host count is not known. */
constexpr uint64_t kMaxHostList = 1ULL << 24;

} // namespace

namespace
{
/** A value of the scenario in an error message: quoted, control characters escaped (they
 *  must not reach the terminal), at most 160 bytes. */
std::string
QuoteValue(const std::string& s)
{
    return ns3::QuoteExcerpt(s, 160);
}
} // namespace

std::string
Describe(const toml::node& n)
{
    switch (n.type())
    {
    case toml::node_type::string:
        return "the string " + QuoteValue(n.as_string()->get());
    case toml::node_type::integer:
        return "the integer " + std::to_string(n.as_integer()->get());
    case toml::node_type::floating_point: {
        std::string f = FormatDouble(n.as_floating_point()->get());
        if (f.find_first_of(".eni") == std::string::npos)
        {
            f += ".0"; // as TOML writes a whole float
        }
        return "the float " + f;
    }
    case toml::node_type::boolean:
        return std::string("the boolean ") + (n.as_boolean()->get() ? "true" : "false");
    case toml::node_type::array:
        return "an array";
    case toml::node_type::table:
        return "a table";
    case toml::node_type::date:
        return "a date";
    case toml::node_type::time:
        return "a time";
    case toml::node_type::date_time:
        return "a date-time";
    default:
        return "nothing";
    }
}

bool
IsIdentifier(const std::string& s)
{
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    {
        return false;
    }
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

bool
IsAttributePath(const std::string& s)
{
    size_t parts = 0;
    size_t start = 0;
    while (true)
    {
        size_t sep = s.find("::", start);
        if (!IsIdentifier(s.substr(start, sep == std::string::npos ? std::string::npos
                                                                   : sep - start)))
        {
            return false;
        }
        ++parts;
        if (sep == std::string::npos)
        {
            break;
        }
        start = sep + 2;
    }
    return parts >= 2;
}

ScenarioReader::ScenarioReader(std::string file, std::filesystem::path baseDir)
    : m_file(std::move(file)),
      m_baseDir(std::move(baseDir))
{
}

unsigned
ScenarioReader::LineOf(const toml::node* n) const
{
    if (n == nullptr || FromOverride(n))
    {
        return 0;
    }
    return static_cast<unsigned>(n->source().begin.line);
}

void
ScenarioReader::Fail(const toml::node* n, const std::string& key, const std::string& message) const
{
    throw InputError(FromOverride(n) ? kSetFile : m_file, LineOf(n), key, message);
}

uint64_t
ScenarioReader::TimePs(const toml::node* n,
                       const std::string& key,
                       uint64_t scale,
                       bool positive,
                       uint64_t lo,
                       uint64_t hi) const
{
    const uint64_t ps = Scaled(n, key, scale, positive, lo, hi);
    if (ps > 0 && ps < 1000)
    {
        Fail(n, key, "expected 0 or at least 1 ns (0.001 us); got " + std::to_string(ps) + " ps");
    }
    return ps;
}

const toml::node*
ScenarioReader::Get(const toml::table& t, const std::string& path, const std::string& key)
{
    const toml::node* n = t.get(key);
    if (n != nullptr)
    {
        (*m_keyLines)[path.empty() ? key : path + "." + key] = LineOf(n);
    }
    return n;
}

const toml::table&
ScenarioReader::Table(const toml::node* n, const std::string& path) const
{
    if (!n->is_table())
    {
        Fail(n, path, "expected a table ([" + path + "]); got " + Describe(*n));
    }
    return *n->as_table();
}

const toml::table*
ScenarioReader::SectionTable(const toml::table& root, const std::string& key)
{
    const toml::node* n = Get(root, "", key);
    return n == nullptr ? nullptr : &Table(n, key);
}

void
ScenarioReader::CheckKeys(const toml::table& t,
                  const std::string& prefix,
                  const std::vector<std::string>& valid,
                  const std::map<std::string, std::string>& elsewhere) const
{
    for (auto&& [k, v] : t)
    {
        const std::string key(k.str());
        if (std::find(valid.begin(), valid.end(), key) != valid.end())
        {
            continue;
        }
        const std::string full = prefix.empty() ? key : prefix + "." + key;
        auto it = elsewhere.find(key);
        if (it != elsewhere.end())
        {
            Fail(&v, full, it->second);
        }
        const std::string where = prefix.empty() ? "at the top level" : "in [" + prefix + "]";
        Fail(&v,
             full,
             "unknown key `" + key + "` " + where + "; did you mean `" + ClosestKey(key, valid) +
                 "`?");
    }
}

void
ScenarioReader::CheckKindKeys(const toml::table& t,
                      const std::string& prefix,
                      const std::string& kind,
                      const std::vector<KindKey>& rules) const
{
    std::vector<std::string> valid = {"kind"};
    std::map<std::string, std::string> elsewhere;
    for (const auto& rule : rules)
    {
        if (std::find(rule.kinds.begin(), rule.kinds.end(), kind) != rule.kinds.end())
        {
            valid.push_back(rule.key);
        }
        else
        {
            elsewhere[rule.key] = "`" + rule.key + "` is valid only when " + prefix +
                                  ".kind is " + OneOf(rule.kinds) + "; here " + prefix +
                                  ".kind is " + QuoteValue(kind);
        }
    }
    CheckKeys(t, prefix, valid, elsewhere);
}

int64_t
ScenarioReader::Int(const toml::node* n, const std::string& key, int64_t lo, int64_t hi) const
{
    // An upper bound that is only the storage type's limit is not worth naming unless hit.
    const bool typeLimit = hi == std::numeric_limits<int64_t>::max() ||
                           hi == std::numeric_limits<uint32_t>::max();
    const std::string atLeast = "an integer >= " + std::to_string(lo);
    const std::string inRange = "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
    if (!n->is_integer())
    {
        Fail(n, key, "expected " + (typeLimit ? atLeast : inRange) + "; got " + Describe(*n));
    }
    int64_t v = n->as_integer()->get();
    if (v < lo || v > hi)
    {
        Fail(n,
             key,
             "expected " + (typeLimit && v < lo ? atLeast : inRange) + "; got " +
                 std::to_string(v));
    }
    return v;
}

uint64_t
ScenarioReader::Scaled(const toml::node* n,
                       const std::string& key,
                       uint64_t scale,
                       bool positive,
                       uint64_t lo,
                       uint64_t hi) const
{
    const std::string expect = positive ? "a number > 0" : "a number >= 0";
    const uint64_t max = std::numeric_limits<uint64_t>::max();
    // A value other than 0 outside [lo, hi] (in the internal unit, before rounding).
    auto checkRange = [&](long double internal, const std::string& got) {
        if (internal == 0 || (lo == 0 && hi == max) ||
            (internal >= static_cast<long double>(lo) && internal <= static_cast<long double>(hi)))
        {
            return;
        }
        Fail(n, key, "expected " + RangeText(lo, hi, scale, !positive) + "; got " + got);
    };
    if (n->is_integer())
    {
        int64_t v = n->as_integer()->get();
        if (v < 0 || (positive && v == 0))
        {
            Fail(n, key, "expected " + expect + "; got " + std::to_string(v));
        }
        checkRange(static_cast<long double>(v) * scale, std::to_string(v));
        if (static_cast<uint64_t>(v) > max / scale)
        {
            Fail(n, key, "expected " + expect + " small enough to fit; got " + std::to_string(v));
        }
        return static_cast<uint64_t>(v) * scale;
    }
    if (n->is_floating_point())
    {
        double v = n->as_floating_point()->get();
        if (!std::isfinite(v) || v < 0 || (positive && v == 0))
        {
            Fail(n, key, "expected " + expect + "; got " + FormatDouble(v));
        }
        checkRange(static_cast<long double>(v) * scale, FormatDouble(v));
        double scaled = std::round(v * static_cast<double>(scale));
        if (scaled >= 18446744073709551615.0)
        {
            Fail(n, key, "expected " + expect + " small enough to fit; got " + FormatDouble(v));
        }
        if (positive && scaled < 1)
        {
            Fail(n,
                 key,
                 "expected " + expect + "; got " + FormatDouble(v) +
                     ", which rounds to 0 in the internal unit (1/" + std::to_string(scale) +
                     " of the key's unit)");
        }
        return static_cast<uint64_t>(scaled);
    }
    Fail(n, key, "expected " + expect + "; got " + Describe(*n));
}

bool
ScenarioReader::Bool(const toml::node* n, const std::string& key) const
{
    if (!n->is_boolean())
    {
        Fail(n, key, "expected true or false; got " + Describe(*n));
    }
    return n->as_boolean()->get();
}

std::string
ScenarioReader::String(const toml::node* n, const std::string& key) const
{
    if (n->is_string())
    {
        return n->as_string()->get();
    }
    // `--set name=2024` parses as an integer; a string key takes the text as typed.
    auto raw = m_rawText.find(n);
    if (raw != m_rawText.end() && n->is_value())
    {
        return raw->second;
    }
    Fail(n, key, "expected a string; got " + Describe(*n));
}

std::string
ScenarioReader::Choice(const toml::node* n,
               const std::string& key,
               const std::vector<std::string>& allowed) const
{
    // Not a string (`steady_jump = true`): say which strings, not only that one was expected.
    if (!n->is_string() && (m_rawText.find(n) == m_rawText.end() || !n->is_value()))
    {
        Fail(n, key, "expected " + OneOf(allowed) + " (a string); got " + Describe(*n));
    }
    std::string s = String(n, key);
    if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
    {
        Fail(n, key, "expected " + OneOf(allowed) + "; got " + QuoteValue(s));
    }
    return s;
}

uint64_t
ScenarioReader::Bytes(const toml::node* n, const std::string& key, uint64_t lo, uint64_t hi) const
{
    const std::string range = hi == std::numeric_limits<uint64_t>::max()
                                  ? ">= " + std::to_string(lo)
                                  : "in " + std::to_string(lo) + ".." + SizeBoundText(hi);
    const std::string expect =
        "expected a size in bytes " + range +
        ": an integer or a string like \"64MiB\" or \"2GB\" (kB, MB, GB, TB = powers of 1000; "
        "KiB, MiB, GiB, TiB = powers of 1024)";
    uint64_t bytes = 0;
    if (n->is_integer())
    {
        int64_t v = n->as_integer()->get();
        if (v < 0)
        {
            Fail(n, key, expect + "; got " + std::to_string(v));
        }
        bytes = static_cast<uint64_t>(v);
    }
    else if (n->is_string())
    {
        std::string why;
        if (!ParseSizeString(n->as_string()->get(), bytes, why))
        {
            Fail(n, key, expect + "; got " + QuoteValue(n->as_string()->get()) + " (" + why + ")");
        }
    }
    else
    {
        Fail(n, key, expect + "; got " + Describe(*n));
    }
    if (bytes < lo || bytes > hi)
    {
        Fail(n, key, expect + "; got " + std::to_string(bytes) + " bytes");
    }
    return bytes;
}

std::string
ScenarioReader::ScalarText(const toml::node* n, const std::string& key) const
{
    switch (n->type())
    {
    case toml::node_type::string:
        return n->as_string()->get();
    case toml::node_type::integer:
        return std::to_string(n->as_integer()->get());
    case toml::node_type::floating_point:
        return FormatDouble(n->as_floating_point()->get());
    case toml::node_type::boolean:
        return n->as_boolean()->get() ? "true" : "false";
    default:
        Fail(n, key, "expected a string, number or boolean; got " + Describe(*n));
    }
}

std::string
ScenarioReader::AbsolutePath(const toml::node* n, const std::string& key) const
{
    namespace fs = std::filesystem;
    const std::string text = String(n, key);
    if (text.empty())
    {
        Fail(n, key, "expected a path; got an empty string");
    }
    fs::path p(text);
    std::error_code ec;
    if (p.is_relative())
    {
        // Paths in the file are relative to the file's directory; paths given with --set to
        // the current directory, like any command-line path.
        fs::path base = FromOverride(n) ? fs::current_path(ec) : m_baseDir;
        p = base / p;
    }
    return fs::absolute(p, ec).lexically_normal().string();
}

std::string
ScenarioReader::FilePath(const toml::node* n, const std::string& key) const
{
    namespace fs = std::filesystem;
    const std::string text = String(n, key);
    if (text.empty())
    {
        Fail(n, key, "expected a file path; got an empty string");
    }
    const fs::path p = AbsolutePath(n, key);
    std::error_code ec;
    if (!fs::exists(p, ec))
    {
        Fail(n, key, "expected an existing file; got " + QuoteValue(text) + " (" + p.string() +
                         " does not exist)");
    }
    if (!fs::is_regular_file(p, ec))
    {
        Fail(n, key, "expected a regular file; got " + QuoteValue(text) + " (" + p.string() +
                         " is not a regular file)");
    }
    return p.string();
}

uint32_t
ScenarioReader::HostId(const toml::node* n, const std::string& key, uint64_t hostCount) const
{
    if (hostCount > 0)
    {
        if (n->is_integer() && n->as_integer()->get() >= static_cast<int64_t>(hostCount))
        {
            Fail(n,
                 key,
                 "expected a host id in 0.." + std::to_string(hostCount - 1) +
                     " (the topology has " + std::to_string(hostCount) + " hosts); got " +
                     std::to_string(n->as_integer()->get()));
        }
    }
    return U32(n, key, 0);
}

std::vector<uint32_t>
ScenarioReader::HostList(const toml::node* n, const std::string& key, uint64_t hostCount) const
{
    const uint64_t limit = hostCount > 0 ? hostCount : kMaxHostList;
    const std::string expect =
        "expected host ids: an array of integers like [0, 1, 2], a range like \"0-15\" or a "
        "list of ranges like \"0-3,8-11\"";
    std::vector<uint32_t> hosts;
    auto add = [&](uint64_t h) {
        if (h >= limit)
        {
            Fail(n,
                 key,
                 hostCount > 0 ? "expected host ids in 0.." + std::to_string(hostCount - 1) +
                                     " (the topology has " + std::to_string(hostCount) +
                                     " hosts); got " + std::to_string(h)
                               : "expected host ids below " + std::to_string(limit) +
                                     "; got " + std::to_string(h));
        }
        hosts.push_back(static_cast<uint32_t>(h));
    };
    if (n->is_array())
    {
        for (auto&& e : *n->as_array())
        {
            if (!e.is_integer() || e.as_integer()->get() < 0)
            {
                Fail(n, key, expect + "; got an array holding " + Describe(e));
            }
            add(static_cast<uint64_t>(e.as_integer()->get()));
        }
    }
    else if (n->is_string())
    {
        const std::string text = n->as_string()->get();
        std::stringstream ss(text);
        std::string part;
        bool any = false;
        auto parseNumber = [&](const std::string& s, uint64_t& v) {
            std::string t = Trim(s);
            if (t.empty() || t.size() > 18 ||
                !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
            {
                return false;
            }
            v = std::stoull(t);
            return true;
        };
        while (std::getline(ss, part, ','))
        {
            any = true;
            uint64_t a = 0;
            uint64_t b = 0;
            auto dash = part.find('-');
            bool ok = dash == std::string::npos
                          ? parseNumber(part, a) && ((b = a), true)
                          : parseNumber(part.substr(0, dash), a) &&
                                parseNumber(part.substr(dash + 1), b);
            if (!ok)
            {
                Fail(n, key, expect + "; got " + QuoteValue(text) + " (bad part " +
                                 QuoteValue(Trim(part)) + ")");
            }
            if (b < a)
            {
                Fail(n, key, expect + "; got " + QuoteValue(text) + " (range " + QuoteValue(Trim(part)) +
                                 " runs backwards)");
            }
            if (b >= limit)
            {
                add(b); // fails with the range message
            }
            for (uint64_t h = a; h <= b; ++h)
            {
                add(h);
            }
        }
        if (!any || text.back() == ',')
        {
            Fail(n, key, expect + "; got " + QuoteValue(text));
        }
    }
    else
    {
        Fail(n, key, expect + "; got " + Describe(*n));
    }
    std::vector<uint32_t> sorted = hosts;
    std::sort(sorted.begin(), sorted.end());
    auto dup = std::adjacent_find(sorted.begin(), sorted.end());
    if (dup != sorted.end())
    {
        Fail(n, key, "expected distinct host ids; host " + std::to_string(*dup) +
                         " is listed twice");
    }
    return hosts;
}

double
ScenarioReader::Real(const toml::node* n, const std::string& key, double lo, double hi) const
{
    double v = 0;
    if (auto i = n->as_integer())
    {
        v = static_cast<double>(i->get());
    }
    else if (auto f = n->as_floating_point())
    {
        v = f->get();
    }
    else
    {
        Fail(n, key, "expected a number; got " + Describe(*n));
    }
    if (!(v >= lo && v <= hi))
    {
        Fail(n, key, "expected a number in [" + FormatDouble(lo) + ", " + FormatDouble(hi) +
                         "]; got " + FormatDouble(v));
    }
    return v;
}

const toml::array*
ScenarioReader::TableArray(const toml::table& t,
                   const std::string& path,
                   const std::string& key,
                   const std::string& what)
{
    const toml::node* n = Get(t, path, key);
    if (n == nullptr)
    {
        return nullptr;
    }
    const std::string expect = "expected an array of tables ([[" + key + "]], " + what + ")";
    if (!n->is_array())
    {
        Fail(n, key, expect + "; got " + Describe(*n));
    }
    for (auto&& e : *n->as_array())
    {
        if (!e.is_table())
        {
            Fail(&e, key, expect + "; got an array holding " + Describe(e));
        }
    }
    return n->as_array();
}


} // namespace tusk
