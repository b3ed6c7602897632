/*
 * tusk: short policy names used in scenario files and on the command line.
 */
#ifndef TUSK_POLICY_REGISTRY_H
#define TUSK_POLICY_REGISTRY_H

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * A load-balancing policy by short name: a preset of the two seams. The switch side is a
 * LoadBalancer TypeId with attribute values; the host side, when the policy has one, a
 * PathSelector TypeId and a QP-scaling setting. Variants are presets, not flags.
 */
struct PolicyInfo
{
    std::string name;
    std::string typeId; //!< switch-side LoadBalancer TypeId
    std::string description;
    /** Attribute values of the LoadBalancer (the scenario's [lb.attributes] override them). */
    std::map<std::string, std::string> attributes = {};
    /** Host-side PathSelector TypeId; "" = the scenario's lb.path_selector (default fixed). */
    std::string pathSelector = "";
    /** QPs per connection the policy needs; 0 = the scenario's nic.qps_per_connection. */
    uint32_t qps = 0;
    /** "split" or "round-robin" when qps > 0; "" = the scenario's nic.qp_scaling. */
    std::string qpScaling = "";
};

/** All policies, in a stable order. */
const std::vector<PolicyInfo>& SwitchPolicies();

/**
 * Where a preset comes from (paper, specification or product documentation), for
 * `tusk policies`; "" for a name that is not a preset.
 */
const std::string& PolicySource(const std::string& name);

/** The policy named `name` (short name or LoadBalancer TypeId); nullptr if not a preset. */
const PolicyInfo* FindPolicy(const std::string& name);

/**
 * \brief TypeId name for a short name ("ecmp") or a TypeId name ("ns3::EcmpLoadBalancer").
 * \return empty string if unknown.
 */
std::string ResolveSwitchPolicy(const std::string& nameOrTypeId);

/** Host-side path selectors by short name: (name, TypeId, description). */
const std::vector<std::pair<std::string, std::string>>& PathSelectorNames();

/**
 * \brief PathSelector TypeId for a short name ("fixed", "oblivious-spray") or a TypeId name.
 * \return empty string if unknown.
 */
std::string ResolvePathSelector(const std::string& nameOrTypeId);

} // namespace ns3

#endif
