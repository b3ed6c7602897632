#include "cli/validate-fast-command.h"

#include "cli/exit-status.h"
#include "results/results-dir.h"
#include "results/results-writer.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>

namespace tusk
{

ValidateFastCommand::ValidateFastCommand(CLI::App& app)
    : m_cmd(app.add_subcommand("validate-fast",
                               "Run a scenario in packet and in fast mode (simulator.mode) and "
                               "compare CCT, iteration time and FCT per job"))
{
    AddCommon(m_cmd, m_options, true);
    m_cmd->add_option("--tolerance", m_tolerance,
                      "Largest relative difference accepted per metric (fraction; default 0.05)")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                // NaN passes CLI::Range (every comparison with it is false): refused first.
                char* end = nullptr;
                const double x = std::strtod(text.c_str(), &end);
                return end == text.c_str() || *end != '\0' || !std::isfinite(x)
                           ? "expected a finite number, got " + text
                           : std::string();
            },
            "FINITE"))
        ->check(CLI::Range(0.0, 10.0));
    m_cmd->get_option("--out")->description(
        "Write both runs' results into DIR/packet and DIR/fast (default: no results written)");
}

bool
ValidateFastCommand::Parsed() const
{
    return m_cmd->parsed();
}

int
ValidateFastCommand::Run(std::ostream& out)
{
    // The scenario as given, read once before the mode is overridden: a bad simulator.mode
    // (or any other bad key) is refused here, as `tusk run` refuses it.
    (void)Load(m_options, {});
    RunResult results[2];
    const char* modes[2] = {"packet", "fast"};
    // With --out, DIR is one result like `tusk run`'s: locked while the runs run, written into
    // a staging folder and put in place at the end (nothing half-written, a concurrent run
    // into DIR refused).
    std::unique_ptr<StagedResults> staged =
        m_options.out.empty() ? nullptr : std::make_unique<StagedResults>(m_options.out, "validate-fast");
    // Fast mode first: a cost paid once per process (the first run's page faults and lazy
    // initialisation, about 15 ms) then counts against fast mode, not for it.
    for (int k : {1, 0})
    {
        const ScenarioSpec spec = Load(m_options, {fmt::format("simulator.mode={}", modes[k])});
        RunOptions ro;
        ro.progress = !m_options.quiet;
        results[k] = staged == nullptr ? RunScenario(spec, ro)
                                       : RunInto(spec, staged->Path() + "/" + modes[k], ro);
    }
    if (staged != nullptr)
    {
        staged->Commit();
    }
    const RunResult& p = results[0];
    const RunResult& f = results[1];
    out << fmt::format("validate-fast {} (seed {}): tolerance {:.1f} %\n", p.spec.name, p.spec.seed,
                       m_tolerance * 100);
    out << fmt::format("{:<20} {:<14} {:>14} {:>14} {:>9}\n", "metric", "job", "packet", "fast",
                       "diff %");
    bool within = true;
    for (const auto& m : CompareFastMetrics(p, f))
    {
        const double d = m.RelativeDifference();
        const bool ok = std::fabs(d) <= m_tolerance;
        within = within && ok;
        out << fmt::format("{:<20} {:<14} {:>14.3f} {:>14.3f} {:>+9.3f}{}\n", m.metric, m.job,
                           m.packet, m.fast, d * 100, ok ? "" : "  > tolerance");
    }
    const auto& s = f.fast;
    const SteadyJumpStats& jumps = f.steadyJump;
    if (p.jobs.empty() && s.ringSteps == 0)
    {
        out << (jumps.jumps > 0 ? "no [[jobs]] in this workload: no iteration to replay\n"
                                : "no [[jobs]] in this workload and no steady-state jump: both "
                                  "runs simulated every packet\n");
    }
    out << fmt::format(
        "iterations replayed {} of {} ({} exact, {} steady, {} sampled), simulated {}\n",
        s.Replayed(), s.iterations, s.replayedExact,
        s.replayedSteady, s.replayedSampled, s.simulated);
    for (const auto& [reason, n] : s.fallbacks)
    {
        out << fmt::format("  simulated because {}: {}\n", reason, n);
    }
    if (s.ringSteps > 0)
    {
        out << fmt::format("ring steps replayed {} of {}, simulated {}\n", s.ringStepsReplayed,
                           s.ringSteps, s.ringStepsSimulated);
        for (const auto& [reason, n] : s.ringFallbacks)
        {
            out << fmt::format("  simulated because {}: {}\n", reason, n);
        }
    }
    const std::string jumpLine = SteadyJumpLine(f);
    if (!jumpLine.empty())
    {
        out << jumpLine;
    }
    out << fmt::format("wall time: packet {:.3f} s, fast {:.3f} s, speedup {:.1f}x{}\n",
                       p.wallSeconds, f.wallSeconds,
                       f.wallSeconds > 0 ? p.wallSeconds / f.wallSeconds : 0.0,
                       s.Replayed() + s.ringStepsReplayed + jumps.jumps == 0
                           ? " (nothing replayed or skipped: the same simulation twice, so any "
                             "difference is the machine's)"
                           : "");
    for (int k = 0; k < 2; ++k)
    {
        if (!results[k].failure.empty())
        {
            std::cerr << "tusk validate-fast: the " << modes[k]
                      << " run failed: " << results[k].failure << "\n";
            return kExitRunFailed;
        }
    }
    return within ? 0 : kExitRunFailed;
}

} // namespace tusk
