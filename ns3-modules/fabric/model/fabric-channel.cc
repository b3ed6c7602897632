#include "fabric-channel.h"

#include "fabric-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

TypeId
FabricChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricChannel")
                            .SetParent<Channel>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricChannel>()
                            .AddAttribute("Delay",
                                          "One-way propagation delay of the link (Time).",
                                          TimeValue(MicroSeconds(1)),
                                          MakeTimeAccessor(&FabricChannel::m_delay),
                                          MakeTimeChecker(Time(0)));
    return tid;
}

FabricChannel::FabricChannel() = default;

void
FabricChannel::Attach(Ptr<FabricNetDevice> device)
{
    NS_ABORT_MSG_IF(m_end[1], "FabricChannel: both ends already attached");
    m_end[m_end[0] ? 1 : 0] = device;
}

void
FabricChannel::Transmit(Ptr<Packet> packet, const FrameMeta& meta, Ptr<FabricNetDevice> src, Time txTime)
{
    Ptr<FabricNetDevice> dst = (src == m_end[0]) ? m_end[1] : m_end[0];
    // Packet conservation counts NIC frames; PFC frames are link-local MAC control frames
    // that no NIC counts as sent or received, so they are not counted in flight either.
    m_inFlight += meta.kind != FrameKind::PFC;
    Simulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                   txTime + m_delay,
                                   &FabricChannel::Deliver,
                                   this,
                                   dst,
                                   packet,
                                   meta);
}

void
FabricChannel::Deliver(Ptr<FabricNetDevice> dst, Ptr<Packet> packet, FrameMeta meta)
{
    m_inFlight -= meta.kind != FrameKind::PFC;
    dst->Receive(packet, meta);
}

Ptr<FabricNetDevice>
FabricChannel::GetPeer(Ptr<const FabricNetDevice> device) const
{
    return (device == m_end[0]) ? m_end[1] : m_end[0];
}

std::size_t
FabricChannel::GetNDevices() const
{
    return (m_end[0] ? 1 : 0) + (m_end[1] ? 1 : 0);
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
    return m_end[i];
}

} // namespace ns3
