/*
 * tusk: the stages of a run (internal to the tusk library). RunScenario (runner.cc) calls them
 * in this order:
 *   validate                 ValidateRun                    run-validate.cc
 *   build graph, resolve     BuildGraph, ResolveScenario    run-resolve.cc
 *   build workload           BuildWorkload                  run-workload.cc
 *   build fabric and NICs    BuildFabricAndNics             run-fabric.cc
 *   check routes             CheckRoutes                    run-routes.cc
 *                            SetUpExecutor                  run-workload.cc
 *                            CheckFailures/ScheduleFailures run-failures.cc
 *   attach observers         Observers::Attach              run-observers.cc
 *   run                      (runner.cc)
 *   collect                  CollectResults                 run-collect.cc
 *   summarise                Summarize                      run-summary.cc
 */
#ifndef TUSK_RUN_STAGES_H
#define TUSK_RUN_STAGES_H

#include "run/metrics-sink.h"
#include "run/run-attributes.h"
#include "run/runner.h"
#include "run/steady-probe.h"
#include "run/time-series.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/helper/topology-builders.h"
#include "fabric/model/input-error.h"
#include "fabric/model/pfc-deadlock-detector.h"
#include "rdma/model/cc/cc-registry.h"
#include "rdma/model/cc/rdma-congestion-control.h"
#include "rdma/model/loss-recovery/loss-recovery-registry.h"
#include "rdma/model/rdma-nic.h"
#include "rdma/model/rdma-queue-pair.h"
#include "workload/model/iteration-memo.h"
#include "workload/model/ring-step-memo.h"
#include "workload/model/ring-steps.h"
#include "workload/model/scale-up-domain.h"
#include "workload/model/workload-executor.h"
#include "workload/model/workload-spec.h"

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <map>
#include <string>
#include <vector>

namespace tusk
{

// ---- validate (run-validate.cc) -----------------------------------------------------------

/** What validation decides before anything is built: the policy's two seams, resolved. */
struct RunPlan
{
    std::string policyTypeId;                        //!< the switch LoadBalancer
    std::map<std::string, std::string> lbAttributes; //!< the preset's, then [lb.attributes]
    std::string pathSelectorTypeId;                  //!< host side, after nic.transport
    uint32_t qpsPerConnection = 1;                   //!< the preset's or nic.qps_per_connection
    std::string qpScaling;                           //!< the preset's or nic.qp_scaling
    std::string qpEntropy;                           //!< the preset's or nic.qp_entropy
    //! nic.ack_route, or the preset's
    ns3::RdmaNic::AckRouteMode ackRoute = ns3::RdmaNic::ACK_FIXED;
    //! the switch policy may keep state between frames (ns3::PolicyKeepsState)
    bool policyKeepsState = true;
};

/**
 * \brief Fast mode's IterationMemo RecurrenceSpan for this scenario, and why
 * (docs/fast-mode.md, "A rare iteration with a long period"): the scenario's own
 * `[ns3] "ns3::IterationMemo::RecurrenceSpan"` ("ns3_setting", span = that value, left to the
 * attribute system); else 0 for a policy that keeps no state between frames with the fixed
 * host path selector ("stateless_policy"); else the attribute's default
 * ("policy_state", "path_selector_state"). `span` is nullopt when the attribute's value
 * (the default or the [ns3] setting) stands.
 */
struct RecurrenceSpanChoice
{
    std::optional<uint32_t> span;
    std::string why;
};
RecurrenceSpanChoice ChooseRecurrenceSpan(const ScenarioSpec& spec, const RunPlan& plan);

/**
 * \brief The steady rule's trend check for this run (IterationMemo SteadyTrendSpan,
 * docs/fast-mode.md rule (b), "Where the recurrence check applies"), chosen as
 * ChooseRecurrenceSpan chooses its span and for the same reason: a drift or a cycle slower
 * than the iterations compared comes from state a policy keeps between frames (CONGA's
 * congestion tables, LetFlow's fading draws); a policy without any, with the fixed host path
 * selector, gets span 0 (no trend check: ECMP's steady iterations repeat to the picosecond
 * once the fabric's transient is over, and the check cost it five simulated iterations, the
 * 1,000-iteration bench 101x to 74x in instructions). The scenario's own
 * `[ns3] "ns3::IterationMemo::SteadyTrendSpan"` wins ("ns3_setting").
 */
RecurrenceSpanChoice ChooseSteadyTrendSpan(const ScenarioSpec& spec, const RunPlan& plan);

/**
 * \brief Checks that need no topology (the policy and path selector exist, UEC's minimum RTO,
 * ECN for an ECN-driven congestion control), and the policy preset applied.
 * \throws ns3::InputError naming the key
 */
RunPlan ValidateRun(const ScenarioSpec& spec);

/**
 * \brief Rethrow a model's InputError as the scenario key behind it. Models name their own
 * parameter ("LeafSpineParams.hostsPerLeaf", "bytesPerRank") or attribute
 * ("ns3::SharedBufferMmu::BufferBytes"); the knob table knows which key feeds it. An error
 * that names its own file (an importer's) passes unchanged.
 * \param blockId the key block whose parameters the model takes ("topology.leaf-spine")
 * \param fallbackKey the key to name when no knob matches
 * \param index replaces "[i]" in keys of an array of tables (background[i].load)
 */
[[noreturn]] void ThrowAsScenarioKey(const ScenarioSpec& spec,
                                     const ns3::InputError& e,
                                     const std::string& blockId,
                                     const std::string& fallbackKey,
                                     int64_t index = -1);

// ---- build graph and resolve (run-resolve.cc) ---------------------------------------------

/** The topology graph of `spec`; builder errors name the scenario key. */
ns3::TopologyGraph BuildGraph(const ScenarioSpec& spec);

/**
 * \brief `spec` with every value the run derives made explicit, so that its echo reproduces the
 * run: UEC-style transports' BDP-derived ECN thresholds become [[ecn.by_rate]] entries, DCQCN's
 * preset becomes explicit values (at the host line rate of `graph`), [[failure_rates]] become
 * the [[failures]] they draw (WithDrawnFailures).
 */
ScenarioSpec ResolveScenario(const ScenarioSpec& spec, const ns3::TopologyGraph& graph);

/** The line rate of the first host link, bit/s (DCQCN presets scale with it). */
uint64_t FirstHostRateBps(const ns3::TopologyGraph& graph);

/**
 * \brief The registration of nic.congestion_control (ns3-modules/rdma/model/cc/cc-registry.h):
 * its TypeId and what it needs (ECN marks, INT, the base RTT, a fabric kind).
 * \throws ns3::InputError naming nic.congestion_control if no congestion control of that name
 *         is registered (a spec built in code, a manifest of a run that loaded a plugin)
 */
const ns3::CongestionControlInfo& CongestionControlOf(const ScenarioSpec& spec);

/**
 * \brief The loss recovery the scenario chose: nic.transport's own, or with "roce",
 * nic.receiver's (loss-recovery-registry.h).
 * \throws ns3::InputError naming nic.transport or nic.receiver if none of that name is
 *         registered under that key (a spec built in code, a manifest of a plugin's run)
 */
const ns3::LossRecoveryInfo& LossRecoveryOf(const ScenarioSpec& spec);

/** Header bytes of a data packet on the wire: RoCEv2 headers and trailers, the INT header
 *  when the congestion control uses INT, and the credit request of receiver credits. */
uint32_t DataHeaderBytes(const ScenarioSpec& spec);

/**
 * \brief The fabric's base RTT T for the NICs (ns3::RdmaNic::BaseRtt, the HPCC simulator's
 * GLOBAL_T), ps: the longest host-to-host path under ConWeave's convention (oracle 20), at the
 * host link rate, with full data frames. 0 when neither the congestion control nor the sender
 * window nor receiver credits need it (it costs a route computation).
 */
uint64_t FabricBaseRttPs(const ScenarioSpec& spec, const ns3::TopologyGraph& graph);

// ---- build workload (run-workload.cc) -----------------------------------------------------

/**
 * \brief The transfers, collectives and jobs of `spec` on `graph` (with [[background]]),
 * checked: hosts exist, no self-sends, every transfer can start.
 * \throws ns3::InputError naming the scenario key (or the imported file)
 */
ns3::WorkloadSpec BuildWorkload(const ScenarioSpec& spec, const ns3::TopologyGraph& graph);

/**
 * \brief Refuse a workload whose QPs at some NIC exceed the 24-bit QPN space
 * (ns3::RdmaNic::kMaxQps; WorkloadExecutor::QpsPerHost counts them), before anything is built.
 * \throws ns3::InputError naming the QP-count key of the busiest host's largest connection
 *         (`nic.qps_per_connection`, `lb.policy` for a preset's count, `jobs[i].qps_per_connection`
 *         or `background[i].qps`)
 */
void CheckQpBudget(const ScenarioSpec& spec,
                   const RunPlan& plan,
                   const ns3::TopologyGraph& graph,
                   const ns3::WorkloadSpec& workload);

// ---- build fabric and NICs (run-fabric.cc) ------------------------------------------------

/** The built fabric, its NICs, and what the build decided per port. */
struct BuiltFabric
{
    ns3::Fabric fabric;
    std::vector<ns3::Ptr<ns3::RdmaNic>> nics; //!< by host
    int64_t nextStream = 0;                   //!< first random stream not yet assigned
    std::vector<PortHeadroom> headroom;       //!< per switch-port class
};

/**
 * \brief Switches (MMU, PFC, ECN, the LoadBalancer), links, and a configured RdmaNic per host,
 * every attribute set through `attrs`; random streams from 100 on, in a fixed order.
 * \throws ns3::InputError naming the scenario key
 */
/**
 * \brief Subflows per transfer of a policy that pins QPs to source routes (plan.qpEntropy
 * "routes", the `ethereal` preset): without nic.qps_per_connection in the scenario, one QP per
 * route of the fabric (SourceRouteLayout::Routes), so every transfer is split evenly over
 * every path; otherwise the scenario's count stays.
 * \throws ns3::InputError (key `topology`) if the fabric has more routes than a frame names
 */
void SplitOverRoutes(const ScenarioSpec& spec, const ns3::TopologyGraph& graph, RunPlan& plan);

BuiltFabric BuildFabricAndNics(const ScenarioSpec& spec,
                               const RunPlan& plan,
                               const ns3::TopologyGraph& graph,
                               RunAttributes& attrs);

// ---- failures (run-failures.cc) ----------------------------------------------------------

/**
 * \brief Input errors of [[failures]] that need the topology (an unknown link, switch or host,
 * a rate divided to 0), before anything is built. The keys each kind needs are checked where
 * they are read (section-failures.cc), once.
 * \throws ns3::InputError naming failures[i].<key>
 */
void CheckFailures(const ScenarioSpec& spec, const ns3::TopologyGraph& graph);

/**
 * \brief INT records encode a port's rate as one of eight codes (IntHop::RateCode): with a
 * congestion control that uses INT (HPCC), every link rate of the fabric, and every rate a [[failures]]
 * degrade makes, must have one.
 * \throws ns3::InputError naming nic.congestion_control or the failure's rate_divisor / rate_gbps
 */
void CheckIntRates(const ScenarioSpec& spec, const ns3::TopologyGraph& graph);

/**
 * \brief Which graph links are up for the whole run as far as [[failures]] decide it at load
 * time: false for the links a link_down, switch_down or nic_down at 0 µs without until_us
 * takes down, unless some link_up, switch_up or nic_up names them.
 * \param[out] entries indices of the failures that hold such a link down
 */
std::vector<bool> LinksUpFromStart(const ScenarioSpec& spec,
                                   const ns3::TopologyGraph& graph,
                                   std::vector<size_t>& entries);

/**
 * \brief Refuse a workload with host pairs that have no route: a host without a link, a
 * topology in pieces (an imported file), or [[failures]] at 0 µs that last the whole run and
 * cut hosts off (LinksUpFromStart). Both directions of every transfer are checked (data and
 * ACKs) on the forwarding tables the fabric was built with, or with such failures the tables
 * the run reconverges to (ns3::ComputeEqualCostPorts over the links left up); transfers within
 * one server of the [scale_up] domain do not cross the fabric and are not checked.
 * \throws ns3::InputError naming topology.file (or topology.kind) or the first such failure,
 *         with how many ordered host pairs lack a route and the first few
 */
void CheckRoutes(const ScenarioSpec& spec,
                 const ns3::WorkloadSpec& workload,
                 const ns3::Fabric& fabric);

/**
 * \brief The failures [[failure_rates]] draws for `spec` on `graph`: for entry i, each
 * component (links by name, switches, NICs, in the topology's order) fails at the times of a
 * Poisson process of mean gap mtbf_us, counted from the run's start and from each repair,
 * until stop_time_ms; each failure lasts duration_us (its until_us) or, with 0, to the end.
 * Drawn with a Mersenne twister (Boost) seeded by the run seed and i; sorted by time; each
 * entry has drawnFrom = i.
 */
std::vector<FailureEntry> DrawFailures(const ScenarioSpec& spec, const ns3::TopologyGraph& graph);

/** The [[failures]] of `spec` without drawn entries, then DrawFailures (ResolveScenario:
 *  the manifest lists the drawn failures, and a rerun of it draws the same ones again). */
std::vector<FailureEntry> WithDrawnFailures(const ScenarioSpec& spec,
                                            const ns3::TopologyGraph& graph);

/**
 * \brief The gray failure model's HashSeed for [[failures]] entry `entry` of a run seeded
 * `runSeed`: from the run's seed sequence (Boost seed_seq over all 64 bits of the seed, the
 * entry, and a tag of its own), so that runs of other seeds hit other flows and no two entries
 * share buckets.
 */
uint32_t GrayHashSeed(uint64_t runSeed, size_t entry);

/**
 * \brief Schedule the [[failures]] of `spec` (checked by CheckFailures) on the built fabric.
 * A link is down while any failure holds it down (link_down, flap, switch_down, nic_down);
 * after each change every switch's routes are recomputed [fabric] reconvergence_us later.
 * Loss and gray models draw from random streams firstStream, firstStream + 1, ... in entry
 * order. `graph` and `fabric` must outlive the simulation (the events refer to them).
 * \return the number of random streams used
 */
int64_t ScheduleFailures(const ScenarioSpec& spec,
                         const ns3::TopologyGraph& graph,
                         const ns3::Fabric& fabric,
                         int64_t firstStream);

/** Base RTT and BDP of each class of host-to-host paths, measured from host 0 on the idle
 *  fabric (PathClassRow; run-collect.cc). */
std::vector<PathClassRow> PathClasses(const ScenarioSpec& spec,
                                      const BuiltFabric& built,
                                      uint32_t numHosts);

// ---- the workload executor (run-workload.cc) ----------------------------------------------

/** The executor that runs the workload on the NICs, and the scale-up domain if any. */
struct Executor
{
    ns3::Ptr<ns3::WorkloadExecutor> exec;
    ns3::Ptr<ns3::ScaleUpDomain> scaleUp; //!< null without [scale_up] servers
};

/** The executor of `workload` on `built`'s NICs; it stops the simulation when done or stalled. */
Executor SetUpExecutor(const ScenarioSpec& spec,
                       const RunPlan& plan,
                       std::shared_ptr<const ns3::WorkloadSpec> workload,
                       BuiltFabric& built,
                       RunAttributes& attrs);

// ---- attach observers (run-observers.cc) --------------------------------------------------

/**
 * \brief What watches the run without changing it: the metrics sink (the tables, from trace
 * sources), pcap files, the progress line, the time-series sampler and the PFC deadlock
 * detector. Attach connects them in place (they refer to this object: do not move it
 * afterwards).
 */
class Observers
{
  public:
    Observers() = default;
    Observers(const Observers&) = delete;
    Observers& operator=(const Observers&) = delete;

    void Attach(const ScenarioSpec& spec,
                const ns3::TopologyGraph& graph,
                const BuiltFabric& built,
                const Executor& executor,
                const RunOptions& options,
                RunAttributes& attrs,
                std::chrono::steady_clock::time_point wallStart);
    /** Close the sampler at the end of the run and hand over the time series. */
    void Finish(RunResult& result);
    /** The deadlock the detector reported ("" if none). */
    const std::string& Deadlock() const { return m_deadlock; }
    /** RunOptions::poll asked to stop. */
    bool Interrupted() const { return m_interrupted; }
    MetricsSink& Sink() { return m_sink; }
    /** The steady-state probe, whose events the progress tick leaves out of its count. */
    void SetSteadyProbe(const SteadyProbe* probe) { m_steady = probe; }
    void Dispose();

  private:
    /** A QP whose congestion control's "CcState" is connected ([output] cc_trace). */
    struct CcTraced
    {
        Observers* self = nullptr;
        uint32_t src = 0;
        uint32_t dst = 0;
        uint32_t qpn = 0;
        std::string cc;
    };
    static void OnQpCreated(Observers* self, uint32_t host, ns3::Ptr<ns3::RdmaQueuePair> qp);
    static void OnCcState(CcTraced* qp, const ns3::RdmaCcState& state);
    /** The progress tick: RunOptions::poll, and the progress line every few seconds of
     *  wall time; reschedules itself every kProgressTickUs of simulated time until the
     *  workload is done. */
    void Progress();
    /** The progress tick's period, µs of simulated time (an event every run has: changing it
     *  changes the manifest's event count, nothing else). */
    static constexpr uint64_t kProgressTickUs = 20;
    /** Fast mode: the longest period, µs, reached by doubling while at most kQuietTickEvents
     *  events run between two ticks (so a poll waits at most about 16 times as long as in
     *  packet mode when packets start after a quiet stretch). */
    static constexpr uint64_t kProgressTickMaxUs = 16 * kProgressTickUs;
    static constexpr uint64_t kQuietTickEvents = 100;

    MetricsSink m_sink;
    TimeSeriesSampler m_sampler;
    std::deque<CcTraced> m_ccTraced; //!< stable addresses: the callbacks are bound to them
    std::vector<CcTraceRow> m_ccTrace;
    /** [output] path_telemetry: connected only then; m_fabric decodes its paths. */
    std::unique_ptr<PathTelemetryCollector> m_pathTelemetry;
    const ns3::Fabric* m_fabric = nullptr;
    /** [output] ar_telemetry: the fabric whose switches log their choices. */
    const ns3::Fabric* m_arFabric = nullptr;
    ns3::Ptr<ns3::PfcDeadlockDetector> m_detector;
    std::string m_deadlock;
    bool m_interrupted = false;
    ns3::Ptr<ns3::WorkloadExecutor> m_exec;       //!< progress: its done transfers
    bool m_print = false;                          //!< progress: print the line
    std::string m_name;                            //!< progress: the scenario's name
    std::function<bool()> m_poll;                  //!< RunOptions::poll
    bool m_stretchTick = false;                    //!< fast mode: the period stretches
    uint64_t m_tickUs = kProgressTickUs;           //!< the period now
    uint64_t m_tickEvents = 0;                     //!< events run by the last tick
    const SteadyProbe* m_steady = nullptr;         //!< its events are not counted
    std::chrono::steady_clock::time_point m_wallStart;
    std::chrono::steady_clock::time_point m_lastPrint;
};

// ---- Chakra traces (run-chakra.cc) --------------------------------------------------------

/**
 * \brief workload.kind = "chakra": read the trace set and append its graph to `out`
 * (ns3::AppendChakraWorkload), ranks on workload.hosts (or hosts 0 .. n-1).
 * \throws ns3::InputError naming the trace file and node, or the scenario key
 */
void AppendChakra(const ScenarioSpec& spec, const ns3::TopologyGraph& graph, ns3::WorkloadSpec& out);

/** The timeline of every trace node after the run (the executor's trigger times). */
std::vector<ChakraNodeRow> CollectChakraNodes(const ns3::WorkloadExecutor& exec);

// ---- collect and summarise (run-collect.cc, run-summary.cc) -------------------------------

class IterationRows; // lazy-jobs.h
class RowStream;     // row-stream.h
class WholeRows;     // collect-rows.h

/**
 * \brief Fill `result`'s tables after the run from the metrics sink and the executor's
 * records: flows (with ideal FCTs), collectives, jobs, links, PFC events, packet
 * conservation, the summary, and why the run failed if it did. With jobs built iteration by
 * iteration (WorkloadExecutor::SetupLazy), `retired` holds the rows of the iterations retired
 * during the run; `workload` is then the executor's spec of the other transfers. `whole`
 * streams a whole build's rows (StreamableWhole), a ring's final units' built as they retired.
 */
void CollectResults(const ScenarioSpec& spec,
                    const ns3::TopologyGraph& graph,
                    const ns3::WorkloadSpec& workload,
                    const BuiltFabric& built,
                    const Executor& executor,
                    Observers& observers,
                    RunResult& result,
                    IterationRows* retired = nullptr,
                    WholeRows* whole = nullptr);

/**
 * \brief Whether CollectResults can stream a whole build's rows a few collective steps at a
 * time (`whole`): every transfer belongs to a collective step and the transfers of each
 * (collective, step) are contiguous and in (collective, step) order, as a standalone
 * collective (workload.kind = "ring-allreduce") has them; the collective-aware ideal groups
 * transfers by collective step, so each chunk holds whole groups.
 */
bool StreamableWhole(const ns3::WorkloadSpec& workload);

// ---- invariants (run-invariants.cc) ------------------------------------------------------

/**
 * \brief The invariants every run must keep, checked at its end; each
 * violation is one line, and a run with any fails (RunResult::failure, exit status 1):
 *  - per-flow packet conservation: no flow has more data frames received + dropped than sent
 *    (pkts_in_flight >= 0), and the flows' frames in flight are among the frames the fabric
 *    holds (sum of pkts_in_flight, less the frames rows still count that arrived or were
 *    dropped after they were built and those replayed rows copied from their memo, <=
 *    conservation.inFlight);
 *  - every switch MMU's egress counter of each (port, queue) equals the bytes that queue
 *    holds, its total equals their sum, no counter is negative (wrapped below 0) and its own
 *    ingress / egress / pool accounts agree (SharedBufferMmu::CheckInvariants);
 *  - no link sent faster than its line rate over any window of
 *    FabricNetDevice::kRateCheckFrames frames (`linkRateViolation`, from the sink).
 */
/** The violation line of a flow with pkts_in_flight < 0 (InvariantViolations). */
std::string FlowConservationViolation(const FlowRow& f);

std::vector<std::string> InvariantViolations(const RunResult& result,
                                             const ns3::Fabric& fabric,
                                             const std::string& linkRateViolation);

// ---- fast mode (run-fast.cc) --------------------------------------------------------------

/** The scenario's [[failures]] as the windows in which the fabric changes: a flap's from its
 *  start to its last transition, a timed failure's repair and its start as two instants (in
 *  that order), any other failure's start. Fast mode's and the steady-state probe's rules take
 *  nothing from a window that contains one. With `graph`, each window names its links. */
std::vector<FailureWindow> FailureWindows(const ScenarioSpec& spec,
                                          const ns3::TopologyGraph* graph = nullptr);

/**
 * \brief simulator.mode = "fast": the run's IterationMemo, its probe of the fabric (quiescence,
 * every QP's CC state, every port's counters) and its span check ([[failures]]); nothing in
 * packet mode. Time series, cc_trace, path telemetry and pcap refuse every replay (counted as
 * "time_series" / "per_packet_output"): they would need every packet.
 */
class FastMode
{
  public:
    /** After Observers::Attach, before WorkloadExecutor::Start. `ring`: a standalone ring
     *  built a window of steps at a time (its steps replayed by a RingStepMemo), or nullptr. */
    void Attach(const ScenarioSpec& spec,
                const RunPlan& plan,
                const BuiltFabric& built,
                const Executor& executor,
                Observers& observers,
                const ns3::RingStepUnits* ring = nullptr);
    /** After the run, before CollectResults: the replayed counters into the links' rows and
     *  the conservation counts, the stats into `result`. */
    void BeforeCollect(Observers& observers, RunResult& result);
    void Dispose();

  private:
    ns3::Ptr<ns3::IterationMemo> m_memo;
    ns3::Ptr<ns3::RingStepMemo> m_ring; //!< a standalone ring's steps, or none
    size_t m_sinkPorts = 0; //!< ports of the sink; the probe appends the NICs after them
    uint32_t m_recurrenceSpan = 0;   //!< the memo's RecurrenceSpan (ChooseRecurrenceSpan)
    std::string m_recurrenceSpanWhy; //!< why that span
    uint32_t m_steadyTrendSpan = 0;   //!< the memo's SteadyTrendSpan (ChooseSteadyTrendSpan)
    std::string m_steadyTrendSpanWhy; //!< why that span
};

/** Add flow f's transport counters to s (retransmissions, reordering, NAKs, spurious
 *  resends; reorderMax as a maximum). The mean reordering is not touched: the caller weights
 *  f.reorderMean by f.oooPackets in its own order of summation. */
void AddFlowCounters(RunSummary& s, const FlowRow& f);

/** The headline numbers of `result` (RunSummary), computed once from its tables. */
/**
 * \brief What to add to a watchdog stop's message about the retransmission timeout: "" when
 * nic.rto_us is not longer than the watchdog (`watchdogPs`, ps); when it is, why a frame may
 * wait for it. A run with go-back-N receivers, no drop and out-of-order arrivals lost nothing:
 * the receivers discarded what a reordering policy (spraying) delivered out of order and NAK
 * once per expected PSN (GoBackNRecovery), so a discarded frame that no later arrival NAKs
 * (a message's tail, an expected PSN NAKed already) waits for the timer;
 * the hint says so and names nic.receiver = "selective-repeat". Otherwise: a frame lost
 * without a NACK. Both name nic.rto_us and workload.watchdog_ms.
 */
std::string WatchdogTimeoutHint(const ScenarioSpec& spec, const RunSummary& summary,
                                uint64_t watchdogPs);

/** A host pair's base RTT (an MTU data frame and its ACK on the idle fabric, as PathClassRow's
 *  baseRttPs) and its links. */
struct PairRtt
{
    uint32_t src = 0;
    uint32_t dst = 0;
    uint32_t links = 0;
    uint64_t rttPs = 0;
};

/** Distinct host pairs of the workload LongestBaseRtt measures at most, the first in the
 *  workload's order (a lazily built job's are its first iteration's sample): a bound on the
 *  setup cost at thousands of hosts. */
constexpr size_t kRttPairsChecked = 4096;

/** The longest base RTT over host 0's path classes (PathClasses) and the first
 *  kRttPairsChecked distinct host pairs of `workload`'s transfers over the fabric (both
 *  directions; scale-up pairs and self pairs skipped): a path class is measured from host 0
 *  only, and a host with a longer link of its own is in none. */
PairRtt LongestBaseRtt(const ScenarioSpec& spec, const BuiltFabric& built,
                       const ns3::WorkloadSpec& workload);

/**
 * \brief A warning when nic.rto_us is shorter than `longest` (LongestBaseRtt): "" otherwise.
 * No ACK returns sooner than the base RTT, so such a timer fires for every packet on that
 * path and resends it from the oldest unacknowledged PSN (DiLoCo's cross-site RTT of about
 * 2 ms at nic.rto_us = 10: 480,768 drops and no cross-site byte in 80 ms). Given at the start
 * of a run (RunOptions::warn, the manifest's `warnings`) and again in a failed run's message
 * (RunResult::rtoWarning).
 */
std::string RtoBelowRttWarning(const ScenarioSpec& spec, const PairRtt& longest);

/**
 * \brief What to add to an unfinished run's message about go-back-N: "" unless the receivers
 * are go-back-N and some arrivals came out of order (RunSummary::oooPackets); then the count
 * discarded, the packets and payload bytes resent, and that a policy which reorders one QP's
 * packets wants nic.receiver = "selective-repeat" (spraying over go-back-N can resend faster
 * than it delivers: scenarios/failures.toml under `spray` left 6 of 16 transfers unfinished
 * at 20 ms having resent about 25 times their payload; selective repeat finished them in 1.4 ms).
 */
std::string GoBackNResendNote(const ScenarioSpec& spec, const RunSummary& summary);

RunSummary Summarize(const RunResult& result, const std::string& policy,
                     uint64_t trimmedFrames);

} // namespace tusk

#endif
