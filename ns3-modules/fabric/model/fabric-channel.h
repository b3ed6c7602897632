/*
 * tusk: FabricChannel, a full-duplex point-to-point link between two FabricNetDevices.
 */
#ifndef TUSK_FABRIC_CHANNEL_H
#define TUSK_FABRIC_CHANNEL_H

#include "frame-meta.h"

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class FabricNetDevice;

/**
 * \brief A point-to-point link with a propagation delay.
 *
 * The sending device serialises a frame (its own rate) and hands it to the channel at the
 * start of transmission; the channel delivers it to the peer when its last bit arrives:
 * txTime + Delay later. The frame is not copied: the same Packet and its FrameMeta travel on.
 * Counts frames on the wire, for packet conservation checks.
 */
class FabricChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    FabricChannel();

    /** Attach a device; the first call sets end 0, the second end 1. */
    void Attach(Ptr<FabricNetDevice> device);

    /**
     * \brief Start sending a frame from `src` to the other end.
     * \param txTime the frame's serialisation time at the sender's rate
     */
    void Transmit(Ptr<Packet> packet, const FrameMeta& meta, Ptr<FabricNetDevice> src, Time txTime);

    /** The other end of the link as seen from `device`. */
    Ptr<FabricNetDevice> GetPeer(Ptr<const FabricNetDevice> device) const;

    Time GetDelay() const { return m_delay; }

    /** Frames handed to the channel whose last bit has not yet arrived. */
    uint64_t GetFramesInFlight() const { return m_inFlight; }

    // Channel
    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    class Delivery;
    void Deliver(Delivery* d);

    Time m_delay;
    Ptr<FabricNetDevice> m_end[2];
    uint64_t m_inFlight = 0;
    /** Arrival events, reused (MemberEvent's discipline): as many as frames were ever in
     *  flight at once, so no allocation per frame. */
    std::vector<Ptr<Delivery>> m_deliveries;
    Delivery* m_freeDeliveries = nullptr; //!< the idle ones, linked through Delivery::next
};

} // namespace ns3

#endif
