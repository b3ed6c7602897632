/*
 * tusk: FabricNetDevice, the line-rate invariant: every transmission checked against the link's
 * rate in the topology over a sliding window of kRateCheckFrames frames.
 */
#include "fabric-net-device.h"

#include "fabric-units.h"

namespace ns3
{

void
FabricNetDevice::CheckLineRateAgainst(uint64_t linkRateBps)
{
    m_checkRateBps = linkRateBps;
    // 8e12 ps per bit-second: whole at 100/200/400 Gb/s (80/40/20 ps per byte).
    m_checkPsPerByte = linkRateBps != 0 && 8'000'000'000'000ULL % linkRateBps == 0
                           ? 8'000'000'000'000ULL / linkRateBps
                           : 0;
}

void
FabricNetDevice::CheckLineRate(uint64_t nowPs, uint32_t bytes)
{
    auto& slot = m_recentTx[m_framesSent % kRateCheckFrames];
    if (m_framesSent >= kRateCheckFrames && !m_rateViolation.found &&
        nowPs - slot.first + kRateCheckFrames < m_recentSerialPs)
    {
        m_rateViolation = {true, nowPs, nowPs - slot.first, m_recentSerialPs};
    }
    m_recentSerialPs -= slot.second;
    const uint64_t wireBytes = bytes + m_phyOverheadBytes;
    slot = {nowPs, m_checkPsPerByte != 0 ? wireBytes * m_checkPsPerByte
                                         : SerializationPs(wireBytes, m_checkRateBps)};
    m_recentSerialPs += slot.second;
    ++m_framesSent;
}

} // namespace ns3
