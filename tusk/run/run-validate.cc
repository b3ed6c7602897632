/*
 * tusk: checks of a spec that need no topology, and model errors reported as scenario keys.
 */
#include "run/fabric-kinds.h"
#include "run/run-stages.h"
#include "scenario/topology-kinds.h"

#include "scenario/knob-table.h"
#include "scenario/scenario-sections.h"

#include "lb-policies/policy-registry.h"

#include "fabric/model/ib-credits.h"
#include "importers/model/simai-workload.h"
#include "fabric/model/load-balancer.h"
#include "rdma/model/rdma-nic.h"

#include "ns3/object-factory.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace tusk
{

using ns3::InputError;

namespace
{

/** PFC protects some priority of the switch ports (Ethernet, PFC on, a lossless priority). */
bool
PfcLossless(const ScenarioSpec& spec)
{
    return spec.pfc.enabled && FabricKindOf(spec).UsesPfc() && !spec.pfc.losslessPriorities.empty();
}

/**
 * A given PFC headroom (buffer.headroom_bytes > 0) must hold at least one full data frame: the
 * frame arriving when the pause threshold is crossed has nowhere else to go, so with less
 * the lossless priorities drop at every pause.
 */
void
CheckHeadroomHoldsFrame(const ScenarioSpec& spec)
{
    const uint64_t headroom = spec.buffer.headroomBytes;
    const uint64_t frame = spec.nic.mtuBytes + DataHeaderBytes(spec);
    if (!PfcLossless(spec) || headroom == 0 || headroom >= frame)
    {
        return;
    }
    throw spec.KeyError("buffer.headroom_bytes",
                        fmt::format("expected 0 (automatic) or at least one full data frame of PFC "
                                    "headroom per port and lossless priority, {} bytes (nic.mtu_bytes "
                                    "{} + {} bytes of headers): with less, the lossless priorities "
                                    "drop a frame at every pause; got {}",
                                    frame, spec.nic.mtuBytes, frame - spec.nic.mtuBytes, headroom));
}

/**
 * A given PFC headroom below what a link needs to stay lossless: the automatic headroom of
 * its rate and delay (ns3::FabricHelper::AutoHeadroomBytes, 2 x (delay x rate) + 2 x MTU, the
 * formula the multi-site long-haul check uses). Names the link class with the largest need
 * and how many switch ports get less. Long-haul links are left to that check (they run lossy
 * or are refused). "" when the headroom is automatic or enough, or the topology cannot be
 * built (the run reports why).
 */
std::string
HeadroomWarning(const ScenarioSpec& spec)
{
    const uint64_t given = spec.buffer.headroomBytes;
    if (!PfcLossless(spec) || given == 0)
    {
        return "";
    }
    ns3::TopologyGraph graph;
    try
    {
        graph = BuildGraph(spec);
    }
    catch (const InputError&)
    {
        return "";
    }
    uint64_t needed = 0;
    const ns3::TopoLink* worst = nullptr;
    uint64_t shortPorts = 0;
    for (const auto& l : graph.links)
    {
        if (l.longHaul)
        {
            continue;
        }
        const uint64_t need = ns3::FabricHelper::AutoHeadroomBytes(l.rateBps, l.delayPs);
        if (need > given)
        {
            shortPorts += (l.a >= graph.numHosts ? 1 : 0) + (l.b >= graph.numHosts ? 1 : 0);
        }
        if (need > needed)
        {
            needed = need;
            worst = &l;
        }
    }
    if (worst == nullptr || needed <= given)
    {
        return "";
    }
    return fmt::format("buffer.headroom_bytes ({} bytes) is below the PFC headroom a {:g} Gb/s, "
                       "{:g} ns link needs: 2 x (delay x rate) + 2 x MTU = {} bytes per port "
                       "and lossless priority; {} switch ports get less than their links need, "
                       "and their lossless priorities drop frames still in flight when a pause "
                       "is sent (buffer.headroom_bytes = 0 gives every port what its link needs)",
                       given, static_cast<double>(worst->rateBps) / 1e9,
                       static_cast<double>(worst->delayPs) / 1e3, needed, shortPorts);
}

} // namespace

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
    if (spec.FileOf(key) != spec.sourceFile)
    {
        throw InputError(spec.FileOf(key), 0, key, e.Message()); // a --set override
    }
    unsigned line = spec.LineOf(key);
    if (line == 0 && key != fallbackKey)
    {
        line = spec.LineOf(fallbackKey);
    }
    throw InputError(spec.sourceFile, line, key, e.Message());
}


RunPlan
ValidateRun(const ScenarioSpec& spec)
{
    if (spec.simulator.steadyJump == "on" && spec.simulator.implementation != "lean")
    {
        throw spec.KeyError("simulator.steady_jump",
                            fmt::format("steady-state jumps need simulator.implementation = "
                                        "\"lean\" (tusk's kernel moves the events a scenario "
                                        "gave a time); it is \"{}\"",
                                        spec.simulator.implementation));
    }
    if (spec.probes.intervalPs > 0 && spec.simulator.mode == "fast")
    {
        throw spec.KeyError("probes.interval_us",
                            "probes run in packet mode only (simulator.mode = \"packet\"), "
                            "and this run is in fast mode (the scenario's simulator.mode, or "
                            "`tusk validate-fast`): fast mode replays iterations, where no "
                            "probe would be sent or counted");
    }
    if (spec.probes.intervalPs > 0 && spec.simulator.Jumps())
    {
        throw spec.KeyError("probes.interval_us",
                            "probes and steady-state jumps (simulator.steady_jump = \"on\") "
                            "do not go together: a jump skips time in which no probe would "
                            "be sent; set steady_jump = \"off\" or remove [probes]");
    }
    RunPlan plan;
    plan.policyTypeId = ns3::ResolveSwitchPolicy(spec.lb.policy);
    if (plan.policyTypeId.empty())
    {
        throw spec.KeyError("lb.policy",
                            "unknown policy \"" + spec.lb.policy + "\"; expected one of " +
                                ns3::PolicyNameList() + " or a LoadBalancer TypeId name");
    }
    plan.policyKeepsState = ns3::PolicyKeepsState(spec.lb.policy);
    // A policy preset may bring LoadBalancer attributes, a host path selector and QP scaling;
    // the scenario's own [lb.attributes] and lb.path_selector take precedence.
    const ns3::PolicyInfo* preset = ns3::FindPolicy(spec.lb.policy);
    if (!preset)
    {
        // A raw TypeId: its fabric restriction is that of the presets built on it, when they
        // all share one (ns3::IbStaticLoadBalancer is only "ib-static").
        std::set<std::string> fabrics;
        for (const auto& p : ns3::SwitchPolicies())
        {
            if (p.typeId == plan.policyTypeId)
            {
                fabrics.insert(p.fabric);
            }
        }
        const std::string only = fabrics.size() == 1 ? *fabrics.begin() : "";
        if (!only.empty() && only != spec.fabric.kind)
        {
            throw spec.KeyError("lb.policy",
                                "\"" + spec.lb.policy + "\" runs only on fabric.kind = \"" + only +
                                    "\"; here fabric.kind is \"" + spec.fabric.kind + "\"");
        }
    }
    if (preset)
    {
        plan.lbAttributes = preset->attributes;
        if (!preset->fabric.empty() && preset->fabric != spec.fabric.kind)
        {
            throw spec.KeyError("lb.policy",
                                "\"" + spec.lb.policy + "\" runs only on fabric.kind = \"" +
                                    preset->fabric + "\"; here fabric.kind is \"" +
                                    spec.fabric.kind + "\"");
        }
        const ns3::LossRecoveryInfo& recovery = LossRecoveryOf(spec);
        if (preset->needsReorderingReceiver && recovery.Needs(ns3::LossRecoveryInfo::IN_ORDER))
        {
            const std::string key = recovery.KeyName();
            std::string others; // the loss recoveries that place packets out of order
            for (const auto& r : ns3::LossRecoveries())
            {
                if (!r.Needs(ns3::LossRecoveryInfo::IN_ORDER))
                {
                    others += fmt::format("{}{} = \"{}\"{}", others.empty() ? "" : " or ",
                                          r.KeyName(), r.name,
                                          r.key == ns3::LossRecoveryInfo::RECEIVER ? " (RoCE)" : "");
                }
            }
            throw InputError(spec.FileOf(key),
                             spec.LineOf(key) ? spec.LineOf(key) : spec.LineOf("lb.policy"), key,
                             "\"" + spec.lb.policy + "\" sends a QP's packets over several "
                             "paths and leaves their order to the transport; the in-order "
                             "receiver of " + key + " = \"" + recovery.name + "\" would resend "
                             "everything behind each reordering. Use " + others);
        }
    }
    for (const auto& [k, v] : spec.lb.attributes)
    {
        plan.lbAttributes[k] = v;
    }
    plan.pathSelectorTypeId = preset && !preset->pathSelector.empty()
                                  ? preset->pathSelector
                                  : std::string("ns3::FixedPathSelector");
    if (!spec.lb.pathSelector.empty())
    {
        plan.pathSelectorTypeId = ns3::ResolvePathSelector(spec.lb.pathSelector);
        if (plan.pathSelectorTypeId.empty())
        {
            throw spec.KeyError("lb.path_selector",
                                "unknown path selector \"" + spec.lb.pathSelector +
                                    "\"; expected one of " + ns3::PathSelectorNameList() +
                                    " or a PathSelector TypeId name");
        }
    }
    // A loss recovery that pins one entropy per connection (ONE_PATH: UEC ROD) does so
    // whatever the selector; the others (UEC RUD) take the entropy of every packet from the
    // selector of the scenario or the policy (fixed for switch-only policies such as ecmp).
    const ns3::LossRecoveryInfo& recovery = LossRecoveryOf(spec);
    if (recovery.Needs(ns3::LossRecoveryInfo::ONE_PATH))
    {
        plan.pathSelectorTypeId = "ns3::FixedPathSelector";
    }
    if (spec.nic.rtoPs < recovery.minRtoPs)
    {
        throw spec.KeyError("nic.rto_us",
                            fmt::format("{} = \"{}\" needs a retransmission timeout of at least "
                                        "{} us; got {} us",
                                        recovery.KeyName(), recovery.name,
                                        recovery.minRtoPs / 1e6, spec.nic.rtoPs / 1e6));
    }
    plan.qpsPerConnection = preset && preset->qps > 0 ? preset->qps : spec.nic.qpsPerConnection;
    plan.qpScaling = preset && !preset->qpScaling.empty() ? preset->qpScaling : spec.nic.qpScaling;
    plan.qpEntropy = preset && !preset->qpEntropy.empty() ? preset->qpEntropy : spec.nic.qpEntropy;
    // The preset says "reverse" or nothing (PolicyInfo::ackRoute).
    plan.ackRoute = spec.nic.ackRoute.value_or(preset && preset->ackRoute == "reverse"
                                                   ? ns3::RdmaNic::ACK_REVERSE
                                                   : ns3::RdmaNic::ACK_FIXED);
    // What the fabric kind refuses, from its registration (fabric-kinds.h).
    if (const FabricKindInfo& fabric = FabricKindOf(spec); fabric.check)
    {
        fabric.check(spec, plan);
    }
    // What the congestion control needs, from its registration (cc-registry.h).
    const ns3::CongestionControlInfo& cc = CongestionControlOf(spec);
    if (!cc.fabric.empty() && cc.fabric != spec.fabric.kind)
    {
        throw InputError(spec.FileOf("nic.congestion_control"), spec.LineOf("nic.congestion_control"),
                         "nic.congestion_control",
                         "\"" + cc.name + "\" (" + cc.description + ") needs [fabric] kind = \"" +
                             cc.fabric + "\"; `tusk kinds` lists the congestion controls of \"" +
                             spec.fabric.kind + "\"");
    }
    if (cc.Needs(ns3::CongestionControlInfo::NEEDS_ECN) && !spec.ecn.enabled)
    {
        throw InputError(spec.FileOf("nic.congestion_control"), spec.LineOf("nic.congestion_control"),
                         "nic.congestion_control",
                         "\"" + cc.name + "\" reacts to ECN marks; it needs "
                         "[ecn] enabled = true (without marks it never slows down)");
    }
    CheckHeadroomHoldsFrame(spec);
    CheckCcSettings(spec);
    return plan;
}

std::vector<std::string>
ScenarioWarnings(const ScenarioSpec& spec)
{
    std::vector<std::string> w;
    const auto& lossless = spec.pfc.losslessPriorities;
    if (spec.pfc.enabled && FabricKindOf(spec).UsesPfc() &&
        std::find(lossless.begin(), lossless.end(), spec.nic.dataPriority) == lossless.end())
    {
        w.push_back(fmt::format("pfc.lossless_priorities does not include nic.data_priority ({}): "
                                "data is lossy and dropped at the egress threshold while PFC "
                                "protects other classes",
                                spec.nic.dataPriority));
    }
    for (size_t i = 0; i < lossless.size(); ++i)
    {
        if (std::find(lossless.begin() + i + 1, lossless.end(), lossless[i]) != lossless.end())
        {
            w.push_back(fmt::format("pfc.lossless_priorities lists priority {} twice", lossless[i]));
        }
    }
    // A pause lasts quanta x 512 bit times; at 400 Gb/s (the fastest common port) that is the
    // shortest, so a refresh slower than it lets pauses expire between refreshes.
    const double pauseUsAt400G = spec.pfc.pauseQuanta * 512.0 / 400e9 * 1e6;
    if (spec.pfc.enabled && FabricKindOf(spec).UsesPfc() && spec.pfc.refreshPs > 0 && spec.pfc.refreshPs / 1e6 >= pauseUsAt400G)
    {
        w.push_back(fmt::format("pfc.refresh_us ({:.3f} us) is not shorter than a {}-quanta pause "
                                "at 400 Gb/s ({:.3f} us): pauses can expire before they are "
                                "refreshed",
                                spec.pfc.refreshPs / 1e6, spec.pfc.pauseQuanta, pauseUsAt400G));
    }
    if (const FabricKindInfo& fabric = FabricKindOf(spec); fabric.warnings)
    {
        fabric.warnings(spec, w);
    }
    if (const TopologyKindInfo* kind = FindTopologyKind(spec.topology.kind);
        kind != nullptr && kind->warnings)
    {
        kind->warnings(spec, w);
    }
    // A section of a congestion control the run does not use changes nothing.
    for (const auto& section : CcSectionNames())
    {
        const std::string prefix = section + ".";
        const auto it = spec.ccSettings.lower_bound(prefix);
        const bool given = it != spec.ccSettings.end() && it->first.rfind(prefix, 0) == 0;
        if (!given || CcSectionInUse(spec, section))
        {
            continue;
        }
        w.push_back(section == "rccc"
                        ? std::string("[rccc] is set but nic.receiver_credit is false: it has no "
                                      "effect")
                        : fmt::format("[{}] is set but nic.congestion_control is \"{}\": it has "
                                      "no effect",
                                      section, spec.nic.congestionControl));
    }
    // The steady-state probe's parameters change nothing without the probe.
    const SimulatorSection simDefaults;
    if (!spec.simulator.steadyProbe && !spec.simulator.Jumps() &&
        (spec.simulator.steadyWindowPs != simDefaults.steadyWindowPs ||
         spec.simulator.steadyWindows != simDefaults.steadyWindows ||
         spec.simulator.steadyTolerance != simDefaults.steadyTolerance))
    {
        w.push_back("simulator.steady_window_us, steady_windows or steady_tolerance is set but "
                    "simulator.steady_probe is false: it has no effect");
    }
    // CONGA and ConWeave keep their state at the source and destination ToR of a frame; a host
    // with two ToRs has no single one, and the fabric gives them none (fabric.md, Dual-ToR).
    const bool dualTor = (spec.topology.kind == "leaf-spine" && spec.topology.leafSpine.dualTor) ||
                         (spec.topology.kind == "fat-tree" && spec.topology.fatTree.dualTor);
    const std::string& policy = spec.lb.policy;
    if (dualTor && (policy == "conga" || policy == "conweave" ||
                    policy == "ns3::CongaLoadBalancer" || policy == "ns3::ConWeaveLoadBalancer"))
    {
        w.push_back(fmt::format("lb.policy \"{}\" with topology.dual_tor: a host on two ToRs has "
                                "no edge switch for it, so it makes no congestion-aware choice and "
                                "picks paths by a flow hash at every switch",
                                policy));
    }
    const std::string headroom = HeadroomWarning(spec);
    if (!headroom.empty())
    {
        w.push_back(headroom);
    }
    // A SimAI workload's header values the import does not model (vpp, ga), as --hpcc-config
    // warns of the keys it ignores. A file that cannot be read is the workload's error, later.
    for (const auto& job : spec.jobs)
    {
        if (job.file.empty())
        {
            continue;
        }
        try
        {
            const ns3::SimAiWorkload simai = ns3::ReadSimAiWorkload(job.file);
            w.insert(w.end(), simai.warnings.begin(), simai.warnings.end());
        }
        catch (const ns3::InputError&)
        {
        }
    }
    return w;
}

} // namespace tusk
