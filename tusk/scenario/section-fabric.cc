/*
 * tusk: [fabric], switch and link parameters.
 */
#include "scenario/scenario-sections.h"
#include "run/fabric-kinds.h"

namespace tusk
{

namespace
{

using namespace knob;
using S = FabricSection;
const char* const kP = "fabric";

const std::vector<Knob<S>>&
Rows()
{
    static const std::vector<Knob<S>> rows = {
        Size<S>("phy_overhead_bytes", &S::phyOverheadBytes, 0, 1024,
                "Per-frame wire overhead not in the packet: preamble + SFD + inter-frame gap.")
            .Attr({"ns3::FabricNetDevice::PhyOverheadBytes"}),
        Time<S>("reconvergence_us", &S::reconvergencePs, kPsPerUs, "µs", Sign::NON_NEGATIVE,
                Clock::TIMER, bounds::kSimTime,
                "After a `[[failures]]` link goes down or up, routing converges this much later: "
                "every switch's equal-cost table is recomputed over the links that are up. Until "
                "then a switch only skips its own dead ports (traffic hashed towards a dead link "
                "further away is lost). 0 = never converge."),
        Boolean<S>("flush_on_link_down", &S::flushOnLinkDown,
                   "When a switch port's link goes down (a `[[failures]]` link, switch or NIC "
                   "down), the frames queued at it and those still reaching it are dropped "
                   "(drop reason `link_down`) and their buffer released, as switch ASICs flush "
                   "a dead port. `false`: they wait for the link, holding their buffer, so on "
                   "a lossless class PFC pauses the ports behind the dead link until it comes "
                   "back (routing reconvergence moves new traffic, not what is queued).")
            .Attr({"ns3::SwitchPort::FlushOnLinkDown"}),
        Choice<S>("kind", &S::kind, FabricKindNames(),
                  "The link layer of every link. `\"ethernet\"`: lossless classes by PFC over "
                  "the switches' shared-buffer MMU ([buffer], [pfc]), ECN ([ecn]). "
                  "`\"infiniband\"`: credit-based link-level flow control per virtual lane "
                  "(VL = priority; IBA vol. 1 §7.9): a port sends a frame only with credits "
                  "(64-byte blocks) from the next hop's input buffer of that VL, so nothing is "
                  "dropped for lack of buffer and no PAUSE frame exists; a switch frame holds "
                  "its ingress VL's credits until it leaves the egress queue, so a full queue "
                  "stalls the ports behind it (head-of-line blocking, congestion spreading). "
                  "`[buffer]` and `[pfc]` do not apply; `[ecn]` marking is InfiniBand's FECN "
                  "(for `nic.congestion_control = \"ib-cc\"`); links.csv reports "
                  "`credit_stall_us`. Policies `ib-static` (d-mod-k) and `ib-ar` run only here. "
                  "Frames keep their RoCEv2 header sizes "
                  "([fabric.md](../ns3-modules/fabric/doc/fabric.md#infiniband-credit-based-flow-control))."),
        Size<S>("vl_buffer_bytes", &S::vlBufferBytes, 64, bounds::kMaxBufferBytes,
                "Each port's input buffer per VL; at least the largest data frame in whole "
                "64-byte credits (4,224 bytes at nic.mtu_bytes = 4096), else an error. At "
                "most 2048 credits (128 KiB) are "
                "advertised beyond the blocks received, so more than 128 KiB does not let a "
                "sender have more in flight; 128 KiB covers a credit round trip of 2.62 µs at "
                "400 Gb/s (oracle 21).")
            .Kinds({"infiniband"})
            .Attr({"ns3::FabricNetDevice::VlBufferBytes"}),
        Time<S>("credit_update_latency_ns", &S::creditUpdateLatencyPs, kPsPerNs, "ns",
                Sign::NON_NEGATIVE, Clock::TIMER, bounds::kLinkDelay,
                "Time from a frame leaving an input buffer to the flow-control packet that "
                "returns its credits leaving the port (credits freed meanwhile travel in the "
                "same packet); the link delay is added on the way back.")
            .Kinds({"infiniband"})
            .Attr({"ns3::FabricNetDevice::CreditUpdateLatency"}),
    };
    return rows;
}

} // namespace

Section
FabricKeys()
{
    std::map<std::string, std::string> retired;
    retired["port_queue_bytes"] =
        "switch buffers are set in [buffer] (total_bytes, thresholds, headroom)";
    Section s;
    s.key = kP;
    s.read = [retired](ScenarioReader& r, const toml::table& root, ScenarioSpec& spec) {
        const toml::table* t = r.SectionTable(root, kP);
        if (t == nullptr)
        {
            return;
        }
        std::string kind = spec.fabric.kind;
        if (const toml::node* n = r.Get(*t, kP, "kind"))
        {
            kind = r.Choice(n, "fabric.kind", FabricKindNames());
        }
        ReadKnobs(r, *t, kP, Rows(), spec.fabric, kind, {}, retired);
    };
    s.write = [](const ScenarioSpec& spec, nlohmann::json& root) {
        nlohmann::json j = WriteKnobs(Rows(), spec.fabric, spec.fabric.kind);
        if (spec.fabric.kind == FabricSection().kind)
        {
            j.erase("kind"); // the default: Ethernet manifests stay as they were
        }
        root[kP] = std::move(j);
    };
    s.blocks = []() { return std::vector<KnobBlock>{KnobBlock(kP, kP, Docs(Rows()))}; };
    return s;
}

} // namespace tusk
