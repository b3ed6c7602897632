/*
 * tusk: source-routed paths. The sending host chooses a frame's whole path (its plane and the
 * egress at every switch) and writes it into the frame as a route number; switches forward by
 * the route instead of hashing (the "source-route" switch policy, SourceRouteLoadBalancer).
 *
 * The route travels in the low 14 bits of the frame's UDP source port (route r is sent with
 * entropy 49152 + r, the IANA dynamic port range), so the NIC's plane rule, plane = entropy
 * mod ports (PlaneOfEntropy, PortOfEntropy), and the switches read the same field. A route
 * number is a mixed-radix number: r mod ports chooses the host's NIC port (`planes` below: its
 * plane in a multi-plane fabric, its ToR on a dual-ToR host; for a count that divides 49152:
 * 1, 2, 3, 4, 6, 8, 12, 16; otherwise the port is (49152 + r) mod ports), the quotient q =
 * r / ports chooses the equal-cost egress at every switch: the switch at hop h (h = 0 for
 * the first switch, read from the frame's TTL: 64 - ttl) takes candidate
 * (q / (radix_0 ... radix_{h-1})) mod count of its `count` equal-cost ports towards the
 * destination, in port order (EqualCostTable). In a leaf-spine the radices are (spines), in a
 * fat tree (k/2, k/2), on dual-ToR hosts one more for the destination's two ToRs. The port being
 * its own digit, consecutive routes spray every port and every spine evenly. Every route is a
 * minimum-hop path, and the routes 0 .. Routes() - 1
 * between two hosts on different leaves (pods) are all distinct paths.
 */
#ifndef TUSK_SOURCE_ROUTES_H
#define TUSK_SOURCE_ROUTES_H

#include "fabric/model/equal-cost-table.h"
#include "fabric/model/topology-graph.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/** Bits of the UDP source port that carry a route. */
constexpr uint32_t kRouteBits = 14;
/** Most routes a frame can name (2^14). */
constexpr uint32_t kMaxRoutes = 1u << kRouteBits;
/** Entropy of route 0: the first port of the dynamic range (RFC 6335). */
constexpr uint16_t kRouteEntropyBase = 49152;

/** The route a frame carries: the low 14 bits of its UDP source port. */
inline uint32_t
RouteOfEntropy(uint16_t entropy)
{
    return entropy & (kMaxRoutes - 1);
}

/** The UDP source port that carries route `route` (< kMaxRoutes). */
inline uint16_t
EntropyOfRoute(uint32_t route)
{
    return static_cast<uint16_t>(kRouteEntropyBase + (route & (kMaxRoutes - 1)));
}

/**
 * \brief How route numbers map to paths in one fabric: its host port count and the number of
 * equal-cost choices at each switch hop of a longest host-to-host path.
 */
struct SourceRouteLayout
{
    /** The route's lowest radix: the most NIC ports of a host (the plane count in a
     *  multi-plane fabric, 2 on dual-ToR hosts). The switch policy's Planes attribute. */
    uint32_t planes = 1;
    /** radices[h]: equal-cost egress ports at switch hop h of a longest path (trailing 1s
     *  dropped: a leaf-spine has {spines}, a fat tree {k/2, k/2}). */
    std::vector<uint32_t> radices;

    /** Distinct routes between two hosts at the longest distance: planes (ports) x product of
     *  the radices (saturates at UINT32_MAX). */
    uint32_t Routes() const;
    /** The radices as the switch policy's HopRadices attribute reads them: "16" or "4,4"
     *  (empty for a fabric without choices). */
    std::string RadixText() const;
};

/**
 * \brief The layout of `g` with forwarding table `table` (ComputeEqualCostPorts(g)): planes =
 * the larger of 1 + the highest TopoVertex::plane and the most links of a host; radices from
 * the walk of route 0 from host 0 to each other host, the longest walk's candidate counts.
 */
SourceRouteLayout SourceRouteLayoutOf(const TopologyGraph& g, const EqualCostTable& table);

/**
 * \brief The candidate index switch hop `hop` takes for `route`, among `count` >= 1 equal-cost
 * ports: (route / planes / divisors[hop]) mod count, where divisors[h] is the product of the
 * radices before hop h (RouteDivisors). Hops past the last divisor use the last one.
 */
inline uint32_t
RouteChoice(uint32_t route, uint32_t planes, const std::vector<uint32_t>& divisors, uint32_t hop,
            uint32_t count)
{
    const uint32_t d = divisors.empty() ? 1 : divisors[hop < divisors.size() ? hop
                                                                             : divisors.size() - 1];
    return (route / planes / d) % count;
}

/** divisors[h] = radices[0] x ... x radices[h-1] (divisors[0] = 1), one more entry than
 *  radices. */
std::vector<uint32_t> RouteDivisors(const std::vector<uint32_t>& radices);

/**
 * \brief The links (graph link indices, in the order crossed) of route `route` from host src
 * to host dst under `layout`: the host's link into the route's plane, then at each switch the
 * candidate RouteChoice picks among table's ports. Empty if a switch has no route (or src ==
 * dst). What the source-route switch policy does, walked on the graph: the oracle of the
 * tests and the path a path set's entry names.
 * \param ports IncidentLinks(g)
 */
std::vector<uint32_t> RouteLinks(const TopologyGraph& g,
                                 const std::vector<std::vector<uint32_t>>& ports,
                                 const EqualCostTable& table, const SourceRouteLayout& layout,
                                 uint32_t src, uint32_t dst, uint32_t route);

/**
 * \brief The route that retraces a path backwards: `links` is a path from host `src` to host
 * `dst` (graph link indices in the order crossed, as RouteLinks gives them or a frame's
 * FrameMeta::path decodes to), and `route` gets a route r such that
 * RouteLinks(g, ports, table, layout, dst, src, r) is `links` reversed: the route a reply from
 * dst to src carries to take the data frame's links back. The route `route` holds on entry
 * (the data frame's own) is kept if it does; in a symmetric Clos (leaf-spine, fat tree, their
 * planes) it always does. Otherwise solved digit by digit: the port digit from dst's link the
 * path ends on, then for every switch of the reverse walk, from the last to the first, the
 * digit whose RouteChoice picks the path's link among the switch's candidates towards src;
 * the result is walked to check it. On dual-ToR hosts the port digit and the last ToR's digit
 * trade places (the reply leaves by the ToR the data arrived through and ends at the ToR the
 * data left by).
 * \param ports IncidentLinks(g)
 * \return false (`route` unchanged) if no route of `layout` names the reversed path (a path
 * that is not a minimum-hop path of the table, or one that does not end at dst)
 */
bool ReverseRoute(const TopologyGraph& g, const std::vector<std::vector<uint32_t>>& ports,
                  const EqualCostTable& table, const SourceRouteLayout& layout, uint32_t src,
                  uint32_t dst, const std::vector<uint32_t>& links, uint32_t& route);

/**
 * \brief The entropy of a reply (an ACK, NACK or CNP) that answers a data frame on the reverse of
 * the links the frame took, under source routing: what RdmaNic's AckRoute = Reverse asks of the
 * fabric. Holds the fabric's graph, forwarding table and route layout.
 */
class SourceRouteReplies
{
  public:
    SourceRouteReplies(TopologyGraph g, std::shared_ptr<const EqualCostTable> table);

    /**
     * \brief The UDP source port of a reply from host `dst` to host `src` answering a data frame
     * src sent with UDP source port `entropy` that arrived with FrameMeta::path `path`
     * (ReceivedPath): the route that retraces the links the frame took (decoded from `path`,
     * through the host port the NIC's rule gives `entropy`; when the path cannot be decoded,
     * the links `entropy`'s route names), as 49152 + route. `entropy` itself if no route names
     * that path back (ReverseRoute).
     */
    uint16_t ReplyEntropy(uint32_t src, uint32_t dst, uint16_t entropy, uint64_t path) const;
    const SourceRouteLayout& GetLayout() const { return m_layout; }

  private:
    TopologyGraph m_graph;
    std::shared_ptr<const EqualCostTable> m_table;
    std::vector<std::vector<uint32_t>> m_ports;
    SourceRouteLayout m_layout;
    mutable std::vector<uint32_t> m_links; //!< scratch
};

/**
 * \brief The source-route switch policy's attributes for fabric `g` ("Planes", "HopRadices");
 * `routes`, if given, gets the layout's Routes().
 * \throws InputError (file "", key `key`) if the fabric has more routes than a frame can name
 * (Routes() > kMaxRoutes)
 */
std::map<std::string, std::string> SourceRouteAttributes(const TopologyGraph& g,
                                                         const std::string& key,
                                                         uint32_t* routes = nullptr);

} // namespace ns3

#endif
