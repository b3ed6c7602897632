// Honest overrides: an [ns3] default for an attribute the run sets itself is refused
// with what to use instead, never silently overwritten. The two confirmed cases were
// "ns3::DcqcnCongestionControl::Gain" (overwritten by the DCQCN preset) and
// "ns3::RdmaNic::RecoveryMode" (set on every NIC from nic.receiver / nic.transport; now the
// TypeId-valued "ns3::RdmaNic::LossRecovery", since loss recovery became a strategy object of
// the queue pair). An [ns3] default that nothing else sets still reaches the objects; every
// attribute the run sets is recorded with its value, and has a scenario key or is named as
// derived.

#include "run-helpers.h"

#include "scenario/knob-table.h"
#include "scenario/scenario-toml.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/model/input-error.h"
#include "rdma/model/loss-recovery/loss-recovery-registry.h"

#include "ns3/double.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <algorithm>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

/** A two-host DCQCN scenario of one small flow. */
const std::string kSmall = R"(name = "overrides"
[topology]
leaves = 1
spines = 1
hosts_per_leaf = 2
host_link_gbps = 100
fabric_link_gbps = 100
[nic]
congestion_control = "dcqcn"
[ecn]
enabled = true
[workload]
kind = "flows"
flows = [{ src = 0, dst = 1, bytes = 100000 }]
)";

ns3::InputError
ErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const ns3::InputError& e)
    {
        return e;
    }
    FAIL("expected an InputError");
    return ns3::InputError("", 0, "", "");
}

bool
Contains(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("DcqcnCongestionControl::Gain in [ns3] is refused in favour of dcqcn.g",
          "[component][scenario][overrides]")
{
    // In the file: refused when it is read, at its line.
    const auto e = ErrorOf([] {
        tusk::LoadScenarioString(kSmall + "[ns3]\n\"ns3::DcqcnCongestionControl::Gain\" = 0.5\n",
                                 "o.toml");
    });
    CHECK(e.File() == "o.toml");
    CHECK(e.Line() == 16);
    CHECK(e.Key() == "ns3.ns3::DcqcnCongestionControl::Gain");
    CHECK(Contains(e.Message(), "dcqcn.g"));

    // A spec built in code reaches the runner: refused there, before anything runs.
    tusk::ScenarioSpec spec = tusk::LoadScenarioString(kSmall, "o.toml");
    spec.ns3Defaults["ns3::DcqcnCongestionControl::Gain"] = "0.5";
    const auto r = ErrorOf([&] { Run(spec); });
    CHECK(r.Key() == "ns3.ns3::DcqcnCongestionControl::Gain");
    CHECK(Contains(r.Message(), "dcqcn.g"));

    // The key itself is what the QPs get: the preset's other values, g = 0.5.
    tusk::ScenarioSpec keyed = tusk::LoadScenarioString(kSmall + "[dcqcn]\ng = 0.5\n", "o.toml");
    double gainAtRun = 0;
    tusk::RunOptions o;
    o.beforeRun = [&gainAtRun](ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&) {
        ns3::TypeId::AttributeInformation info;
        ns3::TypeId::LookupByName("ns3::DcqcnCongestionControl").LookupAttributeByName("Gain", &info);
        gainAtRun = ns3::DynamicCast<const ns3::DoubleValue>(info.initialValue)->Get();
    };
    const auto run = Run(keyed, o);
    CHECK(run.finished);
    CHECK(gainAtRun == 0.5);
    CHECK(run.attributes.at("ns3::DcqcnCongestionControl::Gain") ==
          std::vector<std::string>{"0.5"});
    CHECK(run.attributes.at("ns3::DcqcnCongestionControl::RateIncreaseTimer").size() == 1);
    // The default is restored when the run ends.
    ns3::TypeId::AttributeInformation info;
    ns3::TypeId::LookupByName("ns3::DcqcnCongestionControl").LookupAttributeByName("Gain", &info);
    CHECK(ns3::DynamicCast<const ns3::DoubleValue>(info.initialValue)->Get() == 1.0 / 256);
}

TEST_CASE("RdmaNic::LossRecovery in [ns3] is refused in favour of nic.receiver or nic.transport",
          "[component][scenario][overrides]")
{
    const auto e = ErrorOf([] {
        tusk::LoadScenarioString(
            kSmall + "[ns3]\n\"ns3::RdmaNic::LossRecovery\" = \"ns3::SelectiveRepeatRecovery\"\n",
            "o.toml");
    });
    CHECK(e.Line() == 16);
    CHECK(Contains(e.Message(), "nic.receiver or nic.transport"));

    tusk::ScenarioSpec spec = tusk::LoadScenarioString(kSmall, "o.toml");
    spec.ns3Defaults["ns3::RdmaNic::LossRecovery"] = "ns3::SelectiveRepeatRecovery";
    CHECK(Contains(ErrorOf([&] { Run(spec); }).Message(), "nic.receiver or nic.transport"));

    // What the keys set is recorded: go-back-N here, selective repeat for uec-rud.
    spec.ns3Defaults.clear();
    CHECK(Run(spec).attributes.at("ns3::RdmaNic::LossRecovery") ==
          std::vector<std::string>{"ns3::GoBackNRecovery"});
    spec.nic.transport = "uec-rud";
    spec.nic.rtoPs = ns3::kUecMinRtoPs;
    CHECK(Run(spec).attributes.at("ns3::RdmaNic::LossRecovery") ==
          std::vector<std::string>{"ns3::UecRudRecovery"});
}

TEST_CASE("a policy preset's attribute or the per-switch seed in [ns3] is refused, any other "
          "[ns3] default reaches the objects",
          "[component][scenario][overrides]")
{
    tusk::ScenarioSpec spec = LeafSpine(2, 2, 2);
    AddFlow(spec, 0, 2, 10000);
    spec.lb.policy = "eecmp"; // preset: HashFields = FiveTupleDstQp
    spec.ns3Defaults["ns3::EcmpLoadBalancer::HashFields"] = "FiveTuple";
    const auto preset = ErrorOf([&] { Run(spec); });
    CHECK(preset.Key() == "ns3.ns3::EcmpLoadBalancer::HashFields");
    CHECK(Contains(preset.Message(), "policy preset \"eecmp\""));
    CHECK(Contains(preset.Message(), "[lb.attributes]"));

    spec.ns3Defaults = {{"ns3::EcmpLoadBalancer::Seed", "5"}};
    CHECK(Contains(ErrorOf([&] { Run(spec); }).Message(), "seed"));

    // With plain ecmp nothing sets HashFields: the [ns3] default is what the switches use.
    spec.lb.policy = "ecmp";
    spec.ns3Defaults = {{"ns3::EcmpLoadBalancer::HashFields", "FiveTupleDstQp"}};
    std::string hashFields;
    tusk::RunOptions o;
    o.beforeRun = [&hashFields](ns3::Fabric& f, const std::vector<ns3::Ptr<ns3::RdmaNic>>&) {
        ns3::StringValue v;
        f.switches[0]->GetLoadBalancer()->GetAttribute("HashFields", v);
        hashFields = v.Get();
    };
    const auto run = Run(spec, o);
    CHECK(hashFields == "FiveTupleDstQp");
    CHECK(run.attributes.count("ns3::EcmpLoadBalancer::HashFields") == 0);
}

TEST_CASE("every attribute a run sets has a scenario key or is named as derived",
          "[component][scenario][overrides]")
{
    // Many knobs at once: DCQCN, a scale-up domain, a job, the PFC detector, eecmp's preset.
    tusk::ScenarioSpec spec = tusk::LoadScenarioString(R"(name = "record"
[topology]
leaves = 2
spines = 2
hosts_per_leaf = 4
host_link_gbps = 100
fabric_link_gbps = 100
[scale_up]
gpus_per_server = 2
[nic]
congestion_control = "dcqcn"
[ecn]
enabled = true
[lb]
policy = "eecmp"
[workload]
kind = "jobs"
[[jobs]]
collectives = [{ kind = "all-reduce", bytes = "64KiB" }]
)",
                                                       "record.toml");
    const auto run = Run(spec);
    REQUIRE(run.finished);
    const auto owned = tusk::AttributesSetByKnobs();
    for (const auto& [path, values] : run.attributes)
    {
        CAPTURE(path);
        CHECK_FALSE(values.empty());
        const bool knob = std::find(owned.begin(), owned.end(), path) != owned.end();
        const bool policy = path.rfind("ns3::EcmpLoadBalancer::", 0) == 0;
        const bool documented = path == "ns3::RdmaNic::BaseRtt"; // from the topology
        CHECK((knob || policy || documented));
    }
    CHECK(run.attributes.at("ns3::EcmpLoadBalancer::HashFields") ==
          std::vector<std::string>{"FiveTupleDstQp"});
    CHECK(run.attributes.at("ns3::ScaleUpDomain::GpusPerServer") == std::vector<std::string>{"2"});
    CHECK(run.attributes.at("ns3::FabricNetDevice::DataRate") ==
          std::vector<std::string>{"100000000000bps"});
    CHECK(run.attributes.count("ns3::PfcDeadlockDetector::Threshold") == 1);
    CHECK(run.attributes.count("ns3::WorkloadExecutor::StallTimeout") == 1);
}

} // namespace TUSK_TEST_FILE
