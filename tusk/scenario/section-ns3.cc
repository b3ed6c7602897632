/*
 * tusk: [ns3], defaults of any other ns-3 attribute by its path. An attribute that a scenario
 * key sets (the knob table's attribute column) is refused with the key to use instead: the
 * runner would set it per object and the [ns3] value would be lost.
 */
#include "scenario/scenario-sections.h"

#include "scenario/knob-table.h"

namespace tusk
{

namespace
{

const char* const kP = "ns3";

void
Read(ScenarioReader& r, const toml::table& root, ScenarioSpec& spec)
{
    const toml::table* tp = r.SectionTable(root, kP);
    if (tp == nullptr)
    {
        return;
    }
    const toml::table& t = *tp;
    for (auto&& [k, v] : t)
    {
        const std::string path(k.str());
        const std::string key = "ns3." + path;
        r.NoteKey(key, &v);
        if (!IsAttributePath(path))
        {
            r.Fail(&v, key,
                   "expected an ns-3 attribute path like \"ns3::SwitchNode::TrimThresholdBytes\" "
                   "(quote it: \"ns3::SwitchNode::TrimThresholdBytes\" = 65536); got " +
                       Quote(path));
        }
        const auto owners = KnobsSettingAttribute(path);
        if (owners.size() == 1)
        {
            r.Fail(&v, key, "this attribute is set by the scenario key " + owners[0] +
                                "; use that key");
        }
        if (owners.size() > 1)
        {
            r.Fail(&v, key, "this attribute is set by the scenario keys " +
                                ScenarioKeysSetting(path) + "; use those keys");
        }
        spec.ns3Defaults[path] = r.ScalarText(&v, key);
    }
}

void
Write(const ScenarioSpec& spec, nlohmann::json& root)
{
    nlohmann::json ns3 = nlohmann::json::object();
    for (const auto& [k, v] : spec.ns3Defaults)
    {
        ns3[k] = v;
    }
    root[kP] = ns3;
}

std::vector<KnobBlock>
Blocks()
{
    return {};
}

} // namespace

Section
Ns3Keys()
{
    return Section{kP, &Read, &Write, &Blocks};
}

} // namespace tusk
