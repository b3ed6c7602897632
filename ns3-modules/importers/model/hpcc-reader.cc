/*
 * tusk: HPCC topology.txt / flow.txt importers. See hpcc-reader.h.
 */
#include "hpcc-reader.h"

#include "fabric/helper/multi-plane.h"
#include "fabric/model/fabric-units.h"
#include "fabric/model/input-error.h"
#include "fabric/model/input-excerpt.h"
#include "importers/model/input-text-reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace ns3
{

namespace
{

/** "12.5Gbps" -> (12.5, "Gbps"). */
bool
SplitNumber(const std::string& text, double& v, std::string& unit)
{
    char* end = nullptr;
    v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || !std::isfinite(v) || v < 0)
    {
        return false;
    }
    unit = text.substr(static_cast<size_t>(end - text.c_str())); // embedded NULs included
    return true;
}

/**
 * Refuse a host port that is on no shortest path to some other host. tusk's NIC sends on every
 * port of a multi-port host (entropy mod ports), whereas the HPCC simulator's host routing
 * table keeps, per destination, only the NICs on a shortest (fewest-hop) path; a port off
 * those paths would carry frames the fabric cannot forward on a shortest route. Distances are
 * hop counts by breadth-first search from each switch a multi-port host links to; hosts with
 * the same set of switches are checked once.
 *
 * \throws InputError naming the file, the line of the link and key "links".
 */
void
CheckHostPortsOnShortestPaths(const std::string& path,
                              const InputTextReader& in,
                              const std::vector<bool>& isSwitch,
                              const std::vector<std::vector<uint32_t>>& adj,
                              const std::vector<std::vector<std::pair<uint32_t, unsigned>>>& ports)
{
    constexpr uint32_t kFar = std::numeric_limits<uint32_t>::max();
    const size_t nodes = adj.size();
    std::map<uint32_t, std::vector<uint32_t>> distFrom; // switch -> hops to every node
    const auto dist = [&](uint32_t from) -> const std::vector<uint32_t>& {
        auto it = distFrom.find(from);
        if (it != distFrom.end())
        {
            return it->second;
        }
        std::vector<uint32_t> d(nodes, kFar);
        std::vector<uint32_t> queue{from};
        d[from] = 0;
        for (size_t h = 0; h < queue.size(); ++h)
        {
            const uint32_t u = queue[h];
            if (!isSwitch[u] && u != from)
            {
                continue; // hosts do not forward
            }
            for (uint32_t w : adj[u])
            {
                if (d[w] == kFar)
                {
                    d[w] = d[u] + 1;
                    queue.push_back(w);
                }
            }
        }
        return distFrom.emplace(from, std::move(d)).first->second;
    };
    std::set<std::vector<uint32_t>> checked;
    for (size_t h = 0; h < nodes; ++h)
    {
        if (isSwitch[h] || ports[h].size() < 2)
        {
            continue;
        }
        std::vector<uint32_t> key;
        for (const auto& p : ports[h])
        {
            key.push_back(p.first);
        }
        std::sort(key.begin(), key.end());
        if (!checked.insert(key).second)
        {
            continue;
        }
        for (size_t d = 0; d < nodes; ++d)
        {
            if (isSwitch[d] || d == h)
            {
                continue;
            }
            uint32_t best = kFar;
            for (const auto& p : ports[h])
            {
                best = std::min(best, dist(p.first)[d]);
            }
            for (const auto& p : ports[h])
            {
                if (best != kFar && dist(p.first)[d] > best)
                {
                    in.FailAt(p.second, "links",
                              "host node " + std::to_string(h) + "'s link to switch " +
                                  std::to_string(p.first) +
                                  " is on no shortest path to host node " + std::to_string(d) +
                                  " (" + std::to_string(dist(p.first)[d] + 1) + " hops against " +
                                  std::to_string(best + 1) +
                                  "): expected every link of a multi-port host on a shortest "
                                  "path to every other host (tusk sends on every NIC port; the "
                                  "HPCC simulator would use only the ports on shortest paths)");
                }
            }
        }
    }
}

} // namespace

bool
ParseHpccRate(const std::string& text, uint64_t& bps)
{
    double v = 0;
    std::string unit;
    if (!SplitNumber(text, v, unit))
    {
        return false;
    }
    // The spellings ns-3's DataRate reads (HPCC builds its links with DataRate(rate)): a
    // prefix (k or K, M, G, and T beyond ns-3; Ki, Mi, Gi binary), then bits ("bps", "b/s") or
    // bytes ("Bps", "B/s").
    static const std::vector<std::pair<std::string, double>> kPrefixes = {
        {"", 1},   {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12},
        {"Ki", 1024.0}, {"Mi", 1024.0 * 1024}, {"Gi", 1024.0 * 1024 * 1024}};
    static const std::vector<std::pair<std::string, double>> kUnits = [] {
        std::vector<std::pair<std::string, double>> units;
        for (const auto& [prefix, scale] : kPrefixes)
        {
            for (const auto& [suffix, bits] : std::vector<std::pair<std::string, double>>{
                     {"bps", 1}, {"b/s", 1}, {"Bps", 8}, {"B/s", 8}})
            {
                units.emplace_back(prefix + suffix, scale * bits);
            }
        }
        return units;
    }();
    for (const auto& [u, scale] : kUnits)
    {
        if (unit == u)
        {
            const double r = std::round(v * scale);
            if (r < 1 || r > 1e18)
            {
                return false;
            }
            bps = static_cast<uint64_t>(r);
            return true;
        }
    }
    return false;
}

bool
ParseHpccDelay(const std::string& text, uint64_t& ps)
{
    double v = 0;
    std::string unit;
    if (!SplitNumber(text, v, unit))
    {
        return false;
    }
    static const std::vector<std::pair<std::string, double>> kUnits = {
        {"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}, {"ps", 1}};
    for (const auto& [u, scale] : kUnits)
    {
        if (unit == u)
        {
            const double r = std::round(v * scale);
            if (r > 1e18)
            {
                return false;
            }
            ps = static_cast<uint64_t>(r);
            return true;
        }
    }
    return false;
}

HpccTopology
ReadHpccTopology(const std::string& path)
{
    // One record per line, as HPCC's own generators write them: a line missing a field is an
    // error here, where HPCC's `>>` would take it from the next line and shift every record.
    InputTextReader in(path, "file");
    in.NextRecord("nodes", 3, "a header \"N_nodes N_switches N_links\"");
    const uint64_t nodes = in.NextUnsigned("nodes", "the node count");
    const uint64_t switches = in.NextUnsigned("switches", "the switch count");
    const uint64_t links = in.NextUnsigned("links", "the link count");
    in.EndLine();
    if (nodes == 0 || switches >= nodes || nodes > (1u << 24))
    {
        in.Fail("nodes", "expected 1 .. 2^24 nodes of which fewer are switches; got " +
                             std::to_string(nodes) + " nodes, " + std::to_string(switches) +
                             " switches");
    }
    std::vector<bool> isSwitch(nodes, false);
    if (switches > 0)
    {
        in.NextRecord("switches", switches, "the switch ids, all on one line");
    }
    for (uint64_t i = 0; i < switches; ++i)
    {
        const uint64_t id = in.NextUnsigned("switches", "a switch node id");
        if (id >= nodes || isSwitch[id])
        {
            in.Fail("switches", "expected distinct switch ids below " + std::to_string(nodes) +
                                    "; got " + std::to_string(id));
        }
        isSwitch[id] = true;
    }
    in.EndLine();
    HpccTopology t;
    TopologyGraph& g = t.graph;
    t.hostOfNode.assign(nodes, -1);
    std::vector<uint32_t> vertexOf(nodes);
    uint32_t hosts = 0;
    for (uint64_t id = 0; id < nodes; ++id)
    {
        if (!isSwitch[id])
        {
            t.hostOfNode[id] = hosts;
            vertexOf[id] = hosts++;
        }
    }
    uint32_t next = hosts;
    for (uint64_t id = 0; id < nodes; ++id)
    {
        if (isSwitch[id])
        {
            vertexOf[id] = next++;
        }
    }
    g.numHosts = hosts;
    t.nodeOfVertex.resize(nodes);
    for (uint64_t id = 0; id < nodes; ++id)
    {
        t.nodeOfVertex[vertexOf[id]] = static_cast<uint32_t>(id);
    }
    g.vertices.resize(nodes);
    for (uint64_t id = 0; id < nodes; ++id)
    {
        TopoVertex& v = g.vertices[vertexOf[id]];
        v.kind = isSwitch[id] ? TopoVertex::SWITCH : TopoVertex::HOST;
        v.tier = 0;
        v.pod = 0;
        v.name = isSwitch[id] ? "node" + std::to_string(id) : "host" + std::to_string(vertexOf[id]);
    }
    std::vector<uint32_t> degree(nodes, 0);
    std::vector<std::vector<uint32_t>> adj(nodes);
    std::vector<std::vector<std::pair<uint32_t, unsigned>>> hostPorts(nodes); // (switch, line)
    for (uint64_t l = 0; l < links; ++l)
    {
        in.NextRecord("links", 5, "a link \"src dst rate delay error_rate\"");
        const uint64_t a = in.NextUnsigned("links", "a link \"src dst rate delay error_rate\"");
        const uint64_t b = in.NextUnsigned("links", "the link's second node id");
        const std::string rate = in.NextToken("links", "the link's rate");
        const std::string delay = in.NextToken("links", "the link's delay");
        const std::string err = in.NextToken("links", "the link's error rate");
        in.EndLine();
        if (a >= nodes || b >= nodes || a == b)
        {
            in.Fail("links", "expected two different node ids below " + std::to_string(nodes) +
                                 "; got " + std::to_string(a) + " " + std::to_string(b));
        }
        TopoLink link;
        link.a = vertexOf[a];
        link.b = vertexOf[b];
        if (!ParseHpccRate(rate, link.rateBps))
        {
            in.Fail("rate", "expected a rate like 100Gbps; got " + QuoteExcerpt(rate));
        }
        if (link.rateBps < kMinLinkRateBps || link.rateBps > kMaxLinkRateBps)
        {
            in.Fail("rate", "expected a link rate in 1Mbps..100Tbps; got \"" + rate + "\"");
        }
        if (!ParseHpccDelay(delay, link.delayPs))
        {
            in.Fail("delay", "expected a delay like 0.001ms; got " + QuoteExcerpt(delay));
        }
        if (link.delayPs > kMaxLinkDelayPs)
        {
            in.Fail("delay", "expected a link delay of at most 1s; got \"" + delay + "\"");
        }
        char* end = nullptr;
        const double e = std::strtod(err.c_str(), &end);
        if (end == err.c_str() || end != err.c_str() + err.size())
        {
            in.Fail("error_rate", "expected a number; got " + QuoteExcerpt(err));
        }
        if (e != 0)
        {
            in.Fail("error_rate",
                    "per-link loss is not read from topology files: expected 0; got " + err +
                        ". Give it in the scenario: a [[failures]] entry with kind = \"loss\", "
                        "loss_rate = " + err + " and at_us = 0 on the link of nodes " +
                        std::to_string(a) + " and " + std::to_string(b) +
                        ", or [[failure_rates]] with kind = \"loss\" for lossy links drawn at "
                        "random (docs/scenario-format.md)");
        }
        if (!isSwitch[a] && !isSwitch[b])
        {
            in.Fail("links", "a link between two hosts (" + std::to_string(a) + ", " +
                                 std::to_string(b) + "): tusk hosts connect to switches");
        }
        for (uint64_t x : {a, b})
        {
            // A host with several links (dual-ToR, as in Alibaba HPN) is one NIC with one port
            // per link, port k its k-th link in file order (RdmaNic::AddPlanePort).
            if (!isSwitch[x] && ++degree[x] > kMaxPlanes)
            {
                in.Fail("links", "host node " + std::to_string(x) + " has more than " +
                                     std::to_string(kMaxPlanes) +
                                     " links: expected at most that many NIC ports per host");
            }
        }
        adj[a].push_back(static_cast<uint32_t>(b));
        adj[b].push_back(static_cast<uint32_t>(a));
        hostPorts[isSwitch[a] ? b : a].emplace_back(static_cast<uint32_t>(isSwitch[a] ? a : b),
                                                    in.Line());
        g.links.push_back(link);
    }
    for (uint64_t id = 0; id < nodes; ++id)
    {
        if (!isSwitch[id] && degree[id] == 0)
        {
            throw InputError(path, in.Line(), "links",
                             "host node " + std::to_string(id) + " has no link");
        }
    }
    CheckHostPortsOnShortestPaths(path, in, isSwitch, adj, hostPorts);
    // Tiers by breadth-first search from the hosts.
    std::vector<uint32_t> tier(nodes, std::numeric_limits<uint32_t>::max());
    std::vector<uint64_t> queue;
    for (uint64_t id = 0; id < nodes; ++id)
    {
        if (!isSwitch[id])
        {
            tier[id] = 0;
            queue.push_back(id);
        }
    }
    for (size_t h = 0; h < queue.size(); ++h)
    {
        for (uint32_t w : adj[queue[h]])
        {
            if (tier[w] == std::numeric_limits<uint32_t>::max())
            {
                tier[w] = tier[queue[h]] + 1;
                queue.push_back(w);
            }
        }
    }
    for (uint64_t id = 0; id < nodes; ++id)
    {
        const uint32_t tr = tier[id] == std::numeric_limits<uint32_t>::max() ? 1 : tier[id];
        g.vertices[vertexOf[id]].tier = static_cast<uint8_t>(std::min<uint32_t>(tr, 255));
    }
    // Links from the lower-tier end, as the builders list them.
    for (auto& link : g.links)
    {
        if (g.vertices[link.a].tier > g.vertices[link.b].tier)
        {
            std::swap(link.a, link.b);
        }
    }
    g.description = "HPCC topology " + path + ": " + std::to_string(hosts) + " hosts, " +
                    std::to_string(switches) + " switches, " + std::to_string(links) + " links";
    return t;
}

std::vector<TransferSpec>
ReadHpccFlows(const std::string& path, const std::vector<int64_t>& hostOfNode)
{
    InputTextReader in(path, "file"); // one record per line, as ReadHpccTopology
    in.NextRecord("flows", 1, "the flow count");
    const uint64_t count = in.NextUnsigned("flows", "the flow count");
    in.EndLine();
    std::vector<TransferSpec> out;
    auto host = [&](uint64_t node, const char* key) -> uint32_t {
        if (hostOfNode.empty())
        {
            if (node > std::numeric_limits<uint32_t>::max())
            {
                in.Fail(key, "node id too large");
            }
            return static_cast<uint32_t>(node);
        }
        if (node >= hostOfNode.size() || hostOfNode[node] < 0)
        {
            in.Fail(key, "node " + std::to_string(node) +
                             (node >= hostOfNode.size() ? " does not exist in the topology"
                                                        : " is a switch, not a host"));
        }
        return static_cast<uint32_t>(hostOfNode[node]);
    };
    for (uint64_t i = 0; i < count; ++i)
    {
        TransferSpec t;
        t.externalId = i;
        t.qpGroup = static_cast<uint32_t>(i);
        in.NextRecord("src", 6, "a flow \"src dst priority dport size_bytes start_s\"");
        t.src = host(in.NextUnsigned("src", "a flow \"src dst priority dport size_bytes start_s\""), "src");
        t.dst = host(in.NextUnsigned("dst", "the flow's destination"), "dst");
        const uint64_t pg = in.NextUnsigned("priority", "the flow's priority group");
        const uint64_t dport = in.NextUnsigned("dport", "the flow's destination port");
        t.bytes = in.NextUnsigned("size_bytes", "the flow's size in bytes");
        const std::string start = in.NextToken("start_s", "the flow's start time in seconds");
        in.EndLine();
        if (t.src == t.dst)
        {
            in.Fail("dst", "the flow sends from host " + std::to_string(t.src) + " to itself");
        }
        if (pg > 7)
        {
            in.Fail("priority", "expected a priority group in 0..7; got " + std::to_string(pg));
        }
        t.priority = static_cast<uint8_t>(pg);
        if (dport > 65535)
        {
            in.Fail("dport", "expected a port 0..65535; got " + std::to_string(dport));
        }
        t.port = static_cast<uint16_t>(dport);
        if (t.bytes == 0 || t.bytes > kMaxTransferBytes)
        {
            in.Fail("size_bytes", "expected 1 .. 2^50 bytes (1024 TiB); got " +
                                      std::to_string(t.bytes));
        }
        char* end = nullptr;
        const double s = std::strtod(start.c_str(), &end);
        if (end == start.c_str() || end != start.c_str() + start.size() || !std::isfinite(s) ||
            s < 0 || s > 1e6)
        {
            in.Fail("start_s", "expected a start time in seconds >= 0; got " + QuoteExcerpt(start));
        }
        t.startPs = static_cast<uint64_t>(std::llround(s * 1e12));
        out.push_back(t);
    }
    return out;
}

} // namespace ns3
