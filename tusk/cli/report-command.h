/*
 * tusk: `tusk report RESULTS_DIR`: plots and one self-contained report.html of a run, a
 * comparison or a sweep (the Python package in analysis/).
 */
#ifndef TUSK_REPORT_COMMAND_H
#define TUSK_REPORT_COMMAND_H

#include <CLI/CLI.hpp>

#include <string>

namespace tusk
{

/** Registers its subcommand on the app; main() asks Parsed() after parsing, then Run(). */
class ReportCommand
{
  public:
    explicit ReportCommand(CLI::App& app);
    ReportCommand(const ReportCommand&) = delete;
    ReportCommand& operator=(const ReportCommand&) = delete;

    bool Parsed() const;
    /** Run the command; returns the exit status. */
    int Run();

  private:
    CLI::App* m_cmd;
    std::string m_dir;
    std::string m_out;
    std::string m_quantiles;
};

} // namespace tusk

#endif // TUSK_REPORT_COMMAND_H
