#include "fabric-helper.h"

#include "multi-plane.h"
#include "attribute-text.h"
#include "fabric/model/fabric-units.h"
#include "fabric/model/input-error.h"

#include "ns3/data-rate.h"
#include "ns3/hash.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <set>

namespace ns3
{

FabricHelper::FabricHelper()
{
    m_portFactory.SetTypeId("ns3::SwitchPort");
    m_switchFactory.SetTypeId("ns3::SwitchNode");
    m_lbFactory.SetTypeId("ns3::EcmpLoadBalancer");
    m_mmuFactory.SetTypeId("ns3::SharedBufferMmu");
}

void
FabricHelper::SetMmuAttribute(const std::string& name, const AttributeValue& value)
{
    m_mmuFactory.Set(name, value);
}

void
FabricHelper::SetEcn(const std::map<uint64_t, EcnConfig>& byRate,
                     const EcnConfig& fallback,
                     bool useFallback,
                     const std::string& key)
{
    m_ecn = true;
    m_ecnByRate = byRate;
    m_ecnFallback = fallback;
    m_ecnUseFallback = useFallback;
    m_ecnKey = key;
}

uint64_t
FabricHelper::AutoHeadroomBytes(uint64_t rateBps, uint64_t delayPs)
{
    const unsigned __int128 bdpBits = static_cast<unsigned __int128>(rateBps) * delayPs / 1'000'000'000'000ULL;
    return static_cast<uint64_t>(2 * bdpBits / 8) + 2 * 9216 + 84;
}

void
FabricHelper::SetPortAttribute(const std::string& name, const AttributeValue& value)
{
    m_portFactory.Set(name, value);
}

void
FabricHelper::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    m_switchFactory.Set(name, value);
}

void
FabricHelper::SetLoadBalancer(const std::string& typeId,
                              const std::map<std::string, std::string>& attributes)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeId, &tid) ||
        !tid.IsChildOf(TypeId::LookupByName("ns3::LoadBalancer")))
    {
        throw InputError("", 0, "LoadBalancer", "'" + typeId + "' is not a LoadBalancer TypeId");
    }
    m_lbFactory = ObjectFactory();
    m_lbFactory.SetTypeId(tid);
    for (const auto& [name, value] : attributes)
    {
        TypeId::AttributeInformation info;
        if (!tid.LookupAttributeByName(name, &info))
        {
            throw InputError("", 0, typeId + "::" + name,
                             "policy " + typeId + " has no attribute '" + name + "'");
        }
        std::string why;
        Ptr<AttributeValue> v = ParseAttributeText(info, value, why);
        if (!v)
        {
            throw InputError("", 0, typeId + "::" + name, typeId + "::" + name + ": " + why);
        }
        m_lbFactory.Set(name, *v);
    }
}

void
FabricHelper::SetSeed(uint64_t seed, bool sameSeedEverywhere)
{
    m_seed = seed;
    m_sameSeed = sameSeedEverywhere;
}

Fabric
FabricHelper::Build(const TopologyGraph& graph,
                    const NicFactory& makeNic,
                    int64_t streamBase,
                    int64_t* streamsUsed)
{
    EnsurePicosecondResolution();
    Fabric f;
    f.graph = graph;
    f.ports = IncidentLinks(graph);
    f.routes = std::make_shared<const EqualCostTable>(ComputeEqualCostPorts(graph));
    const uint32_t nHosts = graph.numHosts;
    const uint32_t nSwitches = graph.NumSwitches();

    f.hostNodes.Create(nHosts);
    f.hostNics.resize(nHosts);
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        f.hostNics[h] = makeNic(h);
        f.hostNodes.Get(h)->AddDevice(f.hostNics[h]);
    }
    TypeId lbTid = m_lbFactory.GetTypeId();
    TypeId::AttributeInformation seedInfo;
    const bool hasSeed = lbTid.LookupAttributeByName("Seed", &seedInfo);
    int64_t stream = streamBase;
    m_switchFactory.Set("ForwardingLatency", TimeValue(PicoSeconds(graph.switchLatencyPs)));
    // One pool for the frames of every egress queue of the fabric (SwitchNode::SetFramePool).
    auto framePool = Create<SwitchPort::FramePool>();
    for (uint32_t s = 0; s < nSwitches; ++s)
    {
        Ptr<SwitchNode> sw = m_switchFactory.Create<SwitchNode>();
        sw->SetSwitchId(s);
        sw->SetFramePool(framePool);
        if (hasSeed)
        {
            uint32_t seed = static_cast<uint32_t>(m_seed);
            if (!m_sameSeed)
            {
                const uint64_t key[2] = {m_seed, s};
                seed = Hash32(reinterpret_cast<const char*>(key), sizeof(key));
            }
            m_lbFactory.Set("Seed", UintegerValue(seed));
        }
        Ptr<LoadBalancer> lb = m_lbFactory.Create<LoadBalancer>();
        stream += lb->AssignStreams(stream);
        sw->SetLoadBalancer(lb);
        f.switches.push_back(sw);
    }
    // Ports in IncidentLinks order, so that port p of a vertex is ports[v][p].
    std::vector<std::vector<Ptr<FabricNetDevice>>> devs(graph.vertices.size());
    for (uint32_t v = 0; v < graph.vertices.size(); ++v)
    {
        for (uint32_t li : f.ports[v])
        {
            const TopoLink& l = graph.links[li];
            if (graph.vertices[v].kind == TopoVertex::HOST)
            {
                // Port 0 is the NIC; a host with more links (one per plane of a multi-plane
                // fabric) gets its further ports from the host port factory.
                NS_ABORT_MSG_IF(devs[v].size() > 0 && !m_hostPortFactory,
                                "host " << v << " has more than one link and no host port factory");
                Ptr<FabricNetDevice> nic =
                    devs[v].empty()
                        ? f.hostNics[v]
                        : m_hostPortFactory(v, static_cast<uint32_t>(devs[v].size()));
                if (!devs[v].empty())
                {
                    f.hostNodes.Get(v)->AddDevice(nic);
                }
                nic->SetAttribute("DataRate", DataRateValue(DataRate(l.rateBps)));
                nic->SetAttribute("PhyOverheadBytes", UintegerValue(m_phyOverhead));
                devs[v].push_back(nic);
                continue;
            }
            Ptr<SwitchPort> port = m_portFactory.Create<SwitchPort>();
            port->SetAttribute("DataRate", DataRateValue(DataRate(l.rateBps)));
            port->SetAttribute("PhyOverheadBytes", UintegerValue(m_phyOverhead));
            f.switches[v - nHosts]->AddPort(port);
            stream += port->AssignStreams(stream);
            if (m_ecn)
            {
                auto it = m_ecnByRate.find(l.rateBps);
                if (it == m_ecnByRate.end() && !m_ecnUseFallback)
                {
                    throw InputError("", 0, m_ecnKey,
                                     "no ECN thresholds for ports of " +
                                         std::to_string(l.rateBps / 1e9) +
                                         " Gb/s; add this rate to the table");
                }
                const EcnConfig& c = it == m_ecnByRate.end() ? m_ecnFallback : it->second;
                port->SetEcn(true, c.kminBytes, c.kmaxBytes, c.pmax);
            }
            devs[v].push_back(port);
        }
    }
    f.links.reserve(graph.links.size());
    std::vector<uint32_t> next(graph.vertices.size(), 0);
    for (uint32_t li = 0; li < graph.links.size(); ++li)
    {
        const TopoLink& l = graph.links[li];
        Ptr<FabricChannel> ch = CreateObject<FabricChannel>();
        ch->SetAttribute("Delay", TimeValue(PicoSeconds(l.delayPs)));
        Ptr<FabricNetDevice> a = devs[l.a][next[l.a]++];
        Ptr<FabricNetDevice> b = devs[l.b][next[l.b]++];
        a->Attach(ch);
        b->Attach(ch);
        f.links.push_back(FabricLink{li, a, b, ch});
    }
    for (uint32_t s = 0; s < nSwitches; ++s)
    {
        Ptr<SwitchNode> sw = f.switches[s];
        sw->SetForwardingTable(f.routes, s);
        sw->FinishPorts();
        Ptr<SharedBufferMmu> mmu = m_mmuFactory.Create<SharedBufferMmu>();
        const uint32_t v = nHosts + s;
        if (graph.vertices[v].bufferBytes > 0)
        {
            mmu->SetAttribute("BufferBytes", UintegerValue(graph.vertices[v].bufferBytes));
        }
        mmu->SetPorts(sw->GetNPorts());
        for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
        {
            const TopoLink& l = graph.links[f.ports[v][p]];
            if (l.longHaul && m_lossyLongHaul)
            {
                mmu->SetLossyPort(p);
                continue;
            }
            mmu->SetHeadroom(p, m_headroomBytes > 0 ? m_headroomBytes
                                                    : AutoHeadroomBytes(l.rateBps, l.delayPs));
        }
        if (mmu->GetSharedPoolBytes() == 0)
        {
            UintegerValue total;
            mmu->GetAttribute("BufferBytes", total);
            throw InputError("", 0, "ns3::SharedBufferMmu::BufferBytes",
                             "switch " + graph.vertices[v].name + ": its PFC headroom and reserved "
                             "space (" + std::to_string(sw->GetNPorts()) + " ports) take all of "
                             "its " + std::to_string(total.Get()) + " bytes, leaving no shared "
                             "buffer");
        }
        sw->SetMmu(mmu);
    }
    if (m_credits)
    {
        for (const auto& link : f.links)
        {
            link.devA->EnableCreditFlowControl();
            link.devB->EnableCreditFlowControl();
        }
        for (const auto& sw : f.switches)
        {
            sw->EnableCreditFlowControl();
        }
    }
    // Edge switch of every host and host-facing ports, for edge-aware policies (CONGA).
    auto hostEdge = std::make_shared<std::vector<uint32_t>>(nHosts, LbContext::kNoEdge);
    // A host with several links (one per plane) has no one edge switch: kNoEdge.
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        if (f.ports[h].size() > 1)
        {
            continue;
        }
        for (uint32_t li : f.ports[h])
        {
            const TopoLink& l = graph.links[li];
            const uint32_t peer = l.a == h ? l.b : l.a;
            if (peer >= nHosts)
            {
                (*hostEdge)[h] = peer - nHosts;
            }
        }
    }
    for (uint32_t s = 0; s < nSwitches; ++s)
    {
        const uint32_t v = nHosts + s;
        std::vector<uint8_t> facesHost(f.ports[v].size(), 0);
        for (size_t p = 0; p < f.ports[v].size(); ++p)
        {
            const TopoLink& l = graph.links[f.ports[v][p]];
            facesHost[p] = (l.a == v ? l.b : l.a) < nHosts;
        }
        f.switches[s]->SetEdgeInfo(hostEdge, std::move(facesHost));
    }
    if (streamsUsed)
    {
        *streamsUsed = stream - streamBase;
    }
    return f;
}

std::vector<std::vector<PathHop>>
Fabric::PathProfiles(uint32_t src, uint32_t dst) const
{
    auto key = std::make_pair(src, dst);
    auto it = m_profileCache.find(key);
    if (it != m_profileCache.end())
    {
        return it->second;
    }
    std::set<std::vector<std::pair<uint64_t, uint64_t>>> unique;
    constexpr size_t kMaxPaths = 4096;
    size_t explored = 0;
    std::vector<std::pair<uint64_t, uint64_t>> hops;
    // The host's first link (plane 0 of a multi-plane fabric), then follow the equal-cost
    // tables.
    const TopoLink& first = graph.links[ports[src][0]];
    const uint32_t firstSwitch = first.a == src ? first.b : first.a;
    hops.emplace_back(first.rateBps, first.delayPs);
    std::function<void(uint32_t)> walk = [&](uint32_t v) {
        if (explored >= kMaxPaths)
        {
            return;
        }
        const PortSpan cands = routes->Ports(v - graph.numHosts, dst);
        for (uint16_t p : cands)
        {
            const TopoLink& l = graph.links[ports[v][p]];
            const uint32_t w = l.a == v ? l.b : l.a;
            hops.emplace_back(l.rateBps, l.delayPs);
            if (w == dst)
            {
                unique.insert(hops);
                ++explored;
            }
            else if (graph.vertices[w].kind == TopoVertex::SWITCH)
            {
                walk(w);
            }
            hops.pop_back();
        }
    };
    if (src != dst)
    {
        walk(firstSwitch);
    }
    // A multi-plane fabric (ReplicatePlanes: host port k leads into plane k, every plane
    // alike): the ideal sends over all N planes at once, a path of N times each hop's rate.
    const auto& srcPorts = ports[src];
    const TopoLink& last = graph.links[srcPorts.back()];
    const uint32_t lastPeer = last.a == src ? last.b : last.a;
    const uint64_t planes = srcPorts.size() > 1 && graph.vertices[lastPeer].plane + 1u == srcPorts.size()
                                ? srcPorts.size()
                                : 1;
    // A multi-homed host in one fabric (dual-ToR: its ports lead to several ToRs of one plane):
    // the ideal sends over all of the source's ports and receives over all of the
    // destination's, the first and last hops at the sum of the host's port rates.
    const uint64_t srcMul = planes == 1 ? srcPorts.size() : 1;
    const uint64_t dstMul = planes == 1 ? ports[dst].size() : 1;
    std::vector<std::vector<PathHop>> out;
    for (const auto& u : unique)
    {
        std::vector<PathHop> path;
        for (const auto& [r, d] : u)
        {
            path.push_back(PathHop{r * planes, d});
        }
        path.front().rateBps *= srcMul;
        path.back().rateBps *= dstMul;
        out.push_back(std::move(path));
    }
    m_profileCache.emplace(key, out);
    return out;
}

namespace
{

/** PathProfiles(src, dst) in place in the fabric's cache (filled on first use), without the
 *  copy PathProfiles returns: a flow row's ideal and its waits.csv rows' each ask for it. */
template <typename Cache, typename Fill>
const std::vector<std::vector<PathHop>>&
CachedProfiles(Cache& cache, uint32_t src, uint32_t dst, Fill fill)
{
    const auto key = std::make_pair(src, dst);
    auto it = cache.find(key);
    if (it == cache.end())
    {
        fill(); // PathProfiles adds it
        it = cache.find(key);
    }
    return it->second;
}

} // namespace

uint64_t
Fabric::IdealFctPs(uint32_t src, uint32_t dst, uint64_t bytes, const Framing& framing) const
{
    uint64_t best = UINT64_MAX;
    for (const auto& path : CachedProfiles(m_profileCache, src, dst, [&] { PathProfiles(src, dst); }))
    {
        best = std::min(best, ns3::IdealFctPs(bytes, path, framing, graph.switchLatencyPs));
    }
    return best;
}

uint64_t
Fabric::IdealFctPsOfPackets(uint32_t src,
                            uint32_t dst,
                            const std::vector<uint32_t>& payloads,
                            const Framing& framing) const
{
    uint64_t best = UINT64_MAX;
    for (const auto& path : CachedProfiles(m_profileCache, src, dst, [&] { PathProfiles(src, dst); }))
    {
        best = std::min(best, ns3::IdealFctPsOfPackets(payloads, path, framing, graph.switchLatencyPs));
    }
    return best;
}

uint32_t
Fabric::HopCount(uint32_t src, uint32_t dst) const
{
    auto profiles = PathProfiles(src, dst);
    return profiles.empty() ? 0 : static_cast<uint32_t>(profiles.front().size());
}

bool
Fabric::DecodePath(uint32_t src, uint64_t path, std::vector<uint32_t>& links) const
{
    links.clear();
    if (src >= graph.numHosts || ports[src].size() != 1)
    {
        return false; // a multi-plane host: DecodeHostPortPath with the frame's plane
    }
    return DecodeHostPortPath(graph, ports, src, 0, path, links);
}

bool
Fabric::TracePath(const FrameMeta& probe, uint32_t hostPort, std::vector<uint32_t>& links) const
{
    links.clear();
    const uint32_t src = probe.srcHost;
    if (src >= graph.numHosts || hostPort >= ports[src].size())
    {
        return false;
    }
    FrameMeta p = probe;
    uint32_t v = src;
    uint32_t li = ports[src][hostPort];
    for (int hop = 0; hop < 64; ++hop)
    {
        links.push_back(li);
        const TopoLink& l = graph.links[li];
        v = l.a == v ? l.b : l.a;
        if (graph.vertices[v].kind == TopoVertex::HOST)
        {
            return v == probe.dstHost;
        }
        const auto& out = ports[v];
        const auto in = std::find(out.begin(), out.end(), li);
        uint16_t egress = 0;
        if (in == out.end() ||
            !switches[v - graph.numHosts]->ProbeEgress(static_cast<uint16_t>(in - out.begin()), p,
                                                       egress) ||
            egress >= out.size())
        {
            return false;
        }
        if (p.ttl > 0)
        {
            --p.ttl; // as SwitchPort::Enqueue: every switch decrements it
        }
        li = out[egress];
    }
    return false;
}

} // namespace ns3
