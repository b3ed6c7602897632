#include "policy-registry.h"

#include "fabric/model/registry.h"

#include "ns3/fatal-error.h"
#include "ns3/type-id.h"

namespace ns3
{

namespace
{
// Function-local statics (registry.h): the tables exist on first use, whichever file's static
// initialiser registers first.
Registry<PolicyInfo>&
PolicyTable()
{
    static Registry<PolicyInfo> table("policies");
    return table;
}

Registry<PathSelectorInfo>&
PathSelectorTable()
{
    static Registry<PathSelectorInfo> table("path selectors");
    return table;
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
    PolicyTable().Register(std::move(info));
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
        PolicyTable().Register(std::move(preset));
    }
    PathSelectorTable().Register(
        PathSelectorInfo{std::move(name), std::move(typeId), std::move(description)});
}

const std::vector<PolicyInfo>&
SwitchPolicies()
{
    return PolicyTable().All();
}

const PolicyInfo*
FindPolicy(const std::string& name)
{
    return PolicyTable().Find(name);
}

bool
PolicyKeepsState(const std::string& nameOrTypeId)
{
    if (const PolicyInfo* p = FindPolicy(nameOrTypeId))
    {
        return p->keepsState;
    }
    bool any = false;
    for (const PolicyInfo& p : SwitchPolicies())
    {
        // A preset with its own host path selector (host-reps) keeps that selector's state;
        // with a raw TypeId the selector is the scenario's, judged on its own.
        if (p.typeId == nameOrTypeId && p.pathSelector.empty())
        {
            if (p.keepsState)
            {
                return true;
            }
            any = true;
        }
    }
    return !any;
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
    return PathSelectorTable().All();
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
    return PolicyTable().NameList();
}

std::string
PathSelectorNameList()
{
    return PathSelectorTable().NameList("\"");
}

} // namespace ns3
