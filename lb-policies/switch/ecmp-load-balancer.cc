#include "ecmp-load-balancer.h"

#include "lb-policies/policy-registry.h"

#include "ns3/enum.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(EcmpLoadBalancer);

namespace
{
// A hash of the frame's headers and the switch's seed: no state between frames (WithoutState).
// qp4-rr's round-robin cursor is the executor's, which the memo compares (GetQpCursors).
const PolicyRegistration kEcmp{
    WithoutState({"ecmp", "ns3::EcmpLoadBalancer",
                  "flow-hash ECMP over the 5-tuple, per-switch seed"}),
    "RFC 2992 (hash-threshold multipath)"};
const PolicyRegistration kEEcmp{WithoutState({"eecmp", "ns3::EcmpLoadBalancer",
                                              "E-ECMP: hash the 5-tuple and the destination QP",
                                              {{"HashFields", "FiveTupleDstQp"}}}),
    "Gangidi et al., RoCE at Meta scale, SIGCOMM 2024, 5.1 (E-ECMP)"};
// QP scaling (Meta, SIGCOMM 2024, section 5.1): presets of E-ECMP with several QPs.
const PolicyRegistration kQp4Split{
    WithoutState({"qp4-split", "ns3::EcmpLoadBalancer",
                  "QP scaling: 4 QPs per connection, each transfer split across them; E-ECMP",
                  {{"HashFields", "FiveTupleDstQp"}}, "", 4, "split"}),
    "Gangidi et al., SIGCOMM 2024, 5.1 (QP scaling)"};
const PolicyRegistration kQp4Rr{
    WithoutState({"qp4-rr", "ns3::EcmpLoadBalancer",
                  "QP scaling: 4 QPs per connection, messages round-robin over them (Meta); "
                  "E-ECMP",
                  {{"HashFields", "FiveTupleDstQp"}}, "", 4, "round-robin"}),
    "Gangidi et al., SIGCOMM 2024, 5.1 (QP scaling, round-robin posting)"};
} // namespace

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
                                          "FiveTupleDstQp"))
            .AddAttribute("HashFunction",
                          "Hash function: Murmur3 (ns-3 Hash32), Fnv1a (FNV-1a 32-bit; its "
                          "low bits depend linearly on the last bytes, so a power-of-two group "
                          "sees consecutive source ports on distinct members), or XorFold (XOR "
                          "of the fields' 16-bit words, like switch ASICs' XOR mode).",
                          EnumValue(MURMUR3),
                          MakeEnumAccessor(&EcmpLoadBalancer::m_function),
                          MakeEnumChecker(MURMUR3,
                                          "Murmur3",
                                          FNV1A,
                                          "Fnv1a",
                                          XOR_FOLD,
                                          "XorFold"));
    return tid;
}

EcmpLoadBalancer::EcmpLoadBalancer() = default;

uint32_t
EcmpLoadBalancer::Hash(const FrameMeta& frame) const
{
    return FlowHash(frame,
                    m_seed,
                    static_cast<FlowHashFields>(m_fields),
                    static_cast<FlowHashFunction>(m_function));
}

uint32_t
EcmpLoadBalancer::DoSelectEgress(const LbContext&,
                                 const FrameMeta& frame,
                                 const EgressCandidate*,
                                 uint32_t count)
{
    SetReason(EgressReason::HASH);
    return Hash(frame) % count;
}

bool
EcmpLoadBalancer::DoProbeEgress(const LbContext&,
                                const FrameMeta& frame,
                                const EgressCandidate*,
                                uint32_t count,
                                uint32_t& index) const
{
    index = Hash(frame) % count;
    return true;
}

} // namespace ns3
