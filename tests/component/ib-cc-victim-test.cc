// InfiniBand congestion control and a victim flow (IBA vol. 1, annex A10; oracle 29): in a
// 32-to-1 incast whose back-pressure reaches a spine-to-leaf link that a victim flow shares,
// FECN marks only at the root of congestion leave the victim flow at least as fast as credits
// alone do, while the incast's senders are still marked and throttled.

#include "run-helpers.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/model/switch-port.h"
#include "rdma/model/cc/ib-congestion-control.h"
#include "rdma/model/rdma-nic.h"
#include "rdma/model/rdma-queue-pair.h"

#include <map>
#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;
using namespace ns3;

namespace
{

constexpr uint32_t kIncastReceiver = 33; // the first host of leaf 1
constexpr uint32_t kVictimSender = 66;   // the first host of leaf 2
constexpr uint32_t kVictimReceiver = 34; // another host of leaf 1

/**
 * ib-cc with its own settings at their defaults (CCTI_Increase 1, CCT 20 ns per entry, timer
 * 10 us). The FECN threshold is IB's single threshold as a step: every frame that finds more
 * than 32 KB queued (a quarter of a 128 KiB VL buffer). `mask`: the EcnVictimMask attribute of
 * every switch port ("" = its default).
 */
void
UseIbCc(tusk::ScenarioSpec& spec, const std::string& mask)
{
    spec.nic.congestionControl = "ib-cc";
    spec.ecn.enabled = true;
    spec.ecn.fallback.kminBytes = 32'000;
    spec.ecn.fallback.kmaxBytes = 32'000;
    spec.ecn.fallback.pmax = 1.0;
    if (!mask.empty())
    {
        spec.ns3Defaults["ns3::SwitchPort::EcnVictimMask"] = mask;
    }
}

/** What one run of the incast with a victim flow shows. */
struct IncastRun
{
    double victimGbps = 0;
    uint64_t rootMarks = 0;            //!< FECN set at leaf 1's port to the incast's receiver
    uint64_t spineToLeaf1Marks = 0;    //!< FECN set at the spines' ports to leaf 1
    uint64_t spineToLeaf1Suppressed = 0; //!< marks those ports left out as victims
    uint32_t sendersWithBecn = 0;      //!< incast senders whose QP reacted to a BECN
    uint32_t sendersThrottled = 0;     //!< incast senders whose CCTI rose above 0
    uint32_t flowsWithFecn = 0;        //!< incast flows whose receiver saw a FECN mark
    uint64_t victimBecns = 0;          //!< BECNs the victim flow's sender reacted to
};

/**
 * 3 leaves of 33 hosts, 2 spines, hosts at 100 Gb/s, leaf-spine links at 400 Gb/s, 1 us:
 * hosts 0..31 (leaf 0) send 1 MB each to host 33 (leaf 1); host 66 (leaf 2) sends 1 MB to
 * host 34 (leaf 1). The one oversubscribed port is leaf 1's to host 33, the root. Its frames
 * hold leaf 1's input credits, so the spines' ports to leaf 1 (400 G each, never offered more
 * than the incast's half of 100 G plus the victim's 100 G) queue for lack of credits: victims.
 * The victim flow waits behind the incast's frames there (95 Gb/s alone, 42.5 here with
 * credits only). `mask`: the EcnVictimMask attribute of every switch port, `holdoff` their
 * EcnVictimHoldoff ("" = the default); `strongCct`: a CCT of 100 ns per entry and
 * CCTI_Increase 4 instead of ib-cc's defaults.
 */
IncastRun
RunIncast(bool ibcc, const std::string& mask, const std::string& holdoff = "",
          bool strongCct = false)
{
    auto spec = LeafSpine(3, 2, 33, 100, 1000);
    spec.topology.leafSpine.fabricRateBps = 400'000'000'000ULL;
    spec.fabric.kind = "infiniband";
    for (uint32_t h = 0; h < 32; ++h)
    {
        AddFlow(spec, h, kIncastReceiver, 1'000'000);
    }
    AddFlow(spec, kVictimSender, kVictimReceiver, 1'000'000);
    if (ibcc)
    {
        UseIbCc(spec, mask);
        if (!holdoff.empty())
        {
            spec.ns3Defaults["ns3::SwitchPort::EcnVictimHoldoff"] = holdoff;
        }
        if (strongCct)
        {
            spec.ccSettings["ib-cc.ccti_increase"] = 4;
            spec.ccSettings["ib-cc.cct_step_us"] = 0.1;
        }
    }
    IncastRun v;
    tusk::RunOptions o;
    o.afterRun = [&v](Fabric& fabric, const std::vector<Ptr<RdmaNic>>& nics) {
        const auto& names = fabric.graph.vertices;
        for (const auto& link : fabric.links)
        {
            const auto& tl = fabric.graph.links[link.graphLink];
            for (const auto& [dev, from, to] :
                 {std::tuple{link.devA, tl.a, tl.b}, std::tuple{link.devB, tl.b, tl.a}})
            {
                auto port = DynamicCast<SwitchPort>(dev);
                if (port && names[from].name.rfind("spine", 0) == 0 && names[to].name == "leaf1")
                {
                    v.spineToLeaf1Suppressed += port->GetVictimMarksSuppressed();
                }
            }
        }
        auto ibccOf = [](const Ptr<RdmaNic>& nic, uint32_t q) {
            return DynamicCast<IbCongestionControl>(
                nic->GetQp(RdmaNic::kFirstQpn + q)->GetCongestionControl());
        };
        for (uint32_t h = 0; h < 32; ++h)
        {
            uint64_t becns = 0;
            uint32_t maxCcti = 0;
            for (uint32_t q = 0; q < nics[h]->GetNQps(); ++q)
            {
                if (auto cc = ibccOf(nics[h], q))
                {
                    becns += cc->GetBecns();
                    maxCcti = std::max(maxCcti, cc->GetMaxCcti());
                }
            }
            v.sendersWithBecn += becns > 0 ? 1 : 0;
            v.sendersThrottled += maxCcti > 0 ? 1 : 0;
        }
        const auto& rx = nics[kIncastReceiver];
        for (uint32_t q = 0; q < rx->GetNQps(); ++q)
        {
            v.flowsWithFecn += rx->GetQp(RdmaNic::kFirstQpn + q)->GetCounters().ecnMarkedReceived > 0;
        }
        for (uint32_t q = 0; q < nics[kVictimSender]->GetNQps(); ++q)
        {
            if (auto cc = ibccOf(nics[kVictimSender], q))
            {
                v.victimBecns += cc->GetBecns();
            }
        }
    };
    auto r = Run(spec, o);
    REQUIRE(r.finished);
    REQUIRE(r.summary.drops == 0);
    const auto& victim = r.flows.back();
    REQUIRE(victim.src == kVictimSender);
    v.victimGbps = victim.bytes * 8.0 / (victim.fctPs / 1e12) / 1e9;
    for (const auto& l : r.links)
    {
        if (l.from == "leaf1" && l.to == "host" + std::to_string(kIncastReceiver))
        {
            v.rootMarks = l.ecnMarks;
        }
        if (l.from.rfind("spine", 0) == 0 && l.to == "leaf1")
        {
            v.spineToLeaf1Marks += l.ecnMarks;
        }
    }
    return v;
}

} // namespace

TEST_CASE("IB congestion control at its defaults leaves a victim flow of an incast at least as "
          "fast as credits alone, and still marks and throttles the incast's senders",
          "[component][ib][cc]")
{
    const IncastRun credits = RunIncast(false, "");
    const IncastRun annex = RunIncast(true, "");      // the annex's default Victim_Mask
    const IncastRun everyPort = RunIncast(true, "Set"); // every port marks, victim or not
    INFO("victim flow: credits only " << credits.victimGbps << " Gb/s, ib-cc with the annex's "
                                      << "mask " << annex.victimGbps << " Gb/s, every port "
                                      << "marking " << everyPort.victimGbps << " Gb/s");
    INFO("marks at the root " << annex.rootMarks << ", at the spines' ports to leaf 1 "
                              << annex.spineToLeaf1Marks << " (suppressed as victims "
                              << annex.spineToLeaf1Suppressed << "; every port marking: "
                              << everyPort.spineToLeaf1Marks << ")");
    INFO("incast senders with a BECN " << annex.sendersWithBecn << ", throttled "
                                       << annex.sendersThrottled << ", flows with a FECN "
                                       << annex.flowsWithFecn << "; victim's BECNs "
                                       << annex.victimBecns << " / " << everyPort.victimBecns);
    // The victim flow is never marked at a victim port, so ib-cc does not slow it: at least
    // the credit-only rate, within 5 % (measured: the same 42.5 Gb/s, FCT to the picosecond).
    CHECK(annex.victimGbps >= 0.95 * credits.victimGbps);
    // The rule holds it there: with every Victim_Mask bit set the spines' credit-starved ports
    // mark it and ib-cc halves it (measured 18.9 Gb/s).
    CHECK(everyPort.victimGbps < 0.7 * credits.victimGbps);
    CHECK(everyPort.victimBecns > 0);
    // The root marks; the spines' ports were victims and left their marks out.
    CHECK(annex.rootMarks > 1000);
    CHECK(annex.spineToLeaf1Suppressed > 0);
    CHECK(annex.spineToLeaf1Marks < annex.spineToLeaf1Suppressed);
    // Every contributor to the root is marked (FECN at its receiver), reacts (BECN at its
    // sender) and is throttled (its CCTI rose).
    CHECK(annex.flowsWithFecn == 32);
    CHECK(annex.sendersWithBecn == 32);
    CHECK(annex.sendersThrottled == 32);
    CHECK(credits.rootMarks == 0);
}

TEST_CASE("IB congestion control: a port that lacked credits within the last credit round trip "
          "is still a victim, so a stronger CCT does not slow the victim flow",
          "[component][ib][cc]")
{
    // With a CCT that reaches below the incast's fair share, each mark costs a flow dearly.
    // Judged at the instant a frame arrives (EcnVictimHoldoff 1 ps), the spines' ports to
    // leaf 1 count as roots in the moments a credit update has just let them send, mark the
    // victim flow a few times and ib-cc cuts it to 17.9 Gb/s. Still counted as victims for one
    // credit round trip after they lacked credits (2 x 1 us + 100 ns, the default), they never
    // mark it, and it keeps its credit-only rate.
    const IncastRun credits = RunIncast(false, "");
    const IncastRun roundTrip = RunIncast(true, "", "", true);
    const IncastRun instant = RunIncast(true, "", "1ps", true);
    INFO("victim flow: credits only " << credits.victimGbps << " Gb/s, strong CCT with the "
                                      << "round-trip holdoff " << roundTrip.victimGbps
                                      << " Gb/s (" << roundTrip.victimBecns << " BECNs), judged "
                                      << "at the instant " << instant.victimGbps << " Gb/s ("
                                      << instant.victimBecns << " BECNs)");
    INFO("marks at the root " << roundTrip.rootMarks << " / " << instant.rootMarks
                              << ", at the spines' ports to leaf 1 "
                              << roundTrip.spineToLeaf1Marks << " / "
                              << instant.spineToLeaf1Marks << " (suppressed "
                              << roundTrip.spineToLeaf1Suppressed << " / "
                              << instant.spineToLeaf1Suppressed << ")");
    CHECK(roundTrip.victimGbps >= 0.95 * credits.victimGbps);
    CHECK(instant.victimGbps < 0.7 * credits.victimGbps);
    CHECK(roundTrip.victimBecns < instant.victimBecns);
    // The incast is still marked at its root and throttled.
    CHECK(roundTrip.rootMarks > 1000);
    CHECK(roundTrip.sendersThrottled == 32);
}

namespace
{

/** Marks and suppressed marks at the switch's port to host 8 in an 8:1 incast on one switch
 *  whose VL buffers (16 KiB) do not cover the credit round trip of a 1 us host link. */
struct LastHopRun
{
    uint64_t marks = 0;
    uint64_t suppressed = 0;
    uint64_t senderBecns = 0;
    bool maskBit = false; //!< the port's Victim_Mask bit
};

LastHopRun
RunLastHop(const std::string& mask)
{
    auto spec = LeafSpine(1, 1, 9, 100, 1000);
    spec.fabric.kind = "infiniband";
    spec.fabric.vlBufferBytes = 16 * 1024;
    for (uint32_t h = 0; h < 8; ++h)
    {
        AddFlow(spec, h, 8, 1'000'000);
    }
    UseIbCc(spec, mask);
    LastHopRun v;
    tusk::RunOptions o;
    o.afterRun = [&v](Fabric& fabric, const std::vector<Ptr<RdmaNic>>& nics) {
        auto port = DynamicCast<SwitchPort>(fabric.hostNics[8]->GetPeerDevice());
        REQUIRE(port);
        v.maskBit = port->HasVictimMaskBit();
        v.suppressed = port->GetVictimMarksSuppressed();
        for (uint32_t h = 0; h < 8; ++h)
        {
            for (uint32_t q = 0; q < nics[h]->GetNQps(); ++q)
            {
                auto cc = DynamicCast<IbCongestionControl>(
                    nics[h]->GetQp(RdmaNic::kFirstQpn + q)->GetCongestionControl());
                v.senderBecns += cc ? cc->GetBecns() : 0;
            }
        }
    };
    auto r = Run(spec, o);
    REQUIRE(r.finished);
    for (const auto& l : r.links)
    {
        if (l.from == "leaf0" && l.to == "host8")
        {
            v.marks = l.ecnMarks;
        }
    }
    return v;
}

} // namespace

TEST_CASE("IB congestion control: the annex's default Victim_Mask lets the port to an end node "
          "mark when the end node's credits are what it waits for",
          "[component][ib][cc]")
{
    // The switch's port to host 8 is the root of an 8:1 incast, but a 16 KiB VL buffer lets
    // it send only 3 frames per 2.1 us credit round trip, so it is out of credits whenever a
    // frame arrives: by the credit test alone a victim. A channel adapter does not mark, so
    // the annex sets the Victim_Mask bit of ports that face one: the port marks there, and the
    // incast's senders hear of it. With the bit clear (OpenSM's default mask: none) nobody
    // reports this congestion.
    const LastHopRun annex = RunLastHop("");
    const LastHopRun clear = RunLastHop("Clear");
    INFO("port to host 8: marks " << annex.marks << " / " << clear.marks << " with the mask "
                                  << "clear, suppressed " << annex.suppressed << " / "
                                  << clear.suppressed << ", BECNs at the senders "
                                  << annex.senderBecns << " / " << clear.senderBecns);
    CHECK(annex.maskBit);
    CHECK_FALSE(clear.maskBit);
    CHECK(annex.marks > 100);
    CHECK(annex.suppressed == 0);
    CHECK(annex.senderBecns > 100);
    CHECK(clear.suppressed > 100);
    CHECK(clear.marks < annex.marks / 10);
}

} // namespace TUSK_TEST_FILE
