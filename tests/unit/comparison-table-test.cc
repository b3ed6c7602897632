// The comparison table `tusk run` / `tusk compare` print and comparison.csv
// (tusk/results/comparison-table.cc): the settings line names the transport, receivers, congestion
// control, ECN and PFC; the table and the CSV carry ECN marks and CNPs.

#include "results/comparison-table.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <malloc.h>
#include <ostream>
#include <streambuf>
#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace tusk;

namespace
{

RunResult
Run(const std::string& policy, uint64_t ecnMarks, uint64_t cnps)
{
    RunResult r;
    r.summary.policy = policy;
    r.summary.meanFairSlowdown = std::numeric_limits<double>::quiet_NaN();
    r.summary.p99FairSlowdown = std::numeric_limits<double>::quiet_NaN();
    r.summary.ecnMarks = ecnMarks;
    r.summary.cnps = cnps;
    r.spec.seed = 3;
    return r;
}

} // namespace

TEST_CASE("the settings line names transport, receivers, CC, ECN and PFC", "[comparison-table]")
{
    ScenarioSpec spec;
    CHECK(SettingsLine(spec) ==
          "settings: transport roce, go-back-n receivers; cc none; ECN off; PFC on (lossless "
          "priorities " + std::to_string(spec.pfc.losslessPriorities.at(0)) + ")\n");
    spec.nic.transport = "uec-rud";
    spec.nic.receiver = "go-back-n"; // RUD recovers with SACK bitmaps whatever this says
    spec.nic.congestionControl = "dcqcn";
    spec.ecn.enabled = true;
    spec.ecn.fallback.kminBytes = 5000;
    spec.ecn.fallback.kmaxBytes = 200000;
    spec.ecn.fallback.pmax = 0.01;
    spec.pfc.enabled = false;
    CHECK(SettingsLine(spec) ==
          "settings: transport uec-rud, sack-bitmap receivers; cc dcqcn; ECN on (Kmin 5000 "
          "B, Kmax 200000 B, Pmax 0.01); PFC off\n");
    spec.ecn.byRate[100'000'000'000] = EcnThresholds();
    spec.fabric.kind = "infiniband";
    const std::string ib = SettingsLine(spec);
    CHECK(ib.find("ECN on (thresholds per port rate)") != std::string::npos);
    CHECK(ib.find("PFC none (InfiniBand credits)") != std::string::npos);
}

TEST_CASE("the printed table has ECN-mark and CNP columns", "[comparison-table]")
{
    std::ostringstream os;
    PrintComparisonTable({Run("ecmp", 1234, 56), Run("spray", 0, 0)}, os);
    std::istringstream lines(os.str());
    std::string header;
    std::string ecmp;
    std::getline(lines, header);
    std::getline(lines, ecmp);
    const auto ecn = header.find(" ecn ");
    const auto cnps = header.find(" cnps ");
    REQUIRE(ecn != std::string::npos);
    REQUIRE(cnps != std::string::npos);
    CHECK(header.find("pauses") < ecn);
    // Right-aligned under their headers: the value ends where the header ends.
    CHECK(ecmp.substr(ecn - 1, 6) == " 1234 "); // " ecn " ends at ecn + 4
    CHECK(ecmp.substr(cnps + 2, 4) == " 56 ");  // " cnps " ends at cnps + 5
    CHECK(os.str().find("ecn = frames CE-marked by switches; cnps = CNPs sent by receivers") !=
          std::string::npos);
}

TEST_CASE("comparison.csv carries ECN marks, CNPs and the settings", "[comparison-table]")
{
    const std::string csv = ComparisonCsv({Run("ecmp", 1234, 56)});
    const auto nl = csv.find('\n');
    const std::string header = csv.substr(0, nl);
    const std::string row = csv.substr(nl + 1);
    CHECK(header.substr(header.size() - 97) ==
          "ecn_marks,cnps,fair_slowdown_mean,fair_slowdown_p99,transport,receiver,"
          "congestion_control,ecn,pfc");
    // No collective: no fair slowdowns (empty), then the settings.
    CHECK(row.find(",1234,56,,,roce,go-back-n,none,\"off\",\"on (lossless priorities ") !=
          std::string::npos);
    CHECK(row.rfind(")\"\n") == row.size() - 3);
}

TEST_CASE("the collective-aware slowdown is in the table and comparison.csv",
          "[comparison-table]")
{
    RunResult r = Run("ecmp", 0, 0); // no collective: a connection matrix's all-to-all
    r.summary.meanFairSlowdown = 1.25;
    r.summary.p99FairSlowdown = 2.5;
    const std::string csv = ComparisonCsv({r});
    CHECK(csv.find(",1.250000,2.500000,roce,") != std::string::npos);
    std::ostringstream os;
    PrintComparisonTable({r}, os);
    CHECK(os.str().find("fsd_mean  fsd_p99") != std::string::npos);
    CHECK(os.str().find("   1.250    2.500") != std::string::npos);
    // Background traffic alone (no fair slowdown): no such columns.
    std::ostringstream none;
    PrintComparisonTable({Run("ecmp", 0, 0)}, none);
    CHECK(none.str().find("fsd_mean") == std::string::npos);
}

// glibc's allocator statistics; under AddressSanitizer the heap is ASan's and mallinfo2 does
// not see it, so the test is left out of that build.
// AddressSanitizer replaces glibc's heap, which mallinfo2 reports on: GCC says so with
// __SANITIZE_ADDRESS__, clang 14 only through __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define TUSK_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TUSK_TEST_ASAN 1
#endif
#endif
#ifndef TUSK_TEST_ASAN
namespace
{

/** Bytes the C heap has handed out now (glibc: arena chunks plus mmapped chunks). */
size_t
HeapInUse()
{
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

/** A stream buffer that records the most heap in use while anything is written to it. */
class HeapSamplingBuf : public std::streambuf
{
  public:
    size_t peak = 0;

  protected:
    int_type overflow(int_type c) override
    {
        peak = std::max(peak, HeapInUse());
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char*, std::streamsize n) override
    {
        peak = std::max(peak, HeapInUse());
        return n;
    }
};

} // namespace

TEST_CASE("printing one run's table holds no copy of its flow rows", "[comparison-table]")
{
    // A job of many iterations has a flow row per transfer (about 330 bytes each, more with
    // paths): `tusk run` printed its one-row table through a vector built from `{r}`, which
    // copied every row twice while the results were still held (peak RSS of a 1,000-iteration
    // ring all-reduce job 1,471 MB instead of about 1,000). `{r}` now binds to the overload
    // that takes the run by reference; a copy of the 20,000 rows below would add about 8 MB.
    RunResult r = Run("ecmp", 0, 0);
    r.flows.resize(20000);
    for (auto& f : r.flows)
    {
        f.paths.push_back({{1, 2, 3, 4}, 10});
    }
    const size_t before = HeapInUse();
    REQUIRE(before > 20000 * sizeof(FlowRow)); // mallinfo2 sees the rows
    HeapSamplingBuf buf;
    std::ostream os(&buf);
    PrintComparisonTable({r}, os); // as `tusk run` calls it
    REQUIRE(buf.peak > 0);
    CHECK(buf.peak < before + 1024 * 1024);
}
#endif // TUSK_TEST_ASAN

} // namespace TUSK_TEST_FILE
