#include "cli/report-command.h"

#include "cli/exit-status.h"
#include "run/stats.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace tusk
{

namespace
{

/**
 * `tusk report DIR`: runs the Python analysis package (analysis/tusk_analysis, Debian's
 * python3-pandas and python3-matplotlib) on a run or comparison directory. The package is
 * found in the source tree (TUSK_ANALYSIS_DIR at build time) or at $TUSK_ANALYSIS_DIR; the
 * interpreter is /usr/bin/python3 or $TUSK_PYTHON. Its exit status is the command's.
 */
int
DoReport(const std::string& dir, const std::string& outDir, const std::string& quantiles)
{
    if (!fs::is_directory(dir))
    {
        std::cerr << "tusk report: " << dir << ": no such directory\n";
        return kExitBadInput;
    }
    const char* envDir = std::getenv("TUSK_ANALYSIS_DIR");
    const std::string analysis = envDir && *envDir ? envDir : TUSK_ANALYSIS_DIR;
    if (!fs::is_directory(fs::path(analysis) / "tusk_analysis"))
    {
        std::cerr << "tusk report: the analysis package is not in " << analysis
                  << "/tusk_analysis; set TUSK_ANALYSIS_DIR to the repository's analysis/ "
                     "folder\n";
        return kExitRunFailed;
    }
    const char* envPython = std::getenv("TUSK_PYTHON");
    const std::string python = envPython && *envPython ? envPython : "/usr/bin/python3";
    const char* oldPath = std::getenv("PYTHONPATH");
    const std::string path = analysis + (oldPath && *oldPath ? ":" + std::string(oldPath) : "");
    ::setenv("PYTHONPATH", path.c_str(), 1);
    std::vector<std::string> args = {python, "-m", "tusk_analysis.report", dir};
    if (!outDir.empty())
    {
        args.insert(args.end(), {"--out", outDir});
    }
    args.insert(args.end(), {"--quantiles", quantiles});
    std::vector<char*> argv;
    for (auto& a : args)
    {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    std::cout.flush();
    ::execv(python.c_str(), argv.data());
    std::cerr << "tusk report: cannot run " << python << ": " << std::strerror(errno)
              << " (install python3-pandas and python3-matplotlib with "
                 "scripts/install-deps.sh, or set TUSK_PYTHON)\n";
    return kExitRunFailed;
}

} // namespace

ReportCommand::ReportCommand(CLI::App& app)
    : m_cmd(app.add_subcommand(
          "report",
          "Plots (PNG, SVG) and one self-contained report.html of a run, a comparison or a sweep, "
          "in RESULTS_DIR/report/ (docs/analysis.md, docs/sweeps.md)")),
      m_quantiles(QuantileMethodName(QuantileMethod::NearestRank))
{
    m_cmd->add_option("results_dir", m_dir,
                      "A run directory (manifest.json), a comparison directory (comparison.csv) "
                      "or a sweep results root (sweep.csv)")
        ->required();
    m_cmd->add_option("--out", m_out, "Report directory (default RESULTS_DIR/report)");
    m_cmd->add_option("--quantiles", m_quantiles,
                      "How the report's p50/p99/p99.9 are taken: nearest-rank (the observed value "
                      "of rank ceil(q n), as run/compare print them) or linear (interpolated "
                      "between order statistics, numpy's default)")
        ->check(CLI::IsMember({QuantileMethodName(QuantileMethod::NearestRank),
                               QuantileMethodName(QuantileMethod::Linear)}))
        ->capture_default_str();
}

bool
ReportCommand::Parsed() const
{
    return m_cmd->parsed();
}

int
ReportCommand::Run()
{
    return DoReport(m_dir, m_out, m_quantiles);
}

} // namespace tusk
