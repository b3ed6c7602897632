#include "policy-registry.h"

#include "ns3/fatal-error.h"
#include "ns3/type-id.h"

#include <algorithm>

namespace ns3
{

namespace
{
// Function-local statics: registrations run from other files' static initialisers, in an
// order the linker chooses, so the tables must exist on first use. Kept sorted by name.
std::vector<PolicyInfo>&
PolicyTable()
{
    static std::vector<PolicyInfo> table;
    return table;
}

std::vector<PathSelectorInfo>&
PathSelectorTable()
{
    static std::vector<PathSelectorInfo> table;
    return table;
}

template <typename Info>
void
InsertSorted(std::vector<Info>& table, Info info, const char* what)
{
    auto it = std::lower_bound(table.begin(), table.end(), info.name,
                               [](const Info& a, const std::string& n) { return a.name < n; });
    if (it != table.end() && it->name == info.name)
    {
        NS_FATAL_ERROR("two " << what << " registered as \"" << info.name << "\": " << it->typeId
                              << " and " << info.typeId);
    }
    table.insert(it, std::move(info));
}

template <typename Info>
std::string
NameList(const std::vector<Info>& table, const char* quote)
{
    std::string names;
    for (const auto& i : table)
    {
        names += (names.empty() ? "" : ", ") + std::string(quote) + i.name + quote;
    }
    return names;
}

// FixedPathSelector lives with the NIC (ns3-modules/rdma, its default), not in this folder,
// so its name is registered here.
const PathSelectorRegistration kFixed{"fixed", "ns3::FixedPathSelector",
                                      "one entropy per QP for its lifetime (classic RoCEv2)"};
} // namespace

PolicyRegistration::PolicyRegistration(PolicyInfo info, std::string source)
{
    if (source.empty())
    {
        NS_FATAL_ERROR("policy \"" << info.name << "\" registered without a source");
    }
    info.source = std::move(source);
    InsertSorted(PolicyTable(), std::move(info), "policies");
}

PathSelectorRegistration::PathSelectorRegistration(std::string name,
                                                   std::string typeId,
                                                   std::string description,
                                                   std::string presetName,
                                                   std::string presetDescription,
                                                   std::string presetSource)
{
    if (!presetName.empty())
    {
        if (presetSource.empty())
        {
            NS_FATAL_ERROR("policy \"" << presetName << "\" registered without a source");
        }
        PolicyInfo preset{presetName, "ns3::EcmpLoadBalancer", presetDescription, {}, typeId};
        preset.source = std::move(presetSource);
        InsertSorted(PolicyTable(), std::move(preset), "policies");
    }
    InsertSorted(PathSelectorTable(),
                 PathSelectorInfo{std::move(name), std::move(typeId), std::move(description)},
                 "path selectors");
}

const std::vector<PolicyInfo>&
SwitchPolicies()
{
    return PolicyTable();
}

const PolicyInfo*
FindPolicy(const std::string& name)
{
    for (const auto& p : SwitchPolicies())
    {
        if (p.name == name)
        {
            return &p;
        }
    }
    return nullptr;
}

std::string
ResolveSwitchPolicy(const std::string& nameOrTypeId)
{
    if (const PolicyInfo* p = FindPolicy(nameOrTypeId))
    {
        return p->typeId;
    }
    TypeId tid;
    if (TypeId::LookupByNameFailSafe(nameOrTypeId, &tid) &&
        tid.IsChildOf(TypeId::LookupByName("ns3::LoadBalancer")))
    {
        return nameOrTypeId;
    }
    return "";
}

const std::vector<PathSelectorInfo>&
PathSelectors()
{
    return PathSelectorTable();
}

std::string
ResolvePathSelector(const std::string& nameOrTypeId)
{
    for (const auto& s : PathSelectors())
    {
        if (s.name == nameOrTypeId || s.typeId == nameOrTypeId)
        {
            return s.typeId;
        }
    }
    TypeId tid;
    if (TypeId::LookupByNameFailSafe(nameOrTypeId, &tid) &&
        tid.IsChildOf(TypeId::LookupByName("ns3::PathSelector")))
    {
        return nameOrTypeId;
    }
    return "";
}

std::string
PolicyNameList()
{
    return NameList(PolicyTable(), "");
}

std::string
PathSelectorNameList()
{
    return NameList(PathSelectorTable(), "\"");
}

} // namespace ns3
