/*
 * tusk: RdmaCongestionControl, the pluggable congestion control of a QP's sender (the TCP way:
 * the NIC holds a TypeId attribute and builds one instance per QP with a factory).
 */
#ifndef TUSK_RDMA_CONGESTION_CONTROL_H
#define TUSK_RDMA_CONGESTION_CONTROL_H

#include "fabric/model/int-telemetry.h"

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <limits>

namespace ns3
{

/** What the NIC tells a congestion control it builds for a QP (RdmaCongestionControl::Init). */
struct RdmaCcSetup
{
    uint64_t lineRateBps = 0; //!< the NIC's line rate, bit/s
    /** The fabric's base RTT T (RdmaNic::BaseRtt: the largest between any two hosts, HPCC's
     *  GLOBAL_T); zero when the NIC was not told. */
    Time baseRtt;
    uint32_t mtuBytes = 4096; //!< payload bytes per data packet

    /** Line rate x base RTT, bytes (0 without a base RTT). */
    double BdpBytes() const { return lineRateBps / 8.0 * baseRtt.GetSeconds(); }
};

/**
 * \brief One ACK, NAK or trim NACK as a congestion control sees it (RdmaCongestionControl::OnAck),
 * after the requester has applied it: what it acknowledged for the first time (cumulatively or
 * by SACK), its congestion signals (ECN echo, RTT from NIC timestamps, INT echo, hop count)
 * and the send state HPCC and DCTCP need to act once per window (snd_nxt).
 */
struct RdmaCcAck
{
    Time now;
    uint64_t sndUna = 0;          //!< oldest unacknowledged PSN after this ACK (64-bit)
    uint64_t sndNxt = 0;          //!< the next new PSN the requester will send
    uint64_t newlyAcked = 0;      //!< packets acknowledged for the first time by this ACK
    uint64_t newlyAckedBytes = 0; //!< their payload bytes
    bool ecnEcho = false;         //!< BTH BECN: a CE-marked packet arrived since the last answer
    bool nak = false;             //!< a NAK (PSN sequence error) or a trim NACK
    bool trimmed = false;         //!< a trim NACK: `lostBytes` of payload were cut at a switch
    uint64_t lostBytes = 0;       //!< payload of the trimmed packet
    /** RTT sample of the newest packet this ACK acknowledged for the first time, NIC to NIC;
     *  resent packets give none (Karn's algorithm, RFC 6298 section 3: the acknowledgement may
     *  be the first copy's). Zero when it acknowledged nothing new that was sent only once. */
    Time rtt;
    uint16_t entropy = 0; //!< the entropy (EV) that packet was sent with
    uint8_t hops = 0;     //!< switches the ACK crossed (64 - its IPv4 TTL on arrival)
    /** The INT stack of the data packet that triggered the ACK, echoed (HPCC); nullptr when
     *  the congestion control does not use INT. Valid during the call only. */
    const IntStack* intEcho = nullptr;
};

/**
 * \brief A congestion control's state as the "CcState" trace source reports it: the variables
 * the papers plot. A CC fills what it has; NaN marks what it has not.
 */
struct RdmaCcState
{
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    double rateBps = kNone;       //!< sending rate (DCQCN's Rc, TIMELY's rate; W / T for HPCC), bit/s
    double targetRateBps = kNone; //!< DCQCN's target rate Rt, bit/s
    double alpha = kNone;         //!< DCQCN's / DCTCP's α in [0, 1]
    double windowBytes = kNone;   //!< window (HPCC's W, DCTCP's, Swift's and NSCC's cwnd), bytes
};

/**
 * \brief Congestion control of one QP's sender (reaction point): a rate, a window or both.
 *
 * The requester paces data packets at GetRateBps() and keeps at most GetWindowBytes() of
 * payload outstanding (it may send while less than the window is outstanding, at least one
 * packet; 0 = no window), and reports events: every data packet sent (OnDataSent), every
 * packet acknowledged for the first time (OnAckSample), every ACK / NAK / trim NACK (OnAck),
 * CNPs (OnCnp) and retransmission timeouts (OnTimeout). Subclasses override what they react
 * to; each fires a trace source when its rate or window changes.
 */
class RdmaCongestionControl : public Object
{
  public:
    static TypeId GetTypeId();

    /** Called once when the QP is created. */
    virtual void Init(const RdmaCcSetup& setup) { m_setup = setup; }
    /** Current sending rate, bit/s. */
    virtual uint64_t GetRateBps() const { return m_setup.lineRateBps; }
    /** Window-based controls: payload bytes the QP may have outstanding; 0 = no window. */
    virtual uint64_t GetWindowBytes() const { return 0; }
    /** A data packet of `bytes` wire bytes was sent. */
    virtual void OnDataSent(uint32_t bytes, Time now) {}
    /** One data packet acknowledged (cumulatively or by SACK) for the first time: its ECN echo
     *  and its RTT (its last transmission to now). */
    virtual void OnAckSample(bool ecnEcho, Time rtt, Time now) {}
    /** An ACK, NAK or trim NACK for this QP, after the requester applied it. */
    virtual void OnAck(const RdmaCcAck& ack) {}
    /** A CNP arrived for this QP. */
    virtual void OnCnp(Time now) {}
    /** The retransmission timer fired. */
    virtual void OnTimeout(Time now) {}
    /** Whether data packets must carry an INT header that switches fill in (HPCC). */
    virtual bool UsesInt() const { return false; }
    /** Short name for outputs ("none", "dcqcn"). */
    virtual const char* Name() const = 0;
    /** The state now: by default the rate (GetRateBps) and the window (GetWindowBytes, when
     *  not 0); subclasses add their own variables. */
    virtual RdmaCcState GetState() const;
    /**
     * Whether GetState() holds everything that decides this control's future: two QPs whose
     * GetState() is equal now behave alike from now on. Fast mode's exact rule compares only
     * GetState()'s words between iterations, so it replays no iteration while some QP's
     * control says false (`cc_state_partial`, docs/fast-mode.md). False unless a control says
     * otherwise: HPCC's reference window, stage and last INT echo, TIMELY's RTT gradient and
     * the like are not in GetState().
     */
    virtual bool StateIsComplete() const { return false; }
    /**
     * The longest period of the timers that change this control's rate or state without
     * feedback arriving (DCQCN's rate-increase timer T and alpha period K, InfiniBand CC's
     * CCTI_Timer); zero when every change is clocked by feedback (ACKs, INT, CNPs). Such a
     * control changes its rate in steps one period apart: a steady-state judgement over less
     * than a period cannot see them (the steady-state probe's automatic window covers two
     * periods, docs/fast-mode.md).
     */
    virtual Time RateTimerPeriod() const { return Time(0); }
    /**
     * Whether this control steps its rate on feedback that comes the further apart the lower
     * its rate (TIMELY: one RTT sample per segment of bytes), so that the stretch between two
     * steps can look flat for longer than a steady-state judgement looks. Steady-state jumps
     * refuse a control that says so (docs/fast-mode.md, "The jump": over such a stretch a
     * jump passed the next steps, 28 % late under TIMELY). False by default.
     */
    virtual bool StepsOnSparseFeedback() const { return false; }

    /** TracedCallback signature of "CcState": the state after a change. */
    typedef void (*StateTracedCallback)(const RdmaCcState& state);

    const RdmaCcSetup& GetSetup() const { return m_setup; }

  protected:
    /** Fire "CcState" with GetState(); costs one emptiness test when nothing is connected. */
    void NotifyState()
    {
        if (!m_stateTrace.IsEmpty())
        {
            m_stateTrace(GetState());
        }
    }

    RdmaCcSetup m_setup;

  private:
    TracedCallback<const RdmaCcState&> m_stateTrace;
};

/** \brief No congestion control: line rate always; losslessness is PFC's job (Meta at 400G). */
class RdmaCcNone : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId();
    const char* Name() const override { return "none"; }
    /** Line rate always: its state is its rate. */
    bool StateIsComplete() const override { return true; }
};

} // namespace ns3

#endif
