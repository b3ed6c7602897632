#include "path-selector.h"

#include "ns3/abort.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PathSelector);
NS_OBJECT_ENSURE_REGISTERED(FixedPathSelector);

namespace
{
constexpr uint32_t kPoolStride = 40503; // odd: i -> i * stride is a permutation mod 2^14
constexpr uint32_t kDynamicPorts = 16384;

/** The inverse of kPoolStride modulo 2^14 (Newton's iteration for odd numbers). */
constexpr uint32_t
StrideInverse()
{
    uint32_t x = kPoolStride; // correct to 3 bits
    for (int i = 0; i < 4; ++i)
    {
        x = x * (2u - kPoolStride * x);
    }
    return x % kDynamicPorts;
}
static_assert((StrideInverse() * kPoolStride) % kDynamicPorts == 1, "stride inverse");

uint32_t
BaseOffset(uint16_t base)
{
    return base >= 49152 ? base - 49152u : base;
}
} // namespace

uint16_t
PathSelector::PoolEntropyOf(uint16_t base, uint32_t i)
{
    return static_cast<uint16_t>(49152u + (BaseOffset(base) + i * kPoolStride) % kDynamicPorts);
}

uint32_t
PathSelector::PoolIndexOf(uint16_t base, uint16_t entropy)
{
    const uint32_t off = (entropy >= 49152 ? entropy - 49152u : entropy % kDynamicPorts);
    const uint32_t d = (off + kDynamicPorts - BaseOffset(base) % kDynamicPorts) % kDynamicPorts;
    return (d * StrideInverse()) % kDynamicPorts;
}

TypeId
PathSelector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PathSelector")
            .SetParent<Object>()
            .SetGroupName("Rdma")
            .AddTraceSource("EntropyChosen",
                            "The entropy (UDP source port) chosen for the next data packet of "
                            "the QP, first transmissions and resends alike.",
                            MakeTraceSourceAccessor(&PathSelector::m_entropyTrace),
                            "ns3::PathSelector::EntropyTracedCallback")
            .AddTraceSource("Feedback",
                            "Feedback about a packet that carried an entropy: GOOD, ECN, NACK "
                            "or TIMEOUT (see PathSelector::OnFeedback).",
                            MakeTraceSourceAccessor(&PathSelector::m_feedbackTrace),
                            "ns3::PathSelector::FeedbackTracedCallback");
    return tid;
}

PathSelector::PathSelector() = default;
PathSelector::~PathSelector() = default;

void
PathSelector::AbortZeroEntropy() const
{
    NS_FATAL_ERROR("path selector " << GetInstanceTypeId().GetName()
                                    << " chose entropy 0, which is not a UDP source port (was "
                                       "SetBaseEntropy called with a port in 1..65535?)");
}

void
PathSelector::AbortBadFeedback(uint8_t fb) const
{
    NS_FATAL_ERROR("path selector " << GetInstanceTypeId().GetName() << ": feedback kind "
                                    << unsigned{fb} << " is not GOOD, ECN, NACK or TIMEOUT");
}

TypeId
FixedPathSelector::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FixedPathSelector")
                            .SetParent<PathSelector>()
                            .SetGroupName("Rdma")
                            .AddConstructor<FixedPathSelector>();
    return tid;
}

} // namespace ns3
