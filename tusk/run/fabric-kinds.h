/*
 * tusk: fabric kinds by short name (the values of `fabric.kind`): the link layer of every link.
 *
 * Each kind registers itself with one static FabricKindRegistration: its name, how its links
 * keep a class from dropping (the switches' shared-buffer MMU with PFC, or credit-based flow
 * control per virtual lane), what it sets on the fabric and the NICs, what it refuses and what
 * it warns about. The scenario reader, the validator, the runner and the results read the
 * registration, never the name. The built-in kinds register in fabric-kinds.cc (Ethernet) and
 * fabric-kind-infiniband.cc. See docs/extending.md, "A fabric kind".
 */
#ifndef TUSK_FABRIC_KINDS_H
#define TUSK_FABRIC_KINDS_H

#include "run/run-attributes.h"
#include "scenario/scenario-spec.h"

#include "fabric/helper/fabric-helper.h"

#include "ns3/object-factory.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{
class RdmaNic;
}

namespace tusk
{

struct RunPlan;

/** A fabric kind by short name: its flow control, what it configures, what it checks. */
struct FabricKindInfo
{
    /** How a link keeps a class from dropping for lack of buffer. */
    enum FlowControl : uint8_t
    {
        /** The switches' shared-buffer MMU admits frames and PFC pauses the lossless classes:
         *  [buffer] and [pfc] apply. */
        SHARED_BUFFER_PFC,
        /** Credit-based link-level flow control per virtual lane (FabricNetDevice::
         *  EnableCreditFlowControl, SwitchNode::EnableCreditFlowControl): a port sends only
         *  with credit from the next hop's input buffer; no MMU admission, no PFC, [buffer]
         *  and [pfc] change nothing. Links report their credit stalls (credit_stall_us). */
        VL_CREDITS,
    };

    std::string name;        //!< short name, e.g. "ethernet"
    std::string description; //!< one line for `tusk kinds`
    FlowControl flowControl = SHARED_BUFFER_PFC;
    /** Its flow control in a few words, for the comparison table's PFC row of a kind without
     *  PFC ("none (<label>)"), e.g. "InfiniBand credits". */
    std::string flowControlLabel = "";
    /** Set what this kind needs on the fabric's ports and switches (after the MMU, PFC and ECN
     *  are configured, before the fabric is built), recording each attribute; null = nothing. */
    std::function<void(const ScenarioSpec&, ns3::FabricHelper&, RunAttributes&)> configure;
    /** Set what this kind needs on a host's NIC, recording each attribute; null = nothing. */
    std::function<void(const ScenarioSpec&, const ns3::Ptr<ns3::RdmaNic>&, RunAttributes&)>
        configureNic;
    /** What this kind refuses in the scenario (the run's plan: the policy's TypeId, ...):
     *  throws InputError naming the key to change; null = nothing. */
    std::function<void(const ScenarioSpec&, const RunPlan&)> check;
    /** Settings valid but probably not meant on this kind, one line each (ScenarioWarnings);
     *  null = none. */
    std::function<void(const ScenarioSpec&, std::vector<std::string>&)> warnings;
    /** Where it comes from (a standard), for `tusk kinds`. */
    std::string source = "";

    /** Whether its links run credit flow control per VL. */
    bool UsesCredits() const { return flowControl == VL_CREDITS; }
    /** Whether the shared-buffer MMU and PFC ([buffer], [pfc]) apply. */
    bool UsesPfc() const { return flowControl == SHARED_BUFFER_PFC; }
};

/**
 * \brief Registers a fabric kind when its library loads (one static object in its own file).
 * Aborts the program at load time if the name is taken or the source is missing (a
 * programming error).
 */
class FabricKindRegistration
{
  public:
    FabricKindRegistration(FabricKindInfo info, std::string source);
};

/** All fabric kinds, sorted by name. */
const std::vector<FabricKindInfo>& FabricKinds();
/** The kind named `name`; nullptr if none is registered. */
const FabricKindInfo* FindFabricKind(const std::string& name);
/** The names, sorted (the choices of `fabric.kind`). */
std::vector<std::string> FabricKindNames();
/** The kind of `spec`'s fabric (fabric.kind, checked when the scenario was read). */
const FabricKindInfo& FabricKindOf(const ScenarioSpec& spec);

} // namespace tusk

#endif
