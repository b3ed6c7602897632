// Load-balancing policies on small packet-level fabrics: which paths QPs take, spraying over
// paths of different delay, flowlets and path-delay differences (oracle 18), hash
// decorrelation across tiers (oracle 10), and every policy on an asymmetric fat tree.

#include "run-helpers.h"

#include "run/stats.h"

#include "fabric/helper/fabric-helper.h"
#include "lb-policies/policy-registry.h"
#include "rdma/model/rdma-nic.h"
#include "workload/model/workload-spec.h"

#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <map>
#include <random>
#include <set>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;
using namespace ns3;

namespace
{

/** Uplinks of switch `from` that carried more than `minBytes`. */
uint32_t
UplinksUsed(const tusk::RunResult& r, const std::string& from, uint64_t minBytes = 0)
{
    uint32_t n = 0;
    for (const auto& l : r.links)
    {
        n += l.uplink && l.from == from && l.txBytes > minBytes;
    }
    return n;
}

/** Data bytes each core switch sent down to the aggregation switches of pods >= 1. */
std::map<std::string, double>
CoreDataBytes(const tusk::RunResult& r, uint32_t k)
{
    std::map<std::string, double> bytes;
    for (const auto& l : r.links)
    {
        if (l.from.rfind("core", 0) == 0 && l.to.rfind("agg", 0) == 0)
        {
            const uint32_t agg = static_cast<uint32_t>(std::stoul(l.to.substr(3)));
            if (agg / (k / 2) >= 1)
            {
                bytes[l.from] += static_cast<double>(l.txBytes);
            }
        }
    }
    return bytes;
}

/** What a host NIC received: per responder QP, the first arrival time of every PSN. */
struct Arrivals
{
    std::map<uint32_t, std::map<uint32_t, uint64_t>> firstPs; //!< [dest QP][PSN]
};

void
RecordArrival(Arrivals* a, Ptr<const Packet> p, const FrameMeta& meta)
{
    if (meta.kind != FrameKind::DATA)
    {
        return;
    }
    // The FrameMeta carries the frame's BTH fields (frame-meta.h).
    a->firstPs[meta.dstQp].emplace(meta.psn,
                                   static_cast<uint64_t>(Simulator::Now().GetPicoSeconds()));
}

} // namespace

TEST_CASE("64 flows with distinct source ports over 4 uplinks: every uplink used, about 16 +- 6",
          "[component][ecmp]")
{
    // A leaf with 4 equal-cost uplinks (4 spines) and 64 flows of 8 packets, each QP with its
    // own random source port; a flow's packets all take one uplink, so an uplink's frames / 8
    // is its flow count. Binomial(64, 1/4) per uplink: mean 16, sd 3.46; P(0 flows) = 1e-8
    // per uplink, P(|X - 16| <= 6) = 0.941. Over 25 seeds (100 uplink counts).
    auto spec = LeafSpine(2, 4, 8, 100);
    for (uint32_t f = 0; f < 64; ++f)
    {
        AddFlow(spec, f % 8, 8 + (f * 3) % 8, 8 * 4096);
    }
    int within = 0;
    double sumSq = 0;
    int counts = 0;
    for (uint64_t seed = 1; seed <= 25; ++seed)
    {
        spec.seed = seed;
        auto r = Run(spec);
        REQUIRE(r.finished);
        uint64_t total = 0;
        for (const auto& l : r.links)
        {
            if (l.uplink && l.from == "leaf0")
            {
                INFO("seed " << seed << " uplink to " << l.to << ": " << l.txFrames / 8 << " flows");
                CHECK(l.txFrames % 8 == 0); // whole flows: one path per flow
                CHECK(l.txFrames / 8 >= 1);
                const double x = static_cast<double>(l.txFrames / 8);
                within += std::abs(x - 16) <= 6;
                sumSq += (x - 16) * (x - 16);
                ++counts;
                total += l.txFrames;
            }
        }
        CHECK(total == 64 * 8);
        CHECK(r.summary.oooPackets == 0);
    }
    REQUIRE(counts == 100);
    CHECK(within >= 85); // expected 94, sd 2.4
    CHECK(std::sqrt(sumSq / counts) == Approx(3.46).margin(0.8));
}

TEST_CASE("QPs of one connection: a shared source port takes one spine, distinct ports up to "
          "min(QPs, spines)",
          "[component][qp-scaling]")
{
    // One host per leaf, 8 spines: leaf0's uplinks carry only host 0's data, so the number of
    // uplinks with traffic is the number of spines the connection's QPs use.
    for (uint32_t q : {2u, 4u, 8u, 16u})
    {
        INFO(q << " QPs");
        auto spec = LeafSpine(2, 8, 1, 100);
        spec.nic.qpsPerConnection = q;
        AddFlow(spec, 0, 1, q * 16 * 4096);
        // The same source port on every QP: the 5-tuple is the same, so is the path.
        spec.nic.qpEntropy = "shared";
        CHECK(UplinksUsed(Run(spec), "leaf0") == 1);
        // E-ECMP (Meta) also hashes the destination QP: the QPs spread even so.
        spec.lb.attributes["HashFields"] = "FiveTupleDstQp";
        const uint32_t eecmp = UplinksUsed(Run(spec), "leaf0");
        CHECK(eecmp > 1);
        CHECK(eecmp <= std::min(q, 8u));
        // Distinct consecutive ports and a linear (XOR) hash: min(#QPs, #spines) spines.
        spec.lb.attributes.clear();
        spec.lb.attributes["HashFunction"] = "XorFold";
        spec.nic.qpEntropy = "sequential";
        for (uint64_t seed : {1, 2, 3})
        {
            spec.seed = seed;
            CHECK(UplinksUsed(Run(spec), "leaf0") == std::min(q, 8u));
        }
    }
    // Independent random ports and a mixing hash: balls into bins, E = 8 (1 - (7/8)^q).
    double used = 0;
    const int seeds = 60;
    for (int seed = 1; seed <= seeds; ++seed)
    {
        auto spec = LeafSpine(2, 8, 1, 100);
        spec.seed = seed;
        spec.nic.qpsPerConnection = 4;
        AddFlow(spec, 0, 1, 4 * 4 * 4096);
        used += UplinksUsed(Run(spec), "leaf0");
    }
    // E = 8 (1 - (7/8)^4) = 3.31, sd of one run 0.6: 60 runs, sd of the mean 0.08.
    CHECK(used / seeds == Approx(3.31).margin(0.25));
}

TEST_CASE("QP scaling modes: split posts one part per QP, round-robin posts messages in turn",
          "[component][qp-scaling]")
{
    auto spec = LeafSpine(2, 8, 1, 100);
    spec.nic.qpsPerConnection = 4;
    AddFlow(spec, 0, 1, 10 * 4096);    // split: 4 parts
    AddFlow(spec, 0, 1, 2 * 4096, 50'000'000);
    auto split = Run(spec);
    REQUIRE(split.finished);
    CHECK(split.flows[0].qps == 4);
    CHECK(split.flows[0].deliveredBytes == 10 * 4096);
    spec.nic.qpScaling = "round-robin";
    spec.nic.qpMessageBytes = 4096;
    auto rr = Run(spec);
    REQUIRE(rr.finished);
    CHECK(rr.flows[0].qps == 4); // 10 messages over 4 QPs
    CHECK(rr.flows[1].qps == 2); // 2 messages, on the next 2 QPs in turn
    CHECK(rr.flows[0].deliveredBytes == 10 * 4096);
    CHECK(rr.flows[1].deliveredBytes == 2 * 4096);
    // A whole transfer per message: each transfer on one QP, successive transfers rotate.
    spec.nic.qpMessageBytes = 1 << 20;
    auto whole = Run(spec);
    CHECK(whole.flows[0].qps == 1);
    CHECK(whole.flows[1].qps == 1);
}

TEST_CASE("4096 QPs per connection carry a transfer, one part each, all delivered",
          "[component][qp-scaling]")
{
    // The QP count is bounded by the 24-bit QPN space, not by 1024.
    auto spec = LeafSpine(2, 2, 1, 100);
    spec.nic.qpsPerConnection = 4096;
    spec.nic.qpEntropy = "sequential"; // 4096 consecutive UDP source ports
    AddFlow(spec, 0, 1, 4096 * 1000);  // 1000 B per QP
    std::vector<uint32_t> qps(2, 0);
    tusk::RunOptions o;
    o.afterRun = [&qps](Fabric&, const std::vector<Ptr<RdmaNic>>& nics) {
        qps = {nics[0]->GetNQps(), nics[1]->GetNQps()};
    };
    auto r = Run(spec, o);
    REQUIRE(r.finished);
    CHECK(r.flows[0].qps == 4096);
    CHECK(r.flows[0].deliveredBytes == 4096 * 1000);
    CHECK(r.flows[0].retxPackets == 0);
    CHECK(qps == std::vector<uint32_t>{4096, 4096}); // requesters on host 0, responders on 1
}

TEST_CASE("spraying over paths of 1, 2, 3, 4 us with a selective-repeat receiver",
          "[component][spray][selective-repeat]")
{
    // Host 0 -> host 1 over 4 spines whose two leaf-spine links each have (j + 1) / 2 us, so
    // the four paths differ by 1, 2, 3, 4 us of fabric delay (max - min = 3 us). 16 messages
    // of 64 packets, back to back on one QP, sprayed per packet. Checks: every message is
    // reassembled exactly; the reorder buffer never holds more than (max - min path delay) x
    // rate + one MTU; a message completes exactly when the last packet it needs arrives
    // (its own and, as RC completes in order, those of the messages before it), not when its
    // highest PSN does.
    const uint64_t rateBps = 100'000'000'000ULL;
    const uint32_t mtu = 4096;
    for (const std::string policy : {"spray", "host-spray"})
    {
        INFO(policy);
        auto spec = LeafSpine(2, 4, 1, 100);
        spec.lb.policy = policy;
        spec.nic.receiver = "selective-repeat";
        for (int m = 0; m < 16; ++m)
        {
            AddFlow(spec, 0, 1, 64 * mtu);
        }
        Arrivals arrivals;
        std::vector<uint64_t> maxBuffer;
        tusk::RunOptions o;
        o.editWorkload = [](WorkloadSpec& w) {
            for (auto& t : w.transfers)
            {
                t.qpGroup = 0; // one connection: the messages go back to back on one QP
            }
        };
        o.beforeRun = [&](Fabric& f, const std::vector<Ptr<RdmaNic>>& nics) {
            for (const auto& l : f.links)
            {
                const TopoLink& tl = f.graph.links[l.graphLink];
                const auto& a = f.graph.vertices[tl.a].name;
                const auto& b = f.graph.vertices[tl.b].name;
                const std::string spine = a.rfind("spine", 0) == 0 ? a : b;
                if (spine.rfind("spine", 0) == 0)
                {
                    const int j = std::stoi(spine.substr(5));
                    l.channel->SetAttribute("Delay", TimeValue(NanoSeconds(500 * (j + 1))));
                }
            }
            nics[1]->TraceConnectWithoutContext("Rx", MakeBoundCallback(&RecordArrival, &arrivals));
        };
        o.afterRun = [&](Fabric&, const std::vector<Ptr<RdmaNic>>& nics) {
            for (uint32_t qpn = RdmaNic::kFirstQpn; qpn < RdmaNic::kFirstQpn + nics[1]->GetNQps(); ++qpn)
            {
                maxBuffer.push_back(nics[1]->GetQp(qpn)->GetCounters().reorderBufferMaxBytes);
            }
        };
        auto r = Run(spec, o);
        REQUIRE(r.finished);
        REQUIRE(maxBuffer.size() == 1);
        const double bound = 3e-6 * rateBps / 8 + mtu;
        for (uint64_t b : maxBuffer)
        {
            CHECK(b <= bound);
        }
        CHECK(*std::max_element(maxBuffer.begin(), maxBuffer.end()) > 0); // it did reorder
        CHECK(r.summary.oooPackets > 0);
        CHECK(r.summary.spuriousRetx == 0);
        CHECK(r.summary.retxPackets == 0);
        // Reassembled exactly.
        for (const auto& f : r.flows)
        {
            CHECK(f.deliveredBytes == f.bytes);
        }
        // Completion = the arrival of the last packet the message needs.
        REQUIRE(arrivals.firstPs.size() == 1);
        const auto& psns = arrivals.firstPs.begin()->second;
        REQUIRE(psns.size() == 16 * 64);
        uint64_t needed = 0;
        int lastNotHighest = 0;
        for (uint32_t m = 0; m < 16; ++m)
        {
            uint64_t latest = 0;
            for (uint32_t psn = 64 * m; psn < 64 * (m + 1); ++psn)
            {
                latest = std::max(latest, psns.at(psn));
            }
            lastNotHighest += psns.at(64 * m + 63) < latest;
            needed = std::max(needed, latest);
            CHECK(r.flows[m].finishPs == needed);
        }
        CHECK(lastNotHighest > 0); // some messages completed on a packet other than the last
    }
}

TEST_CASE("flowlets: no reordering when the flowlet gap exceeds the path-delay difference "
          "(oracle 18)",
          "[component][letflow][conga][oracle18]")
{
    // Two paths whose one-way delays differ by 6 us (spine0 links 0.5 us, spine1 links
    // 3.5 us). One QP sends 24 messages of 4 packets at 10 Gb/s (a packet every 3.3 us),
    // one message every 30 us. Flowlet gap 10 us > 6 us: new flowlets only at the idle
    // periods, both paths used, no packet overtakes another. Gap 2 us < 3.3 us: every packet
    // is a new flowlet on a random path, and packets on the short path overtake.
    for (const std::string policy : {"letflow", "conga"})
    {
        INFO(policy);
        for (uint32_t gapUs : {10u, 2u})
        {
            INFO("gap " << gapUs << " us");
            auto spec = LeafSpine(2, 2, 1, 100);
            spec.topology.leafSpine.hostRateBps = 10'000'000'000ULL;
            spec.lb.policy = policy;
            spec.lb.attributes["FlowletGap"] = std::to_string(gapUs) + "us";
            if (policy == "conga")
            {
                // CONGA moves a flowlet only to a less congested path. At 10 Gb/s on 100 Gb/s
                // uplinks the 3-bit metric stays 0 on both paths; 8 bits resolve a few packets
                // of DRE, so each new flowlet leaves the path the last one loaded.
                spec.lb.attributes["QuantizationBits"] = "8";
            }
            spec.nic.receiver = "selective-repeat";
            for (int m = 0; m < 24; ++m)
            {
                AddFlow(spec, 0, 1, 4 * 4096, m * 30'000'000ULL);
            }
            tusk::RunOptions o;
            o.editWorkload = [](WorkloadSpec& w) {
                for (auto& t : w.transfers)
                {
                    t.qpGroup = 0; // one connection, one QP: one flow for the switches
                }
            };
            o.beforeRun = [](Fabric& f, const std::vector<Ptr<RdmaNic>>&) {
                for (const auto& l : f.links)
                {
                    const TopoLink& tl = f.graph.links[l.graphLink];
                    const std::string a = f.graph.vertices[tl.a].name;
                    const std::string b = f.graph.vertices[tl.b].name;
                    if (a == "spine1" || b == "spine1")
                    {
                        l.channel->SetAttribute("Delay", TimeValue(NanoSeconds(3500)));
                    }
                    else if (a == "spine0" || b == "spine0")
                    {
                        l.channel->SetAttribute("Delay", TimeValue(NanoSeconds(500)));
                    }
                }
            };
            auto r = Run(spec, o);
            REQUIRE(r.finished);
            CHECK(UplinksUsed(r, "leaf0") == 2); // flowlets did move between the paths
            if (gapUs == 10)
            {
                CHECK(r.summary.oooPackets == 0);
            }
            else
            {
                CHECK(r.summary.oooPackets > 0);
            }
        }
    }
}

TEST_CASE("hash decorrelation on a k = 4 fat tree: per-switch seeds balance the cores, one "
          "seed everywhere polarises them (oracle 10)",
          "[component][ecmp][oracle10]")
{
    // 256 flows from pod 0 (hosts 0..3) to pods 1..3 (hosts 4..15), 64 per source host, each
    // with its own random source port. A ToR hashes onto 2 aggregation switches, each onto 2
    // cores. Independent seeds: each core carries Binomial(256, 1/4) flows, sd 2.7 % of the
    // bytes per run; averaged over 8 seeds, sd 1 %. One seed everywhere: an aggregation
    // switch only sees flows whose hash chose it, h mod 2 = its index, and sends them all to
    // its core of the same index: cores 1 and 2 carry nothing, 0 and 3 half each.
    tusk::ScenarioSpec spec;
    spec.name = "oracle10";
    spec.topology.kind = "fat-tree";
    spec.topology.fatTree.k = 4;
    spec.workload.kind = "flows";
    spec.buffer.totalBytes = 64ULL << 20;
    for (uint32_t f = 0; f < 256; ++f)
    {
        AddFlow(spec, f % 4, 4 + (f * 7) % 12, 8 * 4096);
    }
    std::map<std::string, double> shareSum;
    const int seeds = 8;
    for (int seed = 1; seed <= seeds; ++seed)
    {
        spec.seed = seed;
        spec.lb.sameSeedEverywhere = false;
        auto r = Run(spec);
        REQUIRE(r.finished);
        const auto bytes = CoreDataBytes(r, 4);
        REQUIRE(bytes.size() == 4);
        double total = 0;
        for (const auto& [core, b] : bytes)
        {
            total += b;
        }
        for (const auto& [core, b] : bytes)
        {
            shareSum[core] += b / total;
            CHECK(b / total == Approx(0.25).margin(0.12)); // 4.4 sd of one run
        }

        spec.lb.sameSeedEverywhere = true;
        auto p = Run(spec);
        REQUIRE(p.finished);
        const auto pb = CoreDataBytes(p, 4);
        double ptotal = 0;
        std::vector<double> shares;
        for (const auto& [core, b] : pb)
        {
            ptotal += b;
        }
        for (const auto& [core, b] : pb)
        {
            shares.push_back(b / ptotal);
        }
        INFO("same seed " << seed << ": core shares " << shares[0] << " " << shares[1] << " "
                          << shares[2] << " " << shares[3]);
        CHECK(shares[1] == 0);
        CHECK(shares[2] == 0);
        CHECK(shares[0] + shares[3] == Approx(1.0));
    }
    for (const auto& [core, sum] : shareSum)
    {
        INFO(core);
        CHECK(sum / seeds == Approx(0.25).margin(0.05));
    }
}

TEST_CASE("every policy completes an incast plus background traffic on a k = 8 fat tree with "
          "10 and 40 Gb/s links",
          "[component][policies]")
{
    // 128 hosts at 10 Gb/s, 40 Gb/s fabric links; 16 hosts of other pods send 256 KB each
    // to host 0 while 48 background flows of 512 KB run between random pairs. No assertion on
    // performance: every flow of every policy must complete, with both receivers.
    tusk::ScenarioSpec spec = FatTree(8, 10, 40);
    spec.name = "fat-tree-mixed";
    spec.stopTimePs = 100'000'000'000ULL; // 100 ms
    for (uint32_t s = 0; s < 16; ++s)
    {
        AddFlow(spec, 16 + 7 * s, 0, 256 * 1024);
    }
    std::mt19937_64 rng(8);
    for (int f = 0; f < 48; ++f)
    {
        const uint32_t src = 1 + rng() % 127;
        uint32_t dst = 1 + rng() % 127;
        dst = dst == src ? (dst % 127) + 1 : dst;
        AddFlow(spec, src, dst, 512 * 1024, (rng() % 50) * 1'000'000ULL);
    }
    for (const auto& p : SwitchPolicies())
    {
        for (const std::string receiver : {"go-back-n", "selective-repeat"})
        {
            if (p.needsReorderingReceiver && receiver == "go-back-n")
            {
                continue; // refused by the runner (ib-ar)
            }
            INFO(p.name << " " << receiver);
            spec.lb.policy = p.name;
            spec.fabric.kind = p.fabric.empty() ? "ethernet" : p.fabric;
            spec.nic.receiver = receiver;
            auto r = Run(spec);
            CHECK(r.finished);
            CHECK(r.summary.unfinished == 0);
            for (const auto& f : r.flows)
            {
                CHECK(f.deliveredBytes == f.bytes);
            }
        }
    }
}

} // namespace TUSK_TEST_FILE
