// Models name their own parameters in their errors (LeafSpineParams.spines, bytesPerRank,
// BackgroundRequest.load, ns3::SharedBufferMmu::BufferBytes); the runner reports the scenario
// key behind each, with the scenario file and the key's line (exit status 2 in the CLI).

#include "run-helpers.h"

#include "scenario/scenario-toml.h"

#include "fabric/model/input-error.h"

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

ns3::InputError
RunError(const std::string& text)
{
    const tusk::ScenarioSpec spec = tusk::LoadScenarioString(text, "errors.toml");
    try
    {
        tusk::RunOptions o;
        o.progress = false;
        tusk::RunScenario(spec, o);
    }
    catch (const ns3::InputError& e)
    {
        return e;
    }
    FAIL("expected an InputError");
    return ns3::InputError("", 0, "", "");
}

} // namespace

TEST_CASE("a topology builder's error names the topology key and its line",
          "[component][scenario][knobs]")
{
    // 20 hosts + 70000 spine uplinks per leaf: more ports than a switch can have.
    const auto e = RunError("[topology]\nkind = \"leaf-spine\"\nleaves = 2\nspines = 70000\n"
                            "hosts_per_leaf = 20\n");
    CHECK(e.File() == "errors.toml");
    CHECK(e.Key() == "topology.spines");
    CHECK(e.Line() == 4);
    CHECK(e.Message().find("ports per leaf") != std::string::npos);
}

TEST_CASE("a traffic generator's error names the workload key and its line",
          "[component][scenario][knobs]")
{
    // A 16-rank ring with 2 channels needs at least 32 bytes per rank (one per piece).
    const auto e = RunError("[topology]\nleaves = 4\nspines = 1\nhosts_per_leaf = 4\n"
                            "[workload]\nkind = \"ring-allreduce\"\nchannels = 2\nbytes = 31\n");
    CHECK(e.File() == "errors.toml");
    CHECK(e.Key() == "workload.bytes");
    CHECK(e.Line() == 8);
}

TEST_CASE("a buffer too small for its headroom names buffer.total_bytes",
          "[component][scenario][knobs]")
{
    const auto e = RunError("[topology]\nleaves = 1\nspines = 1\nhosts_per_leaf = 8\n"
                            "[buffer]\ntotal_bytes = \"64KiB\"\n");
    CHECK(e.Key() == "buffer.total_bytes");
    CHECK(e.Line() == 6);
    CHECK(e.Message().find("leaving no shared buffer; raise buffer.total_bytes") !=
          std::string::npos);
}

TEST_CASE("a policy attribute the LoadBalancer does not have names [lb.attributes]",
          "[component][scenario][knobs]")
{
    const auto e = RunError("[lb]\npolicy = \"ecmp\"\n[lb.attributes]\nFlowletGap = \"10us\"\n");
    CHECK(e.Key() == "lb.attributes.FlowletGap");
    CHECK(e.Line() == 4);
}

} // namespace TUSK_TEST_FILE
