/*
 * tusk: InfiniBand congestion control at a switch port: root or victim of congestion, and
 * whether the port may mark FECN (IBA vol. 1, annex A10).
 */
#ifndef TUSK_IB_FECN_MARKING_H
#define TUSK_IB_FECN_MARKING_H

#include <cstdint>

namespace ns3
{
namespace ib
{

/**
 * The switch's Victim_Mask bit of a port, as SwitchPort's EcnVictimMask attribute sets it
 * (IBA vol. 1, annex A10, the SwitchCongestionSetting attribute: one bit per port).
 * - END_NODES: set on a port whose link leads to an end node (a channel adapter), clear on a
 *   port that leads to another switch. The annex's recommendation: an end node does not mark,
 *   so a switch port whose queue grows because the channel adapter behind it returns credits
 *   too slowly is the last place that can report that congestion.
 * - SET: the bit is set whatever the port faces (the port marks as a victim too).
 * - CLEAR: the bit is clear (only the root of congestion marks; OpenSM's default mask is 0).
 */
enum VictimMask
{
    VICTIM_MASK_END_NODES = 0,
    VICTIM_MASK_SET = 1,
    VICTIM_MASK_CLEAR = 2,
};

/** The part a port's virtual lane plays when its queue is above the marking threshold. */
enum class CongestionRole : uint8_t
{
    ROOT,   //!< it has the credits for its next frame: more arrives than its link sends
    VICTIM, //!< it lacks them: its queue grows because the next hop is congested
};

/**
 * \brief Root or victim (IBA vol. 1, annex A10, switch congestion detection): a VL above its
 * threshold is the root of congestion when it holds the credits its next frame needs, and a
 * victim of congestion further on when it does not.
 * \param creditsAvailable credits (64-byte blocks) the port may still spend on the VL
 * \param blocksOfNextFrame credits the VL's next frame takes (the head of its queue, or the
 *        arriving frame when the queue is empty)
 */
constexpr CongestionRole
RoleOf(uint64_t creditsAvailable, uint32_t blocksOfNextFrame)
{
    return creditsAvailable >= blocksOfNextFrame ? CongestionRole::ROOT : CongestionRole::VICTIM;
}

/** The Victim_Mask bit of a port under `setting`; `facesEndNode`: the port's link leads to a
 *  channel adapter rather than to another switch. */
constexpr bool
VictimMaskBit(VictimMask setting, bool facesEndNode)
{
    return setting == VICTIM_MASK_SET || (setting == VICTIM_MASK_END_NODES && facesEndNode);
}

/**
 * \brief Whether a port above its marking threshold may set FECN on a frame (annex A10): the
 * root of congestion marks; a victim marks only with its Victim_Mask bit set. A frame a victim
 * would have marked without the bit is counted as a suppressed mark
 * (SwitchPort::GetVictimMarksSuppressed).
 */
constexpr bool
MayMarkFecn(CongestionRole role, bool victimMaskBit)
{
    return role == CongestionRole::ROOT || victimMaskBit;
}

} // namespace ib
} // namespace ns3

#endif
