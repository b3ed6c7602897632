#include "switch-port.h"

#include "switch-node.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchPort");
NS_OBJECT_ENSURE_REGISTERED(SwitchPort);

TypeId
SwitchPort::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwitchPort")
            .SetParent<FabricNetDevice>()
            .SetGroupName("Fabric")
            .AddConstructor<SwitchPort>()
            .AddAttribute("QueueBytes",
                          "Egress buffer of the port, shared by its 8 priority queues (bytes). "
                          "A frame that does not fit is dropped (BUFFER_OVERFLOW).",
                          UintegerValue(8 << 20),
                          MakeUintegerAccessor(&SwitchPort::m_limitBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("DrePeriod",
                          "DRE decay period Tdre (Time): X <- X (1 - alpha) every Tdre.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&SwitchPort::m_drePeriod),
                          MakeTimeChecker(PicoSeconds(1)))
            .AddAttribute("DreAlpha",
                          "DRE decay factor alpha (dimensionless, 0 < alpha <= 1).",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&SwitchPort::m_dreAlpha),
                          MakeDoubleChecker<double>(1e-6, 1.0));
    return tid;
}

SwitchPort::SwitchPort() = default;

void
SwitchPort::DoDispose()
{
    m_switch = nullptr;
    for (auto& q : m_queues)
    {
        q.clear();
    }
    FabricNetDevice::DoDispose();
}

void
SwitchPort::SetSwitch(Ptr<SwitchNode> sw, uint16_t portIndex)
{
    m_switch = sw;
    m_portIndex = portIndex;
}

bool
SwitchPort::Enqueue(Ptr<Packet> packet, const FrameMeta& meta)
{
    const uint32_t bytes = packet->GetSize();
    if (m_queuedBytes + bytes > m_limitBytes)
    {
        return false;
    }
    const uint8_t prio = meta.priority & 7;
    m_queues[prio].push_back(QueuedFrame{packet, meta});
    m_queueBytesPerPrio[prio] += bytes;
    m_queuedBytes += bytes;
    ++m_queuedFrames;
    NoteQueueBytes(m_queuedBytes);
    TryTransmit();
    return true;
}

bool
SwitchPort::DoDequeue(Ptr<Packet>& packet, FrameMeta& meta)
{
    for (int prio = kPriorities - 1; prio >= 0; --prio)
    {
        auto& q = m_queues[prio];
        if (q.empty())
        {
            continue;
        }
        packet = std::move(q.front().packet);
        meta = q.front().meta;
        q.pop_front();
        const uint32_t bytes = packet->GetSize();
        m_queueBytesPerPrio[prio] -= bytes;
        m_queuedBytes -= bytes;
        --m_queuedFrames;
        const uint64_t nowPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
        DecayDre(nowPs);
        m_dreBytes += bytes + GetPhyOverheadBytes();
        return true;
    }
    return false;
}

void
SwitchPort::DoReceive(Ptr<Packet> packet, const FrameMeta& meta)
{
    m_switch->ReceiveFromPort(m_portIndex, packet, meta);
}

void
SwitchPort::DecayDre(uint64_t nowPs) const
{
    const uint64_t periodPs = static_cast<uint64_t>(m_drePeriod.GetPicoSeconds());
    const uint64_t periods = (nowPs - m_dreLastPs) / periodPs;
    if (periods > 0)
    {
        m_dreBytes *= std::pow(1.0 - m_dreAlpha, static_cast<double>(periods));
        m_dreLastPs += periods * periodPs;
    }
}

double
SwitchPort::GetUtilisation(Time now) const
{
    DecayDre(static_cast<uint64_t>(now.GetPicoSeconds()));
    const double tauS = m_drePeriod.GetSeconds() / m_dreAlpha;
    return m_dreBytes * 8.0 / (static_cast<double>(GetRateBps()) * tauS);
}

} // namespace ns3
