/*
 * tusk: MrcPathSelector, MRC-style multipath over a source-routed path set, and
 * PathSetSprayPathSelector, the same path set sprayed round-robin without feedback.
 */
#ifndef TUSK_MRC_PATH_SELECTOR_H
#define TUSK_MRC_PATH_SELECTOR_H

#include "rdma/model/path-selector.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

/**
 * \brief The sender side of an MRC-style multipath transport (OCP Multipath Reliable
 * Connection 1.0, 2026). The QP's path set is routes 0 .. n-1, n = min(PathSetSize, Routes)
 * (source-routes.h: route r is sent as entropy 49152 + r, a whole path: plane and every
 * hop), sprayed in turn starting from a per-QP offset. Per path:
 *
 * - **steering**: an ECN echo makes the path skip its next EcnPenalty turns, a trim or loss
 *   NACK TrimPenalty turns, an RTT sample above RttExcessFactor x the QP's smallest sample one
 *   turn (the RTT of a path is the time from sending to its feedback, first in first out per
 *   path);
 * - **failover**: a path is retired (MRC's EV state ASSUMED_BAD) after RetireLosses NACKs or
 *   timeouts in a row, or when it has packets outstanding and has given no feedback for
 *   FailoverTime; a retired path carries nothing until ProbeInterval has passed, then one
 *   packet probes it (state PROBING): GOOD or ECN feedback reinstates it (GOOD), a NACK, a
 *   timeout or FailoverTime of silence retires it again for twice as long (up to 64 x);
 * - **floor**: at most n - max(1, n x MinActiveFraction) paths are retired at once (MRC's
 *   ev_min_active): the next would-be retirement is ignored, so losses everywhere (an incast
 *   trimming every path) do not silence the QP.
 *
 * Where the public material says what to do, this follows it: the EV states GOOD and
 * ASSUMED_BAD, EV probes before reuse and a minimum of active EVs are those of the MRC
 * controller API (mrc_ctl.h, opencomputeproject/OCP-Multipath-Reliable-Connection). The
 * thresholds, the skip-turns form of steering, the RTT rule and the probe backoff are tusk's
 * choices (the specification text with its section numbers was not available to cite).
 * Entropies outside the path set (feedback of another selector's packets) are ignored.
 * Policy preset `mrc`; with Adaptive = false the selector only sprays (`source-route`).
 */
class MrcPathSelector : public PathSelector
{
  public:
    /** A path's state (MRC's EV states, plus PROBING: one packet in flight to test it). */
    enum State : uint8_t
    {
        GOOD = 0,
        ASSUMED_BAD = 1,
        PROBING = 2,
    };

    static TypeId GetTypeId();
    MrcPathSelector();

    /** Paths in the set (n). */
    uint32_t GetPathCount() const;
    State GetState(uint32_t path) const { return m_paths.at(path).state; }
    /** Retirements so far (ASSUMED_BAD transitions), probes sent, paths reinstated. */
    uint64_t GetRetirements() const { return m_retirements; }
    uint64_t GetProbes() const { return m_probes; }
    uint64_t GetReinstatements() const { return m_reinstatements; }

  protected:
    bool m_adaptive = true; //!< steering and failover on

  private:
    struct Path
    {
        State state = GOOD;
        uint32_t skip = 0;        //!< turns still to skip (steering)
        uint32_t lossRun = 0;     //!< NACKs and timeouts in a row
        uint32_t backoff = 1;     //!< retirement length in ProbeIntervals
        uint64_t lastFeedbackPs = 0;
        uint64_t retiredUntilPs = 0;
        std::deque<uint64_t> sentPs; //!< send times of packets without feedback (bounded)
    };

    uint16_t DoNextEntropy(Time now) override;
    void DoFeedback(uint16_t entropy, Feedback fb, Time now) override;
    void Init();
    /** Whether path i may carry the next packet; retires it when silent for FailoverTime. */
    bool Usable(uint32_t i, uint64_t nowPs);
    void Retire(uint32_t i, uint64_t nowPs);
    uint16_t Send(uint32_t i, uint64_t nowPs);

    uint32_t m_pathSetSize = 256;
    uint32_t m_routes = 1;
    Time m_failoverTime;
    Time m_probeInterval;
    uint32_t m_retireLosses = 3;
    uint32_t m_ecnPenalty = 1;
    uint32_t m_trimPenalty = 2;
    double m_rttExcessFactor = 2.0;
    double m_minActiveFraction = 0.25;

    std::vector<Path> m_paths;
    uint32_t m_next = 0;
    uint32_t m_retired = 0; //!< paths not GOOD
    uint64_t m_minRttPs = 0;
    uint64_t m_retirements = 0;
    uint64_t m_probes = 0;
    uint64_t m_reinstatements = 0;
};

/** \brief The path set of MrcPathSelector sprayed round-robin, no steering, no failover. */
class PathSetSprayPathSelector : public MrcPathSelector
{
  public:
    static TypeId GetTypeId();
    PathSetSprayPathSelector();
};

} // namespace ns3

#endif
