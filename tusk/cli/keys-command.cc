#include "cli/keys-command.h"

#include "cli/exit-status.h"
#include "results/results-dir.h"
#include "scenario/knob-table.h"

#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

namespace tusk
{

namespace
{

/** `tusk keys [--update-doc FILE]`. */
int
DoKeys(const std::string& updateDoc)
{
    if (updateDoc.empty())
    {
        std::cout << KeyListText();
        return 0;
    }
    std::ifstream in(updateDoc);
    if (!in)
    {
        std::cerr << "tusk keys: cannot read " << updateDoc << "\n";
        return kExitBadInput;
    }
    std::ostringstream text;
    text << in.rdbuf();
    std::vector<std::string> problems;
    const std::string updated = UpdateKeyReference(text.str(), problems);
    for (const auto& p : problems)
    {
        std::cerr << "tusk keys: " << updateDoc << ": " << p << "\n";
    }
    if (!problems.empty())
    {
        return kExitBadInput;
    }
    WriteFileAtomic(updateDoc, updated);
    std::cout << (updated == text.str() ? "up to date: " : "updated: ") << updateDoc << "\n";
    return 0;
}

} // namespace

KeysCommand::KeysCommand(CLI::App& app)
    : m_cmd(app.add_subcommand(
          "keys", "List every scenario key with its type, unit, default and the ns-3 attributes it "
                  "sets (docs/scenario-format.md explains each)"))
{
    m_cmd->add_option("--update-doc", m_updateDoc,
                      "Regenerate the key tables of this copy of docs/scenario-format.md from the "
                      "knob table (between its `<!-- keys: ... -->` markers)");
}

bool
KeysCommand::Parsed() const
{
    return m_cmd->parsed();
}

int
KeysCommand::Run()
{
    return DoKeys(m_updateDoc);
}

} // namespace tusk
