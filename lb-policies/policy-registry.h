/*
 * tusk: short policy names used in scenario files and on the command line.
 */
#ifndef TUSK_POLICY_REGISTRY_H
#define TUSK_POLICY_REGISTRY_H

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/** (short name, TypeId name, one-line description) of every switch-side policy. */
struct PolicyInfo
{
    std::string name;
    std::string typeId;
    std::string description;
};

/** All switch-side policies, in a stable order. */
const std::vector<PolicyInfo>& SwitchPolicies();

/**
 * \brief TypeId name for a short name ("ecmp") or a TypeId name ("ns3::EcmpLoadBalancer").
 * \return empty string if unknown.
 */
std::string ResolveSwitchPolicy(const std::string& nameOrTypeId);

} // namespace ns3

#endif
