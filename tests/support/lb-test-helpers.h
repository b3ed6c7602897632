// Helpers for the unit tests of the switch-side policies: frames, candidate lists and a fake
// clock (LbContext.now), no Simulator.
#ifndef TUSK_TEST_LB_TEST_HELPERS_H
#define TUSK_TEST_LB_TEST_HELPERS_H

#include "fabric/model/load-balancer.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace tusk_test
{

using ns3::EgressCandidate;
using ns3::FrameMeta;
using ns3::LbContext;
using ns3::LoadBalancer;
using ns3::Ptr;

/** A frame of the flow (src, dst, source port, destination QP). */
inline FrameMeta
Flow(uint32_t src, uint32_t dst, uint16_t sport, uint32_t qp = 1)
{
    FrameMeta m;
    m.srcHost = src;
    m.dstHost = dst;
    m.srcPort = sport;
    m.dstPort = 4791;
    m.dstQp = qp;
    return m;
}

/** n candidates on ports first, first + 1, ... with the given queue bytes (0 if omitted). */
inline std::vector<EgressCandidate>
Candidates(uint32_t n, std::vector<uint64_t> queue = {}, uint16_t first = 0)
{
    std::vector<EgressCandidate> c(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        c[i].port = static_cast<uint16_t>(first + i);
        c[i].queueBytes = i < queue.size() ? queue[i] : 0;
    }
    return c;
}

/** A decision context at `us` microseconds on switch `switchId` (the fake clock). */
inline LbContext
At(double us, uint32_t switchId = 0)
{
    LbContext ctx;
    ctx.now = ns3::NanoSeconds(static_cast<int64_t>(std::llround(us * 1000)));
    ctx.switchId = switchId;
    return ctx;
}

/** The policy's choice among `c`, as an index. */
inline uint32_t
Pick(Ptr<LoadBalancer> lb, const LbContext& ctx, const FrameMeta& f, std::vector<EgressCandidate>& c)
{
    return lb->SelectEgress(ctx, f, c.data(), static_cast<uint32_t>(c.size()));
}

} // namespace tusk_test

#endif
