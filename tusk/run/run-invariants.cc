/*
 * tusk: the invariants checked at the end of every run: per-flow packet
 * conservation, the switch MMUs' counters against the bytes their queues hold, and the line
 * rate of every link.
 */
#include "run/run-stages.h"

#include <fmt/format.h>

namespace tusk
{

using namespace ns3;

std::string
FlowConservationViolation(const FlowRow& f)
{
    return fmt::format("flow {} ({} -> {}): {} data frames received and dropped, but only {} sent",
                       f.id, f.src, f.dst, static_cast<int64_t>(f.pktsSent) - f.pktsInFlight,
                       f.pktsSent);
}

std::vector<std::string>
InvariantViolations(const RunResult& result, const Fabric& fabric, const std::string& linkRateViolation)
{
    std::vector<std::string> out;

    // Per-flow conservation (of the streamed rows: what the stream kept of them).
    int64_t inFlight = 0;
    if (result.streamed.active)
    {
        out = result.streamed.flowViolations;
        inFlight = result.streamed.flowsInFlight;
    }
    for (const auto& f : result.flows)
    {
        if (f.pktsInFlight < 0)
        {
            out.push_back(FlowConservationViolation(f));
        }
        inFlight += f.pktsInFlight;
    }
    // Rows built when their iteration retired counted its late duplicates in flight; those
    // that arrived or were dropped since are no longer in the fabric.
    inFlight -= static_cast<int64_t>(result.conservation.settledAfterRows);
    // A replayed transfer's row is its memo's, late duplicates counted in flight included;
    // the replay put none of them on a wire.
    inFlight -= static_cast<int64_t>(result.conservation.replayedInFlight);
    if (inFlight > static_cast<int64_t>(result.conservation.inFlight))
    {
        out.push_back(fmt::format("the flows have {} data frames in flight, the fabric holds only "
                                  "{} frames",
                                  inFlight, result.conservation.inFlight));
    }

    // Switch MMUs against their queues.
    constexpr uint64_t kNegative = uint64_t{1} << 63; // a counter that went below 0 wrapped
    for (size_t s = 0; s < fabric.switches.size(); ++s)
    {
        const auto& sw = fabric.switches[s];
        const Ptr<SharedBufferMmu> mmu = sw->GetMmu();
        if (!mmu || sw->UsesCredits())
        {
            continue; // InfiniBand: no MMU accounting; the credit invariant is checked below
        }
        const size_t vertex = fabric.graph.numHosts + s;
        const std::string name = vertex < fabric.graph.vertices.size()
                                     ? fabric.graph.vertices[vertex].name
                                     : fmt::format("switch {}", s);
        uint64_t queued = 0;
        uint64_t policyHeld = 0;
        for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
        {
            const Ptr<SwitchPort> port = sw->GetPort(p);
            for (uint8_t q = 0; q < SharedBufferMmu::kPgs; ++q)
            {
                // A frame the load balancer holds (ConWeave's reorder queues) stays charged to
                // the egress queue it will join; a run can end with frames held.
                const uint64_t charged = mmu->GetEgressBytes(p, q);
                const uint64_t inQueue = port->GetQueueBytes(q);
                const uint64_t byPolicy = sw->GetHeldBytes(p, q);
                const uint64_t held = inQueue + byPolicy;
                if (charged >= kNegative || byPolicy >= kNegative || charged != held)
                {
                    out.push_back(fmt::format(
                        "{} port {} queue {}: the MMU counts {} bytes, the queue holds {}{}", name,
                        p, q, static_cast<int64_t>(charged), inQueue,
                        byPolicy == 0 ? std::string()
                                      : fmt::format(" and the load balancer {}",
                                                    static_cast<int64_t>(byPolicy))));
                }
                queued += inQueue;
                policyHeld += byPolicy;
            }
        }
        if (mmu->GetTotalUsed() >= kNegative || mmu->GetTotalUsed() != queued + policyHeld)
        {
            out.push_back(fmt::format(
                "{}: the MMU counts {} bytes in use, its queues hold {}{}", name,
                static_cast<int64_t>(mmu->GetTotalUsed()), queued,
                policyHeld == 0 ? std::string()
                                : fmt::format(" and its load balancer {}",
                                              static_cast<int64_t>(policyHeld))));
        }
        if (!mmu->CheckInvariants())
        {
            out.push_back(name + ": the MMU's ingress, egress and pool accounts disagree");
        }
    }

    // InfiniBand: no VL input buffer ever held more than its credits allowed (oracle 21).
    for (const auto& link : fabric.links)
    {
        for (const auto& dev : {link.devA, link.devB})
        {
            if (dev->UsesCredits() && dev->GetCounters().creditOverruns > 0)
            {
                out.push_back(fmt::format("link {}: {} frames arrived at a full VL input buffer "
                                          "(credit flow control overrun)",
                                          link.graphLink, dev->GetCounters().creditOverruns));
            }
        }
    }

    if (!linkRateViolation.empty())
    {
        out.push_back(linkRateViolation);
    }
    return out;
}

} // namespace tusk
