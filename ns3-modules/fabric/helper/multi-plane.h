/*
 * tusk: multi-plane fabrics. A plane is a complete copy of a fabric (its own switches and
 * links, nothing shared); every host has one NIC port per plane.
 */
#ifndef TUSK_MULTI_PLANE_H
#define TUSK_MULTI_PLANE_H

#include "fabric/model/topology-graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** Most planes a fabric may have (a NIC's ports; 8 x 100 G of an 800 G NIC is the widest
 *  split built today, 16 leaves room). */
constexpr uint32_t kMaxPlanes = 16;

/**
 * \brief `planes` copies of the single-plane fabric `one` sharing its hosts.
 *
 * Vertices: the hosts of `one` (same indices and names), then plane 0's switches, plane 1's,
 * ..., each in `one`'s order, named "p<k>.<name>" ("p0.leaf3", "p2.spine5") with TopoVertex::plane = k. Links: plane 0's
 * links in `one`'s order, then plane 1's, ...; a host link's rate is `hostRateBps` (the
 * per-plane port rate), every other link keeps its rate. Since a host's links are listed in
 * increasing link index (IncidentLinks), port k of every host is its link into plane k.
 * Nothing links two planes, so no minimum-hop path between switches crosses planes and a
 * frame that enters plane k stays there.
 *
 * planes == 1 returns `one` unchanged (today's names, "leaf3").
 *
 * \throws InputError (file "", key `key`) if planes is 0 or above kMaxPlanes, if `one` has a
 * host with other than one link, or hostRateBps is 0.
 */
TopologyGraph ReplicatePlanes(const TopologyGraph& one, uint32_t planes, uint64_t hostRateBps,
                              const std::string& key);

/** The plane a NIC with `planes` ports sends a frame of UDP source port `entropy` on:
 *  entropy mod planes. A host path selector that sprays entropies sprays planes; one that
 *  keeps a QP's entropy keeps it on one plane. */
inline uint32_t
PlaneOfEntropy(uint16_t entropy, uint32_t planes)
{
    return planes <= 1 ? 0 : entropy % planes;
}

/**
 * \brief The port a NIC with `ports` ports (at most kMaxPlanes) sends a frame of UDP source
 * port `entropy` on, given which of its ports' links are up (bit k of `upMask` set = port k's
 * link is up): PlaneOfEntropy(entropy, ports) when that port is up, so with every port up it
 * is exactly PlaneOfEntropy; otherwise the (entropy mod u)-th (counting from port 0) of the u
 * ports that are up, so a QP that keeps one entropy moves to one surviving port and spraying
 * sprays the survivors; with no port up, PlaneOfEntropy (the frame waits for its link).
 */
inline uint32_t
PortOfEntropy(uint16_t entropy, uint32_t ports, uint32_t upMask)
{
    const uint32_t q = PlaneOfEntropy(entropy, ports);
    if ((upMask >> q) & 1u)
    {
        return q;
    }
    const uint32_t up = upMask & ((ports >= 32 ? 0u : (1u << ports)) - 1u);
    const auto u = static_cast<uint32_t>(__builtin_popcount(up));
    if (u == 0)
    {
        return q;
    }
    uint32_t nth = entropy % u;
    for (uint32_t k = 0; k < ports; ++k)
    {
        if (((up >> k) & 1u) && nth-- == 0)
        {
            return k;
        }
    }
    return q; // not reached
}

/**
 * \brief Dual-ToR (multi-homed) hosts: `one` with every host linked to both ToRs of a pair
 * instead of to its one ToR. The ToRs are the switches hosts link to, in vertex order; ToRs 2i
 * and 2i+1 form pair i (the classic non-stacked dual-ToR, MC-LAG layout: both ToRs of a pair
 * belong to one fabric and keep their uplinks). A host of ToR t links to ToR 2(t/2) (its port
 * 0) and ToR 2(t/2)+1 (its port 1), both at `hostRateBps`; its host links are listed where its
 * one link was, every other link keeps its place and rate, vertices and names do not change.
 * Minimum-hop routing then sees a host behind both ToRs of its pair at equal cost.
 *
 * \throws InputError (file "", key `key`) if a host of `one` has other than one link, the
 * number of ToRs is odd, the two ToRs of a pair lie in different pods, or hostRateBps is 0.
 */
TopologyGraph DualHomeHosts(const TopologyGraph& one, uint64_t hostRateBps, const std::string& key);

/**
 * \brief The links (graph link indices, in the order crossed) of a frame that host `src` sent
 * on its port `hostPort` (its plane in a multi-plane fabric: PlaneOfEntropy of the frame's
 * entropy; 0 for a host with one link), from the frame's FrameMeta::path as the receiver saw
 * it: at each switch the egress port read from the next PathHopBits(ports) bits (port p of
 * vertex v is ports[v][p]), until a host is reached.
 * \param ports IncidentLinks(g)
 * \return false (and `links` partial) if the code leads nowhere: a port index a vertex does not
 * have, more than 64 hops, or kUnknownPath (a path that did not fit)
 */
bool DecodeHostPortPath(const TopologyGraph& g, const std::vector<std::vector<uint32_t>>& ports,
                        uint32_t src, uint32_t hostPort, uint64_t path,
                        std::vector<uint32_t>& links);

/** Per-plane host port rate: `planeRateBps` if set, else hostRateBps / planes (rounded down;
 *  at least 1 bit/s). */
uint64_t PlanePortRateBps(uint64_t hostRateBps, uint32_t planes, uint64_t planeRateBps);

} // namespace ns3

#endif
