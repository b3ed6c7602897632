/*
 * tusk: RepsPathSelector, Recycled Entropy Packet Spraying (REPS).
 */
#ifndef TUSK_REPS_PATH_SELECTOR_H
#define TUSK_REPS_PATH_SELECTOR_H

#include "rdma/model/path-selector.h"

#include "ns3/random-variable-stream.h"

#include <vector>

namespace ns3
{

/**
 * \brief REPS, Recycled Entropy Packet Spraying (Bonato et al., "REPS: Recycled Entropy Packet
 * Spraying for Adaptive Load Balancing and Failure Mitigation", 2024; a load-balancing scheme
 * of UEC 1.0). The EV of every acknowledged, unmarked packet (GOOD) is pushed into a circular
 * buffer of BufferSize entries (the oldest is overwritten when full); the next packet takes the
 * oldest cached EV, or explores a fresh uniformly random EV of a pool of ExplorePoolSize when
 * the buffer is empty. ECN-marked, NACKed and timed-out EVs are not recycled.
 * Failure mitigation: a TIMEOUT (or a NACK, which in this model is how a trim or a loss comes
 * back) freezes exploration for FreezeDuration: while frozen and the buffer is empty, the
 * sender replays the last BufferSize EVs that were good instead of exploring new ones, so a
 * dead path found by exploration is not hit again. Policy preset `host-reps`.
 */
class RepsPathSelector : public PathSelector
{
  public:
    static TypeId GetTypeId();
    RepsPathSelector();
    int64_t AssignStreams(int64_t stream) override;

    /** Cached EVs not yet reused. */
    uint32_t GetCachedCount() const { return m_size; }
    bool IsFrozen(Time now) const
    {
        return m_frozenUntilPs > static_cast<uint64_t>(now.GetPicoSeconds());
    }
    uint64_t GetExplorations() const { return m_explorations; }

  private:
    uint16_t DoNextEntropy(Time now) override;
    void DoFeedback(uint16_t entropy, Feedback fb, Time now) override;
    void Init();

    uint32_t m_bufferSize = 8;
    uint32_t m_explorePool = 16384;
    Time m_freezeDuration;
    bool m_freezeOnNack = true;
    std::vector<uint16_t> m_ring; //!< BufferSize slots; sized once
    uint32_t m_head = 0;          //!< oldest cached entry
    uint32_t m_size = 0;          //!< cached entries not yet reused
    uint64_t m_pushes = 0;        //!< EVs ever recycled (slots hold the last min(pushes, N))
    uint32_t m_replay = 0;        //!< freeze: next slot to replay
    uint64_t m_frozenUntilPs = 0;
    uint64_t m_explorations = 0;
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif
