/*
 * tusk: active monitoring probes between NICs (`[probes]`, probes.csv), as operators of RoCE
 * fabrics run them beside the training traffic: Pingmesh (Guo et al., SIGCOMM 2015) has
 * every server probe a set of peers all the time, R-Pingmesh (Liu et al., SIGCOMM 2024) does
 * it between RNICs with RoCEv2 UD datagrams and traces each probe's 5-tuple to its path.
 *
 * Why tusk has them: a fault that the load balancer hides from the traffic (a lossy cable
 * under switch spraying or DRILL, where no sender knows which route a lost frame took; a
 * cable a ring all-reduce never crosses) is still crossed by probes, whose paths are pinned
 * (switches forward probes by a hash of their 5-tuple, SwitchNode::ProbeEgressIndex) and
 * whose losses and delays are therefore each path's own.
 *
 * What is sent: each host h draws `targets` other hosts and, per target, `entropies` distinct
 * UDP source ports from 49152..65535 (the run's random stream), a stream per (target, port).
 * Every `interval` it sends one probe of `bytes` to the next stream in turn
 * (RdmaNic::SendProbe: the NIC's control class, ahead of data), with the stream's next
 * sequence number and its send time; host h's first probe leaves at a uniform offset in the
 * first interval, so the hosts do not send in step. With `largeBytes`, each host also sends
 * one probe of that size every `largeInterval` over the same (target, port) pairs, its own
 * round robin and offset (with `poisson`, each host's gaps are exponential draws of mean the
 * interval, RFC 2330 section 11.1.1): a size is a stream of its own (its own sequence
 * numbers, counts and row), and a probe's payload says which (FrameMeta::psn: the size class
 * in its top byte, the sequence number below, as an agent's payload header would).
 *
 * What is counted, per stream, at the receiver (RdmaNic "ProbeReceived"): probes received,
 * the one-way delay of each (arrival - send time: the simulator's clocks are exact; real
 * agents need PTP-synchronised NIC clocks, or measure RTTs), the route each took
 * (FrameMeta::path, recorded hop by hop as INT path tracing does) and the highest sequence
 * number received. A probe is judged when it arrived, when a later probe of its stream arrived
 * (one path, one class: probes of a stream arrive in order unless a failure reroutes them),
 * or when it was sent at least `timeout` before the run ended; `losses` = judged - received
 * (a probe sent later and not overtaken is still in flight: not judged). A stream none of whose
 * probes arrived is traced (Fabric::TracePath with its headers: the path its probes take).
 *
 * Determinism: the targets and ports come from one ns-3 random stream assigned after every
 * other, so a scenario without probes draws the same numbers as before they existed.
 */
#ifndef TUSK_RUN_PROBE_MESH_H
#define TUSK_RUN_PROBE_MESH_H

#include "run/path-telemetry.h"

#include "ns3/event-id.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{
struct Fabric;
class RdmaNic;
} // namespace ns3

namespace tusk
{

/** What ProbeMesh sends (ScenarioSpec::probes, in ps and bytes). */
struct ProbeMeshConfig
{
    uint64_t intervalPs = 0; //!< per host, between two of its probes; > 0
    uint32_t targets = 8;    //!< hosts each host probes (all others when fewer)
    uint32_t entropies = 8;  //!< UDP source ports per target
    uint32_t frameBytes = 64; //!< a probe's bytes on the wire
    /** A second probe size over the same streams, sent every largeIntervalPs; 0 = none. */
    uint32_t largeBytes = 0;
    uint64_t largeIntervalPs = 0; //!< per host, between two of its large probes
    /** Exponential gaps of mean the interval (Poisson sampling, RFC 2330 section 11.1.1)
     *  instead of one probe per interval. */
    bool poisson = false;
    uint64_t timeoutPs = 100'000'000; //!< a probe sent this long before the end is judged
    uint64_t untilPs = 0; //!< no probe sent at or after this simulated time; 0 = no bound
};

/** One row of probes.csv: one probe stream (source host, destination host, UDP source port). */
struct ProbeRow
{
    uint32_t src = 0;
    uint32_t dst = 0;
    uint16_t entropy = 0;
    uint32_t bytes = 0;    //!< its probes' bytes on the wire (one row per stream and size)
    uint64_t sent = 0;     //!< probes sent
    uint64_t judged = 0;   //!< of those, arrived or known lost (the class comment)
    uint64_t received = 0; //!< probes that arrived
    uint64_t losses = 0;   //!< judged - received
    double owdMinUs = 0;    //!< smallest one-way delay, µs (0 with none received)
    double owdMedianUs = 0; //!< median one-way delay, µs (sketch, 1 % relative error)
    double owdP99Us = 0;    //!< 99th percentile one-way delay, µs (sketch, 1 % relative error)
    /** The routes its probes arrived by (links.csv link_ids in order, the host's link first)
     *  and the probes on each, in order of first arrival. */
    std::vector<std::pair<std::vector<uint32_t>, uint64_t>> paths;
    /** When no probe arrived and some were judged lost: the traced path of its headers
     *  (none for a host with several NIC ports: the port a probe left by is not known). */
    std::vector<uint32_t> tracedPath;
};

/**
 * \brief Sends and counts monitoring probes (file comment). Not copyable or movable:
 * callbacks are bound to it.
 */
class ProbeMesh
{
  public:
    ProbeMesh() = default;
    ProbeMesh(const ProbeMesh&) = delete;
    ProbeMesh& operator=(const ProbeMesh&) = delete;

    /**
     * \brief Draw every host's streams from `rng` (a uniform stream in [0, 1)), connect every
     * NIC's "ProbeReceived" and schedule each host's first probe. `done` says when the
     * workload is over (no probe is sent after). nics are indexed by host id; at least two.
     */
    void Attach(const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics,
                const ProbeMeshConfig& config,
                ns3::Ptr<ns3::UniformRandomVariable> rng,
                std::function<bool()> done);
    /** Stop sending (cancels each host's next probe). */
    void Stop();
    /** Probes sent so far. */
    uint64_t Sent() const { return m_sent; }
    /** The rows, sorted by (src, dst, entropy), judged at `endPs` (simulated ps of the run's
     *  end), routes decoded and lost streams traced by `fabric`. */
    std::vector<ProbeRow> Take(const ns3::Fabric& fabric, uint64_t endPs) const;

  private:
    struct Stream
    {
        uint32_t src = 0;
        uint32_t dst = 0;
        uint16_t entropy = 0;
        uint8_t cls = 0;      //!< its size class: 0 = frameBytes, 1 = largeBytes
        uint64_t nextSeq = 0; //!< also the probes sent
        /** (sequence number, send time in ps) of the probes sent after the highest one that
         *  arrived, from index `judgedUpTo` on: the ones not judged yet. Compacted as it is
         *  consumed, so bounded by about twice the probes in flight (a vector: a deque
         *  allocates a block per stream up front). */
        std::vector<std::pair<uint64_t, uint64_t>> outstanding;
        size_t judgedUpTo = 0;
        uint64_t received = 0;
        int64_t maxSeq = -1; //!< highest sequence number received
        RelativeErrorSketch owd;
        std::vector<std::pair<uint64_t, uint64_t>> routes; //!< (FrameMeta::path, probes)
    };
    void SendNext(uint32_t cls, uint32_t host);
    /** The gap to a host's next probe of class `cls`, ps. */
    uint64_t Gap(uint32_t cls);
    static void OnReceived(ProbeMesh* self, const ns3::FrameMeta& probe);
    static uint64_t KeyOf(uint32_t src, uint32_t dst, uint16_t entropy, uint32_t cls,
                          uint32_t hosts);
    /** The size class's bytes on the wire. */
    uint32_t BytesOf(uint32_t cls) const
    {
        return cls == 0 ? m_config.frameBytes : m_config.largeBytes;
    }

    ProbeMeshConfig m_config;
    std::vector<ns3::Ptr<ns3::RdmaNic>> m_nics;
    std::function<bool()> m_done;
    ns3::Ptr<ns3::UniformRandomVariable> m_rng; //!< the Poisson gaps' draws
    uint32_t m_classes = 1;                 //!< size classes: 1, or 2 with largeBytes
    /** Host h's are [m_first[h], m_first[h + 1]): its class-0 streams, then as many of
     *  class 1 (the same targets and ports in the same order). */
    std::vector<Stream> m_streams;
    std::vector<uint32_t> m_first;
    std::vector<uint32_t> m_next;        //!< per (class, host), cls * hosts + host: next stream
    std::vector<ns3::EventId> m_pending; //!< per (class, host): its next send
    std::unordered_map<uint64_t, uint32_t> m_index; //!< KeyOf -> stream
    uint64_t m_sent = 0;
};

} // namespace tusk

#endif
