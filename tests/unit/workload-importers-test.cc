// Unit tests of the SimAI / AICB and HPCC importers and of the Poisson background generator,
// on the real files in data/ (see data/simai/README.md and data/hpcc/README.md). No Simulator.
#include "fabric/helper/topology-builders.h"
#include "fabric/model/input-error.h"
#include "importers/model/input-text-reader.h"
#include "workload/model/background-traffic.h"
#include "importers/model/hpcc-reader.h"
#include "workload/model/job-model.h"
#include "importers/model/simai-workload.h"
#include "scratch-dir.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <array>
#include <map>
#include <numeric>
#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

using namespace ns3;

namespace
{

std::string
Data(const std::string& rel)
{
    return std::string(TUSK_SOURCE_DIR) + "/data/" + rel;
}

/** A temporary file with `text`, removed at scope exit. */
struct TempFile
{
    tusk_test::ScratchDir dir{"import"};
    std::string path;
    explicit TempFile(const std::string& text)
        : path(dir.Write("input.txt", text))
    {
    }
};

template <class F>
InputError
Error(F&& f)
{
    try
    {
        f();
    }
    catch (const InputError& e)
    {
        return e;
    }
    FAIL("expected an InputError");
    return InputError("", 0, "", "");
}

} // namespace

TEST_CASE("microAllReduce.txt imports as two all-reduces of 16 MiB and 64 MiB on 8 ranks",
          "[unit][simai]")
{
    const auto w = ReadSimAiWorkload(Data("simai/microAllReduce.txt"));
    CHECK(w.tp == 8);
    CHECK(w.ep == 1);
    CHECK(w.pp == 1);
    CHECK(w.allGpus == 8);
    CHECK(w.Dp() == 1);
    REQUIRE(w.layers.size() == 2);
    CHECK(w.layers[0].fwdComm == "ALLREDUCE");
    CHECK(w.layers[0].fwdComputeNs == 556000);
    // As a job on 8 ranks: exactly two collectives, both all-reduces over the TP group (all 8).
    JobSpec job;
    job.name = "micro";
    job.hosts.resize(8);
    std::iota(job.hosts.begin(), job.hosts.end(), 0);
    std::string note;
    job.degrees = SimAiDegrees(w, 8, &note);
    CHECK(note.empty()); // nothing rescaled
    job.collectives = SimAiIteration(w);
    WorkloadSpec spec;
    WorkloadBuilder b(spec);
    AppendJob(b, spec, job);
    REQUIRE(spec.collectives.size() == 2);
    CHECK(spec.collectives[0].kind == "all-reduce");
    CHECK(spec.collectives[0].ranks.size() == 8);
    CHECK(spec.collectives[0].bytesPerRank == 16ULL << 20);
    CHECK(spec.collectives[1].kind == "all-reduce");
    CHECK(spec.collectives[1].ranks.size() == 8);
    CHECK(spec.collectives[1].bytesPerRank == 64ULL << 20);
    CHECK(spec.collectives[0].name == "embedding_layer.fwd");
    // The first starts after the 556 us forward compute of layer 0.
    for (const auto& t : spec.transfers)
    {
        if (t.trigger < 0)
        {
            CHECK(t.startPs == 556'000'000ULL);
        }
    }
}

TEST_CASE("workload_analytical.txt: header, 1789 layers, group mapping, DP scaling",
          "[unit][simai]")
{
    const auto w = ReadSimAiWorkload(Data("simai/workload_analytical.txt"));
    CHECK(w.tp == 2);
    CHECK(w.ep == 16);
    CHECK(w.pp == 12);
    CHECK(w.allGpus == 9216);
    CHECK(w.ppCommBytes == 50331648);
    CHECK(w.layers.size() == 1789);
    // vpp: 8 and ga: 24 are not modelled: each a warning naming the file, line 1 and the key.
    REQUIRE(w.warnings.size() == 2);
    const std::string at = Data("simai/workload_analytical.txt") + ":1: ";
    CHECK(w.warnings[0].rfind(at + "vpp: 8: virtual pipeline stages are not modelled", 0) == 0);
    CHECK(w.warnings[1].rfind(at + "ga: 24: gradient accumulation is not modelled", 0) == 0);
    // tusk's DP = 9216 / (2 * 12 * 16) = 24 (SimAI's DP_EP group); SimAI's DP (384) is dpep.
    CHECK(w.Dp() == 24);
    CHECK(MapSimAiComm("ALLREDUCE", "fwd").group == "tp");
    CHECK(MapSimAiComm("ALLREDUCE", "wg").group == "dpep");
    CHECK(MapSimAiComm("ALLTOALL_EP", "fwd").group == "ep");
    CHECK(MapSimAiComm("ALLGATHER_DP_EP", "wg").group == "dp");
    CHECK(MapSimAiComm("REDUCESCATTER_DP_EP", "wg").kind == "reduce-scatter");
    CHECK(MapSimAiComm("NONE", "wg").kind.empty());
    // Mapping onto fewer ranks keeps TP, PP, EP and scales DP, and says so.
    std::string note;
    const auto d = SimAiDegrees(w, 768, &note);
    CHECK(d.tp == 2);
    CHECK(d.pp == 12);
    CHECK(d.ep == 16);
    CHECK(d.dp == 2);
    CHECK(note.find("scaling DP 24 -> 2") != std::string::npos);
    CHECK(Error([&] { SimAiDegrees(w, 64, nullptr); }).Key() == "ranks");
    // The iteration has every layer's fwd, ig and wg entry (plus the two pipeline sends).
    const auto it = SimAiIteration(w);
    CHECK(it.size() == 3 * 1789 + 2);
    CHECK(it.front().name == "grad_gather.fwd");
    CHECK(it.back().group == "pp");
}

TEST_CASE("SimAI files with an inconsistent header or a bad line are rejected with their line",
          "[unit][simai]")
{
    {
        // 8 GPUs cannot hold TP 4 * PP 1 * EP 4 = 16.
        TempFile f("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 ep: 4 pp: 1 vpp: 1 "
                   "ga: 1 all_gpus: 8 checkpoints: 0 checkpoint_initiates: 0\n1\n"
                   "l -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n");
        const auto e = Error([&] { ReadSimAiWorkload(f.path); });
        CHECK(e.File() == f.path);
        CHECK(e.Line() == 1u);
        CHECK(e.Key() == "header");
        CHECK(e.Message().find("inconsistent parallelism") != std::string::npos);
    }
    {
        TempFile f("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 1 "
                   "all_gpus: 8\n2\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n");
        const auto e = Error([&] { ReadSimAiWorkload(f.path); });
        CHECK(e.Key() == "layers"); // 2 announced, 1 present
    }
    {
        TempFile f("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 1 "
                   "all_gpus: 8\n1\nl -1 1 BROADCAST 10 1 NONE 0 1 NONE 0 1\n");
        const auto e = Error([&] { ReadSimAiWorkload(f.path); });
        CHECK(e.Line() == 3u);
        CHECK(e.Key() == "fwd_comm");
    }
    {
        TempFile f("HYBRID_TRANSFORMER_FWD_IN_BCKWD ep: 1 pp: 1 all_gpus: 8\n0\n");
        CHECK(Error([&] { ReadSimAiWorkload(f.path); }).Key() == "header"); // no TP
    }
    {
        TempFile f("DATA model_parallel_NPU_group: 1\n0\n");
        CHECK(Error([&] { ReadSimAiWorkload(f.path); }).Key() == "header");
    }
}

TEST_CASE("HPCC topology.txt and flow.txt import as HPCC reads them", "[unit][hpcc]")
{
    const auto t = ReadHpccTopology(Data("hpcc/topology.txt"));
    // "66 1 65": node 0 is the switch, nodes 1..65 hosts, 65 links at 100 Gb/s and 0.001 ms;
    // the lines after the 65th link are not read.
    CHECK(t.graph.numHosts == 65);
    CHECK(t.graph.NumSwitches() == 1);
    CHECK(t.graph.links.size() == 65);
    for (const auto& l : t.graph.links)
    {
        CHECK(l.rateBps == 100'000'000'000ULL);
        CHECK(l.delayPs == 1'000'000ULL);
        CHECK(l.a < 65);
        CHECK(l.b == 65);
    }
    CHECK(t.hostOfNode[0] == -1);
    CHECK(t.hostOfNode[1] == 0);
    CHECK(t.hostOfNode[65] == 64);
    const auto flows = ReadHpccFlows(Data("hpcc/flow.txt"), t.hostOfNode);
    // "2": only the first two flows, node 2 -> 1 and 3 -> 1, 200 MB at 2 s, priority 3.
    REQUIRE(flows.size() == 2);
    CHECK(flows[0].src == 1);
    CHECK(flows[0].dst == 0);
    CHECK(flows[1].src == 2);
    CHECK(flows[0].bytes == 200'000'000ULL);
    CHECK(flows[0].startPs == 2'000'000'000'000ULL);
    CHECK(flows[0].priority == 3);

    uint64_t v = 0;
    CHECK(ParseHpccRate("25Gbps", v));
    CHECK(v == 25'000'000'000ULL);
    CHECK(ParseHpccDelay("1us", v));
    CHECK(v == 1'000'000ULL);
    CHECK_FALSE(ParseHpccRate("25GB", v));
    // ns-3's DataRate spellings, which HPCC's own reader accepts.
    CHECK(ParseHpccRate("100Gb/s", v));
    CHECK(v == 100'000'000'000ULL);
    CHECK(ParseHpccRate("12.5GBps", v));
    CHECK(v == 100'000'000'000ULL);
    CHECK(ParseHpccRate("1Gib/s", v));
    CHECK(v == 1073741824ULL);
    CHECK(ParseHpccRate("400kb/s", v));
    CHECK(v == 400'000ULL);
    CHECK_FALSE(ParseHpccRate("100Gbit/s", v));
    CHECK_FALSE(ParseHpccRate("-1Gbps", v));
    {
        TempFile f("3 1 2\n0\n0 1 100Gbps 0.001ms 0.01\n0 2 100Gbps 0.001ms 0\n");
        const auto e = Error([&] { ReadHpccTopology(f.path); });
        CHECK(e.Key() == "error_rate");
        CHECK(e.Line() == 3u);
        // The way a scenario gives per-link loss, not an ns-3 call a scenario user cannot make.
        const std::string what = e.what();
        CHECK(what.find("[[failures]] entry with kind = \"loss\", loss_rate = 0.01 and at_us = 0 "
                        "on the link of nodes 0 and 1") != std::string::npos);
        CHECK(what.find("[[failure_rates]]") != std::string::npos);
        CHECK(what.find("ReceiveErrorModel") == std::string::npos);
    }
    {
        // A dual-ToR host (Alibaba HPN style): host node 2 links to switches 0 and 1. Read as
        // one host with two links, in file order (its NIC ports 0 and 1). Host node 3 is on
        // the same two switches, so both of host 2's ports are on a shortest path to it.
        TempFile f("4 2 4\n0 1\n0 2 100Gbps 0.001ms 0\n3 1 100Gbps 0.001ms 0\n"
                   "2 1 100Gbps 0.001ms 0\n3 0 100Gbps 0.001ms 0\n");
        const auto d = ReadHpccTopology(f.path);
        REQUIRE(d.graph.numHosts == 2);
        const auto ports = IncidentLinks(d.graph);
        const uint32_t h = static_cast<uint32_t>(d.hostOfNode[2]);
        REQUIRE(ports[h].size() == 2);
        const auto& first = d.graph.links[ports[h][0]];
        const auto& second = d.graph.links[ports[h][1]];
        CHECK(d.nodeOfVertex[first.a == h ? first.b : first.a] == 0);
        CHECK(d.nodeOfVertex[second.a == h ? second.b : second.a] == 1);
    }
    {
        // A host port on no shortest path: host node 3 links to switches 0 and 1, host node 4
        // to switch 1 only, and switch 0 reaches switch 1 through switch 2. Host 3's port to
        // switch 0 is 3 switch hops from host 4 against 1 by switch 1: tusk would send half of
        // its frames the long way, which the HPCC simulator never does. Refused at its line.
        TempFile f("5 3 5\n0 1 2\n3 0 100Gbps 0.001ms 0\n3 1 100Gbps 0.001ms 0\n"
                   "4 1 100Gbps 0.001ms 0\n0 2 100Gbps 0.001ms 0\n2 1 100Gbps 0.001ms 0\n");
        const auto e = Error([&] { ReadHpccTopology(f.path); });
        CHECK(e.Key() == "links");
        CHECK(e.Line() == 3u);
        CHECK_THAT(std::string(e.what()),
                   Catch::Contains("host node 3's link to switch 0 is on no shortest path to "
                                   "host node 4 (4 hops against 2)"));
    }
    {
        // More NIC ports than a NIC may have (kMaxPlanes = 16): refused at the 17th link.
        std::string text = "18 17 17\n";
        for (int i = 1; i <= 17; ++i)
        {
            text += std::to_string(i) + (i < 17 ? " " : "\n");
        }
        for (int i = 1; i <= 17; ++i)
        {
            text += "0 " + std::to_string(i) + " 100Gbps 0.001ms 0\n";
        }
        TempFile f(text);
        const auto e = Error([&] { ReadHpccTopology(f.path); });
        CHECK(e.Key() == "links");
        CHECK(e.Line() == 19u);
        CHECK_THAT(std::string(e.what()), Catch::Contains("host node 0 has more than 16 links"));
    }
    {
        TempFile f("3 1 3\n0\n0 1 100Gbps 0.001ms 0\n0 2 100Gbps 0.001ms 0\n");
        CHECK(Error([&] { ReadHpccTopology(f.path); }).Key() == "links"); // ends early
    }
    {
        TempFile f("1\n0 1 3 100 1000 0.5\n");
        const auto e = Error([&] { ReadHpccFlows(f.path, t.hostOfNode); });
        CHECK(e.Key() == "src"); // node 0 is the switch
        CHECK(e.Line() == 2u);
    }
}

TEST_CASE("HPCC files hold one record per line: a missing or extra field is an error at its line",
          "[unit][hpcc]")
{
    const auto t = ReadHpccTopology(Data("hpcc/topology.txt"));
    {
        // The first flow's start time is missing. HPCC's `>>` would read the next line's "3" as
        // it (3 s) and the rest of the file shifted by one field: tusk ran a different workload.
        TempFile f("2\n2 1 3 100 200000000\n3 1 3 100 200000000 2\n");
        const auto e = Error([&] { ReadHpccFlows(f.path, t.hostOfNode); });
        CHECK(e.Key() == "src");
        CHECK(e.Line() == 2u);
        CHECK_THAT(std::string(e.what()), Catch::Contains("6 fields on the line; got 5"));
    }
    {
        TempFile f("1\n2 1 3 100 200000000 2 extra\n");
        const auto e = Error([&] { ReadHpccFlows(f.path, t.hostOfNode); });
        CHECK(e.Line() == 2u);
        CHECK_THAT(std::string(e.what()), Catch::Contains("got 7"));
    }
    {
        TempFile f("2 1\n"); // the header lacks the link count
        CHECK(Error([&] { ReadHpccTopology(f.path); }).Line() == 1u);
    }
    {
        // A link line missing its error rate is reported at its own line, not the next.
        TempFile f("3 1 2\n0\n0 1 100Gbps 0.001ms\n0 2 100Gbps 0.001ms 0\n");
        const auto e = Error([&] { ReadHpccTopology(f.path); });
        CHECK(e.Key() == "links");
        CHECK(e.Line() == 3u);
    }
    {
        TempFile f("3 2 2\n0\n1\n0 1 100Gbps 0.001ms 0\n0 2 100Gbps 0.001ms 0\n");
        const auto e = Error([&] { ReadHpccTopology(f.path); }); // switch ids on two lines
        CHECK(e.Key() == "switches");
        CHECK(e.Line() == 2u);
    }
    {
        // Blank lines between records and the text HPCC's sample keeps after the announced
        // records are still accepted (the shipped files above).
        TempFile f("1\n\n2 1 3 100 1000 0.5\n\nnotes after the flows\n");
        CHECK(ReadHpccFlows(f.path, t.hostOfNode).size() == 1);
    }
}

TEST_CASE("flow-size CDFs: mean as traffic_gen computes it, sampling matches it",
          "[unit][background]")
{
    const auto cdf = FlowSizeCdf::Read(Data("hpcc/WebSearch_distribution.txt"));
    REQUIRE(cdf.Points().size() == 12);
    {
        // The same file behind a UTF-8 byte-order mark: the same points (it was "expected
        // \"size_bytes cdf_percent\"" on line 1).
        std::ifstream src(Data("hpcc/WebSearch_distribution.txt"));
        std::stringstream text;
        text << src.rdbuf();
        TempFile marked("\xEF\xBB\xBF" + text.str());
        const auto again = FlowSizeCdf::Read(marked.path);
        CHECK(again.Points() == cdf.Points());
    }
    // getAvg: sum over segments of the midpoint times the segment's probability.
    double expect = 0;
    for (size_t i = 1; i < cdf.Points().size(); ++i)
    {
        expect += (cdf.Points()[i].first + cdf.Points()[i - 1].first) / 2 *
                  (cdf.Points()[i].second - cdf.Points()[i - 1].second) / 100;
    }
    CHECK(cdf.MeanBytes() == Approx(expect).epsilon(1e-12));
    // By hand: (5e3*15 + 15e3*5 + 25e3*10 + 40e3*10 + 65e3*13 + 140e3*7 + 600e3*10 + 1.5e6*10
    //          + 3.5e6*10 + 7.5e6*7 + 20e6*3) / 100 = 1,711,250 B.
    CHECK(cdf.MeanBytes() == Approx(1'711'250).epsilon(1e-9));
    // Quantiles: linear inside a segment; u = 0.15 is the 15 % point = 10000 B.
    CHECK(cdf.Sample(0.15) == 10000);
    CHECK(cdf.Sample(0.175) == 15000);
    CHECK(cdf.Sample(0.0) == 1);
    // Sample at 2e5 evenly spaced quantiles (midpoint rule): the inverse-CDF sampler must
    // reproduce the analytical mean (truncation to whole bytes costs < 1 B per flow).
    double sum = 0;
    const int N = 200000;
    for (int i = 0; i < N; ++i)
    {
        sum += static_cast<double>(cdf.Sample((i + 0.5) / N));
    }
    CHECK(sum / N == Approx(cdf.MeanBytes()).epsilon(1e-3));
    CHECK(Error([] { FlowSizeCdf({{0, 0}, {100, 50}}); }).Key() == "cdf");
    CHECK(Error([] { FlowSizeCdf({{0, 0}, {100, 60}, {50, 100}}); }).Key() == "cdf");
}

TEST_CASE("flow-size CDF sizes: exact (rounded up) by default, HPCC's truncation on request",
          "[unit][background]")
{
    // Sizes uniform in (0, 4096], (4096, 16384], (16384, 65536] with
    // probabilities 50 / 30 / 20 %.
    const FlowSizeCdf cdf({{0, 0}, {4096, 50}, {16384, 80}, {65536, 100}});
    const auto trunc = CdfSizeRounding::HpccTruncate;
    CHECK(cdf.Sample(0.5) == 4096); // on a point: the point under both rules
    CHECK(cdf.Sample(0.5, trunc) == 4096);
    CHECK(cdf.Sample(0.4999) == 4096);        // 4096 * 0.9998 = 4095.18
    CHECK(cdf.Sample(0.4999, trunc) == 4095); // traffic_gen: int(4095.18)
    CHECK(cdf.Sample(0.79999) == 16384);      // 4096 + 12288 * 29.999 / 30 = 16383.59
    CHECK(cdf.Sample(0.79999, trunc) == 16383);
    CHECK(cdf.Sample(0.999999) == 65536);     // 16384 + 49152 * 19.9999 / 20 = 65535.75
    CHECK(cdf.Sample(0.999999, trunc) == 65535);
    // Evenly spaced quantiles: the fraction of sizes at or below each point is the file's
    // percentage with exact sizes; with truncation it is reached one byte earlier.
    const int N = 100000;
    std::map<std::string, std::array<int, 3>> atOrBelow;
    std::map<std::string, double> mean;
    for (auto [name, rule] : {std::pair{"exact", CdfSizeRounding::Exact}, std::pair{"trunc", trunc}})
    {
        std::array<int, 3> count{0, 0, 0};
        double sum = 0;
        for (int i = 0; i < N; ++i)
        {
            const uint64_t b = cdf.Sample((i + 0.5) / N, rule);
            const uint64_t limit = rule == trunc ? 1 : 0; // 4095 etc. for truncation
            count[0] += b <= 4096 - limit;
            count[1] += b <= 16384 - limit;
            count[2] += b <= 65536 - limit;
            sum += static_cast<double>(b);
        }
        atOrBelow[name] = count;
        mean[name] = sum / N;
    }
    CHECK(atOrBelow["exact"] == std::array<int, 3>{50000, 80000, 100000});
    CHECK(atOrBelow["trunc"] == std::array<int, 3>{50000, 80000, 100000});
    // Rounding up adds half a byte per flow on average, truncating takes half a byte off.
    CHECK(mean["exact"] - cdf.MeanBytes() == Approx(0.5).margin(0.05));
    CHECK(mean["trunc"] - cdf.MeanBytes() == Approx(-0.5).margin(0.05));
    CHECK(std::string(CdfSizeRoundingName(CdfSizeRounding::Exact)) == "exact");
    CHECK(std::string(CdfSizeRoundingName(trunc)) == "hpcc-truncate");
}

TEST_CASE("Poisson background offers the target load", "[unit][background]")
{
    const auto cdf = FlowSizeCdf::Read(Data("hpcc/FbHdp_distribution.txt"));
    BackgroundRequest r;
    r.hosts = {0, 1, 2, 3, 4, 5, 6, 7};
    r.load = 0.3;
    r.hostRateBps = 100'000'000'000ULL;
    r.startPs = 1'000'000;
    r.durationPs = 20'000'000'000ULL; // 20 ms
    r.seed = 3;
    const auto flows = MakePoissonBackground(r, cdf);
    // Expected flows: hosts * load * rate * duration / (8 * mean).
    const double expect = 8 * 0.3 * 100e9 * 20e-3 / (8 * cdf.MeanBytes());
    CAPTURE(expect, flows.size());
    // Poisson count: within 4 standard deviations (sqrt(expect)).
    CHECK(std::fabs(static_cast<double>(flows.size()) - expect) < 4 * std::sqrt(expect));
    double bytes = 0;
    std::map<uint32_t, int> perSrc;
    uint64_t last = 0;
    for (const auto& f : flows)
    {
        CHECK(f.src != f.dst);
        CHECK(f.background);
        CHECK(f.startPs >= r.startPs);
        CHECK(f.startPs < r.startPs + r.durationPs);
        CHECK(f.startPs >= last); // ordered by start
        last = f.startPs;
        bytes += static_cast<double>(f.bytes);
        perSrc[f.src]++;
    }
    CHECK(perSrc.size() == 8);
    // Offered load within 15 % (heavy-tailed sizes make the byte count noisier than the count).
    CHECK(bytes * 8 / (8 * 100e9 * 20e-3) == Approx(0.3).epsilon(0.15));
    // Deterministic for a seed.
    const auto again = MakePoissonBackground(r, cdf);
    REQUIRE(again.size() == flows.size());
    CHECK(again.back().startPs == flows.back().startPs);
    CHECK(again.back().bytes == flows.back().bytes);
    r.load = 1.5;
    CHECK(Error([&] { MakePoissonBackground(r, cdf); }).Key() == "BackgroundRequest.load");
}

// The text reader every importer shares (importers/model/input-text-reader.h): line numbers
// from 1, a byte-order mark dropped, NUL bytes refused, blank and comment lines skipped by the
// format's comment rule, tokens across lines, errors naming file:line. The importer cases are
// those where the readers used to differ: a byte-order mark the HPCC and SimAI readers took
// for text, a blank first line SimAI refused, a NUL byte only the .cm reader refused.

TEST_CASE("text reader: lines, comments, tokens, errors at file:line", "[unit][import]")
{
    TempFile f("\xEF\xBB\xBFNodes 4\n\n  # a comment\nA->B  x\t y\r\nz # not a comment\n");
    InputTextReader r(f.path, "test file", InputTextReader::HASH_COMMENTS);
    REQUIRE(r.NextLine());
    CHECK(r.Line() == 1);
    CHECK(r.Tokens() == std::vector<std::string>{"Nodes", "4"}); // the byte-order mark dropped
    REQUIRE(r.NextLine());
    CHECK(r.Line() == 4); // the blank line and the comment are skipped, but counted
    CHECK(r.Tokens() == std::vector<std::string>{"A->B", "x", "y"});
    REQUIRE(r.NextLine());
    CHECK(r.Tokens() == std::vector<std::string>{"z", "#", "not", "a", "comment"});
    CHECK_FALSE(r.NextLine());
    const InputError e = Error([&] { r.Fail("key", "what"); });
    CHECK(e.File() == f.path);
    CHECK(e.Line() == 5);
    CHECK(e.Key() == "key");

    // '#' to the end of the line (htsim .topo); none (HPCC, SimAI).
    InputTextReader toEnd(f.path, "test file", InputTextReader::HASH_TO_END);
    toEnd.NextLine();
    toEnd.NextLine();
    toEnd.NextLine();
    CHECK(toEnd.Tokens() == std::vector<std::string>{"z"});
    InputTextReader none(f.path, "test file");
    none.NextLine();
    REQUIRE(none.NextLine());
    CHECK(none.Line() == 3);
    CHECK(none.Tokens().at(0) == "#");
}

TEST_CASE("text reader: a token stream across lines, and its end", "[unit][import]")
{
    TempFile f("3 1\n\n7\nx\n");
    InputTextReader r(f.path, "test file");
    CHECK(r.NextUnsigned("n", "a count") == 3);
    r.EndLine(); // the 1 is ignored
    CHECK(r.NextUnsigned("m", "a count") == 7);
    CHECK(r.Line() == 3);
    InputError e = Error([&] { r.NextUnsigned("k", "an id"); });
    CHECK(e.Line() == 4);
    CHECK(e.Message() == "expected an id; got \"x\"");
    e = Error([&] { r.NextToken("k", "a rate"); });
    CHECK(e.Line() == 4);
    CHECK(e.Message() == "the file ends; expected a rate");
}

TEST_CASE("text reader: files that are not text, or not there", "[unit][import]")
{
    TempFile nul("1 2\n3" + std::string(1, '\0') + " 4\n");
    InputTextReader r(nul.path, "test file");
    REQUIRE(r.NextLine());
    InputError e = Error([&] { r.NextLine(); });
    CHECK(e.Line() == 2);
    CHECK(e.Message() == "NUL byte in line: not a text file");
    e = Error([&] { InputTextReader("/nonexistent/x.cm", "connection matrix"); });
    CHECK(e.Line() == 0);
    CHECK(e.Key() == "file");
    CHECK(e.Message().rfind("cannot open the connection matrix: ", 0) == 0);
    const std::string dir = std::filesystem::temp_directory_path().string();
    e = Error([&] {
        InputTextReader d(dir, "test file");
        d.NextLine();
    });
    CHECK(e.Message().find("read error") != std::string::npos);
}

TEST_CASE("importers share the text rules: byte-order mark, blank lines, NUL bytes",
          "[unit][import][hpcc][simai]")
{
    // HPCC topology.txt with a byte-order mark (a file saved by a Windows editor).
    TempFile topo("\xEF\xBB\xBF" "3 1 2\n0\n1 0 100Gbps 0.001ms 0\n2 0 100Gbps 0.001ms 0\n");
    const HpccTopology t = ReadHpccTopology(topo.path);
    CHECK(t.graph.numHosts == 2);
    // A NUL byte is refused by every importer, naming the line.
    TempFile flows("1\n1 2 3 100 1000 0." + std::string(1, '\0') + "\n");
    const InputError e = Error([&] { ReadHpccFlows(flows.path, t.hostOfNode); });
    CHECK(e.Line() == 2);
    CHECK(e.Message() == "NUL byte in line: not a text file");
    // SimAI with a byte-order mark and a blank line before the header: the header's line.
    TempFile simai("\xEF\xBB\xBF\nHYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: "
                            "2 ep: 1 pp: 1 all_gpus: 8\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n");
    const SimAiWorkload w = ReadSimAiWorkload(simai.path);
    REQUIRE(w.layers.size() == 1);
    CHECK(w.layers[0].line == 4);
    CHECK(w.tp == 2);
}

} // namespace TUSK_TEST_FILE
