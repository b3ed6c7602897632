/*
 * tusk: `tusk validate-fast SCENARIO [--seed N] [--tolerance F] [--out DIR]`: run a scenario in
 * packet mode and in fast mode (simulator.mode) and print the difference of CCT, iteration
 * time, mean and p99 FCT per job, the wall time of each mode and the speedup.
 */
#ifndef TUSK_VALIDATE_FAST_COMMAND_H
#define TUSK_VALIDATE_FAST_COMMAND_H

#include "cli/scenario-options.h"
#include "results/fast-compare.h"

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace tusk
{

/** Registers its subcommand on the app; main() asks Parsed() after parsing, then Run(). */
class ValidateFastCommand
{
  public:
    explicit ValidateFastCommand(CLI::App& app);
    ValidateFastCommand(const ValidateFastCommand&) = delete;
    ValidateFastCommand& operator=(const ValidateFastCommand&) = delete;

    bool Parsed() const;
    /** Run both modes and print the table; returns the exit status (0 within tolerance, 1
     *  beyond it or a run failed, 2 bad input). */
    int Run(std::ostream& out);

  private:
    CLI::App* m_cmd;
    CommonOptions m_options;
    double m_tolerance = 0.05;
};

} // namespace tusk

#endif // TUSK_VALIDATE_FAST_COMMAND_H
