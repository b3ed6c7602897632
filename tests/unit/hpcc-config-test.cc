// Import of the HPCC simulator's config.txt (data/hpcc/config.txt, from
// alibaba-edu/High-Precision-Congestion-Control simulation/mix/).

#include "scenario/hpcc-config.h"

#include "fabric/model/input-error.h"

#include "scratch-dir.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;

namespace
{

/** A config file in a private scratch folder, removed when the test case ends. */
class ScratchFile
{
  public:
    explicit ScratchFile(const std::string& name)
        : m_dir("hpcc-config"),
          m_path(m_dir.Path(name))
    {
    }

    std::string string() const { return m_path; }

  private:
    tusk_test::ScratchDir m_dir;
    std::string m_path;
};

} // namespace

TEST_CASE("HPCC config.txt: mapped keys land in the spec, every other key is warned about",
          "[unit][hpcc]")
{
    ScenarioSpec spec;
    const auto warnings = ApplyHpccConfig(TUSK_SOURCE_DIR "/data/hpcc/config.txt", spec);
    CHECK(spec.ecn.enabled);                       // ENABLE_QCN 1
    CHECK(spec.buffer.totalBytes == 32ULL << 20);  // BUFFER_SIZE 32 (MiB: third.cc x 1024 x 1024)
    CHECK(spec.buffer.dynamicThreshold);           // USE_DYNAMIC_PFC_THRESHOLD 1
    CHECK(spec.nic.mtuBytes == 1000);              // PACKET_PAYLOAD_SIZE 1000
    CHECK(spec.nic.ackInterval == 1);              // L2_ACK_INTERVAL 1
    // CC_MODE 3 is HPCC, with its keys: U_TARGET, MI_THRESH, FAST_REACT, RATE_AI, MIN_RATE.
    CHECK(spec.nic.congestionControl == "hpcc");
    CHECK(spec.ccSettings.at("hpcc.target_utilisation") == Approx(0.95));
    CHECK(spec.ccSettings.at("hpcc.max_stage") == 0);
    CHECK(spec.ccSettings.at("hpcc.fast_react") == 1);
    CHECK(spec.ccSettings.at("hpcc.rate_ai_mbps") == Approx(50));
    CHECK(spec.ccSettings.at("hpcc.min_rate_mbps") == Approx(100));
    CHECK(spec.nic.senderWindow == "variable");              // HAS_WIN 1, VAR_WIN 1
    CHECK(spec.nic.controlPriority == spec.nic.dataPriority); // ACK_HIGH_PRIO 0
    // DCQCN's keys mean nothing in mode 3 (the simulator ignores them there too).
    CHECK_FALSE(spec.dcqcn.timerPs.has_value());
    CHECK_FALSE(spec.dcqcn.rateAiBps.has_value());
    // KMIN_MAP 3 25G 100 50G 200 100G 400 (KB) ...
    REQUIRE(spec.ecn.byRate.size() == 3);
    CHECK(spec.ecn.byRate.at(100'000'000'000ULL).kminBytes == 400'000);
    CHECK(spec.ecn.byRate.at(100'000'000'000ULL).kmaxBytes == 1'600'000);
    CHECK(spec.ecn.byRate.at(25'000'000'000ULL).pmax == Approx(0.2));
    CHECK_FALSE(spec.ecn.fallbackGiven);
    // Where each value came from, for the manifest.
    CHECK(spec.imported.at("nic.congestion_control").find("config.txt:15 CC_MODE 3") !=
          std::string::npos);
    CHECK(spec.imported.count("hpcc.target_utilisation") == 1);
    bool traceWarned = false;
    for (const auto& w : warnings)
    {
        INFO(w);
        CHECK(w.find("CC_MODE") == std::string::npos);
        traceWarned = traceWarned || w.find("TRACE_FILE") != std::string::npos;
    }
    CHECK(traceWarned); // the simulator's own run settings are named as ignored
}

TEST_CASE("HPCC config.txt: the run.py variants of modes 1, 3, 7 and 8 run the matching "
          "control with nothing not modelled",
          "[unit][hpcc]")
{
    // data/hpcc/config_fat_flow_*.txt: what the simulator's run.py writes for --bw 100.
    struct Variant
    {
        const char* file;
        const char* cc;
        const char* window;
    };
    for (const Variant& v : {Variant{"dcqcn", "dcqcn", "none"}, Variant{"hp95", "hpcc", "variable"},
                             Variant{"timely", "timely", "none"},
                             Variant{"dctcp", "dctcp", "variable"}})
    {
        INFO(v.file);
        ScenarioSpec spec;
        const auto warnings =
            ApplyHpccConfig(std::string(TUSK_SOURCE_DIR "/data/hpcc/config_fat_flow_") + v.file +
                                ".txt",
                            spec);
        CHECK(spec.nic.congestionControl == v.cc);
        CHECK(spec.nic.senderWindow == v.window);
        for (const auto& w : warnings)
        {
            INFO(w);
            CHECK(w.find("not modelled") == std::string::npos);
        }
        CHECK(spec.ecn.byRate.count(400'000'000'000ULL) == 1); // 100G hosts, 400G fabric
    }
    // Mode 1: DCQCN as the simulator runs it.
    ScenarioSpec d;
    ApplyHpccConfig(TUSK_SOURCE_DIR "/data/hpcc/config_fat_flow_dcqcn.txt", d);
    CHECK(d.dcqcn.preset == "hpcc");
    CHECK(*d.dcqcn.timerPs == 300'000'000ULL);
    CHECK(*d.dcqcn.rateAiBps == 20'000'000ULL);   // 5 Mb/s per 25 Gb/s
    CHECK(*d.dcqcn.minRateBps == 1'000'000'000ULL);
    CHECK(*d.dcqcn.minDecreaseIntervalPs == 4'000'000ULL);
    CHECK(d.dcqcn.cnpIntervalPs == 0); // a CNP per marked packet, cut at most every 4 us
    CHECK(d.nic.controlPriority == 7); // ACK_HIGH_PRIO 1
    // The simulator's switch marks at dequeue (switch-node.cc SwitchNotifyDequeue).
    CHECK(d.ecn.markAtDequeue);
    CHECK(d.imported.at("ecn.mark_at_dequeue").find("ENABLE_QCN 1") != std::string::npos);
    // Mode 7: TIMELY's additive and hyper increase.
    ScenarioSpec t;
    ApplyHpccConfig(TUSK_SOURCE_DIR "/data/hpcc/config_fat_flow_timely.txt", t);
    CHECK(t.ccSettings.at("timely.rate_ai_mbps") == Approx(100));
    CHECK(t.ccSettings.at("timely.rate_hai_mbps") == Approx(500));
    CHECK(t.ccSettings.at("timely.min_rate_mbps") == Approx(1000));
    // Mode 8: DCTCP's gain and increase; KMIN = KMAX (300 KB at 100G) is a step at K.
    ScenarioSpec c;
    ApplyHpccConfig(TUSK_SOURCE_DIR "/data/hpcc/config_fat_flow_dctcp.txt", c);
    CHECK(c.ccSettings.at("dctcp.g") == Approx(0.0625));
    CHECK(c.ccSettings.at("dctcp.rate_ai_mbps") == Approx(615));
    CHECK(c.ecn.byRate.at(100'000'000'000ULL).kminBytes == 300'000);
    CHECK(c.ecn.byRate.at(100'000'000'000ULL).kmaxBytes == 300'001);
    CHECK(c.ecn.byRate.at(100'000'000'000ULL).pmax == Approx(1.0));
}

TEST_CASE("HPCC config.txt: CC_MODE 1 with ENABLE_QCN 0 is PFC only, --set wins over the "
          "import",
          "[unit][hpcc]")
{
    const ScratchFile path("pfc-only.txt");
    std::ofstream(path.string()) << "CC_MODE 1\nENABLE_QCN 0\nRATE_AI 20Mb/s\nU_TARGET 0.9\n";
    ScenarioSpec spec;
    const auto warnings = ApplyHpccConfig(path.string(), spec);
    CHECK(spec.nic.congestionControl == "none");
    CHECK_FALSE(spec.ecn.enabled);
    CHECK(warnings.empty()); // U_TARGET means nothing in mode 1, as in the simulator

    // A key given with --set (line 0 in keyLines) keeps its value; the rest is imported.
    ScenarioSpec explicitly;
    explicitly.nic.congestionControl = "swift";
    explicitly.keyLines["nic.congestion_control"] = 0;
    explicitly.ecn.enabled = true;
    explicitly.keyLines["ecn.enabled"] = 7; // from the scenario file: the import wins
    ApplyHpccConfig(TUSK_SOURCE_DIR "/data/hpcc/config_fat_flow_hp95.txt", explicitly);
    CHECK(explicitly.nic.congestionControl == "swift");
    CHECK(explicitly.imported.count("nic.congestion_control") == 0);
    CHECK(explicitly.imported.at("ecn.enabled").find("ENABLE_QCN 1") != std::string::npos);
    CHECK(explicitly.imported.at("nic.mtu_bytes").find("PACKET_PAYLOAD_SIZE 1000") !=
          std::string::npos);
}

TEST_CASE("HPCC config.txt: modes tusk does not model are named", "[unit][hpcc]")
{
    const ScratchFile path("pint.txt");
    std::ofstream(path.string()) << "CC_MODE 10\nPINT_PROB 1.0\nMULTI_RATE 1\n";
    ScenarioSpec spec;
    const auto warnings = ApplyHpccConfig(path.string(), spec);
    CHECK(spec.nic.congestionControl == "none");
    REQUIRE(warnings.size() == 2);
    CHECK(warnings[0].find("HPCC-PINT is not modelled") != std::string::npos);
    CHECK(warnings[1].find("PINT") != std::string::npos);
}

TEST_CASE("HPCC config.txt: values out of range and stray tokens are errors", "[unit][hpcc]")
{
    const ScratchFile path("range.txt");
    for (const char* text : {"BUFFER_SIZE 0\n", "EWMA_GAIN 5\n", "RP_TIMER 0\n",
                             "PACKET_PAYLOAD_SIZE 100\n", "L2_ACK_INTERVAL 0\n",
                             "PACKET_PAYLOAD_SIZE 1000 extra\n",
                             "KMIN_MAP 1 100000000000 400\nKMAX_MAP 1 100000000000 100\n"})
    {
        INFO(text);
        std::ofstream(path.string()) << text;
        ScenarioSpec spec;
        CHECK_THROWS_AS(ApplyHpccConfig(path.string(), spec), ns3::InputError);
    }
    ScenarioSpec spec;
    CHECK_THROWS_AS(ApplyHpccConfig(std::filesystem::temp_directory_path().string(), spec),
                    ns3::InputError); // a directory
}

TEST_CASE("HPCC config.txt: a malformed value names file, line and key", "[unit][hpcc]")
{
    const ScratchFile path("bad.txt");
    std::ofstream(path.string()) << "ENABLE_QCN 1\nRATE_AI fast\n";
    ScenarioSpec spec;
    try
    {
        ApplyHpccConfig(path.string(), spec);
        FAIL("expected an InputError");
    }
    catch (const ns3::InputError& e)
    {
        CHECK(e.Line() == 2);
        CHECK(e.Key() == "RATE_AI");
    }
}

} // namespace TUSK_TEST_FILE
