/*
 * tusk: [simulator], the simulation kernel.
 */
#include "scenario/scenario-sections.h"

#include <utility>

namespace tusk
{

namespace
{

using namespace knob;
using S = SimulatorSection;
const char* const kP = "simulator";

using NameTable = std::vector<std::pair<std::string, std::string>>;

/** simulator.scheduler names and their ns-3 TypeIds, the default first. */
const NameTable&
SchedulerTable()
{
    static const NameTable table = {
        {"timing-wheel", "ns3::TimingWheelScheduler"},
        {"map", "ns3::MapScheduler"},
        {"heap", "ns3::HeapScheduler"},
        {"calendar", "ns3::CalendarScheduler"},
        {"list", "ns3::ListScheduler"},
        {"priority-queue", "ns3::PriorityQueueScheduler"},
    };
    return table;
}

/** simulator.implementation names and their ns-3 TypeIds, the default first. */
const NameTable&
ImplTable()
{
    static const NameTable table = {
        {"lean", "ns3::LeanSimulatorImpl"},
        {"default", "ns3::DefaultSimulatorImpl"},
    };
    return table;
}

std::vector<std::string>
NamesOf(const NameTable& table)
{
    std::vector<std::string> n;
    for (const auto& [name, tid] : table)
    {
        n.push_back(name);
    }
    return n;
}

std::string
TypeIdOf(const NameTable& table, const std::string& name)
{
    for (const auto& [n, tid] : table)
    {
        if (n == name)
        {
            return tid;
        }
    }
    return "";
}

/** The probe's keys are echoed only when the probe is on (or, for its parameters, set away
 *  from their defaults), so a run without it keeps the manifest it had. */
Knob<S>
WithProbe(Knob<S> k, bool parameter)
{
    const S defaults;
    k.Default("`" + TomlText(k.write(defaults)) + "`"); // the reference shows the default
    k.write = [w = k.write, parameter, defaults](const S& o) -> nlohmann::json {
        nlohmann::json v = w(o);
        if (o.steadyProbe || o.Jumps() || (parameter && v != w(defaults)))
        {
            return v;
        }
        return nlohmann::json();
    };
    return k;
}

const std::vector<Knob<S>>&
Rows()
{
    static const std::vector<Knob<S>> rows = {
        Choice<S>("scheduler", &S::scheduler, SchedulerNames(),
                  "ns-3 event scheduler. `\"timing-wheel\"`: `ns3::TimingWheelScheduler`, tusk's "
                  "(a timing wheel of 2^14 buckets of 4.1 ns, each sorted when served; "
                  "attributes `BucketWidthLog2`, `BucketsLog2` in `[ns3]`); `\"map\"`, "
                  "`\"heap\"`, `\"calendar\"`, `\"list\"`, `\"priority-queue\"`: ns-3's own. "
                  "Every scheduler gives the same results (events in time order, ties in "
                  "scheduling order); they differ in speed and memory "
                  "([performance.md](performance.md))."),
        Choice<S>("implementation", &S::implementation, SimulatorImplNames(),
                  "ns-3 simulator implementation (the event loop around the scheduler). "
                  "`\"lean\"`: `ns3::LeanSimulatorImpl`, tusk's single-threaded kernel without "
                  "ns-3's per-event logging checks, thread test and pre-event EventId; "
                  "`\"default\"`: ns-3's `ns3::DefaultSimulatorImpl`. Both give the same results "
                  "(same event order, same Cancel and Remove semantics); the lean one takes "
                  "fewer instructions per event ([performance.md](performance.md))."),
        Choice<S>("mode", &S::mode, {"packet", "fast"},
                  "`\"packet\"`: every packet simulated. `\"fast\"`: iterations of a job "
                  "(`[[jobs]]`, `iterations` > 1) are replayed from a memo of an earlier "
                  "iteration, shifted in time, when the fabric was quiescent and nothing can "
                  "change a choice (exact), the last iterations agree within a tolerance "
                  "(steady), or per-packet random choices leave iterations as samples of a "
                  "stable distribution, replayed in turn (sampled); a standalone ring "
                  "all-reduce's steps (`workload.kind = \"ring-allreduce\"`) are replayed as "
                  "samples under the sampled rule; everything else simulated "
                  "packet by packet, and the manifest's "
                  "`fast_mode` counts why ([fast-mode.md](fast-mode.md))."),
        WithProbe(Boolean<S>(
            "steady_probe", &S::steadyProbe,
            "Measure what a steady-state fast-forward could skip: every window "
            "(`steady_window_us`) sample every active transfer's delivered bytes, every switch "
            "egress queue, every active QP's congestion-control state and the PFC frames, "
            "drops, CE marks, transfer starts and ends and failures in it, and judge the "
            "fabric, and each component of transfers sharing an egress port, steady when "
            "its last `steady_windows` windows agree within `steady_tolerance`. The "
            "manifest's `steady_probe` and a line of `tusk run` say "
            "what it found; nothing is skipped, every other result is the same "
            "([fast-mode.md](fast-mode.md))."),
                  false),
        WithProbe(Time<S>("steady_window_us", &S::steadyWindowPs, kPsPerUs, "µs",
                          Sign::NON_NEGATIVE, Clock::ANY, Bounds{kPsPerUs, bounds::kSimTime.hi},
                          "The steady-state probe's window W: 0, or at least 1 µs (a shorter "
                          "window holds a few frames and makes the probe cost more than the "
                          "run). 0: four of the longest base RTTs among the path classes (the "
                          "manifest's `path_classes`) or two periods of the congestion "
                          "control's rate timer (DCQCN's T and alpha period, the longer; "
                          "InfiniBand CC's CCTI_Timer), the longer, at least 1 µs.")
                      .Note("= automatic"),
                  true),
        WithProbe(Integer<S>("steady_windows", &S::steadyWindows, 2, 1000,
                             "K: the probe's windows that must agree before the fabric counts "
                             "as steady; a fast-forward would stop K windows before the first "
                             "transfer ends."),
                  true),
        WithProbe(Real<S>("steady_tolerance", &S::steadyTolerance, 0.0001, 0.5,
                          "number 0.0001..0.5",
                          "The probe's tolerance: over K windows a transfer's bytes per window, "
                          "a queue's length and a congestion-control word may vary by this "
                          "share of their largest value (at least one MTU of payload, two "
                          "frames of queue; alpha by this much)."),
                  true),
        WithProbe(Choice<S>(
            "steady_jump", &S::steadyJump, {"auto", "on", "off"},
            "Skip steady state: when the whole fabric has been steady for `steady_windows` "
            "windows (the probe's judgement), jump: take out of every active transfer the data "
            "packets it would send at its rate over the jump and count them sent, delivered "
            "and on its links, add the jump to the run's clock, and go on packet by packet. A "
            "jump is at most `steady_jump_spans` spans of K windows, ends K windows before the "
            "first transfer would, and before the next timed start, failure or the stop; its "
            "bound doubles while the K windows after a jump agree with the K before and falls "
            "back to one span when they do not. `\"auto\"`: on with `mode = \"fast\"` and "
            "the lean kernel, off otherwise. The manifest's `steady_jump` says what was "
            "skipped and why jumps were refused ([fast-mode.md](fast-mode.md), \"The "
            "jump\"). `\"on\"` needs `implementation = \"lean\"`."),
                  true),
        WithProbe(Integer<S>("steady_jump_spans", &S::steadyJumpSpans, 1, 1u << 20,
                             "The longest steady-state jump, in spans of `steady_windows` "
                             "windows."),
                  true),
    };
    return rows;
}

} // namespace

const std::vector<std::string>&
SchedulerNames()
{
    static const std::vector<std::string> names = NamesOf(SchedulerTable());
    return names;
}

std::string
SchedulerTypeId(const std::string& name)
{
    return TypeIdOf(SchedulerTable(), name);
}

const std::vector<std::string>&
SimulatorImplNames()
{
    static const std::vector<std::string> names = NamesOf(ImplTable());
    return names;
}

std::string
SimulatorImplTypeId(const std::string& name)
{
    return TypeIdOf(ImplTable(), name);
}

Section
SimulatorKeys()
{
    return PlainSection(kP, &Rows, &ScenarioSpec::simulator);
}

} // namespace tusk
