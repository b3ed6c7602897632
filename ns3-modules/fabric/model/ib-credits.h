/*
 * tusk: InfiniBand link-level flow control arithmetic (credits per virtual lane).
 */
#ifndef TUSK_IB_CREDITS_H
#define TUSK_IB_CREDITS_H

#include <algorithm>
#include <cstdint>

namespace ns3
{

/**
 * InfiniBand credit-based link-level flow control, the arithmetic of the InfiniBand
 * Architecture Specification vol. 1, section 7.9.4 (flow control packets, FCTBS / FCCL).
 *
 * A credit is one 64-byte block of the receiver's input buffer of a virtual lane (VL). The
 * sender keeps FCTBS, the total blocks sent on the VL; the receiver keeps ABR, the adjusted
 * blocks received, and advertises FCCL = ABR + (free blocks, at most 2048), modulo 4096
 * (12-bit fields). The sender may start a packet of B blocks only while
 * (FCCL − (FCTBS + B)) mod 4096 ≤ 2048: it never has more than FCCL − FCTBS blocks in
 * flight, so a VL's input buffer never overflows (oracle 21).
 */
namespace ib
{

constexpr uint32_t kCreditBlockBytes = 64; //!< one credit, bytes
constexpr uint32_t kCreditModulus = 4096;  //!< FCTBS, ABR and FCCL are 12-bit counters
constexpr uint32_t kMaxCredits = 2048;     //!< the most a VL advertises beyond ABR (128 KiB)

/** Credits (64-byte blocks) a packet of `bytes` takes: ceil(bytes / 64). */
constexpr uint32_t
Blocks(uint32_t bytes)
{
    return (bytes + kCreditBlockBytes - 1) / kCreditBlockBytes;
}

/** `value` modulo 4096. */
constexpr uint16_t
Mod12(uint64_t value)
{
    return static_cast<uint16_t>(value % kCreditModulus);
}

/**
 * The credit limit a receiver advertises (FCCL, IBA 7.9.4.2): ABR plus its free blocks, at
 * most 2048 of them, modulo 4096.
 * \param abr the VL's adjusted blocks received (mod 4096)
 * \param freeBlocks free blocks of the VL's input buffer
 */
constexpr uint16_t
Fccl(uint16_t abr, uint64_t freeBlocks)
{
    return Mod12(abr + std::min<uint64_t>(freeBlocks, kMaxCredits));
}

/**
 * Whether a sender may start a packet of `blocks` credits on the VL (IBA 7.9.4.3):
 * (FCCL − (FCTBS + blocks)) mod 4096 ≤ 2048.
 * \param fccl the last credit limit received (mod 4096)
 * \param fctbs blocks sent so far (mod 4096)
 */
constexpr bool
CreditAllows(uint16_t fccl, uint16_t fctbs, uint32_t blocks)
{
    return blocks <= kMaxCredits &&
           Mod12(uint64_t{fccl} + kCreditModulus * 2 - fctbs - blocks) <= kMaxCredits;
}

/** Credits the sender may still use: (FCCL − FCTBS) mod 4096, 0 when that exceeds 2048
 *  (a limit behind the blocks already sent, as CreditAllows reads it). */
constexpr uint32_t
Available(uint16_t fccl, uint16_t fctbs)
{
    const uint16_t d = Mod12(uint64_t{fccl} + kCreditModulus - fctbs);
    return d <= kMaxCredits ? d : 0;
}

} // namespace ib

} // namespace ns3

#endif
