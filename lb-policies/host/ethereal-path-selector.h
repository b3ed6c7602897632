/*
 * tusk: EtherealPathSelector, an application-split subflow pinned to one source route that is
 * moved (re-pinned) to the sender's least-loaded route when its route loses packets, and
 * EtherealHostPaths, the per-host table of routes those subflows share.
 */
#ifndef TUSK_ETHEREAL_PATH_SELECTOR_H
#define TUSK_ETHEREAL_PATH_SELECTOR_H

#include "rdma/model/path-selector.h"

#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>

namespace ns3
{

class RdmaNic;
class RdmaQueuePair;

/**
 * \brief What one sending host knows about its source routes: how many of its subflows are
 * pinned to each route (the load the least-loaded choice compares) and which routes it has
 * seen fail, until when. Shared by the EtherealPathSelectors of one NIC (AttachTo); a selector
 * without one keeps a private table. Sparse (maps): a host pins to a handful of the up to
 * 16,384 routes.
 */
class EtherealHostPaths : public Object
{
  public:
    static TypeId GetTypeId();
    /** `routes`: the fabric's routes (count; 0 = the Routes of the first selector attached);
     *  `cursor`: where the first tie-break scan starts (AttachTo passes the host id, so the
     *  hosts of one leaf start at different routes). */
    EtherealHostPaths(uint32_t routes = 0, uint32_t cursor = 0);

    uint32_t GetRoutes() const { return m_routes; }
    /** Set the route count if it is still 0. */
    void SetRoutesIfUnset(uint32_t routes);
    /** Subflows of this host pinned to `route` now. */
    uint32_t Load(uint32_t route) const;
    /** A subflow pins to `route` (+1 load) / leaves it (-1). */
    void Pin(uint32_t route);
    void Unpin(uint32_t route);
    /** `route` failed: avoided, and left by the subflows on it, until `untilPs`. */
    void MarkFailed(uint32_t route, uint64_t untilPs);
    /** MarkFailed calls so far (a subflow looks for its route's mark only when it grew). */
    uint64_t GetMarks() const { return m_marks; }
    /** Whether `route` is marked failed at `nowPs`. */
    bool Failed(uint32_t route, uint64_t nowPs) const;
    /**
     * \brief The route a subflow leaving `from` moves to at `nowPs`: the least-loaded route
     * not marked failed and not `from`, ties broken by the first found scanning cyclically
     * from the host's cursor (which then moves past the pick, so successive moves spread).
     * When every other route is marked failed, the least-loaded other route; with one route
     * (or none set), `from`.
     */
    uint32_t LeastLoaded(uint32_t from, uint64_t nowPs);
    /** The RdmaNic of `host` in the running simulation (ns-3's NodeList, read once), or
     *  nullptr. Not owned: the nodes outlive the table's use. */
    RdmaNic* NicOf(uint32_t host);

  private:
    uint32_t m_routes;
    uint32_t m_cursor;
    std::map<uint32_t, uint32_t> m_load;
    std::map<uint32_t, uint64_t> m_failedUntilPs;
    std::map<uint32_t, RdmaNic*> m_nics;
    uint64_t m_marks = 0;
};

/**
 * \brief Ethereal's sender (Addanki, Goyal, Marinos, Schmid, "Ethereal: Divide and Conquer
 * Network Load Balancing in Large-Scale Distributed Training", arXiv 2407.00550, 2024): one
 * subflow (QP) of an application-split transfer, pinned to one source route (the route of its
 * base entropy, 49152 + route, set by the workload's QpEntropy Routes), with failure handling:
 *
 * - **detect**: the subflow's current route has lost packets when RepinLosses NACKs (trims or
 *   losses) arrive for it in a row, or on one retransmission timeout (TIMEOUT), or, when
 *   FailoverTime is not zero, when packets sent on it have had no feedback for FailoverTime;
 *   GOOD or ECN feedback ends a run of NACKs;
 * - **re-pin**: the subflow moves to the least-loaded of its host's routes (fewest of the
 *   host's subflows pinned to it, EtherealHostPaths::LeastLoaded). After a timeout or silence
 *   (nothing came back: a failure) the host also marks the old route failed for
 *   RouteHoldDown: no subflow of the host moves onto it meanwhile, and every other subflow of
 *   the host pinned to it moves at its next packet; a run of NACKs (trims: congestion, or
 *   losses) moves only this subflow. Resends and new packets then take the new route;
 *   feedback for the old route is ignored.
 *
 * Acknowledgements travel the subflow's route back (a source-routed reply reverses the data's
 * route): the peer QP's entropy for control frames is set to the subflow's route at its first
 * packet and after every move, so a failure that kills only the acknowledgements is found
 * (by the timeout) and left like one that kills the data. With the default selector a
 * responder answers on a route of its own, drawn at connection.
 *
 * With Failover = false it is FixedPathSelector: the base entropy for the QP's lifetime.
 * The paper's text available here (its abstract and summaries) says that Ethereal keeps
 * per-flow context for failure handling and recovers losses the RoCE way; the thresholds, the
 * silence rule, the hold-down and the least-loaded rule with its tie-break are tusk's choices.
 * Policy preset `ethereal` (lb-policies/README.md).
 */
class EtherealPathSelector : public PathSelector
{
  public:
    /** TracedCallback signature of "Repinned": the subflow left `from` for `to` (entropies). */
    typedef void (*RepinTracedCallback)(uint16_t from, uint16_t to);

    static TypeId GetTypeId();
    EtherealPathSelector();

    /** Share `paths` with the other subflows of the host (before the first packet); sets
     *  its route count from Routes if it has none. */
    void SetHostPaths(Ptr<EtherealHostPaths> paths);
    /** The QP this selector chooses for (not owned: the QP owns the selector). When set, the
     *  peer QP's acknowledgements take the subflow's route, from its first packet on and
     *  after every move. */
    void SetQp(RdmaQueuePair* qp) { m_qp = qp; }
    Ptr<EtherealHostPaths> GetHostPaths() const { return m_host; }
    /** The route the subflow is pinned to now. */
    uint32_t GetRoute() const;
    /** Times the subflow moved to another route. */
    uint64_t GetRepins() const { return m_repins; }

    /**
     * \brief Give every EtherealPathSelector that `nic` creates from now on one
     * EtherealHostPaths (the host's table, tie-break cursor at its host id), through the
     * NIC's QpCreated trace. QPs with other selectors are left alone.
     */
    static void AttachTo(Ptr<RdmaNic> nic);

  private:
    uint16_t DoNextEntropy(Time now) override;
    void DoFeedback(uint16_t entropy, Feedback fb, Time now) override;
    void Pin();
    void Repin(uint64_t nowPs);
    /** The peer QP answers on the subflow's current route (its entropy for control frames,
     *  RdmaNic::ControlMeta). */
    void MoveAcks() const;

    bool m_failover = true;
    uint32_t m_routes = 1;
    uint32_t m_repinLosses = 3;
    Time m_failoverTime;
    Time m_holdDown;

    Ptr<EtherealHostPaths> m_host;
    RdmaQueuePair* m_qp = nullptr;
    bool m_pinned = false;
    uint32_t m_route = 0;
    uint16_t m_entropy = 0; //!< the entropy of the current route
    uint32_t m_lossRun = 0;
    uint64_t m_lastFeedbackPs = 0;
    uint64_t m_seenMarks = 0;      //!< the host's GetMarks() when this subflow last looked
    std::deque<uint64_t> m_sentPs; //!< with FailoverTime: send times without feedback yet
    uint64_t m_repins = 0;
    TracedCallback<uint16_t, uint16_t> m_repinTrace;
};

} // namespace ns3

#endif
