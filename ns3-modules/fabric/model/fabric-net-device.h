/*
 * tusk: FabricNetDevice, the link-layer port shared by switch ports and host NICs.
 */
#ifndef TUSK_FABRIC_NET_DEVICE_H
#define TUSK_FABRIC_NET_DEVICE_H

#include "fabric-channel.h"
#include "frame-meta.h"
#include "gray-failure-model.h"
#include "fabric/model/kernel/member-event.h"
#include "fabric/model/kernel/ring-queue.h"

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include "ns3/event-id.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace ns3
{


class Node;

/** Why a frame was dropped. Named so that tests and links.csv can assert on causes. */
enum class DropReason : uint8_t
{
    BUFFER_OVERFLOW = 0, //!< egress admission: the port's buffer limit was reached
    NO_ROUTE = 1,        //!< no forwarding entry (or no usable port) for the destination
    LINK_DOWN = 2,       //!< sent towards, or in flight on, a link that is down
    NIC_STALE = 3,       //!< end host: frame for an unknown QP or otherwise unusable
    FCS = 4,             //!< corrupted on the link: the receiving port's FCS check failed
                         //!< (its ReceiveErrorModel rejected the frame)
    INGRESS_HEADROOM = 5, //!< lossless class: PFC headroom exhausted (headroom too small)
    EGRESS_THRESHOLD = 6, //!< lossy class: egress queue above its shared-buffer threshold
    PFC_WATCHDOG = 7,     //!< dropped by the PFC watchdog during a pause storm
    GRAY = 8,             //!< lost to a gray failure (ReceiveGrayFailure: some flows only)
    COUNT = 9
};

/** Name of a drop reason as used in outputs ("buffer_overflow", ...). */
const char* DropReasonName(DropReason r);

/** Counters of one port; 64-bit, read by the metrics sink at the end of a run. Those every
 *  frame updates come first (one cache line: FabricNetDevice's hot members). */
struct PortCounters
{
    uint64_t txFrames = 0;
    uint64_t txBytes = 0;     //!< frame bytes (headers + payload, without PHY overhead)
    uint64_t txWireBytes = 0; //!< frame + PHY overhead bytes (what occupies the line)
    uint64_t rxFrames = 0;
    uint64_t rxBytes = 0;
    uint64_t maxQueueBytes = 0; //!< largest egress occupancy seen, bytes
    uint64_t drops[static_cast<int>(DropReason::COUNT)] = {};
    double maxWindowUtilisation = 0; //!< busiest UtilisationWindow, fraction of line rate
    uint64_t pfcTx = 0;         //!< PFC frames sent (XOFF and XON)
    uint64_t pfcRx = 0;         //!< PFC frames received
    uint64_t pfcXoffTx = 0;     //!< PAUSE frames with non-zero quanta sent
    uint64_t ecnMarks = 0;      //!< frames CE-marked at this egress
    uint64_t watchdogTriggers = 0; //!< PFC watchdog storm detections on this port
    /** InfiniBand credits: arrivals that found their VL's input buffer full (the invariant:
     *  always 0; a non-zero count is a bug of the credit model, see ib-credits.h). */
    uint64_t creditOverruns = 0;
};

/** One PFC event for the pause table (pfc_events.csv). */
struct PfcEvent
{
    uint64_t timePs;
    uint8_t priority;
    uint16_t quanta; //!< 0 = XON
    bool sent;       //!< true: this port sent it; false: this port received it
    uint8_t depth;   //!< pause propagation depth carried by the frame
};

/**
 * \brief A full-duplex point-to-point port: serialisation at its DataRate, one frame on the
 * wire at a time, pull-based transmission.
 *
 * Non-virtual interface: the base class owns the transmit state machine, counters and traces;
 * a subclass only says which frame goes next (DoDequeue) and what to do with an arriving one
 * (DoReceive). A SwitchPort dequeues from its egress queues; an RdmaNic from its QP scheduler.
 * When the line becomes free the device pulls the next frame, so a port has at most one
 * pending transmit event.
 */
class FabricNetDevice : public NetDevice
{
  public:
    // Signatures of the trace sources (ns-3 convention: the TypeId names these types).
    /** "Pfc": a PFC frame sent (queued for sending) or received. */
    typedef void (*PfcTracedCallback)(const PfcEvent& event);
    /** "Tx", "Rx", "PfcRx": a frame starts transmission (PFC frames included; meta.kind tells
     *  them apart) / a frame other than PFC has fully arrived / a PFC frame has arrived. */
    typedef void (*FrameTracedCallback)(Ptr<const Packet> packet, const FrameMeta& meta);
    /** "Drop": a frame was dropped, and why. */
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet,
                                       const FrameMeta& meta,
                                       DropReason reason);
    /** "EcnMark": a frame was CE-marked at this egress. */
    typedef void (*EcnMarkTracedCallback)();
    /** "QueueBytes": egress occupancy after a frame was queued, bytes. */
    typedef void (*QueueBytesTracedCallback)(uint64_t bytes);
    /**
     * "UtilisationWindow": `windows` consecutive UtilisationWindows closed, each with busy
     * fraction `utilisation` (0..1]. `windows` is 1 but for the full windows wholly inside one
     * frame's transmission, reported together (utilisation 1) so that a frame costs O(1)
     * whatever its duration.
     */
    typedef void (*UtilisationTracedCallback)(double utilisation, uint64_t windows);
    /** "PfcWatchdog": the PFC watchdog declared a storm on this priority. */
    typedef void (*WatchdogTracedCallback)(uint8_t priority);

    static TypeId GetTypeId();
    FabricNetDevice();
    ~FabricNetDevice() override;

    /** Connect this device to a channel (one device per channel end). */
    void Attach(Ptr<FabricChannel> channel);

    /** Called by the channel when a frame's last bit has arrived. */
    void Receive(Ptr<Packet> packet, const FrameMeta& meta);

    /** Start transmitting if the line is idle and a frame is ready (cheap if not). */
    void TryTransmit();

    /** Line rate in bit/s. */
    uint64_t GetRateBps() const { return m_rateBps; }
    /** Serialisation time of a frame of `frameBytes` (PHY overhead added). */
    Time TxTime(uint32_t frameBytes) const;
    /** TxTime in ps (SerializationPs of the frame and its PHY overhead at the line rate). */
    uint64_t TxPs(uint32_t frameBytes) const;
    uint32_t GetPhyOverheadBytes() const { return m_phyOverheadBytes; }
    bool IsTransmitting() const { return m_transmitting; }
    /** Bytes of the frame on the wire until its last bit has left (0 when idle). */
    uint32_t GetBytesOnWire() const { return m_transmitting ? m_txFrameBytes : 0; }
    Ptr<FabricChannel> GetFabricChannel() const { return m_channel; }
    /** The device at the other end of the link. */
    Ptr<FabricNetDevice> GetPeerDevice() const;

    /**
     * \brief Take the link down or up (both directions are the caller's business). Down:
     * nothing more is sent, arriving frames are dropped (LINK_DOWN), a pause received from
     * the peer ends, and the subclass decides what happens to its queued frames (DoLinkDown).
     */
    void SetLinkUp(bool up);
    /** Corrupt arriving frames with `model` from now on (null: none); as the attribute
     *  ReceiveErrorModel. A frame it rejects fails the FCS check (DropReason::FCS). */
    void SetReceiveErrorModel(Ptr<ErrorModel> model) { m_receiveErrorModel = model; }
    /** Lose the arriving frames of some flows with `model` from now on (null: none); as the
     *  attribute ReceiveGrayFailure (DropReason::GRAY). */
    void SetGrayFailure(Ptr<GrayFailureModel> model) { m_grayFailure = model; }
    /**
     * \brief Change the line rate at run time (a degraded link; both directions are the
     * caller's business). Updates the DataRate attribute and the cached rate; the frame in
     * flight keeps the serialisation time it started with.
     */
    void SetDataRate(DataRate rate);

    /**
     * \brief Send a PFC frame for `priority` on this port, ahead of any queued frame (after
     * the frame in flight). quanta 0 is XON. Not itself subject to pause.
     */
    void SendPfc(uint8_t priority, uint16_t quanta, uint8_t depth);
    /** Whether the peer has paused `priority` on this port (its transmit side). */
    bool IsPaused(uint8_t priority) const;
    /** Depth of the pause currently received for `priority` (0 if not paused). */
    uint8_t GetReceivedPauseDepth(uint8_t priority) const
    {
        return IsPaused(priority) ? m_rxPauseDepth[priority] : 0;
    }
    /** Total time `priority` has been paused on this port up to `now`, ps. */
    uint64_t GetPausedPs(uint8_t priority, Time now) const;
    /** Since when `priority` has been continuously paused (valid when IsPaused). */
    Time GetPausedSince(uint8_t priority) const { return PicoSeconds(m_pausedSincePs[priority]); }
    /** Since when `priority` has been paused *without a break* (valid when IsPaused): not
     *  resumed, and not overridden or drained by a PFC watchdog storm since; a time after now
     *  while a storm lasts. */
    Time GetStuckSince(uint8_t priority) const
    {
        return PicoSeconds(std::max(m_pausedSincePs[priority], m_stormUntilPs[priority]));
    }
    /** Whether the PFC watchdog currently overrides pause for `priority` (storm recovery). */
    bool IsInPfcStorm(uint8_t priority) const;
    /** What the PFC watchdog does to a queue in a storm. */
    enum WatchdogAction
    {
        WATCHDOG_DROP = 0,    //!< drop the queue's frames and new arrivals (drain by dropping)
        WATCHDOG_FORWARD = 1, //!< ignore the pause and keep transmitting (drain by forwarding)
    };
    bool WatchdogDrops() const { return m_watchdogAction == WATCHDOG_DROP; }

    const PortCounters& GetCounters() const { return m_counters; }

    // ---- InfiniBand credit-based link-level flow control (ib-credits.h) ----------------
    /**
     * \brief Run this port with InfiniBand link-level flow control from now on: per VL
     * (= priority), frames go only with credit from the peer's input buffer (its
     * VlBufferBytes, at most 2048 64-byte credits), and this port's own input buffer returns
     * credits CreditUpdateLatency + the link delay after a frame leaves it. No PFC. Call on
     * both ends of a link once both are attached, before the simulation starts.
     */
    void EnableCreditFlowControl();
    bool UsesCredits() const { return m_creditFc; }
    /** Whether a frame of `bytes` on VL `vl` may start now (always true without credits). A
     *  refusal starts the VL's credit stall (GetCreditStallPs) if it was not stalled. */
    bool HasCredit(uint8_t vl, uint32_t bytes)
    {
        return !m_creditFc || CreditCheck(vl, bytes);
    }
    /** A frame of `bytes` that arrived on VL `vl` has left this port's input buffer (the
     *  switch forwarded or dropped it): free its blocks and schedule a credit update. */
    void ReturnCredit(uint8_t vl, uint32_t bytes);
    /** Blocks of VL `vl`'s input buffer in use now / at most so far (0 without credits). */
    uint64_t GetVlBlocksUsed(uint8_t vl) const { return m_vl.empty() ? 0 : m_vl[vl].usedBlocks; }
    uint64_t GetVlPeakBlocks(uint8_t vl) const { return m_vl.empty() ? 0 : m_vl[vl].peakBlocks; }
    /** Capacity of VL `vl`'s input buffer, blocks (VlBufferBytes / 64). */
    uint64_t GetVlCapacityBlocks() const { return m_vlCapacityBlocks; }
    /** Whether a frame of VL `vl` waits for credit now (refused, not yet sent). */
    bool IsCreditStalled(uint8_t vl) const { return m_creditFc && m_vl[vl].stalled; }
    /** Credits this port may still use on VL `vl` towards its peer. */
    uint32_t GetAvailableCredits(uint8_t vl) const;
    /** Total time, summed over VLs, that a VL of this port had a frame ready and waited for
     *  credit (from the first refusal to the start of its next frame, or to the link going
     *  down) up to `now`, ps. */
    uint64_t GetCreditStallPs(Time now) const;

    /** Frames over which the line-rate invariant is checked at the end of the run. */
    static constexpr size_t kRateCheckFrames = 10;
    /** The first time this port sent faster than the line rate given to CheckLineRateAgainst:
     *  over kRateCheckFrames consecutive frames, the time from the first start to the last
     *  start was shorter than the first frames' serialisation at that rate (frame + PHY
     *  overhead) by more than a picosecond per frame. `found` false if never. */
    struct LineRateViolation
    {
        bool found = false;
        uint64_t atPs = 0;       //!< start of the last frame of the window, ps
        uint64_t spanPs = 0;     //!< first start to last start, ps
        uint64_t requiredPs = 0; //!< the serialisation the window needed, ps
    };
    const LineRateViolation& GetLineRateViolation() const { return m_rateViolation; }
    /** Check every transmission from now on against a line rate of `linkRateBps` (the link's
     *  rate in the topology: a port set faster than its link breaks it, a degraded link only
     *  slows); 0 turns the check off (the default). */
    void CheckLineRateAgainst(uint64_t linkRateBps);

    /** Record a drop (counters + Drop trace). For subclasses and the switch. */
    void RecordDrop(Ptr<const Packet> packet, const FrameMeta& meta, DropReason reason);
    /** Record the drop of a frame that arrived at this port: RecordDrop, and with credit flow
     *  control its blocks of the VL's input buffer go back (ReturnCredit). */
    void DropReceived(Ptr<const Packet> packet, const FrameMeta& meta, DropReason reason);
    /** Frames waiting in this device for transmission (for conservation checks). */
    virtual uint64_t GetQueuedFrames() const = 0;

    /** Close the utilisation window in progress at the end of a run, at `now`. A run that ends
     *  within the first window (now < UtilisationWindow) makes [0, now] that window, so the
     *  busiest window of a short run is its mean. */
    void FlushUtilisation(Time now);

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    /** GetNode()->GetId(), kept at SetNode (the simulation context of frames delivered here;
     *  Node::GetId is not inline). */
    uint32_t GetNodeId() const { return m_nodeId; }
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;

    /**
     * \brief The next frame to send, or false if none is ready now. A subclass that holds
     * back a ready frame (pacing) must call TryTransmit() when it becomes ready.
     */
    virtual bool DoDequeue(Ptr<Packet>& packet, FrameMeta& meta) = 0;
    /** A frame has fully arrived on this port. */
    virtual void DoReceive(Ptr<Packet> packet, const FrameMeta& meta) = 0;
    /** The PFC watchdog declared a storm on `priority`: drop what is queued for it. */
    virtual void DoPfcStorm(uint8_t priority) {}
    /** The link has just gone down (SetLinkUp(false)): a subclass may discard its queued
     *  frames (SwitchPort::FlushOnLinkDown). By default they wait for the link. */
    virtual void DoLinkDown() {}
    /**
     * \brief The frame as bytes on the wire, for whoever looks at bytes: the Sniffer trace
     * and the receive ErrorModel (called only when one is there). The forwarding path carries
     * a frame's headers in its FrameMeta and a Packet of its size (frame-meta.h); a device
     * that knows the frame format builds the bytes here (RdmaNic: RoCEv2). The default hands
     * on the Packet as it is (its size, no header bytes; PFC frames are real).
     * \param transmitted true when this device sends the frame, false when it receives it
     */
    virtual Ptr<Packet> WireFrame(Ptr<Packet> frame, const FrameMeta& meta, bool transmitted) const
    {
        return frame;
    }

    void NoteEcnMark()
    {
        m_counters.ecnMarks++;
        m_ecnMarkTrace();
    }
    /** Account egress occupancy (for maxQueueBytes and the QueueBytes trace). */
    void NoteQueueBytes(uint64_t bytes)
    {
        if (bytes > m_counters.maxQueueBytes)
        {
            m_counters.maxQueueBytes = bytes;
        }
        m_queueBytesTrace(bytes);
    }

    /** A subclass that keeps received frames in its input buffer (a switch port: until the
     *  switch forwards them) sets this; otherwise credits return as soon as a frame has been
     *  received (a host channel adapter consumes at line rate). */
    void SetHoldsReceivedFrames(bool holds) { m_holdsReceived = holds; }

  private:
    bool CreditCheck(uint8_t vl, uint32_t bytes);
    /** A frame of `bytes` on VL `vl` starts at `nowPs`: spend its credit (aborts if it has
     *  none: the subclass must ask HasCredit) and end the VL's credit stall. */
    void SpendCredit(uint8_t vl, uint32_t bytes, uint64_t nowPs);
    /** A frame of `bytes` on VL `vl` has arrived: it takes its blocks of the input buffer
     *  (creditOverruns counts an arrival that finds them taken). */
    void TakeInputBlocks(uint8_t vl, uint32_t bytes);
    /** End VL `vl`'s credit stall, if any, at `nowPs` (its time goes to the total). */
    void EndCreditStall(uint8_t vl, uint64_t nowPs);
    void SendCreditUpdate(uint8_t vl);
    void ReceiveCreditUpdate(uint8_t vl, uint16_t fccl);
    void TransmitComplete();
    /** The line-rate invariant (GetLineRateViolation) for a frame starting now. */
    void CheckLineRate(uint64_t nowPs, uint32_t bytes);
    /** Credit the line busy over [nowPs, nowPs + durationPs) to the utilisation windows it
     *  spans, closing the ones it completes; O(1) whatever the duration. */
    void AccountUtilisation(uint64_t nowPs, uint64_t durationPs);
    /** Close `windows` (≥ 1) consecutive windows that were busy all through. */
    void CloseFullWindows(uint64_t windows);
    void SetRateBps(uint64_t rateBps);
    void SetUtilisationWindow(Time window);
    Time GetUtilisationWindow() const;
    void ReceivePfc(Ptr<Packet> packet, const FrameMeta& meta);
    void Resume(uint8_t priority);
    void PauseExpired(uint8_t priority);
    void WatchdogCheck(uint8_t priority);

    // ---- Hot: what every frame sent or received reads or writes (TryTransmit, Receive,
    // CheckLineRate, AccountUtilisation, IsPaused, IsInPfcStorm, a switch port's Enqueue),
    // kept together at the front of the object. At 8,192 hosts the fabric's objects do not
    // fit the caches, and each distinct cache line a hop touches is a memory access
    // (performance.md, "a hop's cache misses counted"): a field read per frame belongs here;
    // configuration and what only setup, PFC, credits or the end of the run read go below.
    bool m_transmitting = false;
    bool m_dequeuing = false; //!< inside DoDequeue: a nested TryTransmit waits (TryTransmit)
    bool m_linkUp = true;
    bool m_creditFc = false;
    bool m_holdsReceived = false;
    uint8_t m_pausedMask = 0; //!< bit p set while m_pauseExpiryPs[p] != 0
    uint8_t m_stormMask = 0;  //!< bit p set once m_stormUntilPs[p] != 0
    uint32_t m_phyOverheadBytes = 20;
    uint32_t m_txFrameBytes = 0; //!< size of the frame being transmitted
    uint32_t m_nodeId = 0;
    Ptr<FabricChannel> m_channel;
    /** End of the frame being serialised (at most one pending: m_transmitting). */
    Ptr<MemberEvent<FabricNetDevice, &FabricNetDevice::TransmitComplete>> m_txCompleteEvent;
    uint64_t m_psPerByte = 0; //!< serialisation ps per byte when a whole number, else 0
    uint64_t m_rateBps = 0;
    struct TxTimeEntry
    {
        uint64_t ps = ~uint64_t{0};
        Time time;
    };
    TxTimeEntry m_txTimeCache[2]; //!< Times of the two latest serialisation durations (ps)
    uint64_t m_checkRateBps = 0;   //!< the line rate checked against, 0: no check
    uint64_t m_checkPsPerByte = 0; //!< ps per byte at m_checkRateBps when whole, else 0
    uint64_t m_framesSent = 0;     //!< transmissions so far (PFC included)
    uint64_t m_recentSerialPs = 0; //!< sum of the serialisations in m_recentTx
    uint64_t m_utilWindowPs = 0;   //!< m_utilWindow in ps (read per frame)
    uint64_t m_utilWindowStartPs = 0;
    uint64_t m_utilWindowBusyPs = 0;
    Ptr<ErrorModel> m_receiveErrorModel;
    Ptr<GrayFailureModel> m_grayFailure;
    /** PFC frames to send ahead of the queues (TryTransmit reads its size per frame). */
    struct MacControlFrame
    {
        Ptr<Packet> packet;
        FrameMeta meta;
    };
    RingQueue<MacControlFrame> m_macControl;
    // The trace sources a frame asks (IsEmpty) whether anyone listens.
    /** A frame starts transmission: packet (its size; no header bytes), meta (its headers). */
    TracedCallback<Ptr<const Packet>, const FrameMeta&> m_txTrace;
    /** A frame arrived: packet, meta. */
    TracedCallback<Ptr<const Packet>, const FrameMeta&> m_rxTrace;
    /** Every frame sent and received, as bytes (WireFrame; pcap, like ns-3's Sniffer). */
    TracedCallback<Ptr<const Packet>> m_snifferTrace;
    TracedCallback<uint64_t> m_queueBytesTrace;
    PortCounters m_counters; //!< the per-frame counters first
    /** The last kRateCheckFrames transmissions: (start, serialisation), ps; a ring (a slot
     *  per frame). */
    std::array<std::pair<uint64_t, uint64_t>, kRateCheckFrames> m_recentTx{};

    // ---- Cold: configuration, and state that setup, PFC, credits or the end of a run use.
    Ptr<Node> m_node;
    uint32_t m_ifIndex = 0;
    Mac48Address m_address;
    uint16_t m_mtu = 9216;
    DataRate m_rate;
    Time m_utilWindow;
    LineRateViolation m_rateViolation;
    TracedCallback<> m_linkChangeCallbacks;

    // PFC, per priority.
    uint64_t m_pauseExpiryPs[8] = {};   //!< 0 = not paused
    uint64_t m_pausedSincePs[8] = {};
    uint64_t m_pausedTotalPs[8] = {};
    uint8_t m_rxPauseDepth[8] = {};
    /** A received PAUSE's expiry and the PFC watchdog's check, per priority: allocated at the
     *  first PAUSE a port receives (384 bytes that most ports of a run without pauses never
     *  need). */
    struct PfcTimers
    {
        EventId pause[8];
        EventId watchdog[8];
    };
    PfcTimers& Timers()
    {
        if (!m_pfcTimers)
        {
            m_pfcTimers = std::make_unique<PfcTimers>();
        }
        return *m_pfcTimers;
    }
    std::unique_ptr<PfcTimers> m_pfcTimers;
    uint64_t m_stormUntilPs[8] = {};
    Time m_watchdogTime;     //!< 0 = watchdog off
    Time m_watchdogRecovery;
    WatchdogAction m_watchdogAction = WATCHDOG_DROP;
    TracedCallback<const PfcEvent&> m_pfcTrace;

    /** A frame was dropped: packet, meta, reason. */
    TracedCallback<Ptr<const Packet>, const FrameMeta&, DropReason> m_dropTrace;
    TracedCallback<Ptr<const Packet>, const FrameMeta&> m_pfcRxTrace;
    TracedCallback<> m_ecnMarkTrace;
    TracedCallback<double, uint64_t> m_utilisationTrace;
    TracedCallback<uint8_t> m_watchdogTrace;

    // InfiniBand credits, per VL: the sender side (towards the peer) and this port's input
    // buffer (the receiver side).
    struct VlCredit
    {
        uint16_t fctbs = 0;          //!< blocks sent, mod 4096
        uint16_t fccl = 0;           //!< the peer's last credit limit, mod 4096
        uint16_t abr = 0;            //!< adjusted blocks received, mod 4096
        bool updatePending = false;  //!< a credit update is scheduled
        bool stalled = false;        //!< a frame waits for credit since stallSincePs
        uint64_t stallSincePs = 0;
        uint64_t stallTotalPs = 0;
        uint64_t usedBlocks = 0;     //!< input buffer in use, blocks
        uint64_t peakBlocks = 0;
    };
    uint64_t m_vlBufferBytes = 0;    //!< attribute VlBufferBytes
    uint64_t m_vlCapacityBlocks = 0;
    Time m_creditLatency;            //!< attribute CreditUpdateLatency
    static constexpr uint8_t kVls = 8;
    /** Per VL, kVls of them once EnableCreditFlowControl ran; empty on Ethernet (320 bytes
     *  a port saved on every Ethernet port). */
    std::vector<VlCredit> m_vl;
};

} // namespace ns3

#endif
