/*
 * tusk locate: what an operator observes end to end, read from a run's results.
 *
 * One row per flow: its completion time against its ideal (slowdown), its size, its
 * retransmissions, and the path(s) its packets took. Paths are the ordered `link_id`s of
 * links.csv; the direction of each hop follows from walking from the flow's source host
 * (docs/results-format.md, "Paths in flows.csv"). Nothing here reads link counters, time series
 * or the scenario's failures: from links.csv only the columns link_id, from and to (names).
 */
#ifndef TUSK_LOCATE_OBSERVATIONS_H
#define TUSK_LOCATE_OBSERVATIONS_H

#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tusk
{
namespace locate
{

/** One direction of one link: the unknowns of the tomography. */
struct DirectedLink
{
    uint32_t linkId = 0; //!< links.csv `link_id` (shared by both directions)
    std::string from;    //!< links.csv `from` (vertex name, e.g. "leaf0")
    std::string to;      //!< links.csv `to`

    /** "leaf0->spine1". */
    std::string Name() const { return from + "->" + to; }
};

/** One path of a flow: directed links (indices into Observations::links) and its packets. */
struct FlowPath
{
    std::vector<uint32_t> hops;
    double packets = 1.0; //!< packets of the flow that took this path (weight; 1 for `path`)
};

/** What is observed of one flow. Times in µs. */
struct FlowObservation
{
    std::string flowId;      //!< flows.csv `flow_id`
    unsigned line = 0;       //!< its line in flows.csv (1-based; the header is line 1)
    uint32_t src = 0;
    uint32_t dst = 0;
    uint64_t bytes = 0;
    double startUs = 0.0;
    double finishUs = 0.0;   //!< NaN if unfinished
    double idealUs = 0.0;    //!< ideal FCT: alone on the idle fabric
    bool finished = true;
    uint64_t deliveredBytes = 0;
    uint64_t retxPackets = 0;   //!< data packets retransmitted
    uint64_t spuriousRetx = 0;  //!< retransmissions the receiver already had
    /** Its frames still on their way when the run ended (flows.csv `pkts_in_flight`; 0 when
     *  absent or negative): originals overtaken by their resend on a slow path, whose
     *  duplicate would have been counted spurious had the run gone on. */
    uint64_t inFlightPackets = 0;
    std::vector<FlowPath> paths;
    bool pathCounts = false; //!< paths carry packet counts (`paths`), not just the route (`path`)
    /** Its run when several are located together (PoolObservations; 0-based), else 0. */
    uint32_t run = 0;

    /** Packets summed over paths (1 per path when only `path` gave the route). */
    double PathPackets() const;
};

/** The directed links of links.csv (one row per direction) and a lookup by link id. */
class LinkIndex
{
  public:
    LinkIndex() = default;
    explicit LinkIndex(std::vector<DirectedLink> rows);

    const std::vector<DirectedLink>& Links() const { return m_rows; }

    /** The direction of link `linkId` that leaves vertex `from` (an index into Links()), or
     *  -1 when links.csv has no such link or it does not touch `from`. */
    int Direction(uint32_t linkId, const std::string& from) const;

    /**
     * \brief Parse one path "3>17>42>9" (link ids, '>' between hops) into directed links
     * (indices into Links()), walking from `srcVertex`: each hop is the direction of that link
     * whose `from` is the current vertex.
     * A source or destination that links.csv does not name is an aggregation endpoint of an
     * in-network reduction (flows.csv numbers it as a host after the real ones, links.csv names
     * it `agg.<switch>`): the walk then starts (ends) at whichever `agg.` vertex the path does.
     * \throws std::invalid_argument saying what was wrong: not a number, an id links.csv does
     *         not have, a hop that does not touch the current vertex, a path that ends elsewhere
     *         than `dstVertex`.
     */
    std::vector<uint32_t> Walk(const std::string& text,
                               const std::string& srcVertex,
                               const std::string& dstVertex) const;

    /** Whether `name` is a vertex of links.csv (an aggregation endpoint's host id is not:
     *  links.csv names it `agg.<switch>`). */
    bool Named(const std::string& name) const { return m_vertices.count(name) > 0; }

    /** Whether links.csv has an aggregation endpoint (`agg.<switch>`): the run reduced in the
     *  network ([topology] in_network_reduction). */
    bool HasAggregationEndpoints() const { return m_aggregationEndpoints; }

  private:

    std::vector<DirectedLink> m_rows;
    std::unordered_set<std::string> m_vertices; //!< every `from` and `to`
    bool m_aggregationEndpoints = false;
    /** link id -> its rows (directions); a map: ids are any uint32, not necessarily dense. */
    std::unordered_map<uint32_t, std::vector<uint32_t>> m_rowsOfId;
};

/** Everything tusk locate reads. */
struct Observations
{
    std::string flowsFile;                 //!< for messages
    LinkIndex links;                       //!< one per direction (links.csv rows)
    std::vector<FlowObservation> flows;    //!< flows with at least one fabric path
    uint32_t skippedFlows = 0;             //!< rows without a path (scale-up, empty)
    /** Rows to or from an in-network reduction's aggregation endpoint: their completion is
     *  the reduction's (it waits for every contributor), not their path's, so they are not
     *  evidence about links. */
    uint32_t skippedReductionFlows = 0;
    /** Rows with an empty `start_us`: transfers that never started (the run stopped before
     *  their turn). They never entered the fabric, so they say nothing about its links. */
    uint32_t notStartedFlows = 0;
    uint32_t mtuBytes = 0;                 //!< payload per packet (manifest's nic.mtu_bytes), 0 = unknown
    /** The fabric's nominal (configured) link rate, bit/s: the lower of the manifest's
     *  scenario.topology.host_link_gbps and fabric_link_gbps; 0 = unknown. */
    double nominalRateBps = 0.0;
    /** The manifest's scenario.topology: each key's JSON text (sorted by key); empty: not
     *  given. What makes two runs one fabric beyond links.csv's names (CheckSameFabric). */
    std::map<std::string, std::string> topology;
    /** scenario.topology.host_link_gbps and fabric_link_gbps as configured, Gb/s; 0 = not given. */
    double hostLinkGbps = 0.0;
    double fabricLinkGbps = 0.0;
    /** The manifest's load-balancing policy (`policy`, else scenario.lb.policy); empty = unknown. */
    std::string policy;
    /** The manifest's `status` ("ok", "failed", ...; empty = unknown) and `failure` (why). */
    std::string status;
    std::string failure;
    bool haveManifest = false; //!< manifest.json was read (else the MTU is 4096, rates unknown)
    double horizonUs = 0.0;                //!< latest finish or start seen: unfinished flows end here
    /** Several runs pooled (PoolObservations): each run's horizon on the pooled time line
     *  (its unfinished flows end there, not at the last run's); empty for one run. */
    std::vector<double> runHorizonUs;
};

/**
 * \brief Read RESULTS_DIR/flows.csv (with `path` and/or `paths` columns) and the names of
 * RESULTS_DIR/links.csv (`link_id`, `from`, `to`); from manifest.json, when they are there,
 * the MTU (`scenario.nic.mtu_bytes`) and the configured link rates
 * (`scenario.topology.host_link_gbps`, `fabric_link_gbps`): nothing else of the manifest. A
 * manifest that is not valid JSON is an InputError; a missing one leaves `haveManifest` false.
 *
 * Rows whose path is empty (transfers inside a server) are counted in `skippedFlows`; rows
 * to or from an aggregation endpoint (a host links.csv does not name) in
 * `skippedReductionFlows`.
 * \throws ns3::InputError naming the file, line and column for a missing file, a missing
 *         column (a flows.csv without `path`/`paths`), a malformed number or path, a link id
 *         that links.csv does not have, or a path that does not connect the flow's hosts.
 */
Observations ReadObservations(const std::string& resultsDir);

/**
 * \brief ReadObservations of contents: flows.csv and links.csv (named `flowsFile` and
 * `linksFile` in messages) and manifest.json (nullptr: none; named `manifestFile`).
 * \throws ns3::InputError as ReadObservations, and for a manifest that is not valid JSON
 */
Observations ReadObservations(std::istream& flows,
                              const std::string& flowsFile,
                              std::istream& links,
                              const std::string& linksFile,
                              std::istream* manifest,
                              const std::string& manifestFile = "manifest.json");

/** Whether a host is at one end of `link` (`host<N>`, `p2.host<N>`). */
bool IsHostLink(const DirectedLink& link);

/**
 * \brief A directed link's configured rate, Gb/s, from the manifest: host_link_gbps for a link
 * with a host at one end (a vertex named `host<N>`, with or without a plane or site prefix),
 * fabric_link_gbps for the others; 0 when the manifest did not give it. Other topology keys
 * (planes, long-haul rates) are compared as keys (Observations::topology).
 */
double ConfiguredLinkGbps(const Observations& obs, const DirectedLink& link);

/** A vertex's tier by its name, its trailing digits dropped: "tor12" -> "tor", "agg0" ->
 *  "agg" ("p1.leaf3" -> "p1.leaf"). */
std::string VertexTier(const std::string& name);

/**
 * \brief The `paths` encoding of a set of paths: "3>17>42>9:120|3>18>43>9:98", link ids in
 * order, '>' between hops, ':' before the packet count, '|' between paths.
 */
std::string FormatPaths(const std::vector<std::pair<std::vector<uint32_t>, uint64_t>>& paths);

} // namespace locate
} // namespace tusk

#endif
