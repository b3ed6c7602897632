#include "cli/kinds.h"

#include "cli/plugins.h"
#include "run/fabric-kinds.h"
#include "run/failure-kinds.h"
#include "scenario/topology-kinds.h"

#include "lb-policies/policy-registry.h"
#include "rdma/model/cc/cc-registry.h"
#include "workload/model/collective-registry.h"
#include "rdma/model/loss-recovery/loss-recovery-registry.h"

#include <fmt/format.h>

#include <algorithm>

namespace tusk
{

namespace
{

/** "a; b; c" of the non-empty parts. */
std::string
Joined(const std::vector<std::string>& parts)
{
    std::string s;
    for (const auto& p : parts)
    {
        if (!p.empty())
        {
            s += (s.empty() ? "" : "; ") + p;
        }
    }
    return s;
}

/** What a congestion control needs, in words ("" = nothing). */
std::string
CcNeeds(const ns3::CongestionControlInfo& cc)
{
    using I = ns3::CongestionControlInfo;
    return Joined({cc.Needs(I::NEEDS_ECN) ? "ECN marking ([ecn] enabled = true)" : "",
                   cc.Needs(I::USES_INT) ? "INT (link rates INT can encode)" : "",
                   cc.Needs(I::NEEDS_BASE_RTT) ? "the fabric's base RTT" : "",
                   cc.fabric.empty() ? "" : "fabric.kind = \"" + cc.fabric + "\""});
}

/** What a loss recovery needs, in words ("" = nothing). */
std::string
RecoveryNeeds(const ns3::LossRecoveryInfo& r)
{
    using I = ns3::LossRecoveryInfo;
    return Joined({r.Needs(I::IN_ORDER) ? "packets of a QP in order (no multipath policy)" : "",
                   r.Needs(I::ONE_PATH) ? "one entropy per connection (path selector fixed)" : "",
                   r.Needs(I::ECN_FROM_BDP) ? "ECN thresholds from the BDP when none are given"
                                            : "",
                   r.minRtoPs > 0 ? fmt::format("nic.rto_us >= {:g}", r.minRtoPs / 1e6) : ""});
}

/** What a topology kind has besides its keys and builder, in words ("" = nothing). */
std::string
TopologyNeeds(const TopologyKindInfo& t)
{
    return Joined({t.hostCount ? "" : "a file (hosts known once read)",
                   t.check ? "a check of the scenario against its graph" : "",
                   t.warnings ? "warnings of settings it makes pointless" : "",
                   t.pod == TopologyKindInfo::POD_RACK   ? "racks for placement"
                   : t.pod == TopologyKindInfo::POD_SITE ? "sites"
                                                         : "",
                   t.gpusPerServer ? "a fixed scale_up.gpus_per_server" : ""});
}

/** The keys a failure kind takes, in words. */
std::string
FailureNeeds(const FailureKindInfo& f)
{
    static const char* const kTarget[] = {"link", "switch", "host"};
    std::string keys = std::string("at_us, ") + kTarget[f.target];
    for (const auto& k : f.keys)
    {
        keys += ", " + k;
    }
    return "keys " + keys + (f.lasting ? ", until_us" : "") +
           (f.drawable ? "; [[failure_rates]] may draw it" : "");
}

/** What a fabric kind has, in words. */
std::string
FabricNeeds(const FabricKindInfo& f)
{
    return Joined({f.UsesCredits() ? "credit flow control per VL (no MMU admission, no PFC)"
                                   : "the shared-buffer MMU and PFC ([buffer], [pfc])",
                   f.configure ? "port and switch settings" : "",
                   f.configureNic ? "NIC settings" : "", f.check ? "a check of the scenario" : "",
                   f.warnings ? "warnings of settings it makes pointless" : ""});
}

std::string
PolicyNeeds(const ns3::PolicyInfo& p)
{
    return Joined({p.pathSelector.empty() ? "" : "host path selector " + p.pathSelector,
                   p.qps > 0 ? fmt::format("{} QPs per connection ({})", p.qps, p.qpScaling) : "",
                   p.qpEntropy == "routes" ? "a QP per source route (" + p.qpScaling + "), each "
                                             "pinned to its route"
                                           : "",
                   p.fabric.empty() ? "" : "fabric.kind = \"" + p.fabric + "\"",
                   p.needsReorderingReceiver ? "an out-of-order receiver" : "",
                   p.ackRoute == "reverse" ? "acknowledgements back along each data packet's "
                                             "links (nic.ack_route = \"reverse\")"
                                           : ""});
}

/** One kind: its first line, then `needs` (after `verb`) and `source` indented. */
std::string
Block(size_t width, const std::string& name, const std::string& typeId,
      const std::string& description, const std::string& needs, const std::string& source,
      const std::string& verb = "needs")
{
    std::string s = fmt::format("  {:<{}} {:<34} {}\n", name, width, typeId, description);
    const std::string detail = Joined({needs.empty() ? verb + " nothing" : verb + " " + needs,
                                       source.empty() ? "" : "source: " + source});
    return s + fmt::format("  {:<{}} {}\n", "", width, detail);
}

template <class Infos>
size_t
Width(const Infos& infos)
{
    size_t w = 8;
    for (const auto& i : infos)
    {
        w = std::max(w, i.name.size());
    }
    return w;
}

} // namespace

std::string
KindsText()
{
    std::string s = "policies (lb.policy; `tusk policies`):\n";
    const auto& policies = ns3::SwitchPolicies();
    for (const auto& p : policies)
    {
        s += Block(Width(policies), p.name, p.typeId, p.description, PolicyNeeds(p), p.source);
    }
    s += "\npath selectors (lb.path_selector):\n";
    const auto& selectors = ns3::PathSelectors();
    for (const auto& p : selectors)
    {
        s += fmt::format("  {:<{}} {:<34} {}\n", p.name, Width(selectors), p.typeId,
                         p.description);
    }
    s += "\ncongestion controls (nic.congestion_control):\n";
    const auto& ccs = ns3::CongestionControls();
    for (const auto& c : ccs)
    {
        s += Block(Width(ccs), c.name, c.typeId, c.description, CcNeeds(c), c.source);
    }
    s += "\ncollective algorithms (jobs[i].collectives[j].algorithm, workload.algorithm; "
         "the first of a kind is its default; \"auto\" picks by NCCL's tuning model):\n";
    const auto algorithms = ns3::CollectiveAlgorithmTable();
    size_t width = 8;
    for (const auto& a : algorithms)
    {
        width = std::max(width, a.name.size());
    }
    for (const auto& a : algorithms)
    {
        s += Block(width, a.name, a.typeId, a.description, "", a.source);
    }
    s += "\nloss recoveries (nic.receiver with nic.transport = \"roce\"; nic.transport):\n";
    const auto& recoveries = ns3::LossRecoveries();
    for (const auto& r : recoveries)
    {
        s += Block(Width(recoveries), r.name, r.typeId,
                   std::string(r.KeyName()) + ": " + r.description, RecoveryNeeds(r), r.source);
    }
    s += "\ntopology kinds (topology.kind):\n";
    const auto& topologies = TopologyKinds();
    for (const auto& t : topologies)
    {
        s += Block(Width(topologies), t.name, "", t.description, TopologyNeeds(t), t.source,
                   "has");
    }
    s += "\nfailure kinds (failures[i].kind):\n";
    const auto& failures = FailureKinds();
    for (const auto& f : failures)
    {
        s += Block(Width(failures), f.name, "", f.description, FailureNeeds(f), f.source, "takes");
    }
    s += "\nfabric kinds (fabric.kind):\n";
    const auto& fabrics = FabricKinds();
    for (const auto& f : fabrics)
    {
        s += Block(Width(fabrics), f.name, "", f.description, FabricNeeds(f), f.source, "has");
    }
    s += "\nplugins loaded (--plugin, TUSK_PLUGIN_PATH):";
    if (LoadedPlugins().empty())
    {
        s += " none\n";
    }
    else
    {
        s += "\n";
        for (const auto& p : LoadedPlugins())
        {
            s += fmt::format("  {} sha256 {}\n", p.path, p.sha256);
        }
    }
    return s;
}

} // namespace tusk
