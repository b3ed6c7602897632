// InfiniBand link-level flow control: the credit arithmetic of IBA vol. 1 section 7.9.4
// (ns3-modules/fabric/model/ib-credits.h), oracle 21 of docs/oracles.md, and the
// [fabric] kind keys.

#include "input-error-helpers.h"

#include "fabric/model/ib-credits.h"
#include "lb-policies/switch/ib-static-load-balancer.h"
#include "run/fabric-kinds.h"
#include "scenario/scenario-toml.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <random>
#include <set>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

TEST_CASE("IB credits: 64-byte blocks, FCCL capped at 2048 beyond ABR, modulo 4096",
          "[unit][ib][oracle21]")
{
    CHECK(ib::Blocks(1) == 1);
    CHECK(ib::Blocks(64) == 1);
    CHECK(ib::Blocks(65) == 2);
    CHECK(ib::Blocks(4096 + 58) == 65); // a 4 KiB RoCE payload with its headers
    // FCCL = ABR + min(free, 2048) mod 4096.
    CHECK(ib::Fccl(0, 100) == 100);
    CHECK(ib::Fccl(0, 4096) == 2048); // a 256 KiB buffer advertises 128 KiB (oracle 21)
    CHECK(ib::Fccl(4000, 200) == (4000 + 200) % 4096);
    // A sender with FCTBS = FCCL has no credit; one block more than FCCL − FCTBS is refused.
    CHECK_FALSE(ib::CreditAllows(100, 100, 1));
    CHECK(ib::CreditAllows(164, 100, 64));
    CHECK_FALSE(ib::CreditAllows(164, 100, 65));
    // Across the wrap of the 12-bit counters.
    CHECK(ib::CreditAllows(ib::Mod12(4090 + 70), 4090, 70));
    CHECK_FALSE(ib::CreditAllows(ib::Mod12(4090 + 70), 4090, 71));
    CHECK(ib::Available(ib::Mod12(4090 + 70), 4090) == 70);
    // The whole window at once, but never more than 2048 blocks.
    CHECK(ib::CreditAllows(2048, 0, 2048));
    CHECK_FALSE(ib::CreditAllows(2049 % 4096, 0, 2049));
    CHECK(ib::Available(2048, 0) == 2048);
}

TEST_CASE("IB credits: a sender and receiver on 12-bit counters never overrun the buffer "
          "(oracle 21: at most FCCL - FCTBS blocks in flight, 0 drops exactly)",
          "[unit][ib][oracle21]")
{
    // A random walk of one VL: the sender sends packets of 1..80 blocks when CreditAllows;
    // packets land in the receiver's buffer after a delay; the receiver frees blocks at random
    // and returns FCCL after a delay. Unbounded true counters check the modular ones.
    for (const uint64_t bufferBlocks : {uint64_t{100}, uint64_t{300}, uint64_t{2048}, uint64_t{5000}})
    {
        std::mt19937_64 rng(bufferBlocks);
        // A long link: 60 steps each way hold up to 60 packets (~2400 blocks), more than
        // the 2048-credit window.
        constexpr int kDelay = 60;
        uint16_t fctbs = 0;
        uint16_t fccl = ib::Fccl(0, bufferBlocks);
        uint16_t abr = 0;
        uint64_t used = 0;
        uint64_t peak = 0;
        uint64_t sentTotal = 0;
        uint64_t receivedTotal = 0;
        std::deque<std::pair<int, uint32_t>> wire;    // (arrival step, blocks)
        std::deque<std::pair<int, uint16_t>> updates; // (arrival step, FCCL)
        std::deque<uint32_t> buffered;
        uint32_t next = 1 + rng() % 80;
        uint64_t maxInFlight = 0;
        for (int step = 0; step < 200'000; ++step)
        {
            if (ib::CreditAllows(fccl, fctbs, next))
            {
                fctbs = ib::Mod12(fctbs + next);
                sentTotal += next;
                wire.emplace_back(step + kDelay, next);
                next = 1 + rng() % 80;
            }
            while (!wire.empty() && wire.front().first <= step)
            {
                const uint32_t b = wire.front().second;
                wire.pop_front();
                abr = ib::Mod12(abr + b);
                used += b;
                receivedTotal += b;
                REQUIRE(used <= bufferBlocks); // the invariant
                peak = std::max(peak, used);
                buffered.push_back(b);
            }
            if (!buffered.empty() && rng() % 3 != 0)
            {
                used -= buffered.front();
                buffered.pop_front();
                updates.emplace_back(step + kDelay, ib::Fccl(abr, bufferBlocks - used));
            }
            while (!updates.empty() && updates.front().first <= step)
            {
                fccl = updates.front().second;
                updates.pop_front();
            }
            maxInFlight = std::max(maxInFlight, sentTotal - receivedTotal);
        }
        INFO("buffer " << bufferBlocks << " blocks, peak " << peak << ", most on the wire "
                       << maxInFlight);
        // Never more than 2048 blocks sent beyond what the receiver has counted (ABR), even
        // with a larger buffer: the 12-bit window.
        CHECK(maxInFlight <= std::min<uint64_t>(bufferBlocks, ib::kMaxCredits));
        if (bufferBlocks >= ib::kMaxCredits)
        {
            CHECK(maxInFlight + 80 > ib::kMaxCredits); // the window, not the buffer, binds
        }
        else
        {
            CHECK(peak + 80 > bufferBlocks); // the buffer was used up to its credits
        }
        CHECK(sentTotal > 16 * ib::kCreditModulus); // the 12-bit counters wrapped many times
    }
}

TEST_CASE("[fabric] kind: infiniband keys, echo, and errors", "[unit][scenario][ib]")
{
    const auto d = tusk::LoadScenarioString("", "ib.toml");
    CHECK(d.fabric.kind == "ethernet");
    CHECK(d.fabric.vlBufferBytes == 131072);
    const auto s = tusk::LoadScenarioString(R"([fabric]
kind = "infiniband"
vl_buffer_bytes = "64KiB"
credit_update_latency_ns = 250
)",
                                            "ib.toml");
    CHECK(tusk::FabricKindOf(s).UsesCredits());
    CHECK(s.fabric.vlBufferBytes == 65536);
    CHECK(s.fabric.creditUpdateLatencyPs == 250'000);
    const auto echo = tusk::ScenarioToJson(s);
    CHECK(echo["fabric"]["kind"] == "infiniband");
    CHECK(echo["fabric"]["vl_buffer_bytes"] == 65536);
    // Ethernet: the InfiniBand keys are not echoed (Ethernet manifests are unchanged).
    CHECK_FALSE(tusk::ScenarioToJson(d)["fabric"].contains("vl_buffer_bytes"));

    auto e = tusk_test::ExpectInputError(
        [] { tusk::LoadScenarioString("[fabric]\nvl_buffer_bytes = 1024\n", "ib.toml"); });
    CHECK(e.Key() == "fabric.vl_buffer_bytes");
    CHECK(e.Line() == 2);
    CHECK_THAT(e.Message(), Catch::Contains("infiniband"));
    e = tusk_test::ExpectInputError(
        [] { tusk::LoadScenarioString("[fabric]\nkind = \"ib\"\n", "ib.toml"); });
    CHECK(e.Key() == "fabric.kind");
    CHECK_THAT(e.Message(), Catch::Contains("\"infiniband\""));
}

TEST_CASE("d-mod-k LFT: leaf up-port d mod k, next tier floor(d / k) mod k", "[unit][ib][routing]")
{
    // A 2-tier leaf-spine with 4 spines: destination d leaves every leaf on up-port d mod 4.
    for (uint32_t d = 0; d < 64; ++d)
    {
        CHECK(IbStaticLoadBalancer::DModK(d, 0, 4) == d % 4);
        // A k = 8 fat tree: aggregation switches (second hop) use floor(d / 4) mod 4.
        CHECK(IbStaticLoadBalancer::DModK(d, 1, 4) == (d / 4) % 4);
        CHECK(IbStaticLoadBalancer::DModK(d, 2, 4) == (d / 16) % 4);
        CHECK(IbStaticLoadBalancer::DModK(d, 1, 1) == 0); // one way down
    }
    // The consecutive destinations of one leaf's shift all leave on different up-ports.
    std::set<uint32_t> ports;
    for (uint32_t d = 20; d < 24; ++d)
    {
        ports.insert(IbStaticLoadBalancer::DModK(d, 0, 4));
    }
    CHECK(ports.size() == 4);
}

} // namespace TUSK_TEST_FILE
