/*
 * tusk: `tusk run SCENARIO`: run one scenario and write its results.
 */
#ifndef TUSK_RUN_COMMAND_H
#define TUSK_RUN_COMMAND_H

#include "cli/scenario-options.h"

#include <CLI/CLI.hpp>

#include <string>

namespace tusk
{

/** Registers its subcommand on the app; main() asks Parsed() after parsing, then Run(). */
class RunCommand
{
  public:
    explicit RunCommand(CLI::App& app);
    RunCommand(const RunCommand&) = delete;
    RunCommand& operator=(const RunCommand&) = delete;

    bool Parsed() const;
    /** Run the command; returns the exit status. */
    int Run();

  private:
    CLI::App* m_cmd;
    CommonOptions m_options;
};

} // namespace tusk

#endif // TUSK_RUN_COMMAND_H
