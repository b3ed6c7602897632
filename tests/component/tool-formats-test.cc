// Other tools' files and formats from the command line: --hpcc-config alone runs the HPCC
// simulator's sample, imports say what they run with, --preset gives htsim's defaults, and
// [output] formats writes fct.txt, pfc.txt and htsim's finish lines, read back here with those
// tools' parsing rules.

#include "cli-helpers.h"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;
namespace fs = std::filesystem;

namespace
{

std::string
Src(const std::string& rel)
{
    return std::string(TUSK_SOURCE_DIR) + "/" + rel;
}

std::vector<std::vector<std::string>>
Fields(const fs::path& file)
{
    std::vector<std::vector<std::string>> rows;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
    {
        std::istringstream ss(line);
        std::vector<std::string> f;
        for (std::string w; ss >> w;)
        {
            f.push_back(w);
        }
        rows.push_back(f);
    }
    return rows;
}

/** flows.csv as column -> value per row. */
std::vector<std::map<std::string, std::string>>
Csv(const fs::path& file)
{
    std::ifstream in(file);
    std::string header;
    std::getline(in, header);
    auto split = [](const std::string& l) {
        std::vector<std::string> v;
        std::stringstream ss(l);
        for (std::string c; std::getline(ss, c, ',');)
        {
            v.push_back(c);
        }
        if (!l.empty() && l.back() == ',')
        {
            v.emplace_back();
        }
        return v;
    };
    const auto names = split(header);
    std::vector<std::map<std::string, std::string>> rows;
    for (std::string l; std::getline(in, l);)
    {
        const auto v = split(l);
        std::map<std::string, std::string> row;
        for (size_t i = 0; i < names.size() && i < v.size(); ++i)
        {
            row[names[i]] = v[i];
        }
        rows.push_back(row);
    }
    return rows;
}

/**
 * The HPCC simulator's analysis/fct_analysis.py, reimplemented: the awk filter
 * `$4==100 && $6<T {slow=$7/$8; print $5, slow<1?1:slow}` (type 0, normal flows), sorted by
 * size; returns (size, slowdown) pairs.
 */
std::vector<std::pair<uint64_t, double>>
FctAnalysis(const fs::path& fctTxt, uint64_t timeLimitNs = 3'000'000'000ULL)
{
    std::vector<std::pair<uint64_t, double>> out;
    for (const auto& f : Fields(fctTxt))
    {
        REQUIRE(f.size() == 8);
        if (std::stoul(f[3]) == 100 && std::stoull(f[5]) < timeLimitNs)
        {
            const double slow = std::stod(f[6]) / std::stod(f[7]);
            out.emplace_back(std::stoull(f[4]), slow < 1 ? 1 : slow);
        }
    }
    std::stable_sort(out.begin(), out.end());
    return out;
}

} // namespace

TEST_CASE("tusk run --hpcc-config alone runs the simulator's config.txt with its topology and "
          "flow files, and fct.txt reads as its analysis script reads it",
          "[component][cli][hpcc][formats]")
{
    const fs::path dir = Scratch("hpcc-alone");
    // The simulator's layout (simulation/mix/config.txt, run from simulation/): its sample
    // config and topology, with a flow file of two 1 MB flows at 2 s (its flow.txt has 200 MB).
    fs::create_directories(dir / "mix");
    fs::copy_file(Src("data/hpcc/config.txt"), dir / "mix" / "config.txt");
    fs::copy_file(Src("data/hpcc/topology.txt"), dir / "mix" / "topology.txt");
    std::ofstream(dir / "mix" / "flow.txt") << "2\n2 1 3 100 1000000 2\n3 1 3 200 1000000 2\n";
    const fs::path out = dir / "out";
    const auto o = Tusk("run -q --hpcc-config " + (dir / "mix" / "config.txt").string() +
                        " --out " + out.string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    // The import says what the run uses.
    CHECK(o.output.find("HPCC import: the run uses transport roce, go-back-n receivers; cc hpcc") !=
          std::string::npos);
    // Both base-RTT conventions in the header: the simulator's maxRtt for this file is 4160 ns.
    CHECK(o.output.find("HPCC simulator's pairRtt") != std::string::npos);
    CHECK(o.output.find("1 switch 4.160 µs") != std::string::npos);
    const auto m = nlohmann::json::parse(std::ifstream(out / "manifest.json"));
    CHECK(m["scenario"]["topology"]["kind"] == "hpcc");
    CHECK(m["imported"]["workload.file"].get<std::string>().find("FLOW_FILE mix/flow.txt") !=
          std::string::npos);
    CHECK(m["scenario"]["stop_time_ms"] == 4000); // SIMULATOR_STOP_TIME 4.00

    // flows.csv keeps the file's node ids beside tusk's host ids.
    const auto flows = Csv(out / "flows.csv");
    REQUIRE(flows.size() == 2);
    CHECK(flows[0].at("src") == "1");
    CHECK(flows[0].at("src_node") == "2");
    CHECK(flows[0].at("dst_node") == "1");
    CHECK(flows[1].at("src_node") == "3");

    // fct.txt (FCT_OUTPUT_FILE): the simulator's fields.
    const auto lines = Fields(out / "fct.txt");
    REQUIRE(lines.size() == 2);
    for (const auto& f : lines)
    {
        CHECK(f[1] == "0b000101"); // node 1: 11.0.1.1
        CHECK(f[2] == "10000");    // the first flow of each source host
        CHECK(f[4] == "1000000");
        CHECK(f[5] == "2000000000"); // start, ns
        // standalone_fct = pairRtt 4160 + (1e6 + 1000 x 48) B x 8 / 100 Gb/s = 4160 + 83840.
        CHECK(f[7] == "88000");
        // fct = flows.csv fct_sender_us in ns.
        const auto& row = f[0] == "0b000201" ? flows[0] : flows[1];
        const auto ps = static_cast<uint64_t>(std::llround(std::stod(row.at("fct_sender_us")) * 1e6));
        CHECK(std::stoull(f[6]) == ps / 1000);
    }
    // The analysis script's type-0 filter keeps the dport-100 flow only; its slowdown is >= 1.
    const auto normal = FctAnalysis(out / "fct.txt");
    REQUIRE(normal.size() == 1);
    CHECK(normal[0].first == 1000000);
    CHECK(normal[0].second >= 1);
    CHECK(fs::exists(out / "pfc.txt")); // PFC_OUTPUT_FILE
}

TEST_CASE("tusk run --hpcc-config data/hpcc/config.txt: the simulator's own sample, its files",
          "[component][cli][hpcc][formats]")
{
    // config.txt says TOPOLOGY_FILE mix/topology.txt and FLOW_FILE mix/flow.txt; data/hpcc/
    // keeps them next to it. Two 200 MB flows into node 1 at 2 s.
    const fs::path out = Scratch("hpcc-sample") / "out";
    const auto o = Tusk("run -q --hpcc-config " + Src("data/hpcc/config.txt") + " --out " + out.string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const auto lines = Fields(out / "fct.txt");
    REQUIRE(lines.size() == 2);
    for (const auto& f : lines)
    {
        CHECK(f[1] == "0b000101");
        CHECK(f[4] == "200000000");
        CHECK(f[5] == "2000000000");
        // pairRtt 4160 + (2e8 + 2e5 x 48) B x 8 / 100 Gb/s = 4160 + 16768000.
        CHECK(f[7] == "16772160");
    }
}

TEST_CASE("tusk run --hpcc-config: a file that is not an HPCC config is refused, nothing written",
          "[component][cli][hpcc][formats]")
{
    const fs::path dir = Scratch("hpcc-not-config");
    Write(dir / "s.toml", kSmallScenario);
    const auto o = Tusk("run -q " + (dir / "s.toml").string() + " --hpcc-config " +
                        Src("data/hpcc/flow.txt") + " --out " + (dir / "out").string());
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("flow.txt:1") != std::string::npos);
    CHECK(o.output.find("not an HPCC simulator config.txt") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("pfc.txt and htsim_flows.txt: an incast's pauses and finish lines read back",
          "[component][cli][formats]")
{
    const fs::path dir = Scratch("tool-formats");
    // 3-to-1 incast on a 4-host leaf-spine, lossless: the receiver's ToR pauses.
    Write(dir / "s.toml", R"(name = "incast"
[topology]
kind = "leaf-spine"
leaves = 2
spines = 1
hosts_per_leaf = 2
host_link_gbps = 100
fabric_link_gbps = 100
[buffer]
total_bytes = "1MiB"
[workload]
kind = "incast"
bytes = "1MB"
[output]
formats = ["hpcc", "htsim"]
)");
    const fs::path out = dir / "out";
    const auto o = Tusk("run -q " + (dir / "s.toml").string() + " --out " + out.string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const auto flows = Csv(out / "flows.csv");
    CHECK(flows.front().count("src_node") == 0); // tusk's own numbering: no extra columns

    // pfc.txt: "time node node_type if_index type", one per PFC frame received.
    const auto pfc = Fields(out / "pfc.txt");
    const auto m = nlohmann::json::parse(std::ifstream(out / "manifest.json"));
    REQUIRE(m["summary"]["pfc_pauses"].get<uint64_t>() > 0);
    size_t pauses = 0;
    uint64_t last = 0;
    for (const auto& f : pfc)
    {
        REQUIRE(f.size() == 5);
        CHECK(std::stoull(f[0]) >= last); // in time order
        last = std::stoull(f[0]);
        CHECK((f[2] == "0" || f[2] == "1"));
        CHECK(std::stoul(f[3]) >= 1); // ns-3 device index: 0 is the loopback
        CHECK((f[4] == "0" || f[4] == "1"));
        pauses += f[4] == "1";
    }
    // XOFFs received: at most those sent (the summary counts those sent; one may still be on
    // the wire when the run ends).
    CHECK(pauses > 0);
    CHECK(pauses <= m["summary"]["pfc_pauses"].get<uint64_t>());

    // htsim_flows.txt (RoCE): "Flow Roce_SRC_DST ID finished at T total bytes B".
    const uint64_t mtu = m["scenario"]["nic"]["mtu_bytes"].get<uint64_t>();
    REQUIRE(mtu == 4096);
    std::ifstream in(out / "htsim_flows.txt");
    const std::regex roce(R"(Flow Roce_(\d+)_(\d+) (\d+) finished at (\S+) total bytes (\d+))");
    size_t n = 0;
    for (std::string line; std::getline(in, line); ++n)
    {
        std::smatch mt;
        REQUIRE(std::regex_match(line, mt, roce));
        const auto it = std::find_if(flows.begin(), flows.end(), [&](const auto& r) {
            return r.at("flow_id") == mt[3].str();
        });
        REQUIRE(it != flows.end());
        CHECK(it->at("src") == mt[1].str());
        CHECK(it->at("dst") == mt[2].str());
        const double t = std::stod(it->at("start_us")) + std::stod(it->at("fct_sender_us"));
        CHECK(std::stod(mt[4].str()) == Approx(t).epsilon(1e-5)); // 6 significant digits
        // B: RoceSrc prints its last cumulative ACK, whole MSS-sized packets (roce.cpp), so
        // 1 MB at a 4096-byte MTU is 245 packets = 1003520 bytes, not the flow size.
        const uint64_t bytes = std::stoull(it->at("bytes"));
        const uint64_t packets = (bytes + mtu - 1) / mtu;
        CHECK(std::stoull(mt[5].str()) == packets * mtu);
        CHECK(std::stoull(mt[5].str()) > bytes); // 1 MB is not a whole number of packets
    }
    CHECK(n == flows.size());
}

TEST_CASE("htsim .cm with --preset htsim-uec: inside the seed spread of tusk's UEC settings "
          "set by hand, and the import names what it runs with",
          "[component][cli][presets][formats]")
{
    const fs::path dir = Scratch("preset-htsim-uec");
    const std::string files = " --htsim-topo " + Src("data/htsim/leaf_spine_tiny.topo") +
                              " --htsim-cm " + Src("data/htsim/perm_32n_32c_2MB.cm");
    // Without a preset: tusk's RoCE defaults, and the note says how to get htsim's.
    auto o = Tusk("run -q" + files + " --set stop_time_ms=0.001 --out " + (dir / "plain").string());
    CHECK(o.output.find("htsim import: the run uses transport roce, go-back-n receivers; cc none") !=
          std::string::npos);
    CHECK(o.output.find("--preset htsim-uec") != std::string::npos);

    auto p99 = [&](const std::string& args, const std::string& name) {
        const auto r = Tusk("run -q" + files + " " + args + " --out " + (dir / name).string());
        INFO(r.output);
        REQUIRE(r.status == 0);
        const auto m = nlohmann::json::parse(std::ifstream(dir / name / "manifest.json"));
        return m["summary"]["fct_p99_us"].get<double>();
    };
    // By hand, from rdma.md: RUD, NSCC, ECN marking, no PFC, trimming, a 1 ms RTO.
    const std::string byHand = "--set nic.transport=uec-rud --set nic.congestion_control=nscc "
                               "--set pfc.enabled=false --set ecn.enabled=true "
                               "--set ns3.ns3::SwitchNode::TrimThresholdBytes=65536 "
                               "--set nic.rto_us=1000 --set lb.policy=host-reps";
    // Seeds 1..4 of each: the preset's mean inside the by-hand runs' seed spread around their
    // mean (|mean difference| <= max - min of the by-hand runs).
    std::vector<double> hand;
    std::vector<double> preset;
    for (int seed : {1, 2, 3, 4})
    {
        const std::string s = std::to_string(seed);
        hand.push_back(p99(byHand + " --seed " + s, "hand" + s));
        preset.push_back(p99("--preset htsim-uec --set lb.policy=host-reps --seed " + s, "preset" + s));
    }
    auto mean = [](const std::vector<double>& v) {
        double sum = 0;
        for (double x : v)
        {
            sum += x;
        }
        return sum / static_cast<double>(v.size());
    };
    const double spread = *std::max_element(hand.begin(), hand.end()) -
                          *std::min_element(hand.begin(), hand.end());
    INFO("by hand mean " << mean(hand) << " us, spread " << spread << " us; preset mean "
                         << mean(preset) << " us");
    CHECK(spread > 0);
    CHECK(std::abs(mean(preset) - mean(hand)) <= spread);
    o = Tusk("run -q" + files + " --preset htsim-uec --set lb.policy=host-reps --out " +
             (dir / "preset").string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    // The receivers RUD uses, whatever nic.receiver says.
    CHECK(o.output.find("transport uec-rud, sack-bitmap receivers; cc nscc") != std::string::npos);
    const auto m = nlohmann::json::parse(std::ifstream(dir / "preset" / "manifest.json"));
    CHECK(m["scenario"]["nic"]["mtu_bytes"] == 4086);
}

} // namespace TUSK_TEST_FILE
