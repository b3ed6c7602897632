// Other tools' conventions: the HPCC simulator's pairRtt and base FCT, its config files, and
// htsim's defaults as presets (tusk/tool-outputs.h, tusk/tool-presets.h, tusk/hpcc-run-files.h).

#include "scenario/hpcc-config.h"
#include "scenario/hpcc-run-files.h"
#include "results/tool-outputs.h"
#include "scenario/tool-presets.h"

#include "fabric/helper/topology-builders.h"
#include "importers/model/htsim-topo-reader.h"
#include "fabric/model/input-error.h"
#include "importers/model/hpcc-reader.h"
#include "scratch-dir.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;
namespace fs = std::filesystem;

namespace
{

std::string
Data(const std::string& rel)
{
    return std::string(TUSK_SOURCE_DIR) + "/data/" + rel;
}

/** The value of KEY=VALUE in `sets`, "" when absent. */
std::string
ValueOf(const std::vector<std::string>& sets, const std::string& key)
{
    for (const auto& s : sets)
    {
        if (s.rfind(key + "=", 0) == 0)
        {
            return s.substr(key.size() + 1);
        }
    }
    return "";
}

} // namespace

TEST_CASE("HPCC pairRtt: the simulator's own maxRtt on its sample topology", "[unit][hpcc][formats]")
{
    // mix/topology.txt: one switch, 65 hosts, 100 Gb/s, 1 µs links. The simulator prints
    // "maxRtt=4160" for it with PACKET_PAYLOAD_SIZE 1000 (third.cc: 2 x 2 x 1000 ns of
    // propagation + 2 hops x 1000 B x 8 / 100 Gb/s = 80 ns each).
    const auto t = ns3::ReadHpccTopology(Data("hpcc/topology.txt"));
    const auto [rtt, bw] = HpccPairRtt(t.graph, t.hostOfNode[2], t.hostOfNode[1], 1000);
    CHECK(rtt == 4160);
    CHECK(bw == 100'000'000'000ULL);
    // The node ids of the file, per tusk vertex: hosts (nodes 1..65) first, then switch 0.
    REQUIRE(t.nodeOfVertex.size() == 66);
    CHECK(t.nodeOfVertex[0] == 1);
    CHECK(t.nodeOfVertex[64] == 65);
    CHECK(t.nodeOfVertex[65] == 0);
    // third.cc node_id_to_ip: 11.0.x.1.
    CHECK(HpccNodeIp(1) == 0x0b000101u);
    CHECK(HpccNodeIp(257) == 0x0b010101u);
}

TEST_CASE("HPCC config: a file that is not a config is refused", "[unit][hpcc][formats]")
{
    ScenarioSpec spec;
    // A topology file: its lines start with numbers, none with a key the simulator reads.
    try
    {
        ApplyHpccConfig(Data("hpcc/topology.txt"), spec);
        FAIL("expected an InputError");
    }
    catch (const ns3::InputError& e)
    {
        CHECK(e.Key() == "--hpcc-config");
        CHECK(e.Line() == 1u);
        CHECK(std::string(e.what()).find("not an HPCC simulator config.txt") != std::string::npos);
    }
    CHECK(IsHpccConfigKey("CC_MODE"));
    CHECK_FALSE(IsHpccConfigKey("name"));
}

TEST_CASE("HPCC config: TOPOLOGY_FILE and FLOW_FILE are found from the config's folder",
          "[unit][hpcc][formats]")
{
    // data/hpcc/config.txt says mix/topology.txt, kept next to it: the bare name is found.
    const HpccRunFiles shipped = ReadHpccRunFiles(Data("hpcc/config.txt"));
    CHECK(fs::path(shipped.topology) == fs::path(Data("hpcc/topology.txt")).lexically_normal());
    CHECK(fs::path(shipped.flow) == fs::path(Data("hpcc/flow.txt")).lexically_normal());
    CHECK(shipped.stopTimeS == 4.0);
    CHECK(shipped.fctOutput);
    CHECK(shipped.pfcOutput);
    const auto sets = HpccRunSets(shipped);
    CHECK(ValueOf(sets, "topology.kind") == "\"hpcc\"");
    CHECK(ValueOf(sets, "stop_time_ms") == "4000");
    CHECK(ValueOf(sets, "output.formats") == "[\"hpcc\"]");

    // The simulator's own layout: simulation/mix/config.txt with "mix/..." paths, run from
    // simulation/. A file next to the config under the same relative path wins.
    const tusk_test::ScratchDir scratch("hpcc-layout");
    const fs::path& root = scratch.Root();
    fs::create_directories(root / "mix");
    fs::copy_file(Data("hpcc/topology.txt"), root / "mix" / "topology.txt");
    std::ofstream(root / "mix" / "flows.txt") << "1\n2 1 3 100 1000 0\n";
    std::ofstream(root / "mix" / "config.txt")
        << "CC_MODE 3\nTOPOLOGY_FILE mix/topology.txt\nFLOW_FILE mix/flows.txt\n";
    const HpccRunFiles layout = ReadHpccRunFiles((root / "mix" / "config.txt").string());
    CHECK(layout.topology == (root / "mix" / "topology.txt").string());
    CHECK(layout.flow == (root / "mix" / "flows.txt").string());
    CHECK(layout.stopTimeS == 3.01); // third.cc's default
    CHECK_FALSE(layout.fctOutput);
    // A UTF-8 byte-order mark before the first key: skipped (its key was read with the mark
    // and silently missed), as the config's other reader (hpcc-config.cc) skips it.
    std::ofstream(root / "mix" / "config.txt")
        << "\xEF\xBB\xBFTOPOLOGY_FILE mix/topology.txt\nFLOW_FILE mix/flows.txt\n";
    CHECK(ReadHpccRunFiles((root / "mix" / "config.txt").string()).topology ==
          (root / "mix" / "topology.txt").string());

    // Missing: the error names the config line and every place looked at.
    std::ofstream(root / "mix" / "config.txt")
        << "CC_MODE 3\nTOPOLOGY_FILE mix/topology.txt\nFLOW_FILE mix/nosuch.txt\n";
    try
    {
        ReadHpccRunFiles((root / "mix" / "config.txt").string());
        FAIL("expected an InputError");
    }
    catch (const ns3::InputError& e)
    {
        CHECK(e.Line() == 3u);
        CHECK(e.Key() == "FLOW_FILE");
        CHECK(std::string(e.what()).find((root / "mix" / "nosuch.txt").string()) != std::string::npos);
    }
}

TEST_CASE("presets: htsim-uec sizes queues, ECN and RTO from the fabric's BDP as main_uec does",
          "[unit][presets][formats]")
{
    // fat_tree_128_1os.topo: 3 tiers, 100 Gb/s, 1 µs links; the diameter is 6 links. main_uec's
    // calculate_rtt: 2 x 6 µs + (4150 + 64) B x 8 / 100 Gb/s x 6 = 14.02272 µs; calculate_bdp_pkt:
    // ceil(14.02272 µs x 12.5 GB/s / 4150 B) = ceil(42.24) = 43 packets; queue 43 x 4150 B;
    // ECN ceil(0.2 x 43) = 9 and ceil(0.8 x 43) = 35 packets; min RTO 15 µs + 178450 B x 48 /
    // 100 Gb/s = 100.656 µs.
    const auto graph = ns3::ReadHtsimTopo(Data("htsim/fat_tree_128_1os.topo"));
    const auto sets = ToolPresetSets("htsim-uec", graph);
    CHECK(ValueOf(sets, "ns3.ns3::SwitchNode::TrimThresholdBytes") == "178450");
    CHECK(ValueOf(sets, "ecn.kmin_bytes") == std::to_string(9 * 4150));
    CHECK(ValueOf(sets, "ecn.kmax_bytes") == std::to_string(35 * 4150));
    CHECK(ValueOf(sets, "nic.rto_us") == "100.656");
    CHECK(ValueOf(sets, "nic.mtu_bytes") == "4086");
    CHECK(ValueOf(sets, "nic.transport") == "\"uec-rud\"");
    CHECK(ValueOf(sets, "nic.congestion_control") == "\"nscc\"");
    CHECK(ValueOf(sets, "pfc.enabled") == "false");

    const auto roce = ToolPresetSets("htsim-roce", graph);
    CHECK(ValueOf(roce, "nic.receiver") == "\"go-back-n\"");
    CHECK(ValueOf(roce, "buffer.static_threshold_bytes") == "60000"); // 15 x 4000 B
    CHECK_THROWS_AS(ToolPresetSets("ns2", graph), ns3::InputError);

    // --preset hpcc is the simulator's mix/config.txt: HPCC with its keys.
    ScenarioSpec spec;
    std::istringstream in(HpccDefaultConfigText());
    const auto warnings = ApplyHpccConfig(in, "<--preset hpcc>", spec);
    CHECK(spec.nic.congestionControl == "hpcc");
    CHECK(spec.nic.mtuBytes == 1000);
    CHECK(spec.nic.senderWindow == "variable");
    CHECK(spec.ecn.enabled);
    CHECK(std::none_of(warnings.begin(), warnings.end(), [](const std::string& w) {
        return w.find("not used") != std::string::npos; // no files or tracing in a preset
    }));
}

} // namespace TUSK_TEST_FILE
