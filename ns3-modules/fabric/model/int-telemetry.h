/*
 * tusk: in-band network telemetry (INT) records as HPCC uses them (Li et al., "HPCC: High
 * Precision Congestion Control", SIGCOMM 2019, section 3.2 and 5): every switch egress a data
 * frame leaves appends one record (timestamp, transmitted bytes, queue length, link rate).
 */
#ifndef TUSK_INT_TELEMETRY_H
#define TUSK_INT_TELEMETRY_H

#include <array>
#include <cstddef>
#include <cstdint>

namespace ns3
{

/** Largest number of switch hops an INT stack records: a 3-tier Clos path crosses 5 switches. */
constexpr size_t kMaxIntHops = 5;

/**
 * \brief One switch hop's INT record: 64 bits in the layout of the HPCC simulator's IntHop
 * (alibaba-edu/High-Precision-Congestion-Control, src/network/utils/int-header.h):
 *
 * | bits | field | unit |
 * |---|---|---|
 * | 0-2 | rate code: the egress link rate | see RateCode |
 * | 3-26 | timestamp when the frame left the egress queue | ns, modulo 2^24 (16.8 ms) |
 * | 27-46 | bytes the egress port had put on the line before this frame (frame + PHY overhead) | ByteUnit(rate), modulo 2^20 |
 * | 47-63 | bytes queued at the egress port (all priorities) after this frame left | QlenUnit(rate), saturating |
 *
 * The byte and queue units scale with the hop's own rate, u = max(1, rate / 25 Gb/s): 128·u B
 * and 80·u B. That is the simulator's INT_MULTI as its run.py sets it (bandwidth / 25), tied to
 * the record's rate so that a reader needs nothing but the record. Counters wrap; deltas of two
 * records of the same port (TimeDeltaNs, TxBytesDelta) are taken modulo the field width, as the
 * HPCC sender does. Transmitted bytes include the PHY overhead (preamble, SFD, inter-frame
 * gap), so a saturated link reports exactly its line rate.
 */
struct IntHop
{
    static constexpr uint32_t kRateBits = 3;
    static constexpr uint32_t kTimeBits = 24;
    static constexpr uint32_t kBytesBits = 20;
    static constexpr uint32_t kQlenBits = 17;
    static constexpr uint64_t kByteUnit = 128; //!< bytes per txBytes unit at u = 1
    static constexpr uint64_t kQlenUnit = 80;  //!< bytes per qlen unit at u = 1

    uint64_t word = 0;

    /**
     * \brief The rate code of `rateBps`: 0..4 = 25, 50, 100, 200, 400 Gb/s as in the HPCC
     * simulator (which leaves 5..7 unused); tusk adds 5 = 800 Gb/s, 6 = 40 Gb/s, 7 = 10 Gb/s.
     * \return false for any other rate (such a port cannot stamp HPCC's INT header)
     */
    static bool RateCode(uint64_t rateBps, uint8_t& code);
    /** Line rate of a rate code, bit/s. */
    static uint64_t RateOfCode(uint8_t code);
    /** The unit multiplier u = max(1, rate / 25 Gb/s) of a rate. */
    static uint64_t UnitMultiplier(uint64_t rateBps)
    {
        const uint64_t u = rateBps / 25'000'000'000ULL;
        return u == 0 ? 1 : u;
    }

    /** Encode a record. \param rateCode from RateCode */
    static IntHop Make(uint64_t timeNs, uint64_t txBytes, uint64_t qlenBytes, uint8_t rateCode);

    uint8_t GetRateCode() const { return static_cast<uint8_t>(word & ((1u << kRateBits) - 1)); }
    uint64_t GetRateBps() const { return RateOfCode(GetRateCode()); }
    /** Timestamp field, ns modulo 2^24. */
    uint64_t GetTimeNs() const { return (word >> kRateBits) & ((1ULL << kTimeBits) - 1); }
    /** Transmitted-bytes field in bytes (a multiple of the unit, modulo 2^20 units). */
    uint64_t GetTxBytes() const
    {
        return ((word >> (kRateBits + kTimeBits)) & ((1ULL << kBytesBits) - 1)) * kByteUnit *
               UnitMultiplier(GetRateBps());
    }
    /** Queue length in bytes (a multiple of the unit; saturated at 2^17 - 1 units). */
    uint64_t GetQlenBytes() const
    {
        return (word >> (kRateBits + kTimeBits + kBytesBits)) * kQlenUnit *
               UnitMultiplier(GetRateBps());
    }
    /** ns between `older` and this record of the same port (modulo 2^24 ns). */
    uint64_t TimeDeltaNs(const IntHop& older) const
    {
        return (GetTimeNs() - older.GetTimeNs()) & ((1ULL << kTimeBits) - 1);
    }
    /** Bytes the port sent between `older` and this record (modulo 2^20 units). */
    uint64_t TxBytesDelta(const IntHop& older) const
    {
        const uint64_t mask = (1ULL << kBytesBits) - 1;
        const uint64_t a = (word >> (kRateBits + kTimeBits)) & mask;
        const uint64_t b = (older.word >> (kRateBits + kTimeBits)) & mask;
        return ((a - b) & mask) * kByteUnit * UnitMultiplier(GetRateBps());
    }
};

/**
 * \brief The INT stack a data frame collects hop by hop (and an ACK echoes): at most
 * kMaxIntHops records, no allocation. `present` says the frame carries an INT header at all
 * (the sending NIC's congestion control asked for it); switches push a record only then.
 */
struct IntStack
{
    std::array<IntHop, kMaxIntHops> hops{};
    uint16_t nHops = 0;   //!< records pushed (more than kMaxIntHops: only the first are kept)
    bool present = false; //!< the frame carries an INT header

    void Push(const IntHop& hop)
    {
        if (nHops < kMaxIntHops)
        {
            hops[nHops] = hop;
        }
        if (nHops < UINT16_MAX)
        {
            ++nHops;
        }
    }
    /** Records kept: min(nHops, kMaxIntHops). */
    uint32_t Recorded() const { return nHops < kMaxIntHops ? nHops : kMaxIntHops; }
};

} // namespace ns3

#endif
