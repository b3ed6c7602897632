/*
 * tusk: the multi-plane part of RdmaNic (one transmit scheduler feeding one port per plane)
 * and NicPlanePort, the NIC's ports besides port 0. See RdmaNic::AddPlanePort.
 */
#include "nic-plane-port.h"

#include "fabric/helper/multi-plane.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NicPlanePort);

void
RdmaNic::AddPlanePort(Ptr<NicPlanePort> port)
{
    NS_ABORT_MSG_IF(GetNQps() > 0, "RdmaNic: host " << m_hostId << " adds a plane port after "
                                                    << "its first QP");
    port->SetNic(this, GetNPlanes());
    if (m_planePorts.empty())
    {
        AddLinkChangeCallback(MakeBoundCallback(&NicPlanePort::LinkChanged, this));
    }
    port->AddLinkChangeCallback(MakeBoundCallback(&NicPlanePort::LinkChanged, this));
    m_planePorts.push_back(port);
    m_staged.resize(GetNPlanes());
}

Ptr<FabricNetDevice>
RdmaNic::GetPlanePort(uint32_t plane) const
{
    if (plane == 0)
    {
        return Ptr<FabricNetDevice>(const_cast<RdmaNic*>(this));
    }
    return plane <= m_planePorts.size() ? Ptr<FabricNetDevice>(m_planePorts[plane - 1]) : nullptr;
}

uint64_t
RdmaNic::GetLineRateBps() const
{
    uint64_t rate = GetRateBps();
    for (const auto& p : m_planePorts)
    {
        rate += p->GetRateBps();
    }
    return rate;
}

bool
RdmaNic::PlanePaused(uint32_t plane, uint8_t priority) const
{
    return plane == 0 ? IsPaused(priority) : m_planePorts[plane - 1]->IsPaused(priority);
}

uint64_t
RdmaNic::StagedFrames(uint32_t plane) const
{
    return plane < m_staged.size() ? m_staged[plane].size() : 0;
}

void
RdmaNic::TransmitAll()
{
    TryTransmit();
    for (const auto& p : m_planePorts)
    {
        p->TryTransmit();
    }
}

bool
RdmaNic::DequeueForPlane(uint32_t plane, Ptr<Packet>& packet, FrameMeta& meta)
{
    const uint32_t planes = GetNPlanes();
    auto& mine = m_staged[plane];
    if (!mine.empty())
    {
        if (PlanePaused(plane, mine.front().meta.priority))
        {
            return false; // the port's Resume() calls TryTransmit
        }
        packet = std::move(mine.front().packet);
        meta = mine.front().meta;
        mine.pop_front();
        // A staging queue has room again: idle ports may take the scheduler's next frames.
        // Scheduled, not called: this runs inside the port's TryTransmit.
        if (!m_kickPending)
        {
            m_kickPending = true;
            Simulator::ScheduleNow([this]() {
                m_kickPending = false;
                TransmitAll();
            });
        }
        return true;
    }
    for (;;)
    {
        for (const auto& q : m_staged)
        {
            if (q.size() >= kStagedFramesPerPlane)
            {
                return false; // head-of-line: a plane is backed up
            }
        }
        Ptr<Packet> p;
        FrameMeta m;
        if (!DequeueNext(p, m))
        {
            return false;
        }
        const uint32_t q =
            PortOfEntropy(m.srcPort, planes, NicPlanePort::UsablePorts(*this, m.dstHost));
        if (q == plane && !PlanePaused(plane, m.priority))
        {
            packet = std::move(p);
            meta = m;
            return true;
        }
        m_staged[q].push_back(ControlFrame{std::move(p), m});
        if (q != plane)
        {
            // Port q's DequeueForPlane takes it from its staging queue (no recursion).
            GetPlanePort(q)->TryTransmit();
        }
    }
}

TypeId
NicPlanePort::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NicPlanePort")
                            .SetParent<FabricNetDevice>()
                            .SetGroupName("Rdma")
                            .AddConstructor<NicPlanePort>();
    return tid;
}

uint32_t
NicPlanePort::UpPorts(const RdmaNic& nic)
{
    uint32_t mask = nic.IsLinkUp() ? 1u : 0u;
    for (size_t k = 0; k < nic.m_planePorts.size(); ++k)
    {
        mask |= nic.m_planePorts[k]->IsLinkUp() ? 2u << k : 0u;
    }
    return mask;
}

uint32_t
NicPlanePort::UsablePorts(const RdmaNic& nic, uint32_t dst)
{
    const uint32_t mine = UpPorts(nic);
    const auto& states = static_cast<const NicPlanePort&>(*nic.m_planePorts.front()).m_states;
    const uint32_t both = states && dst < states->up.size() ? mine & states->up[dst] : mine;
    // No plane reaches dst from a port that is up: any port that is up (the frame is lost in
    // the fabric and the transport tries again) rather than a dead port's staging queue, which
    // would hold up the scheduler for every other destination.
    return both != 0 ? both : mine;
}

void
NicPlanePort::LinkChanged(RdmaNic* nic)
{
    // The frames staged for a port whose link went down move to the ports that are up (as the
    // scheduler would place them now), so none waits for the dead link and the scheduler is
    // not held up by a staging queue that cannot drain. Frames already sent on the dead link
    // are lost (the transport recovers them).
    const uint32_t ports = nic->GetNPlanes();
    const uint32_t up = UpPorts(*nic);
    const auto& states = static_cast<const NicPlanePort&>(*nic->m_planePorts.front()).m_states;
    if (states && nic->GetHostId() < states->up.size())
    {
        states->up[nic->GetHostId()] = up;
    }
    for (uint32_t d = 0; d < ports; ++d)
    {
        if (((up >> d) & 1u) || nic->m_staged[d].empty() || up == 0)
        {
            continue;
        }
        auto moving = std::move(nic->m_staged[d]);
        nic->m_staged[d] = {};
        while (!moving.empty())
        {
            const auto& m = moving.front().meta;
            const uint32_t q = PortOfEntropy(m.srcPort, ports, UsablePorts(*nic, m.dstHost));
            nic->m_staged[q].push_back(std::move(moving.front()));
            moving.pop_front();
        }
    }
    // Not called here: this runs inside a port's SetLinkUp.
    Simulator::ScheduleNow(&RdmaNic::TransmitAll, Ptr<RdmaNic>(nic));
}

void
NicPlanePort::SetNic(Ptr<RdmaNic> nic, uint32_t plane)
{
    m_nic = nic;
    m_plane = plane;
}

uint64_t
NicPlanePort::GetQueuedFrames() const
{
    return m_nic ? m_nic->StagedFrames(m_plane) : 0;
}

void
NicPlanePort::DoDispose()
{
    m_nic = nullptr;
    FabricNetDevice::DoDispose();
}

bool
NicPlanePort::DoDequeue(Ptr<Packet>& packet, FrameMeta& meta)
{
    return m_nic && m_nic->DequeueForPlane(m_plane, packet, meta);
}

void
NicPlanePort::DoReceive(Ptr<Packet> packet, const FrameMeta& meta)
{
    if (m_nic)
    {
        m_nic->DoReceive(packet, meta);
    }
}

Ptr<Packet>
NicPlanePort::WireFrame(Ptr<Packet> frame, const FrameMeta& meta, bool transmitted) const
{
    return m_nic ? m_nic->WireFrame(frame, meta, transmitted) : frame;
}

} // namespace ns3
