// CONGA's decision and feedback logic alone (Alizadeh et al., "CONGA: Distributed
// Congestion-Aware Load Balancing for Datacenters", SIGCOMM 2014, section 3): three policy
// instances play a source leaf, a spine and a destination leaf, frames are handed from one to
// the next by hand, and time is a fake clock (LbContext.now). No Simulator.

#include "lb-policies/switch/conga-load-balancer.h"

#include "ns3/nstime.h"

#include "lb-test-helpers.h"

#include <catch2/catch.hpp>

#include <array>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;
using namespace tusk_test;

namespace
{

// Two leaves (switch ids 0 and 1) with 4 uplinks each (ports 4..7); hosts 0..3 under leaf 0,
// 4..7 under leaf 1; a spine (switch 2) in between.
constexpr uint32_t kLeaf0 = 0;
constexpr uint32_t kLeaf1 = 1;
constexpr uint32_t kSpine = 2;

Ptr<CongaLoadBalancer>
Conga(Time gap = MicroSeconds(10), Time ageing = MilliSeconds(1))
{
    auto lb = CreateObject<CongaLoadBalancer>();
    lb->SetAttribute("FlowletGap", TimeValue(gap));
    lb->SetAttribute("MetricAgeing", TimeValue(ageing));
    lb->AssignStreams(1);
    return lb;
}

/** Context of a frame from a host of leaf `from` to a host of leaf `to`, at switch `at`. */
LbContext
Ctx(double us, uint32_t at, uint32_t from, uint32_t to)
{
    LbContext c = At(us, at);
    c.fromHost = at == from;
    c.srcEdge = from;
    c.dstEdge = to;
    return c;
}

/**
 * The whole path of one frame leaf `from` -> spine -> leaf `to`: the source leaf picks an
 * uplink among `up` (or the frame keeps `forcePort`), each hop's egress DRE at departure is
 * `upUtil` (uplink) and `downUtil` (spine downlink). Returns the frame as the destination leaf
 * hands it to the host. The destination leaf records CE and the feedback the frame carries.
 */
FrameMeta
Carry(Ptr<CongaLoadBalancer> src, Ptr<CongaLoadBalancer> spine, Ptr<CongaLoadBalancer> dst,
      FrameMeta f, double us, uint32_t from, uint32_t to, std::vector<EgressCandidate>& up,
      double upUtil, double downUtil, uint16_t* chosenPort = nullptr)
{
    const LbContext s = Ctx(us, from, from, to);
    src->FrameArrived(s, f);
    const EgressCandidate& c = up[Pick(src, s, f, up)];
    if (chosenPort != nullptr)
    {
        *chosenPort = c.port;
    }
    src->FrameLeaving(s, f, c);
    src->FrameDeparting(s.now, c.port, upUtil, f);
    const LbContext m = Ctx(us + 1, kSpine, from, to);
    spine->FrameArrived(m, f);
    auto down = Candidates(1, {}, 0);
    spine->FrameLeaving(m, f, down[0]);
    spine->FrameDeparting(m.now, 0, downUtil, f);
    const LbContext d = Ctx(us + 2, to, from, to);
    dst->FrameArrived(d, f);
    auto host = Candidates(1, {}, 0);
    dst->FrameLeaving(d, f, host[0]);
    dst->FrameDeparting(d.now, 0, 0.0, f);
    return f;
}

/** CE as the frame carries it. */
uint8_t
Ce(const FrameMeta& f)
{
    return GetLbTag<CongaTag>(f).ce;
}

} // namespace

TEST_CASE("CONGA: DRE quantisation to 3 bits", "[unit][conga]")
{
    auto lb = Conga();
    CHECK(lb->Quantise(0.0) == 0);
    CHECK(lb->Quantise(0.124) == 0);
    CHECK(lb->Quantise(0.125) == 1);
    CHECK(lb->Quantise(0.249) == 1);
    CHECK(lb->Quantise(0.5) == 4);
    CHECK(lb->Quantise(0.874) == 6);
    CHECK(lb->Quantise(1.0) == 7);
    CHECK(lb->Quantise(3.0) == 7);
}

TEST_CASE("CONGA: CE is the largest egress DRE on the path, stamped when the frame leaves each "
          "queue, not when it joins it",
          "[unit][conga]")
{
    auto src = Conga();
    auto spine = Conga();
    FrameMeta f = Flow(0, 4, 50000);
    auto up = Candidates(4, {}, 4);
    const LbContext s = Ctx(0, kLeaf0, kLeaf0, kLeaf1);
    const EgressCandidate& c = up[Pick(src, s, f, up)];
    // At enqueue the uplink was idle (utilisation 0 in the candidate)...
    src->FrameLeaving(s, f, c);
    CHECK(GetLbTag<CongaTag>(f).HasLbTag());
    CHECK(GetLbTag<CongaTag>(f).lbTag == c.port);
    CHECK(Ce(f) == 0);
    // ... but when the frame left the queue the uplink was half busy: that is what CE says.
    src->FrameDeparting(MicroSeconds(30), c.port, 0.5, f);
    CHECK(Ce(f) == 4);
    // The spine: enqueue leaves CE alone, departure raises it (0.9 -> 7) and never lowers it.
    const LbContext m = Ctx(31, kSpine, kLeaf0, kLeaf1);
    spine->FrameArrived(m, f);
    auto down = Candidates(1, {}, 0);
    down[0].utilisation = 0.0;
    spine->FrameLeaving(m, f, down[0]);
    CHECK(Ce(f) == 4);
    FrameMeta g = f;
    spine->FrameDeparting(MicroSeconds(200), 0, 0.9, f);
    CHECK(Ce(f) == 7);
    spine->FrameDeparting(MicroSeconds(200), 0, 0.2, g);
    CHECK(Ce(g) == 4);
    // A frame without an LBTag (e.g. stripped at the destination leaf) is left alone.
    FrameMeta plain = Flow(1, 5, 50001);
    spine->FrameDeparting(MicroSeconds(200), 0, 0.9, plain);
    CHECK(plain.lbTag == FrameMeta().lbTag);
}

TEST_CASE("CONGA: least congested path from max(local, remote), remote learnt from the "
          "destination leaf's feedback",
          "[unit][conga]")
{
    auto src = Conga();
    auto dst = Conga();
    auto spine = Conga();
    auto up = Candidates(4, {}, 4);
    up[0].utilisation = 0.9;
    up[1].utilisation = 0.6;
    up[2].utilisation = 0.1; // least congested locally
    up[3].utilisation = 0.8;

    // 1. No remote information yet: the locally least congested uplink (port 6). Its spine
    //    downlink is busy (0.7 -> 5) when the frame passes.
    const FrameMeta f = Flow(0, 4, 50000);
    uint16_t port = 0;
    const FrameMeta delivered = Carry(src, spine, dst, f, 0, kLeaf0, kLeaf1, up, 0.1, 0.7, &port);
    CHECK(port == 6);
    // The destination leaf recorded CE for (leaf 0, LBTag 6) and stripped the overlay.
    CHECK(dst->GetFromLeafMetric(kLeaf0, 6) == 5);
    CHECK(delivered.lbTag == FrameMeta().lbTag); // stripped: the host sees an untagged frame

    // 2. Reverse traffic (leaf 1 -> leaf 0, e.g. the ACKs) piggybacks the metric back.
    auto up1 = Candidates(4, {}, 4);
    FrameMeta r = Flow(4, 0, 50001);
    const LbContext rev = Ctx(3, kLeaf1, kLeaf1, kLeaf0);
    dst->FrameLeaving(rev, r, up1[Pick(dst, rev, r, up1)]);
    CHECK(GetLbTag<CongaTag>(r).HasFeedback());
    CHECK(GetLbTag<CongaTag>(r).fbTag == 6);
    CHECK(GetLbTag<CongaTag>(r).fbMetric == 5);
    src->FrameArrived(Ctx(4, kLeaf0, kLeaf1, kLeaf0), r);
    CHECK(src->GetRemoteMetric(kLeaf1, 6, MicroSeconds(4)) == 5);
    // Another leaf's table is untouched: metrics are per destination leaf.
    CHECK(src->GetRemoteMetric(3, 6, MicroSeconds(4)) == 0);

    // 3. A new flowlet now avoids uplink 6: max(local 0.1 -> 0, remote 5) = 5 is worse than
    //    uplink 5's max(0.6 -> 4, unknown 0) = 4.
    const FrameMeta g = Flow(1, 5, 50002);
    CHECK(up[Pick(src, Ctx(5, kLeaf0, kLeaf0, kLeaf1), g, up)].port == 5);
    // The first flow's flowlet stays on port 6 while its packets keep coming...
    CHECK(up[Pick(src, Ctx(6, kLeaf0, kLeaf0, kLeaf1), f, up)].port == 6);
    // ... and after a gap longer than FlowletGap re-decides with the new information.
    CHECK(up[Pick(src, Ctx(30, kLeaf0, kLeaf0, kLeaf1), f, up)].port == 5);
}

TEST_CASE("CONGA: a metric ages out: the destination leaf stops feeding back measurements older "
          "than MetricAgeing, so the source forgets a path it stopped using",
          "[unit][conga]")
{
    // Leaf 0 sends once over uplink 4 through a congested spine downlink (CE 7), then never
    // again over that uplink. Leaf 1 keeps sending ACK-like frames back for 3 ms. Before the
    // fix the destination re-sent the 7 round-robin with every frame, refreshing leaf 0's
    // copy forever, and leaf 0 avoided uplink 4 for good.
    const Time ageing = MilliSeconds(1);
    auto src = Conga(MicroSeconds(10), ageing);
    auto dst = Conga(MicroSeconds(10), ageing);
    auto spine = Conga();
    auto only4 = Candidates(1, {}, 4);
    Carry(src, spine, dst, Flow(0, 4, 50000), 0, kLeaf0, kLeaf1, only4, 0.0, 1.0);
    REQUIRE(dst->GetFromLeafMetric(kLeaf0, 4) == 7);

    auto up1 = Candidates(4, {}, 4);
    uint32_t fedBackFresh = 0;
    uint32_t fedBackStale = 0;
    for (double us = 10; us <= 3000; us += 10)
    {
        FrameMeta r = Flow(4, 0, 50001);
        const LbContext rev = Ctx(us, kLeaf1, kLeaf1, kLeaf0);
        dst->FrameLeaving(rev, r, up1[Pick(dst, rev, r, up1)]);
        const CongaTag fb = GetLbTag<CongaTag>(r);
        if (fb.HasFeedback())
        {
            CHECK(fb.fbTag == 4);
            (us <= 1000 ? fedBackFresh : fedBackStale) += 1;
            CHECK(fb.fbMetric == 7);
        }
        src->FrameArrived(Ctx(us + 1, kLeaf0, kLeaf1, kLeaf0), r);
        if (us == 1500)
        {
            // Leaf 0's copy was last refreshed at about 1 ms: still within MetricAgeing.
            CHECK(src->GetRemoteMetric(kLeaf1, 4, MicroSeconds(1501)) == 7);
        }
    }
    // Only the one measured entry is fed back (never the tags of ports no frame came from),
    // on every frame while it is fresh, and never once it is older than MetricAgeing...
    CHECK(fedBackFresh == 100);
    CHECK(fedBackStale == 0);
    // ... so leaf 0's copy has aged out.
    CHECK(src->GetRemoteMetric(kLeaf1, 4, MicroSeconds(3001)) == 0);
    // A new measurement on the path is fed back again.
    Carry(src, spine, dst, Flow(0, 4, 50000), 3010, kLeaf0, kLeaf1, only4, 0.0, 0.3);
    FrameMeta r = Flow(4, 0, 50001);
    const LbContext rev = Ctx(3020, kLeaf1, kLeaf1, kLeaf0);
    dst->FrameLeaving(rev, r, up1[Pick(dst, rev, r, up1)]);
    CHECK(GetLbTag<CongaTag>(r).fbTag == 4);
    CHECK(GetLbTag<CongaTag>(r).fbMetric == 2);
    CHECK(dst->GetFeedbackSent() == 101);
}

TEST_CASE("CONGA: feedback goes round-robin over the measured paths, changed entries first",
          "[unit][conga]")
{
    auto src = Conga();
    auto dst = Conga();
    auto spine = Conga();
    // Leaf 0 sends over each of its four uplinks; the downlinks measure 0.1, 0.3, 0.5, 0.7.
    const std::array<double, 4> util{0.1, 0.3, 0.5, 0.7};
    for (uint16_t k = 0; k < 4; ++k)
    {
        auto one = Candidates(1, {}, static_cast<uint16_t>(4 + k));
        Carry(src, spine, dst, Flow(0, 4, static_cast<uint16_t>(50000 + k)), k, kLeaf0, kLeaf1,
              one, 0.0, util[k]);
    }
    auto up1 = Candidates(4, {}, 4);
    auto feedback = [&](double us) {
        FrameMeta r = Flow(4, 0, 50001);
        const LbContext rev = Ctx(us, kLeaf1, kLeaf1, kLeaf0);
        dst->FrameLeaving(rev, r, up1[Pick(dst, rev, r, up1)]);
        src->FrameArrived(Ctx(us + 1, kLeaf0, kLeaf1, kLeaf0), r);
        return r;
    };
    // Eight frames back: each of the four measured paths twice, in turn.
    std::array<int, 8> tags{};
    for (int i = 0; i < 8; ++i)
    {
        tags[i] = GetLbTag<CongaTag>(feedback(10 + i)).fbTag;
    }
    CHECK(tags == std::array<int, 8>{4, 5, 6, 7, 4, 5, 6, 7});
    for (uint16_t k = 0; k < 4; ++k)
    {
        CHECK(src->GetRemoteMetric(kLeaf1, static_cast<uint16_t>(4 + k), MicroSeconds(20)) ==
              src->Quantise(util[k]));
    }
    // Path 6's congestion changes: it is fed back next, out of turn.
    auto six = Candidates(1, {}, 6);
    Carry(src, spine, dst, Flow(0, 4, 50002), 30, kLeaf0, kLeaf1, six, 0.0, 0.95);
    const CongaTag r = GetLbTag<CongaTag>(feedback(40));
    CHECK(r.fbTag == 6);
    CHECK(r.fbMetric == 7);
}

TEST_CASE("CONGA ties prefer the flowlet's previous port, then random", "[unit][conga]")
{
    auto lb = Conga(MicroSeconds(1));
    lb->AssignStreams(9);
    auto c = Candidates(4, {}, 10);
    LbContext ctx = Ctx(0, kLeaf0, kLeaf0, 3);
    const FrameMeta f = Flow(0, 8, 50000);
    const uint32_t first = Pick(lb, ctx, f, c);
    for (int k = 1; k < 100; ++k)
    {
        ctx.now = MicroSeconds(10 * k); // every packet a new flowlet, all paths idle: stay
        CHECK(Pick(lb, ctx, f, c) == first);
    }
    // Distinct flows spread uniformly over equally good paths.
    std::array<int, 4> n{};
    for (uint32_t k = 0; k < 4000; ++k)
    {
        ++n[Pick(lb, ctx, Flow(k, 9, static_cast<uint16_t>(k)), c)];
    }
    for (int x : n)
    {
        CHECK(x == Approx(1000).margin(120));
    }
}

} // namespace TUSK_TEST_FILE
