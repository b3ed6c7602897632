// Monitoring probes ([probes], probes.csv; tusk/run/probe-mesh.h, docs/locate.md "From
// probes"): a cable that loses 1 % of its frames under DRILL, where every switch spreads each
// QP's frames per packet so that no sender learns which route a lost frame took (per-path
// telemetry names only the group of links that carry the same QPs), is found from probes,
// whose paths are pinned by their 5-tuple.
//
// k = 4 fat tree (16 hosts, 100 Gb/s, PFC), three rounds of inter-pod shift permutations of
// 512 KiB per host under DRILL, `agg0-core0` losing 1 % of its frames, and 64-byte probes
// from every host every 0.1 µs (8 targets x 8 UDP ports, until 150 µs). Oracles: the fabric's
// own drop log (drops.csv, which locate never reads): every lost probe of probes.csv was
// dropped on the cable, in its stream; every probe stream's route is the traceroute of its
// headers (the switches hash probes, whatever the policy); then `tusk locate` on the run with
// link counters, drops, PFC events and the failure list removed names the cable first from
// the probes, with a loss rate near 1 %. Without the fault no probe is lost and nothing is
// named. Under 2 s per run.

#include "cli-helpers.h"
#include "locate-helpers.h"
#include "run-helpers.h"

#include "locate/locate-command.h"
#include "results/paths-writer.h"
#include "results/results-writer.h"
#include "scenario/scenario-toml.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/model/input-error.h"
#include "fabric/model/switch-node.h"
#include "rdma/model/headers/roce-header.h"
#include "rdma/model/rdma-nic.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace fs = std::filesystem;
using namespace tusk_test;

namespace
{

std::string
Scenario(const std::string& policy, bool fault, const std::string& probes)
{
    std::ostringstream s;
    s << "name = \"locate-probes\"\nseed = 1\nstop_time_ms = 50\n"
      << "[topology]\nkind = \"fat-tree\"\nk = 4\n"
      << "[pfc]\nenabled = true\nlossless_priorities = [3]\n"
      << "[nic]\nrto_us = 1000\nreceiver = \"selective-repeat\"\n"
      << "[lb]\npolicy = \"" << policy << "\"\n"
      << "[output]\ndrop_log = true\n"
      << probes;
    if (fault)
    {
        s << "[[failures]]\nat_us = 0\nkind = \"loss\"\nlink = \"agg0-core0\"\nloss_rate = 0.01\n";
    }
    s << "[workload]\nkind = \"flows\"\n";
    for (int r = 0; r < 3; ++r)
    {
        for (int i = 0; i < 16; ++i)
        {
            s << "[[workload.flows]]\nsrc = " << i << "\ndst = " << (i + 4 * (r + 1)) % 16
              << "\nbytes = 524288\nstart_us = " << 40 * r << "\n";
        }
    }
    return s.str();
}

const char* const kProbes =
    "[probes]\ninterval_us = 0.1\nbytes = 64\ntargets = 8\nentropies = 8\nuntil_us = 150\n"
    "timeout_us = 20\n";

using Key = std::tuple<uint32_t, uint32_t, uint32_t>; // src, dst, entropy

/** Frames of `kind` dropped, per (src, dst, entropy), and the links they were dropped on. */
std::map<Key, uint64_t>
Drops(const fs::path& dir, const std::string& kind, std::set<std::string>& where)
{
    std::ifstream in(dir / "drops.csv");
    std::string line;
    std::getline(in, line);
    REQUIRE(line == "time_us,link_id,from,to,reason,kind,src,dst,dst_qp,entropy");
    std::map<Key, uint64_t> out;
    while (std::getline(in, line))
    {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, ',');)
        {
            f.push_back(x);
        }
        REQUIRE(f.size() == 10);
        if (f[5] == kind)
        {
            ++out[{std::stoul(f[6]), std::stoul(f[7]), std::stoul(f[9])}];
            where.insert(f[2] + "->" + f[3] + " " + f[4]);
        }
    }
    return out;
}

struct Outcome
{
    fs::path dir;
    tusk::RunResult result;
};

Outcome
RunAndStrip(const std::string& policy, bool fault)
{
    const auto spec =
        tusk::LoadScenarioString(Scenario(policy, fault, kProbes), "locate-probes.toml");
    Outcome o;
    o.result = Run(spec);
    REQUIRE(o.result.finished);
    o.dir = Scratch(std::string("locate-probes-") + policy + (fault ? "-fault" : "-healthy"));
    tusk::WriteRunFiles(o.result, o.dir.string());
    return o;
}

bool
IsCable(const nlohmann::json& link)
{
    const std::string a = link["from"], b = link["to"];
    return (a == "agg0" && b == "core0") || (a == "core0" && b == "agg0");
}

} // namespace

TEST_CASE("probes find a cable losing 1 percent under DRILL, which per-path telemetry cannot "
          "place",
          "[component][locate][probes]")
{
    Outcome o = RunAndStrip("drill", true);
    const auto& rows = o.result.probes;
    REQUIRE(rows.size() == 16u * 8u * 8u); // every host, 8 targets, 8 ports each

    // The drop log's oracle: probes were dropped only on the cable, only for its FCS errors,
    // and every lost probe of probes.csv was one of its stream's drops. A probe dropped after
    // the last judged one is not judged: losses may fall short of drops, never exceed them.
    std::set<std::string> where;
    const auto drops = Drops(o.dir, "probe", where);
    CAPTURE(where);
    for (const auto& w : where)
    {
        CHECK(((w == "agg0->core0 fcs") || (w == "core0->agg0 fcs")));
    }
    uint64_t dropped = 0, lost = 0, sent = 0;
    for (const auto& [k, n] : drops)
    {
        dropped += n;
    }
    for (const auto& r : rows)
    {
        sent += r.sent;
        lost += r.losses;
        CHECK(r.judged == r.received + r.losses);
        CHECK(r.judged <= r.sent);
        if (r.losses > 0)
        {
            const auto it = drops.find(Key{r.src, r.dst, r.entropy});
            CHECK((it != drops.end() && r.losses <= it->second));
        }
        // One route per stream: the switches hash probes, so a stream keeps its path.
        CHECK(r.paths.size() <= 1);
    }
    CAPTURE(sent, dropped, lost);
    // 150 µs x 16 hosts / 0.1 µs = 24,000 probes. Up the cable: pod 0's 4 hosts' probes to
    // other pods (4/5 of them) through agg0 (1/2) and core0 (1/2), 1,200; down it as many: some
    // 2,400 crossings, 24 drops at 1 %.
    CHECK(sent > 20000);
    CHECK(dropped >= 10);
    CHECK(lost >= dropped * 9 / 10);

    StripToLocateInputs(o.dir);
    const auto doc = LocateJson(o.dir);
    CAPTURE(doc.dump(1).substr(0, 3000));
    CHECK(doc["evidence"] == "probes");
    CHECK(doc["evidence_choice"]["rule"] == "probes_present");
    // Both directions of the cable, first and second, each named for its losses; nothing else.
    // Each direction's rate comes from some 1,200 probes: about 12 lost at 1 %, so within
    // 0.15 % (2 lost) and 2.5 % (30) at 3 standard deviations.
    REQUIRE(doc["named"].get<int>() == 2);
    for (size_t i = 0; i < 2; ++i)
    {
        const auto& c = doc["ranking"][i];
        REQUIRE(c["named"].get<bool>());
        REQUIRE(c["links"].size() == 1);
        CHECK(IsCable(c["links"][0]));
        CHECK(c["kind"] == "lossy");
        CHECK(c["loss_rate"].get<double>() > 0.0015);
        CHECK(c["loss_rate"].get<double>() < 0.025);
    }
    CHECK(doc["ranking"][0]["links"][0]["from"] != doc["ranking"][1]["links"][0]["from"]);
}

TEST_CASE("without a fault no probe is lost and probes name nothing", "[component][locate][probes]")
{
    Outcome o = RunAndStrip("drill", false);
    uint64_t lost = 0, received = 0;
    for (const auto& r : o.result.probes)
    {
        lost += r.losses;
        received += r.received;
        // A received probe's one-way delay is at least its path's propagation and
        // serialisation: 4 hops inter-pod at 1 µs of cable each way (fat tree's default).
        if (r.received > 0)
        {
            CHECK(r.owdMinUs > 0.0);
            CHECK(r.owdMinUs <= r.owdMedianUs * 1.02);
        }
    }
    CHECK(lost == 0);
    CHECK(received > 20000);
    std::set<std::string> where;
    CHECK(Drops(o.dir, "probe", where).empty());
    StripToLocateInputs(o.dir);
    const auto doc = LocateJson(o.dir);
    CHECK(doc["evidence"] == "probes");
    CHECK(doc["named"].get<int>() == 0);

    // Each field locate could misread is checked: an edit of the first row names its line
    // and column (exit 2 from the command line).
    {
        const std::string text = Slurp(o.dir / "probes.csv");
        const size_t eol = text.find('\n');
        const size_t eol2 = text.find('\n', eol + 1);
        const std::string row = text.substr(eol + 1, eol2 - eol - 1);
        std::vector<std::string> f;
        std::stringstream ss(row);
        for (std::string x; std::getline(ss, x, ',');)
        {
            f.push_back(x);
        }
        f.resize(13); // src,dst,entropy,bytes,sent,judged,received,losses,owd x3,paths,traced_path
        REQUIRE(!f[11].empty());
        const std::string hops = f[11].substr(0, f[11].find(':'));
        const auto edited = [&](size_t i, const std::string& v) {
            auto g = f;
            g[i] = v;
            std::string out;
            for (size_t k = 0; k < g.size(); ++k)
            {
                out += (k ? "," : "") + g[k];
            }
            return out;
        };
        const std::vector<std::tuple<size_t, std::string, std::string>> cases = {
            {7, std::to_string(std::stoull(f[7]) + 1), "losses"}, // != judged - received
            {4, "0", "judged"},                         // sent < judged
            {4, "abc", "sent"},                         // not a number
            {2, "70000", "entropy"},                    // not a UDP port
            {3, "32", "bytes"},                         // below a frame's 64 bytes
            {11, hops + ":" + std::to_string(std::stoull(f[6]) + 1), "paths"}, // != received
            {12, hops, "traced_path"},                  // a trace beside delivered paths
            {9, "0.001", "owd_median_us"},              // median below the minimum
        };
        for (const auto& [i, v, column] : cases)
        {
            CAPTURE(i, v);
            std::ofstream(o.dir / "probes.csv")
                << text.substr(0, eol + 1) << edited(i, v) << text.substr(eol2);
            tusk::locate::CommandOptions lo;
            lo.resultsDir = o.dir.string();
            std::ostringstream sink;
            try
            {
                tusk::locate::RunCommand(lo, sink);
                FAIL("accepted");
            }
            catch (const ns3::InputError& e)
            {
                const std::string what = e.what();
                CAPTURE(what);
                CHECK(what.find("probes.csv:2: " + column) != std::string::npos);
            }
        }
        std::ofstream(o.dir / "probes.csv") << text;
    }

    // Streams without a route (as hosts with several NIC ports write them): `auto` goes on to
    // the next evidence and says why; `--evidence probes` is refused naming the file.
    {
        std::istringstream in(Slurp(o.dir / "probes.csv"));
        std::string line, out;
        std::getline(in, line);
        out = line + "\n";
        while (std::getline(in, line))
        {
            // src,dst,entropy,bytes,sent,judged,received,losses,owd x3,paths,traced_path
            std::vector<std::string> f;
            std::stringstream ss(line);
            for (std::string x; std::getline(ss, x, ',');)
            {
                f.push_back(x);
            }
            f.resize(13);
            f[11].clear();
            for (size_t i = 0; i < f.size(); ++i)
            {
                out += (i ? "," : "") + f[i];
            }
            out += "\n";
        }
        std::ofstream(o.dir / "probes.csv") << out;
    }
    const auto fallback = LocateJson(o.dir);
    CHECK(fallback["evidence"] == "flows");
    CHECK(fallback["evidence_choice"]["reason"].get<std::string>().find(
              "no probe stream has a route") != std::string::npos);
    tusk::locate::CommandOptions lo;
    lo.resultsDir = o.dir.string();
    lo.evidence = "probes";
    std::ostringstream sink;
    CHECK_THROWS_AS(tusk::locate::RunCommand(lo, sink), ns3::InputError);
}

TEST_CASE("probes are hashed: a stream keeps one route, the traceroute of its headers",
          "[component][probes]")
{
    // Under switch random spraying every data frame may take another uplink; a probe stream's
    // frames take one route, and it is the one Fabric::TracePath (SwitchNode::ProbeEgress)
    // finds for their headers: host 0's headers to every host and every dynamic port, traced
    // through the built fabric after the run.
    const auto spec = tusk::LoadScenarioString(Scenario("spray", false, kProbes), "probes.toml");
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> traced; // (dst, port)
    tusk::RunOptions opts;
    opts.afterRun = [&traced](ns3::Fabric& fabric, const std::vector<ns3::Ptr<ns3::RdmaNic>>&) {
        ns3::FrameMeta p;
        p.srcHost = 0;
        p.dstQp = ns3::RdmaNic::kProbeQpn;
        p.dstPort = ns3::kRoceV2UdpPort;
        p.kind = ns3::FrameKind::PROBE;
        for (uint32_t d = 1; d < 16; ++d)
        {
            p.dstHost = d;
            for (uint32_t e = 49152; e <= 65535; ++e)
            {
                p.srcPort = static_cast<uint16_t>(e);
                std::vector<uint32_t> links;
                REQUIRE(fabric.TracePath(p, 0, links));
                traced.emplace(std::make_pair(d, e), std::move(links));
            }
        }
    };
    const auto r = Run(spec, opts);
    REQUIRE(r.finished);
    REQUIRE(r.probes.size() == 16u * 8u * 8u);
    uint32_t checked = 0, routes = 0;
    std::set<std::vector<uint32_t>> distinct; // host 0's routes to other pods differ by port
    for (const auto& row : r.probes)
    {
        CHECK(row.paths.size() <= 1); // one route per stream
        if (row.src != 0 || row.paths.empty())
        {
            continue;
        }
        ++checked;
        const auto it = traced.find({row.dst, row.entropy});
        REQUIRE(it != traced.end());
        routes += row.paths[0].first == it->second;
        distinct.insert(row.paths[0].first);
    }
    CHECK(checked == 64u);
    CHECK(routes == checked);
    CHECK(distinct.size() > 8u); // the ports spread host 0's probes over several paths
}

TEST_CASE("probe egress: a hash of the 5-tuple, spread evenly, deterministic",
          "[component][probes]")
{
    ns3::FrameMeta p;
    p.srcHost = 3;
    p.dstHost = 12;
    p.dstPort = ns3::kRoceV2UdpPort;
    p.kind = ns3::FrameKind::PROBE;
    std::map<uint32_t, uint32_t> counts;
    for (uint32_t e = 49152; e < 49152 + 4000; ++e)
    {
        p.srcPort = static_cast<uint16_t>(e);
        const uint32_t i = ns3::SwitchNode::ProbeEgressIndex(7, p, 4);
        REQUIRE(i < 4);
        CHECK(i == ns3::SwitchNode::ProbeEgressIndex(7, p, 4));
        ++counts[i];
    }
    // 1,000 expected per port; a binomial's 5 standard deviations are about 137.
    for (const auto& [i, n] : counts)
    {
        CAPTURE(i, n);
        CHECK(n > 860);
        CHECK(n < 1140);
    }
    // Another switch splits the same ports differently (no polarisation along a path).
    uint32_t same = 0;
    for (uint32_t e = 49152; e < 49152 + 4000; ++e)
    {
        p.srcPort = static_cast<uint16_t>(e);
        same += ns3::SwitchNode::ProbeEgressIndex(7, p, 4) == ns3::SwitchNode::ProbeEgressIndex(8, p, 4);
    }
    CHECK(same > 860);
    CHECK(same < 1140);
    CHECK(ns3::SwitchNode::ProbeEgressIndex(7, p, 1) == 0);
}

TEST_CASE("probes: bad keys exit 2 naming the key, fast mode refused, same seed same bytes",
          "[component][probes]")
{
    const auto load = [](const std::string& probes) {
        return tusk::LoadScenarioString(Scenario("ecmp", false, probes), "probes.toml");
    };
    const auto fails = [&](const std::string& probes, const std::string& key) {
        try
        {
            (void)load(probes);
            FAIL("accepted: " << probes);
        }
        catch (const ns3::InputError& e)
        {
            const std::string what = e.what();
            CAPTURE(what);
            CHECK(what.find(key) != std::string::npos);
        }
    };
    fails("[probes]\ninterval_us = -1\n", "probes.interval_us");
    fails("[probes]\ninterval_us = 1\nbytes = 10\n", "probes.bytes");
    fails("[probes]\ninterval_us = 1\ntargets = 0\n", "probes.targets");
    fails("[probes]\ninterval_us = 1\nport = 3\n", "probes.port");
    fails("[probes]\ninterval_us = 1\nentropies = 16385\n", "probes.entropies"); // 16,384 ports
    fails("[probes]\ntargets = 3\n", "probes.interval_us"); // a table that would send nothing
    // Large probes: a size and an interval, both or neither, and larger than `bytes`.
    fails("[probes]\ninterval_us = 1\nlarge_bytes = 1024\n", "probes.large_bytes");
    fails("[probes]\ninterval_us = 1\nlarge_interval_us = 4\n", "probes.large_interval_us");
    fails("[probes]\ninterval_us = 1\nbytes = 1024\nlarge_bytes = 512\nlarge_interval_us = 4\n",
          "probes.large_bytes");
    fails("[probes]\ninterval_us = 1\nlarge_bytes = 10000\nlarge_interval_us = 4\n",
          "probes.large_bytes");
    fails("[probes]\ninterval_us = 0\nlarge_bytes = 1024\nlarge_interval_us = 4\n",
          "probes.interval_us"); // would send nothing
    fails("[probes]\ninterval_us = 1\nspacing = \"random\"\n", "probes.spacing");
    // Two keys that disagree, one of them from --set: the error names that one, at --set.
    const auto failsSet = [&](const std::string& probes, const std::string& set,
                              const std::string& where) {
        try
        {
            (void)tusk::LoadScenarioString(Scenario("ecmp", false, probes), "probes.toml", {set});
            FAIL("accepted: " << set);
        }
        catch (const ns3::InputError& e)
        {
            const std::string what = e.what();
            CAPTURE(what);
            CHECK(what.rfind(where, 0) == 0);
        }
    };
    const std::string large = "[probes]\ninterval_us = 1\nlarge_bytes = 2048\n"
                              "large_interval_us = 4\n";
    failsSet(large, "probes.bytes=4096", "--set: probes.bytes: expected less than large_bytes");
    failsSet(large, "probes.interval_us=0", "--set: probes.interval_us: expected");
    failsSet("[probes]\ninterval_us = 0\nlarge_interval_us = 4\n", "probes.large_bytes=2048",
             "--set: probes.large_bytes: expected interval_us > 0");
    failsSet("[probes]\ninterval_us = 0\nlarge_bytes = 2048\n", "probes.large_interval_us=4",
             "--set: probes.large_interval_us: expected interval_us > 0");
    failsSet("[probes]\ninterval_us = 1\nbytes = 4096\nlarge_interval_us = 4\n",
             "probes.large_bytes=2048", "--set: probes.large_bytes: expected more than bytes");
    {
        // Probes and steady-state jumps: a jump would skip time in which probes are sent.
        auto spec = load("[probes]\ninterval_us = 1\n");
        spec.simulator.steadyJump = "on";
        spec.simulator.implementation = "lean";
        try
        {
            (void)Run(spec);
            FAIL("probes ran with steady-state jumps");
        }
        catch (const ns3::InputError& e)
        {
            CHECK(std::string(e.what()).find("probes.interval_us") != std::string::npos);
        }
    }
    {
        auto spec = load("[probes]\ninterval_us = 1\n");
        spec.simulator.mode = "fast";
        try
        {
            (void)Run(spec);
            FAIL("probes ran in fast mode");
        }
        catch (const ns3::InputError& e)
        {
            CHECK(std::string(e.what()).find("probes.interval_us") != std::string::npos);
        }
    }
    // Without [probes]: no rows, no "probes" in the manifest's scenario.
    {
        const auto r = Run(load(""));
        CHECK(r.probes.empty());
        const fs::path dir = Scratch("probes-none");
        tusk::WriteRunFiles(r, dir.string());
        CHECK(!fs::exists(dir / "probes.csv"));
        const auto m = nlohmann::json::parse(Slurp(dir / "manifest.json"));
        CHECK(!m["scenario"].contains("probes"));
        CHECK(!m.contains("probes"));
    }
    // Same scenario and seed: byte-identical probes.csv.
    const auto a = Run(load(kProbes));
    const auto b = Run(load(kProbes));
    CHECK(tusk::ProbesCsv(a) == tusk::ProbesCsv(b));
    CHECK(a.probes.size() == 16u * 8u * 8u);
}

TEST_CASE("large probes: rows of their own over the same streams, each hop's serialisation in "
          "their delays",
          "[component][probes]")
{
    // An idle fabric (the one flow starts after probing ends): a stream's smallest delay is
    // its path's propagation plus one serialisation of the probe per link (store and forward:
    // the NIC and every switch egress). So a 1,024-byte probe's is 8 x (1,024 - 64) / 100 Gb/s
    // = 76.8 ns per link later than a 64-byte one's on the same stream, 2 links under one ToR,
    // 4 within a pod, 6 between pods. A probe that waited behind another only adds.
    const auto scenario = [](const std::string& spacing) {
        std::ostringstream sc;
        sc << "name = \"large-probes\"\nseed = 3\nstop_time_ms = 5\n"
           << "[topology]\nkind = \"fat-tree\"\nk = 4\n"
           << "[lb]\npolicy = \"ecmp\"\n"
           << "[probes]\ninterval_us = 0.5\nbytes = 64\ntargets = 4\nentropies = 2\n"
           << "large_bytes = 1024\nlarge_interval_us = 1\nspacing = \"" << spacing << "\"\n"
           << "until_us = 60\ntimeout_us = 20\n"
           << "[workload]\nkind = \"flows\"\n[[workload.flows]]\nsrc = 0\ndst = 1\n"
           << "bytes = 4096\nstart_us = 80\n";
        return tusk::LoadScenarioString(sc.str(), "large-probes.toml");
    };
    // The streams whose two sizes' smallest delays differ by exactly the serialisation.
    const auto exactStreams = [](const tusk::RunResult& r) {
        REQUIRE(r.finished);
        REQUIRE(r.probes.size() == 2u * 16u * 4u * 2u); // both sizes of every stream
        std::map<Key, const tusk::ProbeRow*> small;
        for (const auto& row : r.probes)
        {
            REQUIRE(((row.bytes == 64) || (row.bytes == 1024)));
            CHECK(row.losses == 0);
            if (row.bytes == 64)
            {
                small[{row.src, row.dst, row.entropy}] = &row;
            }
        }
        size_t exact = 0;
        for (const auto& row : r.probes)
        {
            if (row.bytes != 1024)
            {
                continue;
            }
            const auto it = small.find({row.src, row.dst, row.entropy});
            REQUIRE(it != small.end());
            const auto& s = *it->second;
            // 60 µs / 1 µs over 8 streams: some 7 large probes each; 15 small ones.
            REQUIRE(row.received >= 3);
            REQUIRE(s.received >= 8);
            // The same stream, the same route: a size does not change the hash.
            REQUIRE(row.paths.size() == 1);
            REQUIRE(s.paths.size() == 1);
            CHECK(row.paths[0].first == s.paths[0].first);
            const size_t links = row.paths[0].first.size();
            CHECK(((links == 2) || (links == 4) || (links == 6)));
            const double expected =
                8.0 * (1024 - 64) / 100e9 * 1e6 * static_cast<double>(links);
            exact += std::abs(row.owdMinUs - s.owdMinUs - expected) <= 0.002; // 1 ns each
        }
        return exact;
    };
    const auto poisson = Run(scenario("poisson"));
    const size_t streams = 16u * 4u * 2u;
    const size_t exactPoisson = exactStreams(poisson);
    // Poisson gaps: nearly every stream has probes of both sizes that met no other probe at
    // any hop.
    CHECK(exactPoisson * 10 >= streams * 9);
    // Periodic: a host's small and large probes keep one phase, and so do the other hosts':
    // the probes of a stream meet the same others at the same hops every time, and many
    // streams never see an empty path (74 of 128 did, seed 3).
    const size_t exactPeriodic = exactStreams(Run(scenario("periodic")));
    CAPTURE(exactPoisson, exactPeriodic);
    CHECK(exactPeriodic < exactPoisson);

    // The manifest echoes the large probes; the CSV has a row per stream and size.
    const fs::path dir = Scratch("large-probes");
    tusk::WriteRunFiles(poisson, dir.string());
    const auto m = nlohmann::json::parse(Slurp(dir / "manifest.json"));
    CHECK(m["scenario"]["probes"]["large_bytes"] == 1024);
    CHECK(m["scenario"]["probes"]["spacing"] == "poisson");
    CHECK(Slurp(dir / "probes.csv").rfind("src,dst,entropy,bytes,sent,judged,received,losses,",
                                          0) == 0);
    // Same seed, same bytes, with Poisson gaps too.
    CHECK(tusk::ProbesCsv(poisson) == tusk::ProbesCsv(Run(scenario("poisson"))));
}

TEST_CASE("probes of two sizes find a cable at 1/4 rate and one losing 1 percent in one run, and "
          "measure the slow one's rate",
          "[component][locate][probes]")
{
    // The fabric of the first test with two faults: agg0-core0 losing 1 % and agg5-core3 at
    // 1/4 rate (another pod, other cores). 64-byte probes every 0.1 µs (losses) and 2,048-byte
    // ones every 2 µs, Poisson-spaced (rate): 13 % of each host link. A 2,048-byte probe takes
    // 3 x 8 x 1,984 / 100 Gb/s = 0.476 µs longer than a 64-byte one on a link at 1/4 than on a
    // healthy one (pathchar's reading, locate.md "From probes"), on every route across it,
    // whatever ConWeave or DRILL does with the traffic; queueing only adds. The lossy cable
    // comes from the probes' losses. Oracle: the failure list, which locate never reads.
    std::vector<fs::path> dirs;
    for (const std::string policy : {"drill", "conweave", "drill seed 2"})
    {
        CAPTURE(policy);
        const bool seed2 = policy == "drill seed 2";
        std::string text = Scenario(seed2 ? "drill" : policy, true,
                                    std::string(kProbes) + "large_bytes = 2048\n"
                                                           "large_interval_us = 2\n"
                                                           "spacing = \"poisson\"\n");
        text += "[[failures]]\nat_us = 0\nkind = \"degrade\"\nlink = \"agg5-core3\"\n"
                "rate_divisor = 4\n";
        if (seed2)
        {
            text.replace(text.find("seed = 1"), 8, "seed = 2");
        }
        const auto r = Run(tusk::LoadScenarioString(text, "two-faults.toml"));
        REQUIRE(r.finished);
        const fs::path dir =
            Scratch("locate-probes-two-faults-" + std::string(seed2 ? "drill2" : policy));
        tusk::WriteRunFiles(r, dir.string());
        StripToLocateInputs(dir, true);
        const auto doc = LocateJson(dir);
        CAPTURE(doc.dump(1).substr(0, 4000));
        REQUIRE(doc["evidence"] == "probes");
        REQUIRE(doc.contains("size_excess"));
        CHECK(doc["size_excess"]["small_bytes"] == 64);
        CHECK(doc["size_excess"]["large_bytes"] == 2048);
        // The probes per route, counted here from probes.csv: the streams of one route (one
        // path, source and destination) pooled, routes with both sizes. 150 µs of probes at one
        // large probe per 2 µs over 64 streams: about one large probe per stream, a few per
        // route, fewer than the 8 a route's minimum needs, and the output says so.
        {
            std::istringstream in(Slurp(dir / "probes.csv"));
            std::string line;
            std::getline(in, line);
            std::map<std::tuple<std::string, std::string, std::string>, std::pair<double, double>>
                perRoute;
            while (std::getline(in, line))
            {
                std::vector<std::string> f;
                std::stringstream ss(line);
                for (std::string x; std::getline(ss, x, ',');)
                {
                    f.push_back(x);
                }
                f.resize(13); // src,dst,entropy,bytes,...,received (6),...,paths (11)
                if (f[11].empty() || f[11].find('|') != std::string::npos)
                {
                    continue;
                }
                auto& n = perRoute[{f[0], f[1], f[11].substr(0, f[11].find(':'))}];
                (f[3] == "64" ? n.first : n.second) += std::stod(f[6]);
            }
            std::vector<double> large;
            for (const auto& [route, n] : perRoute)
            {
                if (n.first > 0 && n.second > 0)
                {
                    large.push_back(n.second);
                }
            }
            std::sort(large.begin(), large.end());
            const size_t k = large.size();
            REQUIRE(k == doc["size_excess"]["routes"].get<size_t>());
            const double median = k % 2 ? large[k / 2] : (large[k / 2 - 1] + large[k / 2]) / 2;
            CHECK(doc["size_excess"]["large_per_route"].get<double>() == median);
            CHECK(median < 8);
            CHECK(doc["size_excess"]["few_large"].get<bool>());
            CHECK(doc["size_excess"]["min_large_per_route"] == 8);
            tusk::locate::CommandOptions lo;
            lo.resultsDir = dir.string();
            std::ostringstream text;
            REQUIRE(tusk::locate::RunCommand(lo, text) == 0);
            CHECK(text.str().find("warning: few large probes per route") != std::string::npos);
        }
        // The two cables' four directions, and nothing else.
        CHECK(doc["named"].get<int>() == 4);
        std::set<std::string> lossy, slow;
        for (const auto& c : doc["ranking"])
        {
            if (!c["named"].get<bool>())
            {
                continue;
            }
            REQUIRE(c["links"].size() == 1);
            const std::string name = c["links"][0]["from"].get<std::string>() + "->" +
                                     c["links"][0]["to"].get<std::string>();
            if (c["kind"] == "lossy")
            {
                lossy.insert(name);
                CHECK(c["rate_factor"].get<double>() == 1.0);
            }
            else
            {
                CHECK(c["kind"] == "slow");
                CHECK(c["named_for_size"].get<bool>());
                slow.insert(name);
                // Every route across it carries the 0.476 µs; the median, with queueing, more.
                CHECK(c["size_excess_us"].get<double>() >= 0.476 - 0.01);
                // The rate from the lower quartile of its routes' excess: at most the true
                // 0.25 (queueing only lowers it) plus the small probes' own noise, and in
                // this congested fabric not below 0.1.
                CHECK(c["rate_factor"].get<double>() <= 0.27);
                CHECK(c["rate_factor"].get<double>() >= 0.1);
            }
        }
        CHECK(lossy == std::set<std::string>{"agg0->core0", "core0->agg0"});
        CHECK(slow == std::set<std::string>{"agg5->core3", "core3->agg5"});

        // Without the configured rates (no manifest) there is no nominal serialisation to
        // compare with: no size evidence, and the output says nothing of it.
        const fs::path bareDir = dir.string() + "-bare";
        fs::remove_all(bareDir);
        fs::copy(dir, bareDir);
        fs::remove(bareDir / "manifest.json");
        const auto bare = LocateJson(bareDir);
        CHECK(!bare.contains("size_excess"));
        dirs.push_back(dir);
    }

    // Two DRILL runs (seeds 1 and 2) located together: routes per run, the same four
    // directions, the slow ones still from their size excess.
    {
        tusk::locate::CommandOptions lo;
        lo.resultsDirs = {dirs[0].string(), dirs[2].string()};
        lo.resultsDir = dirs[0].string();
        lo.json = true;
        std::ostringstream out;
        REQUIRE(tusk::locate::RunCommand(lo, out) == 0);
        const auto pooled = nlohmann::json::parse(out.str());
        REQUIRE(pooled.contains("size_excess"));
        CHECK(pooled["named"].get<int>() == 4);
        int bySize = 0;
        for (const auto& c : pooled["ranking"])
        {
            bySize += c["named"].get<bool>() && c["named_for_size"].get<bool>();
        }
        CHECK(bySize == 2);
    }

    // A third probe size is an edit ([probes] sends two at most): refused naming the line.
    {
        const std::string text = Slurp(dirs[0] / "probes.csv");
        const size_t at = text.find(",2048,");
        REQUIRE(at != std::string::npos);
        std::string edited = text;
        edited.replace(at, 6, ",4096,");
        std::ofstream(dirs[0] / "probes.csv") << edited;
        const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n');
        tusk::locate::CommandOptions lo;
        lo.resultsDir = dirs[0].string();
        std::ostringstream sink;
        try
        {
            tusk::locate::RunCommand(lo, sink);
            FAIL("a third probe size was accepted");
        }
        catch (const ns3::InputError& e)
        {
            const std::string what = e.what();
            CAPTURE(what);
            CHECK(what.find("probes.csv:") != std::string::npos);
            CHECK(what.find(": bytes: expected at most two probe sizes") != std::string::npos);
            CHECK(what.find("4096 (line " + std::to_string(line) + ")") != std::string::npos);
        }
    }
}

} // namespace TUSK_TEST_FILE
