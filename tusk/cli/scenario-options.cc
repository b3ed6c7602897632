#include "cli/scenario-options.h"

#include "cli/plugins.h"
#include "scenario/hpcc-config.h"
#include "scenario/hpcc-run-files.h"
#include "scenario/tool-presets.h"
#include "run/run-stages.h"
#include "scenario/scenario-toml.h"

#include "fabric/model/input-error.h"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>

namespace fs = std::filesystem;

namespace tusk
{

namespace
{

std::string
Absolute(const std::string& p)
{
    return fs::absolute(p).lexically_normal().string();
}

ScenarioSpec LoadBase(const CommonOptions& o, const std::vector<std::string>& extraSets,
                      const std::vector<std::string>& presetSets);

/** --hpcc-config without a scenario file: the config's own files are the run. */
bool
HpccConfigAlone(const CommonOptions& o)
{
    return !o.hpccConfig.empty() && o.scenario.empty() && o.htsimTopo.empty() && o.htsimCm.empty();
}

} // namespace

void
AddCommon(CLI::App* cmd, CommonOptions& o, bool scenarioRequired)
{
    auto* s = cmd->add_option("scenario", o.scenario,
                              "Scenario file (TOML, see docs/scenario-format.md), or a run's manifest.json");
    if (scenarioRequired)
    {
        s->required(false); // may be replaced by --htsim-topo/--htsim-cm
    }
    cmd->add_option("--set", o.sets,
                    "Override a scenario key: --set lb.policy=spray --set workload.bytes=1GiB "
                    "(repeatable)")
        ->allow_extra_args(false);
    // Checked on the text: CLI11's conversion saturates an out-of-range integer at the type's
    // maximum, so every seed from 2^63 up would silently have been one run.
    cmd->add_option("--seed", o.seed, "Run seed (overrides the scenario's `seed`)")
        ->check(CLI::Validator(
            [](const std::string& text) -> std::string {
                long long v = 0;
                const char* end = text.data() + text.size();
                const auto [p, ec] = std::from_chars(text.data(), end, v);
                if (ec != std::errc() || p != end || v < 0)
                {
                    return fmt::format("expected an integer 0..{}; got {}",
                                       std::numeric_limits<long long>::max(), text);
                }
                return std::string();
            },
            "INT in [0 - 2^63-1]"));
    cmd->add_option("--out", o.out,
                    "Results directory (default results/<scenario name>/<policy>-s<seed>, or "
                    "results/<scenario name>/compare-s<seed> for compare)");
    cmd->add_option("--htsim-topo", o.htsimTopo, "htsim topology (.topo) to run on");
    cmd->add_option("--htsim-cm", o.htsimCm, "htsim connection matrix (.cm) to run");
    cmd->add_option("--hpcc-config", o.hpccConfig,
                    "HPCC simulator config.txt: apply its CC, ECN, PFC-threshold, buffer and "
                    "DCQCN keys (a warning for every key that is ignored); without a scenario "
                    "file, run its TOPOLOGY_FILE and FLOW_FILE");
    cmd->add_option("--preset", o.preset,
                    "Another tool's defaults: htsim-uec (htsim main_uec), htsim-roce (htsim "
                    "main_roce), hpcc (the HPCC simulator's mix/config.txt); --set wins "
                    "(docs/scenario-format.md, \"Other tools' defaults\")")
        ->check(CLI::IsMember(ToolPresetNames()));
    cmd->add_flag("-q,--quiet", o.quiet, "No progress line on stderr (warnings are still printed)");
}

/** The scenario, then the HPCC config.txt's keys on top (--hpcc-config). */
ScenarioSpec
Load(const CommonOptions& o, const std::vector<std::string>& extraSets)
{
    ScenarioSpec spec = LoadBase(o, extraSets, {});
    if (!o.preset.empty())
    {
        // htsim sizes queues, ECN and RTO from the fabric's BDP: the topology first.
        const auto sets = ToolPresetSets(o.preset, BuildGraph(spec));
        if (!sets.empty())
        {
            spec = LoadBase(o, extraSets, sets);
        }
    }
    if (HpccConfigAlone(o))
    {
        for (const auto& [key, source] : ReadHpccRunFiles(o.hpccConfig).sources)
        {
            spec.imported[key] = source;
        }
    }
    if (o.preset == "hpcc")
    {
        std::istringstream in(HpccDefaultConfigText());
        ApplyHpccConfig(in, "<--preset hpcc>", spec);
    }
    if (!o.hpccConfig.empty())
    {
        for (const auto& w : ApplyHpccConfig(o.hpccConfig, spec))
        {
            std::cerr << "tusk: warning: " << w << "\n"; // -q hides progress, not warnings
        }
    }
    return spec;
}

namespace
{

ScenarioSpec
LoadBase(const CommonOptions& o, const std::vector<std::string>& extraSets,
         const std::vector<std::string>& presetSets)
{
    std::vector<std::string> sets;
    if (HpccConfigAlone(o))
    {
        const auto files = HpccRunSets(ReadHpccRunFiles(o.hpccConfig));
        sets.insert(sets.end(), files.begin(), files.end());
    }
    if (!o.htsimTopo.empty())
    {
        if (!fs::exists(o.htsimTopo))
        {
            throw ns3::InputError(o.htsimTopo, 0, "--htsim-topo", "no such file");
        }
        sets.push_back("topology.kind=htsim");
        sets.push_back("topology.file=\"" + Absolute(o.htsimTopo) + "\"");
    }
    if (!o.htsimCm.empty())
    {
        if (!fs::exists(o.htsimCm))
        {
            throw ns3::InputError(o.htsimCm, 0, "--htsim-cm", "no such file");
        }
        sets.push_back("workload.kind=htsim");
        sets.push_back("workload.file=\"" + Absolute(o.htsimCm) + "\"");
    }
    if (o.seed >= 0)
    {
        sets.push_back(fmt::format("seed={}", o.seed));
    }
    sets.insert(sets.end(), presetSets.begin(), presetSets.end()); // --set wins over a preset
    sets.insert(sets.end(), o.sets.begin(), o.sets.end());
    sets.insert(sets.end(), extraSets.begin(), extraSets.end());
    if (!o.scenario.empty())
    {
        // A run's manifest.json is a scenario too: the one that run used, resolved.
        if (fs::path(o.scenario).extension() == ".json")
        {
            LoadManifestPlugins(o.scenario); // the plugins that run loaded, as rerun does
            return LoadManifestScenario(o.scenario, sets);
        }
        return LoadScenarioFile(o.scenario, sets);
    }
    if (!o.htsimTopo.empty() || !o.htsimCm.empty())
    {
        if (o.htsimTopo.empty() || o.htsimCm.empty())
        {
            throw ns3::InputError("<command line>", 0, o.htsimTopo.empty() ? "--htsim-topo" : "--htsim-cm",
                                  "without a scenario file, give both --htsim-topo and --htsim-cm");
        }
        const std::string name = fs::path(o.htsimCm).stem().string();
        return LoadScenarioString("name = \"" + name + "\"\n", "<command line>", sets);
    }
    if (HpccConfigAlone(o))
    {
        const std::string name = fs::path(o.hpccConfig).stem().string();
        return LoadScenarioString("name = \"" + name + "\"\n", "<command line>", sets);
    }
    return LoadScenarioString(kDefaultScenarioToml, "<built-in default scenario>", sets);
}

} // namespace

void
PrintImportNote(const CommonOptions& o, const ScenarioSpec& spec)
{
    if (!o.htsimCm.empty() || !o.htsimTopo.empty())
    {
        std::cout << ImportNote("htsim", spec, o.preset) << "\n";
    }
    if (!o.hpccConfig.empty())
    {
        std::cout << ImportNote("HPCC", spec, o.preset) << "\n";
    }
}

std::string
DefaultOut(const ScenarioSpec& spec, const std::string& leaf)
{
    return (fs::path("results") / spec.name / leaf).string();
}

} // namespace tusk
