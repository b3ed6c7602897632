/*
 * tusk: Runner, from a ScenarioSpec to a finished simulation and its result tables.
 */
#ifndef TUSK_RUNNER_H
#define TUSK_RUNNER_H

#include "scenario/scenario-spec.h"
#include "run/ar-telemetry.h"
#include "run/path-telemetry.h"
#include "run/probe-mesh.h"
#include "run/steady-judge.h"
#include "run/steady-jumper.h"
#include "run/time-series.h"
#include "run/waits.h"

#include "fabric/model/fabric-net-device.h"
#include "workload/model/iteration-memo-stats.h"

#include "ns3/ptr.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{
struct Fabric;
struct WorkloadSpec;
class RdmaNic;
} // namespace ns3

namespace tusk
{

/** A time that does not exist (an unfinished step's end): written as an empty field. */
constexpr uint64_t kNoTime = UINT64_MAX;

/** Number of named drop reasons (columns drops_<reason> of links.csv). */
constexpr int kDropReasons = static_cast<int>(ns3::DropReason::COUNT);

/** One row of flows.csv: one transfer. Times in ps. */
struct FlowRow
{
    uint64_t id = 0;
    uint32_t src = 0;
    uint32_t dst = 0;
    uint64_t bytes = 0;
    bool started = false;
    bool finished = false; //!< every byte delivered at the receiver
    uint64_t startPs = 0;
    uint64_t finishPs = 0; //!< last byte delivered
    uint64_t fctPs = 0;
    /** Every byte acknowledged at the sender (its last ACK arrived; htsim's and the HPCC
     *  simulator's end point): that time - start, ps. */
    bool acknowledged = false;
    uint64_t fctSenderPs = 0;
    uint64_t idealFctPs = 0;
    double slowdown = 0;
    /** Collective-aware ideal FCT (FairShareIdealPs: its max-min fair share of the traffic
     *  released with it, its collective step's or its instant's), ps; 0 for background. */
    uint64_t fairIdealPs = 0;
    double fairSlowdown = 0; //!< fct / fairIdealPs (finished transfers with a fair ideal)
    uint64_t deliveredBytes = 0;
    uint32_t qps = 0;
    uint32_t entropy = 0;
    uint64_t retxPackets = 0;
    uint64_t retxBytes = 0;      //!< payload bytes retransmitted
    uint64_t retxTimeoutPackets = 0; //!< of retxPackets, sent after a retransmission timeout
    uint64_t oooPackets = 0;
    uint64_t reorderMax = 0;     //!< largest PSN - ePSN of an out-of-order arrival, packets
    double reorderMean = 0;      //!< mean PSN - ePSN over out-of-order arrivals, packets
    uint64_t naks = 0;           //!< NAKs (go-back-N) or SACK-NAKs (selective repeat) sent
    uint64_t spuriousRetx = 0;   //!< packets that arrived although already received
    // Its data frames (per-flow conservation: sent = received + dropped + in flight).
    uint64_t pktsSent = 0;                    //!< first copies and resends
    uint64_t pktsReceived = 0;                //!< reached the receiving QP (any kind)
    uint64_t pktsDropped[kDropReasons] = {};  //!< by DropReason
    int64_t pktsInFlight = 0;                 //!< sent - received - dropped at the end
    int32_t collective = -1;
    int32_t step = -1;
    int32_t channel = -1;
    int32_t job = -1;        //!< job of its collective, or -1
    bool background = false; //!< background traffic ([[background]])
    bool scaleUp = false;    //!< carried by the scale-up domain (NVLink-like), not the NICs
    uint16_t port = 0;       //!< destination port of the imported file (TransferSpec::port)
    /** The paths its data frames arrived by (links.csv link_ids in the order crossed) and the
     *  frames on each, in order of first arrival; frames whose path is unknown are left out. */
    std::vector<std::pair<std::vector<uint32_t>, uint64_t>> paths;
};

/** One row of collectives.csv. */
struct CollectiveRow
{
    uint32_t id = 0;
    std::string kind;
    uint32_t ranks = 0;
    uint64_t bytesPerRank = 0;
    uint32_t channels = 0;
    bool finished = false;
    uint64_t startPs = 0;
    uint64_t finishPs = 0;
    uint64_t cctPs = 0;
    double algbwGBps = 0; //!< S / CCT, GB/s (1e9 B/s), as nccl-tests
    double busbwGBps = 0; //!< algbw * factor
    double busbwFactor = 0;
    /** Byte bound of the algorithm: max over ranks of max(bytes sent, bytes received) at the
     *  rate they leave or enter by (NIC, or scale-up port), ps. Ring all-reduce with n | S:
     *  2(n-1)/n * S / B (oracle 1). */
    uint64_t lowerBoundPs = 0;
    std::vector<uint64_t> stepEndPs; //!< completion of each step (last byte of the step delivered); kNoTime if unfinished
    std::string algorithm;     //!< "ring", "halving-doubling", ...
    int32_t job = -1;          //!< its job, or -1
    int32_t iteration = -1;    //!< iteration of that job, or -1
    std::string name;          //!< label ("layer3.wg", ...)
    std::string group;         //!< process group ("dp0", "world", ...)
    uint32_t slices = 1;       //!< pipelining chunks per op and channel
    /** Per step: the rank (index into the collective's ranks) that sent the step's last
     *  delivered transfer, the one everybody waited for; -1 if the step did not finish. */
    std::vector<int64_t> stepSlowestRank;
    /** Per step: the flow id of that transfer; -1 if the step did not finish. */
    std::vector<int64_t> stepSlowestFlow;
    /** Ranks whose wait exceeded 1 %, 10 %, 50 % of a step's ideal time in some step
     *  (waits.csv, tusk/run/waits.h). */
    std::array<uint32_t, 3> ranksDelayed{};
    /** The straggler of its critical path (CollectiveWaits::criticalTransfer): its index in
     *  RunResult::flows, -1 if unfinished. */
    int64_t criticalFlow = -1;
};

/** One row of jobs.csv: one training job. Times in ps. */
/** One node of a Chakra trace: when it started and ended (chakra_nodes.csv). */
struct ChakraNodeRow
{
    uint32_t rank = 0;
    uint64_t nodeId = 0;
    std::string name;
    std::string type;   //!< "compute", "collective", "send", "recv", "metadata", "invalid"
    std::string detail; //!< duration, collective kind and bytes, or peer and bytes
    int64_t startPs = -1; //!< -1: never started
    int64_t endPs = -1;   //!< -1: never ended
};

struct JobRow
{
    uint32_t id = 0;
    std::string name;
    std::vector<uint32_t> hosts; //!< host of every rank
    uint32_t tp = 1;
    uint32_t pp = 1;
    uint32_t dp = 1;
    uint32_t ep = 1;
    std::string placement;
    std::string source;          //!< "scenario" or the SimAI file
    std::string note;            //!< e.g. the DP scaling of a SimAI import
    uint32_t iterations = 0;
    uint32_t collectives = 0;
    bool finished = false;       //!< every transfer of the job delivered
    uint64_t startPs = 0;        //!< the job's start time
    uint64_t finishPs = 0;       //!< last byte of its last collective delivered
    /** End of each iteration: last byte of its last collective delivered (0 if unfinished). */
    std::vector<uint64_t> iterationEndPs;
};

/** One row of links.csv: one direction of one link. */
struct LinkRow
{
    uint32_t link = 0;
    std::string from;
    std::string to;
    uint32_t fromTier = 0;
    uint32_t toTier = 0;
    bool uplink = false;    //!< switch to a higher-tier switch
    uint64_t rateBps = 0;
    uint64_t txFrames = 0;
    uint64_t txBytes = 0;
    double meanUtilisation = 0; //!< wire bytes / (rate * simulated duration)
    double maxUtilisation = 0;  //!< busiest UtilisationWindow
    uint64_t maxQueueBytes = 0;
    uint64_t drops[kDropReasons] = {}; //!< by DropReason
    double byteShare = -1; //!< uplinks: tx bytes / tx bytes of all uplinks of `from`; else -1
    uint64_t pfcPauseTx = 0;   //!< XOFF frames (non-zero quanta) sent from `from` to `to`
    uint64_t pfcFramesTx = 0;  //!< PFC frames (XOFF + XON) sent from `from` to `to`
    uint64_t pfcFramesRx = 0;  //!< PFC frames `from` received from `to`
    uint64_t pausedPs = 0;     //!< time `from`'s transmitter was paused, summed over priorities
    uint64_t ecnMarks = 0;     //!< frames CE-marked at this egress
    uint64_t watchdogTriggers = 0;
    uint64_t creditStallPs = 0; //!< InfiniBand: time `from`'s VLs waited for credit, summed
};

/** One PFC frame sent or received (pfc_events.csv). */
struct PfcEventRow
{
    ns3::PfcEvent event;
    std::string at;   //!< the node whose port sent or received it
    std::string peer; //!< the node at the other end of that link
};

/** One frame a port dropped (drops.csv, `[output] drop_log = true`). */
struct DropEventRow
{
    uint64_t timePs = 0;
    uint32_t port = 0; //!< the dropping port: its row of links.csv (RunResult::links)
    ns3::DropReason reason = ns3::DropReason::BUFFER_OVERFLOW;
    ns3::FrameKind kind = ns3::FrameKind::DATA;
    uint16_t entropy = 0; //!< the frame's UDP source port
    uint32_t srcHost = 0;
    uint32_t dstHost = 0;
    uint32_t dstQp = 0; //!< BTH destination QP: with (srcHost, dstHost), the frame's QP
};

/** Frames: NICs sent = NICs received + dropped + in flight. */
struct Conservation
{
    uint64_t sent = 0;
    uint64_t received = 0;
    uint64_t dropped = 0;
    uint64_t inFlight = 0;
    /** Data frames of transfers whose rows were built before the frame arrived or was dropped
     *  (a retired iteration's late duplicates: WorkloadExecutor::RetiredFramesSettled): the
     *  rows count them in flight. */
    uint64_t settledAfterRows = 0;
    /** Data frames the rows of replayed transfers count in flight (fast mode: a memo
     *  record's late duplicates, copied with it; WorkloadExecutor::ReplayedFramesInFlight):
     *  packet mode had them on a wire when the row was built, a replay never sends them. */
    uint64_t replayedInFlight = 0;
    bool Holds() const { return sent == received + dropped + inFlight; }
};

/**
 * The headline numbers of a run (the row of `tusk compare`, the manifest's "summary"),
 * computed once from the run's tables (run-summary.cc); the Python analysis reads them from
 * the manifest.
 */
struct RunSummary
{
    std::string policy;
    size_t flows = 0;
    size_t unfinished = 0;
    double cctUs = 0;      //!< largest CCT over collectives (NaN if none)
    double algbwGBps = 0;  //!< of that collective
    double busbwGBps = 0;
    double lowerBoundUs = 0; //!< byte bound of that collective (NaN if none)
    double meanSlowdown = 0;
    double p50Slowdown = 0;
    double p99Slowdown = 0;
    double p999Slowdown = 0;
    double maxSlowdown = 0;
    /** Collective-aware FCT slowdown (flows.csv fair_slowdown) of the finished transfers that
     *  have one (all but background traffic): mean and p99 (same quantile method); NaN with
     *  none. */
    double meanFairSlowdown = 0;
    double p99FairSlowdown = 0;
    double maxFctUs = 0;
    double p99FctUs = 0;
    double uplinkMaxUtil = 0;  //!< largest mean utilisation over uplinks
    double uplinkMeanUtil = 0; //!< mean of the uplinks' mean utilisation
    double uplinkJain = 1;     //!< Jain's index of uplink bytes
    uint64_t drops = 0;          //!< fabric drops, all reasons but nic_stale
    uint64_t dropsByReason[kDropReasons] = {}; //!< by DropReason (nic_stale included)
    uint64_t pfcPauses = 0;      //!< XOFF frames sent by all ports
    double pausedFraction = 0;   //!< mean over link directions of paused time / duration
    /** InfiniBand: mean over link directions of credit-stall time / duration (manifest
     *  summary "credit_stall_fraction", written only on that fabric). */
    double creditStallFraction = 0;
    uint32_t pfcMaxDepth = 0;    //!< deepest pause propagation (hops)
    uint64_t ecnMarks = 0;
    uint64_t cnps = 0;           //!< CNPs sent by receivers (notification points), out-of-order CNPs included
    uint64_t trimmedFrames = 0;  //!< data frames cut to their headers by switches (trimming)
    uint64_t retxPackets = 0;
    uint64_t oooPackets = 0;
    uint64_t retxBytes = 0;        //!< payload bytes retransmitted
    uint64_t retxTimeoutPackets = 0; //!< of retxPackets, sent after a retransmission timeout
    uint64_t naks = 0;             //!< NAKs / SACK-NAKs sent by receivers
    uint64_t spuriousRetx = 0;     //!< packets that arrived although already received
    uint64_t reorderMax = 0;       //!< largest reorder distance (PSN - ePSN), packets
    double reorderMean = 0;        //!< mean reorder distance over out-of-order arrivals
    double uplinkImbalance = 1;    //!< max / mean of uplink tx bytes (1 = perfectly even)
    std::string quantileMethod;    //!< how the percentiles were taken ("nearest-rank")
};

/** One switch's buffer (switches.csv): its MMU's pools and the most each held. */
struct SwitchRow
{
    std::string name;
    uint64_t bufferBytes = 0;       //!< BufferBytes
    uint64_t reservedPoolBytes = 0; //!< reserved space of every (ingress port, PG)
    uint64_t headroomPoolBytes = 0; //!< headroom of every lossless (ingress port, PG)
    uint64_t sharedPoolBytes = 0;   //!< the rest
    uint64_t maxTotalBytes = 0;     //!< the most the switch held at one instant
    uint64_t maxReservedBytes = 0;  //!< each pool's own maximum (not at the same instant)
    uint64_t maxSharedBytes = 0;
    uint64_t maxHeadroomBytes = 0;
};

/**
 * One change of a QP's congestion-control state (cc_trace.csv, `[output] cc_trace = true`):
 * what the CC has, NaN (an empty cell) for what it has not.
 */
struct CcTraceRow
{
    uint64_t timePs = 0;
    uint32_t src = 0;  //!< the QP's host (its requester sends the data)
    uint32_t dst = 0;  //!< the peer host
    uint32_t qpn = 0;  //!< the QP number at src
    std::string cc;    //!< the CC's name ("dcqcn", "hpcc", ...)
    double rateBps = 0;
    double targetRateBps = 0;
    double alpha = 0;
    double windowBytes = 0;
};

/** PFC headroom of the switch ports of one (rate, delay) class, as the MMUs got it. */
struct PortHeadroom
{
    uint64_t rateBps = 0;
    uint64_t delayPs = 0;
    uint64_t headroomBytes = 0; //!< per port and lossless PG (buffer.headroom_bytes or automatic)
    uint32_t ports = 0;         //!< switch ports of this class
    uint64_t maxUsedBytes = 0;  //!< the most headroom one lossless PG of these ports used
};

/**
 * The base RTT and BDP of one class of host-to-host paths (what FCT-slowdown
 * papers normalise by). A class is the number of links between two hosts; its numbers are for
 * the pair named, from host 0 (every class of a symmetric fabric), on its fastest
 * minimum-hop path.
 */
struct PathClassRow
{
    uint32_t links = 0;   //!< host-to-host links (switches crossed = links - 1)
    uint32_t src = 0;     //!< the pair measured
    uint32_t dst = 0;
    uint32_t pairs = 0;   //!< destinations of host 0 in this class
    /** One MTU-sized data frame src -> dst (store and forward at every hop, switch latency,
     *  propagation) plus its ACK frame back, on the idle fabric, ps. */
    uint64_t baseRttPs = 0;
    uint64_t hostRateBps = 0; //!< line rate of src's NIC
    uint64_t bdpBytes = 0;    //!< baseRtt x hostRate / 8, rounded up
    /** The same pair under the HPCC simulator's pairRtt convention (tool-outputs.h
     *  HpccPairRtt: propagation both ways and one MTU payload per hop, no ACK), ps. */
    uint64_t hpccPairRttPs = 0;
};

/** What the job-row and summary stages read of a collectives.csv row. */
struct CollectiveBrief
{
    int32_t job = -1;
    int32_t iteration = -1;
    bool finished = false;
    uint64_t finishPs = 0;
    uint64_t cctPs = 0;
    uint64_t lowerBoundPs = 0;
    double algbwGBps = 0;
    double busbwGBps = 0;

    CollectiveBrief() = default;
    explicit CollectiveBrief(const CollectiveRow& c)
        : job(c.job),
          iteration(c.iteration),
          finished(c.finished),
          finishPs(c.finishPs),
          cctPs(c.cctPs),
          lowerBoundPs(c.lowerBoundPs),
          algbwGBps(c.algbwGBps),
          busbwGBps(c.busbwGBps)
    {
    }
};

/**
 * A run whose flows.csv, collectives.csv and waits.csv were written while it ran
 * (RunOptions::streamRows: each job iteration's rows appended to the staged files when it
 * retires, run/row-stream.h): what the run keeps of those rows instead of RunResult::flows,
 * collectives and waits, which stay empty. Nothing in it grows per flow.
 */
struct StreamedRows
{
    bool active = false; //!< the rows are in the files, not in RunResult's tables
    uint64_t flows = 0;  //!< rows of flows.csv
    uint64_t waits = 0;  //!< rows of waits.csv
    /** collectives.csv's rows as the job rows and the summary read them, in id order. */
    std::vector<CollectiveBrief> collectives;
    /** The summary's flow part (Summarize copies it): counts, sums, exact means, nearest-rank
     *  percentiles and maxima of the flows, as Summarize computes them from RunResult::flows. */
    RunSummary flowSummary;
    /** Per-flow packet conservation (InvariantViolations): the sum of pkts_in_flight and the
     *  flows with pkts_in_flight < 0, in id order. */
    int64_t flowsInFlight = 0;
    std::vector<std::string> flowViolations;
    /** The most flow rows held in memory at once while streaming (one retiring iteration's, or
     *  the background flows'): does not grow with a job's iterations. */
    uint64_t maxRowsHeld = 0;
    /** Iterations whose rows were written from an earlier iteration's shifted (fast mode,
     *  RunOptions::shiftedRows): not in the results, for tests. */
    uint64_t shiftedIterations = 0;
};

struct RunResult
{
    ScenarioSpec spec; //!< the scenario as run: resolved (ResolveScenario)
    std::string policyTypeId;
    std::string pathSelectorTypeId; //!< host-side path selector actually used
    uint32_t qpsPerConnection = 1;  //!< QPs per connection actually used (a policy may fix it)
    std::string qpScaling;          //!< "split" | "round-robin", as used
    std::vector<FlowRow> flows;
    std::vector<CollectiveRow> collectives;
    std::vector<WaitRow> waits; //!< waits.csv: per collective, step and rank
    std::vector<JobRow> jobs;
    std::vector<ChakraNodeRow> chakraNodes; //!< workload.kind = "chakra": every node of every rank
    std::vector<LinkRow> links;
    std::vector<PfcEventRow> pfcEvents;
    std::vector<DropEventRow> dropEvents; //!< [output] drop_log: every drop, in time order
    TimeSeries timeSeries; //!< [output] sample_us > 0: switch ports sampled over time
    std::vector<SwitchRow> switchRows; //!< one per switch, in vertex order (switches.csv)
    std::vector<CcTraceRow> ccTrace;   //!< [output] cc_trace: CC state changes in time order
    /** [output] path_telemetry: per sending QP and entropy (paths.csv) */
    std::vector<PathTelemetryRow> pathTelemetry;
    /** [output] ar_telemetry: per switch, egress port, candidate count and reason (ar.csv) */
    std::vector<ArTelemetryRow> arTelemetry;
    /** [probes]: per probe stream (probes.csv); empty without probes */
    std::vector<ProbeRow> probes;
    RunSummary summary;
    Conservation conservation;
    uint32_t hosts = 0;
    uint32_t switches = 0;
    /** Per vertex (hosts, then switches), the node id of the imported topology file when it
     *  numbers nodes otherwise (HPCC topology.txt), else empty (ImportedNodeIds). */
    std::vector<uint32_t> nodeIds;
    uint64_t events = 0;
    uint64_t packetHops = 0; //!< frames transmitted by every port
    uint64_t simEndPs = 0;   //!< time of the last completion, or the stop time
    double wallSeconds = 0;
    double setupSeconds = 0; //!< wall time before Simulator::Run (fabric, workload, QPs)
    double runSeconds = 0;   //!< wall time inside Simulator::Run
    bool finished = false;   //!< every transfer delivered and acknowledged
    /** Why the run failed ("" if it did not): unfinished transfers, broken conservation. */
    std::string failure;
    /** Settings that are valid but probably not what was meant (ScenarioWarnings). */
    std::vector<std::string> warnings;
    /** RtoBelowRttWarning of the built fabric and workload ("" if none; also in `warnings`),
     *  repeated in a failed run's message. */
    std::string rtoWarning;
    /** Every ns-3 attribute the run set (by the TypeId that declares it) and the values used,
     *  as ns-3 writes them; a description where values vary per object ("per switch: ..."). */
    std::map<std::string, std::vector<std::string>> attributes;
    /** PFC headroom per switch-port class (rate, delay), sorted by rate then delay. */
    std::vector<PortHeadroom> headroom;
    /** Base RTT and BDP per path class, by number of links. */
    std::vector<PathClassRow> pathClasses;
    /** Invariants the run broke (InvariantViolations; each also in `failure`). */
    std::vector<std::string> invariantViolations;
    /** simulator.mode = "fast": what the iteration memoisation replayed and why it did not
     *  (the manifest's "fast_mode"); untouched in packet mode. */
    ns3::IterationMemoStats fast;
    /** simulator.steady_probe: what the steady-state probe found (the manifest's
     *  "steady_probe"); inactive otherwise. */
    SteadyProbeStats steady;
    /** simulator.steady_jump: what steady-state jumps skipped (the manifest's "steady_jump");
     *  inactive otherwise. */
    SteadyJumpStats steadyJump;
    /** RunOptions::streamRows: the flow, collective and wait rows went to their files while
     *  the run ran (streamed.active), and `flows`, `collectives`, `waits` are empty. */
    StreamedRows streamed;
};

/** Rows of flows.csv: RunResult::flows, or the streamed count. */
inline uint64_t
FlowCount(const RunResult& r)
{
    return r.streamed.active ? r.streamed.flows : r.flows.size();
}

/** Rows of collectives.csv: RunResult::collectives, or the streamed count. */
inline uint64_t
CollectiveCount(const RunResult& r)
{
    return r.streamed.active ? r.streamed.collectives.size() : r.collectives.size();
}

/** Calls fn(CollectiveBrief) for each row of collectives.csv, in order. */
template <class Fn>
void
ForEachCollective(const RunResult& r, Fn&& fn)
{
    if (r.streamed.active)
    {
        for (const CollectiveBrief& c : r.streamed.collectives)
        {
            fn(c);
        }
        return;
    }
    for (const CollectiveRow& c : r.collectives)
    {
        fn(CollectiveBrief(c));
    }
}

struct RunOptions
{
    bool progress = true; //!< print a progress line to stderr every few seconds of wall time
    /** Called with each warning the run finds once the fabric is built (ScenarioWarnings come
     *  before the run, from the spec alone); every one is in RunResult::warnings too. */
    std::function<void(const std::string&)> warn;
    /** Where to write one pcap per host NIC when spec.output.pcap is set ("" = nowhere). */
    std::string pcapDir;
    /** Called after the fabric is built, before the simulation starts (tests install error
     *  models or schedule link failures here). */
    std::function<void(ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&)> beforeRun;
    /** Called on the workload built from the spec before it runs (tests make transfers share
     *  a connection, for example). */
    std::function<void(ns3::WorkloadSpec&)> editWorkload;
    /** Called when the simulation has stopped, before anything is disposed (tests read NIC
     *  and QP counters here). */
    std::function<void(ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&)> afterRun;
    /** Called when the results are collected, before the fabric and executor are disposed
     *  (tests check what the run still holds then, e.g. WorkloadExecutor::LiveRecords). */
    std::function<void()> afterCollect;
    /** Called on the progress tick (every 20 µs of simulated time, an event every run has,
     *  so results do not change; in fast mode up to 320 µs over stretches of at most 100
     *  events, e.g. replayed iterations); returning false stops the run and RunScenario
     *  throws RunInterrupted (a Ctrl-C in the Python module). */
    std::function<bool()> poll;
    /**
     * RunInto only: write flows.csv, collectives.csv and waits.csv into the staged results as
     * the run goes, each job iteration's rows when it retires, instead of keeping every row
     * to the end (a job of many iterations then holds the rows of its live iterations only).
     * The returned RunResult has empty `flows`, `collectives` and `waits` and fills
     * `streamed`; the files are byte-identical. Applies to a [[jobs]] workload built
     * iteration by iteration (packet mode, no editWorkload), and to a whole build whose
     * transfers come a collective step after another (a standalone collective, StreamableWhole:
     * its flow rows are written a few steps at a time, its collective and wait rows at the
     * end), without [output] formats (their files read the flow rows); otherwise the rows are
     * kept as without it. `tusk run` and
     * `tusk rerun` set it; the library and the Python module keep the rows (false).
     */
    bool streamRows = false;
    /** Where RunScenario streams the rows (RunInto sets it to the staging folder when
     *  streamRows is set; "" = keep them). */
    std::string streamDir;
    /** Fast mode with streamed rows: an iteration whose every row input is an earlier
     *  iteration's with ids and times shifted (a replayed one) has its rows written from that
     *  iteration's, shifted, instead of built (IterationRows; the same bytes). Tests turn it
     *  off to compare. */
    bool shiftedRows = true;
    /** A standalone ring all-reduce (workload.kind = "ring-allreduce", packet mode, no
     *  [[background]], no editWorkload) is built W steps at a time (ns3::RingStepUnits):
     *  W = this, or 0 for the fewest steps of at least 4,096 transfers. Results do not depend
     *  on it (tests set a small W). */
    uint32_t ringWindowSteps = 0;
};

/** RunScenario stopped because RunOptions::poll asked it to: nothing collected or written. */
class RunInterrupted : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/**
 * \brief Build the fabric and workload of `spec`, run the simulation and collect results.
 * RunResult::spec is `spec` resolved (ResolveScenario): what the run used.
 * \throws ns3::InputError for input problems found while building (host ids, files)
 */
RunResult RunScenario(const ScenarioSpec& spec, const RunOptions& options = RunOptions());

/**
 * \brief `spec` with every value a run derives made explicit, so that its echo
 * (ScenarioToJson, the manifest's "scenario") reproduces the run exactly: a UEC-style
 * transport's BDP-derived ECN thresholds become [[ecn.by_rate]] entries, the DCQCN preset
 * explicit values at the host line rate. Resolving a resolved spec changes nothing.
 * \throws ns3::InputError if the topology cannot be built
 */
ScenarioSpec ResolveScenario(const ScenarioSpec& spec);

/**
 * \brief Valid settings that are probably a mistake: lossy data under PFC, a lossless priority
 * listed twice, a slow XOFF refresh, a given PFC headroom below what the links need (the
 * topology is built for that). Printed by `tusk` before a run and written into the manifest.
 */
std::vector<std::string> ScenarioWarnings(const ScenarioSpec& spec);

} // namespace tusk

#endif
