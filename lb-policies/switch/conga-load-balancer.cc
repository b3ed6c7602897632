#include "conga-load-balancer.h"

#include "fabric/model/random-draws.h"
#include "flow-hash.h"
#include "lb-policies/policy-registry.h"

#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CongaLoadBalancer);

namespace
{
const PolicyRegistration kRegistration{
    {"conga", "ns3::CongaLoadBalancer",
     "CONGA: least congested path per flowlet, DRE with leaf-to-leaf feedback"},
    "Alizadeh et al., CONGA, SIGCOMM 2014"};
} // namespace

TypeId
CongaLoadBalancer::GetTypeId()
{
    using C = CongaLoadBalancer;
    static TypeId tid =
        AddFlowletAttributes<C>(TypeId("ns3::CongaLoadBalancer")
                                    .SetParent<LoadBalancer>()
                                    .SetGroupName("LbPolicies")
                                    .AddConstructor<C>(),
                                MicroSeconds(50),
                                "Flowlet timeout (Time): a packet arriving more than this after "
                                "the previous packet of its flow starts a new flowlet.",
                                &C::m_gap, &C::m_tableSize, &C::m_seed)
            .AddAttribute("QuantizationBits",
                          "Bits of the congestion metric (bits); CONGA uses 3.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&CongaLoadBalancer::m_bits),
                          MakeUintegerChecker<uint32_t>(1, 8))
            .AddAttribute("MetricAgeing",
                          "Metric ageing (Time): a Congestion-To-Leaf metric not refreshed "
                          "for this long counts as 0, and a Congestion-From-Leaf metric "
                          "measured longer ago is no longer fed back.",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&CongaLoadBalancer::m_ageing),
                          MakeTimeChecker(Time(0)));
    return tid;
}

CongaLoadBalancer::CongaLoadBalancer()
    : m_rng(CreateObject<UniformRandomVariable>())
{
    EnableFrameHooks();
    EnableDepartureHook(); // CE is written as the frame leaves the egress queue
}

int64_t
CongaLoadBalancer::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

uint8_t
CongaLoadBalancer::Quantise(double utilisation) const
{
    const uint32_t levels = 1u << m_bits;
    const double q = std::floor(utilisation * levels);
    return static_cast<uint8_t>(std::min<double>(levels - 1, std::max(0.0, q)));
}

uint8_t
CongaLoadBalancer::GetRemoteMetric(uint32_t leaf, uint16_t port, Time now) const
{
    if (leaf >= m_toLeaf.size() || port >= m_toLeaf[leaf].size())
    {
        return 0;
    }
    const RemoteMetric& r = m_toLeaf[leaf][port];
    const auto nowPs = static_cast<uint64_t>(now.GetPicoSeconds());
    if (!r.valid || !Fresh(r.updatedPs, nowPs))
    {
        return 0;
    }
    return r.metric;
}

uint8_t
CongaLoadBalancer::GetFromLeafMetric(uint32_t leaf, uint8_t tag) const
{
    if (leaf >= m_fromLeaf.size() || tag >= m_fromLeaf[leaf].entries.size())
    {
        return 0;
    }
    return m_fromLeaf[leaf].entries[tag].metric;
}

void
CongaLoadBalancer::DoFrameArrived(const LbContext& ctx, FrameMeta& frame)
{
    if (ctx.fromHost || ctx.dstEdge != ctx.switchId || ctx.srcEdge == LbContext::kNoEdge ||
        ctx.srcEdge == ctx.switchId)
    {
        return; // not this frame's destination leaf
    }
    const uint32_t src = ctx.srcEdge;
    const auto nowPs = static_cast<uint64_t>(ctx.now.GetPicoSeconds());
    const CongaTag tag = GetLbTag<CongaTag>(frame);
    if (tag.HasLbTag())
    {
        if (src >= m_fromLeaf.size())
        {
            m_fromLeaf.resize(src + 1);
        }
        FromLeafRow& row = m_fromLeaf[src];
        if (tag.lbTag >= row.entries.size())
        {
            row.entries.resize(tag.lbTag + 1);
        }
        FromLeafEntry& e = row.entries[tag.lbTag];
        e.changed = e.changed || !e.valid || e.metric != tag.ce;
        e.metric = tag.ce;
        e.measuredPs = nowPs;
        e.valid = true;
    }
    if (tag.HasFeedback())
    {
        if (src >= m_toLeaf.size())
        {
            m_toLeaf.resize(src + 1);
        }
        auto& row = m_toLeaf[src];
        if (tag.fbTag >= row.size())
        {
            row.resize(tag.fbTag + 1);
        }
        RemoteMetric& r = row[tag.fbTag];
        r.metric = tag.fbMetric;
        r.updatedPs = nowPs;
        r.valid = true;
    }
}

uint32_t
CongaLoadBalancer::DoSelectEgress(const LbContext& ctx,
                                  const FrameMeta& frame,
                                  const EgressCandidate* candidates,
                                  uint32_t count)
{
    const uint32_t h =
        FlowHash(frame, m_seed, FlowHashFields::FIVE_TUPLE_DST_QP, FlowHashFunction::MURMUR3);
    if (!ctx.fromHost || ctx.dstEdge == LbContext::kNoEdge)
    {
        SetReason(EgressReason::HASH);
        return h % count; // not the source leaf: hash, as CONGA's fabric below the leaves
    }
    if (m_table.GetSize() != m_tableSize)
    {
        m_table.Resize(m_tableSize);
    }
    const auto nowPs = static_cast<uint64_t>(ctx.now.GetPicoSeconds());
    bool fresh = false;
    FlowletTable::Entry& e =
        m_table.Lookup(h, nowPs, static_cast<uint64_t>(m_gap.GetPicoSeconds()), fresh);
    const int previous = e.valid ? FindCandidate(candidates, count, e.port) : -1;
    int index = fresh ? -1 : previous;
    SetReason(EgressReason::FLOWLET);
    if (index < 0)
    {
        SetReason(EgressReason::CONGA_METRIC);
        // New flowlet: the least congested path, max(local, remote); ties prefer the
        // flowlet's previous port, else are broken uniformly at random (reservoir sampling).
        auto metric = [&](uint32_t i) -> uint32_t {
            return std::max(Quantise(candidates[i].utilisation),
                            GetRemoteMetric(ctx.dstEdge, candidates[i].port, ctx.now));
        };
        uint32_t best = UINT32_MAX;
        for (uint32_t i = 0; i < count; ++i)
        {
            best = std::min(best, metric(i));
        }
        if (previous >= 0 && metric(static_cast<uint32_t>(previous)) == best)
        {
            index = previous;
        }
        else
        {
            uint32_t ties = 0;
            for (uint32_t i = 0; i < count; ++i)
            {
                if (metric(i) == best && RandomDraws::Integer(*m_rng, 0, ties++) == 0)
                {
                    index = static_cast<int>(i);
                }
            }
        }
        ++m_flowlets;
    }
    FlowletTable::Update(e, candidates[index].port, nowPs);
    return static_cast<uint32_t>(index);
}

void
CongaLoadBalancer::DoFrameLeaving(const LbContext& ctx,
                                  FrameMeta& frame,
                                  const EgressCandidate& chosen)
{
    if (ctx.dstEdge == ctx.switchId)
    {
        // Leaving to a host: the destination leaf strips the overlay.
        SetLbTag(frame, CongaTag{});
        return;
    }
    if (!ctx.fromHost || ctx.dstEdge == LbContext::kNoEdge)
    {
        return; // transit hop: CE is raised when the frame leaves the egress queue
    }
    // Source leaf: tag the uplink, start CE (raised at departure, DoFrameDeparting),
    // piggyback one feedback entry for the destination.
    CongaTag tag{};
    if (chosen.port < 0xFF)
    {
        tag.flags = CongaTag::kHasLbTag;
        tag.lbTag = static_cast<uint8_t>(chosen.port);
    }
    if (ctx.dstEdge < m_fromLeaf.size())
    {
        // Round-robin over the fresh entries, those that changed since they were last fed
        // back first. Entries measured longer than MetricAgeing ago are dropped, so the source
        // leaf's copy ages out instead of being refreshed with an old measurement.
        FromLeafRow& row = m_fromLeaf[ctx.dstEdge];
        const auto n = static_cast<uint32_t>(row.entries.size());
        const auto nowPs = static_cast<uint64_t>(ctx.now.GetPicoSeconds());
        int pick = -1;
        for (uint32_t k = 0; k < n; ++k)
        {
            const uint32_t i = (row.next + k) % n;
            FromLeafEntry& e = row.entries[i];
            if (!e.valid)
            {
                continue;
            }
            if (!Fresh(e.measuredPs, nowPs))
            {
                e.valid = false;
                continue;
            }
            if (pick < 0)
            {
                pick = static_cast<int>(i); // the first fresh entry in round-robin order
            }
            if (e.changed)
            {
                pick = static_cast<int>(i);
                break;
            }
        }
        if (pick >= 0)
        {
            FromLeafEntry& e = row.entries[pick];
            tag.flags |= CongaTag::kHasFeedback;
            tag.fbTag = static_cast<uint8_t>(pick);
            tag.fbMetric = e.metric;
            e.changed = false;
            row.next = static_cast<uint8_t>((pick + 1) % n);
            ++m_feedbackSent;
        }
    }
    SetLbTag(frame, tag);
}

void
CongaLoadBalancer::DoFrameDeparting(Time, uint16_t, double utilisation, FrameMeta& frame)
{
    // Every hop, the source leaf's uplink included: CE = max(CE, the egress DRE), taken when
    // the frame leaves the queue, as the egress pipeline of the ASIC rewrites the overlay
    // header. Stamped at enqueue instead, CE would lag by the queueing delay, which is
    // largest exactly on the congested path (hundreds of microseconds behind a PFC-held
    // queue), and the source would keep choosing it.
    CongaTag tag = GetLbTag<CongaTag>(frame);
    if (tag.HasLbTag())
    {
        tag.ce = std::max(tag.ce, Quantise(utilisation));
        SetLbTag(frame, tag);
    }
}

} // namespace ns3
