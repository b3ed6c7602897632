// tusk: the command line. `tusk run`, `tusk compare`, `tusk report`, `tusk policies`,
// `tusk kinds`, `tusk keys`, `tusk rerun`, `tusk locate`, `tusk sweep`, `tusk regress`.
// This file only wires the subcommands; each lives in its own file (cli/*-command.h,
// results/rerun.h, sweep/sweep-cli.h, locate/locate-command.h).
//
// Exit status (cli/exit-status.h): 0 success; 1 the run itself failed (transfers unfinished at
// the stop time, broken packet conservation, an internal error); 2 bad input (the message names
// the file, line and key and what was expected) or a destination tusk refuses to replace or that
// another tusk is writing; 3 the results could not be written (an OS error: no space left, file
// too large); nothing is written for bad input, and the previous results stay intact on 2 and 3.

#include "cli/compare-command.h"
#include "cli/validate-fast-command.h"
#include "cli/exit-status.h"
#include "cli/git-revision.h"
#include "cli/keys-command.h"
#include "cli/plugins.h"
#include "cli/policies-command.h"
#include "cli/report-command.h"
#include "cli/run-command.h"
#include "locate/locate-command.h"
#include "results/rerun.h"
#include "results/results-dir.h"
#include "results/what-if.h"
#include "sweep/sweep-cli.h"
#include "tusk-version.h"

#include "fabric/model/input-error.h"

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstring>
#include <unistd.h>
#include <cstdlib>
#include <iostream>
#include <map>

using namespace tusk;

namespace
{

extern "C" void
OnInterrupt(int sig)
{
    // Async-signal-safe (system calls only): leaving half a result behind is what atomic results
    // promise not to do.
    AbandonActiveStaging();
    // write(2) is async-signal-safe; a researcher whose job a scheduler ended sees why.
    const char* msg = sig == SIGINT
                          ? "tusk: interrupted (SIGINT); results of this run not written\n"
                          : "tusk: terminated (SIGTERM); results of this run not written\n";
    const ssize_t ignored = ::write(STDERR_FILENO, msg, std::strlen(msg));
    (void)ignored;
    std::_Exit(128 + sig);
}

/** Each command's help ends with the exit statuses that command can give. */
void
SetExitStatusFooters(CLI::App& app)
{
    const std::string runs =
        "Exit status: 0 success; 1 a run failed (transfers unfinished, a deadlock, broken "
        "conservation) or an internal error; 2 bad input, or a destination tusk will not replace "
        "or that another tusk is writing (nothing written); 3 results could not be written (no "
        "space left, file too large: the previous results are intact); 128+N stopped by signal "
        "N (nothing written). docs/results-format.md, \"Results folders\".";
    const std::map<std::string, std::string> own = {
        {"policies", "Exit status: 0 success; 2 a plugin that cannot be loaded."},
        {"kinds", "Exit status: 0 success; 2 a plugin that cannot be loaded."},
        {"keys", "Exit status: 0 success; 2 a plugin that cannot be loaded, or an --update-doc "
                 "file without its key markers."},
        {"report",
         "Exit status: 0 the report was written; 2 bad input (not a results folder, a damaged "
         "result file, an --out that holds the results: nothing written); 3 the report could "
         "not be written (the previous report is intact)."},
        {"sweep",
         "Exit status: 0 every run ok; 1 a run failed or errored (the sweep went on; see "
         "sweep.csv); 2 a bad sweep file, scenario or --out (nothing run); 3 the disk refused "
         "every failing run's results or the index; 130 / 143 interrupted by SIGINT / SIGTERM "
         "(finished runs kept). "
         "docs/sweeps.md."},
        {"regress",
         "Exit status: 0 every check passed; 1 a check failed or a run did not finish; 2 a bad "
         "suite file (its line and key). docs/sweeps.md."},
        {"validate-fast",
         "Exit status: 0 every metric within the tolerance; 1 a metric beyond it, or a run "
         "failed; 2 bad input (nothing run). docs/fast-mode.md."},
        {"locate",
         "Exit status: 0 success (named or not); 2 bad input (file, line, column; nothing "
         "written; --what-if writes only its derived runs, in RESULTS_DIR.what-if/). "
         "docs/locate.md."},
    };
    app.footer(runs);
    for (CLI::App* sub : app.get_subcommands({}))
    {
        const auto it = own.find(sub->get_name());
        sub->footer(it != own.end() ? it->second : runs);
    }
}

} // namespace

int
main(int argc, char** argv)
{
    CLI::App app{"tusk " TUSK_VERSION ": packet-level simulation of load balancing for elephant "
                 "flows in AI-training fabrics (ns-3 3.37)"};
    app.require_subcommand(1);
    std::signal(SIGINT, OnInterrupt);
    std::signal(SIGTERM, OnInterrupt);
    // Past a file size limit (ulimit -f), write() fails with EFBIG (exit 3, the path and "File
    // too large") instead of the process being killed without a word.
    std::signal(SIGXFSZ, SIG_IGN);
    app.set_version_flag("--version", std::string(TUSK_VERSION " (") + GitRevision() + ")");

    // The order of registration is the order of `tusk --help`.
    RunCommand run(app);
    CompareCommand compare(app);
    ValidateFastCommand validateFast(app);
    PoliciesCommands listings(app); // policies, kinds
    RerunOptions rerunOpts;
    auto* rerun = AddRerunCommand(app, rerunOpts);
    KeysCommand keys(app);
    ReportCommand report(app);
    tusk::SweepCommands sweeps(app); // sweep, regress (sweep-cli.h)
    locate::CommandOptions locateOpts;
    auto* loc = locate::AddCommand(app, locateOpts);
    locateOpts.whatIfRunner = tusk::RunWhatIf; // --what-if runs derived scenarios
    tusk::PluginOptions plugins(app); // --plugin on the commands that read scenarios
    SetExitStatusFooters(app);
    // Errors CLI11 finds (an unknown option, a value out of range) carry the prefix of every
    // other error; CLI11's own "simple" message, otherwise.
    app.failure_message([](const CLI::App*, const CLI::Error& e) {
        return "tusk: error: " + std::string(e.what()) + "\nRun with --help for more information.\n";
    });

    try
    {
        app.parse(argc, argv);
    }
    catch (const CLI::ParseError& e)
    {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : kExitBadInput;
    }

    try
    {
        plugins.Load();
        if (listings.Parsed())
        {
            return listings.Run();
        }
        if (report.Parsed())
        {
            return report.Run();
        }
        if (sweeps.Parsed())
        {
            return sweeps.Run();
        }
        if (loc->parsed())
        {
            return locate::RunCommand(locateOpts, std::cout);
        }
        if (rerun->parsed())
        {
            return RunRerun(rerunOpts, std::cout);
        }
        if (keys.Parsed())
        {
            return keys.Run();
        }
        if (run.Parsed())
        {
            return run.Run();
        }
        if (validateFast.Parsed())
        {
            return validateFast.Run(std::cout);
        }
        return compare.Run();
    }
    catch (const ns3::InputError& e)
    {
        std::cerr << "tusk: error: " << e.what() << "\n";
        return kExitBadInput;
    }
    catch (const WriteError& e)
    {
        std::cerr << "tusk: error: cannot write " << e.what()
                  << "; nothing was committed, earlier results are intact\n";
        return kExitWriteFailed;
    }
    catch (const std::exception& e)
    {
        std::cerr << "tusk: internal error: " << e.what() << "\n";
        return kExitRunFailed;
    }
}
