// A congestion control added in one file: the model and its registration live here, and the
// scenario names it like any shipped one. This is the recipe of docs/extending.md ("A
// congestion control"): nothing in tusk/ knows the name "fixed-window"; the reader takes the
// choices of nic.congestion_control from the registry, and the validator and the runner read
// what a congestion control needs from its registration.

#include "run-helpers.h"

#include "run/run-stages.h"
#include "scenario/scenario-toml.h"

#include "fabric/model/input-error.h"
#include "rdma/model/cc/cc-registry.h"
#include "rdma/model/cc/rdma-congestion-control.h"

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

// [cc]
/** A constant window of WindowBytes per QP at line rate: the smallest useful control. */
class FixedWindowCc : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::ExampleFixedWindowCc")
                .SetParent<RdmaCongestionControl>()
                .SetGroupName("Example")
                .AddConstructor<FixedWindowCc>()
                .AddAttribute("WindowBytes", "Payload bytes a QP may have outstanding (bytes).",
                              UintegerValue(8192),
                              MakeUintegerAccessor(&FixedWindowCc::m_windowBytes),
                              MakeUintegerChecker<uint64_t>(1));
        return tid;
    }
    void Init(const RdmaCcSetup& setup) override
    {
        RdmaCongestionControl::Init(setup);
        ++s_qps;
    }
    uint64_t GetWindowBytes() const override { return m_windowBytes; }
    const char* Name() const override { return "fixed-window"; }

    static inline uint32_t s_qps = 0; //!< QPs built with this control (all runs)

  private:
    uint64_t m_windowBytes = 8192;
};

NS_OBJECT_ENSURE_REGISTERED(FixedWindowCc);

const CongestionControlRegistration kFixedWindow{
    {"fixed-window", "ns3::ExampleFixedWindowCc", "a constant window of WindowBytes per QP"},
    "docs/extending.md (example)"};
// [/cc]

// The same model registered under a second name with needs, to see the validator read them.
const CongestionControlRegistration kNeedy{
    {"fixed-window-ib", "ns3::ExampleFixedWindowCc", "the example, said to need ECN on InfiniBand",
     CongestionControlInfo::NEEDS_ECN, "infiniband"},
    "docs/extending.md (example)"};

// One switch, hosts 0 and 1 each send 1 MB to host 2 at 100 Gb/s over 1 us links.
const std::string kScenario = R"(
name = "fixed-window"
[topology]
kind = "leaf-spine"
leaves = 1
spines = 1
hosts_per_leaf = 3
host_link_gbps = 100
fabric_link_gbps = 100
link_delay_ns = 1000
[workload]
kind = "flows"
flows = [{src = 0, dst = 2, bytes = 1000000}, {src = 1, dst = 2, bytes = 1000000}]
[nic]
mtu_bytes = 1000
)";

} // namespace

TEST_CASE("a congestion control registered in one file runs by name", "[component][cc][registry]")
{
    const auto load = [](const std::vector<std::string>& sets) {
        return tusk::LoadScenarioString(kScenario, "<test>", sets);
    };
    const uint32_t before = FixedWindowCc::s_qps;
    const tusk::RunResult none = Run(load({}));
    REQUIRE(none.finished);
    CHECK(FixedWindowCc::s_qps == before);

    // 1000-byte window: one packet in flight per QP, about one per RTT (4 links of 1 us and
    // their serialisation): far slower than line rate.
    const tusk::RunResult fixed = Run(load({"nic.congestion_control=fixed-window",
                                            "ns3.\"ns3::ExampleFixedWindowCc::WindowBytes\"=1000"}));
    REQUIRE(fixed.finished);
    CHECK(FixedWindowCc::s_qps >= before + 2); // both senders' QPs were built with it
    const double rttUs = 4.0 + 0.2;
    const double perFlowUs = 1000 * rttUs; // 1000 packets, one per RTT
    INFO("none " << MaxFctUs(none) << " us, fixed-window " << MaxFctUs(fixed) << " us");
    CHECK(MaxFctUs(fixed) > 0.8 * perFlowUs);
    CHECK(MaxFctUs(fixed) > 10 * MaxFctUs(none));
}

TEST_CASE("the validator reads a registered congestion control's needs", "[component][cc][registry]")
{
    tusk::ScenarioSpec spec = tusk::LoadScenarioString(kScenario, "<test>",
                                                       {"nic.congestion_control=fixed-window-ib"});
    try
    {
        tusk::ValidateRun(spec);
        FAIL("no error for a congestion control that needs InfiniBand on Ethernet");
    }
    catch (const InputError& e)
    {
        CHECK(e.Key() == "nic.congestion_control");
        CHECK_THAT(e.Message(), Catch::Contains("needs [fabric] kind = \"infiniband\""));
    }
    // An unregistered name is refused where the scenario names it.
    CHECK_THROWS_AS(tusk::LoadScenarioString(kScenario, "<test>", {"nic.congestion_control=nope"}),
                    InputError);
    spec.nic.congestionControl = "nope"; // a spec built in code
    CHECK_THROWS_AS(tusk::ValidateRun(spec), InputError);
}

} // namespace TUSK_TEST_FILE
