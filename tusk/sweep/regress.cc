#include "sweep/regress.h"

#include "scenario/toml-file-reader.h"

#include "fabric/model/input-error.h"
#include "lb-policies/policy-registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace tusk
{

namespace fs = std::filesystem;
using ns3::InputError;

namespace
{

/** Metrics where a lower value is better; those where higher is better; the rest two-sided. */
const std::set<std::string> kLowerIsBetter = {
    "cct_us",      "slowdown_mean", "slowdown_p50",   "slowdown_p99",  "slowdown_max",
    "fct_p99_us",  "fct_max_us",    "drops",          "pfc_pauses",    "pfc_paused_fraction",
    "pfc_max_depth", "ecn_marks",   "cnps",           "trimmed_frames", "retx_packets",  "ooo_packets",
    "retx_bytes",  "retx_timeout_packets", "naks",          "spurious_retx",  "reorder_max",   "reorder_mean",
    "uplink_imbalance"};
const std::set<std::string> kHigherIsBetter = {"algbw_GBps", "busbw_GBps", "uplink_jain"};

std::string
DefaultBetter(const std::string& metric)
{
    return kLowerIsBetter.count(metric) ? "lower" : kHigherIsBetter.count(metric) ? "higher" : "none";
}

bool
IsMetric(const std::string& m)
{
    const auto& names = SummaryMetricNames();
    return std::find(names.begin(), names.end(), m) != names.end();
}

std::string
MetricList()
{
    std::string s;
    for (const auto& m : SummaryMetricNames())
    {
        s += (s.empty() ? "" : ", ") + m;
    }
    return s;
}



/** The byte offset of 1-based column `col` (counted in code points) of a UTF-8 line. */
size_t
ByteOfColumn(const std::string& line, unsigned col)
{
    unsigned c = 1;
    for (size_t i = 0; i < line.size(); ++i)
    {
        if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80)
        {
            continue; // continuation byte
        }
        if (c == col)
        {
            return i;
        }
        ++c;
    }
    return line.size();
}

std::string
NumberText(double v, bool integer)
{
    if (integer && v == std::floor(v) && std::fabs(v) < 9e15)
    {
        return fmt::format("{}", static_cast<long long>(v));
    }
    // Nine significant digits: the simulator's values are exact to far less than any band,
    // and 169.898592 reads better than 169.89859199999998.
    std::string s = fmt::format("{:.9g}", v);
    if (s.find_first_of(".en") == std::string::npos)
    {
        s += ".0";
    }
    return s;
}

std::string
BandText(const Band& b)
{
    std::string rel = b.rel > 0 ? fmt::format("{:g}%", b.rel * 100) : "";
    std::string abs = b.abs > 0 || b.rel == 0 ? fmt::format("{:g}", b.abs) : "";
    if (!rel.empty() && !abs.empty())
    {
        return "±max(" + abs + ", " + rel + ")";
    }
    return "±" + (rel.empty() ? abs : rel);
}

std::string
Xml(const std::string& s)
{
    std::string o;
    for (char c : s)
    {
        switch (c)
        {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        case '\'': o += "&apos;"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
            {
                o += ' ';
            }
            else
            {
                o += c;
            }
        }
    }
    return o;
}

class SuiteReader : public TomlFileReader
{
  public:
    using TomlFileReader::TomlFileReader;

    std::vector<std::string> Policies(const toml::node& n, const std::string& key) const
    {
        std::vector<std::string> out;
        if (n.is_string() && n.as_string()->get() == "all")
        {
            for (const auto& p : ns3::SwitchPolicies())
            {
                if (p.fabric.empty()) // fabric-specific policies (ib-static) only by name
                {
                    out.push_back(p.name);
                }
            }
            return out;
        }
        if (!n.is_array() || n.as_array()->empty())
        {
            Fail(&n, key, "expected \"all\" or a non-empty array of policy names (tusk policies)");
        }
        for (auto&& v : *n.as_array())
        {
            const std::string p = String(v, key);
            if (ns3::ResolveSwitchPolicy(p).empty())
            {
                Fail(&v, key, "unknown policy \"" + p + "\" (see `tusk policies`)");
            }
            if (std::find(out.begin(), out.end(), p) != out.end())
            {
                Fail(&v, key, "policy \"" + p + "\" is listed twice");
            }
            out.push_back(p);
        }
        return out;
    }

    std::vector<uint64_t> Seeds(const toml::node& n, const std::string& key) const
    {
        std::vector<uint64_t> out;
        if (n.is_integer())
        {
            // seeds = N: seeds 1..N (statistical oracles over many seeds).
            const int64_t count = Integer(n, key, 1);
            if (count > 100000)
            {
                Fail(&n, key, "at most 100000 seeds");
            }
            for (int64_t i = 1; i <= count; ++i)
            {
                out.push_back(static_cast<uint64_t>(i));
            }
            return out;
        }
        if (!n.is_array() || n.as_array()->empty())
        {
            Fail(&n, key, "expected a non-empty array of seeds, e.g. [1, 2, 3], or a count N "
                          "(seeds 1..N)");
        }
        for (auto&& v : *n.as_array())
        {
            if (!v.is_integer() || v.as_integer()->get() < 0)
            {
                Fail(&v, key, "expected an integer >= 0");
            }
            const uint64_t s = static_cast<uint64_t>(v.as_integer()->get());
            if (std::find(out.begin(), out.end(), s) != out.end())
            {
                Fail(&v, key, "seed listed twice");
            }
            out.push_back(s);
        }
        return out;
    }

    Band ReadBand(const toml::table& t, const std::string& where) const
    {
        Band b;
        if (const toml::node* n = t.get("rel"))
        {
            b.rel = Number(*n, where + ".rel", true);
            b.given = true;
        }
        if (const toml::node* n = t.get("abs"))
        {
            b.abs = Number(*n, where + ".abs", true);
            b.given = true;
        }
        return b;
    }

    RegressSuite Read()
    {
        const toml::table root = Parse("suite file");
        CheckKeys(root, "", {"name", "policies", "seeds", "bands", "scenario", "baseline", "slurm"});
        RegressSuite suite;
        suite.file = m_file;
        suite.name = fs::path(m_file).stem().string();
        if (const toml::node* n = root.get("name"))
        {
            suite.name = String(*n, "name");
        }
        if (!IsSafeName(suite.name))
        {
            Fail(root.get("name"), "name", "expected a name of letters, digits, '.', '_', '-' "
                                           "(results go to results/regress/<name>/)");
        }
        std::vector<std::string> policies;
        unsigned policiesLine = 0;
        if (const toml::node* n = root.get("policies"))
        {
            policies = Policies(*n, "policies");
            policiesLine = LineOf(n);
        }
        std::vector<uint64_t> seeds = {1};
        unsigned seedsLine = 0;
        if (const toml::node* n = root.get("seeds"))
        {
            seeds = Seeds(*n, "seeds");
            seedsLine = LineOf(n);
        }
        if (const toml::node* n = root.get("bands"))
        {
            if (!n->is_table())
            {
                Fail(n, "bands", "expected a table: metric = { rel = 0.05 } or { abs = 10 }");
            }
            for (auto&& [k, v] : *n->as_table())
            {
                const std::string m(k.str());
                if (!IsMetric(m))
                {
                    Fail(&v, "bands." + m, "unknown metric; expected one of " + MetricList());
                }
                if (!v.is_table())
                {
                    Fail(&v, "bands." + m, "expected { rel = R } and/or { abs = A }");
                }
                CheckKeys(*v.as_table(), "bands." + m, {"rel", "abs"});
                Band b = ReadBand(*v.as_table(), "bands." + m);
                if (!b.given)
                {
                    Fail(&v, "bands." + m, "expected rel and/or abs");
                }
                suite.bands[m] = b;
            }
        }
        const toml::node* scen = root.get("scenario");
        if (scen == nullptr || !scen->is_array_of_tables() || scen->as_array()->empty())
        {
            Fail(scen, "scenario", "expected [[scenario]] tables (name, file, metrics)");
        }
        size_t i = 0;
        for (auto&& node : *scen->as_array())
        {
            const toml::table& t = *node.as_table();
            const std::string where = fmt::format("scenario[{}]", i++);
            CheckKeys(t, where, {"name", "file", "metrics", "set", "policies", "seeds"});
            SuiteScenario s;
            s.line = LineOf(&t);
            const toml::node* name = t.get("name");
            if (name == nullptr)
            {
                Fail(&t, where + ".name", "missing: a short name (baseline tables use it)");
            }
            s.name = String(*name, where + ".name");
            if (!IsBareKey(s.name))
            {
                Fail(name, where + ".name", "expected letters, digits, '_' and '-'");
            }
            for (const auto& o : suite.scenarios)
            {
                if (o.name == s.name)
                {
                    Fail(name, where + ".name", "two scenarios are named \"" + s.name + "\"");
                }
            }
            const toml::node* file = t.get("file");
            if (file == nullptr)
            {
                Fail(&t, where + ".file", "missing: the scenario file");
            }
            fs::path p = String(*file, where + ".file");
            if (p.is_relative())
            {
                p = fs::absolute(fs::path(m_file).parent_path() / p);
            }
            std::error_code ec;
            if (!fs::is_regular_file(p, ec))
            {
                Fail(file, where + ".file", "no such scenario file: " + p.lexically_normal().string() +
                                                " (relative to the suite file)");
            }
            s.file = p.lexically_normal().string();
            if (const toml::node* n = t.get("set"))
            {
                if (!n->is_table())
                {
                    Fail(n, where + ".set", "expected a table of scenario keys and values");
                }
                s.sets = FlattenSetTable(*n->as_table());
            }
            s.policies = policies;
            s.policiesLine = policiesLine;
            if (const toml::node* n = t.get("policies"))
            {
                s.policies = Policies(*n, where + ".policies");
                s.policiesLine = LineOf(n);
            }
            if (s.policies.empty())
            {
                Fail(&t, where + ".policies", "no policies: give `policies` here or at the top");
            }
            s.seeds = seeds;
            s.seedsLine = seedsLine ? seedsLine : s.line;
            if (const toml::node* n = t.get("seeds"))
            {
                s.seeds = Seeds(*n, where + ".seeds");
                s.seedsLine = LineOf(n);
            }
            const toml::node* metrics = t.get("metrics");
            if (metrics == nullptr || !metrics->is_array())
            {
                Fail(metrics ? metrics : &t, where + ".metrics",
                     "expected an array of summary metrics to check, e.g. [\"fct_p99_us\"]");
            }
            for (auto&& m : *metrics->as_array())
            {
                const std::string name = String(m, where + ".metrics");
                if (!IsMetric(name))
                {
                    Fail(&m, where + ".metrics", "unknown metric \"" + name +
                                                     "\"; expected one of " + MetricList());
                }
                s.metrics.push_back(name);
            }
            suite.scenarios.push_back(std::move(s));
        }
        if (const toml::node* n = root.get("baseline"))
        {
            if (!n->is_table())
            {
                Fail(n, "baseline", "expected [baseline.<scenario>] tables");
            }
            for (auto&& [sk, sv] : *n->as_table())
            {
                ReadBaselineTable(std::string(sk.str()), sv, suite);
            }
        }
        if (const toml::node* n = root.get("slurm"))
        {
            suite.slurm = ReadSlurmTable(*n, m_file);
        }
        return suite;
    }

    void ReadBaselineTable(const std::string& scenario, const toml::node& node, RegressSuite& suite)
    {
        const std::string where = "baseline." + scenario;
        auto s = std::find_if(suite.scenarios.begin(), suite.scenarios.end(),
                              [&](const SuiteScenario& x) { return x.name == scenario; });
        if (s == suite.scenarios.end())
        {
            Fail(&node, where, "no [[scenario]] is named \"" + scenario + "\"");
        }
        if (!node.is_table())
        {
            Fail(&node, where, "expected a table of <policy>.<metric> = { value, source, ... }");
        }
        unsigned& end = suite.baselineTableEnd[scenario];
        end = std::max(end, LineOf(&node));
        for (auto&& [pk, pv] : *node.as_table())
        {
            const std::string policy(pk.str());
            if (std::find(s->policies.begin(), s->policies.end(), policy) == s->policies.end())
            {
                Fail(&pv, where + "." + policy,
                     "scenario \"" + scenario + "\" does not run policy \"" + policy + "\"");
            }
            if (!pv.is_table())
            {
                Fail(&pv, where + "." + policy, "expected <policy>.<metric> = { value, source }");
            }
            for (auto&& [mk, mv] : *pv.as_table())
            {
                suite.baselines.push_back(Entry(scenario, policy, std::string(mk.str()), mv, suite));
                end = std::max(end, LineOf(&mv));
            }
        }
    }

    Baseline Entry(const std::string& scenario, const std::string& policy, const std::string& metric,
                   const toml::node& node, const RegressSuite& suite) const
    {
        const std::string where = "baseline." + scenario + "." + policy + "." + metric;
        if (!IsMetric(metric))
        {
            Fail(&node, where, "unknown metric; expected one of " + MetricList());
        }
        if (!node.is_table())
        {
            Fail(&node, where, "expected { value = V, rel = R or abs = A, source = \"...\" }");
        }
        const toml::table& t = *node.as_table();
        CheckKeys(t, where, {"value", "rel", "abs", "source", "better", "stat"});
        Baseline b;
        b.scenario = scenario;
        b.policy = policy;
        b.metric = metric;
        b.line = LineOf(&node);
        const toml::node* value = t.get("value");
        if (value == nullptr)
        {
            Fail(&node, where + ".value", "missing");
        }
        b.value = Number(*value, where + ".value", false);
        b.integer = value->is_integer();
        b.valueLine = value->source().begin.line;
        b.valueBegin = value->source().begin.column;
        b.valueEnd = value->source().end.column;
        b.band = ReadBand(t, where);
        if (!b.band.given)
        {
            auto it = suite.bands.find(metric);
            if (it == suite.bands.end())
            {
                Fail(&node, where, "no band: give rel and/or abs here, or a default in [bands]");
            }
            b.band = it->second;
            b.band.given = false;
        }
        const toml::node* source = t.get("source");
        if (source == nullptr)
        {
            Fail(&node, where + ".source",
                 "missing: where the value comes from: \"theory: ...\", \"paper: <ref>\" or "
                 "\"measured: <date>, <revision>\"");
        }
        b.source = String(*source, where + ".source");
        if (!(b.source == "theory" || b.source.rfind("theory:", 0) == 0 ||
              b.source.rfind("paper:", 0) == 0 || b.source.rfind("measured:", 0) == 0))
        {
            Fail(source, where + ".source",
                 "expected \"theory\", \"theory: <why>\", \"paper: <ref>\" or \"measured: <date>, "
                 "<revision>\", got \"" + b.source + "\"");
        }
        b.sourceLine = source->source().begin.line;
        b.sourceBegin = source->source().begin.column;
        b.sourceEnd = source->source().end.column;
        b.sourceEndLine = source->source().end.line;
        b.better = DefaultBetter(metric);
        if (const toml::node* n = t.get("better"))
        {
            b.better = String(*n, where + ".better");
            if (b.better != "lower" && b.better != "higher" && b.better != "none")
            {
                Fail(n, where + ".better", "expected \"lower\", \"higher\" or \"none\" (two-sided)");
            }
        }
        b.stat = "mean";
        if (const toml::node* n = t.get("stat"))
        {
            b.stat = String(*n, where + ".stat");
            if (b.stat != "mean" && b.stat != "median" && b.stat != "min" && b.stat != "max")
            {
                Fail(n, where + ".stat", "expected \"mean\", \"median\", \"min\" or \"max\" (over seeds)");
            }
        }
        return b;
    }
};

double
Aggregate(std::vector<double> v, const std::string& stat)
{
    if (v.empty())
    {
        return NAN;
    }
    std::sort(v.begin(), v.end());
    if (stat == "min")
    {
        return v.front();
    }
    if (stat == "max")
    {
        return v.back();
    }
    if (stat == "median")
    {
        const size_t n = v.size();
        return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    }
    double sum = 0;
    for (double x : v)
    {
        sum += x;
    }
    return sum / static_cast<double>(v.size());
}

std::string
Label(const SweepRun& run, const std::string& axis)
{
    for (const auto& [n, l] : run.labels)
    {
        if (n == axis)
        {
            return l;
        }
    }
    return "";
}

} // namespace

RegressSuite
ReadSuite(const std::string& path)
{
    return SuiteReader(path).Read();
}

RegressSuite
ReadSuiteString(const std::string& text, const std::string& path)
{
    return SuiteReader(path, text).Read();
}

SweepPlan
SuitePlan(const RegressSuite& suite, const std::string& root)
{
    SweepPlan plan;
    plan.name = suite.name;
    plan.kind = "regress";
    plan.sourceFile = suite.file;
    plan.root = fs::absolute(root).lexically_normal().string();
    plan.slurm = suite.slurm;
    plan.axisNames = {"scenario", "policy", "seed"};
    plan.axisKeys = {{"scenario"}, {"lb.policy"}, {"seed"}};
    for (const auto& s : suite.scenarios)
    {
        const toml::table base = ReadBaseScenario(s.file);
        for (const auto& p : s.policies)
        {
            for (uint64_t seed : s.seeds)
            {
                SweepRun run;
                run.scenario = s.file;
                run.labels = {{"scenario", s.name}, {"policy", p}, {"seed", std::to_string(seed)}};
                run.id = fmt::format("scenario={},policy={},seed={}", s.name, p, seed);
                std::vector<RunEdit> edits = s.sets;
                edits.push_back({"lb.policy", "\"" + p + "\"", s.policiesLine ? s.policiesLine : s.line, ""});
                edits.push_back({"seed", std::to_string(seed), s.seedsLine, ""});
                BuildRun(run, base, edits, suite.file, s.line);
                plan.runs.push_back(std::move(run));
            }
        }
    }
    return plan;
}

std::vector<Check>
Evaluate(const RegressSuite& suite, const std::vector<IndexedRun>& runs)
{
    std::vector<Check> checks;
    for (const auto& s : suite.scenarios)
    {
        for (const auto& p : s.policies)
        {
            std::vector<const IndexedRun*> mine;
            for (const auto& r : runs)
            {
                if (Label(*r.run, "scenario") == s.name && Label(*r.run, "policy") == p)
                {
                    mine.push_back(&r);
                }
            }
            // The runs themselves: every one must have finished.
            Check run;
            run.scenario = s.name;
            run.policy = p;
            run.seeds = mine.size();
            run.verdict = "pass";
            size_t bad = 0;
            for (const IndexedRun* r : mine)
            {
                if (r->status != "ok" && bad++ == 0)
                {
                    run.verdict = "FAILED";
                    run.note = fmt::format("seed {}: {} (exit {}){}", r->run->seed, r->status,
                                           r->exitStatus,
                                           r->message.empty() ? "" : ": " + r->message);
                }
            }
            if (bad > 1)
            {
                run.note = fmt::format("{} of {} seeds did not succeed; first: {}", bad,
                                       mine.size(), run.note);
            }
            checks.push_back(run);
            for (const auto& m : s.metrics)
            {
                Check c;
                c.scenario = s.name;
                c.policy = p;
                c.metric = m;
                for (const auto& b : suite.baselines)
                {
                    if (b.scenario == s.name && b.policy == p && b.metric == m)
                    {
                        c.baseline = &b;
                    }
                }
                const std::string stat = c.baseline ? c.baseline->stat : "mean";
                std::vector<double> values;
                std::string missing;
                size_t without = 0;
                for (const IndexedRun* r : mine)
                {
                    const auto& v = r->summary.is_object() && r->summary.contains(m)
                                        ? r->summary[m]
                                        : nlohmann::ordered_json();
                    if (v.is_number())
                    {
                        values.push_back(v.get<double>());
                    }
                    else if (without++ == 0)
                    {
                        missing = fmt::format("seed {} has no {} ({})", r->run->seed, m, r->status);
                    }
                }
                if (without > 1)
                {
                    missing = fmt::format("{} of {} seeds have no {}; first: {}", without,
                                          mine.size(), m, missing);
                }
                c.seeds = values.size();
                c.now = missing.empty() ? Aggregate(values, stat) : NAN;
                if (!c.baseline)
                {
                    auto it = suite.bands.find(m);
                    c.band = it != suite.bands.end() ? it->second : Band();
                    c.verdict = "NO BASELINE";
                    c.note = "record it with --update-baselines";
                }
                else if (!missing.empty())
                {
                    c.band = c.baseline->band;
                    c.verdict = "MISSING";
                    c.note = missing;
                }
                else
                {
                    const Baseline& b = *c.baseline;
                    c.band = b.band;
                    const double w = b.band.Width(b.value);
                    const double d = c.now - b.value;
                    // A tiny tolerance for the printed value's rounding (baselines are written
                    // with the shortest exact text, so this only matters for hand-written ones).
                    const double eps = 1e-9 * std::max(1.0, std::fabs(b.value));
                    if (std::fabs(d) <= w + eps)
                    {
                        c.verdict = "pass";
                    }
                    else if ((b.better == "lower" && d < 0) || (b.better == "higher" && d > 0))
                    {
                        c.verdict = "improved";
                        c.note = b.Measured() ? "better than the band: update the baseline "
                                                "(--update-baselines)"
                                              : "better than the " + b.source.substr(0, b.source.find(':')) +
                                                    " baseline allows: check it";
                    }
                    else
                    {
                        c.verdict = "REGRESSED";
                        c.note = b.source;
                    }
                }
                checks.push_back(c);
            }
        }
    }
    return checks;
}

std::string
CheckTable(const std::vector<Check>& checks)
{
    size_t ws = 8, wp = 6, wm = 6;
    for (const auto& c : checks)
    {
        ws = std::max(ws, c.scenario.size());
        wp = std::max(wp, c.policy.size());
        wm = std::max(wm, c.metric.size());
    }
    std::string out = fmt::format("{:<{}} {:<{}} {:<{}} {:>12} {:>16} {:>12} {:<11} {}\n", "scenario",
                                  ws, "policy", wp, "metric", wm, "baseline", "band", "now",
                                  "verdict", "source / note");
    for (const auto& c : checks)
    {
        if (c.metric.empty())
        {
            if (c.verdict != "pass")
            {
                out += fmt::format("{:<{}} {:<{}} {:<{}} {:>12} {:>16} {:>12} {:<11} {}\n",
                                   c.scenario, ws, c.policy, wp, "(runs)", wm, "", "", "",
                                   c.verdict, c.note);
            }
            continue;
        }
        const std::string base = c.baseline ? NumberText(c.baseline->value, c.baseline->integer) : "-";
        const std::string now = std::isnan(c.now) ? "-" : fmt::format("{:.6g}", c.now);
        const std::string note = c.verdict == "pass" && c.baseline ? c.baseline->source : c.note;
        out += fmt::format("{:<{}} {:<{}} {:<{}} {:>12} {:>16} {:>12} {:<11} {}\n", c.scenario, ws,
                           c.policy, wp, c.metric, wm, base, BandText(c.band), now, c.verdict, note);
    }
    return out;
}

std::string
JUnitXml(const RegressSuite& suite, const std::vector<Check>& checks,
         const std::vector<IndexedRun>& runs)
{
    std::string body;
    size_t total = 0;
    size_t failures = 0;
    for (const auto& s : suite.scenarios)
    {
        std::string cases;
        size_t n = 0;
        size_t f = 0;
        double time = 0;
        for (const auto& r : runs)
        {
            if (Label(*r.run, "scenario") == s.name)
            {
                time += r.wallSeconds;
            }
        }
        for (const auto& c : checks)
        {
            if (c.scenario != s.name)
            {
                continue;
            }
            ++n;
            const std::string name = c.metric.empty() ? "runs finish" : c.metric;
            cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n",
                                 Xml(suite.name + "." + s.name + "." + c.policy), Xml(name));
            std::string detail;
            if (!c.metric.empty())
            {
                detail = fmt::format("baseline {} {} ({}), now {}, over {} seed(s): {}",
                                     c.baseline ? NumberText(c.baseline->value, c.baseline->integer) : "none",
                                     BandText(c.band), c.baseline ? c.baseline->source : "-",
                                     std::isnan(c.now) ? "-" : fmt::format("{:.6g}", c.now), c.seeds,
                                     c.verdict);
            }
            if (c.Failing())
            {
                ++f;
                const std::string msg = c.metric.empty() ? c.note : detail + (c.note.empty() ? "" : "; " + c.note);
                cases += fmt::format("      <failure type=\"{}\" message=\"{}\"/>\n", Xml(c.verdict),
                                     Xml(msg));
            }
            else if (!detail.empty())
            {
                cases += "      <system-out>" + Xml(detail) + "</system-out>\n";
            }
            cases += "    </testcase>\n";
        }
        total += n;
        failures += f;
        body += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
                            "time=\"{:.3f}\">\n{}  </testsuite>\n",
                            Xml(suite.name + "." + s.name), n, f, time, cases);
    }
    return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                       "<testsuites name=\"tusk regress {}\" tests=\"{}\" failures=\"{}\" "
                       "errors=\"0\">\n{}</testsuites>\n",
                       Xml(suite.name), total, failures, body);
}

std::string
UpdatedSuiteText(const RegressSuite& suite, const std::vector<Check>& checks,
                 const std::string& date, const std::string& revision, std::string& diff)
{
    std::ifstream in(suite.file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return UpdatedSuiteText(suite, text.str(), checks, date, revision, diff);
}

std::string
UpdatedSuiteText(const RegressSuite& suite, const std::string& suiteText,
                 const std::vector<Check>& checks, const std::string& date,
                 const std::string& revision, std::string& diff)
{
    std::istringstream in(suiteText);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);)
    {
        lines.push_back(l);
    }
    const std::vector<std::string> before = lines;
    const std::string source = "measured: " + date + ", " + revision;
    // Edits in place: (line, begin byte, end byte, text), applied right to left per line.
    std::map<unsigned, std::vector<std::tuple<size_t, size_t, std::string>>> edits;
    std::vector<std::pair<std::string, std::vector<std::string>>> added; // in suite order
    for (const auto& sc : suite.scenarios)
    {
        added.emplace_back(sc.name, std::vector<std::string>());
    }
    auto addedFor = [&added](const std::string& scenario) -> std::vector<std::string>& {
        for (auto& [name, entries] : added)
        {
            if (name == scenario)
            {
                return entries;
            }
        }
        throw std::logic_error("no scenario " + scenario);
    };
    std::vector<const Check*> newEntries; // where each added entry must read back
    for (const auto& c : checks)
    {
        if (c.metric.empty() || std::isnan(c.now))
        {
            continue;
        }
        if (c.baseline == nullptr)
        {
            newEntries.push_back(&c);
            addedFor(c.scenario).push_back(fmt::format("{}.{} = {{ value = {}, source = \"{}\" }}",
                                                    QuoteKey(c.policy), c.metric,
                                                    NumberText(c.now, c.now == std::floor(c.now)),
                                                    source));
            continue;
        }
        const Baseline& b = *c.baseline;
        if (!b.Measured() || NumberText(c.now, b.integer) == NumberText(b.value, b.integer))
        {
            continue;
        }
        if (b.sourceEndLine != b.sourceLine)
        {
            throw InputError(suite.file, b.line, "baseline." + b.scenario + "." + b.policy + "." +
                             b.metric, "its source is a string over several lines, which cannot "
                                       "be rewritten in place: write it on one line");
        }
        const std::string& vl = lines[b.valueLine - 1];
        edits[b.valueLine].emplace_back(ByteOfColumn(vl, b.valueBegin), ByteOfColumn(vl, b.valueEnd),
                                        NumberText(c.now, b.integer && c.now == std::floor(c.now)));
        const std::string& sl = lines[b.sourceLine - 1];
        edits[b.sourceLine].emplace_back(ByteOfColumn(sl, b.sourceBegin),
                                         ByteOfColumn(sl, b.sourceEnd), "\"" + source + "\"");
    }
    for (auto& [line, list] : edits)
    {
        std::sort(list.begin(), list.end(),
                  [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
        std::string& l = lines[line - 1];
        for (const auto& [b, e, text] : list)
        {
            l.replace(b, e - b, text);
        }
    }
    // New entries: after the last entry of their [baseline.<scenario>] table, or a new table at
    // the end. Insert from the bottom so earlier line numbers stay valid.
    std::vector<std::pair<unsigned, std::vector<std::string>>> inserts;
    std::vector<std::string> appended;
    for (const auto& [scenario, entries] : added)
    {
        if (entries.empty())
        {
            continue;
        }
        auto it = suite.baselineTableEnd.find(scenario);
        if (it != suite.baselineTableEnd.end())
        {
            inserts.emplace_back(it->second, entries);
        }
        else
        {
            appended.push_back("");
            appended.push_back("[baseline." + scenario + "]");
            appended.insert(appended.end(), entries.begin(), entries.end());
        }
    }
    std::sort(inserts.begin(), inserts.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [after, entries] : inserts)
    {
        lines.insert(lines.begin() + after, entries.begin(), entries.end());
    }
    lines.insert(lines.end(), appended.begin(), appended.end());

    // The diff: changed lines in place, then added ones.
    diff.clear();
    for (const auto& [line, list] : edits)
    {
        diff += fmt::format("{}:{}:\n- {}\n", suite.file, line, before[line - 1]);
        // Find the edited line in the new text (inserts above may have moved it).
        size_t shift = 0;
        for (const auto& [after, entries] : inserts)
        {
            if (after < line)
            {
                shift += entries.size();
            }
        }
        diff += "+ " + lines[line - 1 + shift] + "\n";
    }
    for (const auto& [scenario, entries] : added)
    {
        if (entries.empty())
        {
            continue;
        }
        diff += fmt::format("{}: [baseline.{}] new entries:\n", suite.file, scenario);
        for (const auto& e : entries)
        {
            diff += "+ " + e + "\n";
        }
    }
    std::string text;
    for (const auto& l : lines)
    {
        text += l + "\n";
    }
    // What is written must parse, each new entry in its [baseline.<scenario>] table: a layout
    // the edits above do not follow (an entry as a [baseline.S.P.M] table) is refused, not
    // broken. (A new entry of a metric without a band reads back as an error, on purpose.)
    std::string why;
    try
    {
        const toml::table t = toml::parse(std::string_view(text), std::string_view(suite.file));
        for (const Check* c : newEntries)
        {
            if (!t["baseline"][c->scenario][c->policy][c->metric]["value"])
            {
                why = "the new entry " + c->policy + "." + c->metric +
                      " would land outside [baseline." + c->scenario + "]";
            }
        }
    }
    catch (const toml::parse_error& e)
    {
        why = fmt::format("line {}: {}", e.source().begin.line, e.description());
    }
    if (!why.empty())
    {
        throw InputError(suite.file, 0, "",
                         "--update-baselines cannot rewrite this suite's layout in place (" + why +
                             "); write each entry as <policy>.<metric> = { value = V, source = "
                             "\"...\" } on one line of its [baseline.<scenario>] table");
    }
    return text;
}

} // namespace tusk
