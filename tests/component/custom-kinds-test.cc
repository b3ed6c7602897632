// A topology kind, a failure kind, a loss recovery and a fabric kind, each added in this one
// file: the recipes of docs/extending.md ("A topology kind", "A failure kind", "A loss
// recovery", "A fabric kind"). Nothing in tusk/ knows the names "example-star",
// "example_half_rate", "example-gbn" or "example-credits"; the
// scenario reader takes the choices from the registries, and the validator and the runner
// read each kind's keys, builder, checks and needs from its registration.

#include "run-helpers.h"

#include "run/fabric-kinds.h"
#include "run/failure-kinds.h"
#include "run/run-stages.h"
#include "scenario/scenario-sections.h"
#include "scenario/scenario-toml.h"
#include "scenario/topology-kinds.h"

#include "fabric/model/input-error.h"
#include "rdma/model/loss-recovery/loss-recovery-registry.h"
#include "rdma/model/loss-recovery/rdma-loss-recovery.h"
#include "rdma/model/rdma-nic.h"

#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <algorithm>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;
using namespace ns3;

namespace
{

// [topology]
/** The keys of `example-star`: hosts on one switch. */
struct StarParams
{
    uint32_t hosts = 3;
    uint64_t rateBps = 100'000'000'000ULL;
};

const std::vector<tusk::Knob<StarParams>>&
StarRows()
{
    using namespace tusk::knob;
    static const std::vector<tusk::Knob<StarParams>> rows = {
        Count<StarParams>("hosts", &StarParams::hosts, 2, "Hosts on the switch."),
        Rate<StarParams>("link_gbps", &StarParams::rateBps, tusk::kBpsPerGbps, Sign::POSITIVE,
                         bounds::kLinkRate, "Every link's rate."),
    };
    return rows;
}

/** hosts host0..host<n-1>, each with a 1 us link to switch sw0. */
TopologyGraph
BuildStar(const StarParams& p)
{
    TopologyGraph g;
    g.description = "star of " + std::to_string(p.hosts) + " hosts";
    g.numHosts = p.hosts;
    for (uint32_t h = 0; h < p.hosts; ++h)
    {
        g.vertices.push_back({TopoVertex::HOST, 0, 0, "host" + std::to_string(h)});
        g.links.push_back({h, p.hosts, p.rateBps, 1'000'000});
    }
    g.vertices.push_back({TopoVertex::SWITCH, 1, 0, "sw0"});
    return g;
}

const tusk::TopologyKindRegistration kStar{
    [] {
        tusk::TopologyKindInfo k = tusk::WithKnobs("example-star", "hosts on one switch (example)",
            &StarRows, [](auto& t) -> auto& { return tusk::OwnTopologyParams<StarParams>(t); });
        k.hostCount = [](const tusk::TopologySection& t) -> uint64_t {
            return tusk::OwnTopologyParams<StarParams>(t).hosts;
        };
        k.build = [](const tusk::ScenarioSpec& s) {
            return BuildStar(tusk::OwnTopologyParams<StarParams>(s.topology));
        };
        k.check = [](const tusk::ScenarioSpec& s, const TopologyGraph&, uint64_t) {
            if (s.lb.policy != "ecmp")
            {
                throw InputError(s.sourceFile, s.LineOf("lb.policy"), "lb.policy",
                                 "a star has one path between two hosts: use \"ecmp\"");
            }
        };
        return k;
    }(),
    "docs/extending.md (example)"};
// [/topology]

// [failure]
/** A link at half its rate from at_us to until_us. */
const tusk::FailureKindRegistration kHalfRate{
    [] {
        tusk::FailureKindInfo k;
        k.name = "example_half_rate";
        k.description = "a link at half its rate (example)";
        k.doc = "the link runs at half its configured rate.";
        k.lasting = true;
        k.drawable = true; // [[failure_rates]] may draw it too
        k.rateBps = [](const tusk::FailureEntry&, uint64_t linkBps) { return linkBps / 2; };
        k.schedule = [](const tusk::FailureSchedule& s) {
            for (uint32_t gl : s.links)
            {
                tusk::Impairment what;
                what.bps = s.graph.links[gl].rateBps / 2;
                auto driver = s.driver;
                const size_t i = s.index;
                s.At(s.f.atPs, [driver, gl, i, what]() { driver->Impair(gl, i, true, what); });
                if (s.f.untilPs)
                {
                    s.At(*s.f.untilPs,
                         [driver, gl, i, what]() { driver->Impair(gl, i, false, what); });
                }
            }
        };
        return k;
    }(),
    "docs/extending.md (example)"};
// [/failure]

// [recovery]
/** Go-back-N that counts the QPs it serves. */
class CountingGoBackN : public GoBackNRecovery
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ExampleCountingGoBackN")
                                .SetParent<GoBackNRecovery>()
                                .SetGroupName("Example")
                                .AddConstructor<CountingGoBackN>();
        return tid;
    }
    CountingGoBackN() { ++s_built; }

    static inline uint32_t s_built = 0; //!< QPs built with it (all runs)
};

NS_OBJECT_ENSURE_REGISTERED(CountingGoBackN);

const LossRecoveryRegistration kCountingGoBackN{
    {"example-gbn", "ns3::ExampleCountingGoBackN", "go-back-N that counts its QPs (example)",
     LossRecoveryInfo::RECEIVER, LossRecoveryInfo::IN_ORDER},
    "docs/extending.md (example)"};
/** A transport of its own: UEC RUD's machinery, with a retransmission timeout of >= 20 us. */
const LossRecoveryRegistration kSlowRud{
    {"example-rud", "ns3::UecRudRecovery", "UEC RUD with a 20 us minimum RTO (example)",
     LossRecoveryInfo::TRANSPORT, LossRecoveryInfo::NEEDS_NOTHING, 20'000'000},
    "docs/extending.md (example)"};
// [/recovery]

// [fabric]
/** Credit flow control per VL with small, slowly refilled input buffers: 8 KiB per VL, credits
 *  back 10 us after a frame leaves a buffer. */
constexpr uint64_t kExampleVlBytes = 8192;
constexpr uint64_t kExampleCreditLatencyPs = 10'000'000;

const tusk::FabricKindRegistration kSlowCredits{
    [] {
        tusk::FabricKindInfo k;
        k.name = "example-credits";
        k.description = "VL credits from 8 KiB buffers refilled after 10 us (example)";
        k.flowControl = tusk::FabricKindInfo::VL_CREDITS;
        k.flowControlLabel = "slow credits";
        k.configure = [](const tusk::ScenarioSpec&, FabricHelper& helper,
                         tusk::RunAttributes& attrs) {
            helper.SetCreditFlowControl(true);
            const UintegerValue buffer(kExampleVlBytes);
            const TimeValue latency(PicoSeconds(kExampleCreditLatencyPs));
            helper.SetPortAttribute("VlBufferBytes", buffer);
            attrs.Note("ns3::SwitchPort", "VlBufferBytes", buffer);
            helper.SetPortAttribute("CreditUpdateLatency", latency);
            attrs.Note("ns3::SwitchPort", "CreditUpdateLatency", latency);
        };
        k.configureNic = [](const tusk::ScenarioSpec&, const Ptr<RdmaNic>& nic,
                            tusk::RunAttributes& attrs) {
            attrs.Set(nic, "VlBufferBytes", UintegerValue(kExampleVlBytes));
            attrs.Set(nic, "CreditUpdateLatency", TimeValue(PicoSeconds(kExampleCreditLatencyPs)));
        };
        k.check = [](const tusk::ScenarioSpec& s, const tusk::RunPlan&) {
            if (s.nic.mtuBytes > 2048)
            {
                throw InputError(s.sourceFile, s.LineOf("nic.mtu_bytes"), "nic.mtu_bytes",
                                 "8 KiB VL buffers hold too few frames above 2048 bytes");
            }
        };
        return k;
    }(),
    "docs/extending.md (example)"};
// [/fabric]

// Hosts 0 and 1 of a 3-host star each send 1 MB to host 2 at 100 Gb/s.
const std::string kStarScenario = R"(
name = "example-star"
[topology]
kind = "example-star"
hosts = 3
link_gbps = 100
[workload]
kind = "flows"
flows = [{src = 0, dst = 2, bytes = 1000000}]
[nic]
mtu_bytes = 1000
)";

/** The star scenario with `--set`s and TOML text appended (a [[failures]] entry). */
tusk::ScenarioSpec
Load(const std::vector<std::string>& sets = {}, const std::string& extra = "")
{
    return tusk::LoadScenarioString(kStarScenario + extra, "<test>", sets);
}

} // namespace

TEST_CASE("a topology kind registered in one file runs by name", "[component][registry][topology]")
{
    const tusk::ScenarioSpec spec = Load();
    CHECK(tusk::TopologyHostCount(spec) == 3);
    const tusk::RunResult r = Run(spec);
    REQUIRE(r.finished);
    // 1 MB at 100 Gb/s is 80 us of serialisation: the flow crossed the star at line rate.
    CHECK(MaxFctUs(r) > 80);
    CHECK(MaxFctUs(r) < 100);
    // The manifest echoes its keys; a key of another kind is refused naming the kinds it has.
    const nlohmann::json echo = tusk::ScenarioToJson(spec);
    CHECK(echo["topology"]["kind"] == "example-star");
    CHECK(echo["topology"]["hosts"] == 3);
    CHECK_THROWS_WITH(Load({"topology.leaves=2"}), Catch::Contains("leaf-spine"));
    // Its check runs: a star refuses a policy other than ecmp.
    try
    {
        Run(Load({"lb.policy=spray", "nic.receiver=selective-repeat"}));
        FAIL("no error from the kind's check");
    }
    catch (const InputError& e)
    {
        CHECK(e.Key() == "lb.policy");
        CHECK_THAT(e.Message(), Catch::Contains("a star has one path"));
    }
}

TEST_CASE("a failure kind registered in one file runs by name", "[component][registry][failures]")
{
    const double fullUs = MaxFctUs(Run(Load()));
    const std::string failure =
        "[[failures]]\nat_us = 0\nkind = \"example_half_rate\"\nlink = \"host0-sw0\"\n";
    const tusk::RunResult half = Run(Load({}, failure));
    REQUIRE(half.finished);
    INFO("full rate " << fullUs << " us, half rate " << MaxFctUs(half) << " us");
    // Serialisation dominates (80 us of 86 at full rate): twice as long at half rate.
    CHECK(MaxFctUs(half) > 1.8 * fullUs);
    CHECK(MaxFctUs(half) < 2.2 * fullUs);
    // The keys of other kinds are refused for it; its target key is required.
    CHECK_THROWS_WITH(Load({}, failure + "rate_divisor = 2\n"), Catch::Contains("degrade"));
    CHECK_THROWS_WITH(Load({}, "[[failures]]\nat_us = 0\nkind = \"example_half_rate\"\n"),
                      Catch::Contains("link"));
    // [[failure_rates]] draws it: every host link fails once (never repaired), each at an
    // exponential time of mean 0.1 us, so the flow runs at half rate almost from the start.
    const tusk::ScenarioSpec drawn = Load({}, "[[failure_rates]]\ncomponent = \"link\"\n"
                                              "kind = \"example_half_rate\"\nmtbf_us = 0.1\n");
    CHECK(tusk::ScenarioToJson(drawn)["failure_rates"][0]["kind"] == "example_half_rate");
    const tusk::RunResult randomHalf = Run(drawn);
    REQUIRE(randomHalf.finished);
    CHECK(MaxFctUs(randomHalf) > 1.8 * fullUs);
    // A kind that is not drawable, or not of the component, is refused naming those that are.
    CHECK_THROWS_WITH(Load({}, "[[failure_rates]]\ncomponent = \"link\"\nkind = \"flap\"\n"
                               "mtbf_us = 1\n"),
                      Catch::Contains("example_half_rate"));
    CHECK_THROWS_WITH(Load({}, "[[failure_rates]]\ncomponent = \"switch\"\n"
                               "kind = \"example_half_rate\"\nmtbf_us = 1\n"),
                      Catch::Contains("switch_down"));
}

TEST_CASE("a loss recovery registered in one file runs by name", "[component][registry][recovery]")
{
    const uint32_t before = CountingGoBackN::s_built;
    REQUIRE(Run(Load({"nic.receiver=example-gbn"})).finished);
    CHECK(CountingGoBackN::s_built > before);
    // Its needs: an in-order receiver is refused under a policy that reorders (InfiniBand
    // adaptive routing), and the message names the recoveries that would do.
    try
    {
        tusk::ValidateRun(
            Load({"nic.receiver=example-gbn", "fabric.kind=infiniband", "lb.policy=ib-ar"}));
        FAIL("no error for an in-order receiver under adaptive routing");
    }
    catch (const InputError& e)
    {
        CHECK(e.Key() == "nic.receiver");
        CHECK_THAT(e.Message(), Catch::Contains("example-gbn"));
        CHECK_THAT(e.Message(), Catch::Contains("nic.receiver = \"selective-repeat\""));
    }
    // A transport of its own: chosen by nic.transport, its minimum RTO enforced where read.
    CHECK_THROWS_WITH(Load({"nic.transport=example-rud", "nic.rto_us=15"}),
                      Catch::Contains("at least 20 us"));
    REQUIRE(Run(Load({"nic.transport=example-rud", "nic.rto_us=100"})).finished);
    CHECK_THROWS_WITH(Load({"nic.transport=example-rud", "nic.receiver=go-back-n"}),
                      Catch::Contains("nic.receiver cannot be set"));
}

TEST_CASE("a fabric kind registered in one file runs by name", "[component][registry][fabric]")
{
    const tusk::ScenarioSpec spec = Load({"fabric.kind=example-credits"});
    CHECK(tusk::FabricKindOf(spec).UsesCredits());
    CHECK(tusk::ScenarioToJson(spec)["fabric"]["kind"] == "example-credits");
    const tusk::RunResult r = Run(spec);
    REQUIRE(r.finished);
    // Its settings took effect: a sender has at most one 8 KiB buffer of frames per credit
    // round trip of at least 10 us + 2 x 1 us link delay (IBA vol. 1 7.9: credits return only
    // after a frame leaves the input buffer), so 1 MB takes at least (1e6 / 8192 - 1) x 12 us
    // = 1,453 us, where the Ethernet star of the test above takes under 100 us.
    INFO("max FCT " << MaxFctUs(r) << " us");
    CHECK(MaxFctUs(r) > 1400);
    CHECK(MaxFctUs(r) < 3000);
    // Its check runs, and [fabric] keys of another kind are refused naming that kind.
    CHECK_THROWS_WITH(tusk::ValidateRun(Load({"fabric.kind=example-credits", "nic.mtu_bytes=4096"})),
                      Catch::Contains("8 KiB VL buffers"));
    CHECK_THROWS_WITH(Load({"fabric.kind=example-credits", "fabric.vl_buffer_bytes=65536"}),
                      Catch::Contains("infiniband"));
    // An unknown kind is refused naming the registered ones.
    CHECK_THROWS_WITH(Load({"fabric.kind=token-ring"}), Catch::Contains("example-credits"));
}

} // namespace TUSK_TEST_FILE
