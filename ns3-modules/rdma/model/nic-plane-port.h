/*
 * tusk: NicPlanePort, port k >= 1 of a multi-plane RdmaNic (its link into plane k).
 */
#ifndef TUSK_NIC_PLANE_PORT_H
#define TUSK_NIC_PLANE_PORT_H

#include "rdma-nic.h"

namespace ns3
{

/**
 * \brief One port of a multi-plane NIC besides the RdmaNic itself (port 0): a full-duplex
 * port at its own DataRate on its plane's link, with its own PFC state and counters. It sends
 * what the NIC's scheduler gives it for its plane (RdmaNic::AddPlanePort) and hands every
 * frame it receives to the NIC. Created by the runner for a host with several links.
 */
class NicPlanePort : public FabricNetDevice
{
  public:
    static TypeId GetTypeId();
    NicPlanePort() = default;

    /** The NIC this port belongs to and its plane (>= 1); RdmaNic::AddPlanePort sets it. */
    void SetNic(Ptr<RdmaNic> nic, uint32_t plane);
    uint32_t GetPlane() const { return m_plane; }
    /** Frames staged for this port by the NIC's scheduler. */
    uint64_t GetQueuedFrames() const override;

  protected:
    void DoDispose() override;
    bool DoDequeue(Ptr<Packet>& packet, FrameMeta& meta) override;
    void DoReceive(Ptr<Packet> packet, const FrameMeta& meta) override;
    Ptr<Packet> WireFrame(Ptr<Packet> frame, const FrameMeta& meta, bool transmitted) const override;

  private:
    Ptr<RdmaNic> m_nic;
    uint32_t m_plane = 0;
};

} // namespace ns3

#endif
