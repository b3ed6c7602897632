/*
 * tusk: RandomSprayPathSelector, a uniformly random entropy per packet from a pool.
 */
#ifndef TUSK_RANDOM_SPRAY_PATH_SELECTOR_H
#define TUSK_RANDOM_SPRAY_PATH_SELECTOR_H

#include "rdma/model/path-selector.h"

#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * \brief Oblivious spraying with a uniformly random EV per packet from a pool of PoolSize
 * entropies (UEC 1.0's "oblivious" packet spraying; htsim's UecMpOblivious draws at random
 * too). Ignores feedback. Policy preset `host-random-spray`.
 */
class RandomSprayPathSelector : public PathSelector
{
  public:
    static TypeId GetTypeId();
    RandomSprayPathSelector();
    int64_t AssignStreams(int64_t stream) override;

  private:
    uint16_t DoNextEntropy(Time now) override;

    uint32_t m_poolSize = 256;
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif
