// Synthetic ground truth for `tusk locate`: a leaf-spine or k-ary fat-tree incidence, flows on
// ECMP-like random paths (one per QP) or sprayed over every shortest path, 0..n planted faults
// (a link direction at a fraction of its rate, or losing packets), and flow completion times
// from a fluid model: max-min fair sharing (progressive filling, Bertsekas & Gallager, Data
// Networks, 6.5.2), recomputed at every flow arrival and departure, with multiplicative noise.
// A sprayed flow is one fluid entity that puts a fixed share of its rate on each path, so it
// ends with its slowest path, as oblivious spraying does.
//
// The result is the same Observations that ReadObservations builds from a run, and can be
// written as a run directory (flows.csv with `path`/`paths`, links.csv, manifest.json,
// timeseries.csv) whose link counters, time series and manifest name the faults: what
// `tusk locate` must not read.
#ifndef TUSK_TEST_LOCATE_SYNTHETIC_H
#define TUSK_TEST_LOCATE_SYNTHETIC_H

#include "locate/tomography.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <random>
#include <string>
#include <vector>

namespace tusk_test
{
namespace synth
{

/** Vertices (hosts first, named host<i>) and undirected links; link i's directions are rows
 *  2i (a -> b) and 2i + 1 (b -> a), its link_id i. */
struct Graph
{
    std::vector<std::string> names;
    uint32_t hosts = 0;
    std::vector<std::pair<uint32_t, uint32_t>> links;
    std::vector<uint32_t> tier; //!< 0 host, 1 leaf/ToR, 2 spine/agg, 3 core
    std::vector<std::vector<uint32_t>> out; //!< outgoing directions per vertex (Finish())

    /** Build `out` once the links are in. */
    void Finish()
    {
        out.assign(names.size(), {});
        for (uint32_t d = 0; d < Directions(); ++d)
        {
            out[From(d)].push_back(d);
        }
    }

    uint32_t Directions() const { return static_cast<uint32_t>(2 * links.size()); }
    uint32_t From(uint32_t d) const { return d % 2 ? links[d / 2].second : links[d / 2].first; }
    uint32_t To(uint32_t d) const { return d % 2 ? links[d / 2].first : links[d / 2].second; }
    bool IsFabric(uint32_t d) const { return tier[From(d)] > 0 && tier[To(d)] > 0; }

    tusk::locate::LinkIndex Index() const
    {
        std::vector<tusk::locate::DirectedLink> rows;
        for (uint32_t d = 0; d < Directions(); ++d)
        {
            rows.push_back({d / 2, names[From(d)], names[To(d)]});
        }
        return tusk::locate::LinkIndex(std::move(rows));
    }
};

inline uint32_t
AddVertex(Graph& g, const std::string& name, uint32_t tier)
{
    g.names.push_back(name);
    g.tier.push_back(tier);
    return static_cast<uint32_t>(g.names.size() - 1);
}

/** Two-tier leaf-spine: `leaves` x `hostsPerLeaf` hosts, every leaf linked to every spine. */
inline Graph
LeafSpine(uint32_t leaves, uint32_t spines, uint32_t hostsPerLeaf)
{
    Graph g;
    g.hosts = leaves * hostsPerLeaf;
    for (uint32_t h = 0; h < g.hosts; ++h)
    {
        AddVertex(g, "host" + std::to_string(h), 0);
    }
    std::vector<uint32_t> leaf, spine;
    for (uint32_t l = 0; l < leaves; ++l)
    {
        leaf.push_back(AddVertex(g, "leaf" + std::to_string(l), 1));
    }
    for (uint32_t s = 0; s < spines; ++s)
    {
        spine.push_back(AddVertex(g, "spine" + std::to_string(s), 2));
    }
    for (uint32_t h = 0; h < g.hosts; ++h)
    {
        g.links.emplace_back(h, leaf[h / hostsPerLeaf]);
    }
    for (uint32_t l = 0; l < leaves; ++l)
    {
        for (uint32_t s = 0; s < spines; ++s)
        {
            g.links.emplace_back(leaf[l], spine[s]);
        }
    }
    g.Finish();
    return g;
}

/** k-ary fat tree (Al-Fares et al. 2008): k pods of k/2 ToRs and k/2 aggs, (k/2)^2 cores,
 *  k^3/4 hosts. */
inline Graph
FatTree(uint32_t k)
{
    Graph g;
    const uint32_t half = k / 2;
    g.hosts = k * half * half;
    for (uint32_t h = 0; h < g.hosts; ++h)
    {
        AddVertex(g, "host" + std::to_string(h), 0);
    }
    std::vector<uint32_t> tor, agg, core;
    for (uint32_t i = 0; i < k * half; ++i)
    {
        tor.push_back(AddVertex(g, "tor" + std::to_string(i), 1));
    }
    for (uint32_t i = 0; i < k * half; ++i)
    {
        agg.push_back(AddVertex(g, "agg" + std::to_string(i), 2));
    }
    for (uint32_t i = 0; i < half * half; ++i)
    {
        core.push_back(AddVertex(g, "core" + std::to_string(i), 3));
    }
    for (uint32_t h = 0; h < g.hosts; ++h)
    {
        g.links.emplace_back(h, tor[h / half]);
    }
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t t = 0; t < half; ++t)
        {
            for (uint32_t a = 0; a < half; ++a)
            {
                g.links.emplace_back(tor[p * half + t], agg[p * half + a]);
            }
        }
        for (uint32_t a = 0; a < half; ++a)
        {
            for (uint32_t c = 0; c < half; ++c)
            {
                g.links.emplace_back(agg[p * half + a], core[a * half + c]);
            }
        }
    }
    g.Finish();
    return g;
}

/** Every shortest path from host `src` to host `dst`, as directed link rows (valley-free:
 *  hosts are never transit). */
inline std::vector<std::vector<uint32_t>>
ShortestPaths(const Graph& g, uint32_t src, uint32_t dst)
{
    const uint32_t n = static_cast<uint32_t>(g.names.size());
    const auto& out = g.out;
    // Distance to dst over the reversed graph.
    std::vector<uint32_t> dist(n, UINT32_MAX);
    std::queue<uint32_t> q;
    dist[dst] = 0;
    q.push(dst);
    while (!q.empty())
    {
        const uint32_t v = q.front();
        q.pop();
        for (uint32_t d : out[v]) // links are symmetric: v's neighbours
        {
            const uint32_t w = g.To(d);
            if (dist[w] == UINT32_MAX && (g.tier[w] > 0 || w == src))
            {
                dist[w] = dist[v] + 1;
                q.push(w);
            }
        }
    }
    std::vector<std::vector<uint32_t>> paths;
    std::vector<uint32_t> cur;
    std::function<void(uint32_t)> walk = [&](uint32_t v) {
        if (v == dst)
        {
            paths.push_back(cur);
            return;
        }
        for (uint32_t d : out[v])
        {
            const uint32_t w = g.To(d);
            if (dist[w] != UINT32_MAX && dist[w] + 1 == dist[v] && (g.tier[w] > 0 || w == dst))
            {
                cur.push_back(d);
                walk(w);
                cur.pop_back();
            }
        }
    };
    walk(src);
    return paths;
}

struct Fault
{
    uint32_t direction = 0;  //!< directed link row
    double rateFactor = 1.0; //!< 1/4 = a quarter of the rate
    double lossRate = 0.0;   //!< probability that a packet crossing it is lost
};

struct Config
{
    uint32_t rounds = 8;                  //!< random permutations, one flow per host each
    uint64_t bytes = 2'000'000;           //!< per flow
    double rateBytesPerUs = 12'500;       //!< every link: 100 Gb/s
    double hopLatencyUs = 1.0;            //!< per hop, added to ideal and actual FCT
    double roundGapUs = 200;              //!< round r starts at r x gap (+ jitter)
    double jitterUs = 20;                 //!< uniform start jitter within a round
    bool spray = false;                   //!< every shortest path, packets spread at random
    uint32_t qps = 1;                     //!< without spraying: paths (QPs) per flow, random each
    double noiseSigma = 0.05;             //!< lognormal noise on the transfer time
    uint32_t mtuBytes = 4096;
    double lossPenaltyUs = 4.0;           //!< recovery time added per lost packet
    /** Unexplained slowness on healthy paths (incast, PFC head-of-line blocking elsewhere):
     *  this fraction of flows is slowed by a factor drawn uniformly in [1, victimMaxFactor]. */
    double victimFraction = 0.0;
    double victimMaxFactor = 3.0;
    /** Congestion spreading from a fault (PFC pauses upstream): a flow that passes through the
     *  switch feeding a faulty direction, without crossing that direction, is slowed by
     *  `spreadFactor` with probability `spreadProbability`. */
    double spreadFactor = 1.0;
    double spreadProbability = 0.0;
    std::vector<Fault> faults;
    uint64_t seed = 1;
};

/** Plant `n` faults on distinct random directions (fabric links only if `fabricOnly`). */
inline std::vector<Fault>
RandomFaults(const Graph& g, uint32_t n, double rateFactor, double lossRate, uint64_t seed,
             bool fabricOnly = false)
{
    std::mt19937_64 rng(seed * 7919 + 17);
    std::vector<uint32_t> pool;
    for (uint32_t d = 0; d < g.Directions(); ++d)
    {
        if (!fabricOnly || g.IsFabric(d))
        {
            pool.push_back(d);
        }
    }
    std::shuffle(pool.begin(), pool.end(), rng);
    std::vector<Fault> out;
    for (uint32_t i = 0; i < n && i < pool.size(); ++i)
    {
        out.push_back(Fault{pool[i], rateFactor, lossRate});
    }
    return out;
}

struct Flow
{
    uint32_t src, dst;
    double start;
    std::vector<std::pair<std::vector<uint32_t>, uint64_t>> paths; // directed rows, packets
    std::vector<std::pair<uint32_t, double>> shares;               // direction, share of rate
    uint32_t hops = 0;
    double finish = 0;
    uint64_t lost = 0;
};

struct Result
{
    Graph graph;
    Config config;
    std::vector<Flow> flows;
    tusk::locate::Observations obs;
};

/** Max-min fair rates of the active flows: progressive filling with per-link shares, the
 *  next saturating link taken from a heap (stale entries skipped). Buffers are reused. */
struct MaxMin
{
    std::vector<double> rem, wsum;
    std::vector<uint32_t> start, fill, on, touched;
    std::vector<char> frozen;

    void Rates(const std::vector<Flow>& flows, const std::vector<uint32_t>& active,
               const std::vector<double>& capacity, std::vector<double>& rate)
    {
        const size_t nd = capacity.size();
        rem.assign(capacity.begin(), capacity.end());
        wsum.assign(nd, 0.0);
        start.assign(nd + 1, 0);
        touched.clear();
        for (uint32_t f : active)
        {
            for (const auto& [d, w] : flows[f].shares)
            {
                if (start[d + 1]++ == 0)
                {
                    touched.push_back(d);
                }
                wsum[d] += w;
            }
        }
        for (size_t d = 0; d < nd; ++d)
        {
            start[d + 1] += start[d];
        }
        fill.assign(start.begin(), start.end() - 1);
        on.resize(start[nd]);
        for (uint32_t f : active)
        {
            for (const auto& [d, w] : flows[f].shares)
            {
                on[fill[d]++] = f;
            }
        }
        using Entry = std::pair<double, uint32_t>; // (saturation level, direction)
        std::vector<Entry> heapStore;
        heapStore.reserve(touched.size() * 4);
        std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap(
            std::greater<Entry>(), std::move(heapStore));
        auto level = [&](uint32_t d) { return rem[d] / wsum[d]; };
        for (uint32_t d : touched)
        {
            heap.emplace(level(d), d);
        }
        frozen.assign(flows.size(), 0);
        while (!heap.empty())
        {
            const auto [lv, d] = heap.top();
            heap.pop();
            if (wsum[d] <= 1e-12)
            {
                continue; // every flow on it is frozen
            }
            if (lv != level(d))
            {
                // Freezing flows elsewhere only raises a link's level ((rem - w l) / (wsum - w)
                // >= rem / wsum for l <= rem / wsum): re-queue it at its current level.
                heap.emplace(level(d), d);
                continue;
            }
            for (uint32_t k = start[d]; k < start[d + 1]; ++k)
            {
                const uint32_t f = on[k];
                if (frozen[f])
                {
                    continue;
                }
                frozen[f] = 1;
                rate[f] = std::max(lv, 0.0);
                for (const auto& [e, w] : flows[f].shares)
                {
                    rem[e] -= w * rate[f];
                    wsum[e] -= w;
                }
            }
        }
    }
};

/** Generate the flows, run the fluid model, and build the Observations. */
inline Result
Generate(const Graph& g, const Config& c)
{
    Result res{g, c, {}, {}};
    std::mt19937_64 rng(c.seed);
    std::uniform_real_distribution<double> unif(0.0, 1.0);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<double> capacity(g.Directions(), c.rateBytesPerUs);
    std::vector<double> loss(g.Directions(), 0.0);
    for (const auto& f : c.faults)
    {
        capacity[f.direction] *= f.rateFactor;
        loss[f.direction] = f.lossRate;
    }
    std::map<std::pair<uint32_t, uint32_t>, std::vector<std::vector<uint32_t>>> pathCache;
    const uint64_t packets = (c.bytes + c.mtuBytes - 1) / c.mtuBytes;
    for (uint32_t r = 0; r < c.rounds; ++r)
    {
        std::vector<uint32_t> perm(g.hosts);
        std::iota(perm.begin(), perm.end(), 0);
        // A random derangement: no host sends to itself.
        do
        {
            std::shuffle(perm.begin(), perm.end(), rng);
        } while ([&] {
            for (uint32_t h = 0; h < g.hosts; ++h)
            {
                if (perm[h] == h)
                {
                    return true;
                }
            }
            return false;
        }());
        for (uint32_t h = 0; h < g.hosts; ++h)
        {
            Flow f;
            f.src = h;
            f.dst = perm[h];
            f.start = r * c.roundGapUs + c.jitterUs * unif(rng);
            auto& all = pathCache[{f.src, f.dst}];
            if (all.empty())
            {
                all = ShortestPaths(g, f.src, f.dst);
            }
            f.hops = static_cast<uint32_t>(all.front().size());
            std::map<size_t, uint64_t> count;
            if (c.spray)
            {
                for (uint64_t p = 0; p < packets; ++p)
                {
                    ++count[std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng)];
                }
            }
            else
            {
                for (uint32_t q = 0; q < c.qps; ++q)
                {
                    count[std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng)] +=
                        packets / c.qps + (q < packets % c.qps);
                }
            }
            std::map<uint32_t, double> share;
            for (const auto& [p, n] : count)
            {
                f.paths.emplace_back(all[p], n);
                for (uint32_t d : all[p])
                {
                    share[d] += static_cast<double>(n) / static_cast<double>(packets);
                }
            }
            f.shares.assign(share.begin(), share.end());
            res.flows.push_back(std::move(f));
        }
    }
    // Fluid model: event loop over arrivals and departures.
    auto& flows = res.flows;
    std::vector<uint32_t> order(flows.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return flows[a].start < flows[b].start; });
    std::vector<double> remaining(flows.size(), static_cast<double>(c.bytes));
    std::vector<double> rate(flows.size(), 0.0);
    std::vector<uint32_t> active;
    MaxMin maxMin;
    size_t next = 0;
    double now = 0;
    while (next < order.size() || !active.empty())
    {
        double tNext = next < order.size() ? flows[order[next]].start
                                           : std::numeric_limits<double>::infinity();
        double tDone = std::numeric_limits<double>::infinity();
        for (uint32_t f : active)
        {
            if (rate[f] > 0)
            {
                tDone = std::min(tDone, now + remaining[f] / rate[f]);
            }
        }
        const double t = std::min(tNext, tDone);
        for (uint32_t f : active)
        {
            remaining[f] -= rate[f] * (t - now);
        }
        now = t;
        std::vector<uint32_t> still;
        for (uint32_t f : active)
        {
            if (remaining[f] <= 1e-6 * static_cast<double>(c.bytes))
            {
                flows[f].finish = now;
            }
            else
            {
                still.push_back(f);
            }
        }
        active.swap(still);
        while (next < order.size() && flows[order[next]].start <= now)
        {
            active.push_back(order[next++]);
        }
        maxMin.Rates(flows, active, capacity, rate);
    }
    // Observations: noise, losses and their recovery time.
    res.obs.links = g.Index();
    res.obs.flowsFile = "<synthetic>";
    res.obs.mtuBytes = c.mtuBytes;
    for (size_t i = 0; i < flows.size(); ++i)
    {
        Flow& f = flows[i];
        for (auto& [path, n] : f.paths)
        {
            double survive = 1.0;
            for (uint32_t d : path)
            {
                survive *= 1.0 - loss[d];
            }
            if (survive < 1.0)
            {
                std::binomial_distribution<uint64_t> lost(n, 1.0 - survive);
                const uint64_t k = lost(rng);
                f.lost += k;
                n += k; // the retransmissions take the same path
            }
        }
        const double latency = f.hops * c.hopLatencyUs;
        double transfer = (f.finish - f.start) * std::exp(c.noiseSigma * normal(rng));
        if (unif(rng) < c.victimFraction)
        {
            transfer *= 1.0 + (c.victimMaxFactor - 1.0) * unif(rng);
        }
        bool crosses = false, near = false;
        for (const auto& fault : c.faults)
        {
            for (const auto& [d, w] : f.shares)
            {
                crosses |= d == fault.direction;
                near |= g.From(d) == g.From(fault.direction) || g.To(d) == g.From(fault.direction);
            }
        }
        if (near && !crosses && unif(rng) < c.spreadProbability)
        {
            transfer *= c.spreadFactor;
        }
        tusk::locate::FlowObservation o;
        o.flowId = std::to_string(i);
        o.line = static_cast<unsigned>(i + 2);
        o.src = f.src;
        o.dst = f.dst;
        o.bytes = c.bytes;
        o.startUs = f.start;
        o.finishUs = f.start + latency + transfer + f.lost * c.lossPenaltyUs;
        o.idealUs = latency + static_cast<double>(c.bytes) / c.rateBytesPerUs;
        o.deliveredBytes = c.bytes;
        o.retxPackets = f.lost;
        o.pathCounts = c.spray || c.qps > 1;
        for (const auto& [path, n] : f.paths)
        {
            o.paths.push_back(tusk::locate::FlowPath{path, o.pathCounts ? double(n) : 1.0});
        }
        res.obs.horizonUs = std::max(res.obs.horizonUs, o.finishUs);
        res.obs.flows.push_back(std::move(o));
    }
    return res;
}

/** True if the class of `s` contains one of the faulty directions. */
inline bool
Hits(const tusk::locate::Suspect& s, const std::vector<Fault>& faults)
{
    for (uint32_t l : s.links)
    {
        for (const auto& f : faults)
        {
            if (f.direction == l)
            {
                return true;
            }
        }
    }
    return false;
}

/**
 * Write `r` as a run directory: flows.csv (every column of a run, plus `path` or `paths`),
 * links.csv (every counter column, the faulty directions with their degraded rate and
 * corruption drops), manifest.json (the scenario with its `failures`), timeseries.csv (the
 * faulty directions' queues).
 */
inline void
WriteRun(const Result& r, const std::string& dir)
{
    namespace fs = std::filesystem;
    fs::create_directories(dir);
    const Graph& g = r.graph;
    const bool counted = r.config.spray || r.config.qps > 1;
    std::ofstream flows(fs::path(dir) / "flows.csv");
    flows << "flow_id,src,dst,bytes,start_us,finish_us,fct_us,ideal_fct_us,slowdown,finished,"
             "delivered_bytes,qps,entropy,retx_packets,ooo_packets,retx_bytes,reorder_max,"
             "reorder_mean,naks,spurious_retx,collective,step,channel,policy,job,background,"
             "scale_up,"
          << (counted ? "paths" : "path") << "\n";
    for (size_t i = 0; i < r.obs.flows.size(); ++i)
    {
        const auto& o = r.obs.flows[i];
        std::vector<std::pair<std::vector<uint32_t>, uint64_t>> ids;
        for (const auto& p : o.paths)
        {
            std::vector<uint32_t> v;
            for (uint32_t d : p.hops)
            {
                v.push_back(d / 2);
            }
            ids.emplace_back(v, static_cast<uint64_t>(p.packets));
        }
        std::string path = tusk::locate::FormatPaths(ids);
        if (!counted)
        {
            path.resize(path.rfind(':'));
        }
        const double fct = o.finishUs - o.startUs;
        flows << fmt::format("{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.9f},1,{},{},{},{},0,{},0,"
                             "0.000,{},0,-1,-1,-1,{},-1,0,0,{}\n",
                             i, o.src, o.dst, o.bytes, o.startUs, o.finishUs, fct, o.idealUs,
                             fct / o.idealUs, o.bytes, counted ? o.paths.size() : 1, 49152 + i,
                             o.retxPackets, o.retxPackets * r.config.mtuBytes, o.retxPackets,
                             counted ? "spray" : "ecmp", path);
    }
    std::map<uint32_t, const Fault*> faultOf;
    for (const auto& f : r.config.faults)
    {
        faultOf[f.direction] = &f;
    }
    std::ofstream links(fs::path(dir) / "links.csv");
    links << "link_id,from,to,from_tier,to_tier,uplink,rate_gbps,tx_frames,tx_bytes,byte_share,"
             "mean_util,max_util,max_queue_bytes,pfc_pause_tx,pfc_frames_tx,pfc_frames_rx,"
             "paused_us,ecn_marks,pfc_watchdog_triggers,drops_buffer_overflow,drops_no_route,"
             "drops_link_down,drops_nic_stale,drops_fcs,drops_ingress_headroom,"
             "drops_egress_threshold,drops_pfc_watchdog,drops_gray\n";
    for (uint32_t d = 0; d < g.Directions(); ++d)
    {
        const Fault* f = faultOf.count(d) ? faultOf[d] : nullptr;
        links << fmt::format("{},{},{},{},{},{},{:.3f},1000,4096000,,0.5,{},{},0,0,0,0.000000,0,0,"
                             "0,0,0,0,{},0,0,0,0\n",
                             d / 2, g.names[g.From(d)], g.names[g.To(d)], g.tier[g.From(d)],
                             g.tier[g.To(d)], g.tier[g.To(d)] > g.tier[g.From(d)] ? 1 : 0,
                             100.0 * (f ? f->rateFactor : 1.0), f ? "1.000000" : "0.500000",
                             f ? 4000000 : 1000, f ? static_cast<int>(1e4 * f->lossRate) : 0);
    }
    nlohmann::json failures = nlohmann::json::array();
    for (const auto& f : r.config.faults)
    {
        failures.push_back({{"at_us", 0},
                            {"kind", f.lossRate > 0 ? "loss" : "degrade"},
                            {"link", g.names[g.From(f.direction)] + "-" + g.names[g.To(f.direction)]},
                            {"rate_divisor", 1.0 / f.rateFactor}});
    }
    nlohmann::json manifest = {
        {"scenario_name", "synthetic"},
        {"seed", r.config.seed},
        {"status", "ok"},
        {"scenario", {{"nic", {{"mtu_bytes", r.config.mtuBytes}}}, {"failures", failures}}}};
    std::ofstream(fs::path(dir) / "manifest.json") << manifest.dump(2) << "\n";
    std::ofstream ts(fs::path(dir) / "timeseries.csv");
    ts << "time_us,link_id,from,to,tx_bytes,util,queue_bytes,paused_us\n";
    for (const auto& f : r.config.faults)
    {
        ts << fmt::format("10.000000,{},{},{},4096,1.000000,4000000,0.000000\n", f.direction / 2,
                          g.names[g.From(f.direction)], g.names[g.To(f.direction)]);
    }
}

} // namespace synth
} // namespace tusk_test

#endif
