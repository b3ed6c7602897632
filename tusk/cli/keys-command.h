/*
 * tusk: `tusk keys [--update-doc FILE]`: list every scenario key (the knob table), or regenerate
 * the key tables of docs/scenario-format.md.
 */
#ifndef TUSK_KEYS_COMMAND_H
#define TUSK_KEYS_COMMAND_H

#include <CLI/CLI.hpp>

#include <string>

namespace tusk
{

/** Registers its subcommand on the app; main() asks Parsed() after parsing, then Run(). */
class KeysCommand
{
  public:
    explicit KeysCommand(CLI::App& app);
    KeysCommand(const KeysCommand&) = delete;
    KeysCommand& operator=(const KeysCommand&) = delete;

    bool Parsed() const;
    /** Run the command; returns the exit status. */
    int Run();

  private:
    CLI::App* m_cmd;
    std::string m_updateDoc;
};

} // namespace tusk

#endif // TUSK_KEYS_COMMAND_H
