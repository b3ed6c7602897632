/*
 * tusk: fast mode (simulator.mode = "fast"): the run's side of iteration memoisation
 * (workload/model/iteration-memo.h): what the memo may assume of this scenario, its probe of
 * the fabric, its failure-span check, and the replayed counters in the results.
 */
#include "run/run-stages.h"

#include "fabric/model/random-draws.h"
#include "fabric/model/shared-buffer-mmu.h"
#include "fabric/model/switch-node.h"
#include "fabric/model/switch-port.h"

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <set>
#include <unordered_map>

namespace tusk
{

using namespace ns3;

namespace
{

/** Switch policies and host path selectors whose choice for a frame depends only on its
 *  headers and the configuration: no random stream, no state carried between frames. */
bool
StatelessPolicy(const RunPlan& plan)
{
    static const std::set<std::string> policies = {
        "ns3::EcmpLoadBalancer", "ns3::IbStaticLoadBalancer", "ns3::PathPinningLoadBalancer"};
    static const std::set<std::string> selectors = {"", "ns3::PathSelector",
                                                    "ns3::FixedPathSelector"};
    return policies.count(plan.policyTypeId) > 0 && selectors.count(plan.pathSelectorTypeId) > 0;
}

/** The smallest ECN Kmin configured, bytes (0 when ECN thresholds follow the transport's
 *  recommendation); UINT64_MAX without ECN. */
uint64_t
SmallestKmin(const ScenarioSpec& spec)
{
    if (!spec.ecn.enabled)
    {
        return UINT64_MAX;
    }
    if (!spec.ecn.thresholdsGiven)
    {
        return 0;
    }
    uint64_t k = spec.ecn.fallbackGiven ? spec.ecn.fallback.kminBytes : UINT64_MAX;
    for (const auto& [rate, th] : spec.ecn.byRate)
    {
        k = std::min(k, th.kminBytes);
    }
    return k;
}

uint64_t
Bits(double d)
{
    uint64_t u = 0;
    std::memcpy(&u, &d, sizeof u);
    return u;
}

/** A QP's congestion-control state as the exact rule compares it: rate, target rate, alpha,
 *  window, bit for bit. */
using CcWords = std::array<uint64_t, 4>;

CcWords
WordsOf(const RdmaCcState& s)
{
    return {Bits(s.rateBps), Bits(s.targetRateBps), Bits(s.alpha), Bits(s.windowBytes)};
}

/** RdmaNic's QpCreated: the QP's state words as it was created. */
void
OnQpCreated(std::shared_ptr<std::unordered_map<const RdmaQueuePair*, CcWords>> created,
            Ptr<RdmaQueuePair> qp)
{
    if (const Ptr<RdmaCongestionControl> cc = qp->GetCongestionControl())
    {
        created->emplace(PeekPointer(qp), WordsOf(cc->GetState()));
    }
}

} // namespace

namespace
{

/** ChooseRecurrenceSpan and ChooseSteadyTrendSpan: the memo's attribute `attribute` (a
 *  check over many iterations) off (0) for a policy without state and the fixed selector. */
RecurrenceSpanChoice
ChooseLongCheck(const ScenarioSpec& spec, const RunPlan& plan, const char* attribute)
{
    // The scenario's [ns3] value is a default the memo was created with; it wins.
    if (spec.ns3Defaults.count(attribute) > 0)
    {
        return {std::nullopt, "ns3_setting"};
    }
    if (plan.policyKeepsState)
    {
        return {std::nullopt, "policy_state"};
    }
    static const std::set<std::string> fixed = {"", "ns3::PathSelector",
                                                "ns3::FixedPathSelector"};
    if (fixed.count(plan.pathSelectorTypeId) == 0)
    {
        return {std::nullopt, "path_selector_state"};
    }
    return {0, "stateless_policy"};
}

} // namespace

RecurrenceSpanChoice
ChooseRecurrenceSpan(const ScenarioSpec& spec, const RunPlan& plan)
{
    return ChooseLongCheck(spec, plan, "ns3::IterationMemo::RecurrenceSpan");
}

RecurrenceSpanChoice
ChooseSteadyTrendSpan(const ScenarioSpec& spec, const RunPlan& plan)
{
    return ChooseLongCheck(spec, plan, "ns3::IterationMemo::SteadyTrendSpan");
}

void
FastMode::Attach(const ScenarioSpec& spec,
                 const RunPlan& plan,
                 const BuiltFabric& built,
                 const Executor& executor,
                 Observers& observers,
                 const RingStepUnits* ring)
{
    if (spec.simulator.mode != "fast")
    {
        return;
    }
    m_memo = CreateObject<IterationMemo>();
    // A rare slow iteration recurring with a long period comes from state a policy keeps
    // between frames (CONGA's metrics); a policy without any is not held to the check.
    const RecurrenceSpanChoice recurrence = ChooseRecurrenceSpan(spec, plan);
    if (recurrence.span)
    {
        m_memo->SetAttribute("RecurrenceSpan", UintegerValue(*recurrence.span));
    }
    UintegerValue span;
    m_memo->GetAttribute("RecurrenceSpan", span);
    m_recurrenceSpan = static_cast<uint32_t>(span.Get());
    m_recurrenceSpanWhy = recurrence.why;
    // A drift or slow cycle too (the steady rule's trend check): the same state, the same rule.
    const RecurrenceSpanChoice trend = ChooseSteadyTrendSpan(spec, plan);
    if (trend.span)
    {
        m_memo->SetAttribute("SteadyTrendSpan", UintegerValue(*trend.span));
    }
    m_memo->GetAttribute("SteadyTrendSpan", span);
    m_steadyTrendSpan = static_cast<uint32_t>(span.Get());
    m_steadyTrendSpanWhy = trend.why;
    const Fabric* fabric = &built.fabric;
    const std::vector<Ptr<RdmaNic>>* nics = &built.nics;
    const Ptr<WorkloadExecutor> exec = executor.exec;
    MetricsSink* sink = &observers.Sink();
    m_sinkPorts = sink->PortCounterSnapshot().size();
    const uint64_t kmin = SmallestKmin(spec);

    // Every QP's congestion-control state words as it was created (RdmaNic's QpCreated fires
    // with its congestion control attached, before its first packet): a connection created
    // inside a memo iteration may stand as present at its start in that state.
    auto created = std::make_shared<std::unordered_map<const RdmaQueuePair*, CcWords>>();
    for (const auto& nic : *nics)
    {
        nic->TraceConnectWithoutContext("QpCreated", MakeBoundCallback(&OnQpCreated, created));
    }
    // Every port's counters: the switches' and hosts' (the sink's order), then every NIC's.
    auto portSnapshot = [sink, nics]() {
        std::vector<PortCounters> ports = sink->PortCounterSnapshot();
        for (const auto& nic : *nics)
        {
            ports.push_back(nic->GetCounters());
        }
        return ports;
    };
    auto probe = [fabric, nics, exec, kmin, created, portSnapshot]() {
        FabricProbeResult r;
        auto notQuiescent = [&r](const char* why) {
            if (r.notQuiescent.empty())
            {
                r.notQuiescent = why;
            }
        };
        for (const auto& l : fabric->links)
        {
            if (l.channel->GetFramesInFlight() > 0)
            {
                notQuiescent("frames in flight");
            }
            for (const auto& dev : {l.devA, l.devB})
            {
                for (uint8_t prio = 0; prio < 8; ++prio)
                {
                    if (dev->IsPaused(prio))
                    {
                        notQuiescent("a port paused");
                    }
                }
            }
        }
        for (const auto& sw : fabric->switches)
        {
            if (sw->GetFramesInPipeline() + sw->GetFramesHeld() > 0)
            {
                notQuiescent("frames held in a switch");
            }
            const Ptr<SharedBufferMmu> mmu = sw->GetMmu();
            if (mmu && mmu->GetTotalUsed() > 0)
            {
                notQuiescent("switch buffer in use");
            }
            for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
            {
                const Ptr<SwitchPort> port = sw->GetPort(p);
                if (port->GetQueuedFrames() > 0)
                {
                    notQuiescent("frames queued");
                }
                // ECN marking between Kmin and Kmax draws from the port's random stream: a
                // queue that ever reached Kmin may have drawn, and replay would not.
                if (port->GetCounters().maxQueueBytes > kmin && r.exactWhyNot.empty())
                {
                    r.exactWhyNot = "ecn_random_marking";
                }
            }
        }
        for (const auto& nic : *nics)
        {
            if (nic->GetQueuedFrames() > 0)
            {
                notQuiescent("NIC control frames queued");
            }
        }
        for (const auto& qp : exec->GetQps())
        {
            if (qp->GetUnackedBytes() > 0)
            {
                notQuiescent("unacknowledged bytes");
            }
            const Ptr<RdmaCongestionControl> cc = qp->GetCongestionControl();
            // GetState() is all the exact rule compares: a control with more state than that
            // (HPCC, TIMELY, Swift, NSCC, DCTCP; DCQCN after its first CNP) rules it out.
            if (!cc->StateIsComplete() && r.exactWhyNot.empty())
            {
                r.exactWhyNot = "cc_state_partial";
            }
            const CcWords w = WordsOf(cc->GetState());
            const size_t first = r.state.size();
            r.state.insert(r.state.end(), w.begin(), w.end());
            const uint32_t peerHost = qp->GetPeerHost();
            const Ptr<RdmaNic> peerNic = peerHost < nics->size() ? (*nics)[peerHost] : nullptr;
            const Ptr<RdmaQueuePair> peer = peerNic ? peerNic->GetQp(qp->GetPeerQpn()) : nullptr;
            // Receiver credits (RCCC): the sender's balance and its responder's outstanding and
            // owed credit decide when it may send; words too. Their values at creation are not
            // recorded, so under RCCC no connection counts as created in a memo.
            const bool credit = qp->GetNic()->ReceiverCreditEnabled();
            if (credit)
            {
                r.state.push_back(static_cast<uint64_t>(qp->GetCreditBalance()));
                r.state.push_back(peer ? peer->GetCreditOutstanding() : UINT64_MAX);
                r.state.push_back(peer ? peer->GetCreditOwed() : UINT64_MAX);
            }
            // Idle at both ends: a connection created after a memo may stand as absent in it.
            const bool idle = qp->GetNic()->IsQpIdle(qp->GetQpn()) && peerNic &&
                              peerNic->IsQpIdle(qp->GetPeerQpn());
            r.idle.insert(r.idle.end(), r.state.size() - first, idle ? 1 : 0);
            const auto at = created->find(PeekPointer(qp));
            if (!credit && at != created->end() && r.created.size() == first)
            {
                r.created.insert(r.created.end(), at->second.begin(), at->second.end());
            }
        }
        if (r.created.size() != r.state.size())
        {
            r.created.clear(); // a QP's creation state unknown: no connection may be new
        }
        r.ports = portSnapshot();
        // The policies' random draws so far (RandomDraws: every LoadBalancer's and
        // PathSelector's draw that can change a choice).
        r.randomDraws = RandomDraws::Count();
        return r;
    };

    const auto windows = FailureWindows(spec);
    const bool drawnFailures = !spec.failureRates.empty();
    const uint64_t stopPs = spec.stopTimePs;
    auto spanCheck = [windows, drawnFailures, stopPs](uint64_t from,
                                                      uint64_t to) -> std::string {
        if (to >= stopPs)
        {
            // The run stops inside the replay: its transfers would be cut off part way, and
            // a replay has no partial state to report (delivered bytes, frames in flight).
            return "stop_time_in_span";
        }
        if (drawnFailures)
        {
            return "failure_in_span"; // drawn at random over the whole run
        }
        for (const auto& w : windows)
        {
            if (w.fromPs <= to && w.toPs >= from)
            {
                return "failure_in_span";
            }
        }
        return "";
    };

    // What neither kind of replay may use, and why (the same reasons for both).
    std::string refusal;
    if (spec.output.samplePs > 0)
    {
        refusal = "time_series";
    }
    else if (spec.output.ccTrace || spec.output.pathTelemetry || spec.output.pcap ||
             spec.output.dropLog)
    {
        refusal = "per_packet_output";
    }
    bool randomLoss = false;
    for (const auto& f : spec.failures)
    {
        randomLoss = randomLoss || f.kind == "loss" || f.kind == "gray";
    }
    if (ring != nullptr)
    {
        // A standalone ring: its steps replayed as samples (ring-step-memo.h), under the
        // sampled rule's attributes (IterationMemo::SampleIterations, SampleTolerance,
        // SampleConfidence).
        UintegerValue sampleSteps;
        DoubleValue tolerance;
        DoubleValue confidence;
        m_memo->GetAttribute("SampleIterations", sampleSteps);
        m_memo->GetAttribute("SampleTolerance", tolerance);
        m_memo->GetAttribute("SampleConfidence", confidence);
        auto pfc = [sink]() {
            uint64_t n = 0;
            for (const PortCounters& c : sink->PortCounterSnapshot())
            {
                n += c.pfcTx;
            }
            return n;
        };
        m_ring = CreateObject<RingStepMemo>();
        RingStepMemo::Sampling sampling;
        sampling.steps = static_cast<uint32_t>(sampleSteps.Get());
        sampling.tolerance = tolerance.Get();
        sampling.confidence = confidence.Get();
        RingStepMemo::Checks checks;
        checks.span = spanCheck;
        checks.draws = []() { return RandomDraws::Count(); };
        checks.pfc = pfc;
        m_ring->Setup(exec, ring->TransfersPerStep(), ring->Steps(), spec.workload.bytes,
                      sampling, std::move(checks));
        // Its steps are replayed as samples only: under receiver credits, what step times
        // do not show (a credit balance running down) decides later steps (below).
        m_ring->SetRefusal(!refusal.empty() || !spec.nic.receiverCredit ? refusal
                                                                        : "receiver_credit_state");
        if (randomLoss)
        {
            m_ring->SetSampledWhyNot("sampled_random_loss");
        }
        m_ring->Start();
        return;
    }
    m_memo->Setup(exec, probe, spanCheck);
    m_memo->SetPortSnapshot(portSnapshot);
    if (!refusal.empty())
    {
        m_memo->SetRefusal(refusal);
    }
    if (!StatelessPolicy(plan))
    {
        m_memo->SetExactAllowed(false, "policy_state");
    }
    else if (randomLoss)
    {
        m_memo->SetExactAllowed(false, "random_loss");
    }
    if (spec.nic.receiverCredit)
    {
        // Receiver credits: a QP's credit balance and its receiver's outstanding credit can
        // run down over iterations that still take the same time (a sender living on its
        // speculative credit), until one waits for grants. Iteration times agreeing say
        // nothing of that state, so only the exact rule, which compares it (the QPs' credit
        // words), may replay: 6 ranks with 4 QPs per connection, the steady rule replayed 7
        // of 9 iterations at the first two's pace, 33 % under packet mode's CCT.
        m_memo->SetInexactWhyNot("receiver_credit_state");
    }
    if (randomLoss)
    {
        // Nor the sampled rule: a random loss that costs a retransmission timeout now and then
        // makes iteration times heavy-tailed, and a pool of 2 x SampleIterations samples
        // stands for such a tail by chance (1 % loss under spraying: iteration_max off by up
        // to 15 % and fct_p99 by 13 % in 4 of 6 seeds). Such iterations are simulated.
        m_memo->SetSampledWhyNot("sampled_random_loss");
    }
    m_memo->Start();
}

void
FastMode::BeforeCollect(Observers& observers, RunResult& result)
{
    if (!m_memo)
    {
        return;
    }
    std::vector<PortCounters> ports = m_memo->SettleReplayedPorts();
    // Replayed frames were sent and arrived or were dropped (the links' rows will hold the
    // drops): CollectResults adds the counted frames to these before it checks conservation.
    uint64_t sent = 0;
    for (size_t p = m_sinkPorts; p < ports.size(); ++p)
    {
        sent += ports[p].txFrames;
    }
    uint64_t dropped = 0;
    for (size_t p = 0; p < m_sinkPorts && p < ports.size(); ++p)
    {
        for (size_t k = 0; k < static_cast<size_t>(DropReason::COUNT); ++k)
        {
            if (static_cast<DropReason>(k) != DropReason::NIC_STALE)
            {
                dropped += ports[p].drops[k];
            }
        }
    }
    result.conservation.sent += sent;
    result.conservation.received += sent >= dropped ? sent - dropped : 0;
    ports.resize(std::min(ports.size(), m_sinkPorts));
    observers.Sink().SetReplayedCounters(std::move(ports));
    result.fast = m_memo->GetStats();
    if (!m_ring)
    {
        result.fast.recurrenceSpan = m_recurrenceSpan;
        result.fast.recurrenceSpanWhy = m_recurrenceSpanWhy;
        result.fast.steadyTrendSpan = m_steadyTrendSpan;
        result.fast.steadyTrendSpanWhy = m_steadyTrendSpanWhy;
    }
    if (m_ring)
    {
        const IterationMemoStats& r = m_ring->GetStats();
        result.fast.ringSteps = r.ringSteps;
        result.fast.ringStepsReplayed = r.ringStepsReplayed;
        result.fast.ringStepsSimulated = r.ringStepsSimulated;
        result.fast.ringFirstReplayed = r.ringFirstReplayed;
        result.fast.ringFallbacks = r.ringFallbacks;
        result.fast.replayedBytes = r.replayedBytes;
        result.fast.totalBytes = r.totalBytes;
        result.fast.replayedPs = r.replayedPs;
    }
}

void
FastMode::Dispose()
{
    if (m_memo)
    {
        m_memo->Dispose();
        m_memo = nullptr;
    }
    if (m_ring)
    {
        m_ring->Dispose();
        m_ring = nullptr;
    }
}

} // namespace tusk
