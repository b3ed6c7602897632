#include "run/run-attributes.h"

#include "scenario/knob-table.h"

#include "fabric/helper/attribute-text.h"
#include "fabric/model/input-error.h"

#include "ns3/config.h"
#include "ns3/type-id.h"

namespace tusk
{

using namespace ns3;

namespace
{

/** Attribute `path` and its information; false if there is no such TypeId or attribute. */
bool
Lookup(const std::string& path, TypeId& tid, TypeId::AttributeInformation& info)
{
    const auto sep = path.rfind("::");
    return sep != std::string::npos && sep > 0 &&
           TypeId::LookupByNameFailSafe(path.substr(0, sep), &tid) &&
           tid.LookupAttributeByName(path.substr(sep + 2), &info);
}

} // namespace

RunAttributes::~RunAttributes()
{
    for (auto it = m_saved.rbegin(); it != m_saved.rend(); ++it)
    {
        Config::SetDefault(it->first, *it->second);
    }
}

std::string
RunAttributes::DeclaringPath(const std::string& typeId, const std::string& name)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeId, &tid))
    {
        return "";
    }
    for (; tid != TypeId(); tid = tid.GetParent())
    {
        for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            if (tid.GetAttribute(i).name == name)
            {
                return tid.GetName() + "::" + name;
            }
        }
        if (tid == tid.GetParent())
        {
            break;
        }
    }
    return "";
}

void
RunAttributes::ApplyNs3Defaults(const ScenarioSpec& spec)
{
    for (const auto& [path, value] : spec.ns3Defaults)
    {
        const std::string key = "ns3." + path;
        auto fail = [&](const std::string& why) {
            throw spec.KeyError(key, why);
        };
        const auto sep = path.rfind("::");
        TypeId tid;
        if (sep == std::string::npos || sep == 0 ||
            !TypeId::LookupByNameFailSafe(path.substr(0, sep), &tid))
        {
            fail("expected \"ns3::TypeName::Attribute\"; there is no TypeId \"" +
                 (sep == std::string::npos ? path : path.substr(0, sep)) + "\"");
        }
        TypeId::AttributeInformation info;
        const std::string attr = path.substr(sep + 2);
        if (!tid.LookupAttributeByName(attr, &info))
        {
            fail(tid.GetName() + " has no attribute \"" + attr + "\"");
        }
        // ns-3 sets a default only on the TypeId that declares the attribute.
        const std::string declared = DeclaringPath(tid.GetName(), attr);
        if (declared != path)
        {
            const std::string owner = declared.substr(0, declared.rfind("::"));
            fail(attr + " is declared by " + owner + "; write \"" + declared +
                 "\" (it applies to every " + owner + ")");
        }
        const std::string owners = ScenarioKeysSetting(path);
        if (!owners.empty())
        {
            fail("this attribute is set by the scenario key " + owners + "; use that key");
        }
        std::string why;
        Ptr<AttributeValue> v = ParseAttributeText(info, value, why);
        if (!v)
        {
            fail(why);
        }
        m_saved.emplace_back(path, info.initialValue);
        Config::SetDefault(path, *v);
    }
}

void
RunAttributes::Record(const std::string& path, const std::string& value, const std::string& by)
{
    Entry& e = m_entries[path];
    e.values.insert(value);
    if (e.by.empty())
    {
        const std::string keys = ScenarioKeysSetting(path);
        e.by = !by.empty() ? by : keys.empty() ? "" : "the scenario key " + keys;
    }
}

void
RunAttributes::SetDefault(const std::string& path, const AttributeValue& value, const std::string& by)
{
    TypeId tid;
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_UNLESS(Lookup(path, tid, info), "tusk: no attribute " << path);
    m_saved.emplace_back(path, info.initialValue);
    Config::SetDefault(path, value);
    Record(path, value.SerializeToString(info.checker), by);
}

void
RunAttributes::Set(const Ptr<Object>& object, const std::string& name, const AttributeValue& value,
                   const std::string& by)
{
    object->SetAttribute(name, value);
    Note(object->GetInstanceTypeId().GetName(), name, value, by);
}

void
RunAttributes::Note(const std::string& typeId, const std::string& name, const AttributeValue& value,
                    const std::string& by)
{
    const std::string path = DeclaringPath(typeId, name);
    TypeId tid;
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_UNLESS(!path.empty() && Lookup(path, tid, info),
                        "tusk: no attribute " << typeId << "::" << name);
    Record(path, value.SerializeToString(info.checker), by);
}

void
RunAttributes::NoteDescribed(const std::string& typeId, const std::string& name,
                             const std::string& description, const std::string& by)
{
    const std::string path = DeclaringPath(typeId, name);
    NS_ABORT_MSG_IF(path.empty(), "tusk: no attribute " << typeId << "::" << name);
    Record(path, description, by);
}

void
RunAttributes::CheckNs3Defaults(const ScenarioSpec& spec) const
{
    for (const auto& [path, value] : spec.ns3Defaults)
    {
        auto it = m_entries.find(path);
        if (it == m_entries.end())
        {
            continue;
        }
        const std::string key = "ns3." + path;
        throw spec.KeyError(key,
                            "this attribute is set by " +
                                (it->second.by.empty() ? std::string("the runner") : it->second.by) +
                                " on the objects of the run, so this default would be lost; use "
                                "that instead");
    }
}

std::map<std::string, std::vector<std::string>>
RunAttributes::Values() const
{
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& [path, e] : m_entries)
    {
        out[path] = std::vector<std::string>(e.values.begin(), e.values.end());
    }
    return out;
}

} // namespace tusk
