#include "sweep/sweep-plan.h"

#include "results/metric-catalogue.h"
#include "run/runner.h"
#include "scenario/key-path.h"
#include "scenario/scenario-inputs.h"
#include "scenario/scenario-text.h"
#include "scenario/scenario-toml.h"
#include "scenario/toml-file-reader.h"

#include "fabric/model/input-error.h"
#include "lb-policies/policy-registry.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace tusk
{

namespace fs = std::filesystem;
using ns3::InputError;

namespace
{

/** Runs the scenario loader in `dir` (relative paths of overrides resolve against the working
 *  directory, so a run resolves in its scenario's directory as `tusk run` will run there). */
class ScopedChdir
{
  public:
    explicit ScopedChdir(const fs::path& dir)
        : m_old(fs::current_path())
    {
        fs::current_path(dir);
    }
    ~ScopedChdir()
    {
        std::error_code ec;
        fs::current_path(m_old, ec);
    }
    ScopedChdir(const ScopedChdir&) = delete;
    ScopedChdir& operator=(const ScopedChdir&) = delete;

  private:
    fs::path m_old;
};

std::string
JoinKey(const std::vector<std::string>& segs, size_t from = 0, size_t to = std::string::npos)
{
    std::string s;
    for (size_t i = from; i < std::min(to, segs.size()); ++i)
    {
        s += (s.empty() ? "" : ".") + QuoteKey(segs[i]);
    }
    return s;
}

bool
IsIndex(const std::string& s)
{
    return !s.empty() && s.size() < 7 &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/** A TOML value text ("0.3", "'spray'", "[1, 2]") parsed back into a node. */
toml::table
ParseValue(const std::string& text)
{
    return toml::parse(std::string_view("v = " + text));
}

/** Label characters: what a directory name and a CSV field carry without quoting. */
bool
IsLabel(const std::string& s)
{
    return !s.empty() && s.size() <= 100 && s != "." && s != ".." &&
           std::all_of(s.begin(), s.end(), [](char c) {
               return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                      c == '-' || c == '+';
           });
}

/** Column names of sweep.csv that an axis cannot take (besides policy and seed, see Axis). */
bool
IsReservedColumn(const std::string& name)
{
    static const std::set<std::string> fixed = {"run_id", "status", "exit_status", "message",
                                                "scenario_name", "hash", "wall_time_s"};
    return fixed.count(name) || FindMetric(name) != nullptr;
}

class SweepReader : public TomlFileReader
{
  public:
    using TomlFileReader::TomlFileReader;

    SweepAxis Axis(const toml::table& t, size_t index) const
    {
        const std::string where = fmt::format("axis[{}]", index);
        CheckKeys(t, where, {"name", "key", "keys", "values", "labels"});
        SweepAxis a;
        a.line = LineOf(&t);
        const toml::node* key = t.get("key");
        const toml::node* keys = t.get("keys");
        if ((key == nullptr) == (keys == nullptr))
        {
            Fail(&t, where, "give either `key` (one scenario key) or `keys` (zipped keys)");
        }
        if (key)
        {
            a.keys.push_back(String(*key, where + ".key"));
        }
        else
        {
            a.keys = Strings(*keys, where + ".keys");
            if (a.keys.empty())
            {
                Fail(keys, where + ".keys", "expected at least one scenario key");
            }
        }
        for (const auto& k : a.keys)
        {
            try
            {
                ParseKeyPath(k);
            }
            catch (const KeyPathError& x)
            {
                Fail(key ? key : keys, where + ".key",
                     "expected a dotted scenario key like lb.policy or background.load, got \"" +
                         k + "\": " + x.what());
            }
        }
        std::set<std::string> seen(a.keys.begin(), a.keys.end());
        if (seen.size() != a.keys.size())
        {
            Fail(keys, where + ".keys", "a key is listed twice");
        }
        if (const toml::node* n = t.get("name"))
        {
            a.name = String(*n, where + ".name");
        }
        else
        {
            a.name = SplitKeyPath(a.keys[0]).back();
        }
        if (!IsBareKey(a.name) || a.name.size() > 64)
        {
            Fail(t.get("name") ? t.get("name") : &t, where + ".name",
                 "expected an axis name of letters, digits, '_' and '-' (it becomes a column "
                 "of sweep.csv), got \"" + a.name + "\"");
        }
        const toml::node* values = t.get("values");
        if (values == nullptr || !values->is_array() || values->as_array()->empty())
        {
            Fail(values ? values : &t, where + ".values", "expected a non-empty array of values");
        }
        for (auto&& v : *values->as_array())
        {
            std::vector<std::string> texts;
            if (a.keys.size() == 1)
            {
                texts.push_back(TomlValueText(v));
            }
            else
            {
                if (!v.is_array() || v.as_array()->size() != a.keys.size())
                {
                    Fail(&v, where + ".values",
                         fmt::format("with {} zipped keys every value is an array of {} values "
                                     "(one per key), got {}",
                                     a.keys.size(), a.keys.size(), TomlValueText(v)));
                }
                for (auto&& x : *v.as_array())
                {
                    texts.push_back(TomlValueText(x));
                }
            }
            a.values.push_back(texts);
            a.valueLines.push_back(LineOf(&v));
            // Default label: the value itself, or the zipped values joined by '-'.
            std::string label;
            if (a.keys.size() == 1)
            {
                label = PlainValueText(v);
            }
            else
            {
                for (auto&& x : *v.as_array())
                {
                    const std::string p = PlainValueText(x);
                    label += (label.empty() ? "" : "-") + (p.empty() ? "?" : p);
                }
            }
            a.labels.push_back(label);
        }
        if (const toml::node* n = t.get("labels"))
        {
            a.labels = Strings(*n, where + ".labels");
            a.labelled = true;
            if (a.labels.size() != a.values.size())
            {
                Fail(n, where + ".labels",
                     fmt::format("expected one label per value: {} values, {} labels",
                                 a.values.size(), a.labels.size()));
            }
        }
        std::map<std::string, size_t> labelIndex;
        for (size_t i = 0; i < a.labels.size(); ++i)
        {
            const toml::node* at = a.labelled ? t.get("labels")->as_array()->get(i)
                                              : values->as_array()->get(i);
            if (!IsLabel(a.labels[i]))
            {
                Fail(at, a.labelled ? where + ".labels" : where + ".values",
                     a.labelled
                         ? "expected a label of letters, digits, '.', '_', '-', '+' (it becomes "
                           "part of a directory name), got \"" + a.labels[i] + "\""
                         : "this value makes no directory-safe label (" + TomlValueText(*at) +
                               "); give the axis `labels`, one per value");
            }
            if (!labelIndex.emplace(a.labels[i], i).second)
            {
                Fail(at, a.labelled ? where + ".labels" : where + ".values",
                     "label \"" + a.labels[i] + "\" appears twice in this axis (run ids would "
                     "clash)");
            }
        }
        if (IsReservedColumn(a.name))
        {
            Fail(t.get("name") ? t.get("name") : &t, where + ".name",
                 "\"" + a.name + "\" is a column of sweep.csv already; name the axis differently");
        }
        if ((a.name == "policy" && !(a.keys == std::vector<std::string>{"lb.policy"} && !a.labelled)) ||
            (a.name == "seed" && !(a.keys == std::vector<std::string>{"seed"} && !a.labelled)))
        {
            Fail(t.get("name") ? t.get("name") : &t, where + ".name",
                 "the column \"" + a.name + "\" holds the resolved " +
                     (a.name == "policy" ? "lb.policy" : "seed") +
                     " of every run; only an unlabelled axis of that key may take this name");
        }
        return a;
    }

    SlurmOptions Slurm(const toml::node& node) const
    {
        if (!node.is_table())
        {
            Fail(&node, "slurm", "expected a table");
        }
        SlurmOptions o;
        const toml::table& t = *node.as_table();
        CheckKeys(t, "slurm", {"partition", "time", "mem", "account", "chunk", "max_parallel",
                               "sbatch_args"});
        auto str = [&](const char* k, std::string& out) {
            if (const toml::node* v = t.get(k))
            {
                out = String(*v, std::string("slurm.") + k);
            }
        };
        str("partition", o.partition);
        str("time", o.time);
        str("mem", o.mem);
        str("account", o.account);
        if (const toml::node* v = t.get("chunk"))
        {
            o.chunk = static_cast<uint32_t>(Integer(*v, "slurm.chunk", 1, UINT32_MAX));
        }
        if (const toml::node* v = t.get("max_parallel"))
        {
            o.maxParallel = static_cast<uint32_t>(Integer(*v, "slurm.max_parallel", 0, UINT32_MAX));
        }
        if (const toml::node* v = t.get("sbatch_args"))
        {
            o.sbatchArgs = Strings(*v, "slurm.sbatch_args");
        }
        return o;
    }

    SweepSpec Read()
    {
        const toml::table root = Parse("sweep file");
        CheckKeys(root, "", {"name", "scenario", "combine", "set", "axis", "slurm"});
        SweepSpec spec;
        spec.file = m_file;
        spec.name = fs::path(m_file).stem().string();
        if (const toml::node* n = root.get("name"))
        {
            spec.name = String(*n, "name");
            if (!IsSafeName(spec.name))
            {
                Fail(n, "name", "expected a name of letters, digits, '.', '_', '-' and '+', not "
                                "starting with '.' or '-' (results go to results/<name>/)");
            }
        }
        else if (!IsSafeName(spec.name))
        {
            Fail(nullptr, "name", "the file name \"" + spec.name +
                                      "\" is not a valid sweep name; give `name`");
        }
        const toml::node* sc = root.get("scenario");
        if (sc == nullptr)
        {
            throw InputError(m_file, 0, "scenario",
                             "missing: the base scenario file, e.g. scenario = \"base.toml\"");
        }
        fs::path p = String(*sc, "scenario");
        if (p.is_relative())
        {
            p = fs::absolute(fs::path(m_file).parent_path() / p);
        }
        p = p.lexically_normal();
        std::error_code ec;
        if (!fs::is_regular_file(p, ec))
        {
            Fail(sc, "scenario", "no such scenario file: " + p.string() +
                                     " (relative paths are relative to the sweep file)");
        }
        spec.scenario = p.string();
        spec.scenarioLine = LineOf(sc);
        if (const toml::node* n = root.get("combine"))
        {
            const std::string c = String(*n, "combine");
            if (c != "product" && c != "zip")
            {
                Fail(n, "combine", "expected \"product\" (every combination of the axes' values) "
                                   "or \"zip\" (the i-th value of every axis together), got \"" +
                                       c + "\"");
            }
            spec.zip = c == "zip";
        }
        if (const toml::node* n = root.get("set"))
        {
            if (!n->is_table())
            {
                Fail(n, "set", "expected a table of scenario keys and values, e.g. "
                               "[set] nic.receiver = \"selective-repeat\"");
            }
            spec.sets = FlattenSetTable(*n->as_table());
        }
        if (const toml::node* n = root.get("axis"))
        {
            if (!n->is_array_of_tables())
            {
                Fail(n, "axis", "expected [[axis]] tables");
            }
            size_t i = 0;
            std::set<std::string> names;
            std::map<std::string, std::string> keyAxis;
            for (auto&& t : *n->as_array())
            {
                SweepAxis a = Axis(*t.as_table(), i);
                if (!names.insert(a.name).second)
                {
                    Fail(&t, fmt::format("axis[{}].name", i),
                         "two axes are named \"" + a.name + "\"; give `name`");
                }
                for (const auto& k : a.keys)
                {
                    if (!keyAxis.emplace(k, a.name).second)
                    {
                        Fail(&t, fmt::format("axis[{}].key", i),
                             "key " + k + " is already swept by axis \"" + keyAxis[k] + "\"");
                    }
                }
                spec.axes.push_back(std::move(a));
                ++i;
            }
        }
        if (spec.zip)
        {
            for (const auto& a : spec.axes)
            {
                if (a.values.size() != spec.axes[0].values.size())
                {
                    throw InputError(m_file, a.line, "axis " + a.name,
                                     fmt::format("combine = \"zip\" needs axes of equal length: "
                                                 "\"{}\" has {} values, \"{}\" has {}",
                                                 a.name, a.values.size(), spec.axes[0].name,
                                                 spec.axes[0].values.size()));
                }
            }
        }
        // Every run is listed and resolved before anything runs: refuse here a product of
        // axes no one means to run, rather than spend hours (and memory) expanding it.
        size_t runs = 1;
        for (const auto& a : spec.axes)
        {
            runs = spec.zip ? a.values.size() : runs * a.values.size();
            if (runs > kMaxSweepRuns)
            {
                throw InputError(m_file, a.line, "axis " + a.name,
                                 fmt::format("the sweep would have more than {} runs (counting "
                                             "the axes up to this one); split it into sweeps",
                                             kMaxSweepRuns));
            }
        }
        if (const toml::node* n = root.get("slurm"))
        {
            spec.slurm = Slurm(*n);
        }
        return spec;
    }
};

/**
 * Set `segs` (from `at`) to `value` inside `node`: tables are walked (created where missing),
 * an array of tables is entered at a numeric segment (that entry) or else in every entry.
 */
void
ApplyInside(toml::node& node, const std::vector<std::string>& segs, size_t at,
            const toml::node& value)
{
    if (node.is_array())
    {
        toml::array& arr = *node.as_array();
        if (IsIndex(segs[at]))
        {
            const size_t i = std::stoul(segs[at]);
            if (i >= arr.size())
            {
                throw std::invalid_argument(fmt::format(
                    "{} has {} entries in the base scenario; index {} is out of range",
                    JoinKey(segs, 0, at), arr.size(), i));
            }
            if (at + 1 == segs.size())
            {
                throw std::invalid_argument("cannot replace a whole entry of " + JoinKey(segs, 0, at) +
                                            "; set one of its keys");
            }
            ApplyInside(*arr.get(i), segs, at + 1, value);
            return;
        }
        for (auto&& e : arr)
        {
            ApplyInside(e, segs, at, value);
        }
        return;
    }
    if (!node.is_table())
    {
        throw std::invalid_argument(JoinKey(segs, 0, at) + " is " + DescribeNode(node) +
                                    " in the base scenario, not a table");
    }
    toml::table& t = *node.as_table();
    if (at + 1 == segs.size())
    {
        value.visit([&](auto&& x) { t.insert_or_assign(segs[at], x); });
        return;
    }
    toml::node* child = t.get(segs[at]);
    if (child == nullptr)
    {
        t.insert(segs[at], toml::table{});
        child = t.get(segs[at]);
    }
    ApplyInside(*child, segs, at + 1, value);
}

/**
 * The `--set` arguments of a list of edits on `base`. An edit whose key goes through an array
 * of tables of the base scenario ([[background]], [[jobs]], ...) cannot be a plain `--set`
 * (a key path has no array index): the whole array is copied, edited (every entry, or entry N
 * for a segment N), and set as one inline value. Several edits of the same array become one
 * override. Throws InputError naming the edit's line.
 */
std::vector<std::string>
SetArguments(const toml::table& base, const std::vector<RunEdit>& edits, const std::string& sweepFile)
{
    std::vector<std::string> out;
    std::map<std::string, std::pair<size_t, toml::array>> arrays; // array key -> (out slot, copy)
    for (const auto& e : edits)
    {
        const std::vector<std::string> segs = SplitKeyPath(e.key);
        // The first array of tables on the path, if any.
        const toml::node* node = &base;
        size_t arrayAt = segs.size();
        for (size_t i = 0; i + 1 < segs.size() && node && node->is_table(); ++i)
        {
            node = node->as_table()->get(segs[i]);
            if (node && node->is_array_of_tables())
            {
                arrayAt = i;
                break;
            }
        }
        if (arrayAt == segs.size())
        {
            out.push_back(SetArgument(e.key, e.value));
            continue;
        }
        const std::string arrayKey = JoinKey(segs, 0, arrayAt + 1);
        auto it = arrays.find(arrayKey);
        if (it == arrays.end())
        {
            it = arrays.emplace(arrayKey, std::make_pair(out.size(), *node->as_array())).first;
            out.emplace_back();
        }
        try
        {
            toml::table v = ParseValue(e.value);
            toml::node& arr = it->second.second;
            ApplyInside(arr, segs, arrayAt + 1, *v.get("v"));
        }
        catch (const std::invalid_argument& x)
        {
            throw InputError(e.file.empty() ? sweepFile : e.file, e.line, e.key, x.what());
        }
    }
    for (const auto& [key, slot] : arrays)
    {
        out[slot.first] = SetArgument(key, TomlValueText(slot.second));
    }
    return out;
}

std::string
RunId(const std::vector<std::pair<std::string, std::string>>& labels)
{
    if (labels.empty())
    {
        return "run";
    }
    std::string id;
    for (const auto& [name, label] : labels)
    {
        id += (id.empty() ? "" : ",") + name + "=" + label;
    }
    return id;
}

} // namespace

unsigned
LineOf(const toml::node* node)
{
    return node ? static_cast<unsigned>(node->source().begin.line) : 0;
}

std::vector<std::string>
SplitKeyPath(const std::string& key)
{
    try
    {
        const KeyPath path = ParseKeyPath(key);
        std::vector<std::string> segs;
        for (size_t k = 0; k < path.keys.size(); ++k)
        {
            segs.push_back(path.keys[k]);
            if (path.index[k] >= 0)
            {
                segs.push_back(std::to_string(path.index[k])); // failures[0] is failures.0
            }
        }
        return segs;
    }
    catch (const KeyPathError&)
    {
        return {};
    }
}

std::string
TomlValueText(const toml::node& node)
{
    if (const auto* f = node.as_floating_point())
    {
        const double v = f->get();
        if (std::isnan(v))
        {
            return "nan";
        }
        if (std::isinf(v))
        {
            return v > 0 ? "inf" : "-inf";
        }
        std::string s = fmt::format("{}", v); // shortest text that reads back exactly
        if (s.find_first_of(".e") == std::string::npos)
        {
            s += ".0";
        }
        return s;
    }
    if (const auto* i = node.as_integer())
    {
        return std::to_string(i->get());
    }
    if (const auto* b = node.as_boolean())
    {
        return b->get() ? "true" : "false";
    }
    if (const auto* a = node.as_array())
    {
        std::string s = "[";
        for (size_t k = 0; k < a->size(); ++k)
        {
            s += (k ? ", " : "") + TomlValueText(*a->get(k));
        }
        return s + "]";
    }
    if (const auto* t = node.as_table())
    {
        std::string s = "{";
        bool first = true;
        for (auto&& [k, v] : *t)
        {
            s += (first ? " " : ", ") + QuoteKey(std::string(k.str())) + " = " + TomlValueText(v);
            first = false;
        }
        return s + (first ? "}" : " }");
    }
    if (const auto* str = node.as_string())
    {
        // A TOML basic string: JSON's escapes (\" \\ \n \uXXXX) are TOML's too.
        return nlohmann::json(str->get()).dump();
    }
    std::ostringstream os; // dates and times: toml++'s own TOML text
    node.visit([&](auto&& x) { os << toml::toml_formatter(x); });
    return os.str();
}

std::string
PlainValueText(const toml::node& node)
{
    if (const auto* s = node.as_string())
    {
        return s->get();
    }
    if (node.is_array() || node.is_table())
    {
        return "";
    }
    return TomlValueText(node);
}

std::string
SetArgument(const std::string& key, const std::string& valueText)
{
    return key + "=" + valueText;
}

bool
IsSafeName(const std::string& s)
{
    return IsLabel(s) && s[0] != '.' && s[0] != '-';
}

std::string
RunHash(const nlohmann::json& scenario, const nlohmann::json& inputs)
{
    if (!inputs.is_array() || inputs.empty())
    {
        return Sha256Hex(scenario.dump());
    }
    return Sha256Hex(scenario.dump() + "\ninputs " + inputs.dump());
}

std::string
Sha256Hex(const std::string& text)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_Digest(text.data(), text.size(), md, &len, EVP_sha256(), nullptr) != 1)
    {
        throw std::runtime_error("SHA-256 failed (OpenSSL EVP_Digest)");
    }
    std::string hex;
    for (unsigned int i = 0; i < len; ++i)
    {
        hex += fmt::format("{:02x}", md[i]);
    }
    return hex;
}

SweepSpec
ReadSweepFile(const std::string& path)
{
    return SweepReader(path).Read();
}

SweepSpec
ReadSweepString(const std::string& text, const std::string& path)
{
    return SweepReader(path, text).Read();
}

SlurmOptions
ReadSlurmTable(const toml::node& table, const std::string& file)
{
    return SweepReader(file).Slurm(table);
}

void
ResolveRun(SweepRun& run)
{
    ScenarioSpec spec;
    {
        ScopedChdir cd(fs::path(run.scenario).parent_path());
        spec = LoadScenarioFile(run.scenario, run.sets);
    }
    if (ns3::ResolveSwitchPolicy(spec.lb.policy).empty())
    {
        throw InputError("--set", 0, "lb.policy",
                         "unknown policy \"" + spec.lb.policy + "\"; expected one of " +
                             ns3::PolicyNameList());
    }
    // The hash is of the scenario as the run will echo it into its manifest (derived values
    // explicit, ResolveScenario) and of the files it reads (their bytes' SHA-256), which is
    // what resuming compares (HasCompleteResults).
    const ScenarioSpec resolved = ResolveScenario(spec);
    run.hash = RunHash(ScenarioToJson(resolved), InputsJson(resolved));
    run.policy = spec.lb.policy;
    run.seed = spec.seed;
}

namespace
{
void
FlattenInto(const toml::table& t, const std::string& prefix, std::vector<RunEdit>& out)
{
    for (auto&& [k, v] : t)
    {
        // A quoted key with dots ("nic.receiver" = ...) is a key path, as `--set` and an axis's
        // `key` take it: no scenario key has a dot in its name.
        const std::string name(k.str());
        const std::string key = prefix + (prefix.empty() ? "" : ".") +
                                (name.find('.') != std::string::npos ? name : QuoteKey(name));
        if (v.is_table())
        {
            FlattenInto(*v.as_table(), key, out);
        }
        else
        {
            out.push_back({key, TomlValueText(v), LineOf(&v), ""});
        }
    }
}
} // namespace

RunEdit
CommandLineEdit(const std::string& argument)
{
    // The key path and the value as `tusk run --set` reads them (key-path.h).
    const size_t eq = argument.find('=');
    const std::string key = eq == std::string::npos ? "" : Trim(argument.substr(0, eq));
    const std::string syntax = "expected KEY.PATH=VALUE, e.g. nic.receiver=selective-repeat";
    if (eq == std::string::npos)
    {
        throw InputError("--set", 0, argument, syntax);
    }
    try
    {
        ParseKeyPath(key);
    }
    catch (const KeyPathError& x)
    {
        throw InputError("--set", 0, key, std::string(x.what()) + "; " + syntax);
    }
    RunEdit e;
    e.key = key;
    e.file = "--set";
    e.value = TomlValueText(*ParseOverrideValue(argument.substr(eq + 1)).get("v"));
    return e;
}

std::vector<RunEdit>
FlattenSetTable(const toml::table& table)
{
    std::vector<RunEdit> out;
    FlattenInto(table, "", out);
    return out;
}

toml::table
ReadBaseScenario(const std::string& scenario)
{
    try
    {
        return toml::parse_file(scenario);
    }
    catch (const toml::parse_error&)
    {
        LoadScenarioFile(scenario); // reports the syntax error as the loader does
        throw;
    }
}

void
BuildRun(SweepRun& run, const toml::table& base, const std::vector<RunEdit>& edits,
         const std::string& file, unsigned scenarioLine)
{
    run.sets = SetArguments(base, edits, file);
    try
    {
        ResolveRun(run);
    }
    catch (const InputError& e)
    {
        if (e.File() != "--set")
        {
            throw; // the base scenario itself (its file and line)
        }
        // Name the edit whose key the loader complained about (the last one that matches).
        // Compare key paths without array indices: the loader says background[0].load where
        // the edit said background.load (every entry) or background.0.load.
        auto path = [](std::string key) {
            for (size_t i; (i = key.find('[')) != std::string::npos;)
            {
                const size_t j = key.find(']', i);
                key.replace(i, j == std::string::npos ? std::string::npos : j - i + 1, "");
            }
            std::vector<std::string> segs = SplitKeyPath(key);
            segs.erase(std::remove_if(segs.begin(), segs.end(), IsIndex), segs.end());
            return segs;
        };
        const RunEdit* culprit = nullptr;
        const std::vector<std::string> bad = path(e.Key());
        for (const auto& ed : edits)
        {
            const std::vector<std::string> k = path(ed.key);
            const size_t n = std::min(k.size(), bad.size());
            if (n > 0 && std::equal(k.begin(), k.begin() + n, bad.begin()))
            {
                culprit = &ed;
            }
        }
        if (culprit == nullptr)
        {
            throw InputError(file, scenarioLine, "scenario", "run " + run.id + ": " + e.what());
        }
        throw InputError(culprit->file.empty() ? file : culprit->file, culprit->line, culprit->key,
                         "value " + culprit->value + " (run " + run.id +
                             ") is refused by the scenario loader: " + e.Key() + ": " +
                             e.Message());
    }
}

SweepPlan
ExpandSweep(const SweepSpec& spec, const std::string& root)
{
    // An override of a key an axis sets (or of a table holding it, or a key inside it) would
    // be replaced by the axis' value in every run: refused rather than silently lost.
    auto overlaps = [](const std::string& a, const std::string& b) {
        const std::string& shorter = a.size() <= b.size() ? a : b;
        const std::string& longer = a.size() <= b.size() ? b : a;
        return longer.compare(0, shorter.size(), shorter) == 0 &&
               (longer.size() == shorter.size() || longer[shorter.size()] == '.' ||
                longer[shorter.size()] == '[');
    };
    for (const RunEdit& e : spec.sets)
    {
        for (const auto& a : spec.axes)
        {
            for (const auto& k : a.keys)
            {
                if (overlaps(e.key, k))
                {
                    throw InputError(e.file.empty() ? spec.file : e.file, e.line, e.key,
                                     "the sweep's axis \"" + a.name + "\" (line " +
                                         std::to_string(a.line) + ") sets " + k +
                                         " in every run, which would override this; remove "
                                         "one or the other");
                }
            }
        }
    }
    SweepPlan plan;
    plan.name = spec.name;
    plan.sourceFile = spec.file;
    plan.root = fs::absolute(root).lexically_normal().string();
    plan.slurm = spec.slurm;
    for (const auto& a : spec.axes)
    {
        plan.axisNames.push_back(a.name);
        plan.axisKeys.push_back(a.keys);
        if (a.labelled || a.keys.size() > 1)
        {
            for (const auto& k : a.keys)
            {
                if (std::find(plan.valueColumns.begin(), plan.valueColumns.end(), k) ==
                    plan.valueColumns.end())
                {
                    plan.valueColumns.push_back(k);
                }
            }
        }
    }
    const toml::table base = ReadBaseScenario(spec.scenario);

    // The points: index of each axis's value.
    std::vector<std::vector<size_t>> points;
    if (spec.axes.empty())
    {
        points.emplace_back();
    }
    else if (spec.zip)
    {
        for (size_t i = 0; i < spec.axes[0].values.size(); ++i)
        {
            points.emplace_back(spec.axes.size(), i);
        }
    }
    else
    {
        std::vector<size_t> idx(spec.axes.size(), 0);
        while (true)
        {
            points.push_back(idx);
            size_t a = spec.axes.size();
            while (a > 0)
            {
                --a;
                if (++idx[a] < spec.axes[a].values.size())
                {
                    break;
                }
                idx[a] = 0;
                if (a == 0)
                {
                    a = spec.axes.size() + 1; // done
                    break;
                }
            }
            if (a == spec.axes.size() + 1)
            {
                break;
            }
        }
    }

    std::map<std::string, std::string> byHash;
    for (const auto& point : points)
    {
        SweepRun run;
        run.scenario = spec.scenario;
        std::vector<RunEdit> edits = spec.sets;
        for (size_t a = 0; a < spec.axes.size(); ++a)
        {
            const SweepAxis& axis = spec.axes[a];
            const size_t i = point[a];
            run.labels.emplace_back(axis.name, axis.labels[i]);
            for (size_t k = 0; k < axis.keys.size(); ++k)
            {
                edits.push_back({axis.keys[k], axis.values[i][k], axis.valueLines[i], ""});
                if (axis.labelled || axis.keys.size() > 1)
                {
                    toml::table v = ParseValue(axis.values[i][k]);
                    run.values.emplace_back(axis.keys[k], PlainValueText(*v.get("v")));
                }
            }
        }
        run.id = RunId(run.labels);
        BuildRun(run, base, edits, spec.file, spec.scenarioLine);
        auto [it, fresh] = byHash.emplace(run.hash, run.id);
        if (!fresh)
        {
            plan.duplicates.emplace_back(run.id, it->second);
        }
        plan.runs.push_back(std::move(run));
    }
    return plan;
}

} // namespace tusk
