// Plugins as a user meets them (docs/extending.md, "A plugin"): the shared library of
// scenarios/scripts/own-policy (min-queue.cc, constant-rate-cc.cc), built apart from tusk,
// registers a policy and a congestion control; `--plugin` and TUSK_PLUGIN_PATH load it and its names work in run, compare, kinds,
// sweep (local, resumed, and the Slurm task's command line) and rerun. The manifest records
// its path and SHA-256; rerun refuses a plugin missing or changed since; a library that cannot
// be loaded is bad input (exit 2, dlerror's text, nothing written).

#include "cli-helpers.h"

#include "sweep/sweep-plan.h" // Sha256Hex

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <sys/stat.h>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace fs = std::filesystem;
using tusk_test::Scratch;
using tusk_test::Shell;
using tusk_test::Slurp;
using tusk_test::Tusk;
using tusk_test::Write;

namespace
{

/** The plugin of this build (tests/CMakeLists.txt). */
std::string
Plugin()
{
    const fs::path p = fs::path(TUSK_BINARY_DIR) / "lib" / "libtusk-min-queue-plugin.so";
    REQUIRE(fs::is_regular_file(p));
    return p.string();
}

nlohmann::json
Manifest(const fs::path& dir)
{
    return nlohmann::json::parse(Slurp(dir / "manifest.json"));
}

} // namespace

TEST_CASE("plugins: a --plugin library's policy and congestion control run by name, and the "
          "manifest records it",
          "[component][cli][plugin]")
{
    const fs::path d = Scratch("plugin-run");
    Write(d / "s.toml", tusk_test::kSmallScenario);
    const std::string scen = (d / "s.toml").string();
    const std::string sets = " --set lb.policy=min-queue"
                             " --set nic.congestion_control=constant-rate";

    // Without the plugin its names are unknown: exit 2, nothing written.
    auto o = Tusk("run " + scen + sets + " -q --out " + (d / "none").string());
    CHECK(o.status == 2);
    CHECK_THAT(o.output, Catch::Contains("got \"constant-rate\""));
    CHECK_FALSE(fs::exists(d / "none"));

    o = Tusk("run " + scen + sets + " -q --plugin " + Plugin() + " --out " + (d / "r").string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const auto m = Manifest(d / "r");
    CHECK(m["policy_type_id"] == "ns3::MinQueueLoadBalancer");
    REQUIRE(m["plugins"].size() == 1);
    CHECK(m["plugins"][0]["path"] == Plugin());
    CHECK(m["plugins"][0]["sha256"] == tusk::Sha256Hex(Slurp(Plugin())));
    CHECK(m["scenario"]["nic"]["congestion_control"] == "constant-rate");
    // The NICs built the plugin's control.
    CHECK(m["resolved"].dump().find("ns3::ConstantRateCc") != std::string::npos);

    // A run without plugins writes no "plugins" key (manifests as before).
    o = Tusk("run " + scen + " -q --out " + (d / "plain").string());
    REQUIRE(o.status == 0);
    CHECK_FALSE(Manifest(d / "plain").contains("plugins"));

    // compare by name.
    o = Tusk("compare " + scen + " --policies ecmp,min-queue -q --plugin " + Plugin() +
             " --out " + (d / "cmp").string());
    INFO(o.output);
    REQUIRE(o.status == 0);
    CHECK(fs::exists(d / "cmp" / "min-queue" / "manifest.json"));
}

TEST_CASE("a library that cannot be loaded is bad input, with dlerror's text",
          "[component][cli][plugin]")
{
    const fs::path d = Scratch("plugin-bad");
    Write(d / "s.toml", tusk_test::kSmallScenario);
    Write(d / "not-a-library.so", "not an ELF file\n");
    auto o = Tusk("run " + (d / "s.toml").string() + " -q --plugin " +
                  (d / "not-a-library.so").string() + " --out " + (d / "r").string());
    CHECK(o.status == 2);
    CHECK_THAT(o.output, Catch::Contains("cannot be loaded"));
    CHECK_THAT(o.output, Catch::Contains("not-a-library.so: ")); // dlerror names the file
    CHECK_FALSE(fs::exists(d / "r"));

    o = Tusk("kinds --plugin " + (d / "missing.so").string());
    CHECK(o.status == 2);
    CHECK_THAT(o.output, Catch::Contains("no such file"));

    o = Shell("TUSK_PLUGIN_PATH=" + (d / "nowhere").string() + " " + TUSK_BINARY_DIR +
              "/bin/tusk kinds");
    CHECK(o.status == 2);
    CHECK_THAT(o.output, Catch::Contains("TUSK_PLUGIN_PATH"));
}

TEST_CASE("a library that registers nothing is refused as a plugin, naming it",
          "[component][cli][plugin]")
{
    const fs::path d = Scratch("plugin-nothing");
    Write(d / "s.toml", tusk_test::kSmallScenario);
    const std::string lib =
        (fs::path(TUSK_BINARY_DIR) / "lib" / "libtusk-no-registration.so").string();
    REQUIRE(fs::exists(lib));
    auto o = Tusk("run " + (d / "s.toml").string() + " -q --plugin " + lib + " --out " +
                  (d / "r").string());
    CHECK(o.status == 2);
    CHECK_THAT(o.output, Catch::Contains("libtusk-no-registration.so: no tusk registration found"));
    CHECK_FALSE(fs::exists(d / "r"));
    o = Tusk("kinds --plugin " + lib);
    CHECK(o.status == 2);
    CHECK_THAT(o.output, Catch::Contains("no tusk registration found"));
    // The real plugin is still taken.
    o = Tusk("kinds --plugin " + Plugin());
    CHECK(o.status == 0);
}

TEST_CASE("a plugin registering a name that is taken is bad input, not an abort",
          "[component][cli][plugin]")
{
    // The same library under another path (an installed plugin and a build of it): its
    // "min-queue" is taken by the first when the second loads.
    const fs::path d = Scratch("plugin-clash");
    fs::copy_file(Plugin(), d / "copy.so");
    const auto o = Tusk("kinds --plugin " + Plugin() + " --plugin " + (d / "copy.so").string());
    CHECK(o.status == 2);
    CHECK_THAT(o.output, Catch::Contains("registers a name that is taken"));
    CHECK_THAT(o.output, Catch::Contains("\"min-queue\""));
}

TEST_CASE("tusk kinds lists every registered kind with its needs, plugins' too",
          "[component][cli][plugin]")
{
    auto o = Tusk("kinds");
    REQUIRE(o.status == 0);
    CHECK_THAT(o.output, Catch::Contains("congestion controls (nic.congestion_control):"));
    CHECK_THAT(o.output, Catch::Contains("ns3::IbCongestionControl"));
    CHECK_THAT(o.output, Catch::Contains("needs ECN marking ([ecn] enabled = true); the fabric's "
                                         "base RTT; fabric.kind = \"infiniband\""));
    CHECK_THAT(o.output, Catch::Contains("plugins loaded (--plugin, TUSK_PLUGIN_PATH): none"));
    CHECK(o.output.find("constant-rate") == std::string::npos);

    // TUSK_PLUGIN_PATH: a folder of .so files.
    const fs::path d = Scratch("plugin-path");
    fs::copy_file(Plugin(), d / "example.so");
    o = Shell("TUSK_PLUGIN_PATH=:" + d.string() + " " + TUSK_BINARY_DIR + "/bin/tusk kinds");
    INFO(o.output);
    REQUIRE(o.status == 0);
    CHECK_THAT(o.output, Catch::Contains("constant-rate"));
    CHECK_THAT(o.output, Catch::Contains("min-queue"));
    CHECK_THAT(o.output, Catch::Contains((d / "example.so").string() + " sha256 "));
}

TEST_CASE("rerun loads the manifest's plugin and refuses one missing or changed since",
          "[component][cli][plugin]")
{
    const fs::path d = Scratch("plugin-rerun");
    Write(d / "s.toml", tusk_test::kSmallScenario);
    const fs::path lib = d / "plugin.so"; // a copy we may change
    fs::copy_file(Plugin(), lib);
    auto o = Tusk("run " + (d / "s.toml").string() + " --set lb.policy=min-queue -q "
                  "--plugin " + lib.string() + " --out " + (d / "r").string());
    REQUIRE(o.status == 0);

    o = Tusk("rerun " + (d / "r").string() + " -q --out " + (d / "again").string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK_THAT(o.output, Catch::Contains("reproduced"));

    // `tusk run MANIFEST` loads them too.
    o = Tusk("run " + (d / "r" / "manifest.json").string() + " -q --out " + (d / "again2").string());
    CHECK(o.status == 0);

    fs::copy_file(Plugin(), d / "moved.so");
    o = Tusk("rerun " + (d / "r").string() + " -q --plugin " + (d / "moved.so").string() +
             " --out " + (d / "moved").string());
    CHECK(o.status == 0); // the same bytes at another path stand for it

    std::ofstream(lib, std::ios::app) << "x";
    o = Tusk("rerun " + (d / "r").string() + " -q --out " + (d / "changed").string());
    CHECK(o.status == 2);
    CHECK_THAT(o.output, Catch::Contains("changed since"));
    CHECK_FALSE(fs::exists(d / "changed"));

    fs::remove(lib);
    o = Tusk("rerun " + (d / "r").string() + " -q --out " + (d / "missing").string());
    CHECK(o.status == 2);
    CHECK_THAT(o.output, Catch::Contains("missing"));
    CHECK_FALSE(fs::exists(d / "missing"));
}

TEST_CASE("a sweep records its plugins: its runs, a resumed sweep and Slurm tasks load them",
          "[component][cli][plugin][sweep]")
{
    const fs::path d = Scratch("plugin-sweep");
    Write(d / "base.toml", tusk_test::kSmallScenario);
    Write(d / "sw.toml", "name = \"p\"\nscenario = \"base.toml\"\n[[axis]]\nkey = \"lb.policy\"\n"
                         "values = [\"ecmp\", \"min-queue\"]\n");
    const std::string sweep = "sweep " + (d / "sw.toml").string() + " -j 1 -q --out ";

    auto o = Tusk(sweep + (d / "out").string() + " --plugin " + Plugin());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const auto plan = nlohmann::json::parse(Slurp(d / "out" / ".sweep" / "plan.json"));
    REQUIRE(plan["plugins"].size() == 1);
    CHECK(plan["plugins"][0]["path"] == Plugin());
    CHECK_THAT(Slurp(d / "out" / "sweep.csv"), Catch::Contains("min-queue"));

    // Resumed without --plugin: the plan's plugin is loaded, the scenarios read, nothing rerun.
    o = Tusk(sweep + (d / "out").string());
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK_THAT(o.output, Catch::Contains("2 skipped"));
    o = Tusk(sweep + (d / "out").string() + " --dry-run");
    CHECK_THAT(o.output, Catch::Contains("--plugin " + Plugin()));

    // Slurm: the array task's command line passes the plugins on (a stand-in sbatch).
    const fs::path bin = d / "bin";
    fs::create_directories(bin);
    Write(bin / "sbatch", "#!/bin/sh\necho 42\n");
    fs::permissions(bin / "sbatch", fs::perms::owner_all);
    o = Shell("PATH=" + bin.string() + ":$PATH " + TUSK_BINARY_DIR + "/bin/tusk " + sweep +
              (d / "slurm").string() + " --backend slurm --plugin " + Plugin());
    INFO(o.output);
    REQUIRE(o.status == 0);
    const std::string script = Slurp(d / "slurm" / ".sweep" / "slurm" / "array-1.sh");
    CHECK_THAT(script, Catch::Contains(" --plugin '" + Plugin() + "'"));
}

} // namespace TUSK_TEST_FILE
