/*
 * tusk: the InfiniBand fabric kind: credit-based link-level flow control per virtual lane (VL =
 * priority; IBA vol. 1 section 7.9) on every link, no shared-buffer MMU admission and no PFC.
 * Its ports' input buffers per VL are fabric.vl_buffer_bytes, credits return
 * fabric.credit_update_latency_ns after a frame leaves a buffer.
 */
#include "run/fabric-kinds.h"
#include "run/run-stages.h"

#include "fabric/model/ib-credits.h"
#include "fabric/model/input-error.h"
#include "fabric/model/load-balancer.h"
#include "rdma/model/rdma-nic.h"

#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

#include <fmt/format.h>

namespace tusk
{

using ns3::InputError;

namespace
{

/** What an InfiniBand fabric (fabric.kind = "infiniband") cannot run: policies that hold,
 *  inject or consume frames, and trimming (their frames would not return their credits); a
 *  VL buffer smaller than the largest data frame (no credit for it, ever); ib-cc with
 *  ccti_min above ccti_limit. */
void
ValidateInfiniband(const ScenarioSpec& spec, const RunPlan& plan)
{
    ns3::ObjectFactory factory;
    factory.SetTypeId(plan.policyTypeId);
    if (factory.Create<ns3::LoadBalancer>()->HasFrameHooks())
    {
        throw spec.KeyError("lb.policy",
                            "\"" + spec.lb.policy + "\" carries state in frames or holds them "
                            "(frame hooks), which InfiniBand credit flow control does not account "
                            "for; with fabric.kind = \"infiniband\" use a policy without (" +
                                std::string("ecmp, ib-static, drill, letflow, ...") + ")");
    }
    const auto trim = spec.ns3Defaults.find("ns3::SwitchNode::TrimThresholdBytes");
    if (trim != spec.ns3Defaults.end() && trim->second != "0")
    {
        throw spec.KeyError("fabric.kind",
                            "trimming (ns3::SwitchNode::TrimThresholdBytes) drops payload at a "
                            "full queue; an InfiniBand fabric has no full queue to trim at (credits) "
                            "and does not run it");
    }
    // A VL buffer that cannot hold the largest data frame never grants it credit: every
    // sender would wait for ever (IBA 7.9.4: credits are whole 64-byte blocks).
    const uint64_t frameBlocks =
        ns3::ib::Blocks(ns3::RdmaNic::MaxDataFrameBytes(spec.nic.mtuBytes));
    if (spec.fabric.vlBufferBytes / ns3::ib::kCreditBlockBytes < frameBlocks)
    {
        const std::string key = "fabric.vl_buffer_bytes";
        throw spec.KeyError(key,
                            fmt::format("a VL input buffer of {} bytes cannot hold the largest data "
                                        "frame of nic.mtu_bytes = {} ({} credits of 64 bytes, with "
                                        "every optional header): no sender would ever have credit "
                                        "for it; expected at least {} bytes",
                                        spec.fabric.vlBufferBytes, spec.nic.mtuBytes, frameBlocks,
                                        frameBlocks * ns3::ib::kCreditBlockBytes));
    }
}

/** [buffer] and [pfc] change nothing without a shared-buffer MMU and PFC: one warning per
 *  section given. */
void
WarnUnusedSections(const ScenarioSpec& spec, std::vector<std::string>& w)
{
    for (const char* section : {"buffer", "pfc"})
    {
        const std::string prefix = std::string(section) + ".";
        const auto it = spec.keyLines.lower_bound(prefix);
        if (it != spec.keyLines.end() && it->first.rfind(prefix, 0) == 0)
        {
            w.push_back(fmt::format("[{}] is set but fabric.kind is \"infiniband\" (credit "
                                    "flow control per VL, no shared buffer or PFC): it has no "
                                    "effect; the VL buffers are fabric.vl_buffer_bytes",
                                    section));
        }
    }
}

const FabricKindRegistration kInfiniband{
    [] {
        FabricKindInfo k;
        k.name = "infiniband";
        k.description = "credit-based link-level flow control per VL, no PFC, no buffer drops";
        k.flowControl = FabricKindInfo::VL_CREDITS;
        k.flowControlLabel = "InfiniBand credits";
        k.configure = [](const ScenarioSpec& spec, ns3::FabricHelper& helper,
                         RunAttributes& attrs) {
            helper.SetCreditFlowControl(true);
            helper.SetPortAttribute("VlBufferBytes", ns3::UintegerValue(spec.fabric.vlBufferBytes));
            attrs.Note("ns3::SwitchPort", "VlBufferBytes",
                       ns3::UintegerValue(spec.fabric.vlBufferBytes));
            const ns3::TimeValue latency(ns3::PicoSeconds(spec.fabric.creditUpdateLatencyPs));
            helper.SetPortAttribute("CreditUpdateLatency", latency);
            attrs.Note("ns3::SwitchPort", "CreditUpdateLatency", latency);
        };
        k.configureNic = [](const ScenarioSpec& spec, const ns3::Ptr<ns3::RdmaNic>& nic,
                            RunAttributes& attrs) {
            attrs.Set(nic, "VlBufferBytes", ns3::UintegerValue(spec.fabric.vlBufferBytes));
            attrs.Set(nic, "CreditUpdateLatency",
                      ns3::TimeValue(ns3::PicoSeconds(spec.fabric.creditUpdateLatencyPs)));
        };
        k.check = &ValidateInfiniband;
        k.warnings = &WarnUnusedSections;
        return k;
    }(),
    "IBA vol. 1 section 7.9 (link-level flow control)"};

} // namespace

} // namespace tusk
