/*
 * tusk: `tusk compare [SCENARIO] --policies A,B,...`: run a scenario once per policy (same
 * topology, traffic and seed), write comparison.csv and index.sqlite, print one table.
 */
#ifndef TUSK_COMPARE_COMMAND_H
#define TUSK_COMPARE_COMMAND_H

#include "cli/scenario-options.h"

#include <CLI/CLI.hpp>

#include <string>

namespace tusk
{

/** Registers its subcommand on the app; main() asks Parsed() after parsing, then Run(). */
class CompareCommand
{
  public:
    explicit CompareCommand(CLI::App& app);
    CompareCommand(const CompareCommand&) = delete;
    CompareCommand& operator=(const CompareCommand&) = delete;

    bool Parsed() const;
    /** Run the command; returns the exit status. */
    int Run();

  private:
    CLI::App* m_cmd;
    CommonOptions m_options;
    std::string m_policies = "ecmp,flowlet-ar,spray";
};

} // namespace tusk

#endif // TUSK_COMPARE_COMMAND_H
