#include "conweave-load-balancer.h"

#include "fabric/model/random-draws.h"
#include "flow-hash.h"
#include "flowlet-table.h"
#include "lb-policies/policy-registry.h"

#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <type_traits>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ConWeaveLoadBalancer);

namespace
{
const PolicyRegistration kRegistration{
    {"conweave", "ns3::ConWeaveLoadBalancer",
     "ConWeave: per-flow RTT probing at the source ToR, a reroute when the reply is late, "
     "reorder queues at the destination ToR that restore the order"},
    "Song et al., ConWeave, SIGCOMM 2023"};

uint64_t
Ps(Time t)
{
    return static_cast<uint64_t>(t.GetPicoSeconds());
}
} // namespace

size_t
ConWeaveLoadBalancer::FlowKeyHash::operator()(const FlowKey& k) const
{
    uint64_t h = (static_cast<uint64_t>(k.srcHost) << 32 | k.dstHost) * 0x9E3779B97F4A7C15ULL;
    h ^= (static_cast<uint64_t>(k.dstQp) << 16 | k.srcPort) + 0x632BE59BD9B4E019ULL + (h << 6) +
         (h >> 2);
    return static_cast<size_t>(h ^ (h >> 29));
}

TypeId
ConWeaveLoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ConWeaveLoadBalancer")
            .SetParent<LoadBalancer>()
            .SetGroupName("LbPolicies")
            .AddConstructor<ConWeaveLoadBalancer>()
            .AddAttribute("BaseRtt",
                          "Base round-trip time between the source and destination ToR without "
                          "queueing (Time); the reply deadline θ_reply is BaseRtt + "
                          "ReplyMargin after the RTT_REQUEST. Default: the host-to-host "
                          "propagation round trip of a leaf-spine with 1 us links (8 us), an "
                          "upper bound of the ToR-to-ToR one.",
                          TimeValue(MicroSeconds(8)),
                          MakeTimeAccessor(&ConWeaveLoadBalancer::m_baseRtt),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ReplyMargin",
                          "Added to BaseRtt to give the RTT_REPLY deadline θ_reply (Time; the "
                          "artifact: 4 us). A frame sent later with no reply is the "
                          "TAIL of a reroute.",
                          TimeValue(MicroSeconds(4)),
                          MakeTimeAccessor(&ConWeaveLoadBalancer::m_replyMargin),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PathBusyTime",
                          "θ_path_busy: an uplink is not chosen towards a ToR for this long "
                          "after that ToR sent a NOTIFY for it (a CE-marked frame arrived on "
                          "it) (Time; the artifact's leaf-spine runs: 16 us).",
                          TimeValue(MicroSeconds(16)),
                          MakeTimeAccessor(&ConWeaveLoadBalancer::m_pathBusy),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("InactiveTime",
                          "θ_inactive: a flow without frames for this long starts a new epoch "
                          "on a freshly chosen path; also how long a flow waits for a lost "
                          "CLEAR (Time; the artifact's leaf-spine runs: 300 us).",
                          TimeValue(MicroSeconds(300)),
                          MakeTimeAccessor(&ConWeaveLoadBalancer::m_inactive),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ResumeMargin",
                          "θ_resume margin: a reorder queue is released at the TAIL's predicted "
                          "arrival plus this if the TAIL has not come (Time; the artifact's "
                          "leaf-spine runs: 16 us).",
                          TimeValue(MicroSeconds(16)),
                          MakeTimeAccessor(&ConWeaveLoadBalancer::m_resumeMargin),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("DefaultResumeTime",
                          "Predicted wait for the TAIL when no frame of the old path was seen "
                          "in the epoch (Time; the artifact's leaf-spine runs: 200 us).",
                          TimeValue(MicroSeconds(200)),
                          MakeTimeAccessor(&ConWeaveLoadBalancer::m_defaultResume),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ControlFrameBytes",
                          "Size of an RTT_REPLY, CLEAR or NOTIFY frame on the wire (bytes).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&ConWeaveLoadBalancer::m_controlBytes),
                          MakeUintegerChecker<uint32_t>(64, 1500))
            .AddAttribute("ControlPriority",
                          "Traffic class of the control frames (0..7; the NICs' ACK class by "
                          "default).",
                          UintegerValue(7),
                          MakeUintegerAccessor(&ConWeaveLoadBalancer::m_controlPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("Seed",
                          "Seed of the hash of frames that are not ConWeave's (ACKs, control "
                          "frames, tiers above the ToRs) (dimensionless; set per switch by the "
                          "fabric builder).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ConWeaveLoadBalancer::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("Held",
                            "A frame was put in a reorder queue (destination ToR).",
                            MakeTraceSourceAccessor(&ConWeaveLoadBalancer::m_heldTrace),
                            "ns3::ConWeaveLoadBalancer::HeldTracedCallback")
            .AddTraceSource("Released",
                            "A held frame left its reorder queue: (meta, by the timeout "
                            "rather than its TAIL).",
                            MakeTraceSourceAccessor(&ConWeaveLoadBalancer::m_releasedTrace),
                            "ns3::ConWeaveLoadBalancer::ReleasedTracedCallback")
            .AddTraceSource("Control",
                            "The destination ToR sent a control frame (RTT_REPLY, CLEAR or "
                            "NOTIFY): its meta, with the ConWeaveTag in the policy tag area.",
                            MakeTraceSourceAccessor(&ConWeaveLoadBalancer::m_controlTrace),
                            "ns3::ConWeaveLoadBalancer::ControlTracedCallback")
            .AddTraceSource("Reroute",
                            "The source ToR moved a flow: (the TAIL's meta, old uplink port, "
                            "new uplink port).",
                            MakeTraceSourceAccessor(&ConWeaveLoadBalancer::m_rerouteTrace),
                            "ns3::ConWeaveLoadBalancer::RerouteTracedCallback");
    return tid;
}

ConWeaveLoadBalancer::ConWeaveLoadBalancer()
    : m_rng(CreateObject<UniformRandomVariable>())
{
    EnableFrameHooks();
}

ConWeaveLoadBalancer::~ConWeaveLoadBalancer() = default;

void
ConWeaveLoadBalancer::DoDispose()
{
    for (auto& [key, f] : m_rx)
    {
        f.timer.Cancel();
    }
    m_rx.clear();
    m_tx.clear();
    m_controlPacket = nullptr;
    LoadBalancer::DoDispose();
}

int64_t
ConWeaveLoadBalancer::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

bool
ConWeaveLoadBalancer::IsPathBusy(uint32_t dstEdge, uint16_t port, Time now) const
{
    return IsPathBusyPs(dstEdge, port, Ps(now));
}

bool
ConWeaveLoadBalancer::IsPathBusyPs(uint32_t dstEdge, uint16_t port, uint64_t nowPs) const
{
    return dstEdge < m_busyUntilPs.size() && port < m_busyUntilPs[dstEdge].size() &&
           nowPs < m_busyUntilPs[dstEdge][port];
}

template <typename Map>
void
ConWeaveLoadBalancer::Age(Map& map, uint64_t nowPs, uint64_t& sweepAt)
{
    // Flows silent for two InactiveTime have started a new epoch at the source anyway (the
    // artifact ages its tables the same way); flows still reordering are kept.
    if (map.size() < sweepAt)
    {
        return;
    }
    const uint64_t idle = 2 * Ps(m_inactive);
    for (auto it = map.begin(); it != map.end();)
    {
        bool busy = false;
        if constexpr (std::is_same_v<typename Map::mapped_type, RxFlow>)
        {
            busy = it->second.reordering;
        }
        if (!busy && nowPs - it->second.lastPs > idle)
        {
            it = map.erase(it);
        }
        else
        {
            ++it;
        }
    }
    sweepAt = std::max<uint64_t>(1024, 2 * map.size());
}

int
ConWeaveLoadBalancer::PickGoodPath(uint32_t dstEdge, int current,
                                   const EgressCandidate* candidates, uint32_t count,
                                   uint64_t nowPs)
{
    // ConWeave's path-aware choice: two uplinks sampled at random (other than the current
    // one), the first that no NOTIFY marked busy.
    const uint32_t n = count - (current >= 0 ? 1 : 0);
    if (n == 0)
    {
        return -1;
    }
    for (int k = 0; k < 2; ++k)
    {
        auto i = static_cast<int>(RandomDraws::Integer(*m_rng, 0, n - 1));
        if (current >= 0 && i >= current)
        {
            ++i;
        }
        if (!IsPathBusyPs(dstEdge, candidates[i].port, nowPs))
        {
            return i;
        }
    }
    return -1;
}

uint32_t
ConWeaveLoadBalancer::DoSelectEgress(const LbContext& ctx,
                                     const FrameMeta& frame,
                                     const EgressCandidate* candidates,
                                     uint32_t count)
{
    m_pendingValid = false;
    if (ctx.fromHost && frame.kind == FrameKind::DATA && ctx.dstEdge != LbContext::kNoEdge &&
        ctx.dstEdge != ctx.switchId)
    {
        return SourceToR(ctx, frame, candidates, count);
    }
    // ACKs, control frames, tiers above the ToRs: the flow hash, as the artifact's ECMP.
    SetReason(EgressReason::HASH);
    return FlowHash(frame, m_seed, FlowHashFields::FIVE_TUPLE_DST_QP, FlowHashFunction::MURMUR3) %
           count;
}

uint32_t
ConWeaveLoadBalancer::SourceToR(const LbContext& ctx, const FrameMeta& frame,
                                const EgressCandidate* candidates, uint32_t count)
{
    const uint64_t nowPs = Ps(ctx.now);
    Age(m_tx, nowPs, m_txSweepAt);
    const FlowKey key{frame.srcHost, frame.dstHost, frame.dstQp, frame.srcPort};
    auto [it, isNew] = m_tx.try_emplace(key);
    TxFlow& f = it->second;

    const bool expired = isNew || nowPs - f.lastPs > Ps(m_inactive);
    const bool stabilized = !expired && f.stable;
    const bool newEpoch = expired || stabilized;
    f.lastPs = nowPs;
    bool replyTimeout = false;
    if (newEpoch)
    {
        f.stable = false;
        f.replyDeadlinePs = nowPs + Ps(m_baseRtt + m_replyMargin);
        ++f.epoch;
        f.phase = 0;
        f.tailPs = 0;
    }
    else if (f.replyDeadlinePs != kNone && nowPs > f.replyDeadlinePs)
    {
        // No RTT_REPLY in time: this frame is the TAIL of the old path, the next ones take
        // the new path as phase 1, and the flow waits for the CLEAR (one reroute per epoch).
        f.replyDeadlinePs = kNone;
        replyTimeout = true;
    }
    const uint8_t framePhase = f.phase; // the TAIL is still phase 0

    int current = isNew ? -1 : FindCandidate(candidates, count, f.port);
    // The first frame on a path a reply timeout moved the flow to reports the reroute.
    SetReason(f.moved ? EgressReason::CONWEAVE_REROUTE : EgressReason::FLOWLET);
    f.moved = false;
    if (current < 0)
    {
        // A new flow (or its uplink left the group): a path not marked busy if one is found.
        current = PickGoodPath(ctx.dstEdge, -1, candidates, count, nowPs);
        SetReason(EgressReason::POLICY);
        if (current < 0)
        {
            current = static_cast<int>(RandomDraws::Integer(*m_rng, 0, count - 1));
            SetReason(EgressReason::RANDOM);
        }
        f.port = candidates[current].port;
    }
    else if (expired)
    {
        // After θ_inactive nothing is in flight: the flow may start anywhere (the artifact
        // picks a fresh path at every expiry).
        const int good = PickGoodPath(ctx.dstEdge, -1, candidates, count, nowPs);
        if (good >= 0 && good != current)
        {
            ++m_reroutes;
            m_rerouteTrace(frame, f.port, candidates[good].port);
            current = good;
            f.port = candidates[good].port;
            SetReason(EgressReason::CONWEAVE_REROUTE);
        }
    }
    const int sendOn = current;
    if (replyTimeout)
    {
        ++m_tails;
        f.phase = 1;
        f.tailPs = nowPs;
        const int good = PickGoodPath(ctx.dstEdge, current, candidates, count, nowPs);
        if (good >= 0)
        {
            ++m_reroutes;
            m_rerouteTrace(frame, f.port, candidates[good].port);
            f.port = candidates[good].port;
            f.moved = true; // this frame is the old path's TAIL; the next one reports it
        }
    }

    ConWeaveTag& t = m_pending;
    t = ConWeaveTag{};
    t.type = newEpoch ? ConWeaveTag::RTT_REQUEST
                      : (replyTimeout ? ConWeaveTag::TAIL : ConWeaveTag::DATA);
    t.epoch = f.epoch;
    t.bits = framePhase ? ConWeaveTag::kPhase1 : 0;
    t.path = static_cast<uint8_t>(candidates[sendOn].port);
    // Phase 0 frames carry their own send time, phase 1 frames the TAIL's.
    t.stampNs = static_cast<uint32_t>((framePhase ? f.tailPs : nowPs) / 1000);
    m_pendingValid = true;
    m_rttRequests += newEpoch;
    return static_cast<uint32_t>(sendOn);
}

void
ConWeaveLoadBalancer::DoFrameLeaving(const LbContext&, FrameMeta& frame, const EgressCandidate&)
{
    if (m_pendingValid)
    {
        SetLbTag(frame, m_pending);
        m_pendingValid = false;
    }
}

void
ConWeaveLoadBalancer::DoFrameArrived(const LbContext& ctx, FrameMeta& frame)
{
    if (frame.kind == FrameKind::DATA && !ctx.fromHost && ctx.dstEdge == ctx.switchId &&
        ctx.srcEdge != LbContext::kNoEdge && ctx.srcEdge != ctx.switchId)
    {
        DestinationToR(ctx, frame);
    }
}

void
ConWeaveLoadBalancer::SendControl(const LbContext& ctx, const FrameMeta& data,
                                  ConWeaveTag::Type type, uint8_t epoch, uint8_t phase,
                                  uint8_t path)
{
    // Back to the flow's source host, whose ToR consumes it (DoConsumeFrame). The flow's
    // identity travels in the headers, as in the artifact's reply.
    FrameMeta m;
    m.srcHost = data.dstHost;
    m.dstHost = data.srcHost;
    m.dstQp = data.dstQp;
    m.srcPort = data.srcPort;
    m.dstPort = data.dstPort;
    m.kind = FrameKind::LB_CONTROL;
    m.priority = m_controlPriority;
    ConWeaveTag t{};
    t.type = type;
    t.epoch = epoch;
    t.bits = phase ? ConWeaveTag::kPhase1 : 0;
    t.path = path;
    SetLbTag(m, t);
    ++m_controlSent;
    m_controlTrace(m);
    if (!m_controlPacket || m_controlPacket->GetSize() != m_controlBytes)
    {
        m_controlPacket = Create<Packet>(m_controlBytes);
    }
    InjectFrame(ctx.ingressPort, m_controlPacket, m);
}

void
ConWeaveLoadBalancer::DestinationToR(const LbContext& ctx, FrameMeta& frame)
{
    const ConWeaveTag tag = GetLbTag<ConWeaveTag>(frame);
    SetLbTag(frame, ConWeaveTag{}); // the host never sees the overlay
    if (tag.type != ConWeaveTag::DATA && tag.type != ConWeaveTag::RTT_REQUEST &&
        tag.type != ConWeaveTag::TAIL)
    {
        return;
    }
    const uint64_t nowPs = Ps(ctx.now);
    Age(m_rx, nowPs, m_rxSweepAt);
    const FlowKey key{frame.srcHost, frame.dstHost, frame.dstQp, frame.srcPort};
    auto [it, isNew] = m_rx.try_emplace(key);
    RxFlow& f = it->second;
    if (isNew)
    {
        f.epoch = tag.epoch;
    }
    f.lastPs = nowPs;
    const uint8_t phase = tag.Phase();
    const bool tail = tag.type == ConWeaveTag::TAIL;
    const auto epochAhead = static_cast<int8_t>(static_cast<uint8_t>(tag.epoch - f.epoch));
    if (epochAhead < 0)
    {
        return; // a frame of an earlier epoch: nothing of it is held any more
    }
    bool outOfOrder = false;
    if (epochAhead > 0)
    {
        // A new epoch (the source saw the CLEAR, or the flow was idle): what is still held
        // of the old one goes first.
        if (f.reordering)
        {
            Release(f, true);
        }
        f.epoch = tag.epoch;
        f.phase = tail ? 1 : 0;
        f.phase0Seen = false;
        f.timedOut = false;
        outOfOrder = phase > f.phase;
    }
    else if (tail)
    {
        if (!f.reordering)
        {
            f.phase = 1; // else when the queue is released behind it (DoHoldFrame)
        }
    }
    else if (phase > f.phase)
    {
        outOfOrder = true; // phase 1 before the TAIL: the new path overtook the old one
    }
    if (phase == 0 && f.timedOut)
    {
        ++m_lateOldPath; // its queue was released without it: it lands behind newer frames
    }
    if (phase == 0)
    {
        f.phase0TxNs = tag.stampNs;
        f.phase0RxPs = nowPs;
        f.phase0Seen = true;
    }
    if (tail || phase == 1)
    {
        f.tailTxNs = tag.stampNs;
    }
    // The TAIL left the source tailTxNs - phase0TxNs after the last old-path frame seen here,
    // so it should arrive that much after it (if the old path's delay holds).
    const int64_t gapPs =
        f.phase0Seen
            ? std::max<int64_t>(0, static_cast<int32_t>(f.tailTxNs - f.phase0TxNs)) * 1000
            : static_cast<int64_t>(Ps(m_defaultResume));
    ConWeaveTag out{};
    if (phase == 1 && outOfOrder)
    {
        out.bits |= ConWeaveTag::kHold;
        if (!f.reordering)
        {
            f.reordering = true;
            ++m_activeQueues;
            m_peakQueues = std::max(m_peakQueues, m_activeQueues);
            const uint64_t base = f.phase0Seen ? f.phase0RxPs : nowPs;
            Arm(key, f, base + gapPs + Ps(m_resumeMargin), nowPs);
        }
    }
    else if (phase == 0 && f.reordering)
    {
        if (tail)
        {
            out.bits |= ConWeaveTag::kFlushBehind; // release the queue behind the TAIL
        }
        else
        {
            // The old path still delivers: the TAIL is expected gap later than this frame.
            Arm(key, f, nowPs + gapPs + Ps(m_resumeMargin), nowPs);
        }
    }
    if (out.bits != 0)
    {
        SetLbTag(frame, out);
    }

    if (frame.ecn == ECN_CE)
    {
        SendControl(ctx, frame, ConWeaveTag::NOTIFY, tag.epoch, phase, tag.path);
    }
    if (tag.type == ConWeaveTag::RTT_REQUEST)
    {
        SendControl(ctx, frame, ConWeaveTag::RTT_REPLY, tag.epoch, 0, tag.path);
    }
    else if (tail)
    {
        SendControl(ctx, frame, ConWeaveTag::CLEAR, tag.epoch, 1, tag.path);
    }
}

void
ConWeaveLoadBalancer::Arm(const FlowKey& key, RxFlow& f, uint64_t deadlinePs, uint64_t nowPs)
{
    f.deadlinePs = std::max(deadlinePs, nowPs);
    if (!HasSwitch())
    {
        return; // unit tests call FlushDue
    }
    // One event per queue: the handler re-arms itself if the deadline moved later.
    if (!f.timer.IsRunning() || Simulator::GetDelayLeft(f.timer) > PicoSeconds(f.deadlinePs - nowPs))
    {
        f.timer.Cancel();
        f.timer = Simulator::Schedule(PicoSeconds(f.deadlinePs - nowPs),
                                      &ConWeaveLoadBalancer::OnTimer, this, key);
    }
}

void
ConWeaveLoadBalancer::OnTimer(FlowKey key)
{
    auto it = m_rx.find(key);
    if (it == m_rx.end() || !it->second.reordering)
    {
        return;
    }
    RxFlow& f = it->second;
    const uint64_t nowPs = Ps(Simulator::Now());
    if (nowPs < f.deadlinePs)
    {
        f.timer = Simulator::Schedule(PicoSeconds(f.deadlinePs - nowPs),
                                      &ConWeaveLoadBalancer::OnTimer, this, key);
        return;
    }
    Release(f, true);
    f.phase = 1;
    f.timedOut = true;
}

uint64_t
ConWeaveLoadBalancer::FlushDue(Time now)
{
    uint64_t n = 0;
    for (auto& [key, f] : m_rx)
    {
        if (f.reordering && f.deadlinePs <= Ps(now))
        {
            n += Release(f, true);
            f.phase = 1;
            f.timedOut = true;
        }
    }
    return n;
}

uint64_t
ConWeaveLoadBalancer::Release(RxFlow& f, bool byTimeout)
{
    const uint64_t n = f.queue.size();
    while (!f.queue.empty())
    {
        Held h = std::move(f.queue.front());
        f.queue.pop_front();
        m_heldBytes -= h.packet->GetSize();
        m_releasedTrace(h.meta, byTimeout);
        ReleaseHeld(h.inPort, h.outPort, h.packet, h.meta);
    }
    f.reordering = false;
    f.timer.Cancel();
    --m_activeQueues;
    if (byTimeout)
    {
        ++m_flushByTimeout;
        m_timeoutReleased += n;
    }
    else
    {
        ++m_flushByTail;
    }
    return n;
}

bool
ConWeaveLoadBalancer::DoHoldFrame(Time now, uint16_t inPort, uint16_t outPort,
                                  Ptr<Packet> packet, FrameMeta& frame)
{
    const ConWeaveTag tag = GetLbTag<ConWeaveTag>(frame);
    if (tag.type != ConWeaveTag::NONE ||
        (tag.bits & (ConWeaveTag::kHold | ConWeaveTag::kFlushBehind)) == 0)
    {
        return false; // not a decision of this switch as a destination ToR
    }
    SetLbTag(frame, ConWeaveTag{});
    auto it = m_rx.find(FlowKey{frame.srcHost, frame.dstHost, frame.dstQp, frame.srcPort});
    if (it == m_rx.end() || !it->second.reordering)
    {
        return false; // released meanwhile (ForwardingLatency): the frame follows the queue
    }
    RxFlow& f = it->second;
    if (tag.bits & ConWeaveTag::kFlushBehind)
    {
        // The TAIL joins the egress queue first, then the frames of the new path behind it.
        ReleaseHeld(inPort, outPort, packet, frame);
        Release(f, false);
        f.phase = 1;
        return true;
    }
    f.queue.push_back(Held{packet, frame, inPort, outPort});
    ++m_heldFrames;
    m_heldBytes += packet->GetSize();
    m_peakHeldBytes = std::max(m_peakHeldBytes, m_heldBytes);
    m_heldTrace(frame);
    return true;
}

bool
ConWeaveLoadBalancer::DoConsumeFrame(const LbContext& ctx, const FrameMeta& frame)
{
    if (frame.kind != FrameKind::LB_CONTROL || ctx.dstEdge != ctx.switchId)
    {
        return false;
    }
    const ConWeaveTag tag = GetLbTag<ConWeaveTag>(frame);
    const uint64_t nowPs = Ps(ctx.now);
    if (tag.type == ConWeaveTag::NOTIFY)
    {
        if (ctx.srcEdge != LbContext::kNoEdge)
        {
            if (ctx.srcEdge >= m_busyUntilPs.size())
            {
                m_busyUntilPs.resize(ctx.srcEdge + 1);
            }
            auto& row = m_busyUntilPs[ctx.srcEdge];
            if (tag.path >= row.size())
            {
                row.resize(tag.path + 1, 0);
            }
            row[tag.path] = nowPs + Ps(m_pathBusy);
        }
        ++m_notifiesReceived;
        return true;
    }
    // The reply of a data frame from frame.dstHost to frame.srcHost.
    auto it = m_tx.find(FlowKey{frame.dstHost, frame.srcHost, frame.dstQp, frame.srcPort});
    if (it == m_tx.end() || it->second.epoch != tag.epoch)
    {
        return true; // an old epoch's: ignored
    }
    TxFlow& f = it->second;
    if (tag.type == ConWeaveTag::RTT_REPLY && f.phase == 0 && f.replyDeadlinePs != kNone &&
        nowPs < f.replyDeadlinePs)
    {
        f.stable = true; // the path is fine: the next frame starts a new epoch and probes again
        f.replyDeadlinePs = kNone;
        ++m_repliesInTime;
    }
    else if (tag.type == ConWeaveTag::CLEAR && f.phase == 1)
    {
        f.stable = true; // the reroute is over: rerouting is allowed again
        ++m_clearsReceived;
    }
    return true;
}

} // namespace ns3
