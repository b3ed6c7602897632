/*
 * tusk: `tusk policies` (the load-balancing policies, with what each needs) and `tusk kinds`
 * (every registered kind, plugins included): the listings of what is registered.
 */
#ifndef TUSK_POLICIES_COMMAND_H
#define TUSK_POLICIES_COMMAND_H

#include <CLI/CLI.hpp>

namespace tusk
{

/** Registers `policies` and `kinds` on the app; main() asks Parsed() after parsing, then Run(). */
class PoliciesCommands
{
  public:
    explicit PoliciesCommands(CLI::App& app);
    PoliciesCommands(const PoliciesCommands&) = delete;
    PoliciesCommands& operator=(const PoliciesCommands&) = delete;

    bool Parsed() const;
    /** Print the listing asked for; returns the exit status (0). */
    int Run();

  private:
    CLI::App* m_policies;
    CLI::App* m_kinds;
};

} // namespace tusk

#endif // TUSK_POLICIES_COMMAND_H
