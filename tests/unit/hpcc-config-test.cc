// Import of the HPCC simulator's config.txt (data/hpcc/config.txt, from
// alibaba-edu/High-Precision-Congestion-Control simulation/mix/).

#include "hpcc-config.h"

#include "fabric/model/input-error.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace tusk;

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
    CHECK(spec.dcqcn.timerPs == 900'000'000ULL);   // RP_TIMER 900 (us)
    CHECK(*spec.dcqcn.g == Approx(0.00390625));    // EWMA_GAIN
    CHECK(*spec.dcqcn.rateAiBps == 50'000'000ULL); // RATE_AI 50Mb/s
    CHECK(*spec.dcqcn.rateHaiBps == 100'000'000ULL);
    CHECK(*spec.dcqcn.minRateBps == 100'000'000ULL);
    CHECK(*spec.dcqcn.fastRecoveryStages == 1);
    CHECK_FALSE(*spec.dcqcn.clampTargetRate);
    // KMIN_MAP 3 25G 100 50G 200 100G 400 (KB) ...
    REQUIRE(spec.ecn.byRate.size() == 3);
    CHECK(spec.ecn.byRate.at(100'000'000'000ULL).kminBytes == 400'000);
    CHECK(spec.ecn.byRate.at(100'000'000'000ULL).kmaxBytes == 1'600'000);
    CHECK(spec.ecn.byRate.at(25'000'000'000ULL).pmax == Approx(0.2));
    CHECK_FALSE(spec.ecn.fallbackGiven);
    // CC_MODE 3 is HPCC itself: not modelled, so a warning, and the CC stays "none".
    CHECK(spec.nic.congestionControl == "none");
    bool ccWarned = false, traceWarned = false;
    for (const auto& w : warnings)
    {
        ccWarned = ccWarned || w.find("CC_MODE") != std::string::npos;
        traceWarned = traceWarned || w.find("TRACE_FILE") != std::string::npos;
    }
    CHECK(ccWarned);
    CHECK(traceWarned);
}

TEST_CASE("HPCC config.txt: values out of range and stray tokens are errors", "[unit][hpcc]")
{
    const auto path = std::filesystem::temp_directory_path() / "tusk-hpcc-range.txt";
    for (const char* text : {"BUFFER_SIZE 0\n", "EWMA_GAIN 5\n", "RP_TIMER 0\n",
                             "PACKET_PAYLOAD_SIZE 100\n", "L2_ACK_INTERVAL 0\n",
                             "PACKET_PAYLOAD_SIZE 1000 extra\n",
                             "KMIN_MAP 1 100000000000 400\nKMAX_MAP 1 100000000000 100\n"})
    {
        INFO(text);
        std::ofstream(path) << text;
        ScenarioSpec spec;
        CHECK_THROWS_AS(ApplyHpccConfig(path.string(), spec), ns3::InputError);
    }
    ScenarioSpec spec;
    CHECK_THROWS_AS(ApplyHpccConfig(std::filesystem::temp_directory_path().string(), spec),
                    ns3::InputError); // a directory
}

TEST_CASE("HPCC config.txt: a malformed value names file, line and key", "[unit][hpcc]")
{
    const auto path = std::filesystem::temp_directory_path() / "tusk-hpcc-bad.txt";
    std::ofstream(path) << "ENABLE_QCN 1\nRATE_AI fast\n";
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
