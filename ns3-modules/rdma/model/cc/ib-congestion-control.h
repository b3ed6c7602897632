/*
 * tusk: InfiniBand congestion control (IBA vol. 1, annex A10): the channel adapter's reaction
 * to BECN through a congestion control table (CCT) of inter-packet delays.
 */
#ifndef TUSK_IB_CONGESTION_CONTROL_H
#define TUSK_IB_CONGESTION_CONTROL_H

#include "rdma-congestion-control.h"

#include "ns3/traced-callback.h"

namespace ns3
{

/**
 * \brief InfiniBand congestion control at the sender (IBA vol. 1, release 1.2.1+, annex A10,
 * "Congestion Control"; Gran et al., "First experiences with congestion control in
 * InfiniBand hardware", IPDPS 2010).
 *
 * A switch marks FECN in the packets of a congested port (tusk: the egress ECN marking of
 * `[ecn]`, the frame's CE codepoint); the receiving channel adapter returns each mark as a
 * BECN to the sender (tusk: the BTH BECN of the ACK, RdmaCcAck::ecnEcho, one per marked packet
 * acknowledged). Per BECN the QP's congestion control table index rises:
 * CCTI ← min(CCTI + CctiIncrease, CctiLimit). Every CctiTimer without a BECN it falls by one,
 * down to CctiMin. The table gives the inter-packet delay (IPD) inserted after each packet:
 * CCT[i] = i × CctStep (a linear table, as OpenSM's default CCT ramps). The injection rate is
 * the line rate stretched by the IPD of a full packet: rate = C × t / (t + IPD), t the MTU
 * packet's serialisation at C; CCTI 0 is line rate.
 *
 * The timer is applied when the QP next reports an event (a packet sent, an ACK): the CCTI then
 * is what a periodic timer would have made it, so every packet is paced at the rate a periodic
 * timer gives (the unit test walks the table with a clock, without a Simulator).
 */
class IbCongestionControl : public RdmaCongestionControl
{
  public:
    /** "Ccti": the table index after a change. */
    typedef void (*CctiTracedCallback)(uint32_t ccti);

    static TypeId GetTypeId();

    void Init(const RdmaCcSetup& setup) override;
    uint64_t GetRateBps() const override { return m_rateBps; }
    void OnDataSent(uint32_t bytes, Time now) override;
    void OnAckSample(bool ecnEcho, Time rtt, Time now) override;
    const char* Name() const override { return "ib-cc"; }
    /** CCTI_Timer: the index falls by one every this long. */
    Time RateTimerPeriod() const override { return m_timer; }

    /** The congestion control table index now (after the timer steps due by `now`). */
    uint32_t GetCcti(Time now);
    /** The inter-packet delay of table entry `ccti`: ccti × CctStep. */
    Time Ipd(uint32_t ccti) const { return m_cctStep * static_cast<int64_t>(ccti); }
    /** The injection rate at table entry `ccti`, bit/s. */
    uint64_t RateAt(uint32_t ccti) const;
    /** BECNs this QP has reacted to (ACKs that echoed a FECN mark). */
    uint64_t GetBecns() const { return m_becns; }
    /** The highest table index this QP reached (entries). */
    uint32_t GetMaxCcti() const { return m_maxCcti; }

  private:
    /** Apply the CCTI timer's decrements due by `now`. */
    void Advance(Time now);
    void SetCcti(uint32_t ccti);

    // Attributes.
    uint32_t m_increase = 1;
    uint32_t m_limit = 127;
    uint32_t m_min = 0;
    Time m_timer;
    Time m_cctStep;

    // State.
    uint32_t m_ccti = 0;
    Time m_timerStart; //!< the timer period in progress started here
    uint64_t m_rateBps = 0;
    uint64_t m_becns = 0;
    uint32_t m_maxCcti = 0;
    TracedCallback<uint32_t> m_cctiTrace;
};

} // namespace ns3

#endif
