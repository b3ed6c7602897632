/*
 * tusk: per-flow results in the HPCC simulator's and htsim's own formats. See tool-outputs.h.
 */
#include "results/tool-outputs.h"

#include "results/results-dir.h"
#include "run/run-stages.h"

#include "fabric/helper/topology-builders.h"
#include "importers/model/hpcc-reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>

namespace tusk
{

namespace
{

/** The HPCC simulator's data headers without INT (custom-header.cc GetStaticWholeHeaderSize
 *  - IntHeader::GetStaticSize: 14 L2 + 20 IPv4 + 8 UDP + 4 seq + 2 pg). */
constexpr uint64_t kHpccHeaderBytes = 48;
/** Its first source port per host (third.cc portNumder). */
constexpr uint32_t kHpccFirstSport = 10000;
/** fct_analysis.py's "normal" flows (dport 100; 200 = incast). */
constexpr uint32_t kHpccNormalDport = 100;

/** Flows acknowledged in full, in order of completion (ties by flow id). */
std::vector<const FlowRow*>
Completed(const RunResult& r)
{
    std::vector<const FlowRow*> out;
    for (const auto& f : r.flows)
    {
        if (f.acknowledged && !f.scaleUp)
        {
            out.push_back(&f);
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const FlowRow* a, const FlowRow* b) {
        return std::make_pair(a->startPs + a->fctSenderPs, a->id) <
               std::make_pair(b->startPs + b->fctSenderPs, b->id);
    });
    return out;
}

uint32_t
NodeId(const RunResult& r, uint32_t vertex)
{
    return r.nodeIds.empty() ? vertex : r.nodeIds.at(vertex);
}

/** A C++ stream's default rendering of a double (%g, 6 significant digits). */
std::string
StreamDouble(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

} // namespace

uint32_t
HpccNodeIp(uint32_t id)
{
    return 0x0b000001u + (id / 256) * 0x00010000u + (id % 256) * 0x00000100u;
}

std::pair<uint64_t, uint64_t>
HpccPairRtt(const ns3::TopologyGraph& g, uint32_t srcHost, uint32_t dstHost, uint64_t payloadBytes)
{
    const auto ports = ns3::IncidentLinks(g);
    constexpr uint64_t kUnseen = std::numeric_limits<uint64_t>::max();
    std::vector<uint64_t> delayNs(g.vertices.size(), kUnseen);
    std::vector<uint64_t> txNs(g.vertices.size(), 0);
    std::vector<uint64_t> bw(g.vertices.size(), std::numeric_limits<uint64_t>::max());
    std::vector<uint32_t> queue{dstHost};
    delayNs[dstHost] = 0;
    for (size_t i = 0; i < queue.size(); ++i)
    {
        const uint32_t v = queue[i];
        for (uint32_t li : ports[v])
        {
            const ns3::TopoLink& l = g.links[li];
            const uint32_t w = l.a == v ? l.b : l.a;
            if (delayNs[w] != kUnseen)
            {
                continue;
            }
            delayNs[w] = delayNs[v] + l.delayPs / 1000;
            txNs[w] = txNs[v] + payloadBytes * 1'000'000'000ULL * 8 / l.rateBps;
            bw[w] = std::min(bw[v], l.rateBps);
            if (g.vertices[w].kind == ns3::TopoVertex::SWITCH)
            {
                queue.push_back(w); // hosts are not a middle point
            }
        }
    }
    if (delayNs[srcHost] == kUnseen || srcHost == dstHost)
    {
        return {0, 0};
    }
    return {2 * delayNs[srcHost] + txNs[srcHost], bw[srcHost]};
}

std::vector<uint32_t>
ImportedNodeIds(const ScenarioSpec& spec)
{
    if (spec.topology.kind == "hpcc")
    {
        return ns3::ReadHpccTopology(spec.topology.file).nodeOfVertex;
    }
    return {};
}

std::string
HpccFctTxt(const RunResult& r, const ns3::TopologyGraph& graph)
{
    // Source ports in order of flow start, per source host (ties in file order).
    std::vector<const FlowRow*> byStart;
    for (const auto& f : r.flows)
    {
        if (f.started && !f.scaleUp)
        {
            byStart.push_back(&f);
        }
    }
    std::stable_sort(byStart.begin(), byStart.end(), [](const FlowRow* a, const FlowRow* b) {
        return a->startPs < b->startPs;
    });
    std::map<const FlowRow*, uint32_t> sport;
    std::map<uint32_t, uint32_t> next;
    for (const FlowRow* f : byStart)
    {
        auto it = next.emplace(f->src, kHpccFirstSport).first;
        sport[f] = it->second++;
    }
    const uint64_t payload = r.spec.nic.mtuBytes;
    std::map<std::pair<uint32_t, uint32_t>, std::pair<uint64_t, uint64_t>> pair;
    std::string s;
    for (const FlowRow* f : Completed(r))
    {
        auto it = pair.find({f->src, f->dst});
        if (it == pair.end())
        {
            it = pair.emplace(std::make_pair(f->src, f->dst),
                              HpccPairRtt(graph, f->src, f->dst, payload)).first;
        }
        const auto [rttNs, bwBps] = it->second;
        const uint64_t packets = (f->bytes + payload - 1) / payload;
        const uint64_t totalBytes = f->bytes + packets * kHpccHeaderBytes;
        const uint64_t standalone = bwBps == 0 ? 0 : rttNs + totalBytes * 8'000'000'000ULL / bwBps;
        s += fmt::format("{:08x} {:08x} {} {} {} {} {} {}\n", HpccNodeIp(NodeId(r, f->src)),
                         HpccNodeIp(NodeId(r, f->dst)), sport.at(f),
                         f->port != 0 ? f->port : kHpccNormalDport, f->bytes, f->startPs / 1000,
                         f->fctSenderPs / 1000, standalone);
    }
    return s;
}

std::string
HpccPfcTxt(const RunResult& r, const ns3::TopologyGraph& graph)
{
    std::map<std::string, uint32_t> vertexOf;
    for (uint32_t v = 0; v < graph.vertices.size(); ++v)
    {
        vertexOf.emplace(graph.vertices[v].name, v);
    }
    const auto ports = ns3::IncidentLinks(graph);
    std::string s;
    for (const auto& e : r.pfcEvents)
    {
        if (e.event.sent)
        {
            continue; // the simulator traces the port that receives the frame
        }
        const auto at = vertexOf.find(e.at);
        const auto peer = vertexOf.find(e.peer);
        if (at == vertexOf.end() || peer == vertexOf.end())
        {
            continue;
        }
        const uint32_t v = at->second;
        uint32_t ifIndex = 0;
        for (uint32_t p = 0; p < ports[v].size(); ++p)
        {
            const ns3::TopoLink& l = graph.links[ports[v][p]];
            if ((l.a == v ? l.b : l.a) == peer->second)
            {
                ifIndex = p + 1;
                break;
            }
        }
        s += fmt::format("{} {} {} {} {}\n", e.event.timePs / 1000, NodeId(r, v),
                         graph.vertices[v].kind == ns3::TopoVertex::SWITCH ? 1 : 0, ifIndex,
                         e.event.quanta > 0 ? 1 : 0);
    }
    return s;
}

std::string
HtsimFlowLines(const RunResult& r)
{
    const bool uec = r.spec.nic.transport.rfind("uec", 0) == 0;
    // htsim's UecSrc counter: the connection's index in the matrix.
    std::map<const FlowRow*, size_t> index;
    for (size_t i = 0; i < r.flows.size(); ++i)
    {
        index[&r.flows[i]] = i;
    }
    const uint64_t mss = r.spec.nic.mtuBytes;
    std::string s;
    for (const FlowRow* f : Completed(r))
    {
        const std::string t = StreamDouble(static_cast<double>(f->startPs + f->fctSenderPs) / 1e6);
        // Both sources count whole packets: UecSrc its packets times the MSS, RoceSrc its last
        // cumulative ACK, the last byte of the last MSS-sized packet (roce.cpp, processAck).
        const uint64_t packets = (f->bytes + mss - 1) / mss;
        if (uec)
        {
            s += fmt::format("Flow Uec_{}_{} flowId {} uecSrc {} finished at {} total messages 1 "
                             "total packets {} RTS 0 total bytes {}\n",
                             f->src, f->dst, f->id, index.at(f), t, packets, packets * mss);
        }
        else
        {
            s += fmt::format("Flow Roce_{}_{} {} finished at {} total bytes {}\n", f->src, f->dst,
                             f->id, t, packets * mss);
        }
    }
    return s;
}

void
WriteToolOutputs(const RunResult& r, const std::string& dir)
{
    const auto& formats = r.spec.output.formats;
    if (std::find(formats.begin(), formats.end(), "hpcc") != formats.end())
    {
        const ns3::TopologyGraph graph = BuildGraph(r.spec);
        WriteFileAtomic(dir + "/fct.txt", HpccFctTxt(r, graph));
        WriteFileAtomic(dir + "/pfc.txt", HpccPfcTxt(r, graph));
    }
    if (std::find(formats.begin(), formats.end(), "htsim") != formats.end())
    {
        WriteFileAtomic(dir + "/htsim_flows.txt", HtsimFlowLines(r));
    }
}

std::string
HpccPairRttLine(const RunResult& r)
{
    std::string s;
    for (const auto& c : r.pathClasses)
    {
        if (c.hpccPairRttPs == 0)
        {
            continue;
        }
        s += fmt::format("{}{} switch{} {:.3f} µs", s.empty() ? "" : "; ", c.links - 1,
                         c.links == 2 ? "" : "es", c.hpccPairRttPs / 1e6);
    }
    return s.empty() ? s
                     : "HPCC simulator's pairRtt (2 x propagation + one MTU payload serialised per "
                       "hop, no ACK; its slowdowns' base): " + s + "\n";
}

} // namespace tusk
