// ECMP hash and selection alone, no Simulator: balls into bins (oracle 6), uniformity, and the
// effect of the entropy (UDP source port) on the choice (oracle 10, second sentence).

#include "lb-policies/switch/ecmp-load-balancer.h"

#include "ns3/enum.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

uint32_t
Pick(Ptr<EcmpLoadBalancer> lb, const FrameMeta& m, uint32_t count)
{
    EgressCandidate c[64];
    LbContext ctx;
    return lb->SelectEgress(ctx, m, c, count);
}

FrameMeta
Flow(uint32_t src, uint32_t dst, uint16_t sport)
{
    FrameMeta m;
    m.srcHost = src;
    m.dstHost = dst;
    m.srcPort = sport;
    m.dstPort = 4791;
    return m;
}

} // namespace

TEST_CASE("ECMP over 8 spines with 8 flows: balls into bins (oracle 6)", "[unit][ecmp][oracle6]")
{
    // N = M = 8: P(no collision) = 8!/8^8 = 0.002403; E[bins used] = 8 (1 - (7/8)^8) = 5.251;
    // E[max load] = 2.597 (exact enumeration). Each trial: a fresh switch seed and 8 flows with
    // random entropy, as a leaf with 8 uplinks sees them.
    const int trials = 2'000'000;
    auto lb = CreateObject<EcmpLoadBalancer>();
    std::mt19937_64 rng(2024);
    std::uniform_int_distribution<uint32_t> port(49152, 65535);
    uint64_t noCollision = 0;
    double used = 0;
    double maxLoad = 0;
    for (int t = 0; t < trials; ++t)
    {
        lb->SetAttribute("Seed", UintegerValue(static_cast<uint32_t>(rng())));
        int load[8] = {};
        for (uint32_t f = 0; f < 8; ++f)
        {
            ++load[Pick(lb, Flow(f, 8 + f, static_cast<uint16_t>(port(rng))), 8)];
        }
        const int mx = *std::max_element(load, load + 8);
        noCollision += (mx == 1);
        used += std::count_if(load, load + 8, [](int x) { return x > 0; });
        maxLoad += mx;
    }
    const double p = static_cast<double>(noCollision) / trials;
    // Binomial: sd of p-hat = sqrt(p(1-p)/n) = 3.5e-5; 4 sd = 5.8 % of p.
    CHECK(p == Approx(0.002403).margin(4 * std::sqrt(0.002403 * (1 - 0.002403) / trials)));
    CHECK(used / trials == Approx(5.251).epsilon(0.02));
    CHECK(maxLoad / trials == Approx(2.597).epsilon(0.02));
}

TEST_CASE("ECMP spreads flows uniformly over candidates", "[unit][ecmp]")
{
    auto lb = CreateObject<EcmpLoadBalancer>();
    lb->SetAttribute("Seed", UintegerValue(7));
    const uint32_t m = 6;
    const int flows = 600'000;
    std::vector<int> count(m, 0);
    for (int f = 0; f < flows; ++f)
    {
        ++count[Pick(lb, Flow(f % 1000, 1000 + f / 1000, static_cast<uint16_t>(49152 + f % 997)), m)];
    }
    // Chi-square with 5 degrees of freedom: 99.9 % quantile 20.5.
    double chi2 = 0;
    for (int c : count)
    {
        const double e = static_cast<double>(flows) / m;
        chi2 += (c - e) * (c - e) / e;
    }
    CHECK(chi2 < 20.5);
}

TEST_CASE("changing only the UDP source port moves about (1 - 1/M) of flows (oracle 10)",
          "[unit][ecmp][oracle10]")
{
    auto lb = CreateObject<EcmpLoadBalancer>();
    lb->SetAttribute("Seed", UintegerValue(99));
    const uint32_t m = 4;
    const int flows = 100'000;
    int moved = 0;
    for (int f = 0; f < flows; ++f)
    {
        const auto a = Pick(lb, Flow(f, f + 7, 50000), m);
        const auto b = Pick(lb, Flow(f, f + 7, 50001), m);
        moved += (a != b);
    }
    CHECK(static_cast<double>(moved) / flows == Approx(0.75).margin(0.01));
}

TEST_CASE("ECMP is deterministic per seed and differs across seeds, E-ECMP hashes the QP",
          "[unit][ecmp]")
{
    auto a = CreateObject<EcmpLoadBalancer>();
    auto b = CreateObject<EcmpLoadBalancer>();
    a->SetAttribute("Seed", UintegerValue(1));
    b->SetAttribute("Seed", UintegerValue(2));
    int differ = 0;
    for (uint32_t f = 0; f < 1000; ++f)
    {
        const FrameMeta m = Flow(f, f + 1, 50000);
        CHECK(a->Hash(m) == a->Hash(m));
        differ += a->Hash(m) != b->Hash(m);
    }
    CHECK(differ > 990);
    // Five-tuple hashing ignores the destination QP; E-ECMP does not.
    FrameMeta q1 = Flow(1, 2, 50000);
    FrameMeta q2 = q1;
    q2.dstQp = 77;
    CHECK(a->Hash(q1) == a->Hash(q2));
    a->SetAttribute("HashFields", EnumValue(EcmpLoadBalancer::FIVE_TUPLE_DST_QP));
    CHECK(a->Hash(q1) != a->Hash(q2));
}

} // namespace TUSK_TEST_FILE
