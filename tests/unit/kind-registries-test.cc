// The registries of loss recoveries (rdma/model/loss-recovery-registry.h), topology kinds
// (tusk/topology-kinds.h) and failure kinds (tusk/failure-kinds.h): what is built in, what
// each registration says it needs, and that a name registered twice is refused (while a plugin
// loads: reported, the first registration kept; see Registry<Info>).

#include "cli/kinds.h"
#include "run/failure-kinds.h"
#include "scenario/topology-kinds.h"

#include "fabric/model/registry.h"
#include "rdma/model/loss-recovery/loss-recovery-registry.h"
#include "rdma/model/loss-recovery/rdma-loss-recovery.h"

#include <catch2/catch.hpp>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

/** Collect the duplicate messages of registrations made in `fn`, as while a plugin loads. */
template <class Fn>
std::vector<std::string>
RegistrationErrors(Fn fn)
{
    std::vector<std::string> errors;
    SetPluginRegistrationErrors(&errors);
    fn();
    SetPluginRegistrationErrors(nullptr);
    return errors;
}

} // namespace

TEST_CASE("the loss recoveries are registered with what they need", "[unit][registry][recovery]")
{
    using I = LossRecoveryInfo;
    CHECK(LossRecoveryNames(I::RECEIVER) == std::vector<std::string>{"go-back-n", "selective-repeat"});
    CHECK(LossRecoveryNames(I::TRANSPORT) == std::vector<std::string>{"uec-rod", "uec-rud"});
    CHECK(FindLossRecovery("go-back-n")->needs == I::IN_ORDER);
    CHECK(FindLossRecovery("selective-repeat")->needs == I::NEEDS_NOTHING);
    CHECK(FindLossRecovery("uec-rod")->needs == (I::IN_ORDER | I::ONE_PATH | I::ECN_FROM_BDP));
    CHECK(FindLossRecovery("uec-rud")->needs == I::ECN_FROM_BDP);
    CHECK(FindLossRecovery("uec-rud")->minRtoPs == kUecMinRtoPs);
    CHECK(FindLossRecovery("go-back-n")->minRtoPs == 0);
    // nic.transport "roce" takes nic.receiver's; a transport of its own is its own.
    CHECK(LossRecoveryOf("roce", "selective-repeat")->typeId == "ns3::SelectiveRepeatRecovery");
    CHECK(LossRecoveryOf("uec-rud", "go-back-n")->typeId == "ns3::UecRudRecovery");
    CHECK(LossRecoveryOf("uec-rod", "selective-repeat")->typeId == "ns3::GoBackNRecovery");
    CHECK(LossRecoveryOf("roce", "uec-rud") == nullptr); // a transport is no receiver
    CHECK(LossRecoveryOf("go-back-n", "go-back-n") == nullptr); // nor a receiver a transport
    for (const auto& r : LossRecoveries())
    {
        INFO(r.name);
        CHECK_FALSE(r.source.empty());
        TypeId tid;
        REQUIRE(TypeId::LookupByNameFailSafe(r.typeId, &tid));
        CHECK(tid.IsChildOf(RdmaLossRecovery::GetTypeId()));
    }
}

TEST_CASE("a loss recovery registered twice is refused", "[unit][registry][recovery]")
{
    const auto errors = RegistrationErrors([] {
        LossRecoveryRegistration again{
            {"go-back-n", "ns3::SelectiveRepeatRecovery", "a second go-back-n"}, "test"};
    });
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors[0], Catch::Contains("two loss recoveries registered as \"go-back-n\""));
    CHECK(FindLossRecovery("go-back-n")->typeId == "ns3::GoBackNRecovery"); // the first stays
}

TEST_CASE("the topology kinds are registered with their keys and builders",
          "[unit][registry][topology]")
{
    CHECK(tusk::TopologyKindNames() ==
          std::vector<std::string>{"fat-tree", "hpcc", "htsim", "leaf-spine", "multi-site",
                                   "pod-clos", "rail-optimised", "ring"});
    for (const auto& k : tusk::TopologyKinds())
    {
        INFO(k.name);
        CHECK_FALSE(k.source.empty());
        CHECK_FALSE(k.docs().empty());
    }
    // What the runner reads instead of the names.
    CHECK(tusk::FindTopologyKind("multi-site")->pod == tusk::TopologyKindInfo::POD_SITE);
    CHECK(tusk::FindTopologyKind("multi-site")->check);
    CHECK(tusk::FindTopologyKind("rail-optimised")->pod == tusk::TopologyKindInfo::POD_RACK);
    CHECK(tusk::FindTopologyKind("rail-optimised")->gpusPerServer);
    CHECK(tusk::FindTopologyKind("hpcc")->hostOfNode);
    CHECK_FALSE(tusk::FindTopologyKind("htsim")->hostCount); // known once the file is read
    tusk::TopologySection t;
    t.leafSpine.leaves = 3;
    t.leafSpine.hostsPerLeaf = 5;
    CHECK(tusk::FindTopologyKind("leaf-spine")->hostCount(t) == 15);
    CHECK(tusk::FindTopologyKind("leaf-spine")->write(t)["leaves"] == 3);
}

TEST_CASE("a topology kind registered twice is refused", "[unit][registry][topology]")
{
    const auto errors = RegistrationErrors([] {
        tusk::TopologyKindInfo k;
        k.name = "ring";
        k.description = "a second ring";
        k.docs = [] { return std::vector<tusk::KnobDoc>{}; };
        k.read = [](tusk::ScenarioReader&, const toml::table&, tusk::TopologySection&) {};
        k.write = [](const tusk::TopologySection&) { return nlohmann::json::object(); };
        k.build = [](const tusk::ScenarioSpec&) { return TopologyGraph(); };
        tusk::TopologyKindRegistration again{k, "test"};
    });
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors[0], Catch::Contains("two topology kinds registered as \"ring\""));
    CHECK(tusk::FindTopologyKind("ring")->description != "a second ring");
}

TEST_CASE("the failure kinds are registered with their targets and keys",
          "[unit][registry][failures]")
{
    CHECK(tusk::FailureKindNames() ==
          std::vector<std::string>{"degrade", "flap", "gray", "link_down", "link_up", "loss",
                                   "nic_down", "nic_up", "switch_down", "switch_up"});
    using F = tusk::FailureKindInfo;
    CHECK(tusk::FindFailureKind("switch_down")->target == F::SWITCH);
    CHECK(tusk::FindFailureKind("nic_up")->target == F::NIC);
    CHECK(tusk::FindFailureKind("nic_up")->effect == F::BRINGS_UP);
    CHECK(tusk::FindFailureKind("link_down")->effect == F::TAKES_DOWN);
    CHECK(tusk::FindFailureKind("flap")->effect == F::OTHER);
    // The keys of [[failures]] follow from the registrations.
    CHECK(tusk::FailureKindsTaking("switch") == std::vector<std::string>{"switch_down", "switch_up"});
    CHECK(tusk::FailureKindsTaking("loss_rate") == std::vector<std::string>{"gray", "loss"});
    CHECK(tusk::FailureKindsTaking("until_us") ==
          std::vector<std::string>{"degrade", "flap", "gray", "link_down", "loss", "nic_down",
                                   "switch_down"});
    // Only degrade changes a link's rate (what INT must encode).
    for (const auto& k : tusk::FailureKinds())
    {
        INFO(k.name);
        CHECK(static_cast<bool>(k.rateBps) == (k.name == "degrade"));
        CHECK_FALSE(k.source.empty());
    }
}

TEST_CASE("a failure kind registered twice is refused", "[unit][registry][failures]")
{
    const auto errors = RegistrationErrors([] {
        tusk::FailureKindInfo k;
        k.name = "loss";
        k.description = "a second loss";
        k.schedule = [](const tusk::FailureSchedule&) {};
        tusk::FailureKindRegistration again{k, "test"};
    });
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors[0], Catch::Contains("two failure kinds registered as \"loss\""));
    CHECK(tusk::FindFailureKind("loss")->description != "a second loss");
}

TEST_CASE("tusk kinds lists every registered sort", "[unit][registry]")
{
    const std::string text = tusk::KindsText();
    for (const char* heading : {"loss recoveries (nic.receiver", "topology kinds (topology.kind)",
                                "failure kinds (failures[i].kind)", "fabric kinds (fabric.kind)"})
    {
        CHECK_THAT(text, Catch::Contains(heading));
    }
    for (const char* name : {"selective-repeat", "uec-rud", "multi-site", "rail-optimised",
                             "switch_down", "flap"})
    {
        CHECK_THAT(text, Catch::Contains(name));
    }
    CHECK_THAT(text, Catch::Contains("nic.rto_us >= 10"));
    CHECK_THAT(text, Catch::Contains("has credit flow control per VL"));
    CHECK_THAT(text, Catch::Contains("keys at_us, link, loss_rate, until_us; [[failure_rates]] may "
                                     "draw it"));
    CHECK_THAT(text, Catch::Contains("has the shared-buffer MMU and PFC"));
    CHECK_THAT(text, Catch::Contains("keys at_us, link, period_us, down_us, count, until_us"));
}

} // namespace TUSK_TEST_FILE
