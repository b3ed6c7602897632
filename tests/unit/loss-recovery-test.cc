// The responder half of the RC QP with each loss recovery, alone, no Simulator: what is
// accepted, delivered and answered for a given arrival order. Go-back-N (IBA Vol. 1 9.7.5:
// one NAK per ePSN, out-of-order packets discarded), IRN-style selective repeat (Mittal et al.,
// SIGCOMM 2018: placement and a NAK with the PSN that arrived) and UEC-style RUD (a 64-bit SACK
// bitmap from ePSN, or ending at the arrival when it is 64 or more ahead). The requester half
// is covered on a tiny fabric (tests/component/go-back-n-test.cc, selective-repeat-test.cc).

#include "rdma/model/loss-recovery/rdma-loss-recovery.h"
#include "rdma/model/rdma-responder.h"
#include "rdma/model/headers/roce-header.h"
#include "rdma/model/loss-recovery/selective-repeat-recovery.h"
#include "rdma/model/loss-recovery/uec-rud-recovery.h"

#include "ns3/config.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

/** A responder with its own counters and trace sources, recording what it delivers. */
struct Responder
{
    explicit Responder(Ptr<RdmaLossRecovery> r, uint32_t messages = 1)
        : recovery(r)
    {
        RdmaResponder::Traces t;
        t.delivered = &delivered;
        t.nakSent = &nakSent;
        delivered.ConnectWithoutContext(Callback<void, uint64_t, uint32_t>(
            [this](uint64_t psn, uint32_t) { deliveredPsns.push_back(psn); }));
        resp.Setup(recovery, &counters, t, 1, 2);
        for (uint32_t m = 0; m < messages; ++m)
        {
            resp.PostReceive(m);
        }
    }

    /** Packet `psn` of a message of `packets` packets starting at PSN `first`. */
    RxAnswer Arrive(uint64_t psn, uint64_t first = 0, uint64_t packets = 1000)
    {
        const uint64_t i = psn - first;
        const uint8_t op = packets == 1            ? ROCE_RC_SEND_ONLY
                           : i == 0                ? ROCE_RC_SEND_FIRST
                           : i + 1 == packets      ? ROCE_RC_SEND_LAST
                                                   : ROCE_RC_SEND_MIDDLE;
        return resp.ReceiveData(Psn24(psn), op, i + 1 == packets, 1000, false);
    }

    Ptr<RdmaLossRecovery> recovery;
    QpCounters counters;
    TracedCallback<uint64_t, uint32_t> delivered;
    TracedCallback<uint64_t, bool> nakSent;
    std::vector<uint64_t> deliveredPsns;
    RdmaResponder resp;
};

bool
IsAck(const RxAnswer& a, uint32_t psn)
{
    return a.send && a.ack.kind == RdmaAck::ACK && a.ack.psn24 == psn;
}

bool
IsNak(const RxAnswer& a, uint32_t psn)
{
    return a.send && a.ack.kind == RdmaAck::NAK && a.ack.psn24 == psn;
}

} // namespace

TEST_CASE("go-back-N responder: one NAK per ePSN, out-of-order packets discarded",
          "[unit][gbn][loss-recovery]")
{
    Responder r(CreateObject<GoBackNRecovery>());
    CHECK(IsAck(r.Arrive(0), 0));
    CHECK(IsAck(r.Arrive(1), 1));
    const RxAnswer nak = r.Arrive(3); // 2 lost
    CHECK(IsNak(nak, 2));
    CHECK(nak.outOfOrder);
    CHECK(nak.ack.sack == RdmaAck::NO_SACK);
    CHECK_FALSE(r.Arrive(4).send); // the NAK for ePSN 2 was sent: silence
    CHECK_FALSE(r.Arrive(5).send);
    CHECK(IsAck(r.Arrive(2), 2)); // the resend from the hole
    CHECK(IsAck(r.Arrive(3), 3)); // ... and what followed it, again
    CHECK(IsNak(r.Arrive(5), 4)); // a new ePSN gets its own NAK
    CHECK(r.deliveredPsns == std::vector<uint64_t>{0, 1, 2, 3});
    CHECK(r.counters.oooPackets == 4);
    CHECK(r.counters.naksSent == 2);
    CHECK(r.counters.reorderMax == 3); // PSN 5 while ePSN was 2
    CHECK(r.recovery->GetReorderBufferBytes() == 0);
    CHECK(IsAck(r.Arrive(1), 3)); // a duplicate is re-acknowledged
    CHECK(r.counters.duplicatePackets == 1);
}

TEST_CASE("go-back-N responder: a last packet that overtakes the one before it is NAKed on its "
          "arrival, and a second overtaking for the same ePSN is silent",
          "[unit][gbn][loss-recovery]")
{
    // The responder's PSN check of the Linux soft-RoCE driver (rxe_resp.c, check_psn): the
    // first packet beyond ePSN answers a PSN sequence error NAK and sets sent_psn_nak; later
    // ones are dropped silently until ePSN arrives, which clears it. A message of 4 packets.
    Responder r(CreateObject<GoBackNRecovery>());
    CHECK(IsAck(r.Arrive(0, 0, 4), 0));
    CHECK(IsAck(r.Arrive(1, 0, 4), 1));
    CHECK(IsNak(r.Arrive(3, 0, 4), 2)); // the last packet first: the NAK for 2 now, no timer
    CHECK(IsAck(r.Arrive(2, 0, 4), 2)); // the late packet itself
    CHECK(r.deliveredPsns == std::vector<uint64_t>{0, 1, 2});
    // The requester's resend of 2 and 3 (go-back-N from the NAK's PSN): 2 is a duplicate, 3
    // completes the message.
    CHECK(IsAck(r.Arrive(2, 0, 4), 2));
    CHECK(IsAck(r.Arrive(3, 0, 4), 3));
    CHECK(r.deliveredPsns == std::vector<uint64_t>{0, 1, 2, 3});

    // The case that waits for the timer: a NAK for ePSN is already out, and the requester's
    // resend of the last packet overtakes its resend of the missing one (another path).
    // Message 2 of the QP: PSNs 4..7.
    Responder s(CreateObject<GoBackNRecovery>(), 2);
    for (uint64_t p = 0; p < 4; ++p)
    {
        s.Arrive(p, 0, 4);
    }
    CHECK(IsAck(s.Arrive(4, 4, 4), 4));
    CHECK(IsNak(s.Arrive(6, 4, 4), 5)); // 5 is late: NAK(5), sent_psn_nak set
    CHECK_FALSE(s.Arrive(7, 4, 4).send); // the last packet, behind the same ePSN: silent
    // The requester goes back to 5 and resends 5, 6, 7; the resent 7 arrives first.
    CHECK_FALSE(s.Arrive(7, 4, 4).send); // still ePSN 5 with its NAK out: silent, discarded
    CHECK(IsAck(s.Arrive(5, 4, 4), 5));
    CHECK(IsAck(s.Arrive(6, 4, 4), 6));
    // ePSN is 7 and nothing more comes: no NAK can be sent, only the requester's timer resends
    // 7 (rxe and tusk alike).
    CHECK(s.deliveredPsns == std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6});
    CHECK(s.counters.naksSent == 1);
    CHECK(IsAck(s.Arrive(7, 4, 4), 7)); // the timer's resend completes the message
}

// A duplicate that arrives after its message was delivered was counted for
// the next message on the QP (or for none), so a flow's spurious_retx undercounted.
TEST_CASE("go-back-N responder: a duplicate counts for the message it belongs to, also after "
          "that message was delivered",
          "[unit][gbn][loss-recovery]")
{
    Responder r(CreateObject<GoBackNRecovery>(), 2);
    std::vector<std::pair<uint64_t, uint64_t>> done; // (cookie, duplicates in its stats)
    std::vector<uint64_t> late;                       // cookies of late duplicates
    r.resp.SetRecvCallback(RdmaResponder::RecvCallback(
        [&](uint64_t cookie, const RecvMessageStats& s) {
            done.emplace_back(cookie, s.duplicatePackets);
        }));
    r.resp.SetLateDuplicateCallback(
        RdmaResponder::LateDuplicateCallback([&](uint64_t cookie) { late.push_back(cookie); }));
    // Message 0: PSNs 0..2; message 1: PSNs 3..5.
    for (uint64_t psn : {0, 1, 2})
    {
        CHECK(r.Arrive(psn, 0, 3).send);
    }
    REQUIRE(done == std::vector<std::pair<uint64_t, uint64_t>>{{0, 0}});
    CHECK(IsAck(r.Arrive(1, 0, 3), 2)); // late duplicate of message 0 (a timeout resend)
    CHECK(IsAck(r.Arrive(2, 0, 3), 2));
    CHECK(late == std::vector<uint64_t>{0, 0});
    r.Arrive(3, 3, 3);
    CHECK(IsAck(r.Arrive(3, 3, 3), 3)); // duplicate while message 1 is in progress
    CHECK(IsAck(r.Arrive(0, 0, 3), 3)); // ... and one of message 0 again
    r.Arrive(4, 3, 3);
    r.Arrive(5, 3, 3);
    CHECK(done == std::vector<std::pair<uint64_t, uint64_t>>{{0, 0}, {1, 1}});
    CHECK(late == std::vector<uint64_t>{0, 0, 0});
    CHECK(IsAck(r.Arrive(5, 3, 3), 5));
    CHECK(late == std::vector<uint64_t>{0, 0, 0, 1});
    CHECK(r.counters.duplicatePackets == 5); // the QP's total: every duplicate, once
}

TEST_CASE("selective-repeat responder: places out-of-order packets, SACKs each, delivers in "
          "order when the hole fills",
          "[unit][selective-repeat][loss-recovery]")
{
    Responder r(CreateObject<SelectiveRepeatRecovery>());
    CHECK(IsAck(r.Arrive(0), 0));
    for (uint64_t psn : {2, 3})
    {
        const RxAnswer a = r.Arrive(psn);
        CHECK(IsNak(a, 1)); // cumulative point: ePSN 1
        CHECK(a.ack.sack == RdmaAck::SACK_PSN);
        CHECK(a.ack.sackPsn24 == psn);
    }
    CHECK(r.recovery->GetReorderBufferBytes() == 2000);
    CHECK(r.deliveredPsns == std::vector<uint64_t>{0});
    CHECK(IsAck(r.Arrive(3), 0));  // held already: a duplicate, re-ACKed at ePSN - 1
    CHECK(IsAck(r.Arrive(1), 3));  // fills the hole: 1, 2, 3 delivered, one ACK
    CHECK(r.deliveredPsns == std::vector<uint64_t>{0, 1, 2, 3});
    CHECK(r.recovery->GetReorderBufferBytes() == 0);
    CHECK(r.counters.reorderBufferMaxBytes == 2000);
    CHECK(r.counters.sacksSent == 2);
    CHECK(r.counters.duplicatePackets == 1);
    // Beyond the window (1024 packets): a NAK without SACK, nothing kept.
    const RxAnswer far = r.Arrive(4 + 1024);
    CHECK(IsNak(far, 4));
    CHECK(far.ack.sack == RdmaAck::NO_SACK);
    CHECK(r.counters.beyondWindow == 1);
}

TEST_CASE("UEC RUD responder: the SACK bitmap starts at ePSN, or ends at a far arrival",
          "[unit][uec][sack][loss-recovery]")
{
    Responder r(CreateObject<UecRudRecovery>());
    CHECK(IsAck(r.Arrive(0), 0));
    r.Arrive(2);
    const RxAnswer a = r.Arrive(5);
    CHECK(IsNak(a, 1));
    REQUIRE(a.ack.sack == RdmaAck::SACK_BITMAP);
    CHECK(a.ack.sackBase24 == 1);
    CHECK(a.ack.sackBits == ((uint64_t{1} << 1) | (uint64_t{1} << 4))); // PSNs 2 and 5
    // 70 ahead of ePSN 1: the bitmap ends at the arrival (base 71 - 63 = 8), so PSNs 2 and 5
    // fall outside it and the new arrival is its last bit.
    const RxAnswer b = r.Arrive(71);
    CHECK(b.ack.sackBase24 == 8);
    CHECK(b.ack.sackBits == uint64_t{1} << 63);
}

TEST_CASE("trimmed arrivals: a trim NACK for a missing PSN, none for a copy already here",
          "[unit][trim][loss-recovery]")
{
    Responder g(CreateObject<GoBackNRecovery>());
    g.Arrive(0);
    const RxAnswer t = g.resp.ReceiveTrimmed(Psn24(3));
    CHECK(t.send);
    CHECK(t.ack.kind == RdmaAck::TRIM_NAK);
    CHECK(t.ack.psn24 == 3);
    CHECK_FALSE(g.resp.ReceiveTrimmed(Psn24(0)).send); // delivered already
    CHECK(g.counters.trimmedReceived == 2);
    CHECK(g.counters.naksSent == 1);

    Responder s(CreateObject<SelectiveRepeatRecovery>());
    s.Arrive(0);
    s.Arrive(2);
    CHECK_FALSE(s.resp.ReceiveTrimmed(Psn24(2)).send); // held out of order
    CHECK(s.resp.ReceiveTrimmed(Psn24(1)).ack.kind == RdmaAck::TRIM_NAK);
}

TEST_CASE("UEC RUD takes selective repeat's attributes and their defaults, and its window",
          "[unit][uec][loss-recovery]")
{
    // `[ns3] "ns3::SelectiveRepeatRecovery::Window"` must reach RUD QPs too (rdma.md).
    UintegerValue saved;
    auto probe = CreateObject<SelectiveRepeatRecovery>();
    probe->GetAttribute("Window", saved);
    CHECK(saved.Get() == 1024);
    Config::SetDefault("ns3::SelectiveRepeatRecovery::Window", UintegerValue(8));
    auto rud = CreateObject<UecRudRecovery>();
    Config::SetDefault("ns3::SelectiveRepeatRecovery::Window", saved);
    UintegerValue w;
    rud->GetAttribute("Window", w);
    CHECK(w.Get() == 8);
    CHECK(rud->OutstandingLimit(0) == 8);  // the requester's limit
    CHECK(rud->OutstandingLimit(5) == 5);  // or the NIC's, if smaller
    CHECK(CreateObject<GoBackNRecovery>()->OutstandingLimit(0) == 0); // none
    Responder r(rud);
    r.Arrive(0);
    CHECK(r.Arrive(8).ack.sack == RdmaAck::SACK_BITMAP); // 7 ahead of ePSN 1: in the window
    CHECK(r.Arrive(9).ack.sack == RdmaAck::NO_SACK);     // 8 ahead: beyond it
    CHECK(r.counters.beyondWindow == 1);
}

} // namespace TUSK_TEST_FILE
