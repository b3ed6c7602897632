/*
 * tusk: [pfc], IEEE 802.1Qbb priority flow control, the PFC watchdog and deadlock detection.
 */
#include "scenario/scenario-sections.h"

namespace tusk
{

namespace
{

using namespace knob;
using S = PfcSection;
const char* const kP = "pfc";

const std::vector<Knob<S>>&
Rows()
{
    static const std::vector<Knob<S>> rows = {
        Boolean<S>("enabled", &S::enabled,
                   "`false`: every priority is lossy (dropped at the egress threshold).")
            .Attr({"ns3::SharedBufferMmu::LosslessPriorities"}),
        Custom<S>(
            "lossless_priorities", "array of 0..7", "", "PFC-protected priorities.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& p) {
                const toml::array* a = n.as_array();
                if (a == nullptr)
                {
                    r.Fail(&n, key, "expected an array of priorities 0..7, e.g. [3]");
                }
                p.losslessPriorities.clear();
                for (const auto& e : *a)
                {
                    p.losslessPriorities.push_back(static_cast<uint8_t>(r.Int(&e, key, 0, 7)));
                }
            },
            [](const S& p) { return nlohmann::json(p.losslessPriorities); })
            .Attr({"ns3::SharedBufferMmu::LosslessPriorities"}),
        Integer<S>("pause_quanta", &S::pauseQuanta, 1, 65535, "Pause time of an XOFF.")
            .Unit("quanta (512 bit times)")
            .Attr({"ns3::SwitchNode::PauseQuanta"}),
        Time<S>("refresh_us", &S::refreshPs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::TIMER,
                bounds::kTimer,
                "XOFF refresh interval.")
            .Note("= half the pause time")
            .Attr({"ns3::SwitchNode::PauseRefresh"}),
        Time<S>("deadlock_detect_us", &S::deadlockDetectPs, kPsPerUs, "µs", Sign::NON_NEGATIVE,
                Clock::TIMER, bounds::kSimTime,
                "Stop with exit 1 when a cycle of egress queues, each paused without a break and "
                "holding frames routed through the next queue of the cycle, lasts this long "
                "([fabric.md](../ns3-modules/fabric/doc/fabric.md)); 0 = off.")
            .Attr({"ns3::PfcDeadlockDetector::Threshold"}),
        Time<S>("watchdog_us", &S::watchdogPs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::TIMER,
                bounds::kTimer,
                "PFC watchdog: a priority paused this long is in a storm.")
            .Note("= off")
            .Attr({"ns3::FabricNetDevice::PfcWatchdogTime"}),
        Time<S>("watchdog_recovery_us", &S::watchdogRecoveryPs, kPsPerUs, "µs", Sign::POSITIVE,
                Clock::TIMER, bounds::kTimer, "How long a storm lasts.")
            .Attr({"ns3::FabricNetDevice::PfcWatchdogRecovery"}),
        Choice<S>("watchdog_action", &S::watchdogAction, {"drop", "forward"},
                  "Storm action: drop the queue's frames, or transmit through the pause.")
            .Attr({"ns3::FabricNetDevice::PfcWatchdogAction"}),
        Choice<S>("long_haul", &S::longHaul, {"lossless", "lossy"},
                  "The lossless priorities over long-haul links (`topology.kind = "
                  "\"multi-site\"`). `\"lossless\"`: PFC spans the long haul, which needs "
                  "headroom of 2 × (delay × rate) + 2 × MTU per port and lossless priority "
                  "(oracle 22: about 0.5 MB per km at 400 Gb/s); a run whose headroom "
                  "(`buffer.headroom_bytes`, or the automatic headroom in `topology.dci_buffer`) "
                  "cannot hold it is refused, naming the bytes needed. `\"lossy\"`: the "
                  "long-haul ports end the lossless domain — no headroom, no PAUSE over the long "
                  "haul, frames crossing them dropped at the egress threshold "
                  "(`egress_threshold` in links.csv) and recovered by the transport.")
            .Default("`\"lossless\"`"),
    };
    return rows;
}

} // namespace

Section
PfcKeys()
{
    return PlainSection(kP, &Rows, &ScenarioSpec::pfc);
}

} // namespace tusk
