#include "shared-buffer-mmu.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(SharedBufferMmu);

TypeId
SharedBufferMmu::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SharedBufferMmu")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<SharedBufferMmu>()
            .AddAttribute("BufferBytes",
                          "Total packet buffer of the switch (bytes).",
                          UintegerValue(32ULL << 20),
                          MakeUintegerAccessor(&SharedBufferMmu::m_bufferBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("ReservedBytes",
                          "Guaranteed space per ingress port and priority group (bytes).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SharedBufferMmu::m_reservedPerPg),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("DynamicThreshold",
                          "true: thresholds are alpha x free shared bytes (dynamic threshold); "
                          "false: StaticThresholdBytes.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SharedBufferMmu::m_dynamic),
                          MakeBooleanChecker())
            .AddAttribute("Alpha",
                          "Dynamic-threshold alpha of the PFC (ingress) threshold (dimensionless; "
                          "1/8 as the HPCC simulator's pfc_a_shift = 3).",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&SharedBufferMmu::m_alpha),
                          MakeDoubleChecker<double>(1e-6, 64))
            .AddAttribute("EgressAlpha",
                          "Dynamic-threshold alpha of lossy egress queues (dimensionless).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&SharedBufferMmu::m_egressAlpha),
                          MakeDoubleChecker<double>(1e-6, 64))
            .AddAttribute("StaticThresholdBytes",
                          "Static threshold for PFC and lossy egress queues when "
                          "DynamicThreshold is false (bytes).",
                          UintegerValue(1ULL << 20),
                          MakeUintegerAccessor(&SharedBufferMmu::m_staticThreshold),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("XonOffsetBytes",
                          "Resume offset: XON when shared use <= threshold - offset (bytes).",
                          UintegerValue(8192),
                          MakeUintegerAccessor(&SharedBufferMmu::m_xonOffset),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("LosslessPriorities",
                          "Bit mask of lossless priorities (PFC-protected), bit i = priority i. "
                          "Default 0x08: priority 3, the RoCE convention.",
                          UintegerValue(0x08),
                          MakeUintegerAccessor(&SharedBufferMmu::m_losslessMask),
                          MakeUintegerChecker<uint8_t>())
            .AddTraceSource("HeadroomAdmit",
                            "A lossless frame was charged to PFC headroom: (ingress port, PG, "
                            "headroom of that PG now used in bytes).",
                            MakeTraceSourceAccessor(&SharedBufferMmu::m_headroomTrace),
                            "ns3::SharedBufferMmu::HeadroomTracedCallback");
    return tid;
}

SharedBufferMmu::SharedBufferMmu() = default;

void
SharedBufferMmu::SetPorts(uint16_t ports)
{
    m_ports = ports;
    const size_t n = static_cast<size_t>(ports) * kPgs;
    m_headroom.assign(ports, 0);
    m_lossyPort.assign(ports, 0);
    m_anyLossyPort = false;
    m_cells.assign(n, Cell{});
    m_reservedPool = m_reservedPerPg * kPgs * ports;
    m_headroomPool = 0;
}

void
SharedBufferMmu::SetHeadroom(uint16_t port, uint64_t bytes)
{
    int lossless = 0;
    for (int p = 0; p < kPgs; ++p)
    {
        lossless += IsLossless(static_cast<uint8_t>(p)) ? 1 : 0;
    }
    m_headroomPool -= m_headroom[port] * lossless;
    m_headroom[port] = bytes;
    m_headroomPool += bytes * lossless;
}

void
SharedBufferMmu::SetLossyPort(uint16_t port)
{
    NS_ABORT_MSG_IF(port >= m_ports, "SharedBufferMmu: port out of range");
    SetHeadroom(port, 0);
    m_lossyPort[port] = 1;
    m_anyLossyPort = true;
    m_lossyPg = 0;
    while (m_lossyPg < kPgs && IsLossless(m_lossyPg))
    {
        ++m_lossyPg; // kPgs: every priority is lossless, frames keep their own PG
    }
}

uint64_t
SharedBufferMmu::GetSharedPoolBytes() const
{
    const uint64_t committed = m_reservedPool + m_headroomPool;
    return committed >= m_bufferBytes ? 0 : m_bufferBytes - committed;
}

uint64_t
SharedBufferMmu::PfcThreshold() const
{
    if (!m_dynamic)
    {
        return m_staticThreshold;
    }
    const uint64_t pool = GetSharedPoolBytes();
    const uint64_t freeBytes = pool > m_sharedUsedTotal ? pool - m_sharedUsedTotal : 0;
    return static_cast<uint64_t>(m_alpha * static_cast<double>(freeBytes));
}

uint64_t
SharedBufferMmu::EgressThreshold() const
{
    if (!m_dynamic)
    {
        return m_staticThreshold;
    }
    const uint64_t pool = GetSharedPoolBytes();
    const uint64_t freeBytes = pool > m_sharedUsedTotal ? pool - m_sharedUsedTotal : 0;
    return static_cast<uint64_t>(m_egressAlpha * static_cast<double>(freeBytes));
}

uint64_t
SharedBufferMmu::GetIngressBytes(uint16_t in, uint8_t pg) const
{
    return At(in, pg).reserved + At(in, pg).shared + At(in, pg).hdrm;
}

SharedBufferMmu::Verdict
SharedBufferMmu::Admit(uint16_t in, uint16_t out, uint8_t priority, uint32_t bytes)
{
    NS_ABORT_MSG_IF(in >= m_ports || out >= m_ports, "SharedBufferMmu: port out of range");
    // The ingress PG a frame is charged to (PgOf: lossless frames crossing a lossy port are
    // charged to a lossy PG); egress queues stay per priority.
    const uint8_t q = priority & 7;
    const uint8_t pg = PgOf(in, out, priority);
    const bool lossless =
        IsLossless(q) && !(m_anyLossyPort && (m_lossyPort[in] || m_lossyPort[out]));
    const uint64_t pool = GetSharedPoolBytes();
    if (!lossless)
    {
        const uint64_t e = At(out, q).egress;
        const bool fitsReserved = At(in, pg).reserved + bytes <= m_reservedPerPg;
        if (!fitsReserved &&
            (e + bytes > EgressThreshold() || m_sharedUsedTotal + bytes > pool))
        {
            return DROP_EGRESS;
        }
    }
    Verdict v = ADMIT;
    if (At(in, pg).reserved + bytes <= m_reservedPerPg)
    {
        At(in, pg).reserved += bytes;
        m_reservedUsedTotal += bytes;
        m_peakReserved = std::max(m_peakReserved, m_reservedUsedTotal);
    }
    else if (!lossless ||
             (At(in, pg).shared + bytes <= PfcThreshold() && m_sharedUsedTotal + bytes <= pool))
    {
        At(in, pg).shared += bytes;
        m_sharedUsedTotal += bytes;
        m_peakShared = std::max(m_peakShared, m_sharedUsedTotal);
    }
    else if (At(in, pg).hdrm + bytes <= m_headroom[in])
    {
        At(in, pg).hdrm += bytes;
        m_headroomUsedTotal += bytes;
        m_peakHeadroom = std::max(m_peakHeadroom, m_headroomUsedTotal);
        v = ADMIT_HEADROOM;
        m_headroomTrace(in, pg, At(in, pg).hdrm);
    }
    else
    {
        return DROP_HEADROOM;
    }
    At(out, q).egress += bytes;
    m_totalUsed += bytes;
    m_peakUsed = std::max(m_peakUsed, m_totalUsed);
    return v;
}

void
SharedBufferMmu::Release(uint16_t in, uint16_t out, uint8_t priority, uint32_t bytes)
{
    const uint8_t pg = PgOf(in, out, priority);
    uint64_t left = bytes;
    uint64_t& h = At(in, pg).hdrm;
    const uint64_t fromH = std::min(h, left);
    h -= fromH;
    m_headroomUsedTotal -= fromH;
    left -= fromH;
    uint64_t& s = At(in, pg).shared;
    const uint64_t fromS = std::min(s, left);
    s -= fromS;
    m_sharedUsedTotal -= fromS;
    left -= fromS;
    uint64_t& r = At(in, pg).reserved;
    NS_ABORT_MSG_IF(r < left, "SharedBufferMmu: release of bytes never admitted");
    r -= left;
    m_reservedUsedTotal -= left;
    uint64_t& e = At(out, priority & 7).egress;
    NS_ABORT_MSG_IF(e < bytes, "SharedBufferMmu: egress release of bytes never admitted");
    e -= bytes;
    m_totalUsed -= bytes;
}

bool
SharedBufferMmu::ShouldPause(uint16_t in, uint8_t pg) const
{
    if (!IsLossless(pg) || (m_anyLossyPort && m_lossyPort[in]))
    {
        return false;
    }
    return At(in, pg).hdrm > 0 || At(in, pg).shared >= PfcThreshold();
}

bool
SharedBufferMmu::ShouldResume(uint16_t in, uint8_t pg) const
{
    if (At(in, pg).hdrm > 0)
    {
        return false;
    }
    const uint64_t s = At(in, pg).shared;
    const uint64_t t = PfcThreshold();
    return s == 0 || s + m_xonOffset <= t;
}

bool
SharedBufferMmu::CheckInvariants() const
{
    uint64_t ingress = 0;
    uint64_t egress = 0;
    uint64_t shared = 0;
    uint64_t reserved = 0;
    uint64_t headroom = 0;
    for (size_t i = 0; i < m_cells.size(); ++i)
    {
        const Cell& c = m_cells[i];
        ingress += c.reserved + c.shared + c.hdrm;
        egress += c.egress;
        shared += c.shared;
        reserved += c.reserved;
        headroom += c.hdrm;
        if (c.reserved > m_reservedPerPg || c.hdrm > m_headroom[i / kPgs])
        {
            return false;
        }
    }
    return ingress == m_totalUsed && egress == m_totalUsed && shared == m_sharedUsedTotal &&
           reserved == m_reservedUsedTotal && headroom == m_headroomUsedTotal &&
           m_reservedUsedTotal + m_sharedUsedTotal + m_headroomUsedTotal == m_totalUsed &&
           m_sharedUsedTotal <= GetSharedPoolBytes();
}

} // namespace ns3
