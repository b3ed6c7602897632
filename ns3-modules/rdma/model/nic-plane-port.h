/*
 * tusk: NicPlanePort, port k >= 1 of a multi-plane RdmaNic (its link into plane k).
 */
#ifndef TUSK_NIC_PLANE_PORT_H
#define TUSK_NIC_PLANE_PORT_H

#include "rdma-nic.h"

#include "ns3/simple-ref-count.h"

#include <vector>

namespace ns3
{

/**
 * \brief Which ports of every host NIC have their link up (bit k of up[h]: port k of host h),
 * shared by the NICs of a multi-plane fabric. Port k of every host is in plane k, so a host
 * whose port k is down cannot be reached in plane k: the other NICs leave that port out for
 * frames to it (NicPlanePort::UsablePorts). tusk's model of the notification is instant and
 * fabric-wide. Not used in a dual-ToR fabric, where every port reaches every host.
 */
struct HostPortStates : public SimpleRefCount<HostPortStates>
{
    explicit HostPortStates(uint32_t hosts) : up(hosts, ~0u) {}
    std::vector<uint32_t> up; //!< per host: bit k set = its port k is up
};

/**
 * \brief One port of a multi-plane NIC besides the RdmaNic itself (port 0): a full-duplex
 * port at its own DataRate on its plane's link, with its own PFC state and counters. It sends
 * what the NIC's scheduler gives it for its plane (RdmaNic::AddPlanePort) and hands every
 * frame it receives to the NIC. The scheduler sends a frame on the port of PortOfEntropy
 * (multi-plane.h): its entropy's port while that port's link is up, else one that is up. Created by the runner for a host with several links.
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

    /** Bit k set: port k of `nic` has its link up. */
    static uint32_t UpPorts(const RdmaNic& nic);
    /** The ports of `nic` a frame to host `dst` may use: UpPorts, and in a multi-plane fabric
     *  (SetHostPortStates) only the planes in which `dst`'s port is up (all of UpPorts if that
     *  leaves none). */
    static uint32_t UsablePorts(const RdmaNic& nic, uint32_t dst);
    /** The fabric's shared port states (multi-plane fabrics only): this port's NIC reads the
     *  destination's ports from it and records its own. */
    void SetHostPortStates(Ptr<HostPortStates> states) { m_states = states; }
    /** A port of `nic` went down or up (a link-change callback of every port): frames staged
     *  for a port that is down move to the ports that are up (PortOfEntropy), and every port
     *  tries to send. */
    static void LinkChanged(RdmaNic* nic);

  protected:
    void DoDispose() override;
    bool DoDequeue(Ptr<Packet>& packet, FrameMeta& meta) override;
    void DoReceive(Ptr<Packet> packet, const FrameMeta& meta) override;
    Ptr<Packet> WireFrame(Ptr<Packet> frame, const FrameMeta& meta, bool transmitted) const override;

  private:
    Ptr<RdmaNic> m_nic;
    uint32_t m_plane = 0;
    Ptr<HostPortStates> m_states; //!< multi-plane: every host's port states (shared)
};

} // namespace ns3

#endif
