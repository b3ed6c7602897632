/*
 * tusk: ECMP, flow-hash equal-cost multipath (RFC 2992 hash-threshold family; here hash
 * modulo the number of candidates).
 */
#ifndef TUSK_ECMP_LOAD_BALANCER_H
#define TUSK_ECMP_LOAD_BALANCER_H

#include "flow-hash.h"

#include "fabric/model/load-balancer.h"

namespace ns3
{

/**
 * \brief Hash the flow's header fields with a per-switch seed; pick hash mod N.
 *
 * Fields: the 5-tuple (IPv4 source and destination, protocol, UDP source and destination
 * port), optionally with the BTH destination QP as in Meta's enhanced ECMP (Gangidi et al.,
 * "RDMA over Ethernet for Distributed AI Training at Meta Scale", SIGCOMM 2024, section 5.1).
 * The UDP source port is the entropy a RoCE NIC sets per QP. Hash functions: MurmurHash3
 * (ns-3's Hash32, the default), FNV-1a, or the linear XOR fold of switch ASICs. Every switch
 * gets its own Seed from the fabric builder; giving every switch the same seed (scenario key
 * `lb.same_seed_everywhere`) reproduces hash polarisation: a switch at the next tier sees
 * only flows whose hash already selected it, and sends them all the same way.
 */
class EcmpLoadBalancer : public LoadBalancer
{
  public:
    enum HashFields
    {
        FIVE_TUPLE = 0,        //!< src IP, dst IP, protocol, src port, dst port
        FIVE_TUPLE_DST_QP = 1, //!< the 5-tuple and the BTH destination QP (E-ECMP)
    };
    enum HashFunction
    {
        MURMUR3 = 0,
        FNV1A = 1,
        XOR_FOLD = 2,
    };

    static TypeId GetTypeId();
    /** Reads none of the candidates' state. */
    uint8_t GetCandidateFields() const override { return 0; }
    EcmpLoadBalancer();

    /** The hash of a frame's fields under this switch's seed (exposed for tests). */
    uint32_t Hash(const FrameMeta& frame) const;

  private:
    uint32_t DoSelectEgress(const LbContext& ctx,
                            const FrameMeta& frame,
                            const EgressCandidate* candidates,
                            uint32_t count) override;
    /** A pure function of the headers: a probe takes the frame's egress. */
    bool DoProbeEgress(const LbContext& ctx,
                       const FrameMeta& frame,
                       const EgressCandidate* candidates,
                       uint32_t count,
                       uint32_t& index) const override;

    uint32_t m_seed = 0;
    HashFields m_fields = FIVE_TUPLE;
    HashFunction m_function = MURMUR3;
};

} // namespace ns3

#endif
