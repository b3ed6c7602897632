/*
 * tusk: ScenarioSpec, the plain, validated description of one run.
 *
 * Filled from a TOML scenario file (scenario-toml.h) and `--set key=value` overrides,
 * validated once, echoed into the run's manifest.json (ScenarioToJson), and consumed by the
 * Runner. Internal units: time in picoseconds, rates in bit/s, sizes in bytes. The TOML keys
 * carry their unit in their name (`link_delay_ns`, `host_link_gbps`, `rto_us`, ...); see
 * docs/scenario-format.md for every key, its unit and default.
 */
#ifndef TUSK_SCENARIO_SPEC_H
#define TUSK_SCENARIO_SPEC_H

#include "fabric/helper/multi-site.h"
#include "fabric/helper/topology-builders.h"
#include "fabric/model/input-error.h"
#include "rdma/model/rdma-nic.h"

#include <cstdint>
#include <any>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tusk
{

/*
 * Defaults that belong to a model: a scenario key that sets an ns-3 attribute takes the
 * attribute's initial value as its default, so the default is written once, in the model
 * (the key reference in docs/scenario-format.md shows it). Each function aborts with the path
 * if the attribute does not exist or has another type (a programming error, caught by any test
 * that builds a ScenarioSpec).
 */
/** An Uinteger attribute's initial value. */
uint64_t AttributeDefaultUint(const char* path);
/** A Double attribute's initial value. */
double AttributeDefaultDouble(const char* path);
/** A Boolean attribute's initial value. */
bool AttributeDefaultBool(const char* path);
/** A Time attribute's initial value, ps. */
uint64_t AttributeDefaultPs(const char* path);
/** A DataRate attribute's initial value, bit/s. */
uint64_t AttributeDefaultBps(const char* path);
/** The priorities set in an Uinteger bit-mask attribute's initial value (bit i = priority i). */
std::vector<uint8_t> AttributeDefaultPriorities(const char* path);

/** [topology] */
struct TopologySection
{
    /** A registered topology kind (topology-kinds.h): "leaf-spine" | "fat-tree" | "htsim" |
     *  "ring" | "rail-optimised" | "pod-clos" | "hpcc" | "multi-site" built in. */
    std::string kind = "leaf-spine";
    ns3::LeafSpineParams leafSpine;  //!< kind = "leaf-spine"
    ns3::FatTreeParams fatTree;      //!< kind = "fat-tree"
    std::string file;                //!< kind = "htsim" / "hpcc": topology file (absolute after loading)
    ns3::RingParams ring;            //!< kind = "ring" (PFC deadlock studies)
    ns3::RailOptimisedParams rail;   //!< kind = "rail-optimised"
    ns3::PodClosParams podClos;      //!< kind = "pod-clos"
    ns3::MultiSiteParams multiSite;  //!< kind = "multi-site"
    /** The parameters of a kind of one's own (OwnTopologyParams<P>, topology-kinds.h). */
    std::any own;
};

/** [fabric]: switch and link parameters. */
struct FabricSection
{
    /** Preamble + SFD + inter-frame gap per frame, bytes. */
    uint32_t phyOverheadBytes =
        static_cast<uint32_t>(AttributeDefaultUint("ns3::FabricNetDevice::PhyOverheadBytes"));
    /** After a link goes down or up, routing converges this much later: every switch's
     *  equal-cost table is recomputed over the links that are up (TOML: reconvergence_us;
     *  0 = never, switches only skip their own dead ports). */
    uint64_t reconvergencePs = 1'000'000'000;
    /** A switch port whose link goes down drops its queued frames (LINK_DOWN) rather than
     *  holding them and their buffer (TOML: flush_on_link_down; ns3::SwitchPort::FlushOnLinkDown). */
    bool flushOnLinkDown = AttributeDefaultBool("ns3::SwitchPort::FlushOnLinkDown");
    /** A registered fabric kind (run/fabric-kinds.h; FabricKindOf gives its registration):
     *  "ethernet" (PFC, the shared-buffer MMU) | "infiniband" (credit-based link-level flow
     *  control per VL, no PFC, no drops). */
    std::string kind = "ethernet";
    /** InfiniBand: each port's input buffer per VL, bytes (ns3::FabricNetDevice::VlBufferBytes). */
    uint64_t vlBufferBytes = AttributeDefaultUint("ns3::FabricNetDevice::VlBufferBytes");
    /** InfiniBand: buffer freed to credit update sent, ps (ns3::FabricNetDevice::CreditUpdateLatency). */
    uint64_t creditUpdateLatencyPs = AttributeDefaultPs("ns3::FabricNetDevice::CreditUpdateLatency");
};

/** [buffer]: every switch's shared-buffer MMU (ns3::SharedBufferMmu). */
struct BufferSection
{
    //! switch packet buffer, bytes
    uint64_t totalBytes = AttributeDefaultUint("ns3::SharedBufferMmu::BufferBytes");
    //! guaranteed per ingress port and PG, bytes
    uint64_t reservedBytes = AttributeDefaultUint("ns3::SharedBufferMmu::ReservedBytes");
    //! dynamic (alpha x free) or static thresholds
    bool dynamicThreshold = AttributeDefaultBool("ns3::SharedBufferMmu::DynamicThreshold");
    //! PFC (ingress) dynamic-threshold alpha
    double alpha = AttributeDefaultDouble("ns3::SharedBufferMmu::Alpha");
    //! lossy egress dynamic-threshold alpha
    double egressAlpha = AttributeDefaultDouble("ns3::SharedBufferMmu::EgressAlpha");
    //! thresholds when not dynamic, bytes
    uint64_t staticThresholdBytes =
        AttributeDefaultUint("ns3::SharedBufferMmu::StaticThresholdBytes");
    uint64_t headroomBytes = 0; //!< per port and lossless PG; 0 = automatic (FabricHelper)
    //! XON when shared use <= threshold - offset, bytes
    uint64_t xonOffsetBytes = AttributeDefaultUint("ns3::SharedBufferMmu::XonOffsetBytes");
};

/** [pfc]: IEEE 802.1Qbb priority flow control. */
struct PfcSection
{
    bool enabled = true;                      //!< false: every priority is lossy
    std::vector<uint8_t> losslessPriorities =
        AttributeDefaultPriorities("ns3::SharedBufferMmu::LosslessPriorities");
    //! quanta of 512 bit times per XOFF
    uint16_t pauseQuanta = static_cast<uint16_t>(AttributeDefaultUint("ns3::SwitchNode::PauseQuanta"));
    //! XOFF refresh; 0 = half the pause time
    uint64_t refreshPs = AttributeDefaultPs("ns3::SwitchNode::PauseRefresh");
    //! stop on a PFC deadlock lasting this long; 0 = off (TOML: deadlock_detect_us)
    uint64_t deadlockDetectPs = AttributeDefaultPs("ns3::PfcDeadlockDetector::Threshold");
    //! PFC watchdog; 0 = off (TOML: watchdog_us)
    uint64_t watchdogPs = AttributeDefaultPs("ns3::FabricNetDevice::PfcWatchdogTime");
    //! storm recovery period (TOML: watchdog_recovery_us)
    uint64_t watchdogRecoveryPs = AttributeDefaultPs("ns3::FabricNetDevice::PfcWatchdogRecovery");
    std::string watchdogAction = "drop"; //!< "drop" | "forward" (ignore the pause)
    //! "lossless" (unset) | "lossy": PFC over long-haul links (TOML: long_haul)
    std::optional<std::string> longHaul;
};

/** ECN thresholds for one port rate. */
struct EcnThresholds
{
    uint64_t kminBytes = 100'000;
    uint64_t kmaxBytes = 400'000;
    double pmax = 0.2;
};

/** [ecn]: RED-style ECN marking at switch egress (DCQCN's congestion point). */
struct EcnSection
{
    bool enabled = false;
    //! decide the mark at dequeue, on the bytes behind the frame (TOML: mark_at_dequeue)
    bool markAtDequeue = false;
    EcnThresholds fallback;  //!< kmin_bytes / kmax_bytes / pmax: for rates not in byRate
    /** [[ecn.by_rate]]: thresholds per port rate (bit/s); with entries and no fallback keys,
     *  a port whose rate is missing is an error at load time. */
    std::map<uint64_t, EcnThresholds> byRate;
    bool fallbackGiven = true; //!< false when only by_rate entries were given
    /** Whether the scenario gave any threshold (kmin/kmax/pmax or by_rate). When it did not
     *  and the transport is UEC-style, thresholds follow the specification's recommendation:
     *  Kmin = 0.2 BDP, Kmax = 0.8 BDP per port rate. */
    bool thresholdsGiven = false;
};

/** [dcqcn]: DCQCN reaction point and notification point (when nic.congestion_control = "dcqcn"). */
struct DcqcnSection
{
    std::string preset = "paper"; //!< "paper" | "hpcc": a named set of the values below
    // Explicit values that override the preset (unset = the preset's).
    std::optional<double> g;                  //!< alpha gain
    std::optional<double> initialAlpha;
    std::optional<uint64_t> alphaUpdatePs;    //!< K (TOML: alpha_update_us)
    std::optional<uint64_t> timerPs;          //!< T (TOML: timer_us)
    std::optional<uint64_t> byteCounterBytes; //!< B; 0 disables
    std::optional<uint32_t> fastRecoveryStages; //!< F
    std::optional<uint64_t> rateAiBps;        //!< R_AI (TOML: rate_ai_mbps)
    std::optional<uint64_t> rateHaiBps;       //!< R_HAI (TOML: rate_hai_mbps)
    std::optional<uint64_t> minRateBps;       //!< (TOML: min_rate_mbps)
    std::optional<uint64_t> rateOnFirstCnpBps; //!< (TOML: rate_on_first_cnp_gbps); 0 = cut
    std::optional<bool> clampTargetRate;
    std::optional<uint64_t> minDecreaseIntervalPs; //!< (TOML: min_decrease_interval_us)
    std::optional<bool> alphaOnTimer;    //!< alpha moves only on its K clock (alpha_on_timer)
    std::optional<bool> decreaseOnTimer; //!< cuts only on the decrease clock (decrease_on_timer)
    //! NP: at most one CNP per QP per interval (TOML: cnp_interval_us)
    uint64_t cnpIntervalPs = AttributeDefaultPs("ns3::RdmaNic::CnpInterval");
};

/** [nic]: the RoCEv2 NIC and its RC transport. */
struct NicSection
{
    //! RoCE payload MTU per packet, bytes (256..9000)
    uint32_t mtuBytes = static_cast<uint32_t>(AttributeDefaultUint("ns3::RdmaNic::MtuBytes"));
    //! ACK coalescing: one ACK per this many data packets
    uint32_t ackInterval = static_cast<uint32_t>(AttributeDefaultUint("ns3::RdmaNic::AckInterval"));
    //! retransmission timeout, ps (TOML: rto_us)
    uint64_t rtoPs = AttributeDefaultPs("ns3::RdmaNic::RetransmitTimeout");
    //! QPs per connection; a transfer is split across them
    uint32_t qpsPerConnection =
        static_cast<uint32_t>(AttributeDefaultUint("ns3::WorkloadExecutor::QpsPerConnection"));
    std::string qpScaling = "split"; //!< "split" | "round-robin": how transfers use the QPs
    //! round-robin: largest message per QP, bytes
    uint64_t qpMessageBytes = AttributeDefaultUint("ns3::WorkloadExecutor::QpMessageBytes");
    std::string qpEntropy = "random"; //!< "random" | "sequential" | "shared" UDP source ports
    std::string receiver = "go-back-n"; //!< a RECEIVER loss recovery (loss-recovery-registry.h)
    /** "roce" (RoCEv2 RC), "uec-rod" (UEC-style reliable ordered: one EV per connection,
     *  go-back-N) or "uec-rud" (reliable unordered: an EV per packet from the path selector,
     *  out-of-order placement, SACK, selective retransmission). */
    std::string transport = "roce";
    //! the responder also sends a CNP on out-of-order arrival
    bool cnpOnOutOfOrder = AttributeDefaultBool("ns3::RdmaNic::CnpOnOutOfOrder");
    /** "none" (PFC only) or the name of a registered congestion control: the registry
     *  (ns3-modules/rdma/model/cc/cc-registry.h) is the list, `tusk kinds` prints it, and a
     *  plugin may add to it. */
    std::string congestionControl = "none";
    /** The HPCC simulator's sender window for any control: "none" (HAS_WIN 0), "fixed"
     *  (one BDP) or "variable" (one BDP x rate / line rate, VAR_WIN 1). */
    std::string senderWindow = "none";
    //! UEC-style receiver credits (RCCC), see [rccc]
    bool receiverCredit = AttributeDefaultBool("ns3::RdmaNic::ReceiverCredit");
    uint8_t dataPriority = 3;      //!< traffic class of data packets
    //! traffic class of ACK / NAK / CNP
    uint8_t controlPriority = static_cast<uint8_t>(AttributeDefaultUint("ns3::RdmaNic::ControlPriority"));
    /** Route of the responder's ACK / NAK / CNP (RdmaNic AckRoute): "fixed" (the QP's own
     *  entropy) or "reverse" (the answered data packet's, reversed under source routing),
     *  converted where the key is read; unset = the policy preset's (PolicyInfo::ackRoute),
     *  else fixed. */
    std::optional<ns3::RdmaNic::AckRouteMode> ackRoute;
};

/**
 * The receivers' loss recovery a run uses: the UEC transports fix theirs whatever
 * nic.receiver says (`uec-rud`: "sack-bitmap", selective repeat with SACK bitmaps; `uec-rod`:
 * "go-back-n"), RoCE uses nic.receiver (rdma.md, "UEC-style transport: ROD and RUD").
 */
inline std::string
ReceiverInEffect(const NicSection& nic)
{
    return nic.transport == "uec-rud"   ? "sack-bitmap"
           : nic.transport == "uec-rod" ? "go-back-n"
                                        : nic.receiver;
}

/** [lb]: the switch-side load-balancing policy. */
struct LbSection
{
    std::string policy = "ecmp"; //!< short name ("ecmp", "spray") or a TypeId name
    /** Extra attributes of the policy's TypeId, by attribute name (value as text). */
    std::map<std::string, std::string> attributes;
    /** Host-side path selector: "fixed", "oblivious-spray" or a PathSelector TypeId name;
     *  "" = the policy's own (fixed for switch-only policies). */
    std::string pathSelector;
    /** Every switch gets the same hash seed: reproduces ECMP hash polarisation. */
    bool sameSeedEverywhere = false;
};

/** One explicit flow of [[workload.flows]]. */
struct FlowEntry
{
    uint32_t src = 0;
    uint32_t dst = 0;
    uint64_t bytes = 0;
    uint64_t startPs = 0; //!< TOML: start_us
};

/** One collective of a job's iteration: [[jobs.collectives]]. */
struct JobCollectiveEntry
{
    std::string name;             //!< label in results ("" = the kind)
    std::string kind;             //!< collective kind (canonical name)
    std::string algorithm;        //!< "" = the kind's default
    std::string group = "world";  //!< process group: world, tp, pp, dp, ep, dpep
    uint64_t bytes = 0;           //!< S as nccl-tests uses it, bytes
    uint64_t computePs = 0;       //!< compute before it, ps (TOML: compute_us)
    bool blocking = true;         //!< the next collective waits for it
    uint32_t every = 1;           //!< only in iterations i with (i + 1) % every == 0
    uint32_t root = 0;            //!< broadcast root, incast destination, send-recv sender
    uint32_t peer = 1;            //!< send-recv receiver
    bool shift = true;            //!< send-recv: every rank to the next (pipeline shift)
    uint32_t localSize = 0;       //!< hierarchical-ring ranks per server; 0 = server size
};

/** One training job: [[jobs]]. */
struct JobEntry
{
    std::string name;                  //!< "" = "job<i>"
    uint32_t ranks = 0;                //!< 0 = from hosts (explicit), the SimAI file, or all free hosts
    std::string placement = "contiguous"; //!< contiguous | rack-aware | random | explicit
    std::vector<uint32_t> hosts;       //!< the pool to place on (explicit: rank r on hosts[r]); empty = all free
    uint32_t tp = 1;
    uint32_t pp = 1;
    uint32_t dp = 0;                   //!< 0 = ranks / (tp * pp * ep)
    uint32_t ep = 1;
    uint32_t iterations = 1;
    uint64_t startPs = 0;              //!< TOML: start_us
    uint64_t computePs = 0;            //!< compute at the start of every iteration (TOML: compute_us)
    uint32_t syncEvery = 1;            //!< DiLoCo H: dp / dpep collectives every H iterations
    uint32_t channels = 1;             //!< NCCL-like channels per collective
    uint64_t chunkBytes = 0;           //!< pipelining slice size; 0 = one slice per op
    uint32_t maxSlices = 64;
    uint32_t qpsPerConnection = 0;     //!< 0 = nic.qps_per_connection
    std::string ringOrder = "rank";    //!< "rank" | "rail-aligned"
    std::string file;                  //!< SimAI workload file (absolute after loading)
    std::vector<JobCollectiveEntry> collectives;
};

/** Poisson background traffic: [[background]]. */
struct BackgroundEntry
{
    std::vector<uint32_t> hosts;  //!< empty = all hosts
    double load = 0.3;            //!< offered load per host, fraction of its link rate
    std::string cdfFile;          //!< flow-size CDF (HPCC format), absolute after loading
    uint64_t startPs = 0;         //!< TOML: start_us
    uint64_t durationPs = 1'000'000'000; //!< arrivals during this long (TOML: duration_us)
    int32_t priority = -1;        //!< traffic class; -1 = nic.data_priority
    uint32_t qps = 1;             //!< QPs per flow
    uint64_t seed = 0;            //!< 0 = derived from the run seed and the entry's index
    /** Sizes to whole bytes: "up" (ns3::CdfSizeRounding::Exact) or "hpcc"
     *  (ns3::CdfSizeRounding::HpccTruncate, HPCC traffic_gen.py's truncation). */
    std::string sizeRounding = "up";
};

/** [scale_up]: the NVLink-like domain inside servers (ns3::ScaleUpDomain). */
struct ScaleUpSection
{
    /** Hosts per server (server = host / this); 1 = no scale-up domain (tusk's default: the
     *  ScaleUpDomain's own GpusPerServer applies only once a scenario asks for a domain). */
    uint32_t gpusPerServer = 1;
    //! per GPU and direction, bit/s (TOML: link_gbps)
    uint64_t rateBps = AttributeDefaultBps("ns3::ScaleUpDomain::Rate");
    //! GPU to GPU, ps (TOML: latency_ns)
    uint64_t latencyPs = AttributeDefaultPs("ns3::ScaleUpDomain::Latency");
};

/** [probes]: active monitoring probes between NICs (tusk/run/probe-mesh.h, probes.csv). */
struct ProbesSection
{
    /** Each host sends one probe per interval, ps (TOML: interval_us); 0 = no probes. */
    uint64_t intervalPs = 0;
    uint32_t targets = 8;    //!< hosts each host probes (drawn at random; all others if fewer)
    uint32_t entropies = 8;  //!< UDP source ports (paths) per target
    uint32_t frameBytes = 64; //!< a probe's bytes on the wire (TOML: bytes)
    /** A second, larger probe's bytes on the wire (TOML: large_bytes); 0 = none. */
    uint32_t largeBytes = 0;
    /** Each host sends one large probe per interval, ps (TOML: large_interval_us); > 0
     *  exactly when largeBytes is. */
    uint64_t largeIntervalPs = 0;
    /** "periodic" (one per interval) | "poisson" (exponential gaps of mean the interval). */
    std::string spacing = "periodic";
    /** A probe not arrived this long after it was sent when the run ends is lost; a later
     *  one is not judged (TOML: timeout_us); 0 = four of the longest base RTTs, at least
     *  100 µs. */
    uint64_t timeoutPs = 0;
    /** No probe is sent at or after this run time, ps (TOML: until_us); 0 = until the
     *  workload is done. */
    uint64_t untilPs = 0;
};

/** [workload] */
struct WorkloadSection
{
    /** "ring-allreduce" | "permutation" | "incast" | "htsim" | "flows" | "jobs" | "hpcc" |
     *  "chakra" */
    std::string kind = "ring-allreduce";
    uint64_t bytes = 64ULL << 20; //!< per-rank buffer S (collectives) or bytes per flow
    /** Hosts taking part; empty = all hosts (0..N-1) in order. */
    std::vector<uint32_t> hosts;
    uint32_t channels = 1;        //!< ring-allreduce, chakra: NCCL-like channels, each with its own QP
    uint32_t incastDst = 0;       //!< incast: destination host; senders = hosts minus dst
    uint64_t startPs = 0;         //!< start time of the generated traffic (TOML: start_us)
    std::string file;             //!< kind = "htsim" / "hpcc": .cm or flow.txt path (absolute after loading)
    std::vector<FlowEntry> flows; //!< kind = "flows"
    /** kind = "chakra": a folder of <prefix>.<rank>.et files or a pattern with %d (absolute
     *  after loading; TOML: trace). */
    std::string trace;
    /** kind = "chakra": communicator groups by pg_name, the ranks of each (TOML: comm_groups). */
    std::map<std::string, std::vector<uint32_t>> commGroups;
    /** kind = "chakra": collective algorithm ("" = each kind's default, "auto" = NCCL's
     *  choice; a name a kind lacks leaves that kind at its default). */
    std::string algorithm;
    /** Watchdog: no progress for this long stops the run and names what is stuck, ps
     *  (TOML: watchdog_ms); 0 = off. tusk's own default (20 ms): the executor's StallTimeout
     *  is off unless set, which suits programs that drive it themselves. */
    uint64_t watchdogPs = 20'000'000'000ULL;
};

/** [output] */
struct OutputSection
{
    std::string dir;      //!< results directory; empty = results/<name>/<policy>-s<seed>
    bool pcap = false;    //!< write one pcap per host NIC (RoCEv2, opens in Wireshark)
    uint64_t samplePs = 0; //!< timeseries.csv sampling interval, ps (TOML: sample_us); 0 = off
    bool ccTrace = false;  //!< write cc_trace.csv: every QP's congestion-control state changes
    /** write paths.csv: per sending QP and entropy value, its packets, RTTs, marks, losses and
     *  links (path-telemetry.h) */
    bool pathTelemetry = false;
    /** path_telemetry = "route": paths.csv per (QP, entropy, delivered route) as well
     *  (path-telemetry.h); implies pathTelemetry */
    bool pathTelemetryRoutes = false;
    /** write ar.csv: per switch and egress port, how often its load balancer chose the port
     *  among equal-cost candidates and why (ar-telemetry.h) */
    bool arTelemetry = false;
    /** write drops.csv: every frame a port dropped, when, where and why */
    bool dropLog = false;
    /** Other tools' per-flow outputs to write besides tusk's tables: "hpcc" (fct.txt, pfc.txt
     *  as the HPCC simulator writes them), "htsim" (htsim_flows.txt: htsim's flow-finish
     *  lines); tool-outputs.h. */
    std::vector<std::string> formats;
    /** "all" (flows.csv and waits.csv: a row per transfer and per collective step and rank) |
     *  "summary" (neither file written, nor their rows' text built; the run summary, the
     *  manifest, collectives.csv, jobs.csv and links.csv the same). */
    std::string flowRows = "all";
};

/** [simulator]: the simulation kernel. */
struct SimulatorSection
{
    /** ns-3 event scheduler: "timing-wheel" (ns3::TimingWheelScheduler) | "map" | "heap" |
     *  "calendar" | "list" | "priority-queue" (ns-3's own). Any of them gives the same results;
     *  they differ in speed and memory (docs/performance.md). */
    std::string scheduler = "timing-wheel";
    /** ns-3 simulator implementation: "lean" (ns3::LeanSimulatorImpl, tusk's single-threaded
     *  kernel) | "default" (ns3::DefaultSimulatorImpl). Both give the same results. */
    std::string implementation = "lean";
    /** "packet" (every packet simulated) | "fast" (job iterations replayed from a memo of an
     *  earlier one where that is exact or steady within tolerance; docs/fast-mode.md). */
    std::string mode = "packet";
    /** Sample the fabric every window and judge whether it is steady, to measure what a
     *  steady-state fast-forward could skip (the manifest's "steady_probe"); results are
     *  unchanged (docs/fast-mode.md). */
    bool steadyProbe = false;
    /** The probe's window W, ps; 0 = four of the longest base RTTs among the path classes or
     *  two of the congestion control's rate-timer periods, the longer. */
    uint64_t steadyWindowPs = 0;
    /** K: the windows that must agree before the fabric counts as steady. */
    uint32_t steadyWindows = 3;
    /** The relative variation of rates, queues and congestion-control state allowed. */
    double steadyTolerance = 0.02;
    /** Steady-state jumps: "auto" (on in fast mode with the lean kernel, off otherwise) |
     *  "on" | "off". When the whole fabric has been steady for steadyWindows windows, skip
     *  simulated time, taking out the packets its transfers would send and counting them
     *  delivered (docs/fast-mode.md, "The jump"). Runs the probe's windows. */
    std::string steadyJump = "auto";
    /** The longest jump, in spans of steadyWindows windows: a jump starts at one span and
     *  doubles while the K windows after it agree with the K before, up to this. */
    uint32_t steadyJumpSpans = 1024;

    /** Whether this run jumps (steadyJump resolved). */
    bool Jumps() const
    {
        return steadyJump == "on" ||
               (steadyJump == "auto" && mode == "fast" && implementation == "lean");
    }
};

/** ns-3 TypeId of a simulator.scheduler name (one of SchedulerNames()). */
std::string SchedulerTypeId(const std::string& name);
/** The simulator.scheduler names, default first. */
const std::vector<std::string>& SchedulerNames();
/** ns-3 TypeId of a simulator.implementation name (one of SimulatorImplNames()). */
std::string SimulatorImplTypeId(const std::string& name);
/** The simulator.implementation names, default first. */
const std::vector<std::string>& SimulatorImplNames();

/**
 * One [[failures]] entry: what fails (a link, a switch or a host's NIC), how, and when. Kinds:
 * "link_down" | "link_up" | "degrade" | "loss" | "gray" | "flap" | "switch_down" | "switch_up"
 * | "nic_down" | "nic_up" (section-failures.cc documents each).
 */
struct FailureEntry
{
    uint64_t atPs = 0;          //!< TOML: at_us
    std::string kind;           //!< see above
    std::string link;           //!< link kinds: "<from>-<to>", vertex names as in links.csv
    std::string switchName;     //!< switch_down / switch_up: the switch's name (TOML: switch)
    std::optional<uint32_t> host;        //!< nic_down / nic_up: the host id
    std::optional<uint32_t> rateDivisor; //!< degrade: the rate becomes the configured rate / this
    std::optional<uint64_t> rateBps;     //!< degrade: the rate becomes this, bit/s (TOML: rate_gbps)
    std::optional<double> lossRate;      //!< loss / gray: probability per frame (0..1)
    std::optional<double> hashFraction;  //!< gray: fraction of the hash buckets that are bad
    std::optional<uint64_t> periodPs;    //!< flap: one down/up cycle (TOML: period_us)
    std::optional<uint64_t> downPs;      //!< flap: the down part of each cycle (TOML: down_us)
    /** When it ends (the repair; flap: no cycle starts at or after it), ps (TOML: until_us). */
    std::optional<uint64_t> untilPs;
    std::optional<uint32_t> count;       //!< flap: number of down/up cycles
    std::optional<uint32_t> drawnFrom;   //!< drawn from [[failure_rates]] entry i
    unsigned line = 0;          //!< line of the entry in the scenario file (errors)
};

/**
 * One [[failure_rates]] entry: every component of a kind fails at random over the run, as a
 * Poisson process of mean time between failures mtbf_us, each failure repaired duration_us
 * later. The runner draws them (seeded, DrawFailures) into [[failures]] entries.
 */
struct FailureRateEntry
{
    std::string component;      //!< "link" | "switch" | "nic"
    std::string kind;           //!< link: "link_down" | "degrade" | "loss"; switch_down; nic_down
    uint64_t mtbfPs = 0;        //!< mean time between failures of one component (TOML: mtbf_us)
    uint64_t durationPs = 0;    //!< time to repair (TOML: duration_us); 0 = never repaired
    std::optional<uint32_t> rateDivisor; //!< kind = "degrade"
    std::optional<uint64_t> rateBps;     //!< kind = "degrade" (TOML: rate_gbps)
    std::optional<double> lossRate;      //!< kind = "loss"
    std::string links = "all";  //!< component = "link": "all" | "host" | "fabric"
    unsigned line = 0;
};

/** The whole scenario. */
struct ScenarioSpec
{
    std::string name = "scenario";
    std::string sourceFile;       //!< the TOML file it was read from ("" = built-in)
    uint64_t seed = 1;            //!< run seed: ns-3 RngRun and every derived seed
    uint64_t stopTimePs = 1'000'000'000'000ULL; //!< simulated-time limit, ps (TOML: stop_time_ms)
    bool requireFinish = true;    //!< unfinished transfers at the stop time are an error (exit 1)
    TopologySection topology;
    FabricSection fabric;
    NicSection nic;
    BufferSection buffer;
    PfcSection pfc;
    EcnSection ecn;
    DcqcnSection dcqcn;
    LbSection lb;
    WorkloadSection workload;
    std::vector<JobEntry> jobs;             //!< [[jobs]] (workload.kind = "jobs")
    std::vector<BackgroundEntry> background; //!< [[background]], with any workload kind
    ScaleUpSection scaleUp;                 //!< [scale_up]
    ProbesSection probes;                   //!< [probes]
    std::vector<FailureEntry> failures;     //!< [[failures]], applied by the runner
    std::vector<FailureRateEntry> failureRates; //!< [[failure_rates]], drawn into failures
    OutputSection output;
    SimulatorSection simulator;
    /** [hpcc], [timely], [swift], [dctcp], [nscc], [rccc] (section-cc.cc): "section.key" ->
     *  value in the key's unit, booleans as 0 / 1; a key not given is its attribute's initial
     *  value. */
    std::map<std::string, double> ccSettings;
    /** Keys whose value came from `--hpcc-config` -> "file:line KEY value". */
    std::map<std::string, std::string> imported;
    /** [ns3] section: ns-3 attribute defaults by path, e.g. "ns3::RdmaNic::AckInterval". */
    std::map<std::string, std::string> ns3Defaults;

    /** Line of each key in sourceFile ("workload.hosts" -> 12), so that errors found after
     *  loading (a host id beyond the topology, say) can still name file, line and key. */
    std::map<std::string, unsigned> keyLines;

    unsigned LineOf(const std::string& key) const
    {
        auto it = keyLines.find(key);
        return it == keyLines.end() ? 0 : it->second;
    }

    /** Where `key`'s value came from, for an error found after loading: "--set" when a
     *  `--set key=value` override gave it (its line is then 0), else sourceFile. */
    std::string FileOf(const std::string& key) const
    {
        auto it = keyLines.find(key);
        return it != keyLines.end() && it->second == 0 ? std::string("--set") : sourceFile;
    }

    /** An error in `key`'s value found after loading, where the value came from: the file
     *  and line, or --set. */
    ns3::InputError KeyError(const std::string& key, const std::string& message) const
    {
        return ns3::InputError(FileOf(key), LineOf(key), key, message);
    }
};

} // namespace tusk

#endif
