// Who waited: flows.csv's path columns as the frames really went (FrameMeta::path
// decoded), waits.csv on a tiny ring all-reduce with one slow cable, and `tusk locate` on real
// runs (ECMP and spraying) naming the slow link first. Definitions: docs/results-format.md.

#include "cli-helpers.h"
#include "run-helpers.h"

#include "results/results-writer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;
namespace fs = std::filesystem;

namespace
{

/** 4 ranks on one leaf (hosts 0..3, ring 0 -> 1 -> 2 -> 3 -> 0), 256 KiB per step at 100 Gb/s. */
tusk::ScenarioSpec
Ring4(bool slowCable)
{
    auto spec = LeafSpine(1, 1, 4, 100);
    spec.workload.kind = "ring-allreduce";
    spec.workload.bytes = 1ULL << 20;
    spec.workload.channels = 1;
    if (slowCable)
    {
        tusk::FailureEntry f;
        f.kind = "degrade";
        f.link = "host1-leaf0"; // both directions: 0 -> 1 and 1 -> 2 cross it
        f.rateDivisor = 4;
        spec.failures.push_back(f);
    }
    return spec;
}

const tusk::WaitRow&
Wait(const tusk::RunResult& r, uint32_t step, uint32_t rank)
{
    for (const auto& w : r.waits)
    {
        if (w.step == step && w.rank == rank)
        {
            return w;
        }
    }
    FAIL("no waits row for step " << step << " rank " << rank);
    return r.waits.front();
}

bool
Crosses(const tusk::FlowRow& f, uint32_t link)
{
    for (const auto& [links, frames] : f.paths)
    {
        if (std::find(links.begin(), links.end(), link) != links.end())
        {
            return true;
        }
    }
    return false;
}

} // namespace

TEST_CASE("flows.csv paths are the links the frames crossed, with every received frame counted",
          "[component][waits]")
{
    // 2 leaves x 2 spines x 2 hosts: links 0..3 host-leaf, 4 leaf0-spine0, 5 leaf0-spine1,
    // 6 leaf1-spine0, 7 leaf1-spine1 (links.csv order).
    auto spec = LeafSpine(2, 2, 2, 100);
    AddFlow(spec, 0, 1, 200000); // same leaf: host0 -> leaf0 -> host1
    AddFlow(spec, 0, 2, 200000); // across: host0 -> leaf0 -> spineX -> leaf1 -> host2
    for (const std::string policy : {"ecmp", "spray"})
    {
        spec.lb.policy = policy;
        const auto r = Run(spec);
        REQUIRE(r.finished);
        CAPTURE(policy);
        REQUIRE(r.flows[0].paths.size() == 1);
        CHECK(r.flows[0].paths[0].first == std::vector<uint32_t>{0, 1});
        CHECK(r.flows[0].paths[0].second == r.flows[0].pktsReceived);
        uint64_t frames = 0;
        std::set<uint32_t> spinesUsed;
        for (const auto& [links, n] : r.flows[1].paths)
        {
            REQUIRE(links.size() == 4);
            CHECK(links[0] == 0);
            CHECK(links[3] == 2);
            // Up through spine s (link 4 + s), down from the same spine (link 6 + s).
            CHECK((links[1] == 4 || links[1] == 5));
            CHECK(links[2] == links[1] + 2);
            spinesUsed.insert(links[1] - 4);
            frames += n;
        }
        CHECK(frames == r.flows[1].pktsReceived);
        // ECMP pins the flow to one spine; spraying uses both.
        CHECK(spinesUsed.size() == (policy == "ecmp" ? 1u : 2u));
        const std::string csv = tusk::FlowsCsv(r);
        CHECK(csv.find(",path,paths,fair_ideal_fct_us,fair_slowdown\n") != std::string::npos);
        CHECK(csv.find(",0>1,0>1:" + std::to_string(r.flows[0].pktsReceived) + ",") !=
              std::string::npos);
    }
}

TEST_CASE("waits.csv: with one cable at 1/4 the ranks downstream of it wait, and the critical "
          "flow crosses it",
          "[component][waits]")
{
    const auto healthy = Run(Ring4(false));
    const auto slow = Run(Ring4(true));
    REQUIRE(healthy.finished);
    REQUIRE(slow.finished);
    // 4 ranks x 6 steps (2(n-1)), one row each.
    REQUIRE(slow.waits.size() == 24);
    REQUIRE(healthy.waits.size() == 24);

    // Healthy: nobody waits 10 % of a step's ideal time.
    CHECK(healthy.collectives[0].ranksDelayed[1] == 0);
    for (const auto& w : healthy.waits)
    {
        CHECK(w.delay < 0.10);
    }

    // 256 KiB per step = 64 frames of 4096 B + 62 B headers + 20 B PHY overhead. At 1/4 rate a
    // step's transfer over the cable takes 3 more serialisations at 100 Gb/s than ideal.
    const double frameBits = (4096 + 62 + 20) * 8.0;
    const double extraPs = 3 * 64 * frameBits / 100e9 * 1e12;
    // Step 0: rank 1 (its data crosses leaf0 -> host1) and rank 2 (from host1 -> leaf0) wait;
    // ranks 0 and 3 do not.
    for (uint32_t rank : {1u, 2u})
    {
        const auto& w = Wait(slow, 0, rank);
        CAPTURE(rank, w.waitPs, extraPs);
        CHECK(w.waitPs == Approx(extraPs).epsilon(0.05));
        CHECK(w.networkWaitPs == w.waitPs); // everybody sent at once: all of it in the network
        CHECK(w.delay > 2.0);
    }
    CHECK(Wait(slow, 0, 0).delay < 0.10);
    CHECK(Wait(slow, 0, 3).delay < 0.10);
    // Step 1: rank 3's sender (rank 2) starts late, so rank 3 waits too, but not on the
    // network; rank 0 is still on time.
    const auto& w13 = Wait(slow, 1, 3);
    CHECK(w13.waitPs == Approx(extraPs).epsilon(0.1));
    CHECK(w13.networkWaitPs < 0.01 * w13.stepIdealPs);
    CHECK(w13.fromRank == 2);
    CHECK(Wait(slow, 1, 0).delay < 0.10);
    // Step 2: the lateness has gone round the ring to rank 0.
    CHECK(Wait(slow, 2, 0).delay > 2.0);
    // Every rank ends up waiting more than half a step.
    const auto& c = slow.collectives[0];
    CHECK(c.ranksDelayed == std::array<uint32_t, 3>{4, 4, 4});
    // The flow that ended the collective (and every step) crossed the slow cable (link 1).
    REQUIRE(c.criticalFlow >= 0);
    CHECK(Crosses(slow.flows[c.criticalFlow], 1));
    CHECK(slow.flows[c.criticalFlow].slowdown > 3.0);
    for (size_t k = 0; k < c.stepSlowestFlow.size(); ++k)
    {
        CHECK(Crosses(slow.flows[c.stepSlowestFlow[k]], 1));
    }
    // The rows as written.
    const std::string csv = tusk::WaitsCsv(slow);
    CHECK(csv.rfind("collective,step,rank,host,ready_us,sent_us,arrival_us,ideal_us,"
                    "step_ideal_us,wait_us,network_wait_us,delay,from_rank,last_flow\n",
                    0) == 0);
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 25);
}

TEST_CASE("waits: a collective that cannot finish has no critical flow, and its rows are written",
          "[component][waits]")
{
    auto spec = Ring4(false);
    tusk::FailureEntry f;
    f.kind = "nic_down"; // rank 2 stops at 5 us: the ring cannot complete
    f.host = 2;
    f.atPs = 5'000'000;
    spec.failures.push_back(f);
    spec.stopTimePs = 2'000'000'000; // 2 ms
    const auto r = Run(spec);
    REQUIRE_FALSE(r.finished);
    REQUIRE(r.collectives.size() == 1);
    CHECK(r.collectives[0].criticalFlow == -1); // was 4294967295: -1 through a uint32_t
    for (const auto& w : r.waits)
    {
        CHECK(w.lastTransfer < static_cast<int64_t>(r.flows.size()));
        CHECK((w.lastTransfer >= 0) == w.arrived);
    }
    const std::string csv = tusk::CollectivesCsv(r); // read the critical flow's paths past the end
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 2);
    const std::string waits = tusk::WaitsCsv(r);
    CHECK(std::count(waits.begin(), waits.end(), '\n') > 1);
}

namespace
{

/** A 32-host leaf-spine (8 leaves x 4 spines x 4 hosts, 100 Gb/s), 8 rounds of random
 *  permutations of 256 KiB 60 us apart, leaf2-spine1 at 1/4 of its rate. */
std::string
LocateScenario(const std::string& policy)
{
    std::ostringstream s;
    s << "name = \"locate-e2e\"\nseed = 1\nstop_time_ms = 50\n"
         "[topology]\nkind = \"leaf-spine\"\nleaves = 8\nspines = 4\nhosts_per_leaf = 4\n"
         "host_link_gbps = 100\nfabric_link_gbps = 100\n"
         "[pfc]\nenabled = true\nlossless_priorities = [3]\n"
         "[nic]\nreceiver = \"selective-repeat\"\n"
         "[lb]\npolicy = \""
      << policy
      << "\"\n[workload]\nkind = \"flows\"\n"
         "[[failures]]\nat_us = 0\nkind = \"degrade\"\nlink = \"leaf2-spine1\"\nrate_divisor = 4\n";
    std::mt19937_64 rng(7);
    std::vector<uint32_t> p(32);
    for (int round = 0; round < 8; ++round)
    {
        do
        {
            std::iota(p.begin(), p.end(), 0);
            std::shuffle(p.begin(), p.end(), rng);
        } while ([&] {
            for (uint32_t i = 0; i < 32; ++i)
            {
                if (p[i] == i)
                {
                    return true;
                }
            }
            return false;
        }());
        for (uint32_t i = 0; i < 32; ++i)
        {
            s << "[[workload.flows]]\nsrc = " << i << "\ndst = " << p[i]
              << "\nbytes = 262144\nstart_us = " << round * 60 + (i % 8) << "\n";
        }
    }
    return s.str();
}

} // namespace

TEST_CASE("tusk locate names a link at 1/4 rate first on real runs, ECMP and spraying",
          "[component][waits][locate]")
{
    const fs::path dir = Scratch("locate-run");
    for (const std::string policy : {"ecmp", "spray"})
    {
        CAPTURE(policy);
        const fs::path toml = dir / (policy + ".toml");
        std::ofstream(toml) << LocateScenario(policy);
        const fs::path out = dir / policy;
        const auto run = Tusk("run " + toml.string() + " --out " + out.string());
        REQUIRE(run.status == 0);
        // What an operator would not have: link counters, time series, the failures.
        fs::remove(out / "pfc_events.csv");
        // In a subshell: Shell appends 2>&1, and the JSON on stdout must stay alone.
        const auto o = Shell("(" + std::string(TUSK_BINARY_DIR) + "/bin/tusk locate " +
                             out.string() + " --json --top 3 2>/dev/null)");
        REQUIRE(o.status == 0);
        const auto j = nlohmann::json::parse(o.output);
        REQUIRE(!j["ranking"].empty());
        const auto& first = j["ranking"][0];
        CHECK(first["named"].get<bool>());
        bool slowLink = false;
        for (const auto& l : first["links"])
        {
            const auto from = l["from"].get<std::string>();
            const auto to = l["to"].get<std::string>();
            slowLink |= (from == "leaf2" && to == "spine1") || (from == "spine1" && to == "leaf2");
        }
        CHECK(slowLink);
    }
}

} // namespace TUSK_TEST_FILE
