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
    EqualCostTable routes;
    std::vector<std::vector<uint32_t>> ports; //!< IncidentLinks(graph)
    NodeContainer hostNodes;                  //!< host i is hostNodes.Get(i)
    std::vector<Ptr<FabricNetDevice>> hostNics;
    std::vector<Ptr<SwitchNode>> switches;    //!< switch s is vertex numHosts + s
    std::vector<FabricLink> links;

    /** Every distinct (rate, delay) sequence of the minimum-hop paths src -> dst. */
    std::vector<std::vector<PathHop>> PathProfiles(uint32_t src, uint32_t dst) const;
    /** The smallest ideal FCT over the minimum-hop paths from src to dst (ps). */
    uint64_t IdealFctPs(uint32_t src, uint32_t dst, uint64_t bytes, const Framing& framing) const;
    /** Minimum number of links between two hosts. */
    uint32_t HopCount(uint32_t src, uint32_t dst) const;

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

    FabricHelper();
    void SetPortAttribute(const std::string& name, const AttributeValue& value);
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);
    /** \throws InputError if `typeId` is not a LoadBalancer or an attribute does not apply */
    void SetLoadBalancer(const std::string& typeId, const std::map<std::string, std::string>& attributes);
    /** Base for per-switch hash seeds. With sameSeedEverywhere, every switch gets `seed`. */
    void SetSeed(uint64_t seed, bool sameSeedEverywhere = false);
    void SetPhyOverheadBytes(uint32_t bytes) { m_phyOverhead = bytes; }

    /**
     * \param streamBase first random stream number; returns streams used via `streamsUsed`
     */
    Fabric Build(const TopologyGraph& graph, const NicFactory& makeNic, int64_t streamBase,
                 int64_t* streamsUsed = nullptr);

  private:
    ObjectFactory m_portFactory;
    ObjectFactory m_switchFactory;
    ObjectFactory m_lbFactory;
    uint64_t m_seed = 1;
    bool m_sameSeed = false;
    uint32_t m_phyOverhead = 20;
};

} // namespace ns3

#endif
