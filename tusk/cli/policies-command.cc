#include "cli/policies-command.h"

#include "cli/kinds.h"

#include "lb-policies/policy-registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <string>

namespace tusk
{

PoliciesCommands::PoliciesCommands(CLI::App& app)
    : m_policies(app.add_subcommand("policies", "List the load-balancing policies")),
      m_kinds(app.add_subcommand(
          "kinds", "List every registered kind (policies, path selectors, congestion controls, "
                   "collective algorithms, loss recoveries, topology and failure kinds, with "
                   "plugins' registrations) and what each needs"))
{
}

bool
PoliciesCommands::Parsed() const
{
    return m_policies->parsed() || m_kinds->parsed();
}

int
PoliciesCommands::Run()
{
    if (m_kinds->parsed())
    {
        std::cout << KindsText();
        return 0;
    }
    size_t width = 11;
    for (const auto& p : ns3::SwitchPolicies())
    {
        width = std::max(width, p.name.size());
    }
    for (const auto& p : ns3::SwitchPolicies())
    {
        const std::string host =
            (p.pathSelector.empty() ? "" : "host " + p.pathSelector + "; ") +
            (p.fabric.empty() ? "" : "fabric.kind = \"" + p.fabric + "\" only; ") +
            (p.needsReorderingReceiver ? "out-of-order receiver; " : "");
        std::cout << fmt::format("{:<{}} {:<36} {}\n{:<{}} {:<36} {}source: {}\n", p.name, width,
                                 p.typeId, p.description, "", width, "", host, p.source);
    }
    return 0;
}

} // namespace tusk
