// Where the switch decides an ECN mark: at enqueue, on the queue in front of the frame (tusk's
// default, DCQCN's congestion point), or at dequeue, on the bytes still queued behind it (the
// HPCC simulator's switch: switch-node.cc SwitchNotifyDequeue and switch-mmu.cc ShouldSendCN;
// `[ecn] mark_at_dequeue`).
//
// Two senders at 100 Gb/s into one 100 Gb/s port of a single switch, all starting at once: the
// queue grows at 100 Gb/s. With a step at K (Kmin = K, Pmax reached 1 kB above it), the first
// mark falls when the queue passes K, at t_K = K / 100 Gb/s after the queue starts:
//  - at enqueue it goes on the frame arriving then, which still waits out the K bytes in front
//    of it: it leaves at about 2 t_K;
//  - at dequeue it goes on the frame leaving then, at about t_K; that frame arrived when the
//    queue was K/2, so its PSN is about half the other's.
// So the first ECN-echoing ACK comes K / C = 8 us earlier with K = 100 kB, and carries a PSN
// about half as large. Numbers from that arithmetic; the bands cover a frame or two of rounding.

#include "run-helpers.h"

#include "rdma/model/rdma-nic.h"

#include "ns3/simulator.h"

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;
using namespace ns3;

namespace
{

struct FirstMark
{
    double timeUs = -1;
    uint64_t psn = 0;
};

FirstMark
RunTwoSenders(bool atDequeue)
{
    auto spec = LeafSpine(1, 1, 3, 100, 1000);
    spec.nic.congestionControl = "dcqcn";
    spec.nic.mtuBytes = 1000;
    spec.dcqcn.preset = "hpcc";
    spec.ecn.enabled = true;
    spec.ecn.markAtDequeue = atDequeue;
    spec.ecn.fallback.kminBytes = 100'000;
    spec.ecn.fallback.kmaxBytes = 101'000;
    spec.ecn.fallback.pmax = 1.0;
    AddFlow(spec, 0, 2, 1'000'000);
    AddFlow(spec, 1, 2, 1'000'000);
    FirstMark first;
    tusk::RunOptions o;
    o.beforeRun = [&](Fabric&, const std::vector<Ptr<RdmaNic>>& nics) {
        for (uint32_t h = 0; h < 2; ++h)
        {
            nics[h]->TraceConnectWithoutContext(
                "QpCreated", Callback<void, Ptr<RdmaQueuePair>>([&](Ptr<RdmaQueuePair> qp) {
                    qp->TraceConnectWithoutContext(
                        "PacketAcked", Callback<void, uint64_t, uint16_t, bool, Time>(
                                           [&](uint64_t psn, uint16_t, bool ecn, Time) {
                                               if (ecn && first.timeUs < 0)
                                               {
                                                   first.timeUs =
                                                       Simulator::Now().GetSeconds() * 1e6;
                                                   first.psn = psn;
                                               }
                                           }));
                }));
        }
    };
    const auto r = Run(spec, o);
    REQUIRE(r.finished);
    return first;
}

} // namespace

TEST_CASE("ECN marked at dequeue reaches the sender K / C earlier, on a frame half as deep",
          "[component][ecn][dcqcn]")
{
    const FirstMark enq = RunTwoSenders(false);
    const FirstMark deq = RunTwoSenders(true);
    REQUIRE(enq.timeUs > 0);
    REQUIRE(deq.timeUs > 0);
    INFO("first ECN echo: at enqueue " << enq.timeUs << " us (PSN " << enq.psn
                                       << "), at dequeue " << deq.timeUs << " us (PSN "
                                       << deq.psn << ")");
    const double kOverCUs = 100'000 * 8 / 100e9 * 1e6; // 8 us
    CHECK(enq.timeUs - deq.timeUs == Approx(kOverCUs).margin(1.0));
    CHECK(static_cast<double>(enq.psn) / static_cast<double>(deq.psn) == Approx(2.0).epsilon(0.15));
}

} // namespace TUSK_TEST_FILE
