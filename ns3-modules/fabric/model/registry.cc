#include "registry.h"

namespace ns3
{

namespace
{
std::vector<std::string>* g_pluginRegistrationErrors = nullptr;
} // namespace

std::vector<std::string>*
PluginRegistrationErrors()
{
    return g_pluginRegistrationErrors;
}

void
SetPluginRegistrationErrors(std::vector<std::string>* errors)
{
    g_pluginRegistrationErrors = errors;
}

} // namespace ns3
