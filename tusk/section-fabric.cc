/*
 * tusk: [fabric], switch and link parameters.
 */
#include "scenario-sections.h"

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
                Clock::TIMER,
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
    };
    return rows;
}

} // namespace

Section
FabricKeys()
{
    PlainSectionOptions options;
    options.retired["port_queue_bytes"] =
        "switch buffers are set in [buffer] (total_bytes, thresholds, headroom)";
    return PlainSection(kP, &Rows, &ScenarioSpec::fabric, options);
}

} // namespace tusk
