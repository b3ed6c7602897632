/*
 * tusk: short policy names used in scenario files and on the command line.
 *
 * Each policy registers its own names, with one line in its own .cc file (a static
 * PolicyRegistration or PathSelectorRegistration object, run when the library loads). Nothing
 * here lists the policies; listings and the names in error messages come from what was
 * registered. See README.md, "Adding a policy".
 */
#ifndef TUSK_POLICY_REGISTRY_H
#define TUSK_POLICY_REGISTRY_H

#include <cstdint>
#include <map>
#include <string>
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
    /** Where the policy comes from (paper, specification, product), for `tusk policies`. */
    std::string source = "";
    /** The fabric kind the policy needs ("infiniband"); "" = any (`[fabric] kind`). */
    std::string fabric = "";
    /** Packets of one QP take different paths by design: the runner refuses a go-back-N
     *  receiver (nic.receiver = "selective-repeat" or a UEC RUD transport places them). */
    bool needsReorderingReceiver = false;
    /** "routes": each QP pinned to a source route, a host's QPs taking the fabric's routes in
     *  turn (WorkloadExecutor QpEntropy Routes); "" = the scenario's nic.qp_entropy. */
    std::string qpEntropy = "";
    /** "reverse": the responders' ACKs, NAKs and CNPs retrace each answered data packet's
     *  route (RdmaNic AckRoute Reverse); "" = the scenario's nic.ack_route (default fixed). */
    std::string ackRoute = "";
    /** The LoadBalancer keeps state between frames (flowlet tables, congestion metrics,
     *  round-robin pointers, a random stream), so what it chooses in one iteration may depend
     *  on earlier ones. false only for a policy whose choice is a function of the frame's
     *  headers and the fabric's configuration (set with WithoutState()): fast mode then does
     *  not look for a drift or a rare iteration recurring with a long period (IterationMemo
     *  SteadyTrendSpan and RecurrenceSpan 0, docs/fast-mode.md). A plug-in that says nothing
     *  keeps both checks. */
    bool keepsState = true;
};

/** `info` marked as keeping no state between frames (PolicyInfo::keepsState false), for a
 *  registration: `PolicyRegistration k{WithoutState({"ecmp", ...}), "source"}`. */
inline PolicyInfo
WithoutState(PolicyInfo info)
{
    info.keepsState = false;
    return info;
}

/** A host-side path selector by short name (the value of `lb.path_selector`). */
struct PathSelectorInfo
{
    std::string name;   //!< short name, e.g. "reps"
    std::string typeId; //!< PathSelector TypeId, e.g. "ns3::RepsPathSelector"
    std::string description;
};

/**
 * \brief Registers a policy preset when the library loads: one line in the policy's own file,
 *   `const PolicyRegistration kRegistration{{"drill", "ns3::DrillLoadBalancer", "..."},
 *                                            "Ghorbani et al., DRILL, SIGCOMM 2017"};`
 * with the source it implements (required: `tusk policies` cites it). Aborts the program at
 * load time if the name is already taken or the source is missing (a programming error).
 */
class PolicyRegistration
{
  public:
    PolicyRegistration(PolicyInfo info, std::string source);
};

/**
 * \brief Registers a host-side path selector's short name when the library loads, and with
 * `presetName` also the policy preset of that name: ECMP switches and this selector
 * (`host-reps` = ns3::EcmpLoadBalancer + ns3::RepsPathSelector), citing `presetSource`. One
 * line in the selector's own file. Aborts at load time on a name already taken, or a preset
 * without a source.
 */
class PathSelectorRegistration
{
  public:
    PathSelectorRegistration(std::string name,
                             std::string typeId,
                             std::string description,
                             std::string presetName = "",
                             std::string presetDescription = "",
                             std::string presetSource = "");
};

/**
 * \brief Whether the switch policy `nameOrTypeId` may keep state between frames: a preset's
 * keepsState; for a LoadBalancer TypeId name, false only when presets without a host path
 * selector of their own are built on it and none keeps state (ns3::EcmpLoadBalancer); true for
 * a TypeId no such preset uses (the safe default). The host path selector is judged apart.
 */
bool PolicyKeepsState(const std::string& nameOrTypeId);

/** All policy presets, sorted by name. */
const std::vector<PolicyInfo>& SwitchPolicies();

/** The policy named `name` (short name or LoadBalancer TypeId); nullptr if not a preset. */
const PolicyInfo* FindPolicy(const std::string& name);

/**
 * \brief TypeId name for a short name ("ecmp") or a TypeId name ("ns3::EcmpLoadBalancer").
 * \return empty string if unknown.
 */
std::string ResolveSwitchPolicy(const std::string& nameOrTypeId);

/** All host-side path selectors with a short name, sorted by name. */
const std::vector<PathSelectorInfo>& PathSelectors();

/**
 * \brief PathSelector TypeId for a short name ("fixed", "oblivious-spray") or a TypeId name.
 * \return empty string if unknown.
 */
std::string ResolvePathSelector(const std::string& nameOrTypeId);

/** The policy names for an error message: `ar, conga, drill, ...`. */
std::string PolicyNameList();
/** The path selector names for an error message: `"bitmap", "fixed", ...`. */
std::string PathSelectorNameList();

} // namespace ns3

#endif
