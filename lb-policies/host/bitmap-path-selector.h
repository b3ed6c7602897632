/*
 * tusk: BitmapPathSelector, round-robin spraying that skips entropies with bad feedback.
 */
#ifndef TUSK_BITMAP_PATH_SELECTOR_H
#define TUSK_BITMAP_PATH_SELECTOR_H

#include "rdma/model/path-selector.h"

#include <vector>

namespace ns3
{

/**
 * \brief Bitmap path selection (UEC 1.0's "bitmap" load balancing, htsim UecMpBitmap in
 * spirit): round-robin over a pool of PoolSize EVs, skipping the EVs whose latest feedback was
 * ECN, NACK or TIMEOUT (one bit per EV; GOOD clears it). When every EV of the pool is marked,
 * all bits are cleared and round-robin resumes. No allocation after the first use. Policy
 * preset `host-bitmap`.
 */
class BitmapPathSelector : public PathSelector
{
  public:
    static TypeId GetTypeId();
    /** Whether pool EV `entropy` is currently avoided. */
    bool IsMarked(uint16_t entropy) const;
    uint32_t GetMarkedCount() const { return m_markedCount; }

  private:
    uint16_t DoNextEntropy(Time now) override;
    void DoFeedback(uint16_t entropy, Feedback fb, Time now) override;
    void Init();

    uint32_t m_poolSize = 256;
    uint32_t m_next = 0;
    uint32_t m_markedCount = 0;
    std::vector<bool> m_marked; //!< per pool index; sized once, on first use
};

} // namespace ns3

#endif
