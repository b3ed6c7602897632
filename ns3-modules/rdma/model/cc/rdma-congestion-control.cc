#include "rdma-congestion-control.h"

#include "cc-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionControl);
NS_OBJECT_ENSURE_REGISTERED(RdmaCcNone);

namespace
{
const CongestionControlRegistration kRegistration{
    {"none", "ns3::RdmaCcNone",
     "no end-host congestion control: line rate, PFC keeps the fabric lossless"},
    "PFC only, as Meta runs RoCE at 400G (Gangidi et al., RDMA over Ethernet for Distributed "
    "AI Training at Meta Scale, SIGCOMM 2024)"};
} // namespace

TypeId
RdmaCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCongestionControl")
            .SetParent<Object>()
            .SetGroupName("Rdma")
            .AddTraceSource("CcState",
                            "The state after each change (RdmaCcState: rate and target rate in "
                            "bit/s, alpha, window in bytes; NaN for what the CC does not have). "
                            "Every congestion control fires it where it changes its rate or "
                            "window.",
                            MakeTraceSourceAccessor(&RdmaCongestionControl::m_stateTrace),
                            "ns3::RdmaCongestionControl::StateTracedCallback");
    return tid;
}

RdmaCcState
RdmaCongestionControl::GetState() const
{
    RdmaCcState s;
    s.rateBps = static_cast<double>(GetRateBps());
    const uint64_t w = GetWindowBytes();
    if (w > 0)
    {
        s.windowBytes = static_cast<double>(w);
    }
    return s;
}

TypeId
RdmaCcNone::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaCcNone")
                            .SetParent<RdmaCongestionControl>()
                            .SetGroupName("Rdma")
                            .AddConstructor<RdmaCcNone>();
    return tid;
}

} // namespace ns3
