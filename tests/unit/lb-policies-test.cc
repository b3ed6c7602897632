// The switch-side load-balancing policies alone, no Simulator: every decision gets its time
// from LbContext.now, which these tests step by hand (a fake clock). Each test states the
// property from the policy's paper or from docs/oracles.md that it checks.

#include "lb-policies/switch/drill-load-balancer.h"
#include "lb-policies/switch/ecmp-load-balancer.h"
#include "lb-policies/switch/letflow-load-balancer.h"
#include "lb-policies/switch/path-pinning-load-balancer.h"
#include "lb-policies/policy-registry.h"
#include "lb-policies/switch/random-spray-load-balancer.h"
#include "lb-policies/switch/round-robin-spray-load-balancer.h"

#include "fabric/model/random-draws.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include "lb-test-helpers.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;
using namespace tusk_test;


// ---- ECMP family ----------------------------------------------------------------------

TEST_CASE("ECMP: 64 flows over 4 uplinks: every uplink used, about 16 +- 6 each",
          "[unit][ecmp]")
{
    // Binomial(64, 1/4) per uplink: mean 16, sd 3.46. P(an uplink gets none) = 4 (3/4)^64
    // ~ 4e-8, so every trial must use every uplink; P(|X - 16| <= 6) = 0.941 per uplink.
    auto c = Candidates(4);
    std::mt19937_64 rng(4);
    const int trials = 2000;
    int within = 0;
    double sumSq = 0;
    for (int t = 0; t < trials; ++t)
    {
        auto lb = CreateObject<EcmpLoadBalancer>();
        lb->SetAttribute("Seed", UintegerValue(static_cast<uint32_t>(rng())));
        std::array<int, 4> load{};
        std::set<uint16_t> ports;
        while (ports.size() < 64)
        {
            ports.insert(static_cast<uint16_t>(49152 + rng() % 16384));
        }
        for (uint16_t sport : ports)
        {
            ++load[Pick(lb, At(0), Flow(0, 9, sport), c)];
        }
        for (int x : load)
        {
            REQUIRE(x >= 1);
            within += std::abs(x - 16) <= 6;
            sumSq += (x - 16.0) * (x - 16.0);
        }
    }
    CHECK(static_cast<double>(within) / (4 * trials) == Approx(0.941).margin(0.015));
    CHECK(std::sqrt(sumSq / (4 * trials)) == Approx(std::sqrt(64 * 0.25 * 0.75)).epsilon(0.05));
}

TEST_CASE("ECMP: changing only the source port moves about 3/4 of 64 flows (oracle 10)",
          "[unit][ecmp][oracle10]")
{
    auto c = Candidates(4);
    std::mt19937_64 rng(10);
    int moved = 0;
    const int trials = 1000;
    for (int t = 0; t < trials; ++t)
    {
        auto lb = CreateObject<EcmpLoadBalancer>();
        lb->SetAttribute("Seed", UintegerValue(static_cast<uint32_t>(rng())));
        for (uint32_t f = 0; f < 64; ++f)
        {
            const auto sport = static_cast<uint16_t>(49152 + rng() % 16000);
            moved += Pick(lb, At(0), Flow(f, 100 + f, sport), c) !=
                     Pick(lb, At(0), Flow(f, 100 + f, static_cast<uint16_t>(sport + 1)), c);
        }
    }
    // 64 000 Bernoulli(3/4): sd of the fraction 0.0017.
    CHECK(static_cast<double>(moved) / (64.0 * trials) == Approx(0.75).margin(0.01));
}

TEST_CASE("ECMP hash functions: XorFold and FNV-1a low bits are linear, Murmur3 avalanches",
          "[unit][ecmp]")
{
    // With the XOR hash, 2^k consecutive source ports cover all residues mod 2^k: QPs with
    // consecutive ports use distinct members of a 2^k-way group. So does FNV-1a, whose low k
    // bits are a bijection of the low k bits of its last bytes (XOR, then multiplication by
    // an odd prime). Murmur3 mixes: balls into bins.
    auto xorLb = CreateObject<EcmpLoadBalancer>();
    xorLb->SetAttribute("HashFunction", EnumValue(EcmpLoadBalancer::XOR_FOLD));
    xorLb->SetAttribute("Seed", UintegerValue(12345));
    auto c = Candidates(8);
    for (uint16_t base : {49152, 50001, 65000})
    {
        std::set<uint32_t> used;
        for (uint16_t i = 0; i < 8; ++i)
        {
            used.insert(Pick(xorLb, At(0), Flow(3, 7, static_cast<uint16_t>(base + i)), c));
        }
        CHECK(used.size() == 8);
    }
    for (auto fn : {EcmpLoadBalancer::MURMUR3, EcmpLoadBalancer::FNV1A})
    {
        auto lb = CreateObject<EcmpLoadBalancer>();
        lb->SetAttribute("HashFunction", EnumValue(fn));
        const double expected = fn == EcmpLoadBalancer::FNV1A ? 8.0 : 5.251;
        double used = 0;
        const int trials = 4000;
        for (int t = 0; t < trials; ++t)
        {
            lb->SetAttribute("Seed", UintegerValue(static_cast<uint32_t>(t)));
            std::set<uint32_t> u;
            for (uint16_t i = 0; i < 8; ++i)
            {
                u.insert(Pick(lb, At(0), Flow(3, 7, static_cast<uint16_t>(50000 + i)), c));
            }
            used += u.size();
        }
        // Murmur3: E[bins used] of 8 balls in 8 bins = 8 (1 - (7/8)^8) = 5.251.
        CHECK(used / trials == Approx(expected).epsilon(0.02));
    }
}

TEST_CASE("ECMP with the same seed everywhere polarises a second tier", "[unit][ecmp][oracle10]")
{
    // A ToR picks one of 2 aggregation switches, which each pick one of 2 cores. With the same
    // seed, an aggregation switch sees only flows whose hash is h mod 2 = its index, and sends
    // them all to its core h mod 2 = the same index: 2 of 4 cores carry everything.
    auto c2 = Candidates(2);
    std::mt19937_64 rng(1);
    auto run = [&](bool sameSeed) {
        auto tor = CreateObject<EcmpLoadBalancer>();
        std::array<Ptr<EcmpLoadBalancer>, 2> agg = {CreateObject<EcmpLoadBalancer>(),
                                                    CreateObject<EcmpLoadBalancer>()};
        tor->SetAttribute("Seed", UintegerValue(77));
        agg[0]->SetAttribute("Seed", UintegerValue(sameSeed ? 77 : 1234));
        agg[1]->SetAttribute("Seed", UintegerValue(sameSeed ? 77 : 98765));
        std::array<int, 4> core{};
        for (int f = 0; f < 4096; ++f)
        {
            const FrameMeta m = Flow(f % 4, 4 + f % 12, static_cast<uint16_t>(49152 + rng() % 16384));
            const uint32_t a = Pick(tor, At(0), m, c2);
            ++core[2 * a + Pick(agg[a], At(0), m, c2)];
        }
        return core;
    };
    const auto polarised = run(true);
    CHECK(polarised[1] == 0);
    CHECK(polarised[2] == 0);
    const auto spread = run(false);
    for (int x : spread)
    {
        CHECK(x == Approx(1024).margin(4 * 28)); // binomial sd sqrt(4096 / 4 * 3 / 4) = 27.7
    }
}

TEST_CASE("probing an egress: ECMP answers its hash and counts nothing, DRILL cannot say",
          "[unit][ecmp][drill]")
{
    // A traceroute with a frame's headers learns the frame's egress where the choice is a
    // function of the headers (ECMP), and nothing where it depends on queues and random
    // draws (DRILL): Fabric::TracePath relies on both answers.
    auto c = Candidates(4, {40, 10, 30, 20});
    auto ecmp = CreateObject<EcmpLoadBalancer>();
    ecmp->SetAttribute("Seed", UintegerValue(77));
    for (uint16_t sport = 49152; sport < 49152 + 256; ++sport)
    {
        const FrameMeta f = Flow(3, 9, sport);
        uint32_t probed = 99;
        REQUIRE(ecmp->ProbeEgress(At(0), f, c.data(), 4, probed));
        CHECK(probed == Pick(ecmp, At(1), f, c));
    }
    CHECK(ecmp->GetDecisions() == 256); // the probes were not decisions
    uint32_t one = 99;
    CHECK(ecmp->ProbeEgress(At(0), Flow(3, 9, 1), c.data(), 1, one));
    CHECK(one == 0);
    auto drill = CreateObject<DrillLoadBalancer>();
    uint32_t index = 0;
    CHECK_FALSE(drill->ProbeEgress(At(0), Flow(3, 9, 5), c.data(), 4, index));
    CHECK(drill->GetDecisions() == 0);
}

TEST_CASE("path pinning: one uplink per destination, whoever sends, collides on partial racks",
          "[unit][pinning]")
{
    auto lb = CreateObject<PathPinningLoadBalancer>();
    auto c = Candidates(4);
    // A full destination rack of 4 hosts (16..19): each host its own uplink.
    std::set<uint32_t> used;
    for (uint32_t dst = 16; dst < 20; ++dst)
    {
        const uint32_t port = Pick(lb, At(0), Flow(0, dst, 50000), c);
        used.insert(port);
        for (uint32_t src = 1; src < 8; ++src)
        {
            CHECK(Pick(lb, At(0), Flow(src, dst, static_cast<uint16_t>(50000 + src)), c) == port);
        }
    }
    CHECK(used.size() == 4);
    // A job holding hosts 16 and 20 only: both pinned to the same uplink.
    CHECK(Pick(lb, At(0), Flow(0, 16, 1), c) == Pick(lb, At(0), Flow(0, 20, 2), c));
    // A failed uplink renumbers the group: destinations 16 and 19 now share an uplink.
    auto c3 = Candidates(3);
    CHECK(Pick(lb, At(0), Flow(0, 16, 1), c3) == Pick(lb, At(0), Flow(0, 19, 1), c3));
}

// ---- spraying --------------------------------------------------------------------------

TEST_CASE("round-robin spraying cycles the candidates whatever the flow", "[unit][spray]")
{
    auto lb = CreateObject<RoundRobinSprayLoadBalancer>();
    auto c = Candidates(4);
    std::array<int, 4> load{};
    for (int i = 0; i < 1000; ++i)
    {
        const uint32_t p = Pick(lb, At(i), Flow(i % 7, 9, static_cast<uint16_t>(i)), c);
        CHECK(p == static_cast<uint32_t>(i % 4));
        ++load[p];
    }
    CHECK(load == std::array<int, 4>{250, 250, 250, 250});
}

TEST_CASE("random spraying: every packet of one flow uniformly over the candidates",
          "[unit][spray]")
{
    // One flow, 60 000 packets over 6 ports: chi-square with 5 degrees of freedom below its
    // 99.9 % quantile 20.5; and consecutive packets are independent (P(same port) = 1/6).
    auto lb = CreateObject<RandomSprayLoadBalancer>();
    lb->AssignStreams(17);
    auto c = Candidates(6);
    std::array<int, 6> n{};
    int same = 0;
    uint32_t prev = 99;
    const FrameMeta f = Flow(1, 2, 50000);
    for (int i = 0; i < 60000; ++i)
    {
        const uint32_t p = Pick(lb, At(i), f, c);
        ++n[p];
        same += p == prev;
        prev = p;
    }
    double chi2 = 0;
    for (int x : n)
    {
        chi2 += (x - 10000.0) * (x - 10000.0) / 10000.0;
    }
    CHECK(chi2 < 20.5);
    CHECK(same / 60000.0 == Approx(1.0 / 6).margin(0.006));
}

// ---- DRILL (least-loaded AR: least-loaded-load-balancer-test.cc) -------------------------

TEST_CASE("DRILL(d, m): d samples, m remembered, ties at random", "[unit][drill][oracle11]")
{
    SECTION("d = number of ports, m = 0 is least-loaded AR (oracle 11)")
    {
        auto lb = CreateObject<DrillLoadBalancer>();
        lb->SetAttribute("Samples", UintegerValue(4));
        lb->SetAttribute("Memory", UintegerValue(0));
        lb->AssignStreams(3);
        auto c = Candidates(4, {1, 3, 1, 5});
        std::array<int, 4> n{};
        for (int i = 0; i < 10000; ++i)
        {
            ++n[Pick(lb, At(i), Flow(0, 1, 2), c)];
        }
        CHECK(n[1] + n[3] == 0);
        CHECK(n[0] / 1e4 == Approx(0.5).margin(0.02));
    }
    SECTION("DRILL(2, 0): the least loaded of 2 random ports, the power of two choices")
    {
        // Distinct loads, 4 ports: the globally least loaded is chosen iff it is sampled,
        // P = 1 - C(3,2)/C(4,2) = 1/2; the most loaded never is.
        auto lb = CreateObject<DrillLoadBalancer>();
        lb->SetAttribute("Memory", UintegerValue(0));
        auto c = Candidates(4, {40, 10, 30, 20});
        std::array<int, 4> n{};
        for (int i = 0; i < 20000; ++i)
        {
            ++n[Pick(lb, At(i), Flow(0, 1, 2), c)];
        }
        CHECK(n[1] / 2e4 == Approx(0.5).margin(0.015));
        CHECK(n[0] == 0);
        // Second least loaded: chosen when sampled with one of the two heavier: 2/6.
        CHECK(n[3] / 2e4 == Approx(1.0 / 3).margin(0.015));
    }
    SECTION("DRILL(2, 1): once found, the least loaded port is remembered")
    {
        auto lb = CreateObject<DrillLoadBalancer>();
        auto c = Candidates(8, {80, 70, 60, 50, 40, 30, 0, 10});
        int hits = 0;
        for (int i = 0; i < 1000; ++i)
        {
            hits += Pick(lb, At(i), Flow(0, 1, 2), c) == 6;
        }
        // Found within the first few packets (P(not sampled in k packets) = (3/4)^k), then
        // chosen every time.
        CHECK(hits > 970);
        // The remembered port leaves the group: no stale choice.
        auto d = Candidates(4, {5, 1, 7, 9}, 20);
        CHECK(Pick(lb, At(0), Flow(0, 1, 2), d) < 4);
    }
}

// ---- flowlets ------------------------------------------------------------------------------

TEST_CASE("LetFlow: a flowlet keeps its port, a gap > delta draws a new random port",
          "[unit][letflow][oracle18]")
{
    auto lb = CreateObject<LetFlowLoadBalancer>();
    lb->SetAttribute("FlowletGap", TimeValue(MicroSeconds(10)));
    lb->AssignStreams(5);
    auto c = Candidates(4);
    const FrameMeta f = Flow(1, 2, 50000);
    // Packets 1 us apart for 1 ms: one flowlet, one port.
    const uint32_t first = Pick(lb, At(0), f, c);
    for (int i = 1; i <= 1000; ++i)
    {
        REQUIRE(Pick(lb, At(i), f, c) == first);
    }
    CHECK(lb->GetFlowlets() == 1);
    // A gap of exactly delta still continues the flowlet; more than delta starts a new one.
    CHECK(Pick(lb, At(1010), f, c) == first);
    CHECK(lb->GetFlowlets() == 1);
    Pick(lb, At(1020.001), f, c);
    CHECK(lb->GetFlowlets() == 2);
    // Each new flowlet's port is uniformly random: 4000 flowlets, sd of a count 27.
    std::array<int, 4> n{};
    double t = 2000;
    for (int k = 0; k < 4000; ++k)
    {
        t += 11; // every packet a new flowlet
        ++n[Pick(lb, At(t), f, c)];
    }
    for (int x : n)
    {
        CHECK(x == Approx(1000).margin(120));
    }
    // The flowlet's port leaves the group (its link went down): the next packet of the
    // flowlet moves at once, gap or no gap.
    uint32_t p = Pick(lb, At(t += 11), f, c);
    while (c[p].port != 0)
    {
        p = Pick(lb, At(t += 11), f, c);
    }
    auto three = Candidates(3, {}, 1); // ports 1, 2, 3
    const uint64_t before = lb->GetFlowlets();
    CHECK(three[Pick(lb, At(t + 0.5), f, three)].port != 0);
    CHECK(lb->GetFlowlets() == before + 1);
}

TEST_CASE("random draws are counted where a policy's choice can change: one per new LetFlow "
          "flowlet, none for a kept flowlet, ECMP or a single candidate",
          "[unit][letflow][random-draws]")
{
    // Fast mode's steady rule refuses an iteration in which a policy drew at random
    // (RandomDraws, docs/fast-mode.md): the count must be what the policies drew.
    auto lb = CreateObject<LetFlowLoadBalancer>();
    lb->SetAttribute("FlowletGap", TimeValue(MicroSeconds(10)));
    lb->AssignStreams(5);
    auto c = Candidates(4);
    const FrameMeta f = Flow(1, 2, 50000);
    const uint64_t start = RandomDraws::Count();
    auto drawn = [&start]() { return RandomDraws::Count() - start; };
    for (int i = 0; i <= 100; ++i)
    {
        Pick(lb, At(i), f, c); // one flowlet: one draw
    }
    CHECK(drawn() == 1);
    double t = 100;
    for (int k = 0; k < 50; ++k)
    {
        Pick(lb, At(t += 11), f, c); // every packet a new flowlet
    }
    CHECK(lb->GetFlowlets() == 51);
    CHECK(drawn() == 51);
    // One candidate: the switch does not ask the policy, nothing is drawn.
    auto one = Candidates(1);
    Pick(lb, At(t += 11), Flow(3, 4, 50001), one);
    CHECK(drawn() == 51);
    // ECMP hashes: never a draw.
    auto ecmp = CreateObject<EcmpLoadBalancer>();
    for (int i = 0; i < 100; ++i)
    {
        Pick(ecmp, At(i), Flow(i, i + 1, static_cast<uint16_t>(50000 + i)), c);
    }
    CHECK(drawn() == 51);
    // Per-packet spraying: a draw per packet.
    auto spray = CreateObject<RandomSprayLoadBalancer>();
    spray->AssignStreams(3);
    for (int i = 0; i < 100; ++i)
    {
        Pick(spray, At(i), f, c);
    }
    CHECK(drawn() == 151);
    // DRILL(2, 1) of 4 ports with distinct loads: two samples per packet (among 4, then 3).
    auto drill = CreateObject<DrillLoadBalancer>();
    drill->AssignStreams(4);
    auto loaded = Candidates(4, {40, 10, 30, 20});
    Pick(drill, At(0), f, loaded);
    CHECK(drawn() == 153);
    // A draw among one value changes nothing: not counted, the stream still advances.
    auto rng = CreateObject<UniformRandomVariable>();
    RandomDraws::Integer(*rng, 3, 3);
    CHECK(drawn() == 153);
    RandomDraws::Value(*rng);
    CHECK(drawn() == 154);
}

TEST_CASE("flowlet table: bounded and aged", "[unit][letflow]")
{
    auto lb = CreateObject<LetFlowLoadBalancer>();
    lb->SetAttribute("TableSize", UintegerValue(16));
    lb->SetAttribute("FlowletGap", TimeValue(MicroSeconds(5)));
    auto c = Candidates(4);
    for (uint32_t f = 0; f < 1000; ++f)
    {
        Pick(lb, At(1), Flow(f, f + 1, static_cast<uint16_t>(50000 + f)), c);
    }
    CHECK(lb->GetTable().GetSize() == 16); // 1000 flows, never more than 16 entries
    const uint64_t gap = MicroSeconds(5).GetPicoSeconds();
    CHECK(lb->GetTable().CountActive(MicroSeconds(6).GetPicoSeconds(), gap) == 16);
    // One picosecond after the gap every entry has aged out.
    CHECK(lb->GetTable().CountActive(MicroSeconds(6).GetPicoSeconds() + 1, gap) == 0);
}

// ---- registry ---------------------------------------------------------------------------------

TEST_CASE("every policy preset names registered TypeIds and attributes", "[unit][registry]")
{
    for (const auto& p : SwitchPolicies())
    {
        INFO(p.name);
        TypeId tid;
        REQUIRE(TypeId::LookupByNameFailSafe(p.typeId, &tid));
        CHECK(tid.IsChildOf(TypeId::LookupByName("ns3::LoadBalancer")));
        for (const auto& [name, value] : p.attributes)
        {
            TypeId::AttributeInformation info;
            REQUIRE(tid.LookupAttributeByName(name, &info));
            CHECK(info.checker->CreateValidValue(StringValue(value)));
        }
        if (!p.pathSelector.empty())
        {
            CHECK(ResolvePathSelector(p.pathSelector) == p.pathSelector);
        }
        CHECK(ResolveSwitchPolicy(p.name) == p.typeId);
        CHECK_FALSE(p.source.empty()); // `tusk policies` cites where it comes from
        // QPs pinned to source routes need switches that forward by the route.
        CHECK((p.qpEntropy.empty() ||
               (p.qpEntropy == "routes" && p.typeId == "ns3::SourceRouteLoadBalancer")));
    }
    CHECK(ResolveSwitchPolicy("ns3::DrillLoadBalancer") == "ns3::DrillLoadBalancer");
    CHECK(ResolveSwitchPolicy("ns3::FixedPathSelector").empty());
    CHECK(ResolveSwitchPolicy("nope").empty());
    CHECK(ResolvePathSelector("oblivious-spray") == "ns3::ObliviousSprayPathSelector");
    CHECK(ResolvePathSelector("ns3::EcmpLoadBalancer").empty());
}

} // namespace TUSK_TEST_FILE
