/*
 * tusk: SteadyProbe, the steady-state probe of `simulator.steady_probe` (docs/fast-mode.md,
 * "Steady-state fast-forward within an iteration"): every window W of simulated time it
 * samples the whole fabric and hands the window to a SteadyJudge. It measures what a
 * fast-forward could skip; it skips nothing.
 */
#ifndef TUSK_STEADY_PROBE_H
#define TUSK_STEADY_PROBE_H

#include "run/steady-components.h"
#include "run/steady-judge.h"
#include "run/steady-jumper.h"

#include "fabric/model/fabric-net-device.h"

#include "ns3/ptr.h"

#include <cstdint>
#include <deque>
#include <string>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

namespace ns3
{
class WorkloadExecutor;
class SwitchPort;
class FabricNetDevice;
struct Fabric;
struct WorkloadSpec;
} // namespace ns3

namespace tusk
{
class MetricsSink;

/** One change of the fabric by a [[failures]] entry, as a time window [fromPs, toPs], ps
 *  (FailureWindows, run-stages.h; fast mode's span checks and the probe read it). */
struct FailureWindow
{
    uint64_t fromPs = 0;
    uint64_t toPs = 0;
    /** The graph links it acts on (a switch's: every link of it; a NIC's: its host's links);
     *  empty when FailureWindows had no graph, or for a failure whose links are not known
     *  (the steady-state probe then breaks every component). */
    std::vector<uint32_t> links;
};

struct ScenarioSpec;
struct BuiltFabric;

/**
 * \brief The probe: every window it hands the whole fabric to one SteadyJudge (the fabric as
 * one component) and its transfers, ports and QPs to SteadyComponents (per component). A
 * transfer's ports are the egress ports its data frames took, decoded from the paths its
 * record counts at the receiver (TransferRecord::paths, FrameMeta::path: exact, and each
 * path decoded once), plus from its start the two a single-link host's transfer always takes:
 * its NIC's port and its destination switch's port to the host.
 *
 * It leaves the simulation as it is: it draws no random number and changes
 * no state; its event, one per window, reads state only, and ns-3 orders events of the same
 * time stamp by the order they were scheduled in, so the relative order of every other event
 * is unchanged (the results are byte-identical with the probe on or off; the manifest's
 * `events` leaves the probe's events out, Events()). It stops when the workload is done.
 */
class SteadyProbe
{
  public:
    SteadyProbe() = default;
    SteadyProbe(const SteadyProbe&) = delete;
    SteadyProbe& operator=(const SteadyProbe&) = delete;

    /**
     * \brief Start probing when spec.simulator.steadyProbe or steadyJump is set (else do
     * nothing, at no cost); with steadyJump, jump (SteadyJumper, Jump).
     * \param workload the transfers built before the run (their timed starts cap the horizon)
     * \param sink the run's metrics (jumps credit the links' counters there); needed with
     *        steadyJump
     */
    void Attach(const ScenarioSpec& spec,
                const BuiltFabric& built,
                ns3::Ptr<ns3::WorkloadExecutor> exec,
                const ns3::WorkloadSpec& workload,
                MetricsSink* sink = nullptr);
    /** The probe's own events run so far (left out of the run's event count). */
    uint64_t Events() const { return m_events; }
    /** What it found (inactive when the probe is off). */
    SteadyProbeStats Stats() const;
    /** What steady-state jumps did (inactive when simulator.steady_jump is off). */
    SteadyJumpStats JumpStats() const;
    /** After the run: the transfers acknowledged since the last window (the run stops at its
     *  last acknowledgement, before that window ends) counted at the stop time
     *  (SteadyJudge::AddTailEnds, SteadyComponents::AddTailEnds). */
    void Finish();
    void Dispose();

    /** The window the probe uses for `spec`: simulator.steady_window_us, or when 0, four of
     *  the longest base RTTs among `baseRttsPs` or two of the congestion control's rate-timer
     *  periods (`ccTimerPs`, RdmaCongestionControl::RateTimerPeriod; 0 for none), the longer,
     *  at least 1 µs; ps. */
    static uint64_t WindowPs(const ScenarioSpec& spec, const std::vector<uint64_t>& baseRttsPs,
                             uint64_t ccTimerPs = 0);

  private:
    /** Sample the window that ends now and schedule the next. */
    void Tick();
    /** Schedule the next window's Tick, unless the workload is done. */
    void ScheduleTick();
    /** Make `jump` (SteadyJumper's proposal) now, or refuse it: take every transfer's
     *  packets out at its rate (WorkloadExecutor::SkipPackets), credit the links' counters
     *  at their rates over the last K windows (MetricsSink::AddSkippedCounters), skip the
     *  time (RunClock::Skip). */
    void Jump(const SteadyJumper::Jump& jump);
    /** The next known discontinuity after `nowPs`, ps (UINT64_MAX if none): a timed transfer
     *  start, a start or delayed activation the executor has scheduled, a failure, the stop. */
    uint64_t CapPs(uint64_t nowPs) const;
    static void OnStarted(SteadyProbe* self, uint32_t transfer);
    static void OnAcknowledged(SteadyProbe* self, uint32_t transfer);

    /** What the probe knows of a transfer's route. */
    struct Route
    {
        std::vector<uint32_t> ports; //!< egress ports (probe numbering), sorted, unique
        size_t pathsSeen = 0;        //!< its record's paths decoded so far
        bool endpoints = false;      //!< its hosts' ports added
        bool unattributed = false;   //!< a path or host whose ports are not known
        bool started = false;        //!< started in the current window
    };
    /** Bring t's route up to date with its record. */
    void UpdateRoute(uint32_t t, Route& r);
    /** The egress ports of a frame of host `src` that took `path` (nullptr: not decodable). */
    const std::vector<uint32_t>* PathPorts(uint32_t src, uint64_t path);
    /** The probe's number of the port at vertex `from` on graph link `gl`. */
    uint32_t EgressPort(uint32_t gl, uint32_t from) const;

    std::unique_ptr<SteadyJudge> m_judge;
    std::unique_ptr<SteadyComponents> m_components;
    /** The same windows judged with bounded, re-checked jumps (kSteadyJumpBounds). */
    struct Bounded
    {
        std::unique_ptr<SteadyJudge> judge;
        std::unique_ptr<SteadyComponents> components;
    };
    std::vector<Bounded> m_bounded;
    std::unique_ptr<SteadyJumper> m_jumper; //!< simulator.steady_jump only
    MetricsSink* m_sink = nullptr;
    /** Port snapshots kept, times K (+1): a jump credits the links at their rates over at
     *  most 8K windows. */
    static constexpr uint32_t kPortSnapshotsPerK = 8;
    /** The counters a jump credits a port (PortCounters' six), 48 bytes. */
    struct PortCounts
    {
        uint64_t txFrames = 0;
        uint64_t txBytes = 0;
        uint64_t txWireBytes = 0;
        uint64_t rxFrames = 0;
        uint64_t rxBytes = 0;
        uint64_t ecnMarks = 0;

        /** The six of `c`. */
        static PortCounts Of(const ns3::PortCounters& c)
        {
            return {c.txFrames, c.txBytes, c.txWireBytes, c.rxFrames, c.rxBytes, c.ecnMarks};
        }
        /** Add `o`, field by field. */
        PortCounts& operator+=(const PortCounts& o)
        {
            txFrames += o.txFrames;
            txBytes += o.txBytes;
            txWireBytes += o.txWireBytes;
            rxFrames += o.rxFrames;
            rxBytes += o.rxBytes;
            ecnMarks += o.ecnMarks;
            return *this;
        }
    };
    /** Every port's counts (MetricsSink::PortCounterSnapshot, credit included) at the last
     *  8K + 1 window ends, oldest first (steady_jump only; 48 bytes a port each). */
    std::deque<std::vector<PortCounts>> m_portSnaps;
    /** An output that counts every packet and would miss the skipped ones: every jump is
     *  refused for it ("" when none). */
    std::string m_jumpBlocked;
    /** The last window was not judged (jumps alone, nothing to jump): the next one only sets
     *  the baselines (delivered bytes, port counts). */
    bool m_resync = false;
    /** A Tick is scheduled (false after an unjudged window: OnStarted schedules the next). */
    bool m_ticking = true;
    const ns3::Fabric* m_fabric = nullptr;
    std::vector<int64_t> m_linkIndex; //!< graph link -> index in fabric.links (-1: none)
    /** m_devices' switch ports (null for a NIC), for their queues. */
    std::vector<ns3::Ptr<ns3::SwitchPort>> m_devicePorts;
    std::map<uint32_t, Route> m_routes;      //!< active transfers and those ended in the window
    std::vector<uint32_t> m_endedInWindow;  //!< acknowledged in the current window
    std::map<std::pair<uint32_t, uint64_t>, std::vector<uint32_t>> m_pathPorts; //!< decoded
    std::set<std::pair<uint32_t, uint64_t>> m_badPaths; //!< not decodable
    std::vector<uint64_t> m_devPfc;   //!< per device, totals at the last window's end
    std::vector<uint64_t> m_devDrops;
    std::vector<uint64_t> m_devMarks;
    ns3::Ptr<ns3::WorkloadExecutor> m_exec;
    std::vector<ns3::Ptr<ns3::SwitchPort>> m_ports;          //!< every switch egress port
    std::vector<ns3::Ptr<ns3::FabricNetDevice>> m_devices;   //!< every port, hosts' too
    std::set<uint32_t> m_active;                 //!< transfers started, not acknowledged
    std::vector<std::pair<uint32_t, uint64_t>> m_delivered; //!< last window's (id, delivered)
    std::vector<uint64_t> m_arrivals;            //!< timed transfer starts, sorted, ps
    std::vector<FailureWindow> m_failures; //!< the failures' windows and their links
    /** [from, to) of the failures that draw per frame (loss, gray), ps: no jump inside. */
    std::vector<std::pair<uint64_t, uint64_t>> m_randomFailures;
    uint64_t m_stopPs = UINT64_MAX;
    uint64_t m_windowPs = 0;
    uint32_t m_windowsK = 0; //!< K
    uint32_t m_starts = 0; //!< in the current window
    uint64_t m_pfc = 0;    //!< totals at the last window's end
    uint64_t m_drops = 0;
    uint64_t m_marks = 0;
    uint64_t m_events = 0;
    uint64_t m_startedBytes = 0; //!< payload of the transfers started so far, bytes
};

} // namespace tusk

#endif
