#include "cli/run-command.h"

#include "cli/exit-status.h"
#include "results/comparison-table.h"
#include "results/results-writer.h"
#include "results/tool-outputs.h"
#include "run/runner.h"

#include <fmt/format.h>

#include <iostream>

namespace tusk
{

namespace
{

/** Run `spec` and write its results into `out` atomically (RunInto). */
RunResult
RunInto(const ScenarioSpec& spec, const std::string& out, bool quiet)
{
    RunOptions ro;
    ro.progress = !quiet;
    ro.warn = [](const std::string& w) {
        std::cerr << "tusk: warning: " << w << "\n"; // -q hides progress, not warnings
    };
    ro.streamRows = true; // only the files and the summary are read below
    return tusk::RunInto(spec, out, ro);
}

int
DoRun(const CommonOptions& o)
{
    ScenarioSpec spec = Load(o, {});
    PrintImportNote(o, spec);
    for (const auto& w : ScenarioWarnings(spec))
    {
        std::cerr << "tusk: warning: " << w << "\n"; // -q hides progress, not warnings
    }
    const std::string out =
        !o.out.empty()             ? o.out
        : !spec.output.dir.empty() ? spec.output.dir
                                   : DefaultOut(spec, fmt::format("{}-s{}", spec.lb.policy, spec.seed));
    const RunResult r = RunInto(spec, out, o.quiet);
    std::cout << PathClassesLine(r) << HpccPairRttLine(r);
    std::cout << SettingsLine(r.spec);
    PrintComparisonTable(r, std::cout); // by reference: `{r}` would copy every flow row
    std::cout << SteadyProbeLine(r);
    std::cout << SteadyJumpLine(r);
    std::cout << fmt::format("{} events in {:.2f} s wall ({:.2f} M events/s); results in {}/\n",
                             r.events, r.wallSeconds, r.events / r.wallSeconds / 1e6, out);
    if (!r.failure.empty())
    {
        std::cerr << "tusk: run failed: " << r.failure << "\n";
        return kExitRunFailed;
    }
    return 0;
}

} // namespace

RunCommand::RunCommand(CLI::App& app)
    : m_cmd(app.add_subcommand("run", "Run one scenario and write its results"))
{
    AddCommon(m_cmd, m_options, true);
}

bool
RunCommand::Parsed() const
{
    return m_cmd->parsed();
}

int
RunCommand::Run()
{
    if (m_options.scenario.empty() && m_options.htsimCm.empty() && m_options.htsimTopo.empty() &&
        m_options.hpccConfig.empty())
    {
        std::cerr << "tusk run: a scenario file (or --htsim-topo and --htsim-cm, or "
                     "--hpcc-config) is "
                     "required; `tusk compare` runs the built-in default\n";
        return kExitBadInput;
    }
    return DoRun(m_options);
}

} // namespace tusk
