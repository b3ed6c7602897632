/*
 * tusk: PLB, Protective Load Balancing at the host (Qureshi et al., "PLB: Congestion Signals
 * are Simple and Effective for Network Load Balancing", SIGCOMM 2022; Linux net/ipv4/tcp_plb.c).
 */
#ifndef TUSK_PLB_PATH_SELECTOR_H
#define TUSK_PLB_PATH_SELECTOR_H

#include "rdma/model/path-selector.h"

#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief A QP keeps one entropy (UDP source port, which ECMP hashes) until its path has been
 * congested for a while, then draws a new one at random: the path changes, the switches stay
 * plain ECMP.
 *
 * - Rounds: a round starts with the first feedback after the previous round and ends with the
 *   first feedback at least RoundTime (about one RTT) later. Its congestion fraction is
 *   ECN / (GOOD + ECN) over the packets reported in it (the DCTCP-style ce_ratio of PLB); a
 *   round with fraction >= CongestedFraction is congested, any other resets the count.
 * - Repath: after CongestedRounds consecutive congested rounds; or, PLB's preference for
 *   repathing between bursts, when the QP sends after an idle gap of at least RoundTime with
 *   IdleCongestedRounds congested rounds behind it. The new entropy is uniformly random in the
 *   QP's pool of PoolSize entropies (PathSelector::PoolEntropyOf), never the current one; the
 *   count restarts.
 * - RTO: a TIMEOUT repaths at once (RepathOnTimeout, as Linux does on RTO) and suspends the
 *   congestion-triggered repaths for a uniformly random time in [RtoSuspend, 2 RtoSuspend], so
 *   that a connectivity black hole does not make the connection hop around.
 * NACKs do not count (loss is not PLB's signal). State: a few counters; no allocation.
 * Policy preset `host-plb` (ECMP switches), selector name `plb`.
 */
class PlbPathSelector : public PathSelector
{
  public:
    static TypeId GetTypeId();
    PlbPathSelector();
    int64_t AssignStreams(int64_t stream) override;

    /** Consecutive congested rounds so far. */
    uint32_t GetCongestedRounds() const { return m_congestedRounds; }
    /** Repaths so far, by cause. */
    uint64_t GetCongestionRepaths() const { return m_congestionRepaths; }
    uint64_t GetTimeoutRepaths() const { return m_timeoutRepaths; }
    /** Whether congestion-triggered repaths are suspended at `now` (after an RTO). */
    bool IsSuspended(Time now) const;

  private:
    uint16_t DoNextEntropy(Time now) override;
    void DoFeedback(uint16_t entropy, Feedback fb, Time now) override;
    void Repath();
    void EndRound(uint64_t nowPs);

    Time m_roundTime;
    double m_congestedFraction = 0.5;
    uint32_t m_rehashRounds = 12;
    uint32_t m_idleRehashRounds = 3;
    Time m_rtoSuspend;
    bool m_repathOnTimeout = true;
    uint32_t m_poolSize = 16384;

    bool m_started = false;     //!< the current entropy has been chosen
    uint16_t m_current = 0;
    bool m_inRound = false;
    uint64_t m_roundStartPs = 0;
    uint32_t m_roundGood = 0;
    uint32_t m_roundEcn = 0;
    uint32_t m_congestedRounds = 0;
    bool m_sent = false;
    uint64_t m_lastSendPs = 0;
    uint64_t m_suspendedUntilPs = 0;
    uint64_t m_congestionRepaths = 0;
    uint64_t m_timeoutRepaths = 0;
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif
