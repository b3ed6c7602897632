// Component tests of training traffic on tiny fabrics: jobs, imported SimAI workloads, the
// scale-up domain, the watchdog, periodic synchronisation and background load, run through
// the same Runner as `tusk run`. Oracles cited from docs/oracles.md.

#include "run-helpers.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/model/input-error.h"
#include "rdma/model/rdma-nic.h"
#include "workload/model/traffic-generators.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sys/wait.h>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

/** One job of one collective kind over all hosts of `spec`. */
tusk::JobEntry
OneCollective(const std::string& kind, const std::string& algorithm, uint64_t bytes,
              uint32_t iterations = 1, uint32_t channels = 1)
{
    tusk::JobEntry j;
    j.name = "j";
    j.iterations = iterations;
    j.channels = channels;
    tusk::JobCollectiveEntry c;
    c.kind = kind;
    c.algorithm = algorithm;
    c.bytes = bytes;
    j.collectives.push_back(c);
    return j;
}

tusk::ScenarioSpec
Jobs(tusk::ScenarioSpec s, std::vector<tusk::JobEntry> jobs)
{
    s.workload.kind = "jobs";
    s.jobs = std::move(jobs);
    return s;
}

std::string
Data(const std::string& rel)
{
    return std::string(TUSK_SOURCE_DIR) + "/data/" + rel;
}

/** Run the `tusk` binary; (exit status, stdout + stderr). */
std::pair<int, std::string>
Tusk(const std::string& args)
{
    const std::string cmd = std::string(TUSK_BINARY_DIR) + "/bin/tusk " + args + " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    REQUIRE(p);
    std::string out;
    std::array<char, 4096> buf{};
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0)
    {
        out.append(buf.data(), n);
    }
    const int raw = ::pclose(p);
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

} // namespace

TEST_CASE("microAllReduce.txt runs as two all-reduces of 16 and 64 MiB, each above the ring "
          "bound (oracles 1, 3)",
          "[component][simai]")
{
    auto spec = LeafSpine(1, 1, 8, 400);
    tusk::JobEntry j;
    j.name = "micro";
    j.file = Data("simai/microAllReduce.txt");
    spec = Jobs(spec, {j});
    auto r = Run(spec);
    REQUIRE(r.finished);
    REQUIRE(r.failure.empty());
    REQUIRE(r.collectives.size() == 2);
    const uint64_t sizes[2] = {16ULL << 20, 64ULL << 20};
    for (int i = 0; i < 2; ++i)
    {
        const auto& c = r.collectives[i];
        CAPTURE(i);
        CHECK(c.kind == "all-reduce");
        CHECK(c.ranks == 8);
        CHECK(c.bytesPerRank == sizes[i]);
        // No collective beats 2(n-1)/n * S / B (oracle 3), and the ring on a non-blocking
        // fabric equals it within 1 % once the wire overhead is counted (oracle 1, as in
        // ring-allreduce-test.cc: 62 B RoCEv2 headers + 20 B PHY per 4096 B packet, plus the
        // 66 + 20 B ACK per packet sharing the uplink) and 14 steps of one store-and-forward hop
        // (oracle 4: 2 links x 1 us + 2 x 4178 B at 400 Gb/s).
        const double bound = ns3::RingAllReduceLowerBoundSeconds(8, sizes[i], 400e9);
        const double cct = c.cctPs * 1e-12;
        CHECK(cct >= bound);
        const double overhead = (4096.0 + 62 + 20 + 66 + 20) / 4096.0;
        const double perStep = 2 * 1e-6 + 2 * (4096 + 82) * 8 / 400e9;
        CHECK(cct == Approx(bound * overhead + 14 * perStep).epsilon(0.01));
        CHECK(c.busbwGBps == Approx(c.algbwGBps * 2.0 * 7 / 8).epsilon(1e-12)); // oracle 2
    }
    // Blocking chain: the second starts after the first finished plus layer 1's 556 us compute.
    CHECK(r.collectives[1].startPs == r.collectives[0].finishPs + 556'000'000ULL);
    CHECK(r.collectives[0].startPs == 556'000'000ULL);
    REQUIRE(r.jobs.size() == 1);
    CHECK(r.jobs[0].tp == 8);
    CHECK(r.jobs[0].finished);
}

TEST_CASE("the same 32 MiB all-reduce issued 10 times on an idle fabric gives identical CCTs",
          "[component][job]")
{
    // 8 ranks over two leaves, so every iteration crosses the spines: ECMP must keep choosing
    // the same paths (the job's connections and their entropies persist across iterations),
    // and nothing may carry over from one iteration to the next (QP state, PSNs, queues).
    auto spec = LeafSpine(2, 2, 4, 400);
    spec.nic.ackInterval = 8;
    auto j = OneCollective("all-reduce", "ring", 32ULL << 20, 10, 2);
    j.computePs = 10'000'000; // 10 us of compute before each: the fabric drains
    auto r = Run(Jobs(spec, {j}));
    REQUIRE(r.finished);
    REQUIRE(r.collectives.size() == 10);
    for (const auto& c : r.collectives)
    {
        CAPTURE(c.iteration);
        CHECK(c.finished);
        CHECK(c.cctPs == r.collectives[0].cctPs);
    }
    CHECK(r.collectives[0].cctPs > 0);
    // Iterations follow each other: finish + 10 us compute = next start.
    for (size_t i = 1; i < 10; ++i)
    {
        CHECK(r.collectives[i].startPs == r.collectives[i - 1].finishPs + 10'000'000ULL);
    }
}

TEST_CASE("every all-reduce algorithm stays above 2(n-1)/n * S / B and halves with double "
          "rate (oracle 3)",
          "[component][oracle3]")
{
    const uint64_t S = 8ULL << 20;
    for (const std::string algo : {"ring", "halving-doubling", "double-binary-tree"})
    {
        CAPTURE(algo);
        double cct[2];
        for (int half = 0; half < 2; ++half)
        {
            const uint64_t gbps = half ? 200 : 400;
            auto spec = LeafSpine(1, 1, 8, gbps, 100);
            spec.nic.ackInterval = 8;
            auto j = OneCollective("all-reduce", algo, S, 1, 2);
            j.chunkBytes = 512 * 1024; // NCCL-like pipelining (matters for the tree)
            auto r = Run(Jobs(spec, {j}));
            REQUIRE(r.finished);
            REQUIRE(r.collectives.size() == 1);
            cct[half] = r.collectives[0].cctPs * 1e-12;
            CHECK(cct[half] >= ns3::RingAllReduceLowerBoundSeconds(8, S, gbps * 1e9));
            CHECK(r.collectives[0].cctPs >= r.collectives[0].lowerBoundPs);
        }
        CHECK(cct[1] / cct[0] == Approx(2.0).epsilon(0.05));
    }
}

TEST_CASE("double-binary-tree all-reduce on an idle fabric matches its pipelined closed form",
          "[component][oracle1]")
{
    // NCCL's double binary tree (n = 8, one leaf): every rank is interior in one tree and a leaf
    // of the other, so it receives 2S in all (S/2 from each of two children and S/2 from its
    // parent in one tree, S/2 from its parent in the other) and sends 2S: the bus time is
    // 2S/B, against the ring's 2(n-1)/n * S/B. Pipelined in K slices of c bytes per tree, a
    // rank moves 4c per slice step, and the first slice crosses 2D hops (reduce up and
    // broadcast down NCCL's btree of depth D = 3) before the pipeline is full:
    //   T = 2S/B * ov * (1 - 1/K) + 2D * (c * ov / B + 2 links),
    // ov the wire's overhead per 4096 B payload as in ring-allreduce-test.cc. Measured 372.05 us
    // against 372.4 us (S = 8 MiB, c = 256 KiB, K = 16, 400 Gb/s, 1 us links).
    const uint64_t S = 8ULL << 20;
    const uint64_t c = 256 * 1024;
    auto spec = LeafSpine(1, 1, 8, 400, 1000);
    auto j = OneCollective("all-reduce", "double-binary-tree", S);
    j.chunkBytes = c;
    auto r = Run(Jobs(spec, {j}));
    REQUIRE(r.finished);
    REQUIRE(r.collectives.size() == 1);
    CHECK(r.collectives[0].algorithm == "double-binary-tree");
    CHECK(r.collectives[0].slices == 16);
    const double ov = (4096.0 + 62 + 20 + 86) / 4096.0;
    const double B = 400e9 / 8;
    const double K = 16;
    const double closed = 2.0 * S / B * ov * (1 - 1 / K) + 2 * 3 * (c * ov / B + 2e-6);
    CHECK(r.collectives[0].cctPs * 1e-12 == Approx(closed).epsilon(0.01));
    // The byte bound the results state for it is 2S/B (every rank's 2S each way).
    CHECK(r.collectives[0].lowerBoundPs == 2 * S * 8 * 1000 / 400);
}

TEST_CASE("all-reduces add one hop latency per dependent step and chunking hides it (oracle 4)",
          "[component][oracle4]")
{
    // Raising every link's delay by delta adds, per dependent step, the latency of one
    // host-switch-host hop (2 links): 2(n-1) steps for the ring, 2 log2(n) for
    // halving-doubling (n = 8, delta = 2 us). With NCCL-like chunks a rank always has a chunk
    // of another step to send while one crosses the fabric, so the added latency is no longer
    // paid per step: at least one hop, far less than 2(n-1) of them.
    const uint64_t S = 8ULL << 20;
    auto added = [&](const std::string& algorithm, uint64_t chunk) {
        double cct[2];
        for (int slow = 0; slow < 2; ++slow)
        {
            auto spec = LeafSpine(1, 1, 8, 400, slow ? 3000 : 1000);
            spec.nic.ackInterval = 8;
            auto j = OneCollective("all-reduce", algorithm, S);
            j.chunkBytes = chunk;
            auto r = Run(Jobs(spec, {j}));
            REQUIRE(r.finished);
            cct[slow] = r.collectives.at(0).cctPs * 1e-12;
        }
        return cct[1] - cct[0];
    };
    const double hop = 2 * 2e-6;
    const double ring = added("ring", 0);
    CHECK(ring == Approx(14 * hop).epsilon(0.10));
    CHECK(added("halving-doubling", 0) == Approx(6 * hop).epsilon(0.10));
    const double chunked = added("ring", 256 * 1024);
    CHECK(chunked >= hop * 0.9);
    CHECK(chunked < ring / 4);
}

TEST_CASE("busbw factors per kind on the packet fabric (oracle 2) and the byte bound",
          "[component][oracle2]")
{
    struct Case
    {
        std::string kind;
        std::string algorithm;
        double factor; // nccl-tests PERFORMANCE.md, n = 8
    };
    for (const Case& c : {Case{"all-gather", "ring", 7.0 / 8}, Case{"reduce-scatter", "ring", 7.0 / 8},
                          Case{"all-to-all", "direct", 7.0 / 8}, Case{"all-to-all", "pairwise", 7.0 / 8},
                          Case{"broadcast", "chain", 1.0}})
    {
        CAPTURE(c.kind, c.algorithm);
        auto spec = LeafSpine(1, 1, 8, 100, 100);
        auto j = OneCollective(c.kind, c.algorithm, 4ULL << 20);
        j.chunkBytes = 256 * 1024;
        auto r = Run(Jobs(spec, {j}));
        REQUIRE(r.finished);
        const auto& row = r.collectives.at(0);
        CHECK(row.busbwFactor == c.factor);
        CHECK(row.busbwGBps == Approx(row.algbwGBps * c.factor).epsilon(1e-12));
        // No rank moves its bytes faster than its NIC.
        CHECK(row.cctPs >= row.lowerBoundPs);
        CHECK(row.stepSlowestFlow.size() == row.stepEndPs.size());
        for (size_t k = 0; k < row.stepEndPs.size(); ++k)
        {
            CHECK(row.stepSlowestFlow[k] >= 0);
            CHECK(row.stepSlowestRank[k] >= 0);
            CHECK(row.stepSlowestRank[k] < 8);
        }
    }
}

TEST_CASE("inside one server the scale-up domain carries a ring at its own rate and latency",
          "[component][scaleup]")
{
    // 8 GPUs of one server: every ring hop is NVLink-like. Each of the 2(n-1) steps moves a
    // block of S/n at rate R (one flow per egress and ingress port, so the full rate) and
    // lands `latency` later; the next step starts on arrival:
    //   CCT = 2(n-1) * (S/n * 8 / R + latency).
    tusk::ScenarioSpec spec;
    spec.topology.kind = "rail-optimised";
    spec.topology.rail.servers = 1;
    spec.topology.rail.gpusPerServer = 8;
    spec.topology.rail.spines = 1;
    spec.scaleUp.gpusPerServer = 8;
    spec.scaleUp.rateBps = 2'400'000'000'000ULL;
    spec.scaleUp.latencyPs = 700'000;
    const uint64_t S = 16ULL << 20;
    auto r = Run(Jobs(spec, {OneCollective("all-reduce", "ring", S)}));
    REQUIRE(r.finished);
    const double expect = 14 * ((S / 8) * 8.0 / 2.4e12 + 700e-9);
    CHECK(r.collectives[0].cctPs * 1e-12 == Approx(expect).epsilon(1e-6));
    for (const auto& f : r.flows)
    {
        CHECK(f.scaleUp);
        CHECK(f.qps == 0);
        CHECK(f.slowdown == Approx(1.0).epsilon(1e-6)); // alone on its ports: ideal
    }
    CHECK(r.conservation.sent == 0); // nothing entered the packet fabric
}

TEST_CASE("a collective whose group can never complete is named by the watchdog", "[component][watchdog]")
{
    // Host 2's link fails before the start: the ring all-reduce's hop into and out of rank 2
    // can never deliver; go-back-N keeps retransmitting, so the simulator never runs dry. The
    // watchdog must stop the run and name the collective, long before stop_time_ms.
    auto spec = LeafSpine(1, 1, 4, 100, 100);
    spec.workload.watchdogPs = 5'000'000'000ULL; // 5 ms
    spec.nic.rtoPs = 200'000'000;                // 200 us
    spec.stopTimePs = 1'000'000'000'000ULL;      // 1 s
    auto j = OneCollective("all-reduce", "ring", 1 << 20);
    j.name = "stuck";
    tusk::RunOptions o;
    o.beforeRun = [](ns3::Fabric& f, const std::vector<ns3::Ptr<ns3::RdmaNic>>& nics) {
        for (auto& l : f.links)
        {
            if (l.devA == nics[2] || l.devB == nics[2])
            {
                l.devA->SetLinkUp(false);
                l.devB->SetLinkUp(false);
            }
        }
    };
    auto r = Run(Jobs(spec, {j}), o);
    CHECK_FALSE(r.finished);
    INFO(r.failure);
    CHECK(r.failure.find("watchdog: no progress") != std::string::npos);
    CHECK(r.failure.find("collective 0 (all-reduce ring, job 0 'stuck', iteration 0") !=
          std::string::npos);
    CHECK(r.failure.find("cannot complete") != std::string::npos);
    CHECK(r.simEndPs < 50'000'000'000ULL); // stopped within a few watchdog periods, not at 1 s
    // The 200 us timer fires well within the watchdog: the message has no timer note.
    CHECK(r.failure.find("nic.rto_us") == std::string::npos);

    // With a retransmission timeout longer than the watchdog, the message says so and names
    // the key (a user reading "no progress" would otherwise not know the resend was still due).
    spec.nic.rtoPs = 10'000'000'000ULL; // 10 ms > the 5 ms watchdog
    auto slow = Run(Jobs(spec, {j}), o);
    CHECK_FALSE(slow.finished);
    INFO(slow.failure);
    CHECK(slow.failure.find("watchdog: no progress") != std::string::npos);
    CHECK(slow.failure.find("nic.rto_us = 10000.000 us") != std::string::npos);
}

TEST_CASE("a stopped run counts a collective's unfinished transfers as its headline does and the delivered but unacknowledged apart",
          "[component][watchdog]")
{
    // The headline "N of M transfers unfinished" counts transfers not every byte of which was
    // delivered (flows.csv's `finished`); the line naming the collective must count the same
    // N, and a transfer delivered whose ACK had not come back by the stop is said apart. Stop
    // times every 2 us through a 4-rank ring all-reduce (6 steps of 256 KiB at 100 Gb/s, 1 us
    // links: an ACK is some 2 us behind its delivery).
    auto spec = LeafSpine(1, 1, 4, 100, 1000);
    const auto j = OneCollective("all-reduce", "ring", 1 << 20);
    const std::regex headline(R"(^(\d+) of (\d+) transfers unfinished)");
    const std::regex line(R"(cannot complete: (\d+) transfers unfinished( and (\d+) delivered, not acknowledged)?)");
    int stops = 0;
    int withUnacknowledged = 0;
    for (uint64_t us = 5; us <= 160; us += 2)
    {
        spec.stopTimePs = us * 1'000'000ULL;
        auto r = Run(Jobs(spec, {j}));
        if (r.finished)
        {
            continue;
        }
        INFO("stop at " << us << " us: " << r.failure);
        std::smatch h;
        std::smatch c;
        REQUIRE(std::regex_search(r.failure, h, headline));
        REQUIRE(std::regex_search(r.failure, c, line));
        CHECK(h[1].str() == c[1].str());
        const auto unfinished = std::count_if(r.flows.begin(), r.flows.end(),
                                              [](const tusk::FlowRow& f) { return !f.finished; });
        CHECK(std::stoul(c[1].str()) == static_cast<unsigned long>(unfinished));
        ++stops;
        withUnacknowledged += c[3].matched ? 1 : 0;
    }
    CHECK(stops >= 40);
    CHECK(withUnacknowledged >= 1); // a stop between a delivery and its ACK was caught
}

TEST_CASE("a hierarchical ring with one slow link completes, slower, above its byte bound",
          "[component][scaleup]")
{
    // 2 servers x 4 GPUs with a scale-up domain, rails 0..3 as 4 switches (HPCC topology file,
    // so that one rail link can be slower). Hierarchical all-reduce: reduce-scatter over NVLink,
    // all-reduce across the 2 servers on each rail, all-gather over NVLink.
    auto topo = [](uint64_t slowGbps) {
        // nodes 0..7 GPUs (server = id / 4), 8..11 rail switches
        std::string t = "12 4 8\n8 9 10 11\n";
        for (int g = 0; g < 8; ++g)
        {
            const uint64_t rate = g == 5 ? slowGbps : 400;
            t += std::to_string(g) + " " + std::to_string(8 + g % 4) + " " +
                 std::to_string(rate) + "Gbps 0.001ms 0\n";
        }
        return t;
    };
    double cct[2];
    for (int slow = 0; slow < 2; ++slow)
    {
        const std::string path = (std::filesystem::temp_directory_path() /
                                  ("tusk-rails-" + std::to_string(slow) + ".txt"))
                                     .string();
        std::ofstream(path) << topo(slow ? 40 : 400);
        tusk::ScenarioSpec spec;
        spec.topology.kind = "hpcc";
        spec.topology.file = path;
        spec.scaleUp.gpusPerServer = 4;
        spec.nic.ackInterval = 8;
        auto j = OneCollective("all-reduce", "hierarchical-ring", 16ULL << 20, 1, 2);
        auto r = Run(Jobs(spec, {j}));
        std::remove(path.c_str());
        REQUIRE(r.failure.empty());
        REQUIRE(r.finished);
        const auto& c = r.collectives.at(0);
        cct[slow] = c.cctPs * 1e-12;
        CHECK(c.cctPs >= c.lowerBoundPs);
        if (slow)
        {
            // GPU 5 sends and receives its rail's block across servers: 2 (m-1)/m * S/L =
            // S/4 = 4 MiB each way, at 40 Gb/s at best.
            CHECK(cct[1] >= (4ULL << 20) * 8 / 40e9);
        }
    }
    CHECK(cct[1] > 5 * cct[0]);
}

TEST_CASE("periodic synchronisation (DiLoCo-style) communicates every H steps", "[component][job]")
{
    auto base = LeafSpine(2, 1, 2, 100, 100);
    double jct[2];
    for (int h = 0; h < 2; ++h)
    {
        tusk::JobEntry j;
        j.name = "diloco";
        j.dp = 4;
        j.iterations = 8;
        j.syncEvery = h ? 4 : 1;
        tusk::JobCollectiveEntry c;
        c.kind = "all-reduce";
        c.group = "dp";
        c.bytes = 2ULL << 20;
        c.computePs = 50'000'000; // 50 us of inner-step compute
        j.collectives.push_back(c);
        auto r = Run(Jobs(base, {j}));
        REQUIRE(r.finished);
        CHECK(r.collectives.size() == (h ? 2u : 8u));
        if (h)
        {
            CHECK(r.collectives[0].iteration == 3);
            CHECK(r.collectives[1].iteration == 7);
        }
        jct[h] = (r.jobs.at(0).finishPs - r.jobs.at(0).startPs) * 1e-12;
    }
    // 8 steps of compute either way; H = 4 pays for 2 all-reduces instead of 8.
    CHECK(jct[1] < jct[0]);
    CHECK(jct[1] > 8 * 50e-6);
}

TEST_CASE("two jobs with their own placement and start, plus background load", "[component][job]")
{
    auto spec = LeafSpine(2, 2, 4, 100, 100);
    auto a = OneCollective("all-reduce", "ring", 1 << 20);
    a.name = "a";
    a.ranks = 4;
    a.placement = "rack-aware";
    auto b = OneCollective("all-to-all", "direct", 1 << 20);
    b.name = "b";
    b.ranks = 4;
    b.placement = "contiguous";
    b.startPs = 20'000'000; // 20 us
    spec = Jobs(spec, {a, b});
    tusk::BackgroundEntry bg;
    bg.cdfFile = Data("hpcc/WebSearch_distribution.txt");
    bg.load = 0.2;
    bg.durationPs = 200'000'000; // 200 us
    spec.background.push_back(bg);
    auto r = Run(spec);
    REQUIRE(r.finished);
    REQUIRE(r.jobs.size() == 2);
    // rack-aware on two leaves of 4: job a fills leaf 0; job b gets the next free hosts.
    CHECK(r.jobs[0].hosts == std::vector<uint32_t>{0, 1, 2, 3});
    CHECK(r.jobs[1].hosts == std::vector<uint32_t>{4, 5, 6, 7});
    CHECK(r.collectives.at(1).startPs == 20'000'000ULL);
    size_t background = 0;
    for (const auto& f : r.flows)
    {
        if (f.background)
        {
            ++background;
            CHECK(f.job == -1);
            CHECK(f.slowdown >= 1.0 - 1e-9);
        }
        else
        {
            CHECK(f.job == r.collectives.at(f.collective).job);
        }
    }
    CHECK(background > 0);
}

TEST_CASE("background traffic runs on its own, without flows or jobs", "[component][background]")
{
    // The paper reproductions (ConWeave, LetFlow, DRILL) offer Poisson flows and nothing else.
    auto spec = LeafSpine(2, 2, 4, 100, 100);
    REQUIRE(spec.workload.kind == "flows");
    REQUIRE(spec.workload.flows.empty());
    tusk::BackgroundEntry bg;
    bg.cdfFile = Data("hpcc/WebSearch_distribution.txt");
    bg.load = 0.3;
    bg.durationPs = 2'000'000'000; // 2 ms
    spec.background.push_back(bg);
    const auto r = Run(spec);
    REQUIRE(r.finished);
    REQUIRE(r.flows.size() > 10); // 8 hosts x 0.3 x 100 Gb/s x 2 ms / 1.7 MB mean: about 35
    uint64_t bytes = 0;
    for (const auto& f : r.flows)
    {
        CHECK(f.background);
        CHECK(f.deliveredBytes == f.bytes);
        bytes += f.bytes;
    }
    CHECK(r.collectives.empty());
    CHECK(bytes > 0);
}

TEST_CASE("tusk run: an inconsistent SimAI header or parallel layout exits 2 and writes nothing",
          "[component][cli][jobs]")
{
    const auto dir = std::filesystem::temp_directory_path() / "tusk-training-cli";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string head = "name = \"t\"\n[topology]\nleaves = 1\nspines = 1\n"
                             "hosts_per_leaf = 8\n[workload]\nkind = \"jobs\"\n";
    // TP 3 on 8 GPUs: 8 is not a multiple of TP * PP * EP.
    std::ofstream(dir / "bad.txt") << "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 3 "
                                      "ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 8\n0\n";
    std::ofstream(dir / "simai.toml") << head << "[[jobs]]\nfile = \"bad.txt\"\n";
    auto [status, out] = Tusk("run " + (dir / "simai.toml").string() + " --out " +
                              (dir / "out1").string());
    CHECK(status == 2);
    CHECK(out.find((dir / "bad.txt").string() + ":1: header: inconsistent parallelism") !=
          std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "out1"));
    // TP 4 * PP 2 * DP 3 != 16 ranks.
    std::ofstream(dir / "layout.toml")
        << "name = \"t\"\n[topology]\nleaves = 2\nspines = 1\nhosts_per_leaf = 8\n"
           "[workload]\nkind = \"jobs\"\n[[jobs]]\ntp = 4\npp = 2\ndp = 3\n"
           "[[jobs.collectives]]\nkind = \"all-reduce\"\nbytes = 1024\n";
    std::tie(status, out) = Tusk("run " + (dir / "layout.toml").string() + " --out " +
                                 (dir / "out2").string());
    CHECK(status == 2);
    CHECK(out.find("layout.toml:11: jobs[0].dp: TP * PP * DP * EP = 4 * 2 * 3 * 1 = 24, but "
                   "the job has 16 ranks") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("algorithm = \"auto\" in [[jobs]]: NCCL's choice per collective, in collectives.csv",
          "[component][job][auto]")
{
    // Two jobs of 16 ranks on one leaf each of a 2x1 leaf-spine at 400 Gb/s (busBw 50 GB/s, no
    // scale-up domain, so N = n = 16 nodes). NCCL's tuning model (src/graph/tuning.cc, Simple;
    // the formulas of collective-registry.h), worked by hand:
    //   ring: algBw = 50 * 16 / 30 = 26.67 GB/s; latency 8.4 + 30 * 9.6 = 296.4 us, x 1.9 =
    //         563.2 us from S >= 16/16 * 65536 B;
    //   tree: algBw = 0.5 * min(45, 80) * c(S) GB/s; latency 2 * floor(log2 16) * 50 = 400 us.
    // 1 MiB (c = 0.5): ring 563.2 + 39.3 = 602.5 us; tree 400 + 93.2 = 493.2 us -> tree
    // 4 KiB (c = 0.9): ring 296.4 + 0.15 us; tree 400 + 0.2 us               -> ring
    auto spec = LeafSpine(2, 1, 16, 400, 1000);
    auto a = OneCollective("all-reduce", "auto", 1 << 20);
    a.name = "a";
    a.ranks = 16;
    auto b = OneCollective("all-reduce", "auto", 4096);
    b.name = "b";
    b.ranks = 16;
    tusk::JobCollectiveEntry gather; // "auto" for a kind without a choice: its default
    gather.kind = "all-gather";
    gather.algorithm = "auto";
    gather.bytes = 4096;
    b.collectives.push_back(gather);
    auto r = Run(Jobs(spec, {a, b}));
    REQUIRE(r.finished);
    REQUIRE(r.collectives.size() == 3);
    std::map<std::string, std::string> chosen;
    for (const auto& c : r.collectives)
    {
        chosen[std::to_string(c.job) + "/" + c.kind] = c.algorithm;
    }
    CHECK(chosen["0/all-reduce"] == "double-binary-tree");
    CHECK(chosen["1/all-reduce"] == "ring");
    CHECK(chosen["1/all-gather"] == "ring");
}

} // namespace TUSK_TEST_FILE
