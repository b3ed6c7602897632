// Every input in fuzz/regressions/ (a fuzzing finding, fixed) read by the reader its fuzz
// target calls: the reader must reject it with an InputError naming the key (the exit-2 path),
// not crash or trip a sanitizer (this test also runs in build-asan, docs/testing.md).

#include "fuzz/tusk-input-harness.h"
#include "fabric/model/input-error.h"
#include "scenario/hpcc-config.h"
#include "workload/model/background-traffic.h"
#include "importers/model/simai-workload.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace fs = std::filesystem;

namespace
{

const fs::path kRegressions = fs::path(TUSK_SOURCE_DIR) / "fuzz" / "regressions";

std::string
Slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/** The reader of each fuzz target, as the target calls it. */
const std::map<std::string, std::function<void(const std::string&)>>&
Readers()
{
    static const std::map<std::string, std::function<void(const std::string&)>> readers = {
        {"fuzz-hpcc-config",
         [](const std::string& path) {
             tusk::ScenarioSpec spec;
             tusk::ApplyHpccConfig(path, spec);
         }},
        {"fuzz-flow-size-cdf",
         [](const std::string& path) {
             const ns3::FlowSizeCdf cdf = ns3::FlowSizeCdf::Read(path);
             for (double u : {0.0, 0.25, 0.5, 0.999999})
             {
                 cdf.Sample(u);
             }
         }},
        {"fuzz-simai-workload",
         [](const std::string& path) {
             const ns3::SimAiWorkload w = ns3::ReadSimAiWorkload(path);
             std::string note;
             ns3::SimAiDegrees(w, w.allGpus, &note);
             ns3::SimAiIteration(w);
         }},
        {"fuzz-sweep-plan",
         [](const std::string& path) { tusk_fuzz::SweepPlanInput(Slurp(path)); }},
        {"fuzz-regress-suite",
         [](const std::string& path) { tusk_fuzz::RegressSuiteInput(Slurp(path)); }},
        {"fuzz-locate", [](const std::string& path) { tusk_fuzz::LocateInput(Slurp(path)); }},
    };
    return readers;
}

ns3::InputError
Rejection(const std::string& target, const std::string& file)
{
    const fs::path path = kRegressions / target / file;
    REQUIRE(fs::is_regular_file(path));
    try
    {
        Readers().at(target)(path.string());
    }
    catch (const ns3::InputError& e)
    {
        return e;
    }
    FAIL("accepted: " << path);
    throw;
}

} // namespace

TEST_CASE("fuzz findings: HPCC config values too large for their integer are errors",
          "[unit][fuzz][hpcc]")
{
    // UBSan: "1e+306 is outside the range of representable values of type 'unsigned long'"
    // (RATE_AI was cast to uint64 unchecked; so were KMIN/KMAX_MAP's rate and thresholds).
    auto e = Rejection("fuzz-hpcc-config", "rate-ai-overflows-uint64.txt");
    CHECK(e.Key() == "RATE_AI");
    CHECK(e.Line() == 2);
    CHECK(e.Message().find("0..1e15 b/s") != std::string::npos);
    e = Rejection("fuzz-hpcc-config", "kmax-map-overflows-uint64.txt");
    CHECK(e.Key() == "KMAX_MAP");
    CHECK(e.Message().find("0..1e9 KB") != std::string::npos);
    // "inf" was a number; it passed only where a range check followed.
    e = Rejection("fuzz-hpcc-config", "rp-timer-inf.txt");
    CHECK(e.Key() == "RP_TIMER");
    CHECK(e.Message().find("finite") != std::string::npos);
}

TEST_CASE("fuzz findings: flow-size CDF sizes beyond 2^53 B and NUL bytes in a number are "
          "errors",
          "[unit][fuzz][background]")
{
    // libFuzzer's input (fuzz-flow-size-cdf, 45 s): "0<NUL><NUL>B..." read as 0 (strtod stops
    // at the NUL, and *end == '\0' looked like the end of the token), then a size of 3e24 B
    // that Sample cast to uint64: UBSan "outside the range of representable values".
    auto e = Rejection("fuzz-flow-size-cdf", "nul-bytes-and-size-3e24.bin");
    CHECK(e.Key() == "cdf");
    CHECK(e.Line() == 1);
    CHECK(e.Message().find("expected \"size_bytes cdf_percent\"") != std::string::npos);
    e = Rejection("fuzz-flow-size-cdf", "size-3e24-overflows-uint64.txt");
    CHECK(e.Key() == "cdf");
    CHECK(e.Message().find("0..2^53 bytes") != std::string::npos);
}

TEST_CASE("fuzz findings: a SimAI compute time that overflows in ps is an error",
          "[unit][fuzz][simai]")
{
    // 99999999999999999 ns x 1000 wrapped around 2^64 in SimAiIteration: a wrong compute
    // time, silently (unsigned wrap-around is not a sanitizer report; found by reading the
    // reader while writing its fuzz target).
    const auto e = Rejection("fuzz-simai-workload", "compute-overflows-ps.txt");
    CHECK(e.Key() == "fwd_compute");
    CHECK(e.Line() == 3);
    CHECK(e.Message().find("at most 1e15 ns") != std::string::npos);
}

TEST_CASE("fuzz findings: a links.csv link_id of 2^32 - 1 is read, not written out of bounds",
          "[unit][fuzz][locate]")
{
    // LinkIndex sized a vector by link_id + 1, which wraps to 0 in uint32: the row was then
    // written at index 4294967295 of an empty vector (ASan: heap-buffer-overflow; a segfault
    // without it). A large id also allocated 24 B per id below it (-malloc_limit_mb).
    const std::string text =
        Slurp((kRegressions / "fuzz-locate" / "link-id-4294967295.txt").string());
    REQUIRE_NOTHROW(tusk_fuzz::LocateInput(text));
    std::istringstream flows(text.substr(0, text.find("%%")));
    std::istringstream links(text.substr(text.find("%%") + 3));
    const auto obs =
        tusk::locate::ReadObservations(flows, "flows.csv", links, "links.csv", nullptr);
    REQUIRE(obs.flows.size() == 1);
    REQUIRE(obs.flows[0].paths.size() == 1);
    CHECK(obs.links.Links()[obs.flows[0].paths[0].hops[0]].linkId == 4294967295u);
}

TEST_CASE("fuzz findings: a sweep's [slurm] chunk beyond 32 bits is an error", "[unit][fuzz][sweep]")
{
    // chunk = 4294967296 passed `>= 1` as an int64, then became 0 in the uint32 field: zero
    // runs per Slurm array task (found by reading the reader while writing its fuzz target;
    // the target now aborts on a chunk below 1).
    const auto e = Rejection("fuzz-sweep-plan", "slurm-chunk-2pow32.toml");
    CHECK(e.Key() == "slurm.chunk");
    CHECK(e.Line() == 4);
    CHECK(e.Message().find("at most 4294967295") != std::string::npos);
}

TEST_CASE("fuzz findings: a sweep of a million runs is refused before its plan is made",
          "[unit][fuzz][sweep]")
{
    // Three axes of 100 values: ExpandSweep listed 10^6 points and resolved a scenario for
    // each (a hang of hours; more axes, memory without bound). Found by reading the reader
    // while writing its fuzz target (which expands at most 16 runs).
    const auto e = Rejection("fuzz-sweep-plan", "axes-product-1e6.toml");
    CHECK(e.Key() == "axis ack_interval");
    CHECK(e.Line() == 11);
    CHECK(e.Message().find("more than 100000 runs") != std::string::npos);
}

TEST_CASE("fuzz findings: --update-baselines refuses a rewrite that would break the suite",
          "[unit][fuzz][regress]")
{
    // A measured source written as a multi-line string: the rewrite replaced its first line
    // only, leaving ` abc""" }` behind, and the suite file no longer parsed.
    const auto e = Rejection("fuzz-regress-suite", "measured-source-multiline.toml");
    CHECK(e.Key() == "baseline.a.ecmp.drops");
    CHECK(e.Line() == 9);
    CHECK(e.Message().find("cannot be rewritten in place") != std::string::npos);
}

TEST_CASE("every fuzz finding kept in fuzz/regressions is covered by a reader here",
          "[unit][fuzz]")
{
    for (const auto& dir : fs::directory_iterator(kRegressions))
    {
        INFO(dir.path());
        REQUIRE(Readers().count(dir.path().filename().string()) == 1);
        for (const auto& f : fs::directory_iterator(dir.path()))
        {
            // The target's contract: read, or refused with an InputError; never worse.
            INFO(f.path());
            try
            {
                Readers().at(dir.path().filename().string())(f.path().string());
            }
            catch (const ns3::InputError&)
            {
            }
        }
    }
}

TEST_CASE("fuzz findings: a column named twice in flows.csv is an error, not a read past the row",
          "[unit][fuzz][locate]")
{
    // libFuzzer's input (fuzz-locate, under 3 minutes): a header of 12 names, `flow_id` twice,
    // and a row of 11 fields. The column map held 11 names, so the row passed the field-count
    // check, and `paths` (column 12) was read past the row's end (ASan: heap-buffer-overflow).
    const auto e = Rejection("fuzz-locate", "duplicate-column-short-row.txt");
    CHECK(e.File() == "flows.csv");
    CHECK(e.Line() == 1);
    CHECK(e.Key() == "flow_id");
    CHECK(e.Message() == "the column appears twice in the header");
}

} // namespace TUSK_TEST_FILE
