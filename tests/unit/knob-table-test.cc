// The knob table (tusk/scenario/knob.h, tusk/scenario/section-*.cc) as the one source of truth of every
// scenario key: the key reference in docs/scenario-format.md is generated from it, the ns-3
// attributes it names exist, the defaults it shows are the models', and the keys its kind
// rules list are the ones the reader accepts.
#include "scenario/knob-table.h"
#include "scenario/scenario-toml.h"

#include "fabric/model/input-error.h"

#include "ns3/attribute.h"
#include "ns3/type-id.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;

namespace
{

/** The initial value of attribute `path` as its checker writes it ("GoBackN"). */
std::string
InitialText(const std::string& path)
{
    const auto sep = path.rfind("::");
    ns3::TypeId::AttributeInformation info;
    REQUIRE(ns3::TypeId::LookupByName(path.substr(0, sep))
                .LookupAttributeByName(path.substr(sep + 2), &info));
    return info.initialValue->SerializeToString(info.checker);
}

} // namespace

TEST_CASE("docs/scenario-format.md shows the knob table's keys, types, units and defaults",
          "[unit][scenario][knobs]")
{
    const std::string path = std::string(TUSK_SOURCE_DIR) + "/docs/scenario-format.md";
    std::ifstream in(path);
    REQUIRE(in);
    std::ostringstream doc;
    doc << in.rdbuf();
    std::vector<std::string> problems;
    const std::string regenerated = UpdateKeyReference(doc.str(), problems);
    INFO("regenerate with: build/bin/tusk keys --update-doc docs/scenario-format.md");
    CHECK(problems.empty());
    for (const auto& p : problems)
    {
        UNSCOPED_INFO(p);
    }
    CHECK(regenerated == doc.str());
}

TEST_CASE("the key reference detects a stale or missing block", "[unit][scenario][knobs]")
{
    std::vector<std::string> problems;
    const std::string doc = "<!-- keys: nic -->\n| stale |\n<!-- /keys -->\n"
                            "<!-- keys: no-such-table -->\n<!-- /keys -->\n";
    const std::string out = UpdateKeyReference(doc, problems);
    CHECK(out.find("| stale |") == std::string::npos);
    CHECK(out.find("| `mtu_bytes` | size 256..9000 | bytes | `4096` (4 KiB) |") != std::string::npos);
    bool noSuchTable = false;
    bool missingPfc = false;
    for (const auto& p : problems)
    {
        noSuchTable = noSuchTable || p.find("no-such-table") != std::string::npos;
        missingPfc = missingPfc || p.find("keys: pfc -->") != std::string::npos;
    }
    CHECK(noSuchTable);
    CHECK(missingPfc);
}

TEST_CASE("every attribute the knob table names exists", "[unit][scenario][knobs]")
{
    const auto attributes = AttributesSetByKnobs();
    CHECK(attributes.size() > 40);
    for (const auto& path : attributes)
    {
        CAPTURE(path);
        const auto sep = path.rfind("::");
        REQUIRE(sep != std::string::npos);
        ns3::TypeId tid;
        REQUIRE(ns3::TypeId::LookupByNameFailSafe(path.substr(0, sep), &tid));
        ns3::TypeId::AttributeInformation info;
        CHECK(tid.LookupAttributeByName(path.substr(sep + 2), &info));
    }
    // Reverse lookups used by the [ns3] check and the model-error translation.
    CHECK(KnobsSettingAttribute("ns3::DcqcnCongestionControl::Gain") ==
          std::vector<std::string>{"dcqcn.g"});
    CHECK(KnobsSettingAttribute("ns3::RdmaNic::LossRecovery") ==
          std::vector<std::string>{"nic.receiver", "nic.transport"});
    CHECK(KnobsSettingAttribute("ns3::SharedBufferMmu::BufferBytes") ==
          std::vector<std::string>{"buffer.total_bytes"});
    CHECK(KnobsSettingAttribute("ns3::SelectiveRepeatRecovery::ReorderWindow").empty());
    CHECK(KnobForParam("topology.leaf-spine", "LeafSpineParams.hostsPerLeaf") ==
          "topology.hosts_per_leaf");
    CHECK(KnobForParam("workload", "bytesPerRank") == "workload.bytes");
    CHECK(KnobForParam("background", "BackgroundRequest.load") == "background[i].load");
    CHECK(KnobForParam("workload", "LeafSpineParams.leaves").empty());
}

TEST_CASE("scenario defaults are the models' defaults", "[unit][scenario][knobs]")
{
    const ScenarioSpec spec;
    // Keys that set a numeric attribute take its initial value (scenario-spec.h reads it).
    CHECK(std::to_string(spec.buffer.totalBytes) == InitialText("ns3::SharedBufferMmu::BufferBytes"));
    CHECK(std::to_string(spec.nic.mtuBytes) == InitialText("ns3::RdmaNic::MtuBytes"));
    CHECK(std::to_string(spec.pfc.pauseQuanta) == InitialText("ns3::SwitchNode::PauseQuanta"));
    CHECK(std::to_string(spec.fabric.phyOverheadBytes) ==
          InitialText("ns3::FabricNetDevice::PhyOverheadBytes"));
    CHECK(spec.pfc.losslessPriorities == std::vector<uint8_t>{3}); // mask 0x08
    CHECK(InitialText("ns3::SharedBufferMmu::LosslessPriorities") == "8");
    // Keys whose values are names: the name's attribute value is the model's default.
    CHECK(spec.nic.receiver == "go-back-n");
    CHECK(InitialText("ns3::RdmaNic::LossRecovery") == "ns3::GoBackNRecovery");
    CHECK(spec.nic.qpScaling == "split");
    CHECK(InitialText("ns3::WorkloadExecutor::QpScaling") == "Split");
    CHECK(spec.nic.qpEntropy == "random");
    CHECK(InitialText("ns3::WorkloadExecutor::QpEntropy") == "Random");
    CHECK(spec.pfc.watchdogAction == "drop");
    CHECK(InitialText("ns3::FabricNetDevice::PfcWatchdogAction") == "Drop");
    CHECK(spec.nic.congestionControl == "none");
    CHECK(InitialText("ns3::RdmaNic::CongestionControl") == "ns3::RdmaCcNone");
    // The DCQCN paper preset is the model's attribute defaults (one definition, in dcqcn.cc).
    DcqcnSection d;
    ResolveDcqcnPreset(d, 100'000'000'000ULL);
    for (const auto& [path, value] : DcqcnAttributeValues(d))
    {
        CAPTURE(path);
        const auto sep = path.rfind("::");
        ns3::TypeId::AttributeInformation info;
        REQUIRE(ns3::TypeId::LookupByName(path.substr(0, sep))
                    .LookupAttributeByName(path.substr(sep + 2), &info));
        CHECK(value->SerializeToString(info.checker) == InitialText(path));
    }
}

TEST_CASE("the hpcc DCQCN preset scales its increase steps with the host line rate",
          "[unit][scenario][knobs]")
{
    // HPCC's config.txt style: R_AI 5 Mb/s and R_HAI 50 Mb/s per 25 Gb/s of line rate.
    DcqcnSection at100;
    at100.preset = "hpcc";
    ResolveDcqcnPreset(at100, 100'000'000'000ULL);
    CHECK(*at100.rateAiBps == 20'000'000);
    CHECK(*at100.rateHaiBps == 200'000'000);
    CHECK(*at100.timerPs == 300'000'000);
    CHECK(*at100.byteCounterBytes == 0);
    CHECK(*at100.clampTargetRate == false);
    // A key given in the scenario keeps its value.
    DcqcnSection given;
    given.preset = "hpcc";
    given.g = 0.5;
    ResolveDcqcnPreset(given, 25'000'000'000ULL);
    CHECK(*given.g == 0.5);
    CHECK(*given.rateAiBps == 5'000'000);
}

TEST_CASE("an override of a table kind drops exactly the keys the knob table gives other kinds",
          "[unit][scenario][knobs]")
{
    // links_per_spine belongs to leaf-spine and rail-optimised: kept; leaves only to
    // leaf-spine: dropped.
    const std::string text = "[topology]\nkind = \"leaf-spine\"\nleaves = 2\nlinks_per_spine = 2\n";
    const ScenarioSpec s = LoadScenarioString(text, "kinds.toml", {"topology.kind=rail-optimised"});
    CHECK(s.topology.kind == "rail-optimised");
    CHECK(s.topology.rail.linksPerSpine == 2);
    CHECK(s.keyLines.count("topology.leaves") == 0);
}

} // namespace TUSK_TEST_FILE
