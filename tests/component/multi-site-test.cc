// Across sites: PFC honesty over distance (oracle 22) and the lossy long-haul class
// with transport recovery, on scenarios/papers/diloco/sync-dp.toml (two sites of 4 hosts, one
// long-haul link between their DCI switches).

#include "cli-helpers.h"
#include "run-helpers.h"

#include "scenario/scenario-toml.h"

#include <filesystem>
#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

const std::string kSyncDp =
    std::string(TUSK_SOURCE_DIR) + "/scenarios/papers/diloco/sync-dp.toml";

} // namespace

TEST_CASE("multi-site: a lossless class over a long haul whose headroom cannot cover the BDP is "
          "refused, naming the key and the headroom needed (oracle 22)",
          "[component][multi-site][oracle22]")
{
    const auto out = Scratch("multi-site-refused");
    // 400 Gb/s, 10 ms: 2 x (10 ms x 400 Gb/s) / 8 + 2 x 9216 + 84 = 1,000,018,516 bytes per
    // long-haul port, more than a 500 MB DCI buffer holds.
    const auto o = Tusk("run " + kSyncDp + " --out " + (out / "r").string() +
                        " --set pfc.long_haul=lossless --set topology.long_haul_gbps=400"
                        " --set topology.long_haul_delay_ms=10 --set topology.dci_buffer=500MB");
    INFO(o.output);
    CHECK(o.status == 2);
    // The buffer was given with --set, so the error names --set, not the file.
    CHECK(o.output.find("--set: topology.dci_buffer") != std::string::npos);
    CHECK(o.output.find("1000018516 bytes") != std::string::npos);
    CHECK(o.output.find("pfc.long_haul = \"lossy\"") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out / "r"));
    // A given headroom smaller than the BDP is refused at buffer.headroom_bytes.
    const auto h = Tusk("run " + kSyncDp + " --out " + (out / "h").string() +
                        " --set pfc.long_haul=lossless --set buffer.headroom_bytes=200000");
    INFO(h.output);
    CHECK(h.status == 2);
    CHECK(h.output.find("buffer.headroom_bytes") != std::string::npos);
    // 100 Gb/s, 1 ms: 2 x 12.5 MB + 18,516 B.
    CHECK(h.output.find("25018516 bytes") != std::string::npos);
}

TEST_CASE("multi-site: the lossy long-haul class drops on the long haul and the transport "
          "recovers every packet",
          "[component][multi-site]")
{
    // A 4 MB DCI buffer under the cross-site all-reduce of four 400 Gb/s ranks into one
    // 100 Gb/s long-haul link.
    auto spec = tusk::LoadScenarioFile(kSyncDp, {"topology.dci_buffer=4MB"});
    const auto r = Run(spec); // checks conservation: sent = received + dropped + in flight
    REQUIRE(r.finished);
    for (const auto& f : r.flows)
    {
        REQUIRE(f.finished);
        REQUIRE(f.deliveredBytes == f.bytes);
    }
    uint64_t longHaulDrops = 0;
    uint64_t headroomDrops = 0;
    for (const auto& l : r.links)
    {
        for (uint64_t d : l.drops)
        {
            if (l.fromTier == 3 && l.toTier == 3)
            {
                longHaulDrops += d;
            }
        }
        headroomDrops += l.drops[static_cast<int>(ns3::DropReason::INGRESS_HEADROOM)];
    }
    CHECK(longHaulDrops > 0);
    CHECK(headroomDrops == 0); // inside the sites PFC still protects the lossless class
    uint64_t retx = 0;
    for (const auto& f : r.flows)
    {
        retx += f.retxPackets;
    }
    CHECK(retx > 0);
}

} // namespace TUSK_TEST_FILE
