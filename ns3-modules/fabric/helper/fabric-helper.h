/*
 * tusk: FabricHelper, turns a TopologyGraph into ns-3 nodes, ports, channels and forwarding
 * tables, and answers path questions (ideal FCT) about what it built.
 */
#ifndef TUSK_FABRIC_HELPER_H
#define TUSK_FABRIC_HELPER_H

#include "topology-builders.h"

#include "fabric/model/fabric-channel.h"
#include "fabric/model/ideal-fct.h"
#include "fabric/model/switch-node.h"

#include "ns3/node-container.h"
#include "ns3/object-factory.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/** One built link: both devices and where they sit. */
struct FabricLink
{
    uint32_t graphLink;       //!< index into TopologyGraph::links
    Ptr<FabricNetDevice> devA; //!< at vertex links[graphLink].a
    Ptr<FabricNetDevice> devB; //!< at vertex links[graphLink].b
    Ptr<FabricChannel> channel;
};

/** Everything FabricHelper::Build made. */
struct Fabric
{
    TopologyGraph graph;
    std::shared_ptr<const EqualCostTable> routes; //!< every switch's forwarding table
    std::vector<std::vector<uint32_t>> ports; //!< IncidentLinks(graph)
    NodeContainer hostNodes;                  //!< host i is hostNodes.Get(i)
    std::vector<Ptr<FabricNetDevice>> hostNics;
    std::vector<Ptr<SwitchNode>> switches;    //!< switch s is vertex numHosts + s
    std::vector<FabricLink> links;

    /** Every distinct (rate, delay) sequence of the minimum-hop paths src -> dst. In a
     *  multi-plane fabric of N planes (ReplicatePlanes, all alike): plane 0's paths with every
     *  rate times N, the NIC sending on all its ports at once. */
    std::vector<std::vector<PathHop>> PathProfiles(uint32_t src, uint32_t dst) const;
    /** The smallest ideal FCT over the minimum-hop paths from src to dst (ps). */
    uint64_t IdealFctPs(uint32_t src, uint32_t dst, uint64_t bytes, const Framing& framing) const;
    /** As IdealFctPs, for a sequence of packets (IdealFctPsOfPackets). */
    uint64_t IdealFctPsOfPackets(uint32_t src, uint32_t dst, const std::vector<uint32_t>& payloads,
                                 const Framing& framing) const;
    /** Minimum number of links between two hosts. */
    uint32_t HopCount(uint32_t src, uint32_t dst) const;
    /**
     * \brief The links (graph link indices, in the order crossed) of the path a frame from
     * host `src` took, from its FrameMeta::path as the receiver saw it: the host's link, then at
     * each switch the egress port read from the next PathHopBits(ports) bits (port p of vertex
     * v is ports[v][p]), until a host is reached.
     * \return false (and `links` partial) if the code leads nowhere: a port index a switch does
     * not have, or more than 64 hops (kUnknownPath, a path that did not fit, also gives false);
     * false for a host with several links (a multi-plane fabric: the code does not say which)
     */
    bool DecodePath(uint32_t src, uint64_t path, std::vector<uint32_t>& links) const;
    /**
     * \brief Traceroute: the links (graph link indices, in the order crossed) a probe with
     * `probe`'s headers (srcHost, dstHost, UDP ports, dstQp, priority; ttl as the host sends
     * it) leaving host probe.srcHost by its port `hostPort` would take now, from each switch's
     * forwarding: its table's equal-cost ports whose link is up and its load balancer's choice
     * for those headers (SwitchNode::ProbeEgress), the TTL decremented per switch as the
     * ports do. Reads no counter, queue or failure: only the forwarding function, as a
     * traceroute with the same headers learns it (007, Arzani et al., NSDI 2018).
     * \return false (and `links` partial) when a switch cannot say (an adaptive or random
     * policy: the probe's path is not determined), has no usable route, or the walk exceeds
     * 64 hops; true when it reached host probe.dstHost
     */
    bool TracePath(const FrameMeta& probe, uint32_t hostPort, std::vector<uint32_t>& links) const;

  private:
    mutable std::map<std::pair<uint32_t, uint32_t>, std::vector<std::vector<PathHop>>> m_profileCache;
};

/**
 * \brief Builds a fabric. Switch ports are `ns3::SwitchPort` objects configured through
 * SetPortAttribute; each switch gets its own LoadBalancer from SetLoadBalancer's TypeId, with
 * a per-switch "Seed" attribute (if the policy has one) derived from SetSeed, and its own
 * random stream.
 */
class FabricHelper
{
  public:
    /** Creates a host's NIC (the rdma module's RdmaNic) for host id `host`. */
    using NicFactory = std::function<Ptr<FabricNetDevice>(uint32_t host)>;

    /** Creates port `port` (>= 1) of host `host`, for a host with more than one link (a
     *  multi-plane fabric: port k is its link into plane k); port 0 is the NicFactory's NIC. */
    using HostPortFactory = std::function<Ptr<FabricNetDevice>(uint32_t host, uint32_t port)>;

    FabricHelper();
    /** Set the HostPortFactory; without one, Build aborts on a host with several links. */
    void SetHostPortFactory(HostPortFactory factory) { m_hostPortFactory = std::move(factory); }
    void SetPortAttribute(const std::string& name, const AttributeValue& value);
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \throws InputError key "LoadBalancer" if `typeId` is not a LoadBalancer, key
     * "<typeId>::<attribute>" if an attribute does not exist or does not take its value
     */
    void SetLoadBalancer(const std::string& typeId, const std::map<std::string, std::string>& attributes);
    /** Base for per-switch hash seeds. With sameSeedEverywhere, every switch gets `seed`. */
    void SetSeed(uint64_t seed, bool sameSeedEverywhere = false);
    void SetPhyOverheadBytes(uint32_t bytes) { m_phyOverhead = bytes; }
    /** An attribute of every switch's ns3::SharedBufferMmu. */
    void SetMmuAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \brief PFC headroom per ingress port and lossless PG. 0 (default) = automatic:
     * 2 x (link delay x rate) + 2 x 9216 B (a jumbo frame in flight each way) + 84 B (the
     * PAUSE frame), the classic sizing (Cisco/Broadcom headroom guides; oracle 12).
     */
    void SetHeadroomBytes(uint64_t bytes) { m_headroomBytes = bytes; }
    /**
     * \brief Run the ports of long-haul links (TopoLink::longHaul) lossy: no PFC headroom, no
     * PAUSE to the far end, frames crossing them dropped at the egress threshold
     * (SharedBufferMmu::SetLossyPort). Default false: long-haul ports get headroom like any
     * other port (automatic headroom over distance is a full bandwidth-delay product, oracle 22).
     */
    void SetLossyLongHaul(bool lossy) { m_lossyLongHaul = lossy; }
    /** ECN marking thresholds for ports of a given line rate. */
    struct EcnConfig
    {
        uint64_t kminBytes;
        uint64_t kmaxBytes;
        double pmax;
    };
    /**
     * \brief Enable ECN marking on every switch port, with thresholds per port rate: `byRate`
     * maps a port rate (bit/s) to its thresholds, `fallback` applies to rates not in the map.
     * Sets each port's EcnMarking, EcnKminBytes, EcnKmaxBytes and EcnPmax attributes; without
     * this call the ports keep those attributes' defaults (ns3::SwitchPort::Ecn*).
     * \throws InputError naming `key` if a built port's rate is in neither (useFallback false).
     */
    void SetEcn(const std::map<uint64_t, EcnConfig>& byRate, const EcnConfig& fallback,
                bool useFallback, const std::string& key);
    /**
     * \brief Build an InfiniBand fabric: every link runs credit-based link-level flow
     * control per VL (FabricNetDevice::EnableCreditFlowControl on both ends, with the
     * devices' VlBufferBytes and CreditUpdateLatency) and every switch forwards without its
     * MMU's admission or PFC (SwitchNode::EnableCreditFlowControl). Default: Ethernet.
     */
    void SetCreditFlowControl(bool on) { m_credits = on; }
    /** Automatic headroom for a port of this rate and link delay, bytes. */
    static uint64_t AutoHeadroomBytes(uint64_t rateBps, uint64_t delayPs);

    /**
     * \param streamBase first random stream number; returns streams used via `streamsUsed`
     * \throws InputError key "ns3::SharedBufferMmu::BufferBytes" if a switch's headroom and
     *         reserved space leave no shared buffer; the SetEcn key for a port rate without
     *         ECN thresholds
     */
    Fabric Build(const TopologyGraph& graph, const NicFactory& makeNic, int64_t streamBase,
                 int64_t* streamsUsed = nullptr);

  private:
    ObjectFactory m_portFactory;
    HostPortFactory m_hostPortFactory;
    ObjectFactory m_switchFactory;
    ObjectFactory m_lbFactory;
    uint64_t m_seed = 1;
    bool m_sameSeed = false;
    ObjectFactory m_mmuFactory;
    uint64_t m_headroomBytes = 0;
    bool m_lossyLongHaul = false;
    bool m_ecn = false;
    std::map<uint64_t, EcnConfig> m_ecnByRate;
    EcnConfig m_ecnFallback{0, 0, 0};
    bool m_ecnUseFallback = true;
    std::string m_ecnKey;
    uint32_t m_phyOverhead = 20;
    bool m_credits = false;
};

} // namespace ns3

#endif
