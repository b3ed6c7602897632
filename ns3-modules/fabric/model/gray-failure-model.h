/*
 * tusk: GrayFailureModel, loss that only some flows of a link see.
 */
#ifndef TUSK_GRAY_FAILURE_MODEL_H
#define TUSK_GRAY_FAILURE_MODEL_H

#include "frame-meta.h"

#include "ns3/object.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief A gray failure at a receiving port: frames of the flows whose hash falls in a bad
 * fraction of the hash buckets are lost with probability LossRate; every other flow crosses
 * the link untouched. This is what a corrupted entry of a switch's hash table or a bad ASIC
 * lane looks like from the outside (Huang et al., "Gray Failure: The Achilles' Heel of
 * Cloud-Scale Systems", HotOS 2017): the link is up, most traffic is fine, and some flows
 * lose packets again and again.
 *
 * A frame's bucket is a MurmurHash3 (ns-3's Hash32) of HashSeed and its 5-tuple (IPv4 source
 * and destination, protocol, UDP source and destination port) modulo kBuckets; the bucket is
 * bad when it is below HashFraction x kBuckets. So the choice is deterministic per flow (an
 * ACK stream hashes on its own 5-tuple), independent of the simulation, and a different
 * HashSeed picks different flows. Whether a bad bucket's frame is lost is drawn from a
 * UniformRandomVariable (AssignStreams). PFC frames never reach the model (link-local MAC
 * control frames carry no flow).
 */
class GrayFailureModel : public Object
{
  public:
    /** Hash buckets of the model (a power of two, like an ASIC's hash table). */
    static constexpr uint32_t kBuckets = 4096;

    static TypeId GetTypeId();
    GrayFailureModel();

    /** The hash bucket of a frame's flow under `seed`, in [0, kBuckets). */
    static uint32_t Bucket(const FrameMeta& frame, uint32_t seed);
    /** Whether the frame's flow hashes into a bad bucket. */
    bool IsAffected(const FrameMeta& frame) const;
    /** Whether this frame is lost (a bad bucket, then a draw below LossRate). */
    bool IsLost(const FrameMeta& frame);
    /** Use stream `stream` for the loss draws; returns 1 (streams used). */
    int64_t AssignStreams(int64_t stream);

  private:
    double m_lossRate = 1.0;
    double m_hashFraction = 0.0;
    uint32_t m_hashSeed = 0;
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif
