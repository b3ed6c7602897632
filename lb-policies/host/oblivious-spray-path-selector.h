/*
 * tusk: ObliviousSprayPathSelector, round-robin host-side spraying over a pool of entropies.
 */
#ifndef TUSK_OBLIVIOUS_SPRAY_PATH_SELECTOR_H
#define TUSK_OBLIVIOUS_SPRAY_PATH_SELECTOR_H

#include "rdma/model/path-selector.h"

namespace ns3
{

/**
 * \brief Oblivious host-side spraying: every data packet carries the next entropy of a pool
 * of PoolSize distinct UDP source ports, in round-robin order (htsim's UecMpOblivious in
 * uet-htsim sim/uec_mp.h); ECMP switches hash each packet onto its own path. The pool is
 * derived from the QP's base entropy (PathSelector::PoolEntropyOf), a permutation of the
 * dynamic port range (RFC 6335), so the pool has no duplicates and entropy 0 of the pool is the
 * QP's own. No state but a counter; ignores feedback. Policy preset `host-spray`.
 */
class ObliviousSprayPathSelector : public PathSelector
{
  public:
    static TypeId GetTypeId();
    /** Entropy i of the pool (i < PoolSize). */
    uint16_t PoolEntropy(uint32_t i) const;

  private:
    uint16_t DoNextEntropy(Time now) override;

    uint32_t m_poolSize = 16384;
    uint32_t m_next = 0;
};

} // namespace ns3

#endif
