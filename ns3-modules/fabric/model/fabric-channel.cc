#include "fabric-channel.h"

#include "fabric-net-device.h"

#include "ns3/event-impl.h"
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

/** The arrival of one frame at the far end: an event object that the channel reuses. */
class FabricChannel::Delivery : public EventImpl
{
  public:
    FabricChannel* channel = nullptr;
    FabricNetDevice* dst = nullptr;
    Ptr<Packet> packet;
    FrameMeta meta;
    Delivery* next = nullptr; //!< free list

  private:
    void Notify() override
    {
        if (channel)
        {
            channel->Deliver(this);
        }
    }
};

FabricChannel::FabricChannel() = default;

void
FabricChannel::DoDispose()
{
    for (auto& d : m_deliveries)
    {
        d->channel = nullptr;
        d->packet = nullptr;
    }
    m_deliveries.clear();
    m_freeDeliveries = nullptr;
    m_end[0] = nullptr;
    m_end[1] = nullptr;
    Channel::DoDispose();
}

void
FabricChannel::Attach(Ptr<FabricNetDevice> device)
{
    NS_ABORT_MSG_IF(m_end[1], "FabricChannel: both ends already attached");
    m_end[m_end[0] ? 1 : 0] = device;
}

void
FabricChannel::Transmit(Ptr<Packet> packet, const FrameMeta& meta, Ptr<FabricNetDevice> src, Time txTime)
{
    FabricNetDevice* dst = PeekPointer(src == m_end[0] ? m_end[1] : m_end[0]);
    // Packet conservation counts NIC frames; PFC frames are link-local MAC control frames
    // that no NIC counts as sent or received, so they are not counted in flight either.
    m_inFlight += meta.kind != FrameKind::PFC;
    Delivery* d = m_freeDeliveries;
    if (d)
    {
        m_freeDeliveries = d->next;
    }
    else
    {
        m_deliveries.push_back(Create<Delivery>());
        d = PeekPointer(m_deliveries.back());
        d->channel = this;
    }
    d->dst = dst;
    d->packet = std::move(packet);
    d->meta = meta;
    d->Ref(); // the simulator's reference, dropped after the event ran
    Simulator::ScheduleWithContext(dst->GetNodeId(), txTime + m_delay, d);
}

void
FabricChannel::Deliver(Delivery* d)
{
    FabricNetDevice* dst = d->dst;
    Ptr<Packet> packet = std::move(d->packet);
    const FrameMeta meta = d->meta;
    d->next = m_freeDeliveries; // free again before the receiver may send on this link
    m_freeDeliveries = d;
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
