// Values outside any real fabric are input errors, not runs that hang or mean nothing: every
// rate, time and size key has a physically meaningful range (knob.h, Bounds), the topology
// importers bound link rates and delays alike, a degraded link keeps at least the smallest
// link rate, and a PFC headroom that cannot hold one frame is refused (less than a link
// needs: a warning with the bytes it needs).

#include "input-error-helpers.h"
#include "scratch-dir.h"
#include "scenario/knob-table.h"
#include "run/run-stages.h"
#include "run/runner.h"
#include "scenario/scenario-toml.h"

#include "importers/model/hpcc-reader.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using tusk_test::ExpectInputError;

namespace
{

const std::string kName = "bounds.toml";

bool
Contains(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("physical bounds: rates, times and sizes far outside any fabric are refused, naming "
          "the range",
          "[unit][scenario][bounds]")
{
    struct Case
    {
        std::string text;
        std::string key;
        std::string expected; //!< part of the message
    };
    const std::vector<Case> cases = {
        // A link of 1e-9 Gb/s takes days per frame: the run hung.
        {"[topology]\nhost_link_gbps = 1e-9", "topology.host_link_gbps",
         "expected a number in 0.001..100000; got 1e-09"},
        {"[topology]\nfabric_link_gbps = 200000", "topology.fabric_link_gbps", "0.001..100000"},
        {"[topology]\nkind = \"ring\"\nlink_gbps = 0.0001", "topology.link_gbps", "0.001..100000"},
        {"[topology]\nlink_delay_ns = 2e9", "topology.link_delay_ns", "0..1000000000"},
        {"[topology]\nswitch_latency_ns = 1e12", "topology.switch_latency_ns", "0..1000000000"},
        {"[topology]\nkind = \"multi-site\"\nlong_haul_km = 1e6", "topology.long_haul_km",
         "0.0002..200000"},
        {"stop_time_ms = 1e9", "stop_time_ms", "1e-06..86400000"},
        {"[output]\nsample_us = 0.001", "output.sample_us", "0 or a number in 0.1..86400000000"},
        {"[nic]\nrto_us = 1e8", "nic.rto_us", "0.001..10000000"},
        {"[dcqcn]\nmin_rate_mbps = 1e-6", "dcqcn.min_rate_mbps", "0.001..100000000"},
        {"[buffer]\ntotal_bytes = \"2TiB\"", "buffer.total_bytes", "1..1TiB"},
        {"[workload]\nbytes = \"2048TiB\"", "workload.bytes", "1..1024TiB"},
        {"[timely]\nmin_rate_mbps = 1e9", "timely.min_rate_mbps", "0.001, 100000000"},
        {"[[failures]]\nkind = \"link_down\"\nlink = \"leaf0-spine0\"\nat_us = 2e11",
         "failures[0].at_us", "0..86400000000"},
    };
    for (const auto& c : cases)
    {
        INFO(c.text);
        const ns3::InputError e =
            ExpectInputError([&] { tusk::LoadScenarioString("\n" + c.text + "\n", kName); });
        CHECK(e.File() == kName);
        CHECK(e.Key() == c.key);
        const auto newlines = std::count(c.text.begin(), c.text.end(), '\n');
        CHECK(e.Line() == static_cast<unsigned>(newlines + 2));
        CHECK(Contains(e.Message(), c.expected));
    }
    // The ends of the ranges are valid, and 0 stays "off" where it was.
    auto spec = tusk::LoadScenarioString("[topology]\nhost_link_gbps = 0.001\n"
                                         "fabric_link_gbps = 100000\nlink_delay_ns = 1e9\n"
                                         "[output]\nsample_us = 0\n",
                                         kName);
    CHECK(spec.topology.leafSpine.hostRateBps == 1'000'000);
    CHECK(spec.topology.leafSpine.fabricRateBps == 100'000'000'000'000ULL);
    CHECK(spec.output.samplePs == 0);
}

TEST_CASE("physical bounds: every rate, time and size key of the knob table has a range in the "
          "key reference",
          "[unit][scenario][bounds]")
{
    const std::set<std::string> units = {"Gb/s", "Mb/s", "ns", "µs", "ms", "km", "bytes"};
    size_t bounded = 0;
    for (const auto& b : tusk::KnobBlocks())
    {
        for (const auto& k : b.knobs)
        {
            if (units.count(k.unit) == 0 || k.type == "path" || k.type == "string")
            {
                continue;
            }
            INFO(tusk::KeyPath(b.table, k.name) << ": " << k.type);
            CHECK(Contains(k.type, ".."));
            ++bounded;
        }
    }
    CHECK(bounded > 60);
}

TEST_CASE("physical bounds: HPCC topology files give link rates of 1Mbps..100Tbps and delays "
          "of at most 1s",
          "[unit][workload][bounds]")
{
    const tusk_test::ScratchDir dir("bounds");
    const auto path = dir.Path("topology.txt");
    auto read = [&](const std::string& rate, const std::string& delay) {
        std::ofstream(path) << "3 1 2\n2\n0 2 " << rate << " " << delay << " 0\n1 2 100Gbps "
                            << "0.001ms 0\n";
        return ns3::ReadHpccTopology(path);
    };
    CHECK(read("1Mbps", "1s").graph.links.size() == 2);
    ns3::InputError e = ExpectInputError([&] { read("1bps", "0.001ms"); });
    CHECK(e.Key() == "rate");
    CHECK(e.Line() == 3);
    CHECK(Contains(e.Message(), "1Mbps..100Tbps; got \"1bps\""));
    e = ExpectInputError([&] { read("200Tbps", "0.001ms"); });
    CHECK(e.Key() == "rate");
    e = ExpectInputError([&] { read("100Gbps", "2s"); });
    CHECK(e.Key() == "delay");
    CHECK(Contains(e.Message(), "at most 1s"));
}

TEST_CASE("physical bounds: a degrade failure may not divide a link below 1 Mb/s",
          "[unit][failures][bounds]")
{
    auto spec = tusk::LoadScenarioString("[[failures]]\nat_us = 0\nkind = \"degrade\"\n"
                                         "link = \"leaf0-spine0\"\nrate_divisor = 1600000\n",
                                         kName);
    const auto graph = tusk::BuildGraph(spec);
    const ns3::InputError e = ExpectInputError([&] { tusk::CheckFailures(spec, graph); });
    CHECK(e.Key() == "failures[0].rate_divisor");
    CHECK(e.Line() == 1);
    CHECK(Contains(e.Message(), "at least 1 Mb/s"));
    CHECK(Contains(e.Message(), "250000 bit/s"));
    spec.failures[0].rateDivisor = 400'000; // 400 Gb/s / 400,000 = 1 Mb/s, the smallest rate
    tusk::CheckFailures(spec, graph);
}

TEST_CASE("physical bounds: a flap may not schedule more than a million down/up cycles",
          "[unit][failures][bounds]")
{
    // 2 ns cycles for 0.9 s: 4.5 x 10^8 cycles, each scheduled at load time.
    auto spec = tusk::LoadScenarioString("[[failures]]\nat_us = 0\nkind = \"flap\"\n"
                                         "link = \"leaf0-spine0\"\nperiod_us = 0.002\n"
                                         "down_us = 0.001\nuntil_us = 900000\n",
                                         kName);
    const auto graph = tusk::BuildGraph(spec);
    const ns3::InputError e = ExpectInputError([&] { tusk::CheckFailures(spec, graph); });
    CHECK(e.Key() == "failures[0].period_us");
    CHECK(Contains(e.Message(), "at most 1000000 down/up cycles"));
    CHECK(Contains(e.Message(), "gives 450000000"));
    spec.failures[0].count = 1'000'000; // a count ends it sooner
    tusk::CheckFailures(spec, graph);
}

TEST_CASE("PFC headroom: less than one data frame is refused, less than a link needs warns "
          "with the bytes it needs",
          "[unit][scenario][pfc][bounds]")
{
    // The default fabric: 400 Gb/s links of 1 us; PFC on, priority 3 lossless.
    tusk::ScenarioSpec spec = tusk::LoadScenarioString("[buffer]\nheadroom_bytes = 1\n", kName);
    REQUIRE(spec.pfc.enabled);
    const ns3::InputError e = ExpectInputError([&] { tusk::ValidateRun(spec); });
    CHECK(e.Key() == "buffer.headroom_bytes");
    CHECK(e.Line() == 2);
    const uint64_t frame = spec.nic.mtuBytes + tusk::DataHeaderBytes(spec);
    CHECK(Contains(e.Message(), "at least one full data frame"));
    CHECK(Contains(e.Message(), std::to_string(frame) + " bytes"));
    CHECK(Contains(e.Message(), "got 1"));

    // One frame: accepted, with a warning naming what a link needs.
    spec.buffer.headroomBytes = frame;
    tusk::ValidateRun(spec);
    const uint64_t needed = ns3::FabricHelper::AutoHeadroomBytes(
        spec.topology.leafSpine.fabricRateBps, spec.topology.leafSpine.linkDelayPs);
    auto warnings = tusk::ScenarioWarnings(spec);
    REQUIRE(warnings.size() == 1);
    CHECK(Contains(warnings[0], "buffer.headroom_bytes (" + std::to_string(frame) + " bytes)"));
    CHECK(Contains(warnings[0], std::to_string(needed) + " bytes per port"));

    // Enough headroom, automatic headroom, or no lossless class: nothing to say.
    spec.buffer.headroomBytes = needed;
    CHECK(tusk::ScenarioWarnings(spec).empty());
    spec.buffer.headroomBytes = 0;
    CHECK(tusk::ScenarioWarnings(spec).empty());
    spec.buffer.headroomBytes = 1;
    spec.pfc.enabled = false;
    tusk::ValidateRun(spec);
    CHECK(tusk::ScenarioWarnings(spec).empty());
}

} // namespace TUSK_TEST_FILE
