/*
 * tusk: checks of a spec that need no topology, and model errors reported as scenario keys.
 */
#include "run-stages.h"

#include "knob-table.h"

namespace tusk
{

using ns3::InputError;

void
ThrowAsScenarioKey(const ScenarioSpec& spec,
                   const InputError& e,
                   const std::string& blockId,
                   const std::string& fallbackKey,
                   int64_t index)
{
    if (!e.File().empty())
    {
        throw e;
    }
    std::string key = KnobForParam(blockId, e.Key());
    if (key.empty())
    {
        const auto byAttribute = KnobsSettingAttribute(e.Key());
        key = byAttribute.empty() ? fallbackKey : byAttribute.front();
    }
    const auto i = key.find("[i]");
    if (i != std::string::npos && index >= 0)
    {
        key.replace(i, 3, "[" + std::to_string(index) + "]");
    }
    unsigned line = spec.LineOf(key);
    if (line == 0 && key != fallbackKey)
    {
        line = spec.LineOf(fallbackKey);
    }
    throw InputError(spec.sourceFile, line, key, e.Message());
}

} // namespace tusk
