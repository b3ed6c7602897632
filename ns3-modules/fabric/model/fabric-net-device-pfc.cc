/*
 * tusk: FabricNetDevice, priority flow control (IEEE 802.1Qbb): sending and receiving PAUSE
 * frames, pause expiry and resume, paused-time accounting and the PFC watchdog (storm detection
 * and recovery).
 */
#include "fabric-net-device.h"

#include "fabric-units.h"
#include "pfc-header.h"

#include "ns3/ethernet-header.h"
#include "ns3/ethernet-trailer.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

void
FabricNetDevice::SendPfc(uint8_t priority, uint16_t quanta, uint8_t depth)
{
    PfcHeader pfc;
    pfc.classEnable = static_cast<uint8_t>(1u << priority);
    pfc.quanta[priority] = quanta;
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(pfc);
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(Mac48Address("01:80:c2:00:00:01")); // MAC control multicast
    eth.SetLengthType(kEtherTypeMacControl);
    p->AddHeader(eth);
    p->AddTrailer(EthernetTrailer());
    FrameMeta meta;
    meta.kind = FrameKind::PFC;
    meta.priority = priority;
    meta.pfcDepth = depth;
    // The quanta travel in the frame; the meta's dstQp field is not used for PFC.
    if (quanta > 0)
    {
        m_counters.pfcXoffTx++;
    }
    m_pfcTrace(PfcEvent{static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()), priority,
                        quanta, true, depth});
    m_macControl.push_back(MacControlFrame{p, meta});
    TryTransmit();
}

void
FabricNetDevice::ReceivePfc(Ptr<Packet> packet, const FrameMeta& meta)
{
    m_counters.pfcRx++;
    m_pfcRxTrace(packet, meta);
    Ptr<Packet> copy = packet->Copy();
    EthernetHeader eth(false);
    copy->RemoveHeader(eth);
    PfcHeader pfc;
    copy->RemoveHeader(pfc);
    const uint64_t nowPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (!(pfc.classEnable & (1u << p)))
        {
            continue;
        }
        const uint16_t quanta = pfc.quanta[p];
        m_pfcTrace(PfcEvent{nowPs, p, quanta, false, meta.pfcDepth});
        if (quanta == 0)
        {
            Resume(p);
            continue;
        }
        PfcTimers& timers = Timers();
        if (m_pauseExpiryPs[p] == 0)
        {
            m_pausedSincePs[p] = nowPs;
            if (!m_watchdogTime.IsZero())
            {
                timers.watchdog[p].Cancel();
                timers.watchdog[p] =
                    Simulator::Schedule(m_watchdogTime, &FabricNetDevice::WatchdogCheck, this, p);
            }
        }
        m_rxPauseDepth[p] = meta.pfcDepth;
        const uint64_t durationPs =
            SerializationPs(static_cast<uint64_t>(quanta) * kPfcQuantumBits / 8, m_rateBps);
        m_pauseExpiryPs[p] = nowPs + durationPs;
        m_pausedMask |= static_cast<uint8_t>(1u << p);
        timers.pause[p].Cancel();
        timers.pause[p] = Simulator::Schedule(PicoSeconds(durationPs),
                                              &FabricNetDevice::PauseExpired, this, p);
    }
}

bool
FabricNetDevice::IsPaused(uint8_t priority) const
{
    if (!((m_pausedMask >> priority) & 1))
    {
        return false; // the common case, without asking the simulator for the time
    }
    const uint64_t nowPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    if (m_pauseExpiryPs[priority] == 0 || m_pauseExpiryPs[priority] <= nowPs)
    {
        return false;
    }
    // A storm with the Forward action overrides the pause.
    return !(m_watchdogAction == WATCHDOG_FORWARD && m_stormUntilPs[priority] > nowPs);
}

bool
FabricNetDevice::IsInPfcStorm(uint8_t priority) const
{
    return ((m_stormMask >> priority) & 1) &&
           m_stormUntilPs[priority] > static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
}

void
FabricNetDevice::PauseExpired(uint8_t priority)
{
    Resume(priority);
}

void
FabricNetDevice::Resume(uint8_t priority)
{
    if (m_pauseExpiryPs[priority] == 0)
    {
        return;
    }
    const uint64_t nowPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    m_pausedTotalPs[priority] += nowPs - m_pausedSincePs[priority];
    m_pauseExpiryPs[priority] = 0;
    m_pausedMask &= static_cast<uint8_t>(~(1u << priority));
    m_pfcTimers->pause[priority].Cancel(); // a paused port has its timers
    m_pfcTimers->watchdog[priority].Cancel();
    TryTransmit();
}

uint64_t
FabricNetDevice::GetPausedPs(uint8_t priority, Time now) const
{
    uint64_t total = m_pausedTotalPs[priority];
    if (m_pauseExpiryPs[priority] != 0)
    {
        const uint64_t nowPs = static_cast<uint64_t>(now.GetPicoSeconds());
        total += std::min(nowPs, m_pauseExpiryPs[priority]) - m_pausedSincePs[priority];
    }
    return total;
}

void
FabricNetDevice::WatchdogCheck(uint8_t priority)
{
    if (!IsPaused(priority))
    {
        return;
    }
    const uint64_t nowPs = static_cast<uint64_t>(Simulator::Now().GetPicoSeconds());
    m_counters.watchdogTriggers++;
    m_watchdogTrace(priority);
    m_stormUntilPs[priority] = nowPs + static_cast<uint64_t>(m_watchdogRecovery.GetPicoSeconds());
    m_stormMask |= static_cast<uint8_t>(1u << priority);
    if (m_watchdogAction == WATCHDOG_DROP)
    {
        DoPfcStorm(priority);
    }
    else
    {
        TryTransmit();
        // When the storm ends the pause (if still refreshed) applies again: re-check then.
        Simulator::Schedule(m_watchdogRecovery, &FabricNetDevice::TryTransmit, this);
    }
    // Check again after the recovery period if the pause goes on.
    Timers().watchdog[priority] = Simulator::Schedule(m_watchdogRecovery + m_watchdogTime,
                                                      &FabricNetDevice::WatchdogCheck, this,
                                                      priority);
}

} // namespace ns3
