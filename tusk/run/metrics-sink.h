/*
 * tusk: MetricsSink, the tables of a run built from trace sources (docs/architecture.md).
 *
 * Connected before the run to the trace sources whose every event it needs: every port's Drop
 * (a dropped data frame is charged to its transfer) and Pfc (each PFC frame is a row of
 * pfc_events.csv; with `[output] drop_log`, each drop is a row of drops.csv) (ns3::FabricNetDevice), every switch (ns3::SwitchNode: Trim) and its MMU
 * (ns3::SharedBufferMmu: HeadroomAdmit), and the workload executor (TransferStarted,
 * TransferDelivered, TransferAcknowledged). What a port counts itself is read once at the end
 * from its PortCounters (frames and bytes, PFC frames received, ECN marks, the deepest queue,
 * the busiest utilisation window, watchdog triggers, drops by reason), as is what is state
 * rather than an event: how long each port was paused (FabricNetDevice::GetPausedPs) and its
 * rate (a degraded link's). A listener per counter on every port cost instructions per hop and
 * memory per port (docs/performance.md). The QP counters of flows.csv (retransmissions,
 * reordering) come from the executor's records.
 */
#ifndef TUSK_METRICS_SINK_H
#define TUSK_METRICS_SINK_H

#include "run/runner.h"

#include "fabric/helper/fabric-helper.h"
#include "workload/model/workload-executor.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <array>
#include <string>
#include <utility>
#include <vector>

namespace tusk
{

class MetricsSink
{
  public:
    /** When a transfer started, was delivered, was acknowledged, ps (kNoTime = never). */
    struct TransferTimes
    {
        uint64_t startPs = kNoTime;
        uint64_t deliveredPs = kNoTime;
        uint64_t acknowledgedPs = kNoTime;
    };

    MetricsSink() = default;
    MetricsSink(const MetricsSink&) = delete; // the trace callbacks point into it
    MetricsSink& operator=(const MetricsSink&) = delete;

    /**
     * \brief Connect to every trace source the tables need: the ports in links.csv order (graph
     * link order, the A end then the B end), the switches and their MMUs, and `exec` for
     * `transfers` transfers. `dropLog`: also record every drop (TakeDropEvents); a bound
     * callback more per port, so only when asked.
     */
    void Connect(const ns3::TopologyGraph& graph,
                 const ns3::Fabric& fabric,
                 ns3::Ptr<ns3::WorkloadExecutor> exec,
                 size_t transfers,
                 bool dropLog = false);

    /** Transfer t's times (all kNoTime once released). */
    const TransferTimes& Times(uint32_t t) const { return m_transfers[t]; }
    /** Transfers connected (Connect's `transfers`). */
    size_t TransferCount() const { return m_transfers.size(); }
    /** \brief Free the times of transfers [first, last) (a job iteration retired: its rows
     *  are built). */
    void ReleaseTimes(uint64_t first, uint64_t last) { m_transfers.Release(first, last); }

    /**
     * \brief The rows of links.csv at the end of the run: closes every utilisation window open
     * at `now` and reads each port's paused time and rate. Mean utilisation is over `durationPs`.
     */
    std::vector<LinkRow> LinkRows(uint64_t durationPs, ns3::Time now);

    /** Fast mode and steady-state jumps: every port's counters now, in links.csv order, with
     *  what jumps skipped (AddSkippedCounters). */
    std::vector<ns3::PortCounters> PortCounterSnapshot() const;
    /** Fast mode: the replayed iterations' counters per port (links.csv order), which
     *  LinkRows adds to what the ports counted (maxima maxed). */
    void SetReplayedCounters(std::vector<ns3::PortCounters> c) { m_replayed = std::move(c); }
    /** Steady-state jumps: add `c` (in the order of PortCounterSnapshot) to the counters
     *  LinkRows reports: the frames, bytes and CE marks the skipped time would have counted.
     *  The ports' own counters (time series) do not see them; PortCounterSnapshot does. */
    void AddSkippedCounters(const std::vector<ns3::PortCounters>& c);

    /** Every PFC frame sent or received, in time order (pfc_events.csv). */
    std::vector<PfcEventRow> TakePfcEvents() { return std::move(m_pfcEvents); }

    /** Every frame a port dropped, in time order (drops.csv; empty unless Connect's
     *  `dropLog`). */
    std::vector<DropEventRow> TakeDropEvents() { return std::move(m_dropEvents); }

    /** Data frames trimmed by all switches. */
    uint64_t TrimmedFrames() const { return m_trimmed; }

    /**
     * \brief The first port, in time, that sent faster than its rate
     * (FabricNetDevice::GetLineRateViolation: over some FabricNetDevice::kRateCheckFrames
     * consecutive frames, the time from the first start to the last start was shorter than
     * their serialisation), as a sentence naming the link; "" if none.
     */
    std::string LinkRateViolation() const;

    /** Largest PFC headroom any lossless PG of a switch port of this (rate, delay) used, bytes. */
    uint64_t MaxHeadroomUsed(uint64_t rateBps, uint64_t delayPs) const;

  private:
    /** One direction of one link: what its transmitting port did. */
    struct Port
    {
        LinkRow row; //!< its `from` and `to` also name the PFC event table's nodes
        uint64_t lineRateBps = 0;              //!< the link's rate in the topology
        ns3::Ptr<ns3::FabricNetDevice> dev;
        std::vector<PfcEventRow>* events = nullptr;
        uint32_t index = 0;                        //!< its row of links.csv
        std::vector<DropEventRow>* drops = nullptr; //!< drop_log: where its drops go
    };

    /** A dropped data frame counts against its transfer (flows.csv). */
    static void OnDrop(ns3::WorkloadExecutor* exec,
                       ns3::Ptr<const ns3::Packet> packet,
                       const ns3::FrameMeta& meta,
                       ns3::DropReason reason);
    /** drop_log: a row of drops.csv. */
    static void OnDropLogged(Port* p,
                             ns3::Ptr<const ns3::Packet> packet,
                             const ns3::FrameMeta& meta,
                             ns3::DropReason reason);
    static void OnPfc(Port* p, const ns3::PfcEvent& e);
    void OnTrim(ns3::Ptr<const ns3::Packet> packet, const ns3::FrameMeta& meta);
    void OnStarted(uint32_t transfer);
    void OnDelivered(uint32_t transfer);
    void OnAcknowledged(uint32_t transfer);

    std::vector<Port> m_ports;
    std::vector<ns3::PortCounters> m_replayed; //!< SetReplayedCounters
    std::vector<ns3::PortCounters> m_skipped;  //!< AddSkippedCounters, summed
    std::vector<PfcEventRow> m_pfcEvents;
    std::vector<DropEventRow> m_dropEvents;
    ns3::PagedArray<TransferTimes> m_transfers; //!< by transfer id, pages of live ones only
    uint64_t m_trimmed = 0;
    /** Per switch: per port, (rate, delay) of its link and the most headroom it used. */
    std::vector<std::vector<std::pair<std::pair<uint64_t, uint64_t>, uint64_t>>> m_headroom;
};

} // namespace tusk

#endif
