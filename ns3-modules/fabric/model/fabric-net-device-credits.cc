/*
 * tusk: FabricNetDevice, InfiniBand link-level credit flow control per virtual lane (IBA vol. 1,
 * 7.9; the arithmetic in ib-credits.h): the sender's credit check and spending, the input
 * buffer's blocks, credit updates to the peer and the credit-stall accounting.
 */
#include "fabric-net-device.h"

#include "fabric-channel.h"
#include "ib-credits.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

void
FabricNetDevice::EnableCreditFlowControl()
{
    Ptr<FabricNetDevice> peer = GetPeerDevice();
    NS_ABORT_MSG_IF(!peer, "FabricNetDevice: credit flow control needs an attached link");
    m_creditFc = true;
    m_vlCapacityBlocks = m_vlBufferBytes / ib::kCreditBlockBytes;
    // Link initialisation: the peer's first flow-control packets advertise its empty buffer.
    const uint64_t peerBlocks = peer->m_vlBufferBytes / ib::kCreditBlockBytes;
    m_vl.assign(kVls, VlCredit());
    for (auto& c : m_vl)
    {
        c.fccl = ib::Fccl(0, peerBlocks);
    }
}

void
FabricNetDevice::SpendCredit(uint8_t vl, uint32_t bytes, uint64_t nowPs)
{
    VlCredit& c = m_vl[vl];
    NS_ABORT_MSG_IF(!ib::CreditAllows(c.fccl, c.fctbs, ib::Blocks(bytes)),
                    "FabricNetDevice: a frame was sent without credit (the subclass must "
                    "ask HasCredit)");
    c.fctbs = ib::Mod12(c.fctbs + ib::Blocks(bytes));
    EndCreditStall(vl, nowPs);
}

void
FabricNetDevice::TakeInputBlocks(uint8_t vl, uint32_t bytes)
{
    // The frame takes its blocks of the VL's input buffer: the invariant of credit flow
    // control is that they are free (a sender spends only the credit this buffer advertised;
    // creditOverruns counts the breaches, and the run's invariant check fails on one). A frame
    // lost before the buffer returns them at once (the FCTBS/ABR resynchronisation of IBA
    // 7.9.4 in effect).
    VlCredit& c = m_vl[vl];
    const uint32_t blocks = ib::Blocks(bytes);
    c.abr = ib::Mod12(c.abr + blocks);
    c.usedBlocks += blocks;
    if (c.usedBlocks > m_vlCapacityBlocks)
    {
        m_counters.creditOverruns++;
    }
    c.peakBlocks = std::max(c.peakBlocks, c.usedBlocks);
}

bool
FabricNetDevice::CreditCheck(uint8_t vl, uint32_t bytes)
{
    VlCredit& c = m_vl[vl];
    if (ib::CreditAllows(c.fccl, c.fctbs, ib::Blocks(bytes)))
    {
        return true;
    }
    if (!c.stalled)
    {
        c.stalled = true;
        c.stallSincePs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    }
    return false;
}

void
FabricNetDevice::EndCreditStall(uint8_t vl, uint64_t nowPs)
{
    VlCredit& c = m_vl[vl];
    if (c.stalled)
    {
        c.stalled = false;
        c.stallTotalPs += nowPs - c.stallSincePs;
    }
}

void
FabricNetDevice::ReturnCredit(uint8_t vl, uint32_t bytes)
{
    VlCredit& c = m_vl[vl];
    const uint32_t blocks = ib::Blocks(bytes);
    NS_ABORT_MSG_IF(c.usedBlocks < blocks, "FabricNetDevice: credits returned twice");
    c.usedBlocks -= blocks;
    if (!c.updatePending)
    {
        // Credits freed within CreditUpdateLatency go back in one flow-control packet.
        c.updatePending = true;
        Simulator::Schedule(m_creditLatency, &FabricNetDevice::SendCreditUpdate, this, vl);
    }
}

void
FabricNetDevice::SendCreditUpdate(uint8_t vl)
{
    VlCredit& c = m_vl[vl];
    c.updatePending = false;
    const uint16_t fccl = ib::Fccl(c.abr, m_vlCapacityBlocks - std::min(m_vlCapacityBlocks,
                                                                         c.usedBlocks));
    FabricNetDevice* peer = PeekPointer(GetPeerDevice());
    // Flow-control packets are not queued behind data (they are 6 bytes on a VL of their
    // own): modelled as arriving one link delay after they leave.
    Simulator::ScheduleWithContext(peer->GetNodeId(), m_channel->GetDelay(),
                                   &FabricNetDevice::ReceiveCreditUpdate, peer, vl, fccl);
}

void
FabricNetDevice::ReceiveCreditUpdate(uint8_t vl, uint16_t fccl)
{
    m_vl[vl].fccl = fccl;
    TryTransmit();
}

uint32_t
FabricNetDevice::GetAvailableCredits(uint8_t vl) const
{
    NS_ABORT_MSG_IF(m_vl.empty(), "FabricNetDevice::GetAvailableCredits: no credit flow control");
    return ib::Available(m_vl[vl].fccl, m_vl[vl].fctbs);
}

uint64_t
FabricNetDevice::GetCreditStallPs(Time now) const
{
    uint64_t total = 0;
    const auto nowPs = static_cast<uint64_t>(now.GetPicoSeconds());
    for (const auto& c : m_vl)
    {
        total += c.stallTotalPs + (c.stalled && nowPs > c.stallSincePs ? nowPs - c.stallSincePs : 0);
    }
    return total;
}

} // namespace ns3
