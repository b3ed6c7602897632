#include "api/scripting.h"

#include "results/results-writer.h"
#include "scenario/scenario-text.h"
#include "scenario/scenario-toml.h"

#include "ns3/config.h"
#include "ns3/simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tusk
{

namespace fs = std::filesystem;
using ns3::InputError;

// ---- Topology ------------------------------------------------------------------------------

uint32_t
Topology::AddHost()
{
    m_isSwitch.push_back(false);
    return Nodes() - 1;
}

uint32_t
Topology::AddSwitch()
{
    m_isSwitch.push_back(true);
    return Nodes() - 1;
}

void
Topology::AddLink(uint32_t a, uint32_t b, double gbps, double delayNs)
{
    const std::string where = fmt::format("Topology::AddLink({}, {})", a, b);
    if (a >= Nodes() || b >= Nodes() || a == b)
    {
        throw InputError("<script>", 0, where,
                         fmt::format("expected two different node ids below {}", Nodes()));
    }
    if (!(gbps > 0) || !std::isfinite(gbps))
    {
        throw InputError("<script>", 0, where, fmt::format("expected a rate > 0 Gb/s; got {}", gbps));
    }
    if (!(delayNs >= 0) || !std::isfinite(delayNs))
    {
        throw InputError("<script>", 0, where, fmt::format("expected a delay >= 0 ns; got {}", delayNs));
    }
    m_links.push_back({a, b, gbps, delayNs});
}

std::string
Topology::HpccText() const
{
    std::vector<uint32_t> switches;
    for (uint32_t n = 0; n < Nodes(); ++n)
    {
        if (m_isSwitch[n])
        {
            switches.push_back(n);
        }
    }
    std::string s = fmt::format("{} {} {}\n", Nodes(), switches.size(), m_links.size());
    for (size_t i = 0; i < switches.size(); ++i)
    {
        s += fmt::format("{}{}", i ? " " : "", switches[i]);
    }
    s += "\n";
    for (const Link& l : m_links)
    {
        // {} prints the shortest text that reads back as the same double.
        s += fmt::format("{} {} {}Gbps {}ns 0\n", l.a, l.b, l.gbps, l.delayNs);
    }
    return s;
}

// ---- Scenario ------------------------------------------------------------------------------

Scenario::Scenario()
    : m_name("<built-in default scenario>")
{
    Reload(kDefaultScenarioToml, m_overrides, "");
}

Scenario
Scenario::Load(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw InputError(path, 0, "", "cannot read the scenario file");
    }
    std::ostringstream text;
    text << in.rdbuf();
    Scenario s;
    s.m_name = path;
    s.m_fromFile = true;
    s.m_text = text.str();
    s.Reload(s.m_text, {}, "");
    return s;
}

Scenario
Scenario::FromString(const std::string& toml, const std::string& name)
{
    Scenario s;
    s.m_name = name;
    s.Reload(toml, {}, "");
    return s;
}

Scenario
Scenario::FromJson(const std::string& json, const std::string& name)
{
    nlohmann::json j;
    try
    {
        j = nlohmann::json::parse(json);
    }
    catch (const nlohmann::json::exception& e)
    {
        throw InputError(name, 0, "", std::string("not JSON: ") + e.what());
    }
    return FromString(ScenarioJsonToToml(j, name), name);
}

void
Scenario::Reload(const std::string& text,
                 const std::vector<std::string>& overrides,
                 const std::string& changedKey)
{
    // While the text is the file's, load the file itself, exactly as `tusk run FILE --set ...`.
    const bool asFile = m_fromFile && text == m_text;
    try
    {
        ScenarioSpec spec = asFile ? LoadScenarioFile(m_name, overrides)
                                   : LoadScenarioString(text, m_name, overrides);
        m_spec = std::move(spec);
        m_pending.reset();
    }
    catch (const InputError& e)
    {
        // The change itself is wrong (the problem is at the key it changed, or in the table
        // it added): refuse it. A problem elsewhere (a `flows` workload without flows yet) is
        // the scenario not being complete: keep the change, report the problem when run.
        const std::string& key = e.Key();
        if (!changedKey.empty() && key.compare(0, changedKey.size(), changedKey) == 0 &&
            (key.size() == changedKey.size() || key[changedKey.size()] == '.' ||
             key[changedKey.size()] == '['))
        {
            throw;
        }
        m_pending = e;
    }
    m_fromFile = asFile;
    m_text = text;
    m_overrides = overrides;
}

const ScenarioSpec&
Scenario::Spec() const
{
    Check();
    return m_spec;
}

void
Scenario::Check() const
{
    if (m_pending)
    {
        throw *m_pending;
    }
}

Scenario&
Scenario::Set(const std::string& key, const std::string& value)
{
    std::vector<std::string> overrides = m_overrides;
    overrides.push_back(key + "=" + value);
    Reload(m_text, overrides, key);
    return *this;
}

std::string
Scenario::FloatText(double v)
{
    return FormatDouble(v);
}

Scenario&
Scenario::AddTable(const std::string& array, const std::string& body)
{
    std::string text = m_text;
    if (!text.empty() && text.back() != '\n')
    {
        text += "\n";
    }
    text += "\n[[" + array + "]]\n" + body;
    if (text.back() != '\n')
    {
        text += "\n";
    }
    Reload(text, m_overrides, array);
    return *this;
}

Scenario&
Scenario::AddFlow(uint32_t src, uint32_t dst, uint64_t bytes, double startUs)
{
    return AddTable("workload.flows", fmt::format("src = {}\ndst = {}\nbytes = {}\nstart_us = {}",
                                                  src, dst, bytes, FormatDouble(startUs)));
}

Scenario&
Scenario::AddFailure(double atUs, const std::string& kind, const std::string& target,
                     uint32_t rateDivisor)
{
    // The target's key by kind; a host id goes in as written, so that the loader checks it
    // (an integer, a host of the topology) and names the key as for a scenario file.
    std::string key = "link";
    std::string value = Quote(target);
    if (kind == "switch_down" || kind == "switch_up")
    {
        key = "switch";
    }
    else if (kind == "nic_down" || kind == "nic_up")
    {
        key = "host";
        const bool digits = !target.empty() && std::all_of(target.begin(), target.end(), [](char c) {
            return c >= '0' && c <= '9';
        });
        value = digits ? target : Quote(target); // a string: the loader's "expected an integer"
    }
    std::string body = fmt::format("at_us = {}\nkind = {}\n{} = {}", FormatDouble(atUs),
                                   Quote(kind), key, value);
    if (rateDivisor > 0)
    {
        body += fmt::format("\nrate_divisor = {}", rateDivisor);
    }
    return AddTable("failures", body);
}

Scenario&
Scenario::UseTopology(const Topology& t, const std::string& file)
{
    const std::string path = fs::absolute(file).lexically_normal().string();
    WriteFileAtomic(path, t.HpccText());
    std::vector<std::string> overrides = m_overrides;
    overrides.push_back("topology.kind=hpcc");
    overrides.push_back("topology.file=" + Quote(path));
    Reload(m_text, overrides, "topology");
    return *this;
}

Scenario&
Scenario::Connect(const std::string& path, const ns3::CallbackBase& cb, bool withContext)
{
    m_connections.push_back({path, cb, withContext});
    return *this;
}

Scenario&
Scenario::BeforeRun(
    std::function<void(ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&)> fn)
{
    m_beforeRun.push_back(std::move(fn));
    return *this;
}

RunResult
Scenario::Run(const std::string& outDir, bool progress, std::function<bool()> poll) const
{
    Check();
    RunOptions ro;
    ro.progress = progress;
    ro.poll = std::move(poll);
    ro.beforeRun = [this](ns3::Fabric& fabric, const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics) {
        for (const Connection& c : m_connections)
        {
            const bool ok = c.withContext ? ns3::Config::ConnectFailSafe(c.path, c.cb)
                                          : ns3::Config::ConnectWithoutContextFailSafe(c.path, c.cb);
            if (!ok)
            {
                throw InputError("<script>", 0, "Scenario::Connect",
                                 "\"" + c.path + "\" matches no trace source of the built fabric "
                                 "(or the callback's signature does not fit it)");
            }
        }
        for (const auto& fn : m_beforeRun)
        {
            fn(fabric, nics);
        }
    };
    try
    {
        return outDir.empty() ? RunScenario(m_spec, ro) : RunInto(m_spec, outDir, ro);
    }
    catch (...)
    {
        // A run that stopped while building leaves nodes and events behind: clear them, so
        // that the program's next run starts from an empty simulator.
        ns3::Simulator::Destroy();
        throw;
    }
}

} // namespace tusk
