/*
 * tusk: the scenario file layer (see scenario-toml.h and docs/scenario-format.md).
 *
 * Flow: parse the TOML text (toml++), apply the `--set` overrides to the parsed table, then
 * validate every table against its list of valid keys and read every key into ScenarioSpec,
 * converting TOML units (ns, us, ms, Gbps, size strings) into internal units (ps, bit/s, bytes).
 * The first problem found throws ns3::InputError(file, line, key, message).
 */
#include "scenario-toml.h"

#include "fabric/model/input-error.h"
#include "lb-policies/policy-registry.h"
#include "workload/model/background-traffic.h"
#include "workload/model/collective-schedule.h"
#include "workload/model/job-model.h"
#include "workload/model/simai-workload.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace tusk
{

// kDefaultScenarioToml is generated at build time from scenarios/default.toml
// (tusk/CMakeLists.txt), so the file and the built-in default cannot drift apart.

namespace
{

using ns3::InputError;

/** The file name of errors in `--set` overrides. */
const char* const kSetFile = "--set";

/** Largest host list the loader expands when the topology's host count is not known. */
constexpr uint64_t kMaxHostList = 1ULL << 24;

// Internal units per TOML unit.
constexpr uint64_t kPsPerNs = 1000ULL;
constexpr uint64_t kPsPerUs = 1000ULL * 1000ULL;
constexpr uint64_t kPsPerMs = 1000ULL * 1000ULL * 1000ULL;
constexpr uint64_t kBpsPerGbps = 1000ULL * 1000ULL * 1000ULL;

const std::vector<std::string> kTopologyKinds = {"leaf-spine", "fat-tree", "htsim", "ring",
                                                 "rail-optimised", "pod-clos", "hpcc"};
const std::vector<std::string> kWorkloadKinds =
    {"ring-allreduce", "permutation", "incast", "htsim", "flows", "jobs", "hpcc"};
const std::vector<std::string> kRingOrders = {"rank", "rail-aligned"};
/** Congestion-control algorithms the NIC implements. */
const std::vector<std::string> kCongestionControls = {"none", "dcqcn", "nscc"};

/** A key that is valid only for some values of its table's `kind`. */
struct KindKey
{
    std::string key;
    std::vector<std::string> kinds;
};

const std::vector<KindKey> kTopologyKeys = {
    {"leaves", {"leaf-spine"}},
    {"spines", {"leaf-spine", "rail-optimised"}},
    {"hosts_per_leaf", {"leaf-spine"}},
    {"links_per_spine", {"leaf-spine", "rail-optimised"}},
    {"k", {"fat-tree"}},
    {"oversubscription", {"fat-tree", "pod-clos"}},
    {"host_link_gbps", {"leaf-spine", "fat-tree", "rail-optimised", "pod-clos"}},
    {"fabric_link_gbps", {"leaf-spine", "fat-tree", "rail-optimised"}},
    {"link_delay_ns", {"leaf-spine", "fat-tree", "ring", "rail-optimised", "pod-clos"}},
    {"switch_latency_ns", {"leaf-spine", "fat-tree", "rail-optimised", "pod-clos"}},
    {"file", {"htsim", "hpcc"}},
    {"switches", {"ring"}},
    {"hosts_per_switch", {"ring"}},
    {"link_gbps", {"ring"}},
    {"clockwise_routes", {"ring"}},
    {"servers", {"rail-optimised"}},
    {"gpus_per_server", {"rail-optimised"}},
    {"servers_per_group", {"rail-optimised"}},
    {"pods", {"pod-clos"}},
    {"racks_per_pod", {"pod-clos"}},
    {"hosts_per_rack", {"pod-clos"}},
    {"cluster_switches", {"pod-clos"}},
    {"aggregation_switches", {"pod-clos"}},
};

const std::vector<KindKey> kWorkloadKeys = {
    {"bytes", {"ring-allreduce", "permutation", "incast"}},
    {"hosts", {"ring-allreduce", "permutation", "incast"}},
    {"channels", {"ring-allreduce"}},
    {"incast_dst", {"incast"}},
    {"start_us", {"ring-allreduce", "permutation", "incast", "hpcc"}},
    {"file", {"htsim", "hpcc"}},
    {"flows", {"flows"}},
    {"watchdog_ms", {"ring-allreduce", "permutation", "incast", "htsim", "flows", "jobs", "hpcc"}},
};

std::string
Quote(const std::string& s)
{
    std::string out = "\"";
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
            out += c;
        }
        else if (c == '\n')
        {
            out += "\\n";
        }
        else
        {
            out += c;
        }
    }
    return out + "\"";
}

std::string
Trim(const std::string& s)
{
    const char* ws = " \t\r\n";
    auto b = s.find_first_not_of(ws);
    if (b == std::string::npos)
    {
        return "";
    }
    auto e = s.find_last_not_of(ws);
    return s.substr(b, e - b + 1);
}

/** Shortest decimal text that reads back as exactly `v`. */
std::string
FormatDouble(double v)
{
    if (std::isnan(v))
    {
        return "nan";
    }
    if (std::isinf(v))
    {
        return v > 0 ? "inf" : "-inf";
    }
    char buf[64];
    if (v == std::floor(v) && std::fabs(v) < 1e15)
    {
        std::snprintf(buf, sizeof(buf), "%.0f", v);
        return buf;
    }
    for (int precision = 1; precision <= 17; ++precision)
    {
        std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
        if (std::strtod(buf, nullptr) == v)
        {
            break;
        }
    }
    return buf;
}

/** "a", "a or b", "a, b or c" of quoted strings. */
std::string
OneOf(const std::vector<std::string>& values)
{
    std::string s;
    for (size_t i = 0; i < values.size(); ++i)
    {
        if (i > 0)
        {
            s += (i + 1 == values.size()) ? " or " : ", ";
        }
        s += Quote(values[i]);
    }
    return s;
}

/** Levenshtein edit distance (insert, delete, substitute, each cost 1). */
size_t
EditDistance(const std::string& a, const std::string& b)
{
    std::vector<size_t> prev(b.size() + 1);
    std::vector<size_t> cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
    {
        prev[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i)
    {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
        {
            size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

/** `key` without a trailing unit suffix ("link_delay_ns" -> "link_delay"). */
std::string
KeyStem(const std::string& key)
{
    static const std::vector<std::string> kUnits = {"ps", "ns", "us", "ms", "s", "sec",
                                                    "gbps", "mbps", "bps", "bytes", "byte",
                                                    "b", "kb", "kib", "mb", "mib", "gb", "gib"};
    auto us = key.rfind('_');
    if (us != std::string::npos && us > 0)
    {
        std::string suffix = key.substr(us + 1);
        std::transform(suffix.begin(), suffix.end(), suffix.begin(), [](unsigned char c) {
            return static_cast<char>(std::tolower(c));
        });
        if (std::find(kUnits.begin(), kUnits.end(), suffix) != kUnits.end())
        {
            return key.substr(0, us);
        }
    }
    return key;
}

/**
 * The valid key nearest to `key` by Levenshtein distance (first of the nearest in list order).
 * A key with the same stem (the unit suffix missing or different: "mtu", "link_delay_us") is
 * preferred over any other.
 */
std::string
ClosestKey(const std::string& key, const std::vector<std::string>& valid)
{
    std::string best;
    std::pair<int, size_t> bestScore = {2, std::numeric_limits<size_t>::max()};
    for (const auto& v : valid)
    {
        int sameStem = KeyStem(key) == KeyStem(v) ? 0 : 1;
        std::pair<int, size_t> score = {sameStem, EditDistance(key, v)};
        if (score < bestScore)
        {
            bestScore = score;
            best = v;
        }
    }
    return best;
}

/** The value of a node for "got ..." in messages. */
std::string
Describe(const toml::node& n)
{
    switch (n.type())
    {
    case toml::node_type::string:
        return "the string " + Quote(n.as_string()->get());
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

/** "ns3::RdmaNic::AckInterval": at least two identifiers joined by "::". */
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

/** Append `extra` to v with overflow check; false on overflow. */
bool
CheckedMulAdd(unsigned __int128& v, unsigned __int128 mul, unsigned __int128 add)
{
    const unsigned __int128 max = ~static_cast<unsigned __int128>(0);
    if (mul != 0 && v > (max - add) / mul)
    {
        return false;
    }
    v = v * mul + add;
    return true;
}

/** Reads and validates one parsed scenario. */
class Loader
{
  public:
    Loader(std::string file, std::filesystem::path baseDir)
        : m_file(std::move(file)),
          m_baseDir(std::move(baseDir))
    {
    }

    /** Apply one `key.path=value` override to the parsed document. */
    void ApplyOverride(toml::table& root, const std::string& text);

    /** Before the overrides: remember the file's `kind` of [topology] and [workload]. */
    void RememberFileKinds(const toml::table& root);

    /**
     * After the overrides: where `--set` changed a table's `kind` ([topology], [workload]),
     * drop the file's keys that apply only to other kinds, so that `--set topology.kind=htsim
     * --set topology.file=x.topo` works on a leaf-spine scenario. Keys shared with the new
     * kind, keys set with --set and unknown keys stay (and are checked as usual).
     */
    void DropOtherKindKeys(toml::table& root) const;

    /** Validate the whole document into a spec. */
    ScenarioSpec Read(const toml::table& root);

  private:
    // --- origin of nodes and errors ---
    bool FromOverride(const toml::node* n) const
    {
        return n != nullptr && m_overrideNodes.count(n) > 0;
    }

    unsigned LineOf(const toml::node* n) const
    {
        if (n == nullptr || FromOverride(n))
        {
            return 0;
        }
        return static_cast<unsigned>(n->source().begin.line);
    }

    [[noreturn]] void Fail(const toml::node* n,
                           const std::string& key,
                           const std::string& message) const
    {
        throw InputError(FromOverride(n) ? kSetFile : m_file, LineOf(n), key, message);
    }

    /** Remember n and everything inside it as coming from --set. */
    void MarkOverride(const toml::node* n);
    /** Forget what MarkOverride remembered about n and everything inside it. */
    void Forget(const toml::node* n);

    // --- tables and keys ---
    /** Child `key` of table t (nullptr if absent); records its line under `path`. */
    const toml::node* Get(const toml::table& t, const std::string& path, const std::string& key);

    /** The table in node n (key `path`), or an error. */
    const toml::table& Table(const toml::node* n, const std::string& path) const;

    /**
     * Every key of t must be in `valid`; a key in `elsewhere` gets that message, any other
     * names the closest valid key.
     */
    void CheckKeys(const toml::table& t,
                   const std::string& prefix,
                   const std::vector<std::string>& valid,
                   const std::map<std::string, std::string>& elsewhere = {}) const;

    /** CheckKeys for a table whose valid keys depend on its `kind`. */
    void CheckKindKeys(const toml::table& t,
                       const std::string& prefix,
                       const std::string& kind,
                       const std::vector<KindKey>& rules) const;

    // --- values ---
    int64_t Int(const toml::node* n, const std::string& key, int64_t lo, int64_t hi) const;
    uint32_t U32(const toml::node* n, const std::string& key, uint32_t lo) const
    {
        return static_cast<uint32_t>(Int(n, key, lo, std::numeric_limits<uint32_t>::max()));
    }
    /** A number (integer or float) in TOML units, times `scale`, rounded to an integer. */
    uint64_t Scaled(const toml::node* n,
                    const std::string& key,
                    uint64_t scale,
                    bool positive) const;
    bool Bool(const toml::node* n, const std::string& key) const;
    /** Scaled() for a time in ps that ns-3 timers take: 0 or at least 1 ns. */
    uint64_t TimePs(const toml::node* n, const std::string& key, uint64_t scale, bool positive) const
    {
        const uint64_t ps = Scaled(n, key, scale, positive);
        if (ps > 0 && ps < 1000)
        {
            Fail(n, key, "expected 0 or at least 1 ns (0.001 us); got " + std::to_string(ps) + " ps");
        }
        return ps;
    }
    /** A number (integer or float) in [lo, hi]. */
    double Real(const toml::node* n, const std::string& key, double lo, double hi) const;
    std::string String(const toml::node* n, const std::string& key) const;
    std::string Choice(const toml::node* n,
                       const std::string& key,
                       const std::vector<std::string>& allowed) const;
    /** An integer or a size string, in [lo, hi] bytes. */
    uint64_t Bytes(const toml::node* n, const std::string& key, uint64_t lo, uint64_t hi) const;
    /** A scalar as text: strings as-is, numbers and booleans as TOML writes them. */
    std::string ScalarText(const toml::node* n, const std::string& key) const;
    /** An existing regular file, made absolute. */
    std::string FilePath(const toml::node* n, const std::string& key) const;
    /** An array of host ids or a range string; ids < hostCount when hostCount > 0. */
    std::vector<uint32_t> HostList(const toml::node* n,
                                   const std::string& key,
                                   uint64_t hostCount) const;
    uint32_t HostId(const toml::node* n, const std::string& key, uint64_t hostCount) const;

    // --- sections ---
    void ReadTopology(const toml::table& root, ScenarioSpec& spec);
    void ReadFabric(const toml::table& root, ScenarioSpec& spec);
    void ReadNic(const toml::table& root, ScenarioSpec& spec);
    void ReadBuffer(const toml::table& root, ScenarioSpec& spec);
    void ReadPfc(const toml::table& root, ScenarioSpec& spec);
    void ReadEcn(const toml::table& root, ScenarioSpec& spec);
    void ReadDcqcn(const toml::table& root, ScenarioSpec& spec);
    void ReadLb(const toml::table& root, ScenarioSpec& spec);
    void ReadWorkload(const toml::table& root, ScenarioSpec& spec);
    void ReadJobs(const toml::table& root, ScenarioSpec& spec);
    void ReadJob(const toml::node& n, const std::string& path, size_t index, ScenarioSpec& spec);
    void ReadBackground(const toml::table& root, ScenarioSpec& spec);
    void ReadFailures(const toml::table& root, ScenarioSpec& spec);
    void ReadScaleUp(const toml::table& root, ScenarioSpec& spec);
    /** An array of tables ([[name]]) at the top level; nullptr if absent. */
    const toml::array* TableArray(const toml::table& t, const std::string& path,
                                  const std::string& key, const std::string& what);
    void ReadOutput(const toml::table& root, ScenarioSpec& spec);
    void ReadSimulator(const toml::table& root, ScenarioSpec& spec);
    void ReadNs3(const toml::table& root, ScenarioSpec& spec);

    std::string m_file;               //!< error file name
    std::filesystem::path m_baseDir;  //!< directory relative paths in the file are based on
    std::set<const toml::node*> m_overrideNodes;          //!< nodes created by --set
    std::map<const toml::node*, std::string> m_rawText;   //!< --set value text by value node
    std::map<std::string, unsigned>* m_keyLines = nullptr; //!< spec.keyLines being filled
    uint64_t m_hostCount = 0;         //!< hosts of the topology; 0 = not known here (htsim)
    std::map<std::string, std::string> m_fileKinds; //!< table -> its kind in the file
};

void
Loader::MarkOverride(const toml::node* n)
{
    m_overrideNodes.insert(n);
    if (auto* t = n->as_table())
    {
        for (auto&& [k, v] : *t)
        {
            MarkOverride(&v);
        }
    }
    else if (auto* a = n->as_array())
    {
        for (auto&& v : *a)
        {
            MarkOverride(&v);
        }
    }
}

void
Loader::Forget(const toml::node* n)
{
    m_overrideNodes.erase(n);
    m_rawText.erase(n);
    if (auto* t = n->as_table())
    {
        for (auto&& [k, v] : *t)
        {
            Forget(&v);
        }
    }
    else if (auto* a = n->as_array())
    {
        for (auto&& v : *a)
        {
            Forget(&v);
        }
    }
}

void
Loader::ApplyOverride(toml::table& root, const std::string& text)
{
    const std::string syntax =
        "expected KEY.PATH=VALUE, e.g. lb.policy=spray or workload.bytes=1GiB; got " +
        Quote(text);
    auto eq = text.find('=');
    if (eq == std::string::npos)
    {
        throw InputError(kSetFile, 0, Trim(text), syntax);
    }
    const std::string keyText = Trim(text.substr(0, eq));
    const std::string valueText = Trim(text.substr(eq + 1));

    // Split the key path: bare segments separated by '.', or "quoted" segments.
    std::vector<std::string> segs;
    size_t i = 0;
    while (true)
    {
        std::string seg;
        if (i < keyText.size() && keyText[i] == '"')
        {
            auto close = keyText.find('"', i + 1);
            if (close == std::string::npos)
            {
                throw InputError(kSetFile, 0, keyText, "unterminated quoted key; " + syntax);
            }
            seg = keyText.substr(i + 1, close - i - 1);
            i = close + 1;
            if (i < keyText.size() && keyText[i] != '.')
            {
                throw InputError(kSetFile,
                                 0,
                                 keyText,
                                 "'.' expected after a quoted key; " + syntax);
            }
        }
        else
        {
            auto dot = keyText.find('.', i);
            seg = keyText.substr(i, dot == std::string::npos ? std::string::npos : dot - i);
            i = dot == std::string::npos ? keyText.size() : dot;
            if (seg.empty() ||
                seg.find_first_of(" \t\"") != std::string::npos)
            {
                throw InputError(kSetFile, 0, keyText, "empty or malformed key segment; " + syntax);
            }
        }
        segs.push_back(seg);
        if (i >= keyText.size())
        {
            break;
        }
        ++i; // the '.'
        if (i >= keyText.size())
        {
            throw InputError(kSetFile, 0, keyText, "key ends with '.'; " + syntax);
        }
    }
    // The keys of [ns3] and [lb.attributes] are free-form: everything after the table's path
    // is one key (an ns-3 path has no '.', but be lenient).
    auto joinFrom = [&segs](size_t from) {
        std::string k = segs[from];
        for (size_t j = from + 1; j < segs.size(); ++j)
        {
            k += "." + segs[j];
        }
        segs.resize(from);
        segs.push_back(k);
    };
    if (segs.size() > 2 && segs[0] == "ns3")
    {
        joinFrom(1);
    }
    else if (segs.size() > 3 && segs[0] == "lb" && segs[1] == "attributes")
    {
        joinFrom(2);
    }

    // Walk to the parent table, creating missing tables.
    toml::table* table = &root;
    std::string path;
    for (size_t s = 0; s + 1 < segs.size(); ++s)
    {
        path += (s ? "." : "") + segs[s];
        toml::node* child = table->get(segs[s]);
        if (child == nullptr)
        {
            table->insert(segs[s], toml::table{});
            child = table->get(segs[s]);
            MarkOverride(child);
        }
        if (!child->is_table())
        {
            throw InputError(kSetFile,
                             0,
                             keyText,
                             "cannot set a key inside `" + path + "`: it is " + Describe(*child) +
                                 ", not a table (set `" + path + "` as a whole instead)");
        }
        table = child->as_table();
    }

    // The value: a TOML value if it parses as one, else the text as a string.
    const std::string& last = segs.back();
    if (const toml::node* old = table->get(last))
    {
        Forget(old); // its memory may be reused by the new value
    }
    bool parsed = false;
    try
    {
        toml::table v = toml::parse(std::string_view("v = " + valueText),
                                    std::string_view(kSetFile));
        const toml::node* value = v.get("v");
        if (v.size() == 1 && value != nullptr)
        {
            value->visit([&](auto&& x) { table->insert_or_assign(last, x); });
            parsed = true;
        }
    }
    catch (const toml::parse_error&)
    {
    }
    if (!parsed)
    {
        table->insert_or_assign(last, valueText);
    }
    const toml::node* inserted = table->get(last);
    MarkOverride(inserted);
    m_rawText[inserted] = valueText;
}

/** The tables whose valid keys depend on their `kind`, with the default kind. */
const std::vector<std::tuple<std::string, std::string, const std::vector<KindKey>*>>
    kKindTables = {{"topology", "leaf-spine", &kTopologyKeys},
                   {"workload", "ring-allreduce", &kWorkloadKeys}};

void
Loader::RememberFileKinds(const toml::table& root)
{
    for (const auto& [name, defaultKind, rules] : kKindTables)
    {
        const toml::table* t = root.get_as<toml::table>(name);
        const toml::node* kind = t ? t->get("kind") : nullptr;
        m_fileKinds[name] = kind == nullptr       ? defaultKind
                            : kind->is_string() ? kind->as_string()->get()
                                                : "";
    }
}

void
Loader::DropOtherKindKeys(toml::table& root) const
{
    for (const auto& [name, defaultKind, rules] : kKindTables)
    {
        toml::table* t = root.get_as<toml::table>(name);
        const toml::node* kind = t ? t->get("kind") : nullptr;
        if (kind == nullptr || !FromOverride(kind) || !kind->is_string() ||
            kind->as_string()->get() == m_fileKinds.at(name))
        {
            continue;
        }
        const std::string k = kind->as_string()->get();
        for (const auto& rule : *rules)
        {
            const toml::node* n = t->get(rule.key);
            bool other = std::find(rule.kinds.begin(), rule.kinds.end(), k) == rule.kinds.end();
            if (n != nullptr && other && !FromOverride(n))
            {
                t->erase(rule.key);
            }
        }
    }
}

const toml::node*
Loader::Get(const toml::table& t, const std::string& path, const std::string& key)
{
    const toml::node* n = t.get(key);
    if (n != nullptr)
    {
        (*m_keyLines)[path.empty() ? key : path + "." + key] = LineOf(n);
    }
    return n;
}

const toml::table&
Loader::Table(const toml::node* n, const std::string& path) const
{
    if (!n->is_table())
    {
        Fail(n, path, "expected a table ([" + path + "]); got " + Describe(*n));
    }
    return *n->as_table();
}

void
Loader::CheckKeys(const toml::table& t,
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
Loader::CheckKindKeys(const toml::table& t,
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
                                  ".kind is " + Quote(kind);
        }
    }
    CheckKeys(t, prefix, valid, elsewhere);
}

int64_t
Loader::Int(const toml::node* n, const std::string& key, int64_t lo, int64_t hi) const
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
Loader::Scaled(const toml::node* n, const std::string& key, uint64_t scale, bool positive) const
{
    const std::string expect = positive ? "a number > 0" : "a number >= 0";
    const uint64_t max = std::numeric_limits<uint64_t>::max();
    if (n->is_integer())
    {
        int64_t v = n->as_integer()->get();
        if (v < 0 || (positive && v == 0))
        {
            Fail(n, key, "expected " + expect + "; got " + std::to_string(v));
        }
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
Loader::Bool(const toml::node* n, const std::string& key) const
{
    if (!n->is_boolean())
    {
        Fail(n, key, "expected true or false; got " + Describe(*n));
    }
    return n->as_boolean()->get();
}

std::string
Loader::String(const toml::node* n, const std::string& key) const
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
Loader::Choice(const toml::node* n,
               const std::string& key,
               const std::vector<std::string>& allowed) const
{
    std::string s = String(n, key);
    if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
    {
        Fail(n, key, "expected " + OneOf(allowed) + "; got " + Quote(s));
    }
    return s;
}

uint64_t
Loader::Bytes(const toml::node* n, const std::string& key, uint64_t lo, uint64_t hi) const
{
    const std::string range = hi == std::numeric_limits<uint64_t>::max()
                                  ? ">= " + std::to_string(lo)
                                  : "in " + std::to_string(lo) + ".." + std::to_string(hi);
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
            Fail(n, key, expect + "; got " + Quote(n->as_string()->get()) + " (" + why + ")");
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
Loader::ScalarText(const toml::node* n, const std::string& key) const
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
Loader::FilePath(const toml::node* n, const std::string& key) const
{
    namespace fs = std::filesystem;
    const std::string text = String(n, key);
    if (text.empty())
    {
        Fail(n, key, "expected a file path; got an empty string");
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
    p = fs::absolute(p, ec).lexically_normal();
    if (!fs::exists(p, ec))
    {
        Fail(n, key, "expected an existing file; got " + Quote(text) + " (" + p.string() +
                         " does not exist)");
    }
    if (!fs::is_regular_file(p, ec))
    {
        Fail(n, key, "expected a regular file; got " + Quote(text) + " (" + p.string() +
                         " is not a regular file)");
    }
    return p.string();
}

uint32_t
Loader::HostId(const toml::node* n, const std::string& key, uint64_t hostCount) const
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
Loader::HostList(const toml::node* n, const std::string& key, uint64_t hostCount) const
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
                Fail(n, key, expect + "; got " + Quote(text) + " (bad part " +
                                 Quote(Trim(part)) + ")");
            }
            if (b < a)
            {
                Fail(n, key, expect + "; got " + Quote(text) + " (range " + Quote(Trim(part)) +
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
            Fail(n, key, expect + "; got " + Quote(text));
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

void
Loader::ReadTopology(const toml::table& root, ScenarioSpec& spec)
{
    const toml::node* tn = Get(root, "", "topology");
    if (tn == nullptr)
    {
        const auto& p = spec.topology.leafSpine;
        m_hostCount = uint64_t(p.leaves) * p.hostsPerLeaf;
        return;
    }
    const toml::table& t = Table(tn, "topology");
    const std::string P = "topology";
    auto& topo = spec.topology;
    if (const toml::node* n = Get(t, P, "kind"))
    {
        topo.kind = Choice(n, "topology.kind", kTopologyKinds);
    }
    CheckKindKeys(t, P, topo.kind, kTopologyKeys);

    auto get = [&](const char* key) { return Get(t, P, key); };
    auto K = [&](const char* key) { return P + "." + key; };
    // A count key: an integer >= lo.
    auto readU32 = [&](const char* key, uint32_t& field, uint32_t lo) {
        if (auto* n = get(key))
        {
            field = U32(n, K(key), lo);
        }
    };
    // The link keys every Clos kind shares: host and fabric rates, delay, switch latency.
    auto readLinks = [&](uint64_t& hostRate, uint64_t& fabricRate, uint64_t& delay, uint64_t& latency) {
        if (auto* n = get("host_link_gbps"))
        {
            hostRate = Scaled(n, K("host_link_gbps"), kBpsPerGbps, true);
        }
        if (auto* n = get("fabric_link_gbps"))
        {
            fabricRate = Scaled(n, K("fabric_link_gbps"), kBpsPerGbps, true);
        }
        if (auto* n = get("link_delay_ns"))
        {
            delay = Scaled(n, K("link_delay_ns"), kPsPerNs, false);
        }
        if (auto* n = get("switch_latency_ns"))
        {
            latency = Scaled(n, K("switch_latency_ns"), kPsPerNs, false);
        }
    };
    if (topo.kind == "leaf-spine")
    {
        auto& p = topo.leafSpine;
        readU32("leaves", p.leaves, 1);
        readU32("spines", p.spines, 1);
        readU32("hosts_per_leaf", p.hostsPerLeaf, 1);
        readU32("links_per_spine", p.linksPerSpine, 1);
        readLinks(p.hostRateBps, p.fabricRateBps, p.linkDelayPs, p.switchLatencyPs);
        m_hostCount = uint64_t(p.leaves) * p.hostsPerLeaf;
    }
    else if (topo.kind == "fat-tree")
    {
        auto& p = topo.fatTree;
        if (auto* n = get("k"))
        {
            p.k = U32(n, K("k"), 2);
            if (p.k % 2 != 0)
            {
                Fail(n, K("k"), "expected an even integer >= 2; got " + std::to_string(p.k));
            }
        }
        readU32("oversubscription", p.oversubscription, 1);
        readLinks(p.hostRateBps, p.fabricRateBps, p.linkDelayPs, p.switchLatencyPs);
        // k^3/4 * oversubscription, saturating (the builder rejects absurd sizes itself).
        unsigned __int128 hosts = static_cast<unsigned __int128>(p.k) * p.k * p.k / 4 *
                                  p.oversubscription;
        m_hostCount = hosts > std::numeric_limits<uint64_t>::max()
                          ? std::numeric_limits<uint64_t>::max()
                          : static_cast<uint64_t>(hosts);
    }
    else if (topo.kind == "ring")
    {
        auto& p = topo.ring;
        readU32("switches", p.switches, 3);
        readU32("hosts_per_switch", p.hostsPerSwitch, 1);
        if (auto* n = get("link_gbps"))
        {
            p.rateBps = Scaled(n, K("link_gbps"), kBpsPerGbps, true);
        }
        if (auto* n = get("link_delay_ns"))
        {
            p.delayPs = Scaled(n, K("link_delay_ns"), kPsPerNs, false);
        }
        if (auto* n = get("clockwise_routes"))
        {
            p.clockwiseRoutes = Bool(n, K("clockwise_routes"));
        }
        m_hostCount = uint64_t(p.switches) * p.hostsPerSwitch;
    }
    else if (topo.kind == "rail-optimised")
    {
        auto& p = topo.rail;
        readU32("servers", p.servers, 1);
        readU32("gpus_per_server", p.gpusPerServer, 1);
        if (auto* n = get("servers_per_group"))
        {
            p.serversPerGroup = U32(n, K("servers_per_group"), 0);
            if (p.serversPerGroup > 0 && p.servers % p.serversPerGroup != 0)
            {
                Fail(n, K("servers_per_group"),
                     "expected 0 (all servers) or a divisor of servers (" +
                         std::to_string(p.servers) + "); got " +
                         std::to_string(p.serversPerGroup));
            }
        }
        readU32("spines", p.spines, 1);
        readU32("links_per_spine", p.linksPerSpine, 1);
        readLinks(p.hostRateBps, p.fabricRateBps, p.linkDelayPs, p.switchLatencyPs);
        m_hostCount = uint64_t(p.servers) * p.gpusPerServer;
    }
    else if (topo.kind == "pod-clos")
    {
        auto& p = topo.podClos;
        readU32("pods", p.pods, 1);
        readU32("racks_per_pod", p.racksPerPod, 1);
        readU32("hosts_per_rack", p.hostsPerRack, 1);
        readU32("cluster_switches", p.clusterSwitches, 1);
        readU32("aggregation_switches", p.aggregationSwitches, 1);
        if (auto* n = get("oversubscription"))
        {
            const bool number = n->is_integer() || n->is_floating_point();
            const double v = n->is_integer() ? static_cast<double>(n->as_integer()->get())
                             : n->is_floating_point() ? n->as_floating_point()->get()
                                                      : 0.0;
            if (!number || !std::isfinite(v) || v < 1)
            {
                Fail(n, K("oversubscription"), "expected a ratio >= 1 (7 for 1:7); got " +
                                                   Describe(*n));
            }
            p.oversubscription = v;
        }
        if (auto* n = get("host_link_gbps"))
        {
            p.hostRateBps = Scaled(n, K("host_link_gbps"), kBpsPerGbps, true);
        }
        if (auto* n = get("link_delay_ns"))
        {
            p.linkDelayPs = Scaled(n, K("link_delay_ns"), kPsPerNs, false);
        }
        if (auto* n = get("switch_latency_ns"))
        {
            p.switchLatencyPs = Scaled(n, K("switch_latency_ns"), kPsPerNs, false);
        }
        m_hostCount = uint64_t(p.pods) * p.racksPerPod * p.hostsPerRack;
    }
    else // htsim, hpcc
    {
        const toml::node* n = get("file");
        if (n == nullptr)
        {
            Fail(tn, K("file"), "required when topology.kind is " + Quote(topo.kind) + ": the " +
                                    (topo.kind == "htsim" ? ".topo file" : "topology.txt file"));
        }
        topo.file = FilePath(n, K("file"));
        m_hostCount = 0; // known only once the file is read
    }
}

void
Loader::ReadFabric(const toml::table& root, ScenarioSpec& spec)
{
    const toml::node* tn = Get(root, "", "fabric");
    if (tn == nullptr)
    {
        return;
    }
    const toml::table& t = Table(tn, "fabric");
    CheckKeys(t,
              "fabric",
              {"phy_overhead_bytes", "reconvergence_us"},
              {{"port_queue_bytes",
                "switch buffers are set in [buffer] (total_bytes, thresholds, headroom)"}});
    if (auto* n = Get(t, "fabric", "reconvergence_us"))
    {
        spec.fabric.reconvergencePs = TimePs(n, "fabric.reconvergence_us", kPsPerUs, false);
    }
    if (auto* n = Get(t, "fabric", "phy_overhead_bytes"))
    {
        spec.fabric.phyOverheadBytes =
            static_cast<uint32_t>(Bytes(n, "fabric.phy_overhead_bytes", 0, 1024));
    }
}

void
Loader::ReadNic(const toml::table& root, ScenarioSpec& spec)
{
    const toml::node* tn = Get(root, "", "nic");
    if (tn == nullptr)
    {
        return;
    }
    const toml::table& t = Table(tn, "nic");
    const std::string P = "nic";
    CheckKeys(t,
              P,
              {"mtu_bytes",
               "ack_interval",
               "rto_us",
               "qps_per_connection",
               "qp_scaling",
               "qp_message_bytes",
               "qp_entropy",
               "receiver",
               "transport",
               "cnp_on_ooo",
               "congestion_control",
               "data_priority",
               "control_priority"});
    auto& nic = spec.nic;
    if (auto* n = Get(t, P, "qp_scaling"))
    {
        nic.qpScaling = Choice(n, "nic.qp_scaling", {"split", "round-robin"});
    }
    if (auto* n = Get(t, P, "qp_message_bytes"))
    {
        nic.qpMessageBytes =
            Bytes(n, "nic.qp_message_bytes", 1, std::numeric_limits<uint64_t>::max());
    }
    if (auto* n = Get(t, P, "qp_entropy"))
    {
        nic.qpEntropy = Choice(n, "nic.qp_entropy", {"random", "sequential", "shared"});
    }
    if (auto* n = Get(t, P, "receiver"))
    {
        nic.receiver = Choice(n, "nic.receiver", {"go-back-n", "selective-repeat"});
    }
    if (auto* n = Get(t, P, "transport"))
    {
        nic.transport = Choice(n, "nic.transport", {"roce", "uec-rod", "uec-rud"});
        if (nic.transport != "roce" && Get(t, P, "receiver") != nullptr)
        {
            Fail(n,
                 "nic.transport",
                 "nic.receiver cannot be set with transport \"" + nic.transport +
                     "\": uec-rod is go-back-N and uec-rud selective repeat");
        }
    }
    if (auto* n = Get(t, P, "cnp_on_ooo"))
    {
        nic.cnpOnOutOfOrder = Bool(n, "nic.cnp_on_ooo");
    }
    if (auto* n = Get(t, P, "mtu_bytes"))
    {
        nic.mtuBytes = static_cast<uint32_t>(Bytes(n, "nic.mtu_bytes", 256, 9000));
    }
    if (auto* n = Get(t, P, "ack_interval"))
    {
        nic.ackInterval = U32(n, "nic.ack_interval", 1);
    }
    if (auto* n = Get(t, P, "rto_us"))
    {
        nic.rtoPs = TimePs(n, "nic.rto_us", kPsPerUs, true);
    }
    if (auto* n = Get(t, P, "qps_per_connection"))
    {
        nic.qpsPerConnection = static_cast<uint32_t>(Int(n, "nic.qps_per_connection", 1, 1024));
    }
    if (auto* n = Get(t, P, "congestion_control"))
    {
        nic.congestionControl = Choice(n, "nic.congestion_control", kCongestionControls);
    }
    if (auto* n = Get(t, P, "data_priority"))
    {
        nic.dataPriority = static_cast<uint8_t>(Int(n, "nic.data_priority", 0, 7));
    }
    if (auto* n = Get(t, P, "control_priority"))
    {
        nic.controlPriority = static_cast<uint8_t>(Int(n, "nic.control_priority", 0, 7));
    }
    if (nic.transport != "roce" && nic.rtoPs < kUecMinRtoPs)
    {
        const toml::node* n = Get(t, P, "rto_us");
        Fail(n ? n : Get(t, P, "transport"),
             n ? "nic.rto_us" : "nic.transport",
             "the UEC-style transports need a retransmission timeout (nic.rto_us) of at least " +
                 FormatDouble(kUecMinRtoPs / 1e6) + " us; got " + FormatDouble(nic.rtoPs / 1e6) +
                 " us");
    }
}

double
Loader::Real(const toml::node* n, const std::string& key, double lo, double hi) const
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

void
Loader::ReadBuffer(const toml::table& root, ScenarioSpec& spec)
{
    const toml::node* tn = Get(root, "", "buffer");
    if (tn == nullptr)
    {
        return;
    }
    const toml::table& t = Table(tn, "buffer");
    const std::string P = "buffer";
    CheckKeys(t,
              P,
              {"total_bytes",
               "reserved_bytes",
               "threshold",
               "alpha",
               "egress_alpha",
               "static_threshold_bytes",
               "headroom_bytes",
               "xon_offset_bytes"});
    auto& b = spec.buffer;
    const uint64_t maxBytes = std::numeric_limits<uint64_t>::max();
    if (auto* n = Get(t, P, "total_bytes"))
    {
        b.totalBytes = Bytes(n, "buffer.total_bytes", 1, maxBytes);
    }
    if (auto* n = Get(t, P, "reserved_bytes"))
    {
        b.reservedBytes = Bytes(n, "buffer.reserved_bytes", 0, maxBytes);
    }
    if (auto* n = Get(t, P, "threshold"))
    {
        b.dynamicThreshold = Choice(n, "buffer.threshold", {"dynamic", "static"}) == "dynamic";
    }
    if (auto* n = Get(t, P, "alpha"))
    {
        b.alpha = Real(n, "buffer.alpha", 1.0 / 1024, 64);
    }
    if (auto* n = Get(t, P, "egress_alpha"))
    {
        b.egressAlpha = Real(n, "buffer.egress_alpha", 1.0 / 1024, 64);
    }
    if (auto* n = Get(t, P, "static_threshold_bytes"))
    {
        b.staticThresholdBytes = Bytes(n, "buffer.static_threshold_bytes", 1, maxBytes);
    }
    if (auto* n = Get(t, P, "headroom_bytes"))
    {
        b.headroomBytes = Bytes(n, "buffer.headroom_bytes", 0, maxBytes);
    }
    if (auto* n = Get(t, P, "xon_offset_bytes"))
    {
        b.xonOffsetBytes = Bytes(n, "buffer.xon_offset_bytes", 0, maxBytes);
    }
}

void
Loader::ReadPfc(const toml::table& root, ScenarioSpec& spec)
{
    const toml::node* tn = Get(root, "", "pfc");
    if (tn == nullptr)
    {
        return;
    }
    const toml::table& t = Table(tn, "pfc");
    const std::string P = "pfc";
    CheckKeys(t,
              P,
              {"enabled",
               "lossless_priorities",
               "pause_quanta",
               "refresh_us",
               "deadlock_detect_us",
               "watchdog_us",
               "watchdog_recovery_us",
               "watchdog_action"});
    auto& p = spec.pfc;
    if (auto* n = Get(t, P, "enabled"))
    {
        p.enabled = Bool(n, "pfc.enabled");
    }
    if (auto* n = Get(t, P, "lossless_priorities"))
    {
        const toml::array* a = n->as_array();
        if (a == nullptr)
        {
            Fail(n, "pfc.lossless_priorities", "expected an array of priorities 0..7, e.g. [3]");
        }
        p.losslessPriorities.clear();
        for (const auto& e : *a)
        {
            p.losslessPriorities.push_back(
                static_cast<uint8_t>(Int(&e, "pfc.lossless_priorities", 0, 7)));
        }
    }
    if (auto* n = Get(t, P, "pause_quanta"))
    {
        p.pauseQuanta = static_cast<uint16_t>(Int(n, "pfc.pause_quanta", 1, 65535));
    }
    if (auto* n = Get(t, P, "refresh_us"))
    {
        p.refreshPs = TimePs(n, "pfc.refresh_us", kPsPerUs, false);
    }
    if (auto* n = Get(t, P, "deadlock_detect_us"))
    {
        p.deadlockDetectPs = TimePs(n, "pfc.deadlock_detect_us", kPsPerUs, false);
    }
    if (auto* n = Get(t, P, "watchdog_us"))
    {
        p.watchdogPs = TimePs(n, "pfc.watchdog_us", kPsPerUs, false);
    }
    if (auto* n = Get(t, P, "watchdog_recovery_us"))
    {
        p.watchdogRecoveryPs = TimePs(n, "pfc.watchdog_recovery_us", kPsPerUs, true);
    }
    if (auto* n = Get(t, P, "watchdog_action"))
    {
        p.watchdogAction = Choice(n, "pfc.watchdog_action", {"drop", "forward"});
    }
}

void
Loader::ReadEcn(const toml::table& root, ScenarioSpec& spec)
{
    const toml::node* tn = Get(root, "", "ecn");
    if (tn == nullptr)
    {
        return;
    }
    const toml::table& t = Table(tn, "ecn");
    const std::string P = "ecn";
    CheckKeys(t, P, {"enabled", "kmin_bytes", "kmax_bytes", "pmax", "by_rate"});
    auto& e = spec.ecn;
    const uint64_t maxBytes = std::numeric_limits<uint64_t>::max();
    bool fallbackKeys = false;
    if (auto* n = Get(t, P, "enabled"))
    {
        e.enabled = Bool(n, "ecn.enabled");
    }
    if (auto* n = Get(t, P, "kmin_bytes"))
    {
        e.fallback.kminBytes = Bytes(n, "ecn.kmin_bytes", 0, maxBytes);
        fallbackKeys = true;
    }
    if (auto* n = Get(t, P, "kmax_bytes"))
    {
        e.fallback.kmaxBytes = Bytes(n, "ecn.kmax_bytes", 1, maxBytes);
        fallbackKeys = true;
    }
    if (auto* n = Get(t, P, "pmax"))
    {
        e.fallback.pmax = Real(n, "ecn.pmax", 0, 1);
        fallbackKeys = true;
    }
    if (e.fallback.kmaxBytes <= e.fallback.kminBytes)
    {
        Fail(Get(t, P, "kmax_bytes"), "ecn.kmax_bytes", "expected kmax_bytes > kmin_bytes");
    }
    e.thresholdsGiven = fallbackKeys || Get(t, P, "by_rate") != nullptr;
    if (auto* n = Get(t, P, "by_rate"))
    {
        const toml::array* a = n->as_array();
        if (a == nullptr)
        {
            Fail(n, "ecn.by_rate", "expected an array of tables [[ecn.by_rate]] with gbps, "
                                   "kmin_bytes, kmax_bytes, pmax");
        }
        for (const auto& entry : *a)
        {
            const toml::table& r = Table(&entry, "ecn.by_rate");
            CheckKeys(r, "ecn.by_rate", {"gbps", "kmin_bytes", "kmax_bytes", "pmax"});
            const toml::node* g = Get(r, "ecn.by_rate", "gbps");
            if (g == nullptr)
            {
                Fail(&entry, "ecn.by_rate.gbps", "every [[ecn.by_rate]] entry needs gbps");
            }
            const uint64_t rate = Scaled(g, "ecn.by_rate.gbps", kBpsPerGbps, true);
            EcnThresholds th = e.fallback;
            if (auto* x = Get(r, "ecn.by_rate", "kmin_bytes"))
            {
                th.kminBytes = Bytes(x, "ecn.by_rate.kmin_bytes", 0, maxBytes);
            }
            if (auto* x = Get(r, "ecn.by_rate", "kmax_bytes"))
            {
                th.kmaxBytes = Bytes(x, "ecn.by_rate.kmax_bytes", 1, maxBytes);
            }
            if (auto* x = Get(r, "ecn.by_rate", "pmax"))
            {
                th.pmax = Real(x, "ecn.by_rate.pmax", 0, 1);
            }
            if (th.kmaxBytes <= th.kminBytes)
            {
                Fail(&entry, "ecn.by_rate.kmax_bytes", "expected kmax_bytes > kmin_bytes");
            }
            e.byRate[rate] = th;
        }
        e.fallbackGiven = fallbackKeys;
    }
}

void
Loader::ReadDcqcn(const toml::table& root, ScenarioSpec& spec)
{
    const toml::node* tn = Get(root, "", "dcqcn");
    if (tn == nullptr)
    {
        return;
    }
    const toml::table& t = Table(tn, "dcqcn");
    const std::string P = "dcqcn";
    CheckKeys(t,
              P,
              {"preset",
               "g",
               "initial_alpha",
               "alpha_update_us",
               "timer_us",
               "byte_counter_bytes",
               "fast_recovery_stages",
               "rate_ai_mbps",
               "rate_hai_mbps",
               "min_rate_mbps",
               "rate_on_first_cnp_gbps",
               "clamp_target_rate",
               "min_decrease_interval_us",
               "cnp_interval_us"});
    auto& d = spec.dcqcn;
    if (auto* n = Get(t, P, "preset"))
    {
        d.preset = Choice(n, "dcqcn.preset", {"paper", "hpcc"});
    }
    const uint64_t maxBytes = std::numeric_limits<uint64_t>::max();
    if (auto* n = Get(t, P, "g"))
    {
        d.g = Real(n, "dcqcn.g", 0, 1);
    }
    if (auto* n = Get(t, P, "initial_alpha"))
    {
        d.initialAlpha = Real(n, "dcqcn.initial_alpha", 0, 1);
    }
    if (auto* n = Get(t, P, "alpha_update_us"))
    {
        d.alphaUpdatePs = TimePs(n, "dcqcn.alpha_update_us", kPsPerUs, true);
    }
    if (auto* n = Get(t, P, "timer_us"))
    {
        d.timerPs = TimePs(n, "dcqcn.timer_us", kPsPerUs, true);
    }
    if (auto* n = Get(t, P, "min_decrease_interval_us"))
    {
        d.minDecreaseIntervalPs = TimePs(n, "dcqcn.min_decrease_interval_us", kPsPerUs, false);
    }
    if (auto* n = Get(t, P, "byte_counter_bytes"))
    {
        d.byteCounterBytes = Bytes(n, "dcqcn.byte_counter_bytes", 0, maxBytes);
    }
    if (auto* n = Get(t, P, "fast_recovery_stages"))
    {
        d.fastRecoveryStages = static_cast<uint32_t>(Int(n, "dcqcn.fast_recovery_stages", 0, 1000));
    }
    if (auto* n = Get(t, P, "rate_ai_mbps"))
    {
        d.rateAiBps = Scaled(n, "dcqcn.rate_ai_mbps", 1'000'000, false);
    }
    if (auto* n = Get(t, P, "rate_hai_mbps"))
    {
        d.rateHaiBps = Scaled(n, "dcqcn.rate_hai_mbps", 1'000'000, false);
    }
    if (auto* n = Get(t, P, "min_rate_mbps"))
    {
        d.minRateBps = Scaled(n, "dcqcn.min_rate_mbps", 1'000'000, true);
    }
    if (auto* n = Get(t, P, "rate_on_first_cnp_gbps"))
    {
        d.rateOnFirstCnpBps = Scaled(n, "dcqcn.rate_on_first_cnp_gbps", kBpsPerGbps, false);
    }
    if (auto* n = Get(t, P, "clamp_target_rate"))
    {
        d.clampTargetRate = Bool(n, "dcqcn.clamp_target_rate");
    }
    if (auto* n = Get(t, P, "cnp_interval_us"))
    {
        d.cnpIntervalPs = TimePs(n, "dcqcn.cnp_interval_us", kPsPerUs, false);
    }
}

void
Loader::ReadLb(const toml::table& root, ScenarioSpec& spec)
{
    const toml::node* tn = Get(root, "", "lb");
    if (tn == nullptr)
    {
        return;
    }
    const toml::table& t = Table(tn, "lb");
    CheckKeys(t, "lb", {"policy", "attributes", "path_selector", "same_seed_everywhere"});
    if (auto* n = Get(t, "lb", "path_selector"))
    {
        std::string p = String(n, "lb.path_selector");
        bool ok = !p.empty() && std::all_of(p.begin(), p.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                   c == ':';
        });
        if (!ok)
        {
            Fail(n,
                 "lb.path_selector",
                 "expected one of " + ns3::PathSelectorNameList() +
                     " or a PathSelector TypeId name; got " + Quote(p));
        }
        spec.lb.pathSelector = p;
    }
    if (auto* n = Get(t, "lb", "same_seed_everywhere"))
    {
        spec.lb.sameSeedEverywhere = Bool(n, "lb.same_seed_everywhere");
    }
    if (auto* n = Get(t, "lb", "policy"))
    {
        std::string p = String(n, "lb.policy");
        bool ok = !p.empty() && std::all_of(p.begin(), p.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                   c == ':' || c == '.';
        });
        if (!ok)
        {
            Fail(n,
                 "lb.policy",
                 "expected a policy name like \"ecmp\" or a TypeId name like "
                 "\"ns3::EcmpLoadBalancer\"; got " +
                     Quote(p));
        }
        spec.lb.policy = p;
    }
    if (auto* an = Get(t, "lb", "attributes"))
    {
        const toml::table& a = Table(an, "lb.attributes");
        for (auto&& [k, v] : a)
        {
            const std::string name(k.str());
            const std::string key = "lb.attributes." + name;
            (*m_keyLines)[key] = LineOf(&v);
            if (!IsIdentifier(name))
            {
                Fail(&v, key, "expected an attribute name (letters, digits, '_'); got " +
                                  Quote(name));
            }
            spec.lb.attributes[name] = ScalarText(&v, key);
        }
    }
}

void
Loader::ReadWorkload(const toml::table& root, ScenarioSpec& spec)
{
    const toml::node* tn = Get(root, "", "workload");
    auto& w = spec.workload;
    const std::string P = "workload";
    auto K = [&](const std::string& key) { return P + "." + key; };
    const toml::table empty;
    const toml::table& t = tn ? Table(tn, P) : empty;
    if (auto* n = Get(t, P, "kind"))
    {
        w.kind = Choice(n, K("kind"), kWorkloadKinds);
    }
    CheckKindKeys(t, P, w.kind, kWorkloadKeys);

    if (auto* n = Get(t, P, "bytes"))
    {
        w.bytes = Bytes(n, K("bytes"), 1, std::numeric_limits<uint64_t>::max());
    }
    if (auto* n = Get(t, P, "hosts"))
    {
        w.hosts = HostList(n, K("hosts"), m_hostCount);
    }
    if (auto* n = Get(t, P, "channels"))
    {
        w.channels = U32(n, K("channels"), 1);
    }
    const toml::node* dstNode = Get(t, P, "incast_dst");
    if (dstNode != nullptr)
        w.incastDst = HostId(dstNode, K("incast_dst"), m_hostCount);
    if (auto* n = Get(t, P, "start_us"))
    {
        w.startPs = Scaled(n, K("start_us"), kPsPerUs, false);
    }
    if (auto* n = Get(t, P, "watchdog_ms"))
    {
        w.watchdogPs = Scaled(n, K("watchdog_ms"), kPsPerMs, false);
    }

    // Enough hosts for the collective / pattern.
    if (w.kind == "ring-allreduce" || w.kind == "permutation" || w.kind == "incast")
    {
        const toml::node* hn = t.get("hosts");
        uint64_t n = w.hosts.empty() ? m_hostCount : w.hosts.size();
        bool known = !w.hosts.empty() || m_hostCount > 0;
        if (w.kind == "incast")
        {
            bool dstListed = w.hosts.empty() ||
                             std::find(w.hosts.begin(), w.hosts.end(), w.incastDst) !=
                                 w.hosts.end();
            uint64_t senders = dstListed && n > 0 ? n - 1 : n;
            if (known && senders < 1)
            {
                Fail(hn ? hn : (dstNode ? dstNode : tn),
                     hn ? K("hosts") : K("incast_dst"),
                     "expected at least one sender besides incast_dst " +
                         std::to_string(w.incastDst) + "; got none");
            }
        }
        else if (known && n < 2)
        {
            Fail(hn ? hn : tn,
                 K("hosts"),
                 "expected at least 2 hosts for " + Quote(w.kind) + "; got " +
                     std::to_string(n));
        }
    }
    else if (w.kind == "htsim" || w.kind == "hpcc")
    {
        const toml::node* n = Get(t, P, "file");
        if (n == nullptr)
        {
            Fail(tn, K("file"), "required when workload.kind is " + Quote(w.kind) + ": the " +
                                    (w.kind == "htsim" ? ".cm file" : "HPCC flow.txt file"));
        }
        w.file = FilePath(n, K("file"));
    }
    else if (w.kind == "jobs")
    {
        // The traffic is in [[jobs]] (ReadJobs).
    }
    else // flows
    {
        const toml::node* fn = Get(t, P, "flows");
        if (fn == nullptr)
        {
            Fail(tn,
                 K("flows"),
                 "required when workload.kind is \"flows\": one [[workload.flows]] table per "
                 "flow");
        }
        const std::string expect =
            "expected an array of tables ([[workload.flows]] with src, dst, bytes, start_us)";
        if (!fn->is_array() || fn->as_array()->empty())
        {
            Fail(fn, K("flows"), expect + "; got " +
                                     (fn->is_array() ? std::string("an empty array")
                                                     : Describe(*fn)));
        }
        size_t index = 0;
        for (auto&& e : *fn->as_array())
        {
            const std::string fp = K("flows") + "[" + std::to_string(index++) + "]";
            if (!e.is_table())
            {
                Fail(&e, fp, expect + "; got an array holding " + Describe(e));
            }
            const toml::table& ft = *e.as_table();
            (*m_keyLines)[fp] = LineOf(&e);
            CheckKeys(ft, fp, {"src", "dst", "bytes", "start_us"});
            FlowEntry f;
            for (const char* required : {"src", "dst", "bytes"})
            {
                if (ft.get(required) == nullptr)
                {
                    Fail(&e, fp + "." + required, std::string("required in every flow: ") +
                                                      required);
                }
            }
            f.src = HostId(Get(ft, fp, "src"), fp + ".src", m_hostCount);
            const toml::node* dn = Get(ft, fp, "dst");
            f.dst = HostId(dn, fp + ".dst", m_hostCount);
            if (f.dst == f.src)
            {
                Fail(dn, fp + ".dst", "expected a host other than src " +
                                          std::to_string(f.src) + "; got " +
                                          std::to_string(f.dst));
            }
            f.bytes = Bytes(Get(ft, fp, "bytes"), fp + ".bytes", 1,
                            std::numeric_limits<uint64_t>::max());
            if (auto* sn = Get(ft, fp, "start_us"))
            {
                f.startPs = Scaled(sn, fp + ".start_us", kPsPerUs, false);
                if (f.startPs >= spec.stopTimePs)
                {
                    Fail(sn, fp + ".start_us", "expected a start before stop_time_ms (" +
                                                   FormatDouble(spec.stopTimePs / 1e9) +
                                                   " ms); got " +
                                                   FormatDouble(f.startPs / 1e6) + " us");
                }
            }
            w.flows.push_back(f);
        }
    }
    if (w.startPs >= spec.stopTimePs)
    {
        const toml::node* sn = t.get("start_us");
        Fail(sn, K("start_us"), "expected a start before stop_time_ms (" +
                                    FormatDouble(spec.stopTimePs / 1e9) + " ms); got " +
                                    FormatDouble(w.startPs / 1e6) + " us");
    }
}

const toml::array*
Loader::TableArray(const toml::table& t,
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

void
Loader::ReadScaleUp(const toml::table& root, ScenarioSpec& spec)
{
    const toml::node* tn = Get(root, "", "scale_up");
    if (tn == nullptr)
    {
        return;
    }
    const std::string P = "scale_up";
    const toml::table& t = Table(tn, P);
    CheckKeys(t, P, {"gpus_per_server", "link_gbps", "latency_ns"});
    auto& su = spec.scaleUp;
    const toml::node* gn = Get(t, P, "gpus_per_server");
    if (gn != nullptr)
    {
        su.gpusPerServer = U32(gn, P + ".gpus_per_server", 1);
    }
    if (auto* n = Get(t, P, "link_gbps"))
    {
        su.rateBps = Scaled(n, P + ".link_gbps", kBpsPerGbps, true);
    }
    if (auto* n = Get(t, P, "latency_ns"))
    {
        su.latencyPs = Scaled(n, P + ".latency_ns", kPsPerNs, false);
    }
    if (gn != nullptr && spec.topology.kind == "rail-optimised" && su.gpusPerServer > 1 &&
        su.gpusPerServer != spec.topology.rail.gpusPerServer)
    {
        Fail(gn, P + ".gpus_per_server",
             "expected the rail-optimised topology's gpus_per_server (" +
                 std::to_string(spec.topology.rail.gpusPerServer) + ") or 1; got " +
                 std::to_string(su.gpusPerServer));
    }
    if (gn != nullptr && m_hostCount > 0 && m_hostCount % su.gpusPerServer != 0)
    {
        Fail(gn, P + ".gpus_per_server",
             "expected a divisor of the topology's " + std::to_string(m_hostCount) +
                 " hosts (servers are hosts h / gpus_per_server); got " +
                 std::to_string(su.gpusPerServer));
    }
}

void
Loader::ReadJobs(const toml::table& root, ScenarioSpec& spec)
{
    const toml::array* jobs = TableArray(root, "", "jobs", "one per training job");
    const bool wantJobs = spec.workload.kind == "jobs";
    if (jobs == nullptr || jobs->empty())
    {
        if (wantJobs)
        {
            Fail(root.get("workload"), "jobs",
                 "workload.kind is \"jobs\": expected at least one [[jobs]] table");
        }
        return;
    }
    if (!wantJobs)
    {
        Fail(root.get("jobs"), "jobs",
             "[[jobs]] describe the traffic only when workload.kind is \"jobs\"; here it is " +
                 Quote(spec.workload.kind));
    }
    size_t index = 0;
    for (auto&& e : *jobs)
    {
        ReadJob(e, "jobs[" + std::to_string(index) + "]", index, spec);
        ++index;
    }
}

void
Loader::ReadJob(const toml::node& node, const std::string& jp, size_t index, ScenarioSpec& spec)
{
    const toml::table& t = *node.as_table();
    (*m_keyLines)[jp] = LineOf(&node);
    CheckKeys(t, jp,
              {"name", "ranks", "placement", "hosts", "tp", "pp", "dp", "ep", "iterations",
               "start_us", "compute_us", "sync_every", "channels", "chunk_bytes", "max_slices",
               "qps_per_connection", "ring_order", "file", "collectives"});
    auto K = [&](const std::string& key) { return jp + "." + key; };
    auto get = [&](const char* key) { return Get(t, jp, key); };
    JobEntry j;
    if (auto* n = get("name"))
    {
        j.name = String(n, K("name"));
    }
    if (j.name.empty())
    {
        j.name = "job" + std::to_string(index);
    }
    if (auto* n = get("placement"))
    {
        j.placement = Choice(n, K("placement"), ns3::PlacementPolicies());
    }
    const toml::node* hostsNode = get("hosts");
    if (hostsNode != nullptr)
    {
        j.hosts = HostList(hostsNode, K("hosts"), m_hostCount);
    }
    if (j.placement == "explicit" && hostsNode == nullptr)
    {
        Fail(&node, K("hosts"), "required with placement = \"explicit\": the host of every rank");
    }
    const toml::node* tpNode = get("tp");
    for (auto [key, field] : {std::pair<const char*, uint32_t*>{"tp", &j.tp}, {"pp", &j.pp},
                              {"ep", &j.ep}})
    {
        if (auto* n = get(key))
        {
            *field = U32(n, K(key), 1);
        }
    }
    const toml::node* dpNode = get("dp");
    if (dpNode != nullptr)
    {
        j.dp = U32(dpNode, K("dp"), 1);
    }
    if (auto* n = get("iterations"))
    {
        j.iterations = U32(n, K("iterations"), 1);
    }
    if (auto* n = get("start_us"))
    {
        j.startPs = Scaled(n, K("start_us"), kPsPerUs, false);
        if (j.startPs >= spec.stopTimePs)
        {
            Fail(n, K("start_us"), "expected a start before stop_time_ms (" +
                                       FormatDouble(spec.stopTimePs / 1e9) + " ms); got " +
                                       FormatDouble(j.startPs / 1e6) + " us");
        }
    }
    if (auto* n = get("compute_us"))
    {
        j.computePs = Scaled(n, K("compute_us"), kPsPerUs, false);
    }
    if (auto* n = get("sync_every"))
    {
        j.syncEvery = U32(n, K("sync_every"), 1);
    }
    if (auto* n = get("channels"))
    {
        j.channels = static_cast<uint32_t>(Int(n, K("channels"), 1, 64));
    }
    if (auto* n = get("chunk_bytes"))
    {
        j.chunkBytes = Bytes(n, K("chunk_bytes"), 0, std::numeric_limits<uint64_t>::max());
    }
    if (auto* n = get("max_slices"))
    {
        j.maxSlices = static_cast<uint32_t>(Int(n, K("max_slices"), 1, 4096));
    }
    if (auto* n = get("qps_per_connection"))
    {
        j.qpsPerConnection = static_cast<uint32_t>(Int(n, K("qps_per_connection"), 0, 1024));
    }
    if (auto* n = get("ring_order"))
    {
        j.ringOrder = Choice(n, K("ring_order"), kRingOrders);
    }
    const toml::node* fileNode = get("file");
    const toml::array* colls = TableArray(t, jp, "collectives", "the collectives of one iteration");
    ns3::SimAiWorkload simai;
    if (fileNode != nullptr)
    {
        j.file = FilePath(fileNode, K("file"));
        simai = ns3::ReadSimAiWorkload(j.file); // its errors name the SimAI file and line
        if (colls != nullptr)
        {
            Fail(t.get("collectives"), K("collectives"),
                 "a job takes its iteration from `file` (a SimAI workload) or from "
                 "[[" + jp + ".collectives]], not both");
        }
        for (auto [n, key] : {std::pair<const toml::node*, const char*>{tpNode, "tp"},
                              {get("pp"), "pp"}, {get("ep"), "ep"}, {dpNode, "dp"}})
        {
            if (n != nullptr)
            {
                Fail(n, K(key), std::string("the parallel degrees come from the SimAI file's "
                                            "header; remove `") + key +
                                    "` (set `ranks` to scale the data-parallel degree)");
            }
        }
    }
    else if (colls == nullptr || colls->empty())
    {
        Fail(&node, K("collectives"),
             "expected the job's iteration: [[" + jp + ".collectives]] tables, or `file` = a "
             "SimAI workload");
    }
    // Ranks: given, or implied by an explicit placement, the SimAI file, the host pool, or the
    // whole topology.
    const toml::node* ranksNode = get("ranks");
    if (ranksNode != nullptr)
    {
        j.ranks = U32(ranksNode, K("ranks"), 1);
        if (m_hostCount > 0 && j.ranks > m_hostCount)
        {
            Fail(ranksNode, K("ranks"), "expected at most the topology's " +
                                            std::to_string(m_hostCount) + " hosts; got " +
                                            std::to_string(j.ranks));
        }
        if (hostsNode != nullptr && j.ranks > j.hosts.size())
        {
            Fail(ranksNode, K("ranks"),
                 "expected at most the " + std::to_string(j.hosts.size()) + " hosts listed in `" +
                     K("hosts") + "`" +
                     (j.placement == "explicit" ? " (explicit: exactly that many)" : "") +
                     "; got " + std::to_string(j.ranks));
        }
        if (j.placement == "explicit" && j.ranks != j.hosts.size())
        {
            Fail(ranksNode, K("ranks"), "an explicit placement lists " +
                                            std::to_string(j.hosts.size()) + " hosts for " +
                                            std::to_string(j.ranks) + " ranks");
        }
    }
    else if (j.placement == "explicit")
    {
        j.ranks = static_cast<uint32_t>(j.hosts.size());
    }
    else if (fileNode != nullptr)
    {
        j.ranks = simai.allGpus;
    }
    else if (hostsNode != nullptr)
    {
        j.ranks = static_cast<uint32_t>(j.hosts.size());
    }
    else if (m_hostCount > 0)
    {
        j.ranks = static_cast<uint32_t>(m_hostCount);
    }
    // TP * PP * DP * EP = ranks, checked now when the ranks are known (else when the run is
    // built).
    if (j.ranks > 0)
    {
        try
        {
            if (fileNode != nullptr)
            {
                ns3::SimAiDegrees(simai, j.ranks, nullptr);
            }
            else
            {
                ns3::ParallelDegrees d;
                d.tp = j.tp;
                d.pp = j.pp;
                d.dp = j.dp;
                d.ep = j.ep;
                ns3::ProcessGroups(j.ranks, d);
            }
        }
        catch (const InputError& e)
        {
            // At the degree the message names when it is in the file, else at the ranks.
            const toml::node* at = e.Key() == "job.dp" && dpNode != nullptr ? dpNode
                                   : ranksNode != nullptr                   ? ranksNode
                                   : tpNode != nullptr                      ? tpNode
                                                                            : &node;
            Fail(at, jp + "." + (fileNode != nullptr ? "ranks" : e.Key().substr(4)),
                 e.Message());
        }
    }
    if (colls != nullptr)
    {
        size_t ci = 0;
        for (auto&& ce : *colls)
        {
            const std::string cp = K("collectives") + "[" + std::to_string(ci++) + "]";
            const toml::table& ct = *ce.as_table();
            (*m_keyLines)[cp] = LineOf(&ce);
            CheckKeys(ct, cp,
                      {"name", "kind", "algorithm", "group", "bytes", "compute_us", "blocking",
                       "every", "root", "peer", "shift", "local_size"});
            auto CK = [&](const std::string& key) { return cp + "." + key; };
            JobCollectiveEntry c;
            const toml::node* kn = Get(ct, cp, "kind");
            if (kn == nullptr)
            {
                Fail(&ce, CK("kind"), "required: the collective (" +
                                          [] {
                                              std::string l;
                                              for (const auto& k : ns3::CollectiveKinds())
                                              {
                                                  l += (l.empty() ? "" : ", ") + k;
                                              }
                                              return l;
                                          }() +
                                          ")");
            }
            try
            {
                c.kind = ns3::CanonicalCollectiveKind(String(kn, CK("kind")));
            }
            catch (const InputError& e)
            {
                Fail(kn, CK("kind"), e.Message());
            }
            if (auto* n = Get(ct, cp, "algorithm"))
            {
                c.algorithm = String(n, CK("algorithm"));
                const auto& valid = ns3::CollectiveAlgorithms(c.kind);
                if (std::find(valid.begin(), valid.end(), c.algorithm) == valid.end())
                {
                    Fail(n, CK("algorithm"), "expected " + OneOf(valid) + " for " + c.kind +
                                                 "; got " + Quote(c.algorithm));
                }
            }
            if (auto* n = Get(ct, cp, "name"))
            {
                c.name = String(n, CK("name"));
            }
            if (auto* n = Get(ct, cp, "group"))
            {
                c.group = Choice(n, CK("group"), ns3::ProcessGroups::Kinds());
            }
            const toml::node* bn = Get(ct, cp, "bytes");
            if (bn == nullptr)
            {
                Fail(&ce, CK("bytes"), "required: S, the per-rank size as nccl-tests uses it");
            }
            c.bytes = Bytes(bn, CK("bytes"), 0, std::numeric_limits<uint64_t>::max());
            if (auto* n = Get(ct, cp, "compute_us"))
            {
                c.computePs = Scaled(n, CK("compute_us"), kPsPerUs, false);
            }
            if (auto* n = Get(ct, cp, "blocking"))
            {
                c.blocking = Bool(n, CK("blocking"));
            }
            if (auto* n = Get(ct, cp, "every"))
            {
                c.every = U32(n, CK("every"), 1);
            }
            if (auto* n = Get(ct, cp, "root"))
            {
                c.root = U32(n, CK("root"), 0);
            }
            if (auto* n = Get(ct, cp, "peer"))
            {
                c.peer = U32(n, CK("peer"), 0);
            }
            if (auto* n = Get(ct, cp, "shift"))
            {
                c.shift = Bool(n, CK("shift"));
            }
            if (auto* n = Get(ct, cp, "local_size"))
            {
                c.localSize = U32(n, CK("local_size"), 0);
            }
            j.collectives.push_back(c);
        }
    }
    spec.jobs.push_back(j);
}

void
Loader::ReadFailures(const toml::table& root, ScenarioSpec& spec)
{
    const toml::array* entries =
        TableArray(root, "", "failures", "one per link failure, repair or degradation");
    if (entries == nullptr)
    {
        return;
    }
    size_t index = 0;
    for (auto&& e : *entries)
    {
        const std::string fp = "failures[" + std::to_string(index++) + "]";
        const toml::table& t = *e.as_table();
        (*m_keyLines)[fp] = LineOf(&e);
        CheckKeys(t, fp, {"at_us", "kind", "link", "rate_divisor"});
        auto K = [&](const std::string& key) { return fp + "." + key; };
        FailureEntry f;
        f.line = LineOf(&e);
        const toml::node* an = Get(t, fp, "at_us");
        if (an == nullptr)
        {
            Fail(&e, K("at_us"), "required: when the failure happens, in microseconds");
        }
        f.atPs = Scaled(an, K("at_us"), kPsPerUs, false);
        if (f.atPs >= spec.stopTimePs)
        {
            Fail(an, K("at_us"), "expected a time before stop_time_ms (" +
                                     FormatDouble(spec.stopTimePs / 1e9) + " ms)");
        }
        const toml::node* kn = Get(t, fp, "kind");
        if (kn == nullptr)
        {
            Fail(&e, K("kind"), "required: \"link_down\", \"link_up\" or \"degrade\"");
        }
        f.kind = Choice(kn, K("kind"), {"link_down", "link_up", "degrade"});
        const toml::node* ln = Get(t, fp, "link");
        if (ln == nullptr)
        {
            Fail(&e, K("link"), "required: \"<from>-<to>\", vertex names as in links.csv "
                                "(e.g. \"leaf0-spine1\")");
        }
        f.link = String(ln, K("link"));
        if (f.link.find('-') == std::string::npos)
        {
            Fail(ln, K("link"), "expected \"<from>-<to>\" (e.g. \"leaf0-spine1\"); got " +
                                    Quote(f.link));
        }
        if (auto* n = Get(t, fp, "rate_divisor"))
        {
            if (f.kind != "degrade")
            {
                Fail(n, K("rate_divisor"), "only a \"degrade\" failure has a rate_divisor");
            }
            f.rateDivisor = U32(n, K("rate_divisor"), 1);
        }
        else if (f.kind == "degrade")
        {
            Fail(&e, K("rate_divisor"), "required for kind = \"degrade\": the link's rate is "
                                        "divided by it (an integer >= 1)");
        }
        spec.failures.push_back(f);
    }
}

void
Loader::ReadBackground(const toml::table& root, ScenarioSpec& spec)
{
    const toml::array* entries = TableArray(root, "", "background", "Poisson background traffic");
    if (entries == nullptr)
    {
        return;
    }
    size_t index = 0;
    for (auto&& e : *entries)
    {
        const std::string bp = "background[" + std::to_string(index++) + "]";
        const toml::table& t = *e.as_table();
        (*m_keyLines)[bp] = LineOf(&e);
        CheckKeys(t, bp, {"hosts", "load", "cdf_file", "start_us", "duration_us", "priority",
                          "qps", "seed"});
        auto K = [&](const std::string& key) { return bp + "." + key; };
        BackgroundEntry b;
        if (auto* n = Get(t, bp, "hosts"))
        {
            b.hosts = HostList(n, K("hosts"), m_hostCount);
            if (b.hosts.size() < 2)
            {
                Fail(n, K("hosts"), "expected at least 2 hosts; got " +
                                        std::to_string(b.hosts.size()));
            }
        }
        if (auto* n = Get(t, bp, "load"))
        {
            const bool number = n->is_integer() || n->is_floating_point();
            const double v = n->is_integer() ? static_cast<double>(n->as_integer()->get())
                             : n->is_floating_point() ? n->as_floating_point()->get()
                                                      : 0.0;
            if (!number || !(v > 0 && v <= 1))
            {
                Fail(n, K("load"), "expected an offered load in (0, 1] (a fraction of each "
                                   "host's link rate); got " + Describe(*n));
            }
            b.load = v;
        }
        const toml::node* cn = Get(t, bp, "cdf_file");
        if (cn == nullptr)
        {
            Fail(&e, K("cdf_file"), "required: a flow-size CDF file (\"size_bytes cdf_percent\" "
                                    "lines, as HPCC's traffic_gen)");
        }
        b.cdfFile = FilePath(cn, K("cdf_file"));
        ns3::FlowSizeCdf::Read(b.cdfFile); // its errors name the CDF file and line
        if (auto* n = Get(t, bp, "start_us"))
        {
            b.startPs = Scaled(n, K("start_us"), kPsPerUs, false);
            if (b.startPs >= spec.stopTimePs)
            {
                Fail(n, K("start_us"), "expected a start before stop_time_ms (" +
                                           FormatDouble(spec.stopTimePs / 1e9) + " ms)");
            }
        }
        if (auto* n = Get(t, bp, "duration_us"))
        {
            b.durationPs = Scaled(n, K("duration_us"), kPsPerUs, true);
        }
        if (auto* n = Get(t, bp, "priority"))
        {
            b.priority = static_cast<int32_t>(Int(n, K("priority"), 0, 7));
        }
        if (auto* n = Get(t, bp, "qps"))
        {
            b.qps = static_cast<uint32_t>(Int(n, K("qps"), 1, 1024));
        }
        if (auto* n = Get(t, bp, "seed"))
        {
            b.seed = static_cast<uint64_t>(Int(n, K("seed"), 0, std::numeric_limits<int64_t>::max()));
        }
        spec.background.push_back(b);
    }
}

void
Loader::ReadOutput(const toml::table& root, ScenarioSpec& spec)
{
    const toml::node* tn = Get(root, "", "output");
    if (tn == nullptr)
    {
        return;
    }
    const toml::table& t = Table(tn, "output");
    CheckKeys(t, "output", {"dir", "pcap", "sample_us"});
    if (auto* n = Get(t, "output", "dir"))
    {
        spec.output.dir = String(n, "output.dir");
    }
    if (auto* n = Get(t, "output", "pcap"))
    {
        spec.output.pcap = Bool(n, "output.pcap");
    }
    if (auto* n = Get(t, "output", "sample_us"))
    {
        spec.output.samplePs = Scaled(n, "output.sample_us", kPsPerUs, false);
    }
}

void
Loader::ReadSimulator(const toml::table& root, ScenarioSpec& spec)
{
    const toml::node* tn = Get(root, "", "simulator");
    if (tn == nullptr)
    {
        return;
    }
    const toml::table& t = Table(tn, "simulator");
    CheckKeys(t, "simulator", {"scheduler"});
    if (auto* n = Get(t, "simulator", "scheduler"))
    {
        spec.simulator.scheduler = Choice(n, "simulator.scheduler", SchedulerNames());
    }
}

void
Loader::ReadNs3(const toml::table& root, ScenarioSpec& spec)
{
    const toml::node* tn = Get(root, "", "ns3");
    if (tn == nullptr)
    {
        return;
    }
    const toml::table& t = Table(tn, "ns3");
    for (auto&& [k, v] : t)
    {
        const std::string path(k.str());
        const std::string key = "ns3." + path;
        (*m_keyLines)[key] = LineOf(&v);
        if (!IsAttributePath(path))
        {
            Fail(&v,
                 key,
                 "expected an ns-3 attribute path like \"ns3::RdmaNic::AckInterval\" (quote it: "
                 "\"ns3::RdmaNic::AckInterval\" = 4); got " +
                     Quote(path));
        }
        spec.ns3Defaults[path] = ScalarText(&v, key);
    }
}

ScenarioSpec
Loader::Read(const toml::table& root)
{
    ScenarioSpec spec;
    m_keyLines = &spec.keyLines;
    CheckKeys(root,
              "",
              {"name",
               "seed",
               "stop_time_ms",
               "require_finish",
               "topology",
               "fabric",
               "nic",
               "buffer",
               "pfc",
               "ecn",
               "dcqcn",
               "lb",
               "workload",
               "jobs",
               "background",
               "scale_up",
               "failures",
               "output",
               "simulator",
               "ns3"});
    if (auto* n = Get(root, "", "name"))
    {
        std::string name = String(n, "name");
        bool ok = !name.empty() && name[0] != '.' && name[0] != '-' &&
                  std::all_of(name.begin(), name.end(), [](char c) {
                      return std::isalnum(static_cast<unsigned char>(c)) || c == '-' ||
                             c == '_' || c == '.';
                  });
        if (!ok)
        {
            Fail(n,
                 "name",
                 "expected a name of letters, digits, '.', '_' and '-', not starting with '.' "
                 "or '-' (it names the results directory); got " +
                     Quote(name));
        }
        spec.name = name;
    }
    if (auto* n = Get(root, "", "seed"))
    {
        spec.seed = static_cast<uint64_t>(Int(n, "seed", 0, std::numeric_limits<int64_t>::max()));
    }
    if (auto* n = Get(root, "", "stop_time_ms"))
    {
        spec.stopTimePs = Scaled(n, "stop_time_ms", kPsPerMs, true);
    }
    if (auto* n = Get(root, "", "require_finish"))
    {
        spec.requireFinish = Bool(n, "require_finish");
    }

    ReadTopology(root, spec);
    ReadFabric(root, spec);
    ReadNic(root, spec);
    ReadBuffer(root, spec);
    ReadPfc(root, spec);
    ReadEcn(root, spec);
    ReadDcqcn(root, spec);
    ReadLb(root, spec);
    ReadWorkload(root, spec);
    ReadScaleUp(root, spec);
    ReadJobs(root, spec);
    ReadBackground(root, spec);
    ReadFailures(root, spec);
    ReadOutput(root, spec);
    ReadSimulator(root, spec);
    ReadNs3(root, spec);
    return spec;
}

ScenarioSpec
Load(const std::string& text,
     const std::string& displayName,
     const std::filesystem::path& baseDir,
     const std::vector<std::string>& overrides)
{
    toml::table root;
    try
    {
        root = toml::parse(std::string_view(text), std::string_view(displayName));
    }
    catch (const toml::parse_error& e)
    {
        throw InputError(displayName,
                         static_cast<unsigned>(e.source().begin.line),
                         "",
                         "TOML syntax error: " + std::string(e.description()));
    }
    Loader loader(displayName, baseDir);
    loader.RememberFileKinds(root);
    for (const auto& o : overrides)
    {
        loader.ApplyOverride(root, o);
    }
    loader.DropOtherKindKeys(root);
    ScenarioSpec spec = loader.Read(root);
    spec.sourceFile = displayName;
    return spec;
}

/** v / scale as an integer when whole, else as a float. */
nlohmann::json
InUnit(uint64_t v, uint64_t scale)
{
    if (v % scale == 0)
    {
        return v / scale;
    }
    return static_cast<double>(v) / static_cast<double>(scale);
}

} // namespace

bool
ParseSizeString(const std::string& text, uint64_t& bytes, std::string& why)
{
    const std::string s = Trim(text);
    if (s.empty())
    {
        why = "empty";
        return false;
    }
    if (s[0] == '-')
    {
        why = "a size cannot be negative";
        return false;
    }
    size_t i = 0;
    auto isDigit = [&](size_t j) { return j < s.size() && s[j] >= '0' && s[j] <= '9'; };
    unsigned __int128 mantissa = 0; // all digits, the decimal point removed
    unsigned __int128 divisor = 1;  // 10^(digits after the point)
    size_t intDigits = 0;
    while (isDigit(i))
    {
        if (!CheckedMulAdd(mantissa, 10, s[i] - '0'))
        {
            why = "too large";
            return false;
        }
        ++i;
        ++intDigits;
    }
    if (intDigits == 0)
    {
        why = "a number must come first";
        return false;
    }
    if (i < s.size() && s[i] == '.')
    {
        ++i;
        size_t fracDigits = 0;
        while (isDigit(i))
        {
            if (!CheckedMulAdd(mantissa, 10, s[i] - '0') || !CheckedMulAdd(divisor, 10, 0))
            {
                why = "too many digits";
                return false;
            }
            ++i;
            ++fracDigits;
        }
        if (fracDigits == 0)
        {
            why = "malformed number: digits must follow the decimal point";
            return false;
        }
    }
    if (i < s.size() && (s[i] == '.' || s[i] == ',' || s[i] == '_'))
    {
        why = "malformed number " + Quote(s.substr(0, s.find_first_not_of("0123456789.,_")));
        return false;
    }
    while (i < s.size() && s[i] == ' ')
    {
        ++i;
    }
    const std::string unit = s.substr(i);
    static const std::map<std::string, uint64_t> kUnits = {
        {"", 1},
        {"B", 1},
        {"kB", 1000ULL},
        {"KB", 1000ULL},
        {"MB", 1000ULL * 1000},
        {"GB", 1000ULL * 1000 * 1000},
        {"TB", 1000ULL * 1000 * 1000 * 1000},
        {"KiB", 1ULL << 10},
        {"MiB", 1ULL << 20},
        {"GiB", 1ULL << 30},
        {"TiB", 1ULL << 40},
    };
    auto it = kUnits.find(unit);
    if (it == kUnits.end())
    {
        why = "unknown unit " + Quote(unit) + "; units are B, kB, MB, GB, TB, KiB, MiB, GiB, TiB";
        return false;
    }
    unsigned __int128 total = mantissa;
    if (!CheckedMulAdd(total, it->second, 0))
    {
        why = "too large";
        return false;
    }
    if (total % divisor != 0)
    {
        why = "not a whole number of bytes";
        return false;
    }
    total /= divisor;
    if (total > std::numeric_limits<uint64_t>::max())
    {
        why = "too large";
        return false;
    }
    bytes = static_cast<uint64_t>(total);
    return true;
}

ScenarioSpec
LoadScenarioString(const std::string& toml,
                   const std::string& displayName,
                   const std::vector<std::string>& overrides)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path base = fs::path(displayName).parent_path();
    base = base.empty() ? fs::current_path(ec) : fs::absolute(base, ec);
    return Load(toml, displayName, base, overrides);
}

ScenarioSpec
LoadScenarioFile(const std::string& path, const std::vector<std::string>& overrides)
{
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    {
        throw InputError(path, 0, "", "not a regular file: expected a TOML scenario file");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw InputError(path, 0, "", "cannot open the scenario file");
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
    {
        throw InputError(path, 0, "", "cannot read the scenario file");
    }
    return LoadScenarioString(text.str(), path, overrides);
}

nlohmann::json
ScenarioToJson(const ScenarioSpec& s)
{
    using nlohmann::json;
    json j = json::object();
    j["name"] = s.name;
    j["seed"] = s.seed;
    j["stop_time_ms"] = InUnit(s.stopTimePs, kPsPerMs);
    j["require_finish"] = s.requireFinish;

    json topo = json::object();
    topo["kind"] = s.topology.kind;
    if (s.topology.kind == "leaf-spine")
    {
        const auto& p = s.topology.leafSpine;
        topo["leaves"] = p.leaves;
        topo["spines"] = p.spines;
        topo["hosts_per_leaf"] = p.hostsPerLeaf;
        topo["links_per_spine"] = p.linksPerSpine;
        topo["host_link_gbps"] = InUnit(p.hostRateBps, kBpsPerGbps);
        topo["fabric_link_gbps"] = InUnit(p.fabricRateBps, kBpsPerGbps);
        topo["link_delay_ns"] = InUnit(p.linkDelayPs, kPsPerNs);
        topo["switch_latency_ns"] = InUnit(p.switchLatencyPs, kPsPerNs);
    }
    else if (s.topology.kind == "fat-tree")
    {
        const auto& p = s.topology.fatTree;
        topo["k"] = p.k;
        topo["oversubscription"] = p.oversubscription;
        topo["host_link_gbps"] = InUnit(p.hostRateBps, kBpsPerGbps);
        topo["fabric_link_gbps"] = InUnit(p.fabricRateBps, kBpsPerGbps);
        topo["link_delay_ns"] = InUnit(p.linkDelayPs, kPsPerNs);
        topo["switch_latency_ns"] = InUnit(p.switchLatencyPs, kPsPerNs);
    }
    else if (s.topology.kind == "htsim" || s.topology.kind == "hpcc")
    {
        topo["file"] = s.topology.file;
    }
    else if (s.topology.kind == "ring")
    {
        const auto& p = s.topology.ring;
        topo["switches"] = p.switches;
        topo["hosts_per_switch"] = p.hostsPerSwitch;
        topo["link_gbps"] = InUnit(p.rateBps, kBpsPerGbps);
        topo["link_delay_ns"] = InUnit(p.delayPs, kPsPerNs);
        topo["clockwise_routes"] = p.clockwiseRoutes;
    }
    else if (s.topology.kind == "rail-optimised")
    {
        const auto& p = s.topology.rail;
        topo["servers"] = p.servers;
        topo["gpus_per_server"] = p.gpusPerServer;
        topo["servers_per_group"] = p.serversPerGroup;
        topo["spines"] = p.spines;
        topo["links_per_spine"] = p.linksPerSpine;
        topo["host_link_gbps"] = InUnit(p.hostRateBps, kBpsPerGbps);
        topo["fabric_link_gbps"] = InUnit(p.fabricRateBps, kBpsPerGbps);
        topo["link_delay_ns"] = InUnit(p.linkDelayPs, kPsPerNs);
        topo["switch_latency_ns"] = InUnit(p.switchLatencyPs, kPsPerNs);
    }
    else if (s.topology.kind == "pod-clos")
    {
        const auto& p = s.topology.podClos;
        topo["pods"] = p.pods;
        topo["racks_per_pod"] = p.racksPerPod;
        topo["hosts_per_rack"] = p.hostsPerRack;
        topo["cluster_switches"] = p.clusterSwitches;
        topo["aggregation_switches"] = p.aggregationSwitches;
        if (p.oversubscription == std::floor(p.oversubscription))
        {
            topo["oversubscription"] = static_cast<uint64_t>(p.oversubscription);
        }
        else
        {
            topo["oversubscription"] = p.oversubscription;
        }
        topo["host_link_gbps"] = InUnit(p.hostRateBps, kBpsPerGbps);
        topo["link_delay_ns"] = InUnit(p.linkDelayPs, kPsPerNs);
        topo["switch_latency_ns"] = InUnit(p.switchLatencyPs, kPsPerNs);
    }
    j["topology"] = topo;

    j["fabric"] = {{"phy_overhead_bytes", s.fabric.phyOverheadBytes},
                   {"reconvergence_us", InUnit(s.fabric.reconvergencePs, kPsPerUs)}};

    const auto& b = s.buffer;
    j["buffer"] = {{"total_bytes", b.totalBytes},
                   {"reserved_bytes", b.reservedBytes},
                   {"threshold", b.dynamicThreshold ? "dynamic" : "static"},
                   {"alpha", b.alpha},
                   {"egress_alpha", b.egressAlpha},
                   {"static_threshold_bytes", b.staticThresholdBytes},
                   {"headroom_bytes", b.headroomBytes},
                   {"xon_offset_bytes", b.xonOffsetBytes}};
    const auto& pf = s.pfc;
    j["pfc"] = {{"enabled", pf.enabled},
                {"lossless_priorities", pf.losslessPriorities},
                {"pause_quanta", pf.pauseQuanta},
                {"refresh_us", InUnit(pf.refreshPs, kPsPerUs)},
                {"deadlock_detect_us", InUnit(pf.deadlockDetectPs, kPsPerUs)},
                {"watchdog_us", InUnit(pf.watchdogPs, kPsPerUs)},
                {"watchdog_recovery_us", InUnit(pf.watchdogRecoveryPs, kPsPerUs)},
                {"watchdog_action", pf.watchdogAction}};
    json ecn = {{"enabled", s.ecn.enabled}};
    if (s.ecn.fallbackGiven || s.ecn.byRate.empty())
    {
        ecn["kmin_bytes"] = s.ecn.fallback.kminBytes;
        ecn["kmax_bytes"] = s.ecn.fallback.kmaxBytes;
        ecn["pmax"] = s.ecn.fallback.pmax;
    }
    if (!s.ecn.byRate.empty())
    {
        json rates = json::array();
        for (const auto& [rate, th] : s.ecn.byRate)
        {
            rates.push_back({{"gbps", InUnit(rate, kBpsPerGbps)},
                             {"kmin_bytes", th.kminBytes},
                             {"kmax_bytes", th.kmaxBytes},
                             {"pmax", th.pmax}});
        }
        ecn["by_rate"] = rates;
    }
    j["ecn"] = ecn;
    const auto& d = s.dcqcn;
    json dc = {{"preset", d.preset}, {"cnp_interval_us", InUnit(d.cnpIntervalPs, kPsPerUs)}};
    if (d.g) dc["g"] = *d.g;
    if (d.initialAlpha) dc["initial_alpha"] = *d.initialAlpha;
    if (d.alphaUpdatePs) dc["alpha_update_us"] = InUnit(*d.alphaUpdatePs, kPsPerUs);
    if (d.timerPs) dc["timer_us"] = InUnit(*d.timerPs, kPsPerUs);
    if (d.minDecreaseIntervalPs) dc["min_decrease_interval_us"] = InUnit(*d.minDecreaseIntervalPs, kPsPerUs);
    if (d.byteCounterBytes) dc["byte_counter_bytes"] = *d.byteCounterBytes;
    if (d.fastRecoveryStages) dc["fast_recovery_stages"] = *d.fastRecoveryStages;
    if (d.rateAiBps) dc["rate_ai_mbps"] = InUnit(*d.rateAiBps, 1'000'000);
    if (d.rateHaiBps) dc["rate_hai_mbps"] = InUnit(*d.rateHaiBps, 1'000'000);
    if (d.minRateBps) dc["min_rate_mbps"] = InUnit(*d.minRateBps, 1'000'000);
    if (d.rateOnFirstCnpBps) dc["rate_on_first_cnp_gbps"] = InUnit(*d.rateOnFirstCnpBps, kBpsPerGbps);
    if (d.clampTargetRate) dc["clamp_target_rate"] = *d.clampTargetRate;
    j["dcqcn"] = dc;

    j["nic"] = {{"mtu_bytes", s.nic.mtuBytes},
                {"ack_interval", s.nic.ackInterval},
                {"rto_us", InUnit(s.nic.rtoPs, kPsPerUs)},
                {"qps_per_connection", s.nic.qpsPerConnection},
                {"qp_scaling", s.nic.qpScaling},
                {"qp_message_bytes", s.nic.qpMessageBytes},
                {"qp_entropy", s.nic.qpEntropy},
                {"receiver", s.nic.receiver},
                {"transport", s.nic.transport},
                {"cnp_on_ooo", s.nic.cnpOnOutOfOrder},
                {"congestion_control", s.nic.congestionControl},
                {"data_priority", s.nic.dataPriority},
                {"control_priority", s.nic.controlPriority}};

    json attributes = json::object();
    for (const auto& [k, v] : s.lb.attributes)
    {
        attributes[k] = v;
    }
    j["lb"] = {{"policy", s.lb.policy},
               {"attributes", attributes},
               {"same_seed_everywhere", s.lb.sameSeedEverywhere}};
    if (!s.lb.pathSelector.empty())
    {
        j["lb"]["path_selector"] = s.lb.pathSelector;
    }

    const auto& w = s.workload;
    json work = json::object();
    work["kind"] = w.kind;
    if (w.kind == "ring-allreduce" || w.kind == "permutation" || w.kind == "incast")
    {
        work["bytes"] = w.bytes;
        work["hosts"] = w.hosts; // empty = all hosts
        work["start_us"] = InUnit(w.startPs, kPsPerUs);
        if (w.kind == "ring-allreduce")
        {
            work["channels"] = w.channels;
        }
        if (w.kind == "incast")
        {
            work["incast_dst"] = w.incastDst;
        }
    }
    else if (w.kind == "htsim")
    {
        work["file"] = w.file;
    }
    else if (w.kind == "hpcc")
    {
        work["file"] = w.file;
        work["start_us"] = InUnit(w.startPs, kPsPerUs);
    }
    else if (w.kind == "flows")
    {
        json flows = json::array();
        for (const auto& f : w.flows)
        {
            flows.push_back({{"src", f.src},
                             {"dst", f.dst},
                             {"bytes", f.bytes},
                             {"start_us", InUnit(f.startPs, kPsPerUs)}});
        }
        work["flows"] = flows;
    }
    work["watchdog_ms"] = InUnit(w.watchdogPs, kPsPerMs);
    j["workload"] = work;

    if (!s.jobs.empty())
    {
        json jobs = json::array();
        for (const auto& job : s.jobs)
        {
            json o = json::object();
            o["name"] = job.name;
            if (job.ranks > 0)
            {
                o["ranks"] = job.ranks;
            }
            o["placement"] = job.placement;
            if (!job.hosts.empty())
            {
                o["hosts"] = job.hosts;
            }
            if (job.file.empty())
            {
                o["tp"] = job.tp;
                o["pp"] = job.pp;
                o["ep"] = job.ep;
                if (job.dp > 0)
                {
                    o["dp"] = job.dp;
                }
            }
            o["iterations"] = job.iterations;
            o["start_us"] = InUnit(job.startPs, kPsPerUs);
            o["compute_us"] = InUnit(job.computePs, kPsPerUs);
            o["sync_every"] = job.syncEvery;
            o["channels"] = job.channels;
            o["chunk_bytes"] = job.chunkBytes;
            o["max_slices"] = job.maxSlices;
            o["qps_per_connection"] = job.qpsPerConnection;
            o["ring_order"] = job.ringOrder;
            if (!job.file.empty())
            {
                o["file"] = job.file;
            }
            else
            {
                json colls = json::array();
                for (const auto& c : job.collectives)
                {
                    json co = {{"kind", c.kind},
                               {"group", c.group},
                               {"bytes", c.bytes},
                               {"compute_us", InUnit(c.computePs, kPsPerUs)},
                               {"blocking", c.blocking},
                               {"every", c.every},
                               {"root", c.root},
                               {"peer", c.peer},
                               {"shift", c.shift},
                               {"local_size", c.localSize}};
                    if (!c.name.empty())
                    {
                        co["name"] = c.name;
                    }
                    if (!c.algorithm.empty())
                    {
                        co["algorithm"] = c.algorithm;
                    }
                    colls.push_back(co);
                }
                o["collectives"] = colls;
            }
            jobs.push_back(o);
        }
        j["jobs"] = jobs;
    }
    if (!s.background.empty())
    {
        json bg = json::array();
        for (const auto& b : s.background)
        {
            json o = {{"cdf_file", b.cdfFile},
                      {"start_us", InUnit(b.startPs, kPsPerUs)},
                      {"duration_us", InUnit(b.durationPs, kPsPerUs)},
                      {"qps", b.qps},
                      {"seed", b.seed}};
            if (b.load == std::floor(b.load))
            {
                o["load"] = static_cast<uint64_t>(b.load);
            }
            else
            {
                o["load"] = b.load;
            }
            if (b.priority >= 0)
            {
                o["priority"] = b.priority;
            }
            if (!b.hosts.empty())
            {
                o["hosts"] = b.hosts;
            }
            bg.push_back(o);
        }
        j["background"] = bg;
    }
    if (!s.failures.empty())
    {
        json fl = json::array();
        for (const auto& f : s.failures)
        {
            json o = {{"at_us", InUnit(f.atPs, kPsPerUs)}, {"kind", f.kind}, {"link", f.link}};
            if (f.kind == "degrade")
            {
                o["rate_divisor"] = f.rateDivisor;
            }
            fl.push_back(o);
        }
        j["failures"] = fl;
    }
    j["scale_up"] = {{"gpus_per_server", s.scaleUp.gpusPerServer},
                     {"link_gbps", InUnit(s.scaleUp.rateBps, kBpsPerGbps)},
                     {"latency_ns", InUnit(s.scaleUp.latencyPs, kPsPerNs)}};

    j["output"] = {{"dir", s.output.dir},
                   {"pcap", s.output.pcap},
                   {"sample_us", InUnit(s.output.samplePs, kPsPerUs)}};

    j["simulator"] = {{"scheduler", s.simulator.scheduler}};

    json ns3 = json::object();
    for (const auto& [k, v] : s.ns3Defaults)
    {
        ns3[k] = v;
    }
    j["ns3"] = ns3;
    return j;
}

namespace
{
/** simulator.scheduler names and their ns-3 TypeIds, the default first. */
const std::vector<std::pair<std::string, std::string>>&
SchedulerTable()
{
    static const std::vector<std::pair<std::string, std::string>> table = {
        {"timing-wheel", "ns3::TimingWheelScheduler"},
        {"map", "ns3::MapScheduler"},
        {"heap", "ns3::HeapScheduler"},
        {"calendar", "ns3::CalendarScheduler"},
        {"list", "ns3::ListScheduler"},
        {"priority-queue", "ns3::PriorityQueueScheduler"},
    };
    return table;
}
} // namespace

const std::vector<std::string>&
SchedulerNames()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& [name, tid] : SchedulerTable())
        {
            n.push_back(name);
        }
        return n;
    }();
    return names;
}

std::string
SchedulerTypeId(const std::string& name)
{
    for (const auto& [n, tid] : SchedulerTable())
    {
        if (n == name)
        {
            return tid;
        }
    }
    return "";
}

} // namespace tusk
