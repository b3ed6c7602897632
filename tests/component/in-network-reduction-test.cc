// In-network reduction (SHARP-style switch aggregation: Graham et al., "Scalable Hierarchical
// Aggregation Protocol (SHArP)", COMHPC 2016; NCCL's CollNet) as a simulated all-reduce on a
// leaf-spine with `[topology] in_network_reduction = true`: its CCT against the closed form of
// in-network-schedule.h, the bytes on every host link (S each way, against 2(n-1)/n * S for a
// ring), NCCL's "auto" choice of it, how results name the aggregation endpoints, and the
// inputs refused.

#include "cli-helpers.h"
#include "run-helpers.h"

#include <map>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

constexpr uint64_t kGbps = 100;
constexpr double kB = kGbps * 1e9; // host and fabric link rate, bit/s
constexpr double kDelay = 1e-6;    // every link's propagation delay, s

/** 2 leaves x 2 hosts, 1 spine, 100 Gb/s, 1 us links; one job of one all-reduce over the 4
 *  hosts, pipelined in slices of chunkBytes. */
tusk::ScenarioSpec
AllReduce(const std::string& algorithm, uint64_t bytes, uint64_t chunkBytes, bool inNetwork)
{
    auto spec = LeafSpine(2, 1, 2, kGbps, 1000);
    spec.topology.leafSpine.inNetworkReduction = inNetwork;
    spec.workload.kind = "jobs";
    tusk::JobEntry j;
    j.name = "j";
    j.chunkBytes = chunkBytes;
    j.maxSlices = 64;
    tusk::JobCollectiveEntry c;
    c.kind = "all-reduce";
    c.algorithm = algorithm;
    c.bytes = bytes;
    j.collectives.push_back(c);
    spec.jobs.push_back(j);
    return spec;
}

/** Frame bytes on the wire per payload byte: a 4096 B packet carries 62 B of RoCEv2 headers
 *  and 20 B of PHY overhead, and each received packet sends a 66 + 20 B ACK back on the same
 *  host link (the ring all-reduce oracle of ring-allreduce-test.cc counts the same). */
constexpr double kWire = (4096.0 + 62 + 20 + 66 + 20) / 4096.0;
/** One full packet's serialisation at rate r, s. */
double
Packet(double r)
{
    return (4096.0 + 62 + 20) * 8 / r;
}

/** tx_bytes of the link row from -> to. */
uint64_t
TxBytes(const tusk::RunResult& r, const std::string& from, const std::string& to)
{
    for (const auto& l : r.links)
    {
        if (l.from == from && l.to == to)
        {
            return l.txBytes;
        }
    }
    FAIL("no link " << from << " -> " << to);
    return 0;
}

} // namespace

TEST_CASE("in-network all-reduce on an idle leaf-spine meets its closed form and carries S each "
          "way per host link",
          "[component][collective][in-network]")
{
    // n = 4 ranks on 2 leaves: endpoints agg.leaf0, agg.leaf1 (links of 2 x 100 + 100 = 300
    // Gb/s) and the root agg.spine0 (2 x 100 = 200 Gb/s); each stream paced at 100 Gb/s.
    const uint64_t S = 4ULL << 20;
    const uint64_t z = S / 8; // K = 8 slices, pipelined through the 4 store-and-forward stages
    const auto r = Run(AllReduce("in-network", S, z, true));
    REQUIRE(r.finished);
    REQUIRE(r.collectives.size() == 1);
    const auto& c = r.collectives[0];
    CHECK(c.algorithm == "in-network");
    CHECK(c.ranks == 4);
    // Closed form (in-network-schedule.h): T = (K + k - 1) z / B + the latency of each of the
    // k = 4 stages, a stage over links i being sum_i (delay_i + packet / rate_i) - packet / B
    // (its first packet's store-and-forward beyond the paced stream):
    //   up:   host -(100G, 1 us)- leaf -(300G)- agg.leaf     -> 1 us + P(300G)
    //   leaf: agg.leaf -(300G)- leaf -(100G, 1 us)- spine -(200G)- agg.spine
    //                                                        -> 1 us + P(300G) + P(200G)
    //   root: agg.spine -(200G)- spine -(100G, 1 us)- leaf -(300G)- agg.leaf, the same
    //   down: agg.leaf -(300G)- leaf -(100G, 1 us)- host     -> 1 us + P(300G)
    const double K = 8;
    const double stages = 4 * kDelay + 4 * Packet(300e9) + 2 * Packet(200e9);
    const double expected = (K + 3) * z * 8 * kWire / kB + stages;
    const double cct = c.cctPs * 1e-12;
    INFO("cct " << cct * 1e6 << " us, closed form " << expected * 1e6 << " us");
    CHECK(cct == Approx(expected).epsilon(0.01));
    // Every rank sends S up and receives S down; each host link carries S (+ headers) and the
    // ACKs of the S it receives, each way.
    const double hostLink = S * (4096.0 + 62 + 66) / 4096.0;
    for (uint32_t h = 0; h < 4; ++h)
    {
        const std::string host = "host" + std::to_string(h);
        const std::string leaf = "leaf" + std::to_string(h / 2);
        CHECK(static_cast<double>(TxBytes(r, host, leaf)) == Approx(hostLink).epsilon(0.001));
        CHECK(static_cast<double>(TxBytes(r, leaf, host)) == Approx(hostLink).epsilon(0.001));
    }
    // Each leaf's uplink carries S once each way (the reduced sum of its two ranks).
    CHECK(static_cast<double>(TxBytes(r, "leaf0", "spine0")) == Approx(hostLink).epsilon(0.001));
    CHECK(static_cast<double>(TxBytes(r, "spine0", "leaf1")) == Approx(hostLink).epsilon(0.001));

    // No switch queue builds: each endpoint stream is paced at one port's rate (QpRateCap),
    // so only ACKs interleaved with data queue a few frames. Unpaced, an endpoint bursts each
    // slice at its 300 Gb/s link into a 100 Gb/s port (measured: 353 KB on the leaf uplinks,
    // 179 KB towards the hosts, the CCT unchanged).
    for (const auto& l : r.links)
    {
        CAPTURE(l.from, l.to);
        CHECK(l.maxQueueBytes < 8 * (4096 + 62 + 20));
    }

    // The ring on the same fabric sends and receives 2(n-1)/n * S = 1.5 S per host link.
    const auto ring = Run(AllReduce("ring", S, z, true));
    REQUIRE(ring.finished);
    CHECK(ring.collectives[0].algorithm == "ring");
    CHECK(static_cast<double>(TxBytes(ring, "host0", "leaf0")) ==
          Approx(1.5 * hostLink).epsilon(0.001));
}

TEST_CASE("auto picks in-network where NCCL's CollNet term is fastest and the switches "
          "aggregate, ring or tree otherwise",
          "[component][collective][in-network]")
{
    // NCCL src/graph/tuning.cc, Simple protocol (collective-registry.h), n = 4 ranks on N = 4
    // nodes (one per host), busBw = 100 Gb/s = 12.5 GB/s:
    //   ring: algBw 12.5 * 4/6 = 8.33 GB/s, latency (8.4 + 6 * 9.6) * 1.9 = 125.4 us (S >= 16 KiB)
    //   tree: algBw 0.5 * 11.25 * c(S), latency 2 * 2 * 50 = 200 us
    //   in-network (CollNet): algBw 0.5 * 0.9 * 12.5 = 5.625 GB/s, latency 10.7 us
    // 256 KiB: ring 125.4 + 31.5 = 156.9; tree (c = 0.5) 200 + 93.2; in-network 10.7 + 46.6 =
    //          57.3 us -> in-network (ring without aggregation)
    // 8 MiB:   ring 125.4 + 1006.6 = 1132; in-network 10.7 + 1491.3 = 1502; tree (c = 0.6)
    //          200 + 2485.5 us -> ring either way
    const auto pick = [](uint64_t bytes, bool inNetwork) {
        const auto r = Run(AllReduce("auto", bytes, 0, inNetwork));
        REQUIRE(r.finished);
        REQUIRE(r.collectives.size() == 1);
        return r.collectives[0].algorithm;
    };
    CHECK(pick(256 << 10, true) == "in-network");
    CHECK(pick(256 << 10, false) == "ring");
    CHECK(pick(8 << 20, true) == "ring");
}

TEST_CASE("results name the aggregation endpoints apart from the hosts of the workload",
          "[component][collective][in-network]")
{
    const auto r = Run(AllReduce("in-network", 64 << 10, 0, true));
    REQUIRE(r.finished);
    // The summary's hosts and jobs.csv count ranks' hosts only; the endpoints are hosts 4, 5
    // (leaves) and 6 (root) in flows.csv, named agg.<switch> in links.csv (tier 0).
    CHECK(r.hosts == 4);
    REQUIRE(r.jobs.size() == 1);
    CHECK(r.jobs[0].hosts == std::vector<uint32_t>{0, 1, 2, 3});
    std::map<uint32_t, uint64_t> received;
    for (const auto& f : r.flows)
    {
        received[f.dst] += f.bytes;
    }
    // Every rank receives the sum S; a leaf endpoint its two ranks' S and the root's sum; the
    // root the two leaves' S.
    const uint64_t S = 64 << 10;
    CHECK(received == std::map<uint32_t, uint64_t>{{0, S}, {1, S}, {2, S}, {3, S}, {4, 3 * S},
                                                  {5, 3 * S}, {6, 2 * S}});
    uint32_t endpointLinks = 0;
    for (const auto& l : r.links)
    {
        if (l.from.rfind("agg.", 0) == 0)
        {
            ++endpointLinks;
            CHECK(l.fromTier == 0);
            CHECK(l.to == l.from.substr(4));
        }
    }
    CHECK(endpointLinks == 3);
    // Without in_network_reduction nothing changes: the same hosts, no endpoint.
    const auto off = Run(AllReduce("ring", 64 << 10, 0, false));
    for (const auto& l : off.links)
    {
        CHECK(l.from.rfind("agg.", 0) != 0);
    }
}

TEST_CASE("in-network reduction refuses a topology that cannot aggregate and an in-network "
          "all-reduce without it",
          "[component][cli][in-network]")
{
    const auto dir = Scratch("in-network-refused");
    auto run = [&](const std::string& name, const std::string& text) {
        Write(dir / name, text);
        return Tusk("run -q " + (dir / name).string() + " --out " + (dir / "out").string());
    };
    const std::string job = "[workload]\nkind = \"jobs\"\n[[jobs]]\n[[jobs.collectives]]\n"
                            "kind = \"all-reduce\"\nbytes = 65536\nalgorithm = \"in-network\"\n";
    {
        const Outcome o = run("ring.toml", "name = \"r\"\n[topology]\nkind = \"ring\"\n"
                                           "in_network_reduction = true\n");
        INFO(o.output);
        CHECK(o.status == 2);
        CHECK_THAT(o.output, Catch::Contains("ring.toml:4: topology.in_network_reduction: "
                                             "`in_network_reduction` is valid only when "
                                             "topology.kind is"));
    }
    {
        const Outcome o = run("planes.toml", "name = \"p\"\n[topology]\nplanes = 2\n"
                                             "in_network_reduction = true\n" + job);
        INFO(o.output);
        CHECK(o.status == 2);
        CHECK_THAT(o.output, Catch::Contains("planes.toml:4: topology.in_network_reduction: "
                                             "in-network reduction needs every host on one "
                                             "switch port"));
    }
    {
        const Outcome o = run("off.toml", "name = \"o\"\n" + job);
        INFO(o.output);
        CHECK(o.status == 2);
        CHECK_THAT(o.output, Catch::Contains("off.toml:8: jobs[0].collectives[0].algorithm: "
                                             "\"in-network\" needs switches that aggregate"));
    }
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_CASE("a Chakra all-reduce runs in the network, and auto picks it at 1 MiB over 8 ranks",
          "[component][chakra][in-network]")
{
    // ASTRA-sim's 8-rank 1 MiB all-reduce trace on 2 leaves x 4 hosts at 100 Gb/s. NCCL's
    // model (collective-registry.h), n = N = 8, busBw 12.5 GB/s: ring (8.4 + 14 * 9.6) * 1.9 +
    // 1 MiB / 7.14 GB/s = 418.1 us; tree 300 + 1 MiB / 2.81 GB/s = 672.8 us; in-network 10.7 +
    // 1 MiB / 5.625 GB/s = 197.1 us -> in-network.
    auto spec = LeafSpine(2, 1, 4, kGbps, 1000);
    spec.topology.leafSpine.inNetworkReduction = true;
    spec.workload.kind = "chakra";
    spec.workload.trace = std::string(TUSK_SOURCE_DIR) + "/data/chakra/all_reduce/8npus_1MB";
    spec.workload.algorithm = "auto";
    const auto r = Run(spec);
    REQUIRE(r.finished);
    REQUIRE(r.collectives.size() == 1);
    CHECK(r.collectives[0].algorithm == "in-network");
    CHECK(r.collectives[0].ranks == 8);
    REQUIRE(r.chakraNodes.size() == 8);
    // S = 1 MiB up and down per rank (plus headers and ACKs).
    CHECK(static_cast<double>(TxBytes(r, "host5", "leaf1")) ==
          Approx(1048576 * (4096.0 + 62 + 66) / 4096.0).epsilon(0.001));
}

} // namespace TUSK_TEST_FILE
