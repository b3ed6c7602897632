/*
 * tusk: per-path telemetry ([output] path_telemetry = true, paths.csv): what a NIC's path
 * selector knows about each entropy value (path) of each sending QP, as UEC NICs keep it for
 * their multipath spraying: packets and bytes sent on it, RTT samples (min, median, p99), ACKs
 * that echoed an ECN mark, trims, other losses (NACKs) and timeouts, the transmissions the
 * fabric lost (`losses`, below), plus the links its frames took (recorded by the fabric, as
 * flows.csv's `paths`).
 *
 * `losses`: a transmission (copy) of a PSN is lost when it never reached the receiving NIC,
 * whole or trimmed, while a later copy of the same PSN did. Both NICs see what this needs: the
 * sender the order and entropy of its copies, the receiver each arriving copy's PSN, entropy
 * (UDP source port) and whether it is a resend (kBthRetx, UEC's pds.flags.retx), which it can
 * report back (UEC ACKs echo the flag; SACK receivers report duplicates). A copy that arrives
 * after a later one (a late original: reordering) is not lost, nor is a frame the receiver
 * discarded (go-back-N drops out-of-order PSNs after they arrived); a copy after the last one
 * to arrive (a needless resend still on its way, or lost, when the run ended) is not judged.
 * Charged to the lost copy's entropy. A trimmed copy arrived (its header did): `trims`.
 *
 * `tracedPath`: what the sender learns by tracerouting a copy it resends (007, Arzani et al.,
 * NSDI 2018): when a QP resends a PSN (it judged a copy lost: NAK, SACK gap, trim NACK or
 * timeout, whatever its transport uses), the entropy of every earlier copy of that PSN not
 * seen to arrive is traced once (its first resend), Fabric::TracePath with the copy's headers
 * (src, dst, UDP ports, QP, priority, plane): the switches' forwarding decision for those
 * headers at that moment, no counter, queue or failure read. Under a policy whose choice is
 * not a function of the headers (adaptive routing, DRILL, ConWeave, switch spraying) there is
 * none. Kept for rows whose copies were lost and none arrived (no `paths`).
 *
 * Per route (`[output] path_telemetry = "route"`, since 2026-12-05): what a NIC learns when
 * the ACK echoes the path its data frame took (in-band network telemetry / path tracing: the
 * frame records its switches' egress ports hop by hop, FrameMeta::path, and the receiver
 * echoes them, as HPCC's INT echoes each hop's counters). The sender keys its statistics per
 * (QP, entropy, delivered route): under switch-side adaptive routing (flowlet-ar, DRILL,
 * ConWeave) a QP keeps one entropy value while the switches spread its frames over several
 * paths, and each of those gets a row of its own (RouteRow), with the packets, bytes and
 * resends that arrived by it, the RTT samples and ECN echoes of the ACKs of its frames and
 * the trims of its frames. What no route can be given (the copies that never arrived, their
 * losses, the path selector's NACKs and timeouts, which it counts per entropy) stays on one
 * row per entropy with no route. A PSN's route is the route of its latest copy to arrive
 * before its ACK (Karn: a resent PSN gives no RTT sample anyway).
 *
 * Everything comes from trace sources that are connected only when the option is on
 * (RdmaNic "QpCreated", then the QP's PacketSent, PacketRetransmitted, PacketAcked,
 * NakReceived and PacketReceived and its PathSelector's Feedback): a run without it connects
 * nothing and its results are unchanged.
 */
#ifndef TUSK_RUN_PATH_TELEMETRY_H
#define TUSK_RUN_PATH_TELEMETRY_H

#include "fabric/model/fabric-net-device.h"
#include "rdma/model/path-selector.h"
#include "rdma/model/rdma-nic.h"
#include "rdma/model/rdma-queue-pair.h"

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{
struct Fabric;
}

namespace tusk
{

/**
 * \brief A streaming quantile sketch of positive values with bounded relative error: DDSketch
 * (Masson, Rim & Lee, "DDSketch: a fast and fully-mergeable quantile sketch with
 * relative-error guarantees", VLDB 2019). Value x > 0 falls in bucket ceil(log_g x), g = (1 +
 * a) / (1 - a); a quantile is the bucket's midpoint 2 g^i / (g + 1), within a relative error
 * a of the true sample quantile (rank ceil(q (n - 1)), 0-based). Memory: one counter per
 * bucket in use, at most log_g(max / min) + 1 (about 580 for a = 1 % over 1 µs .. 100 ms),
 * whatever the number of samples. The minimum is kept exactly.
 */
class RelativeErrorSketch
{
  public:
    /** \param alpha relative accuracy, in (0, 1) */
    explicit RelativeErrorSketch(double alpha = 0.01);
    /** Add a sample; values <= 0 are counted in the lowest bucket (as the minimum). */
    void Add(double x);
    uint64_t Count() const { return m_count; }
    /** Smallest sample (exact); 0 with no sample. */
    double Min() const { return m_count ? m_min : 0.0; }
    /** The q-quantile, q in [0, 1], within relative error alpha; 0 with no sample. */
    double Quantile(double q) const;
    /** Buckets in use (the memory it holds). */
    size_t Buckets() const { return m_buckets.size(); }

  private:
    double m_logGamma;
    double m_gamma;
    uint64_t m_count = 0;
    double m_min = 0.0;
    /** (bucket index, samples), sorted by index. */
    std::vector<std::pair<int32_t, uint64_t>> m_buckets;
};

/** One row of paths.csv: one entropy value of one sending QP; per route (Attach's `routes`):
 *  one route of one entropy value, or the entropy's copies that no route can be given. */
struct PathTelemetryRow
{
    uint32_t src = 0;      //!< sending host
    uint32_t dst = 0;      //!< receiving host
    uint32_t qpn = 0;      //!< QP number at src
    uint16_t entropy = 0;  //!< UDP source port the packets carried
    uint64_t packets = 0;  //!< data packets sent with it, resends included
    uint64_t bytes = 0;    //!< their payload bytes
    uint64_t retxPackets = 0; //!< of `packets`, resends
    uint64_t rttSamples = 0;  //!< ACKed packets that gave an RTT (not resent: Karn)
    double rttMinUs = 0;      //!< smallest RTT sample, µs
    double rttMedianUs = 0;   //!< median RTT, µs (sketch, 1 % relative error)
    double rttP99Us = 0;      //!< 99th percentile RTT, µs (sketch, 1 % relative error)
    uint64_t ecnAcks = 0;     //!< packets whose acknowledgement echoed a CE mark
    uint64_t trims = 0;       //!< trim NACKs for its packets
    uint64_t nacks = 0;       //!< its packets declared lost other than by a trim NACK
    uint64_t timeouts = 0;    //!< retransmission timeouts charged to it (oldest outstanding)
    uint64_t losses = 0;      //!< its transmissions that never arrived while a later copy did
    /** The links its frames arrived by (links.csv link_ids in order) and the frames on each,
     *  in order of first arrival; frames dropped on the way are not counted. */
    std::vector<std::pair<std::vector<uint32_t>, uint64_t>> paths;
    /** The traced path of this entropy (links.csv link_ids in order, the host's link first),
     *  when `losses` > 0, `paths` is empty and the trace reached `dst`; else empty. */
    std::vector<uint32_t> tracedPath;
    /** Per-route rows only: the route its frames arrived by (links.csv link_ids in order, the
     *  host's link first; `paths` holds it alone with its frames); empty on the entropy's row
     *  of what no route can be given (copies that never arrived, NACKs, timeouts). */
    std::vector<uint32_t> route;
    /** Per-route rows only: when its first and its last frame arrived (simulated time, µs):
     *  whether a QP's routes were used side by side (per-packet spreading) or one after the
     *  other (a reroute). */
    double firstArrivalUs = 0;
    double lastArrivalUs = 0;
};

/**
 * \brief Collects paths.csv's rows from trace sources while a run goes on. Attach connects
 * every NIC's QpCreated; each QP created afterwards is followed. Take returns the rows.
 * Not copyable or movable: callbacks are bound to its members.
 */
class PathTelemetryCollector
{
  public:
    PathTelemetryCollector() = default;
    PathTelemetryCollector(const PathTelemetryCollector&) = delete;
    PathTelemetryCollector& operator=(const PathTelemetryCollector&) = delete;

    /** Follow every QP `nics` create from now on (nics indexed by host id); `fabric`, when
     *  given, is traced from on every resend (tracedPath). `routes`: key the statistics per
     *  (QP, entropy, delivered route) as well (`path_telemetry = "route"`; file comment). */
    void Attach(const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics,
                const ns3::Fabric* fabric = nullptr, bool routes = false);
    /** The rows, sorted by (src, qpn, entropy), paths decoded by `fabric`; QPs that sent
     *  nothing have none. Per route: each entropy's routes in the order their first frame
     *  arrived, then its row without a route when it has anything to count. Drops the
     *  collected state. */
    std::vector<PathTelemetryRow> Take(const ns3::Fabric& fabric);

  private:
    /** What arrived by one route of one entropy value (per-route rows). */
    struct RouteStats
    {
        uint64_t packets = 0; //!< copies that arrived by it (trimmed ones included)
        uint64_t bytes = 0;
        uint64_t retx = 0;
        uint64_t ecn = 0;
        uint64_t trims = 0;
        RelativeErrorSketch rtt;
        double firstUs = 0; //!< simulated time its first frame arrived, µs
        double lastUs = 0;  //!< simulated time its last frame arrived, µs
    };
    struct EntropyStats
    {
        uint64_t packets = 0;
        uint64_t bytes = 0;
        uint64_t retx = 0;
        uint64_t ecn = 0;
        uint64_t trims = 0;
        uint64_t lossFeedback = 0; //!< PathSelector NACK feedback (trims included)
        uint64_t timeouts = 0;
        uint64_t losses = 0; //!< counted when the collector is emptied (Take)
        RelativeErrorSketch rtt;
        std::vector<std::pair<uint64_t, uint64_t>> paths; //!< (FrameMeta::path, frames)
        bool traced = false;          //!< a trace was tried (at most one per entropy)
        std::vector<uint32_t> traceLinks; //!< its result when it reached the receiver
        /** Per route, in order of first arrival: (FrameMeta::path, what arrived by it). */
        std::vector<std::pair<uint64_t, RouteStats>> routes;
        /** RTT samples of ACKs whose PSN had no arrival recorded (no route to give them). */
        RelativeErrorSketch unroutedRtt;
    };
    /** A PSN in flight: the entropy and payload of its latest copy, and whether that copy is
     *  a resend. */
    struct Outstanding
    {
        uint16_t entropy = 0;
        bool resent = false;
        uint32_t payload = 0;
    };
    /** The transmissions of one PSN, in the order sent. */
    struct Copies
    {
        boost::container::small_vector<std::pair<uint16_t, bool>, 2> sent; //!< entropy, arrived
        bool acked = false;
        /** Bit i: copy i was dropped in the fabric (a "Drop" trace). A copy neither arrived
         *  nor dropped when the run ends was still on its way: not judged lost. Copies past
         *  the 32nd are judged as dropped (they have no bit). */
        uint32_t dropped = 0;
    };
    /** One QP's state, as sender (entropies) and as receiver (its peer, found lazily). */
    struct QpState
    {
        PathTelemetryCollector* self = nullptr;
        uint32_t host = 0;
        ns3::Ptr<ns3::RdmaQueuePair> qp;
        std::map<uint16_t, EntropyStats> entropies;
        /** Outstanding PSN -> its latest copy; erased when acknowledged, so bounded by the
         *  QP's window. */
        std::unordered_map<uint64_t, Outstanding> outstanding;
        /** Per route: outstanding PSN -> the entropy and route (FrameMeta::path) of its latest
         *  copy to arrive, what the receiver echoes in its ACK; erased when acknowledged. */
        std::unordered_map<uint64_t, std::pair<uint16_t, uint64_t>> arrivedRoute;
        /** PSN -> its copies in the order sent: (entropy, arrived). Erased once acknowledged
         *  with every copy arrived, so it holds the window, the lost copies and the resends
         *  still on their way. */
        std::unordered_map<uint64_t, Copies> copies;
        QpState* peer = nullptr; //!< the sending QP whose packets this one receives
    };

    static void OnQpCreated(PathTelemetryCollector* self, uint32_t host,
                            ns3::Ptr<ns3::RdmaQueuePair> qp);
    static void OnSent(QpState* q, uint64_t psn, uint32_t payload, uint16_t entropy);
    static void OnResent(QpState* q, uint64_t psn, uint32_t payload, uint16_t entropy);
    static void OnAcked(QpState* q, uint64_t psn, uint16_t entropy, bool ecn, ns3::Time rtt);
    static void OnNak(QpState* q, uint64_t psn, bool trim);
    static void OnFeedback(QpState* q, uint16_t entropy, ns3::PathSelector::Feedback fb);
    /** "Drop" of any fabric device: a data frame of a traced QP marks its copy dropped. */
    static void OnDropped(PathTelemetryCollector* self, ns3::Ptr<const ns3::Packet> packet,
                          const ns3::FrameMeta& meta, ns3::DropReason reason);
    static void OnReceived(QpState* q, uint64_t psn, bool trimmed, uint64_t path,
                           uint16_t entropy, bool resent);
    /** Count the copies of `c` lost before its last arrived one into `q`'s entropies. */
    static void ChargeLosses(QpState* q, const Copies& c);
    void Note(QpState* q, uint64_t psn, uint32_t payload, uint16_t entropy, bool resent);
    /** Traceroute `entropy` of `q`'s packets through m_fabric (once per entropy). */
    void Trace(QpState* q, uint16_t entropy);
    /** The statistics of `route` of `e`, added in order of first arrival. */
    static RouteStats& RouteOf(EntropyStats& e, uint64_t route);
    /** Append the per-route rows of entropy `entropy` of `q` (QP number `qpn`) to `rows`:
     *  one per route whose path `fabric` decodes, then the row of what no route is given. */
    static void TakeRoutes(const ns3::Fabric& fabric, const QpState& q, uint32_t qpn,
                           uint16_t entropy, const EntropyStats& e,
                           std::vector<PathTelemetryRow>& rows);

    std::vector<ns3::Ptr<ns3::RdmaNic>> m_nics;
    const ns3::Fabric* m_fabric = nullptr; //!< traced from on resends; null: no traces
    bool m_routes = false; //!< statistics per delivered route as well (Attach)
    std::deque<QpState> m_qps; //!< stable addresses: the callbacks are bound to them
    /** (host, qpn) -> its state, to find a receiving QP's sender. */
    std::map<std::pair<uint32_t, uint32_t>, QpState*> m_byQpn;
};

} // namespace tusk

#endif
