#include "fabric-net-device.h"

#include "fabric-channel.h"
#include "fabric-units.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FabricNetDevice);

const char*
DropReasonName(DropReason r)
{
    switch (r)
    {
    case DropReason::BUFFER_OVERFLOW:
        return "buffer_overflow";
    case DropReason::NO_ROUTE:
        return "no_route";
    case DropReason::LINK_DOWN:
        return "link_down";
    case DropReason::NIC_STALE:
        return "nic_stale";
    case DropReason::CORRUPTED:
        return "corrupted";
    default:
        return "unknown";
    }
}

TypeId
FabricNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("Fabric")
            .AddAttribute("DataRate",
                          "Line rate of the port (bit/s).",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&FabricNetDevice::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("PhyOverheadBytes",
                          "Bytes on the line per frame beyond the frame itself: preamble, SFD "
                          "and inter-frame gap (IEEE 802.3: 8 + 12 = 20 bytes).",
                          UintegerValue(20),
                          MakeUintegerAccessor(&FabricNetDevice::m_phyOverheadBytes),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("UtilisationWindow",
                          "Window over which the busiest-window utilisation is measured (Time).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&FabricNetDevice::m_utilWindow),
                          MakeTimeChecker(PicoSeconds(1)))
            .AddAttribute("ReceiveErrorModel",
                          "Optional ns-3 ErrorModel applied to every arriving frame: a frame it "
                          "marks corrupt is dropped (CORRUPTED), as with a lossy link.",
                          PointerValue(),
                          MakePointerAccessor(&FabricNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("Sniffer",
                            "Every frame sent or received by this port (for pcap).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_snifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Tx",
                            "A frame starts transmission: (packet, meta).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_txTrace),
                            "ns3::FabricNetDevice::FrameTracedCallback")
            .AddTraceSource("Rx",
                            "A frame has fully arrived: (packet, meta).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_rxTrace),
                            "ns3::FabricNetDevice::FrameTracedCallback")
            .AddTraceSource("Drop",
                            "A frame was dropped: (packet, meta, DropReason).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_dropTrace),
                            "ns3::FabricNetDevice::DropTracedCallback");
    return tid;
}

FabricNetDevice::FabricNetDevice()
    : m_address(Mac48Address::Allocate())
{
}

FabricNetDevice::~FabricNetDevice() = default;

void
FabricNetDevice::DoDispose()
{
    m_node = nullptr;
    m_channel = nullptr;
    m_receiveErrorModel = nullptr;
    NetDevice::DoDispose();
}

void
FabricNetDevice::Attach(Ptr<FabricChannel> channel)
{
    m_channel = channel;
    m_rateBps = m_rate.GetBitRate();
    NS_ABORT_MSG_IF(m_rateBps == 0, "FabricNetDevice: DataRate must be > 0");
    channel->Attach(this);
}

Time
FabricNetDevice::TxTime(uint32_t frameBytes) const
{
    return PicoSeconds(SerializationPs(frameBytes + m_phyOverheadBytes, m_rateBps));
}

Ptr<FabricNetDevice>
FabricNetDevice::GetPeerDevice() const
{
    return m_channel ? m_channel->GetPeer(this) : nullptr;
}

void
FabricNetDevice::TryTransmit()
{
    if (m_transmitting || !m_linkUp || !m_channel)
    {
        return;
    }
    Ptr<Packet> packet;
    FrameMeta meta;
    if (!DoDequeue(packet, meta))
    {
        return;
    }
    const uint32_t bytes = packet->GetSize();
    const Time txTime = TxTime(bytes);
    m_transmitting = true;
    m_counters.txFrames++;
    m_counters.txBytes += bytes;
    m_counters.txWireBytes += bytes + m_phyOverheadBytes;
    AccountUtilisation(bytes + m_phyOverheadBytes);
    m_txTrace(packet, meta);
    m_snifferTrace(packet);
    m_channel->Transmit(packet, meta, this, txTime);
    Simulator::Schedule(txTime, &FabricNetDevice::TransmitComplete, this);
}

void
FabricNetDevice::TransmitComplete()
{
    m_transmitting = false;
    TryTransmit();
}

void
FabricNetDevice::Receive(Ptr<Packet> packet, const FrameMeta& meta)
{
    if (!m_linkUp)
    {
        RecordDrop(packet, meta, DropReason::LINK_DOWN);
        return;
    }
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(packet))
    {
        RecordDrop(packet, meta, DropReason::CORRUPTED);
        return;
    }
    m_counters.rxFrames++;
    m_counters.rxBytes += packet->GetSize();
    m_rxTrace(packet, meta);
    m_snifferTrace(packet);
    DoReceive(packet, meta);
}

void
FabricNetDevice::RecordDrop(Ptr<const Packet> packet, const FrameMeta& meta, DropReason reason)
{
    m_counters.drops[static_cast<int>(reason)]++;
    m_dropTrace(packet, meta, reason);
}

void
FabricNetDevice::AccountUtilisation(uint64_t wireBytes)
{
    const uint64_t nowPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    const uint64_t windowPs = static_cast<uint64_t>(m_utilWindow.GetPicoSeconds());
    if (nowPs >= m_utilWindowStartPs + windowPs)
    {
        FlushUtilisation(Simulator::Now());
        m_utilWindowStartPs = nowPs - nowPs % windowPs;
    }
    m_utilWindowBytes += wireBytes;
}

void
FabricNetDevice::FlushUtilisation(Time now)
{
    const double windowS = m_utilWindow.GetSeconds();
    if (m_utilWindowBytes > 0 && m_rateBps > 0)
    {
        const double u = m_utilWindowBytes * 8.0 / (m_rateBps * windowS);
        if (u > m_counters.maxWindowUtilisation)
        {
            m_counters.maxWindowUtilisation = u;
        }
    }
    m_utilWindowBytes = 0;
}

void
FabricNetDevice::SetLinkUp(bool up)
{
    if (m_linkUp == up)
    {
        return;
    }
    m_linkUp = up;
    m_linkChangeCallbacks();
    if (up)
    {
        TryTransmit();
    }
}

// ---- NetDevice boilerplate -------------------------------------------------------------

void
FabricNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
FabricNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
FabricNetDevice::GetChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
FabricNetDevice::GetAddress() const
{
    return m_address;
}

bool
FabricNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
FabricNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
FabricNetDevice::IsLinkUp() const
{
    return m_linkUp;
}

void
FabricNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

bool
FabricNetDevice::IsBroadcast() const
{
    return false;
}

Address
FabricNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
FabricNetDevice::IsMulticast() const
{
    return false;
}

Address
FabricNetDevice::GetMulticast(Ipv4Address) const
{
    return Mac48Address::GetMulticast(Ipv4Address("224.0.0.0"));
}

Address
FabricNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
FabricNetDevice::IsPointToPoint() const
{
    return true;
}

bool
FabricNetDevice::IsBridge() const
{
    return false;
}

bool
FabricNetDevice::Send(Ptr<Packet>, const Address&, uint16_t)
{
    // Frames enter a fabric port through its owner (switch forwarding or the NIC's QP
    // scheduler), never through the IP stack.
    return false;
}

bool
FabricNetDevice::SendFrom(Ptr<Packet>, const Address&, const Address&, uint16_t)
{
    return false;
}

Ptr<Node>
FabricNetDevice::GetNode() const
{
    return m_node;
}

void
FabricNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
FabricNetDevice::NeedsArp() const
{
    return false;
}

void
FabricNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback)
{
}

void
FabricNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback)
{
}

bool
FabricNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
