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

#include "fabric/helper/topology-builders.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tusk
{

/** [topology] */
struct TopologySection
{
    std::string kind = "leaf-spine"; //!< "leaf-spine" | "fat-tree" | "htsim"
    ns3::LeafSpineParams leafSpine;  //!< kind = "leaf-spine"
    ns3::FatTreeParams fatTree;      //!< kind = "fat-tree"
    std::string file;                //!< kind = "htsim": .topo path (absolute after loading)
};

/** [fabric]: switch and link parameters. */
struct FabricSection
{
    uint64_t portQueueBytes = 8ULL << 20; //!< egress buffer per switch port, bytes
    uint32_t phyOverheadBytes = 20;       //!< preamble + SFD + inter-frame gap per frame, bytes
};

/** [nic]: the RoCEv2 NIC and its RC transport. */
struct NicSection
{
    uint32_t mtuBytes = 4096;      //!< RoCE payload MTU per packet, bytes (256..9000)
    uint32_t ackInterval = 1;      //!< ACK coalescing: one ACK per this many data packets
    uint64_t rtoPs = 1'000'000'000; //!< retransmission timeout, ps (TOML: rto_us)
    uint32_t qpsPerConnection = 1; //!< QPs per connection; a transfer is split across them
    std::string congestionControl = "none"; //!< "none" (PFC only) for now
    uint8_t dataPriority = 3;      //!< traffic class of data packets
    uint8_t controlPriority = 7;   //!< traffic class of ACK / NAK / CNP
};

/** [lb]: the switch-side load-balancing policy. */
struct LbSection
{
    std::string policy = "ecmp"; //!< short name ("ecmp", "spray") or a TypeId name
    /** Extra attributes of the policy's TypeId, by attribute name (value as text). */
    std::map<std::string, std::string> attributes;
};

/** One explicit flow of [[workload.flows]]. */
struct FlowEntry
{
    uint32_t src = 0;
    uint32_t dst = 0;
    uint64_t bytes = 0;
    uint64_t startPs = 0; //!< TOML: start_us
};

/** [workload] */
struct WorkloadSection
{
    /** "ring-allreduce" | "permutation" | "incast" | "htsim" | "flows" */
    std::string kind = "ring-allreduce";
    uint64_t bytes = 64ULL << 20; //!< per-rank buffer S (collectives) or bytes per flow
    /** Hosts taking part; empty = all hosts (0..N-1) in order. */
    std::vector<uint32_t> hosts;
    uint32_t channels = 1;        //!< ring-allreduce: NCCL-like channels, each with its own QP
    uint32_t incastDst = 0;       //!< incast: destination host; senders = hosts minus dst
    uint64_t startPs = 0;         //!< start time of the generated traffic (TOML: start_us)
    std::string file;             //!< kind = "htsim": .cm path (absolute after loading)
    std::vector<FlowEntry> flows; //!< kind = "flows"
};

/** [output] */
struct OutputSection
{
    std::string dir;      //!< results directory; empty = results/<name>/<policy>-s<seed>
    bool pcap = false;    //!< write one pcap per host NIC (RoCEv2, opens in Wireshark)
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
    LbSection lb;
    WorkloadSection workload;
    OutputSection output;
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
};

} // namespace tusk

#endif
