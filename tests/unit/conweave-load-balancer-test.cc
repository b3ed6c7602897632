// ConWeave's two state machines alone (Song et al., "Network Load Balancing with In-network
// Reordering Support for RDMA", SIGCOMM 2023, section 3): one policy instance plays the source
// ToR, another the destination ToR, frames and control frames are handed over by hand, and
// time is a fake clock (LbContext.now; the reorder queues' timers are FlushDue calls). No
// Simulator.

#include "lb-policies/switch/conweave-load-balancer.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"

#include "lb-test-helpers.h"

#include <catch2/catch.hpp>

#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;
using namespace tusk_test;

namespace
{

// Two ToRs (switch ids 0 and 1), hosts 0..3 under ToR 0 and 4..7 under ToR 1, 4 uplinks on
// ports 4..7. θ_reply = 8 + 4 us (defaults), θ_path_busy = 8 us, resume margin 32 us.
constexpr uint32_t kSrc = 0;
constexpr uint32_t kDst = 1;

Ptr<ConWeaveLoadBalancer>
ConWeave()
{
    auto lb = CreateObject<ConWeaveLoadBalancer>();
    // The artifact program's built-in values (its run.py overrides them for leaf-spines; the
    // attributes' defaults are those), so that the test's times are the paper's mechanism.
    lb->SetAttribute("PathBusyTime", TimeValue(MicroSeconds(8)));
    lb->SetAttribute("ResumeMargin", TimeValue(MicroSeconds(32)));
    lb->SetAttribute("DefaultResumeTime", TimeValue(MicroSeconds(500)));
    lb->SetAttribute("InactiveTime", TimeValue(MilliSeconds(1)));
    lb->AssignStreams(1);
    return lb;
}

LbContext
Ctx(double us, uint32_t at, bool fromHost)
{
    LbContext c = At(us, at);
    c.fromHost = fromHost;
    c.srcEdge = kSrc;
    c.dstEdge = kDst;
    return c;
}

/** The source ToR forwards a data frame of `f` at `us`: returns the frame as tagged. */
FrameMeta
Send(Ptr<ConWeaveLoadBalancer> src, FrameMeta f, double us, uint16_t* port = nullptr)
{
    auto up = Candidates(4, {}, 4);
    const LbContext c = Ctx(us, kSrc, true);
    src->FrameArrived(c, f);
    const EgressCandidate& chosen = up[Pick(src, c, f, up)];
    src->FrameLeaving(c, f, chosen);
    if (port != nullptr)
    {
        *port = chosen.port;
    }
    return f;
}

/** A control frame (from the destination ToR) reaches the source ToR at `us`. */
bool
Deliver(Ptr<ConWeaveLoadBalancer> src, FrameMeta control, double us)
{
    LbContext c = At(us, kSrc);
    c.srcEdge = kDst; // the control frame goes from a host of ToR 1 to one of ToR 0
    c.dstEdge = kSrc;
    src->FrameArrived(c, control);
    return src->ConsumeFrame(c, control);
}

/** A data frame arrives at the destination ToR at `us`; true if it went to a reorder queue. */
bool
Arrive(Ptr<ConWeaveLoadBalancer> dst, FrameMeta f, double us)
{
    const LbContext c = Ctx(us, kDst, false);
    dst->FrameArrived(c, f);
    REQUIRE_FALSE(dst->ConsumeFrame(c, f));
    const bool held = dst->HoldFrame(c.now, 4, 0, Create<Packet>(1000), f);
    CHECK(GetLbTag<ConWeaveTag>(f).type == ConWeaveTag::NONE); // stripped for the host
    CHECK(GetLbTag<ConWeaveTag>(f).bits == 0);
    return held;
}

/** Frame number `psn` of flow 0 -> 4 as the source ToR would tag it (bypassing its logic). */
FrameMeta
Tagged(ConWeaveTag::Type type, uint8_t epoch, uint8_t phase, uint32_t stampNs, uint64_t psn = 0)
{
    FrameMeta f = Flow(0, 4, 1000);
    f.psn = psn;
    ConWeaveTag t{};
    t.type = type;
    t.epoch = epoch;
    t.bits = phase ? ConWeaveTag::kPhase1 : 0;
    t.path = 4;
    t.stampNs = stampNs;
    SetLbTag(f, t);
    return f;
}

/** Records the control frames a destination ToR sends. */
struct ControlLog
{
    std::vector<FrameMeta> frames;
    void Add(const FrameMeta& m) { frames.push_back(m); }
    ConWeaveTag Tag(size_t i) const { return GetLbTag<ConWeaveTag>(frames.at(i)); }
};

/** Records the order in which held frames leave their queues (by PSN). */
struct ReleaseLog
{
    std::vector<uint64_t> psns;
    std::vector<bool> byTimeout;
    void Add(const FrameMeta& m, bool timeout)
    {
        psns.push_back(m.psn);
        byTimeout.push_back(timeout);
    }
};

} // namespace

TEST_CASE("ConWeave source ToR: a timely RTT_REPLY keeps the path and starts the next epoch",
          "[unit][conweave]")
{
    auto src = ConWeave();
    auto dst = ConWeave();
    ControlLog control;
    dst->TraceConnectWithoutContext("Control", MakeCallback(&ControlLog::Add, &control));
    uint16_t first = 0;
    FrameMeta f = Send(src, Flow(0, 4, 1000), 0, &first);
    ConWeaveTag t = GetLbTag<ConWeaveTag>(f);
    CHECK(t.type == ConWeaveTag::RTT_REQUEST); // the first frame of an epoch probes
    CHECK(t.epoch == 1);
    CHECK(t.Phase() == 0);
    CHECK(t.path == first);
    CHECK(t.stampNs == 0);
    CHECK_FALSE(Arrive(dst, f, 2));
    REQUIRE(control.frames.size() == 1);
    CHECK(control.frames[0].kind == FrameKind::LB_CONTROL);
    CHECK(control.frames[0].srcHost == 4); // back to the source host's ToR
    CHECK(control.frames[0].dstHost == 0);
    CHECK(control.Tag(0).type == ConWeaveTag::RTT_REPLY);
    CHECK(control.Tag(0).epoch == 1);
    // Frames before the reply are plain DATA of epoch 1 on the same path.
    uint16_t port = 0;
    t = GetLbTag<ConWeaveTag>(Send(src, Flow(0, 4, 1000), 3, &port));
    CHECK(t.type == ConWeaveTag::DATA);
    CHECK(port == first);
    CHECK(Deliver(src, control.frames[0], 5)); // consumed, 5 us < θ_reply = 12 us
    CHECK(src->GetRepliesInTime() == 1);
    t = GetLbTag<ConWeaveTag>(Send(src, Flow(0, 4, 1000), 20, &port));
    CHECK(t.type == ConWeaveTag::RTT_REQUEST);
    CHECK(t.epoch == 2);
    CHECK(port == first);
    CHECK(src->GetReroutes() == 0);
    CHECK(src->GetTails() == 0);
    CHECK(src->GetRttRequests() == 2);
}

TEST_CASE("ConWeave source ToR: a late reply makes the next frame the TAIL and moves the flow "
          "once per epoch",
          "[unit][conweave]")
{
    auto src = ConWeave();
    uint16_t first = 0;
    Send(src, Flow(0, 4, 1000), 0, &first); // RTT_REQUEST; its reply never comes
    uint16_t port = 0;
    ConWeaveTag t = GetLbTag<ConWeaveTag>(Send(src, Flow(0, 4, 1000), 11.9, &port));
    CHECK(t.type == ConWeaveTag::DATA); // before θ_reply = 12 us
    CHECK(port == first);
    t = GetLbTag<ConWeaveTag>(Send(src, Flow(0, 4, 1000), 12.5, &port));
    CHECK(t.type == ConWeaveTag::TAIL); // the last frame on the old path
    CHECK(t.Phase() == 0);
    CHECK(t.stampNs == 12500);
    CHECK(port == first);
    CHECK(src->GetTails() == 1);
    REQUIRE(src->GetReroutes() == 1);
    uint16_t moved = 0;
    t = GetLbTag<ConWeaveTag>(Send(src, Flow(0, 4, 1000), 13, &moved));
    CHECK(t.type == ConWeaveTag::DATA);
    CHECK(t.Phase() == 1);
    CHECK(t.stampNs == 12500); // phase 1 frames carry the TAIL's send time
    CHECK(t.epoch == 1);
    CHECK(moved != first);
    // No reply, no CLEAR: no second reroute in this epoch, however late.
    for (double us = 20; us < 900; us += 10)
    {
        t = GetLbTag<ConWeaveTag>(Send(src, Flow(0, 4, 1000), us, &port));
        CHECK(port == moved);
        CHECK(t.Phase() == 1);
    }
    CHECK(src->GetReroutes() == 1);
    // The CLEAR ends the epoch: the next frame probes again, phase 0, on the new path.
    auto dst = ConWeave();
    ControlLog control;
    dst->TraceConnectWithoutContext("Control", MakeCallback(&ControlLog::Add, &control));
    Arrive(dst, Tagged(ConWeaveTag::TAIL, 1, 0, 12500), 900);
    REQUIRE(control.frames.size() == 1);
    CHECK(control.Tag(0).type == ConWeaveTag::CLEAR);
    CHECK(Deliver(src, control.frames[0], 901));
    CHECK(src->GetClears() == 1);
    t = GetLbTag<ConWeaveTag>(Send(src, Flow(0, 4, 1000), 902, &port));
    CHECK(t.type == ConWeaveTag::RTT_REQUEST);
    CHECK(t.epoch == 2);
    CHECK(t.Phase() == 0);
    CHECK(port == moved);
}

TEST_CASE("ConWeave source ToR: NOTIFY marks a path busy for θ_path_busy and reroutes avoid it",
          "[unit][conweave]")
{
    auto src = ConWeave();
    auto dst = ConWeave();
    ControlLog control;
    dst->TraceConnectWithoutContext("Control", MakeCallback(&ControlLog::Add, &control));
    // A CE-marked frame on each of ports 5, 6, 7 makes the destination send three NOTIFYs.
    for (uint8_t p = 5; p <= 7; ++p)
    {
        FrameMeta f = Tagged(ConWeaveTag::DATA, 1, 0, 0, 100 + p);
        ConWeaveTag t = GetLbTag<ConWeaveTag>(f);
        t.path = p;
        SetLbTag(f, t);
        f.ecn = ECN_CE;
        Arrive(dst, f, 1);
    }
    REQUIRE(control.frames.size() == 3);
    for (size_t i = 0; i < 3; ++i)
    {
        CHECK(control.Tag(i).type == ConWeaveTag::NOTIFY);
        CHECK(control.Tag(i).path == 5 + i);
        CHECK(Deliver(src, control.frames[i], 2));
    }
    CHECK(src->GetNotifies() == 3);
    CHECK(src->IsPathBusy(kDst, 5, MicroSeconds(9)));
    CHECK_FALSE(src->IsPathBusy(kDst, 5, MicroSeconds(10))); // 2 + 8 us
    CHECK_FALSE(src->IsPathBusy(kDst, 4, MicroSeconds(3)));
    // Flows that start now avoid the three busy uplinks whenever a sample finds port 4; all
    // flows whose reply is late keep their path when every other uplink is busy.
    int onFour = 0;
    for (uint16_t sport = 1; sport <= 50; ++sport)
    {
        uint16_t port = 0;
        Send(src, Flow(0, 4, sport), 2.5, &port);
        onFour += port == 4;
    }
    // Each new flow samples two uplinks: P(neither is port 4) = (3/4)^2, then a random one.
    CHECK(onFour > 50 * (1 - 9.0 / 16) * 0.8);
    uint64_t stayed = 0;
    for (uint16_t sport = 1; sport <= 50; ++sport)
    {
        // Busy again (until 22 us), then the reply deadline (2.5 + 12 us) passes: the next
        // frame is a TAIL on the old uplink, the one after takes a new uplink if a sample
        // finds one not busy: only port 4 is.
        for (size_t i = 0; i < 3; ++i)
        {
            Deliver(src, control.frames[i], 14);
        }
        uint16_t old = 0;
        Send(src, Flow(0, 4, sport), 14.4, &old);
        uint16_t tail = 0;
        CHECK(GetLbTag<ConWeaveTag>(Send(src, Flow(0, 4, sport), 14.6, &tail)).type ==
              ConWeaveTag::TAIL);
        CHECK(tail == old);
        uint16_t after = 0;
        Send(src, Flow(0, 4, sport), 14.7, &after);
        stayed += after == old;
        CHECK((after == old || after == 4));
    }
    CHECK(src->GetTails() == 50);
    CHECK(stayed >= static_cast<uint64_t>(onFour)); // those on port 4 had nowhere to go
}

TEST_CASE("ConWeave destination ToR: new-path frames wait for the TAIL and leave behind it in "
          "order",
          "[unit][conweave]")
{
    auto dst = ConWeave();
    ReleaseLog released;
    dst->TraceConnectWithoutContext("Released", MakeCallback(&ReleaseLog::Add, &released));
    // Epoch 1: old-path frames sent at 0, 1, 2 us; the TAIL at 3 us; new-path frames behind.
    CHECK_FALSE(Arrive(dst, Tagged(ConWeaveTag::RTT_REQUEST, 1, 0, 0, 1), 10));
    CHECK_FALSE(Arrive(dst, Tagged(ConWeaveTag::DATA, 1, 0, 1000, 2), 11));
    CHECK(Arrive(dst, Tagged(ConWeaveTag::DATA, 1, 1, 3000, 11), 12)); // overtook: held
    CHECK(Arrive(dst, Tagged(ConWeaveTag::DATA, 1, 1, 3000, 12), 12.5));
    CHECK(dst->GetActiveQueues() == 1);
    CHECK(dst->GetHeldBytes() == 2000);
    CHECK_FALSE(Arrive(dst, Tagged(ConWeaveTag::DATA, 1, 0, 2000, 3), 13)); // old path: passes
    CHECK(dst->FlushDue(MicroSeconds(14)) == 0);
    CHECK(Arrive(dst, Tagged(ConWeaveTag::TAIL, 1, 0, 3000, 4), 14)); // taken, to go first
    REQUIRE(released.psns == std::vector<uint64_t>{11, 12});
    CHECK(released.byTimeout == std::vector<bool>{false, false});
    CHECK(dst->GetHeldFrames() == 2);
    CHECK(dst->GetHeldBytes() == 0);
    CHECK(dst->GetPeakHeldBytes() == 2000);
    CHECK(dst->GetActiveQueues() == 0);
    CHECK(dst->GetFlushesByTail() == 1);
    CHECK(dst->GetFlushesByTimeout() == 0);
    CHECK_FALSE(Arrive(dst, Tagged(ConWeaveTag::DATA, 1, 1, 3000, 13), 15)); // in order now
    CHECK(dst->GetHeldFrames() == 2);
    CHECK(dst->GetLateOldPathFrames() == 0);
}

TEST_CASE("ConWeave destination ToR: a missing TAIL releases the queue at its predicted arrival "
          "plus θ_resume",
          "[unit][conweave]")
{
    auto dst = ConWeave();
    ReleaseLog released;
    dst->TraceConnectWithoutContext("Released", MakeCallback(&ReleaseLog::Add, &released));
    // The last old-path frame was sent at 0 and arrived at 10 us; the TAIL was sent at 5 us,
    // so it should arrive at 15 us; with the 32 us margin the queue waits until 47 us.
    CHECK_FALSE(Arrive(dst, Tagged(ConWeaveTag::RTT_REQUEST, 1, 0, 0, 1), 10));
    CHECK(Arrive(dst, Tagged(ConWeaveTag::DATA, 1, 1, 5000, 11), 12));
    CHECK(Arrive(dst, Tagged(ConWeaveTag::DATA, 1, 1, 5000, 12), 13));
    CHECK(dst->FlushDue(NanoSeconds(46900)) == 0);
    CHECK(dst->FlushDue(MicroSeconds(47)) == 2);
    CHECK(released.psns == std::vector<uint64_t>{11, 12});
    CHECK(released.byTimeout == std::vector<bool>{true, true});
    CHECK(dst->GetFlushesByTimeout() == 1);
    CHECK(dst->GetTimeoutReleasedFrames() == 2);
    // After the timeout the epoch is in phase 1: new-path frames pass, and the TAIL, when it
    // finally comes, is late (it reaches the host behind newer frames).
    CHECK_FALSE(Arrive(dst, Tagged(ConWeaveTag::DATA, 1, 1, 5000, 13), 50));
    CHECK_FALSE(Arrive(dst, Tagged(ConWeaveTag::TAIL, 1, 0, 5000, 2), 60));
    CHECK(dst->GetLateOldPathFrames() == 1);
    CHECK(dst->GetFlushesByTail() == 0);
}

TEST_CASE("ConWeave destination ToR: an old-path frame still arriving pushes the deadline, and "
          "with no old-path frame seen the wait is DefaultResumeTime",
          "[unit][conweave]")
{
    auto dst = ConWeave();
    CHECK_FALSE(Arrive(dst, Tagged(ConWeaveTag::RTT_REQUEST, 1, 0, 0, 1), 10));
    CHECK(Arrive(dst, Tagged(ConWeaveTag::DATA, 1, 1, 5000, 11), 12)); // deadline 47 us
    // An old-path frame sent at 2 us arrives at 40 us: the old path got slower, the TAIL
    // (sent 3 us later) is now expected at 43 us, the release at 75 us.
    CHECK_FALSE(Arrive(dst, Tagged(ConWeaveTag::DATA, 1, 0, 2000, 2), 40));
    CHECK(dst->FlushDue(NanoSeconds(74900)) == 0);
    CHECK(dst->FlushDue(MicroSeconds(75)) == 1);

    // A flow whose first frame here is of phase 1 (its old path is slower than its whole
    // phase 0): no timing information, so DefaultResumeTime (500 us) + 32 us.
    auto dst2 = ConWeave();
    CHECK(Arrive(dst2, Tagged(ConWeaveTag::DATA, 1, 1, 5000, 11), 100));
    CHECK(dst2->FlushDue(NanoSeconds(631900)) == 0);
    CHECK(dst2->FlushDue(MicroSeconds(632)) == 1);
}

TEST_CASE("ConWeave destination ToR: frames of an earlier epoch pass, a new epoch releases "
          "what is held first",
          "[unit][conweave]")
{
    auto dst = ConWeave();
    ReleaseLog released;
    dst->TraceConnectWithoutContext("Released", MakeCallback(&ReleaseLog::Add, &released));
    CHECK_FALSE(Arrive(dst, Tagged(ConWeaveTag::RTT_REQUEST, 7, 0, 0, 1), 10));
    CHECK(Arrive(dst, Tagged(ConWeaveTag::DATA, 7, 1, 5000, 11), 12));
    CHECK_FALSE(Arrive(dst, Tagged(ConWeaveTag::DATA, 6, 1, 0, 2), 13)); // epoch 6: passes
    CHECK(dst->GetHeldFrames() == 1);
    CHECK_FALSE(Arrive(dst, Tagged(ConWeaveTag::RTT_REQUEST, 8, 0, 20000, 3), 30));
    CHECK(released.psns == std::vector<uint64_t>{11});
    CHECK(dst->GetActiveQueues() == 0);
    // Epochs wrap modulo 256: 0 comes after 255.
    auto dst2 = ConWeave();
    CHECK_FALSE(Arrive(dst2, Tagged(ConWeaveTag::RTT_REQUEST, 255, 0, 0, 1), 10));
    CHECK(Arrive(dst2, Tagged(ConWeaveTag::DATA, 255, 1, 5000, 2), 11));
    CHECK_FALSE(Arrive(dst2, Tagged(ConWeaveTag::RTT_REQUEST, 0, 0, 9000, 3), 12));
    CHECK(dst2->GetActiveQueues() == 0);
    CHECK(dst2->GetFlushesByTimeout() == 1);
}

} // namespace TUSK_TEST_FILE
