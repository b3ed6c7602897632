/*
 * tusk: RdmaCongestionControl, the pluggable rate controller of a QP (the TCP way:
 * the NIC holds a TypeId attribute and builds one instance per QP with a factory).
 */
#ifndef TUSK_RDMA_CONGESTION_CONTROL_H
#define TUSK_RDMA_CONGESTION_CONTROL_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief Rate-based congestion control of one QP's sender (reaction point).
 *
 * The QP asks GetRateBps() when it paces its next packet and reports events. Subclasses
 * (DCQCN in a later issue) override the events they react to.
 */
class RdmaCongestionControl : public Object
{
  public:
    static TypeId GetTypeId();

    /** Called once when the QP is created. \param lineRateBps the NIC's line rate, bit/s */
    virtual void Init(uint64_t lineRateBps) { m_lineRateBps = lineRateBps; }
    /** Current sending rate, bit/s. */
    virtual uint64_t GetRateBps() const { return m_lineRateBps; }
    /** A data packet of `bytes` wire bytes was sent. */
    virtual void OnDataSent(uint32_t bytes, Time now) {}
    /** `ackedPackets` new packets acknowledged (cumulatively). */
    virtual void OnAck(uint64_t ackedPackets, bool ecnEcho, Time now) {}
    /** A CNP arrived for this QP. */
    virtual void OnCnp(Time now) {}
    /** Window-based controls: bytes the QP may have outstanding; 0 = no window (rate only). */
    virtual uint64_t GetWindowBytes() const { return 0; }
    /** One data packet acknowledged (cumulatively or by SACK) for the first time: its ECN echo
     *  and its RTT (its last transmission to now). */
    virtual void OnAckSample(bool ecnEcho, Time rtt, Time now) {}
    /** Short name for outputs ("none", "dcqcn"). */
    virtual const char* Name() const = 0;

  protected:
    uint64_t m_lineRateBps = 0;
};

/** \brief No congestion control: line rate always; losslessness is PFC's job (Meta at 400G). */
class RdmaCcNone : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId();
    const char* Name() const override { return "none"; }
};

} // namespace ns3

#endif
