// `tusk run` on inputs that cannot give a meaningful run stops before it starts, as for any
// bad input: one line `FILE:LINE: key: ...`, exit status 2, no results written. Before, a link
// of 1e-9 Gb/s hung the run, a disconnected topology ran and reported only drops_no_route, and
// a PFC headroom of 1 byte was accepted.

#include "cli-helpers.h"

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk_test;

namespace
{

bool
Contains(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

/** `tusk run -q` of `scenario` (written as `name` in a scratch directory); its outcome. */
Outcome
RunScenarioText(const std::string& name, const std::string& scenario,
                const std::filesystem::path& dir)
{
    Write(dir / name, scenario);
    return Tusk("run -q " + (dir / name).string() + " --out " + (dir / "out").string());
}

} // namespace

TEST_CASE("refused inputs: a link of 1e-9 Gb/s is an input error, not a run that hangs",
          "[component][cli][bounds]")
{
    const auto dir = Scratch("refused-rate");
    const Outcome o = RunScenarioText("slow.toml",
                                      "name = \"slow\"\n[topology]\nhost_link_gbps = 1e-9\n", dir);
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(Contains(o.output, "slow.toml:3: topology.host_link_gbps: expected a number in "
                             "0.001..100000; got 1e-09"));
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_CASE("refused inputs: a disconnected HPCC topology names the host pairs without a route",
          "[component][cli][routes]")
{
    const auto dir = Scratch("refused-routes");
    Write(dir / "topology.txt", "6 2 4\n4 5\n0 4 100Gbps 0.001ms 0\n1 4 100Gbps 0.001ms 0\n"
                                "2 5 100Gbps 0.001ms 0\n3 5 100Gbps 0.001ms 0\n");
    const Outcome o = RunScenarioText("split.toml",
                                      "name = \"split\"\n[topology]\nkind = \"hpcc\"\n"
                                      "file = \"topology.txt\"\n[workload]\nkind = \"flows\"\n"
                                      "[[workload.flows]]\nsrc = 0\ndst = 3\nbytes = 1000\n",
                                      dir);
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(Contains(o.output, "split.toml:4: topology.file: the topology is not connected: 2 "
                             "ordered host pairs"));
    CHECK(Contains(o.output, "host0 -> host3, host3 -> host0"));
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_CASE("refused inputs: a PFC headroom below one frame is refused, below a link's need, the "
          "run warns with the bytes needed",
          "[component][cli][pfc]")
{
    const auto dir = Scratch("refused-headroom");
    const std::string small = "name = \"small\"\n[topology]\nleaves = 2\nspines = 1\n"
                              "hosts_per_leaf = 1\n[workload]\nkind = \"permutation\"\n"
                              "bytes = \"10KB\"\n[buffer]\nheadroom_bytes = ";
    Outcome o = RunScenarioText("one-byte.toml", small + "1\n", dir);
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(Contains(o.output, "one-byte.toml:10: buffer.headroom_bytes: expected 0 (automatic) or "
                             "at least one full data frame"));
    CHECK_FALSE(std::filesystem::exists(dir / "out"));

    // 5000 bytes hold a frame but not the 118,516 bytes a 400 Gb/s, 1 us link needs.
    Write(dir / "short.toml", small + "5000\n");
    o = Tusk("run " + (dir / "short.toml").string() + " --out " + (dir / "out").string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(Contains(o.output, "warning: buffer.headroom_bytes (5000 bytes) is below the PFC "
                             "headroom a 400 Gb/s, 1000 ns link needs"));
    CHECK(Contains(o.output, "= 118516 bytes per port"));
}

TEST_CASE("refused inputs: a fractional value of an integer ns-3 attribute is an input error, "
          "not an abort",
          "[component][cli][ns3]")
{
    // ns-3 aborts on an integer attribute's text it cannot read to the end ("3.5").
    const auto dir = Scratch("refused-ns3-integer");
    const Outcome o = RunScenarioText(
        "frac.toml",
        "name = \"frac\"\n[topology]\nleaves = 2\nspines = 1\nhosts_per_leaf = 1\n"
        "[workload]\nkind = \"permutation\"\nbytes = \"10KB\"\n[ns3]\n"
        "\"ns3::SwitchNode::TrimThresholdBytes\" = 65536.5\n",
        dir);
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(Contains(o.output, "frac.toml:10: ns3.ns3::SwitchNode::TrimThresholdBytes: expected a "
                             "whole number; got \"65536.5\""));
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

} // namespace TUSK_TEST_FILE
