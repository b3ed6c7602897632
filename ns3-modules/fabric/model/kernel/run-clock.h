/*
 * tusk: RunClock, the time a run reports when steady-state jumps skip simulated time.
 */
#ifndef TUSK_RUN_CLOCK_H
#define TUSK_RUN_CLOCK_H

#include "ns3/event-id.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief The run's time: the simulator's clock plus the time steady-state jumps skipped
 * (`simulator.steady_jump`, docs/fast-mode.md, "The jump").
 *
 * A jump does not move the simulator's clock and changes no event of the network: it takes
 * out the work the skipped time would have done (the data packets the steady transfers would
 * have sent, RdmaQueuePair::SkipUnsentPackets) and adds the skipped time here. Every time a
 * result reports (a transfer's start and end, an event's time, the run's end) is read from
 * NowPs(): the simulator's clock plus the time skipped before it. An event that must happen
 * at a time the scenario gave (a timed transfer start, a delayed trigger activation, a
 * failure, the stop time) is marked with NoteAbsolute when it is scheduled; Skip moves every
 * such event still pending earlier by the skipped time, so that it happens at the run time it
 * was given. A jump is never longer than the time to the next of them (the steady-state
 * probe's horizon is capped there), so no moved event falls before the simulator's clock.
 *
 * Without jumps (Enable(false), the default) SkippedPs() is 0, NowPs() is Simulator::Now()
 * and NoteAbsolute does nothing. Skip needs ns-3's SimulatorImplementationType to be
 * ns3::LeanSimulatorImpl (`simulator.kernel = "lean"`). The state is global, like ns-3's
 * Simulator: one run at a time per process; Enable resets it.
 */
class RunClock
{
  public:
    /** Start a run: jumps may happen (`on`) or not; the skipped time back to 0. */
    static void Enable(bool on);
    /** Whether this run may jump (absolute events are tracked). */
    static bool Enabled() { return s_enabled; }
    /** Simulated time skipped by jumps so far, ps. */
    static uint64_t SkippedPs() { return s_skippedPs; }
    /** The run's time now: Simulator::Now() plus SkippedPs(), ps. */
    static uint64_t NowPs();
    /** `id`, just scheduled, must happen at the run time it was scheduled for, whatever is
     *  skipped before it (no effect unless Enabled()). */
    static void NoteAbsolute(const EventId& id);
    /** Skip `ps` of simulated time now: SkippedPs() grows by `ps`, and every pending event
     *  noted absolute moves `ps` earlier. Aborts when one would move before the simulator's
     *  clock (a jump past a time the scenario gave: a bug of the horizon). */
    static void Skip(uint64_t ps);
    /** Absolute events still tracked (expired ones are dropped at each Skip). */
    static size_t AbsoluteTracked();

  private:
    static bool s_enabled;
    static uint64_t s_skippedPs;
};

} // namespace ns3

#endif
