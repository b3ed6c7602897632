// The `tusk` command as a user meets it: exit status 0 / 1 / 2, errors that name file, line and
// key, nothing written for bad input, complete results for a good run, and a pcap that tshark
// decodes as RoCE (InfiniBand BTH over UDP 4791).

#include "cli-helpers.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>
#include <sys/wait.h>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace fs = std::filesystem;

namespace
{

using tusk_test::Scratch;
using tusk_test::Tusk;
using tusk_test::Write;

const char* const kSmall = tusk_test::kSmallScenario;

} // namespace

TEST_CASE("tusk run: good scenario gives exit 0 and every results file", "[component][cli]")
{
    auto d = Scratch("good");
    Write(d / "s.toml", kSmall);
    auto o = Tusk("run " + (d / "s.toml").string() + " --out " + (d / "out").string() +
                  " --set output.pcap=true -q");
    INFO(o.output);
    REQUIRE(o.status == 0);
    for (const char* f : {"manifest.json", "flows.csv", "collectives.csv", "links.csv", "host0.pcap"})
    {
        CHECK(fs::exists(d / "out" / f));
    }
    auto m = nlohmann::json::parse(std::ifstream(d / "out" / "manifest.json"));
    CHECK(m["status"] == "ok");
    CHECK(m["conservation"]["holds"] == true);
    CHECK(m["scenario"]["workload"]["bytes"] == 200000);
    // Base RTT and BDP per path class, in the manifest and printed.
    REQUIRE(m["path_classes"].size() == 2);
    CHECK(m["path_classes"][1]["switches"] == 3);
    CHECK(m["path_classes"][1]["bdp_bytes"].get<uint64_t>() > m["path_classes"][0]["bdp_bytes"].get<uint64_t>());
    CHECK(o.output.find("base RTT (an MTU packet and its ACK, idle fabric): 1 switch ") !=
          std::string::npos);
    // No staging directories left behind.
    for (const auto& e : fs::directory_iterator(d))
    {
        CHECK(e.path().filename().string().find("staging") == std::string::npos);
    }
    // The pcap decodes as RoCE: tshark's InfiniBand dissector sees BTH opcodes.
    if (std::system("command -v tshark >/dev/null 2>&1") == 0)
    {
        const std::string cmd = "tshark -r " + (d / "out" / "host0.pcap").string() +
                                " -T fields -e infiniband.bth.opcode -e infiniband.bth.psn 2>/dev/null | head -3";
        FILE* p = ::popen(cmd.c_str(), "r");
        std::array<char, 512> buf{};
        std::string text;
        size_t n;
        while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0)
        {
            text.append(buf.data(), n);
        }
        ::pclose(p);
        INFO("tshark: " << text);
        CHECK(text.find("\t0") != std::string::npos); // an opcode with PSN 0 (first packet)
    }
    else
    {
        WARN("tshark not installed: pcap decoding not checked");
    }
}

TEST_CASE("tusk run: bad input exits 2, names file, line and key, writes nothing",
          "[component][cli]")
{
    auto d = Scratch("bad");
    std::string bad = kSmall;
    bad.replace(bad.find("hosts_per_leaf"), 14, "hosts_per_lef");
    Write(d / "s.toml", bad);
    auto o = Tusk("run " + (d / "s.toml").string() + " --out " + (d / "out").string() + " -q");
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("s.toml:6") != std::string::npos);
    CHECK(o.output.find("hosts_per_leaf") != std::string::npos); // the closest valid key
    CHECK(!fs::exists(d / "out"));
    CHECK(std::distance(fs::directory_iterator(d), fs::directory_iterator()) == 1);

    // A malformed htsim file named on the command line.
    Write(d / "bad.cm", "Nodes 4\nConnections 1\n0->9 id 1 start 0 size 100\n");
    o = Tusk("run --htsim-topo " + std::string(TUSK_SOURCE_DIR) + "/data/htsim/leaf_spine_tiny.topo --htsim-cm " +
             (d / "bad.cm").string() + " --out " + (d / "out").string() + " -q");
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("bad.cm:3") != std::string::npos);
    CHECK(!fs::exists(d / "out"));

    // More QPs at a NIC than the 24-bit QPN space numbers: an
    // input error before anything is built, not an abort in the middle of the run.
    Write(d / "s.toml", kSmall);
    o = Tusk("run " + (d / "s.toml").string() + " --out " + (d / "out").string() +
             " --set nic.qps_per_connection=16777214 -q");
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("nic.qps_per_connection") != std::string::npos);
    CHECK(o.output.find("24 bits") != std::string::npos);
    CHECK(!fs::exists(d / "out"));
    // A check made once the scenario is read names --set, not the file, for a --set value.
    o = Tusk("run " + (d / "s.toml").string() + " --out " + (d / "out").string() +
             " --set topology.planes=2 --set fabric.kind=infiniband -q");
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("error: --set: topology.planes: expected 1 with an InfiniBand") !=
          std::string::npos);
    CHECK(!fs::exists(d / "out"));

    // A --set value found wrong once the fabric is built names --set alone, not --set with
    // the line of the file's lb.policy.
    Write(d / "lb.toml", std::string(kSmall) + "\n[lb]\npolicy = \"ecmp\"\n");
    o = Tusk("run " + (d / "lb.toml").string() + " --out " + (d / "out").string() +
             " --set lb.attributes.FlowletGap=50us -q");
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("tusk: error: --set: lb.attributes.FlowletGap: policy "
                        "ns3::EcmpLoadBalancer has no attribute 'FlowletGap'") != std::string::npos);
    CHECK(!fs::exists(d / "out"));

    // Unknown policy, unknown subcommand option.
    o = Tusk("compare " + (d / "s.toml").string() + " --policies ecmp,nosuch -q");
    CHECK(o.status == 2);
    CHECK(o.output.find("nosuch") != std::string::npos);
    o = Tusk("run --no-such-flag");
    CHECK(o.status == 2);
    // Command-line errors CLI11 finds carry the prefix every other error has.
    o = Tusk("run --no-such-flag");
    CHECK(o.output.rfind("tusk: error: The following argument was not expected: --no-such-flag",
                         0) == 0);
    o = Tusk("run " + (d / "s.toml").string() + " --seed 1.5 -q");
    CHECK(o.status == 2);
    CHECK(o.output.rfind("tusk: error: --seed: expected an integer 0..9223372036854775807; got 1.5",
                         0) == 0);
    CHECK(o.output.find("Run with --help for more information.") != std::string::npos);
    // Above 2^63 - 1 CLI11's conversion saturated: every such seed was one run, exit 0.
    o = Tusk("run " + (d / "s.toml").string() + " --seed 9223372036854775808 -q");
    CHECK(o.status == 2);
    CHECK(o.output.find("got 9223372036854775808") != std::string::npos);
}

TEST_CASE("tusk run: flows unfinished at the stop time exit 1 and are reported, not invented",
          "[component][cli]")
{
    auto d = Scratch("unfinished");
    Write(d / "s.toml", std::string(kSmall) + "\n");
    auto o = Tusk("run " + (d / "s.toml").string() + " --out " + (d / "out").string() +
                  " --set stop_time_ms=0.005 -q");
    INFO(o.output);
    CHECK(o.status == 1);
    CHECK(o.output.find("unfinished") != std::string::npos);
    auto m = nlohmann::json::parse(std::ifstream(d / "out" / "manifest.json"));
    CHECK(m["status"] == "failed");
    std::ifstream flows(d / "out" / "flows.csv");
    std::string header;
    std::getline(flows, header);
    std::string line;
    int unfinished = 0;
    while (std::getline(flows, line))
    {
        // finished == 0 rows have empty finish/fct/slowdown fields, never a made-up FCT.
        if (line.find(",,,") != std::string::npos)
        {
            ++unfinished;
        }
    }
    CHECK(unfinished > 0);
}

TEST_CASE("tusk run: long-haul link delays are not mistaken for a stall", "[component][cli]")
{
    // 25 ms per link: nothing can be delivered for 75 ms after the start, beyond the 20 ms
    // default watchdog, which once stopped this run as "no progress". The watchdog's floor
    // is 4 base RTTs of the longest path.
    auto d = Scratch("long-haul");
    std::string s = kSmall;
    s.replace(s.find("fabric_link_gbps = 100"), 22,
              "fabric_link_gbps = 100\nlink_delay_ns = 25000000");
    Write(d / "s.toml", s + "[pfc]\nenabled = false\n");
    auto o = Tusk("run " + (d / "s.toml").string() + " --out " + (d / "out").string() + " -q");
    INFO(o.output);
    CHECK(o.status == 0);
}

TEST_CASE("tusk --help and subcommand help", "[component][cli]")
{
    auto o = Tusk("--help");
    CHECK(o.status == 0);
    CHECK(o.output.find("compare") != std::string::npos);
    o = Tusk("compare --help");
    CHECK(o.status == 0);
    CHECK(o.output.find("--policies") != std::string::npos);
    // Each command's help ends with its own exit statuses: a listing cannot fail a run.
    CHECK(o.output.find("1 a run failed") != std::string::npos);
    o = Tusk("kinds --help");
    CHECK(o.output.find("Exit status: 0 success; 2 a plugin") != std::string::npos);
    CHECK(o.output.find("a run failed") == std::string::npos);
    o = Tusk("report --help");
    CHECK(o.output.find("0 the report was written") != std::string::npos);
    o = Tusk("sweep --help");
    CHECK(o.output.find("130 / 143 interrupted by SIGINT / SIGTERM") != std::string::npos);
    o = Tusk("policies");
    CHECK(o.output.find("ns3::EcmpLoadBalancer") != std::string::npos);
    for (const char* listed : {"flowlet-ar", "host-plb", "ns3::PlbPathSelector",
                               "Qureshi et al., PLB, SIGCOMM 2022", "Alizadeh et al., CONGA"})
    {
        CHECK(o.output.find(listed) != std::string::npos);
    }
}

TEST_CASE("tusk run --hpcc-config: the simulator's configs for modes 1, 3, 7, 8 run the "
          "matching control, --set wins, the manifest names what was imported",
          "[component][cli][hpcc]")
{
    const fs::path dir = Scratch("hpcc-import");
    Write(dir / "s.toml", kSmall);
    struct Variant
    {
        const char* file;
        const char* cc;
    };
    for (const Variant& v : {Variant{"dcqcn", "dcqcn"}, Variant{"hp95", "hpcc"},
                             Variant{"timely", "timely"}, Variant{"dctcp", "dctcp"}})
    {
        INFO(v.file);
        const fs::path out = dir / v.file;
        const auto o = Tusk("run -q " + (dir / "s.toml").string() + " --hpcc-config " +
                            TUSK_SOURCE_DIR + "/data/hpcc/config_fat_flow_" + v.file +
                            ".txt --out " + out.string());
        INFO(o.output);
        REQUIRE(o.status == 0);
        CHECK(o.output.find("not modelled") == std::string::npos);
        const auto m = nlohmann::json::parse(std::ifstream(out / "manifest.json"));
        CHECK(m["scenario"]["nic"]["congestion_control"] == v.cc);
        CHECK(m["imported"]["nic.congestion_control"].get<std::string>().find("CC_MODE") !=
              std::string::npos);
        CHECK(m["imported"]["nic.mtu_bytes"].get<std::string>().find("PACKET_PAYLOAD_SIZE 1000") !=
              std::string::npos);
        CHECK(m["scenario"]["nic"]["mtu_bytes"] == 1000);
    }
    // An explicit --set beats the import; the manifest does not list it as imported.
    const fs::path out = dir / "set";
    const auto o = Tusk("run -q " + (dir / "s.toml").string() + " --hpcc-config " +
                        TUSK_SOURCE_DIR + "/data/hpcc/config_fat_flow_hp95.txt " +
                        "--set nic.congestion_control=dcqcn --set nic.mtu_bytes=4096 --out " +
                        out.string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const auto m = nlohmann::json::parse(std::ifstream(out / "manifest.json"));
    CHECK(m["scenario"]["nic"]["congestion_control"] == "dcqcn");
    CHECK(m["scenario"]["nic"]["mtu_bytes"] == 4096);
    CHECK_FALSE(m["imported"].contains("nic.congestion_control"));
    CHECK_FALSE(m["imported"].contains("nic.mtu_bytes"));
    CHECK(m["imported"].contains("ecn.enabled"));
}

TEST_CASE("tusk rerun: shipped scenarios re-run from their manifest alone give byte-identical "
          "results",
          "[component][cli][manifest]")
{
    // Small shipped scenarios and the derived values that used to be lost in the echo: UEC's
    // BDP-derived ECN thresholds (NSCC), the DCQCN hpcc preset, a run that fails (a PFC
    // deadlock) and one broken by the PFC watchdog. --set values are part of the manifest.
    const std::string s = std::string(TUSK_SOURCE_DIR) + "/scenarios/";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"lossless-incast.toml", ""},
        {"congestion-spreading.toml", ""},
        {"pfc-deadlock.toml", ""},
        {"pfc-deadlock.toml", "--set pfc.watchdog_us=200 --set pfc.watchdog_action=forward"},
        {"uec-permutation.toml", "--set ecn.enabled=true --set nic.congestion_control=nscc"},
        {"dcqcn-fairness.toml",
         "--set dcqcn.preset=hpcc --set stop_time_ms=20 --set require_finish=false"},
    };
    int i = 0;
    for (const auto& [file, sets] : cases)
    {
        CAPTURE(file, sets);
        auto d = Scratch("rerun" + std::to_string(i++));
        const auto first = Tusk("run -q " + s + file + " " + sets + " --out " + (d / "a").string());
        REQUIRE((first.status == 0 || first.status == 1)); // pfc-deadlock fails by design
        const auto again = Tusk("rerun -q " + (d / "a").string());
        INFO(again.output);
        CHECK(again.status == 0);
        CHECK(again.output.find("reproduced: ") != std::string::npos);
        CHECK(again.output.find("DIFFERS") == std::string::npos);
        CHECK(fs::exists(d / "a.rerun" / "manifest.json"));
        // `tusk run manifest.json` reads the same scenario.
        const auto viaRun = Tusk("run -q " + (d / "a" / "manifest.json").string() + " --out " +
                                 (d / "b").string());
        CHECK(viaRun.status == first.status);
        std::ifstream fa(d / "a" / "flows.csv");
        std::ifstream fb(d / "b" / "flows.csv");
        std::stringstream ta;
        std::stringstream tb;
        ta << fa.rdbuf();
        tb << fb.rdbuf();
        CHECK(ta.str() == tb.str());
    }
    // Not a run directory.
    auto d = Scratch("rerun-bad");
    const auto bad = Tusk("rerun " + d.string());
    CHECK(bad.status == 2);
    CHECK(bad.output.find("no manifest.json") != std::string::npos);
}

TEST_CASE("tusk run -q and compare -q: no progress on stderr, but the warnings", "[component][cli]")
{
    // pfc.lossless_priorities = [5] leaves the data priority (3) lossy under PFC: a warning.
    auto d = Scratch("quiet-warnings");
    Write(d / "s.toml", kSmall);
    const std::string tusk = std::string(TUSK_BINARY_DIR) + "/bin/tusk ";
    for (const std::string cmd : {"run", "compare"})
    {
        CAPTURE(cmd);
        const auto o = tusk_test::Shell(
            "(" + tusk + cmd + " " + (d / "s.toml").string() +
            " --set 'pfc.lossless_priorities=[5]'" +
            (cmd == "compare" ? " --policies ecmp,spray" : "") + " -q --out " +
            (d / cmd).string() + " 2>&1 >/dev/null)"); // stderr only
        INFO(o.output);
        CHECK(o.status == 0);
        CHECK(o.output.rfind("tusk: warning: ", 0) == 0);
        CHECK(o.output.find("data_priority (3)") != std::string::npos);
        CHECK(o.output.find("[tusk]") == std::string::npos); // no progress
    }
}

TEST_CASE("tusk compare with the steady-state probe: a probe line per policy, named",
          "[component][cli][steady]")
{
    auto d = Scratch("compare-probe");
    Write(d / "s.toml", kSmall);
    const auto o = Tusk("compare " + (d / "s.toml").string() +
                        " --policies ecmp,spray --set simulator.steady_probe=true -q --out " +
                        (d / "out").string());
    INFO(o.output);
    CHECK(o.status == 0);
    const size_t ecmp = o.output.find("ecmp: steady probe (W ");
    const size_t spray = o.output.find("spray: steady probe (W ");
    CHECK(ecmp != std::string::npos);
    CHECK(spray != std::string::npos);
    CHECK(ecmp < spray); // in the order of --policies
    // Without the probe, no such line.
    const auto off = Tusk("compare " + (d / "s.toml").string() + " --policies ecmp,spray -q --out " +
                          (d / "off").string());
    CHECK(off.output.find("steady probe") == std::string::npos);
}

TEST_CASE("tusk run: SIGTERM or SIGINT mid-run says so, exits 128+signal, writes nothing",
          "[component][cli]")
{
    auto d = Scratch("signal");
    std::string big = kSmall;
    big.replace(big.find("200KB"), 5, "4GB"); // minutes of wall time: the signal comes first
    Write(d / "s.toml", big);
    for (const auto& [sig, number, word] :
         {std::tuple{"TERM", 15, "terminated (SIGTERM)"}, std::tuple{"INT", 2, "interrupted (SIGINT)"}})
    {
        const fs::path out = d / (std::string("out-") + sig);
        auto o = tusk_test::Shell(std::string(TUSK_BINARY_DIR) + "/bin/tusk run " +
                                  (d / "s.toml").string() + " -q --out " + out.string() +
                                  " 2>&1 & p=$!; sleep 1; kill -" + sig + " $p; wait $p; echo rc=$?");
        INFO(o.output);
        CHECK(o.output.find(std::string("tusk: ") + word + "; results of this run not written") !=
              std::string::npos);
        CHECK(o.output.find("rc=" + std::to_string(128 + number)) != std::string::npos);
        CHECK_FALSE(fs::exists(out));
    }
    for (const auto& e : fs::directory_iterator(d))
    {
        CHECK(e.path().filename().string().find("staging") == std::string::npos);
    }
}

} // namespace TUSK_TEST_FILE
