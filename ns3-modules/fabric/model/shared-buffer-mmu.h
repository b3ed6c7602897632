/*
 * tusk: SharedBufferMmu, the buffer manager of one switch: ingress and egress accounting,
 * reserved / shared / headroom pools, dynamic or static thresholds, PFC XOFF/XON decisions.
 */
#ifndef TUSK_SHARED_BUFFER_MMU_H
#define TUSK_SHARED_BUFFER_MMU_H

#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief Shared-buffer MMU in the style of Broadcom Trident/Tomahawk switches (and of the
 * MMU of the HPCC simulator, Li et al., SIGCOMM 2019).
 *
 * The switch buffer (`BufferBytes`) is split into a reserved pool (`ReservedBytes` per ingress
 * port and priority group), a headroom pool (per ingress port and lossless PG, set per port by
 * the fabric builder from the link's delay and rate) and a shared pool (the rest).
 *
 * - A **lossless** frame (priority in `LosslessPriorities`) is charged at ingress to its PG's
 *   reserved space, then to the shared pool while the PG's shared use stays below the PFC
 *   threshold, then to the PG's headroom; if the headroom is full it is dropped
 *   (INGRESS_HEADROOM: the headroom was sized too small). Lossless frames are never dropped at
 *   egress.
 * - A **lossy** frame is dropped (EGRESS_THRESHOLD) when its egress queue would exceed the
 *   egress threshold; otherwise it is charged like a lossless one without headroom.
 * - Thresholds: dynamic (Choudhury & Hahne, 1998): T = alpha x (free shared bytes); or static:
 *   T = `StaticThresholdBytes`.
 * - PFC: a PG should be paused (XOFF) while it uses headroom or its shared use is at or above
 *   T; it may resume (XON) when it uses no headroom and its shared use is at most
 *   T - `XonOffsetBytes` (or zero).
 *
 * - A **lossy port** (SetLossyPort: the port of a long-haul link whose PFC headroom could not
 *   cover the link's bandwidth-delay product, oracle 22) ends the lossless domain: a frame of a
 *   lossless priority that arrives on it or leaves by it is accounted in the lowest lossy PG
 *   instead (its own PG if every priority is lossless), so it is dropped at the egress
 *   threshold rather than paused and does not count towards its ingress PG's XOFF (its egress
 *   queue stays that of its priority), and the port
 *   never asks its peer to pause. The transport recovers what is dropped.
 *
 * Release happens when a frame leaves its egress queue, headroom first, then shared, then
 * reserved. Every counter is 64-bit and never negative; the ingress totals and the egress
 * totals both equal the bytes queued in the switch (CheckInvariants). No Simulator needed.
 */
class SharedBufferMmu : public Object
{
  public:
    enum Verdict : uint8_t
    {
        ADMIT = 0,          //!< charged to reserved or shared space
        ADMIT_HEADROOM = 1, //!< lossless frame charged to PFC headroom
        DROP_HEADROOM = 2,  //!< lossless frame, headroom exhausted
        DROP_EGRESS = 3,    //!< lossy frame above the egress threshold
    };

    static constexpr int kPgs = 8;

    /** "HeadroomAdmit": a lossless frame was charged to PFC headroom; the headroom of
     *  (ingress port, PG) now used, bytes. */
    typedef void (*HeadroomTracedCallback)(uint16_t port, uint8_t pg, uint64_t usedBytes);

    static TypeId GetTypeId();
    SharedBufferMmu();

    /** Size the per-port tables. Call once, before any admission. */
    void SetPorts(uint16_t ports);
    uint16_t GetPorts() const { return m_ports; }
    /** Headroom of every lossless PG of ingress `port`, bytes. */
    void SetHeadroom(uint16_t port, uint64_t bytes);
    uint64_t GetHeadroom(uint16_t port) const { return m_headroom[port]; }

    bool IsLossless(uint8_t priority) const { return (m_losslessMask >> priority) & 1; }

    /** Run `port` lossy (see the class description); its headroom is set to 0. */
    void SetLossyPort(uint16_t port);
    bool IsLossyPort(uint16_t port) const { return m_lossyPort[port] != 0; }

    /** Admission of a `bytes` frame from ingress `in` to egress `out` on `priority`. */
    Verdict Admit(uint16_t in, uint16_t out, uint8_t priority, uint32_t bytes);
    /** The frame admitted with these arguments left its egress queue. */
    void Release(uint16_t in, uint16_t out, uint8_t priority, uint32_t bytes);

    /** Whether ingress (in, pg) should be paused now. */
    bool ShouldPause(uint16_t in, uint8_t pg) const;
    /** Whether a paused ingress (in, pg) may resume now. */
    bool ShouldResume(uint16_t in, uint8_t pg) const;

    /** The PFC (ingress shared) threshold now, bytes. */
    uint64_t PfcThreshold() const;
    /** The egress threshold for lossy queues now, bytes. */
    uint64_t EgressThreshold() const;

    uint64_t GetIngressBytes(uint16_t in, uint8_t pg) const;
    uint64_t GetHeadroomUsed(uint16_t in, uint8_t pg) const { return At(in, pg).hdrm; }
    uint64_t GetSharedUsed(uint16_t in, uint8_t pg) const { return At(in, pg).shared; }
    uint64_t GetEgressBytes(uint16_t out, uint8_t q) const { return At(out, q).egress; }
    /** The switch buffer, bytes (BufferBytes). */
    uint64_t GetBufferBytes() const { return m_bufferBytes; }
    /** Shared pool size now: the buffer less the reserved and headroom pools, bytes. */
    uint64_t GetSharedPoolBytes() const;
    /** Reserved pool: ReservedBytes x 8 PGs x ports, bytes. */
    uint64_t GetReservedPoolBytes() const { return m_reservedPool; }
    /** Headroom pool: the headroom of every lossless PG of every port, bytes. */
    uint64_t GetHeadroomPoolBytes() const { return m_headroomPool; }
    /** Occupancy of each pool now, bytes; the three add up to GetTotalUsed(). */
    uint64_t GetSharedPoolUsed() const { return m_sharedUsedTotal; }
    uint64_t GetReservedPoolUsed() const { return m_reservedUsedTotal; }
    uint64_t GetHeadroomPoolUsed() const { return m_headroomUsedTotal; }
    uint64_t GetTotalUsed() const { return m_totalUsed; }
    /** Largest total occupancy seen, bytes. */
    uint64_t GetPeakUsed() const { return m_peakUsed; }
    /** Largest occupancy of each pool seen (each its own maximum, not at the same instant). */
    uint64_t GetPeakSharedUsed() const { return m_peakShared; }
    uint64_t GetPeakReservedUsed() const { return m_peakReserved; }
    uint64_t GetPeakHeadroomUsed() const { return m_peakHeadroom; }

    /** Ingress sums, egress sums, the pool totals (reserved + shared + headroom) and the total
     *  agree and no pool is over-committed. */
    bool CheckInvariants() const;

  private:
    /** The counters of one (port, PG): the ingress PG's use of each pool and the egress
     *  queue of that priority, together, so that a frame's admission and release touch two
     *  32-byte cells, (in, pg) and (out, q), rather than four arrays' lines. */
    struct Cell
    {
        uint64_t reserved = 0; //!< ingress: used of the PG's reserved space
        uint64_t shared = 0;   //!< ingress: used of the shared pool
        uint64_t hdrm = 0;     //!< ingress: used of the PG's headroom
        uint64_t egress = 0;   //!< egress: bytes queued at (port, queue)
    };
    Cell& At(uint16_t port, uint8_t pg) { return m_cells[static_cast<size_t>(port) * kPgs + pg]; }
    const Cell& At(uint16_t port, uint8_t pg) const
    {
        return m_cells[static_cast<size_t>(port) * kPgs + pg];
    }

    uint64_t m_bufferBytes = 0;
    uint64_t m_reservedPerPg = 0;
    bool m_dynamic = true;
    double m_alpha = 0.125;
    double m_egressAlpha = 1.0;
    uint64_t m_staticThreshold = 0;
    uint64_t m_xonOffset = 0;
    uint8_t m_losslessMask = 0;

    uint16_t m_ports = 0;
    std::vector<uint64_t> m_headroom; //!< per ingress port, per lossless PG
    std::vector<uint8_t> m_lossyPort; //!< per port: 1 = lossy port (SetLossyPort)
    bool m_anyLossyPort = false;
    uint8_t m_lossyPg = kPgs; //!< PG of lossless frames crossing a lossy port; kPgs = their own

    /** The PG a frame from `in` to `out` of this priority is accounted in. */
    uint8_t PgOf(uint16_t in, uint16_t out, uint8_t priority) const
    {
        const uint8_t pg = priority & 7;
        return m_anyLossyPort && m_lossyPg < kPgs && (m_lossyPort[in] || m_lossyPort[out]) &&
                       IsLossless(pg)
                   ? m_lossyPg
                   : pg;
    }
    std::vector<Cell> m_cells; //!< per (port, pg)
    uint64_t m_sharedUsedTotal = 0;
    uint64_t m_reservedUsedTotal = 0;
    uint64_t m_headroomUsedTotal = 0;
    uint64_t m_peakShared = 0;
    uint64_t m_peakReserved = 0;
    uint64_t m_peakHeadroom = 0;
    uint64_t m_headroomPool = 0;
    uint64_t m_reservedPool = 0;
    uint64_t m_totalUsed = 0;
    uint64_t m_peakUsed = 0;
    TracedCallback<uint16_t, uint8_t, uint64_t> m_headroomTrace;
};

} // namespace ns3

#endif
