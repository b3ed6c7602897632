// The shared-buffer MMU (fabric/model/shared-buffer-mmu.h) and the ECN marking curve
// (oracle 14), without a Simulator.

#include "fabric/model/shared-buffer-mmu.h"
#include "fabric/model/switch-port.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/object-factory.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

Ptr<SharedBufferMmu>
Mmu(uint64_t buffer, double alpha, uint64_t headroom, uint16_t ports = 4)
{
    auto m = CreateObject<SharedBufferMmu>();
    m->SetAttribute("BufferBytes", UintegerValue(buffer));
    m->SetAttribute("Alpha", DoubleValue(alpha));
    m->SetAttribute("XonOffsetBytes", UintegerValue(2000));
    m->SetPorts(ports);
    for (uint16_t p = 0; p < ports; ++p)
    {
        m->SetHeadroom(p, headroom);
    }
    return m;
}

} // namespace

TEST_CASE("MMU: lossless frames fill shared space, then headroom, and ask for a pause",
          "[unit][mmu]")
{
    // 1 MB buffer, 4 ports x 1 lossless PG x 100 kB headroom = 400 kB: shared pool 600 kB.
    // Dynamic threshold alpha = 1: T = free shared bytes; one PG alone may use up to half
    // the pool (s = T = 600k - s  =>  s = 300 kB).
    auto m = Mmu(1'000'000, 1.0, 100'000);
    REQUIRE(m->GetSharedPoolBytes() == 600'000);
    uint64_t admitted = 0;
    while (m->Admit(0, 1, 3, 1000) == SharedBufferMmu::ADMIT)
    {
        admitted += 1000;
        REQUIRE(m->CheckInvariants());
    }
    CHECK(admitted == 300'000);
    CHECK(m->ShouldPause(0, 3));
    // The next 99 frames go to headroom; the 101st does not fit: a named drop.
    for (int i = 1; i < 100; ++i)
    {
        REQUIRE(m->Admit(0, 1, 3, 1000) == SharedBufferMmu::ADMIT_HEADROOM);
    }
    CHECK(m->GetHeadroomUsed(0, 3) == 100'000);
    CHECK(m->Admit(0, 1, 3, 1000) == SharedBufferMmu::DROP_HEADROOM);
    CHECK(m->CheckInvariants());
    // Another ingress is not affected by this one's pause.
    CHECK_FALSE(m->ShouldPause(1, 3));
    // Draining: headroom first; no resume while headroom is in use or shared use is above
    // T - XonOffset.
    for (int i = 0; i < 100; ++i)
    {
        m->Release(0, 1, 3, 1000);
        CHECK_FALSE(m->ShouldResume(0, 3));
    }
    int released = 0;
    while (!m->ShouldResume(0, 3))
    {
        m->Release(0, 1, 3, 1000);
        ++released;
        REQUIRE(released < 400);
    }
    // Resume at s + 2000 <= 600k - s, i.e. s <= 299 kB: after one more 1 kB release.
    CHECK(released == 1);
    CHECK(m->CheckInvariants());
}

TEST_CASE("MMU: lossy frames are dropped at the egress threshold, never paused", "[unit][mmu]")
{
    auto m = Mmu(1'000'000, 0.125, 100'000);
    m->SetAttribute("EgressAlpha", DoubleValue(1.0));
    uint64_t admitted = 0;
    SharedBufferMmu::Verdict v;
    while ((v = m->Admit(0, 2, 0, 1000)) == SharedBufferMmu::ADMIT)
    {
        admitted += 1000;
    }
    CHECK(v == SharedBufferMmu::DROP_EGRESS);
    CHECK(admitted == 300'000); // same fixed point: e = 600k - e
    CHECK_FALSE(m->ShouldPause(0, 0));
    CHECK(m->GetHeadroomUsed(0, 0) == 0);
}

TEST_CASE("MMU: counters never go negative and always equal the bytes held (random walk)",
          "[unit][mmu]")
{
    auto m = Mmu(2'000'000, 0.5, 50'000, 8);
    std::mt19937_64 rng(11);
    struct Held
    {
        uint16_t in, out;
        uint8_t prio;
        uint32_t bytes;
    };
    std::vector<Held> held;
    uint64_t sum = 0;
    for (int step = 0; step < 200'000; ++step)
    {
        if (held.empty() || rng() % 3 != 0)
        {
            Held h{static_cast<uint16_t>(rng() % 8), static_cast<uint16_t>(rng() % 8),
                   static_cast<uint8_t>(rng() % 2 ? 3 : 0), static_cast<uint32_t>(64 + rng() % 4000)};
            const auto v = m->Admit(h.in, h.out, h.prio, h.bytes);
            if (v == SharedBufferMmu::ADMIT || v == SharedBufferMmu::ADMIT_HEADROOM)
            {
                held.push_back(h);
                sum += h.bytes;
            }
        }
        else
        {
            const size_t i = rng() % held.size();
            m->Release(held[i].in, held[i].out, held[i].prio, held[i].bytes);
            sum -= held[i].bytes;
            held[i] = held.back();
            held.pop_back();
        }
        REQUIRE(m->GetTotalUsed() == sum);
        if (step % 97 == 0)
        {
            REQUIRE(m->CheckInvariants());
        }
    }
}

TEST_CASE("ECN marking curve: Kmin 100 KB, Kmax 400 KB, Pmax 0.2 (oracle 14)", "[unit][ecn][oracle14]")
{
    const uint64_t kmin = 100'000, kmax = 400'000;
    CHECK(EcnMarkProbability(50'000, kmin, kmax, 0.2) == 0.0);
    CHECK(EcnMarkProbability(100'000, kmin, kmax, 0.2) == 0.0);
    CHECK(EcnMarkProbability(250'000, kmin, kmax, 0.2) == Approx(0.1));
    CHECK(EcnMarkProbability(399'999, kmin, kmax, 0.2) == Approx(0.2).epsilon(1e-4));
    CHECK(EcnMarkProbability(400'001, kmin, kmax, 0.2) == 1.0);
    // Kmin = Kmax: a step at K, whatever Pmax (the scenario accepts it: IB's FECN threshold).
    CHECK(EcnMarkProbability(64'000, 64'000, 64'000, 0.2) == 0.0);
    CHECK(EcnMarkProbability(64'001, 64'000, 64'000, 0.2) == 1.0);

    // The port's marking decision, 10^5 draws per point, against a binomial 99 % interval.
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    auto port = CreateObject<SwitchPort>();
    port->SetEcn(true, kmin, kmax, 0.2);
    port->AssignStreams(5);
    const int n = 100'000;
    for (auto [q, p] : std::vector<std::pair<uint64_t, double>>{
             {100'000, 0.0}, {175'000, 0.05}, {250'000, 0.1}, {390'000, 0.1933}, {500'000, 1.0}})
    {
        int marked = 0;
        for (int i = 0; i < n; ++i)
        {
            marked += port->ShouldMarkEcn(q) ? 1 : 0;
        }
        const double sd = std::sqrt(p * (1 - p) / n);
        INFO("queue " << q << " marked " << marked);
        CHECK(static_cast<double>(marked) / n == Approx(p).margin(2.576 * sd + 1e-9));
    }
}

TEST_CASE("ECN thresholds are attributes of the switch port, oracle 14's by default",
          "[unit][ecn][oracle14]")
{
    // Defaults: marking off, Kmin 100 KB, Kmax 400 KB, Pmax 0.2 (oracle 14's curve).
    auto port = CreateObject<SwitchPort>();
    BooleanValue on;
    UintegerValue kmin, kmax;
    DoubleValue pmax;
    port->GetAttribute("EcnMarking", on);
    port->GetAttribute("EcnKminBytes", kmin);
    port->GetAttribute("EcnKmaxBytes", kmax);
    port->GetAttribute("EcnPmax", pmax);
    CHECK_FALSE(on.Get());
    CHECK(kmin.Get() == 100'000);
    CHECK(kmax.Get() == 400'000);
    CHECK(pmax.Get() == 0.2);

    // Set by attribute (as `[ns3] "ns3::SwitchPort::EcnKminBytes"` does), the decision follows:
    // Kmin 1000, Kmax 2000, Pmax 0.5 -> p = 0.25 at 1500 bytes.
    ObjectFactory f("ns3::SwitchPort");
    f.Set("EcnMarking", BooleanValue(true));
    f.Set("EcnKminBytes", UintegerValue(1000));
    f.Set("EcnKmaxBytes", UintegerValue(2000));
    f.Set("EcnPmax", DoubleValue(0.5));
    Ptr<SwitchPort> p = f.Create<SwitchPort>();
    p->AssignStreams(9);
    p->GetAttribute("EcnMarking", on);
    CHECK(on.Get());
    const int n = 100'000;
    int below = 0, mid = 0, above = 0;
    for (int i = 0; i < n; ++i)
    {
        below += p->ShouldMarkEcn(1000) ? 1 : 0;
        mid += p->ShouldMarkEcn(1500) ? 1 : 0;
        above += p->ShouldMarkEcn(2001) ? 1 : 0;
    }
    CHECK(below == 0);
    CHECK(above == n);
    const double sd = std::sqrt(0.25 * 0.75 / n);
    CHECK(static_cast<double>(mid) / n == Approx(0.25).margin(2.576 * sd));
}

} // namespace TUSK_TEST_FILE
