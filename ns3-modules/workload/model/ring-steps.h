/*
 * tusk: RingStepUnits, a standalone ring all-reduce built a window of steps at a time.
 *
 * Pure (no ns-3 objects, no Simulator). MakeRingAllReduce's transfers are closed form:
 * transfer (step k, rank i, channel c) is t = (k n + i) C + c; for k >= 1 it waits on trigger
 * t - n C (ONESHOT), which the recv-done of (k - 1, i - 1, c) activates. A unit is the W steps
 * [u W, (u + 1) W) (the last one shorter): transfers [u W n C, (u + 1) W n C) and the triggers
 * they wait on, shifted by n C. Unit u >= 2 is expanded when a trigger of unit u - 1 fires
 * (its first transfer is posted), units 0 and 1 at the start: a unit's triggers exist before
 * any transfer of the unit before it completes, the only ones that activate them. The
 * collective (id 0) is not in any unit: the executor's rest spec holds it.
 */
#ifndef TUSK_RING_STEPS_H
#define TUSK_RING_STEPS_H

#include "job-window.h"
#include "workload-spec.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class RingStepUnits : public JobWindow::Units
{
  public:
    /**
     * \param ranks, bytesPerRank, channels, startPs as MakeRingAllReduce (n >= 2)
     * \param priority every transfer's traffic class
     * \param windowSteps W, steps per unit (>= 1)
     * \throws InputError as MakeRingAllReduce
     */
    RingStepUnits(std::vector<uint32_t> ranks,
                  uint64_t bytesPerRank,
                  uint32_t channels,
                  uint64_t startPs,
                  uint8_t priority,
                  uint32_t windowSteps);

    uint32_t Count() const override;
    JobPlan::Bases BasesOf(uint32_t u) const override;
    bool StartsOn(uint32_t u, int64_t trigger) const override;
    WorkloadSpec Expand(uint32_t u) const override;
    bool KeepsRecords() const override { return true; }

    /** Transfers of one step (n C). */
    uint64_t TransfersPerStep() const { return uint64_t(m_n) * m_channels; }
    uint32_t WindowSteps() const { return m_window; }
    uint32_t Steps() const { return m_steps; }
    /** MakeRingAllReduce's spec without transfers or triggers: its description and collective. */
    WorkloadSpec Rest() const;
    /** Step 0 alone (every connection and host pair of the ring, none waiting on a trigger):
     *  for the checks before the run. */
    WorkloadSpec Sample() const;

  private:
    std::vector<uint32_t> m_ranks;
    uint64_t m_bytesPerRank;
    uint32_t m_n;
    uint32_t m_channels;
    uint64_t m_startPs;
    uint8_t m_priority;
    uint32_t m_window;
    uint32_t m_steps;
    std::vector<uint64_t> m_piece; //!< z_{j,c} at j C + c
};

/**
 * \brief Steps [kFirst, kEnd) of MakeRingAllReduce's transfers, appended to `w` with global
 * ids: transfer ids, externalIds and trigger references as the whole build has them; the
 * triggers of those transfers appended to w.triggers (their externalIds global). `piece` is
 * z_{j,c} at j C + c (RingPieceBytes). MakeRingAllReduce is this over [0, 2(n - 1)).
 */
void AppendRingSteps(WorkloadSpec& w,
                     const std::vector<uint32_t>& ranks,
                     const std::vector<uint64_t>& piece,
                     uint32_t channels,
                     uint64_t startPs,
                     uint32_t kFirst,
                     uint32_t kEnd);

} // namespace ns3

#endif
