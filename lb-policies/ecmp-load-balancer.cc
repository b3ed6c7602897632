#include "ecmp-load-balancer.h"

#include "fabric/model/frame-meta.h"

#include "ns3/enum.h"
#include "ns3/hash.h"
#include "ns3/uinteger.h"

#include <cstring>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(EcmpLoadBalancer);

TypeId
EcmpLoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EcmpLoadBalancer")
            .SetParent<LoadBalancer>()
            .SetGroupName("LbPolicies")
            .AddConstructor<EcmpLoadBalancer>()
            .AddAttribute("Seed",
                          "Hash seed of this switch (dimensionless). The fabric builder gives "
                          "each switch its own unless told to use one seed everywhere.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EcmpLoadBalancer::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HashFields",
                          "Header fields hashed: FiveTuple, or FiveTupleDstQp (E-ECMP).",
                          EnumValue(FIVE_TUPLE),
                          MakeEnumAccessor(&EcmpLoadBalancer::m_fields),
                          MakeEnumChecker(FIVE_TUPLE,
                                          "FiveTuple",
                                          FIVE_TUPLE_DST_QP,
                                          "FiveTupleDstQp"));
    return tid;
}

EcmpLoadBalancer::EcmpLoadBalancer() = default;

uint32_t
EcmpLoadBalancer::Hash(const FrameMeta& frame) const
{
    // Seed, then the fields in network order of a 5-tuple key, then optionally the QP.
    char key[4 + 4 + 4 + 1 + 2 + 2 + 4];
    size_t n = 0;
    auto put32 = [&](uint32_t v) {
        std::memcpy(key + n, &v, 4);
        n += 4;
    };
    auto put16 = [&](uint16_t v) {
        std::memcpy(key + n, &v, 2);
        n += 2;
    };
    put32(m_seed);
    put32(HostAddress(frame.srcHost).Get());
    put32(HostAddress(frame.dstHost).Get());
    key[n++] = static_cast<char>(frame.protocol);
    put16(frame.srcPort);
    put16(frame.dstPort);
    if (m_fields == FIVE_TUPLE_DST_QP)
    {
        put32(frame.dstQp);
    }
    return Hash32(key, n);
}

uint32_t
EcmpLoadBalancer::DoSelectEgress(const LbContext&,
                                 const FrameMeta& frame,
                                 const EgressCandidate*,
                                 uint32_t count)
{
    return Hash(frame) % count;
}

} // namespace ns3
