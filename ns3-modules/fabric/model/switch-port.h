/*
 * tusk: SwitchPort, one port of a SwitchNode: per-priority egress queues and a DRE.
 */
#ifndef TUSK_SWITCH_PORT_H
#define TUSK_SWITCH_PORT_H

#include "fabric-channel.h"
#include "fabric-net-device.h"

#include <array>
#include <deque>

namespace ns3
{

class SwitchNode;

/**
 * \brief A switch port: 8 per-priority FIFO egress queues sharing a byte limit, served in
 * strict priority (7 highest), and a discounting rate estimator (DRE) of egress utilisation
 * (Alizadeh et al., "CONGA", SIGCOMM 2014, section 3.3) for load-balancing policies.
 */
class SwitchPort : public FabricNetDevice
{
  public:
    static constexpr int kPriorities = 8;

    static TypeId GetTypeId();
    SwitchPort();

    void SetSwitch(Ptr<SwitchNode> sw, uint16_t portIndex);
    uint16_t GetPortIndex() const { return m_portIndex; }

    /**
     * \brief Admit a frame to the egress queue of its priority.
     * \return false (and the frame is not queued) when the port's buffer limit is reached;
     *         the caller records the drop.
     */
    bool Enqueue(Ptr<Packet> packet, const FrameMeta& meta);

    /** Bytes queued at this port over all priorities. */
    uint64_t GetQueueBytes() const { return m_queuedBytes; }
    uint64_t GetQueueBytes(uint8_t priority) const { return m_queueBytesPerPrio[priority]; }
    uint64_t GetQueuedFrames() const override { return m_queuedFrames; }

    /** DRE utilisation estimate at `now`: X / (C * tau), tau = DrePeriod / DreAlpha. */
    double GetUtilisation(Time now) const;

  protected:
    void DoDispose() override;
    bool DoDequeue(Ptr<Packet>& packet, FrameMeta& meta) override;
    void DoReceive(Ptr<Packet> packet, const FrameMeta& meta) override;

  private:
    struct QueuedFrame
    {
        Ptr<Packet> packet;
        FrameMeta meta;
    };

    void DecayDre(uint64_t nowPs) const;

    Ptr<SwitchNode> m_switch;
    uint16_t m_portIndex = 0;
    uint64_t m_limitBytes = 0;
    std::array<std::deque<QueuedFrame>, kPriorities> m_queues;
    std::array<uint64_t, kPriorities> m_queueBytesPerPrio{};
    uint64_t m_queuedBytes = 0;
    uint64_t m_queuedFrames = 0;

    Time m_drePeriod;
    double m_dreAlpha = 0.1;
    mutable double m_dreBytes = 0;
    mutable uint64_t m_dreLastPs = 0;
};

} // namespace ns3

#endif
