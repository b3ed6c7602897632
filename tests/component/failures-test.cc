// The failure model on tiny fabrics: each [[failures]] kind does what
// docs/scenario-format.md says, packet conservation and the run invariants hold (Run checks
// them), and a lossy link loses frames at its rate.

#include "run-helpers.h"

#include "fabric/model/fabric-net-device.h"
#include "fabric/helper/fabric-helper.h"

#include "ns3/callback.h"
#include "ns3/simulator.h"

#include <boost/math/distributions/binomial.hpp>

#include <memory>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;
using ns3::DropReason;

namespace
{

constexpr int kFcs = static_cast<int>(DropReason::FCS);
constexpr int kGray = static_cast<int>(DropReason::GRAY);
constexpr int kLinkDown = static_cast<int>(DropReason::LINK_DOWN);

tusk::FailureEntry
Failure(const std::string& kind, const std::string& link, uint64_t atUs)
{
    tusk::FailureEntry f;
    f.kind = kind;
    f.link = link;
    f.atPs = atUs * 1'000'000;
    return f;
}

const tusk::LinkRow&
Row(const tusk::RunResult& r, const std::string& from, const std::string& to)
{
    for (const auto& l : r.links)
    {
        if (l.from == from && l.to == to)
        {
            return l;
        }
    }
    FAIL("no links.csv row " << from << " -> " << to);
    throw std::logic_error("unreachable");
}

/** The fabric link between vertices `a` (its lower-tier end, devA) and `b` (devB). */
const ns3::FabricLink&
LinkBetween(const ns3::Fabric& fabric, const std::string& a, const std::string& b)
{
    const auto& g = fabric.graph;
    for (const auto& l : fabric.links)
    {
        if (g.vertices[g.links[l.graphLink].a].name == a &&
            g.vertices[g.links[l.graphLink].b].name == b)
        {
            return l;
        }
    }
    FAIL("no link " << a << "-" << b);
    throw std::logic_error("unreachable");
}

/** The 99.9 % interval of a binomial count (Boost.Math quantiles). */
void
CheckBinomial(uint64_t count, uint64_t trials, double p)
{
    boost::math::binomial_distribution<> law(static_cast<double>(trials), p);
    const double lo = boost::math::quantile(law, 0.0005);
    const double hi = boost::math::quantile(boost::math::complement(law, 0.0005));
    INFO(count << " of " << trials << " at p = " << p << ": 99.9 % interval [" << lo << ", "
               << hi << "]");
    CHECK(static_cast<double>(count) >= lo);
    CHECK(static_cast<double>(count) <= hi);
}

} // namespace

TEST_CASE("a lossy link drops frames at its FCS check at its loss rate, and the transport "
          "recovers on a lossless class",
          "[component][failures]")
{
    auto s = LeafSpine(2, 1, 2);
    s.nic.rtoPs = 100'000'000; // 100 us
    AddFlow(s, 0, 2, 8'000'000);
    AddFlow(s, 1, 3, 8'000'000);
    auto loss = Failure("loss", "leaf0-spine0", 0);
    loss.lossRate = 0.01;
    s.failures.push_back(loss);
    const auto r = Run(s);
    REQUIRE(r.finished);
    CHECK(r.failure.empty());
    CHECK(s.pfc.enabled); // PFC does not prevent corruption loss
    // Every frame leaf0 sent to spine0 reached spine0's FCS check; those it failed are
    // counted at spine0's port (the row spine0 -> leaf0), and nowhere else.
    const auto& up = Row(r, "leaf0", "spine0");
    const auto& down = Row(r, "spine0", "leaf0");
    CHECK(down.drops[kFcs] > 0);
    CheckBinomial(down.drops[kFcs], up.txFrames, 0.01);
    CheckBinomial(up.drops[kFcs], down.txFrames, 0.01); // the ACKs, the other way
    uint64_t flowFcs = 0;
    for (const auto& f : r.flows)
    {
        CHECK(f.deliveredBytes == f.bytes);
        CHECK(f.retxPackets >= f.pktsDropped[kFcs]);
        flowFcs += f.pktsDropped[kFcs];
    }
    CHECK(flowFcs == down.drops[kFcs]); // every frame lost that way was a data frame
    CHECK(r.summary.dropsByReason[kFcs] == down.drops[kFcs] + up.drops[kFcs]);
    for (const auto& l : r.links)
    {
        if (l.from != "spine0" && l.from != "leaf0")
        {
            CHECK(l.drops[kFcs] == 0);
        }
    }
}

TEST_CASE("degrade to a rate in Gb/s is degrade by the matching divisor", "[component][failures]")
{
    auto base = LeafSpine(2, 1, 1);
    AddFlow(base, 0, 1, 1'000'000);
    const auto healthy = Run(base);
    auto byRate = base;
    auto d = Failure("degrade", "leaf0-spine0", 0);
    d.rateBps = 25'000'000'000ULL;
    byRate.failures.push_back(d);
    auto byDivisor = base;
    d.rateBps.reset();
    d.rateDivisor = 4;
    byDivisor.failures.push_back(d);
    const auto a = Run(byRate);
    const auto b = Run(byDivisor);
    REQUIRE(a.finished);
    REQUIRE(b.finished);
    CHECK(a.flows[0].fctPs == b.flows[0].fctPs);
    // The 25 Gb/s hop is the bottleneck: 4x the serialisation of the healthy path.
    CHECK(a.flows[0].fctPs > 3.5 * healthy.flows[0].fctPs);
    CHECK(Row(a, "leaf0", "spine0").rateBps == 25'000'000'000ULL);

    // until_us gives the rate back.
    auto repaired = byRate;
    repaired.failures[0].untilPs = 5'000'000; // 5 us
    const auto c = Run(repaired);
    CHECK(Row(c, "leaf0", "spine0").rateBps == 100'000'000'000ULL);
    CHECK(c.flows[0].fctPs < a.flows[0].fctPs);
}

TEST_CASE("overlapping degradations and losses: a repair ends its own entry, not the others",
          "[component][failures]")
{
    // Two entries on one cable: a short one (repaired at 5 us) and a long one (never). After
    // the short one's repair the long one still holds the link: its rate, its loss.
    auto s = LeafSpine(2, 1, 1);
    s.nic.rtoPs = 100'000'000;
    AddFlow(s, 0, 1, 4'000'000);
    auto shortDegrade = Failure("degrade", "leaf0-spine0", 0);
    shortDegrade.rateDivisor = 4;
    shortDegrade.untilPs = 5'000'000;
    auto longDegrade = Failure("degrade", "leaf0-spine0", 1);
    longDegrade.rateDivisor = 2;
    auto shortLoss = Failure("loss", "leaf1-spine0", 0);
    shortLoss.lossRate = 0.5;
    shortLoss.untilPs = 5'000'000;
    auto longLoss = Failure("loss", "leaf1-spine0", 1);
    longLoss.lossRate = 0.05;
    s.failures = {shortDegrade, longDegrade, shortLoss, longLoss};
    const auto r = Run(s);
    REQUIRE(r.finished);
    // The rate the link ended with: the long entry's half, not the configured 100 Gb/s.
    CHECK(Row(r, "leaf0", "spine0").rateBps == 50'000'000'000ULL);
    // leaf1 keeps losing frames from spine0 after 5 us: all but the first few of the ~1,000
    // data frames cross the link after the short loss ends, each lost at 5 %, so the count is
    // at least the 99.9 % lower bound of that binomial (with the short entry's repair ending
    // both, only the 2 or 3 frames of the first 5 us could be lost).
    const auto& down = Row(r, "leaf1", "spine0");
    const auto& in = Row(r, "spine0", "leaf1");
    INFO("frames spine0 -> leaf1: " << in.txFrames << ", lost at leaf1: " << down.drops[kFcs]);
    boost::math::binomial_distribution<> law(static_cast<double>(in.txFrames) - 20, 0.05);
    CHECK(static_cast<double>(down.drops[kFcs]) >= boost::math::quantile(law, 0.0005));
}

TEST_CASE("a flapping link goes down and up on its schedule, and the flows finish",
          "[component][failures]")
{
    auto s = LeafSpine(2, 2, 1);
    s.nic.rtoPs = 50'000'000;
    s.fabric.reconvergencePs = 5'000'000; // 5 us
    AddFlow(s, 0, 1, 4'000'000);
    AddFlow(s, 1, 0, 4'000'000);
    auto flap = Failure("flap", "leaf0-spine0", 10);
    flap.periodPs = 50'000'000;
    flap.downPs = 20'000'000;
    flap.count = 3;
    s.failures.push_back(flap);
    auto changes = std::make_shared<std::vector<std::pair<int64_t, bool>>>();
    tusk::RunOptions o;
    o.beforeRun = [changes](ns3::Fabric& fabric, const auto&) {
        // A raw pointer: the callback is stored in the device itself.
        ns3::FabricNetDevice* dev = ns3::PeekPointer(LinkBetween(fabric, "leaf0", "spine0").devA);
        dev->AddLinkChangeCallback(ns3::Callback<void>([changes, dev]() {
            changes->emplace_back(ns3::Simulator::Now().GetMicroSeconds(), dev->IsLinkUp());
        }));
    };
    const auto r = Run(s, o);
    REQUIRE(r.finished);
    const std::vector<std::pair<int64_t, bool>> expected = {
        {10, false}, {30, true}, {60, false}, {80, true}, {110, false}, {130, true}};
    CHECK(*changes == expected);
    for (const auto& f : r.flows)
    {
        CHECK(f.deliveredBytes == f.bytes);
    }
}

TEST_CASE("a switch down strands nothing once routing has converged", "[component][failures]")
{
    // k = 4 fat tree: an aggregation switch of pod 0 dies while every host of pod 0 sends to
    // pod 2 and back. Cores keep sending towards it until routing converges; afterwards every
    // flow finishes (none is to or from a dead element).
    auto s = FatTree(4);
    s.nic.rtoPs = 50'000'000;
    s.fabric.reconvergencePs = 100'000'000; // 100 us
    s.stopTimePs = 20'000'000'000ULL;
    for (uint32_t h = 0; h < 4; ++h)
    {
        AddFlow(s, h, 8 + h, 1'000'000);
        AddFlow(s, 8 + h, h, 1'000'000);
    }
    tusk::FailureEntry f;
    f.kind = "switch_down";
    f.switchName = "agg0";
    f.atPs = 10'000'000;
    s.failures.push_back(f);
    const auto r = Run(s);
    CHECK(r.finished);
    CHECK(r.failure.empty());
    for (const auto& fl : r.flows)
    {
        CHECK(fl.deliveredBytes == fl.bytes);
    }
    uint64_t linkDown = 0;
    for (const auto& l : r.links)
    {
        linkDown += l.drops[kLinkDown];
    }
    CHECK(linkDown > 0); // frames were lost on the way to the dead switch before convergence
}

TEST_CASE("a NIC down stops its rank: its flows stay unfinished and the run fails",
          "[component][failures]")
{
    auto s = LeafSpine(2, 1, 2);
    s.nic.rtoPs = 50'000'000;
    s.workload.watchdogPs = 1'000'000'000; // 1 ms without progress ends the run
    AddFlow(s, 0, 2, 1'000'000);
    AddFlow(s, 1, 3, 1'000'000);
    AddFlow(s, 3, 0, 1'000'000);
    tusk::FailureEntry f;
    f.kind = "nic_down";
    f.host = 3;
    f.atPs = 5'000'000;
    s.failures.push_back(f);
    const auto r = Run(s);
    CHECK_FALSE(r.finished);
    CHECK_FALSE(r.failure.empty());
    // The failure says why, whatever stopped the run (watchdog or stop time).
    CHECK_THAT(r.failure, Catch::Contains("host 3's NIC is down since 5.000 us (failures[0], "
                                          "nic_down): its flows and those to it cannot finish"));
    for (const auto& fl : r.flows)
    {
        INFO(fl.src << " -> " << fl.dst);
        const bool dead = fl.src == 3 || fl.dst == 3;
        CHECK(fl.finished == !dead);
        if (dead)
        {
            CHECK(fl.deliveredBytes < fl.bytes);
        }
    }
    CHECK(r.summary.unfinished == 2);
}

TEST_CASE("a gray failure loses frames of some flows only, each at the loss rate",
          "[component][failures]")
{
    auto s = LeafSpine(2, 1, 4);
    s.nic.rtoPs = 50'000'000;
    for (uint32_t a = 0; a < 4; ++a)
    {
        for (uint32_t b = 4; b < 8; ++b)
        {
            AddFlow(s, a, b, 500'000);
        }
    }
    auto gray = Failure("gray", "leaf0-spine0", 0);
    gray.hashFraction = 0.5;
    gray.lossRate = 0.2;
    s.failures.push_back(gray);
    const auto r = Run(s);
    REQUIRE(r.finished);
    size_t hit = 0;
    uint64_t total = 0;
    for (const auto& f : r.flows)
    {
        CHECK(f.deliveredBytes == f.bytes);
        CHECK(f.pktsDropped[kFcs] == 0);
        total += f.pktsDropped[kGray];
        if (f.pktsDropped[kGray] > 0)
        {
            ++hit;
            // Every data frame of an affected flow that crossed the link was lost there w.p.
            // 0.2: those received or dropped. Not those still counted in flight when the flow
            // completed (a go-back-N sender's last rewound window, never sent on the wire).
            uint64_t reached = f.pktsReceived;
            for (int k = 0; k < tusk::kDropReasons; ++k)
            {
                reached += f.pktsDropped[k];
            }
            CheckBinomial(f.pktsDropped[kGray], reached, 0.2);
        }
    }
    INFO(hit << " of " << r.flows.size() << " flows lost frames");
    CHECK(hit > 0);
    CHECK(hit < r.flows.size());
    CHECK(total == Row(r, "spine0", "leaf0").drops[kGray]);
}

TEST_CASE("frames queued towards a dead link: flushed and counted, or holding their buffer "
          "and the pause behind them",
          "[component][failures][pfc]")
{
    // Three leaves, two spines, a small buffer, switches spraying packets: leaf0 and leaf2 send
    // to leaf1's two hosts at twice their rate, so the spines' queues towards leaf1 fill and
    // PFC pauses spread back to the leaves. At 40 us spine0-leaf1 dies.
    auto base = LeafSpine(3, 2, 2);
    base.buffer.totalBytes = 2ULL << 20;
    base.nic.congestionControl = "none"; // PFC only, as Meta runs RoCE at 400G
    base.lb.policy = "spray";              // both spines carry half of every flow
    base.nic.rtoPs = 100'000'000;
    base.fabric.reconvergencePs = 20'000'000;
    AddFlow(base, 0, 2, 2'000'000);
    AddFlow(base, 1, 3, 2'000'000);
    AddFlow(base, 4, 2, 2'000'000);
    AddFlow(base, 5, 3, 2'000'000);
    base.failures.push_back(Failure("link_down", "leaf1-spine0", 40));

    // Frames still queued at spine0's dead port when the run ends.
    auto deadQueue = std::make_shared<uint64_t>(0);
    tusk::RunOptions o;
    o.afterRun = [deadQueue](ns3::Fabric& fabric, const auto&) {
        *deadQueue = LinkBetween(fabric, "leaf1", "spine0").devB->GetQueuedFrames();
    };
    auto flush = base;
    flush.fabric.flushOnLinkDown = true;
    const auto f = Run(flush, o);
    const uint64_t flushQueued = *deadQueue;
    auto hold = base;
    hold.fabric.flushOnLinkDown = false;
    const auto h = Run(hold, o);
    const uint64_t holdQueued = *deadQueue;

    // Flushed: spine0's queue towards leaf1 is dropped as link_down at spine0's port (with the
    // frames forwarded to it before routing converged) and its buffer released; the flows
    // recover by retransmission over spine1.
    CHECK(f.finished);
    CHECK(flushQueued == 0);
    const uint64_t flushDrops = Row(f, "spine0", "leaf1").drops[kLinkDown];
    const uint64_t holdDrops = Row(h, "spine0", "leaf1").drops[kLinkDown];
    INFO("link_down drops at spine0 -> leaf1: flush " << flushDrops << ", hold " << holdDrops
                                                     << "; held frames " << holdQueued);
    // Held: those frames are still queued at the dead port when the run ends, never delivered
    // (counted in flight by the conservation check), and only the frames forwarded to the dead
    // port are dropped.
    CHECK(holdQueued > 0);
    CHECK(flushDrops > holdDrops);
    // The held frames keep their ingress buffer: spine0 keeps pausing the leaves that sent
    // them for longer.
    const uint64_t pausedFlush =
        Row(f, "leaf0", "spine0").pausedPs + Row(f, "leaf2", "spine0").pausedPs;
    const uint64_t pausedHold =
        Row(h, "leaf0", "spine0").pausedPs + Row(h, "leaf2", "spine0").pausedPs;
    INFO("paused towards spine0: flush " << pausedFlush << " ps, hold " << pausedHold << " ps");
    CHECK(pausedHold > pausedFlush);
}

TEST_CASE("a PFC frame on the wire when its link dies is lost with it, and packet conservation "
          "still holds",
          "[component][failures][pfc]")
{
    // A 2:1 incast into host 2 on leaf1, from host 0 (through spine0) and host 3 (no congestion control, a small buffer): leaf1 pauses
    // spine0. 100 ns after leaf1's first PFC frame to spine0 has started, with that frame
    // still on the 1 us wire, the link leaf1-spine0 goes down (both ends, as a [[failures]]
    // link_down does); it comes back 20 us later. The PFC frame arrives at spine0's dead port.
    // PFC frames are link-local: no NIC sends or receives them and no channel counts them in
    // flight, so that loss must not be counted as a dropped frame either (it was, as a
    // link_down drop: received + dropped + in flight exceeded the frames sent by 1, as in
    // scenarios/failures.toml with a degraded and a flapping link).
    auto s = LeafSpine(2, 1, 2);
    s.buffer.totalBytes = 1ULL << 20;
    s.nic.congestionControl = "none";
    s.nic.rtoPs = 50'000'000;
    AddFlow(s, 0, 2, 1'000'000); // over spine0
    AddFlow(s, 3, 2, 1'000'000); // from leaf1's other host
    auto lost = std::make_shared<bool>(false);
    auto pfc = std::make_shared<std::pair<uint64_t, uint64_t>>(); // leaf1's sent, spine0's received
    tusk::RunOptions o;
    o.beforeRun = [lost](ns3::Fabric& fabric, const auto&) {
        const auto& link = LinkBetween(fabric, "leaf1", "spine0");
        ns3::FabricNetDevice* leaf = ns3::PeekPointer(link.devA);
        ns3::FabricNetDevice* spine = ns3::PeekPointer(link.devB);
        leaf->TraceConnectWithoutContext(
            "Tx", ns3::Callback<void, ns3::Ptr<const ns3::Packet>, const ns3::FrameMeta&>(
                      [lost, leaf, spine](ns3::Ptr<const ns3::Packet>, const ns3::FrameMeta& m) {
                          if (m.kind != ns3::FrameKind::PFC || *lost)
                          {
                              return;
                          }
                          *lost = true;
                          auto set = [leaf, spine](bool up) {
                              leaf->SetLinkUp(up);
                              spine->SetLinkUp(up);
                          };
                          ns3::Simulator::Schedule(ns3::NanoSeconds(100), [set]() { set(false); });
                          ns3::Simulator::Schedule(ns3::MicroSeconds(20), [set]() { set(true); });
                      }));
    };
    o.afterRun = [pfc](ns3::Fabric& fabric, const auto&) {
        const auto& link = LinkBetween(fabric, "leaf1", "spine0");
        *pfc = {link.devA->GetCounters().pfcTx, link.devB->GetCounters().pfcRx};
    };
    const auto r = Run(s, o); // asserts packet conservation
    REQUIRE(*lost);
    // The frame was lost on the wire: spine0 received fewer PFC frames than leaf1 sent.
    INFO("PFC frames leaf1 -> spine0: sent " << pfc->first << ", received " << pfc->second);
    CHECK(pfc->second < pfc->first);
    CHECK(r.finished);
}

} // namespace TUSK_TEST_FILE
