// Per-route telemetry (`[output] path_telemetry = "route"`, paths.csv with a `route` column;
// docs/locate.md, "From per-path telemetry"): the ACK echoes the route its data frame took, so
// the sender keys its RTTs per (QP, entropy, route). Under switch-side adaptive routing a QP
// keeps one entropy value while the switches spread its frames; each route gets its own row.
//
// k = 4 fat tree (16 hosts, 100 Gb/s, PFC, selective repeat), DRILL switches (a fresh
// least-queue choice per packet: a QP's frames take every uplink), `agg0-core0` at 1/4 of its
// rate. A frame of 4,096 payload bytes is 4,178 bytes on the wire (62 header + 20 preamble and
// gap, ns3::Framing); stored and forwarded at 25 instead of 100 Gb/s it takes 3 x 4,178 x 8 /
// 100 Gb/s = 1.003 µs longer on that hop. Oracles: that number, against the smallest RTT of
// each route (a lone flow with one packet in flight: no frame queues); the
// per-entropy file of the same run (the option does not change the simulation), whose rows
// the route rows must add up to; then `tusk locate` on a permutation with link counters, time
// series, PFC events and the failure list removed names the cable first from the per-route
// rows, while from the per-entropy rows `auto` has no sibling to compare and falls back to
// completion times; without the fault it names nothing. Under 1 s of simulation per run.

#include "cli-helpers.h"
#include "run-helpers.h"

#include "locate/locate-command.h"
#include "results/results-writer.h"
#include "scenario/scenario-toml.h"

#include "fabric/model/ideal-fct.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace fs = std::filesystem;
using namespace tusk_test;

namespace
{

const char* const kFault =
    "[[failures]]\nat_us = 0\nkind = \"degrade\"\nlink = \"agg0-core0\"\nrate_divisor = 4\n";

std::string
Head(const std::string& name, const std::string& telemetry, const std::string& nic = "")
{
    return "name = \"" + name + "\"\nseed = 1\nstop_time_ms = 50\n"
           "[topology]\nkind = \"fat-tree\"\nk = 4\n"
           "[pfc]\nenabled = true\nlossless_priorities = [3]\n"
           "[nic]\nreceiver = \"selective-repeat\"\n" + nic +
           "[lb]\npolicy = \"drill\"\n"
           "[output]\npath_telemetry = " + telemetry + "\n";
}

/** One 512 KiB flow host0 -> host4 (pod 0 to pod 1): four routes, one over agg0->core0. One
 *  packet in flight (Swift's window held at 1): no frame queues behind another, so each
 *  route's smallest RTT is its propagation and serialisation alone. (At line rate DRILL keeps
 *  sending to the slow port while a frame is on its wire, every frame there waits a third of
 *  its own time: a periodic queue, 0.33 µs on every sample.) */
std::string
LoneFlow(const std::string& telemetry)
{
    return Head("route-lone", telemetry,
                "congestion_control = \"swift\"\n[swift]\nmax_cwnd = 1\ninitial_cwnd = 1\n") +
           kFault +
           "[workload]\nkind = \"flows\"\n[[workload.flows]]\nsrc = 0\ndst = 4\nbytes = 524288\n";
}

/** Three rounds; in round r host i sends 256 KiB to host (i + 4 (r + 1)) mod 16 (another
 *  pod), two packets in flight per QP (Swift's window held at 2): a light load, whose smallest
 *  RTTs per route are free of queueing. (At line rate, 1 MiB each, DRILL and PFC queue every
 *  path: the routes over the slow cable, which DRILL keeps short, were no slower at their
 *  minimum than the others, and the paused links upstream were the slowest.) */
std::string
Permutation(const std::string& telemetry, bool fault)
{
    std::ostringstream s;
    s << Head("route-perm", telemetry,
              "congestion_control = \"swift\"\n[swift]\nmax_cwnd = 2\ninitial_cwnd = 2\n")
      << (fault ? kFault : "") << "[workload]\nkind = \"flows\"\n";
    for (int r = 0; r < 3; ++r)
    {
        for (int i = 0; i < 16; ++i)
        {
            s << "[[workload.flows]]\nsrc = " << i << "\ndst = " << (i + 4 * (r + 1)) % 16
              << "\nbytes = 262144\nstart_us = " << 40 * r << "\n";
        }
    }
    return s.str();
}

tusk::RunResult
RunText(const std::string& text)
{
    auto r = Run(tusk::LoadScenarioString(text, "route.toml"));
    REQUIRE(r.finished);
    return r;
}

/** Write the run, then strip what locate must not read: links.csv keeps link_id, from, to; no
 *  PFC events or time series; the manifest keeps only the NIC MTU (no failure list). */
fs::path
WriteAndStrip(const tusk::RunResult& r, const std::string& name)
{
    const fs::path dir = Scratch(name);
    tusk::WriteRunFiles(r, dir.string());
    KeepLinkNames(dir);
    for (const char* f : {"pfc_events.csv", "timeseries.csv", "switch_timeseries.csv"})
    {
        fs::remove(dir / f);
    }
    nlohmann::json m = nlohmann::json::parse(Slurp(dir / "manifest.json"));
    nlohmann::json kept;
    kept["scenario"]["nic"]["mtu_bytes"] = m["scenario"]["nic"]["mtu_bytes"];
    std::ofstream(dir / "manifest.json") << kept.dump();
    return dir;
}

nlohmann::json
LocateJson(const fs::path& dir)
{
    tusk::locate::CommandOptions o;
    o.resultsDir = dir.string();
    o.json = true;
    std::ostringstream out;
    REQUIRE(tusk::locate::RunCommand(o, out) == 0);
    return nlohmann::json::parse(out.str());
}

bool
IsCable(const nlohmann::json& link)
{
    const std::string a = link["from"], b = link["to"];
    return (a == "agg0" && b == "core0") || (a == "core0" && b == "agg0");
}

} // namespace

TEST_CASE("path_telemetry route: a QP DRILL spreads gets a row per route, the slow hop's "
          "RTT minimum higher by three frame times",
          "[component][locate]")
{
    const auto routes = RunText(LoneFlow("\"route\""));
    const auto entropies = RunText(LoneFlow("true"));
    REQUIRE(entropies.pathTelemetry.size() == 1);
    const auto& whole = entropies.pathTelemetry[0];

    // The hop at 1/4 rate: 3 x one full frame's wire time at 100 Gb/s.
    const double extraUs = 3.0 * double(ns3::Framing{}.WireBytes(4096)) * 8 / 100e9 * 1e6;
    REQUIRE(extraUs == Approx(1.0027).epsilon(1e-3));

    // The links of agg0-core0 (either direction), from the fabric's own link list.
    std::vector<uint32_t> cable;
    for (const auto& l : routes.links)
    {
        if (((l.from == "agg0" && l.to == "core0") || (l.from == "core0" && l.to == "agg0")) &&
            std::find(cable.begin(), cable.end(), l.link) == cable.end())
        {
            cable.push_back(l.link);
        }
    }
    REQUIRE(cable.size() == 1);

    double slowMin = 0, fastMin = 1e9, fastMax = 0, minAll = 1e9;
    uint64_t packets = 0, frames = 0, samples = 0, routed = 0, slowRows = 0;
    for (const auto& p : routes.pathTelemetry)
    {
        CHECK(p.src == 0);
        CHECK(p.dst == 4);
        CHECK(p.entropy == whole.entropy);
        packets += p.packets;
        samples += p.rttSamples;
        if (p.route.empty())
        {
            CHECK(p.paths.empty());
            continue;
        }
        ++routed;
        REQUIRE(p.paths.size() == 1);
        CHECK(p.paths[0].first == p.route);
        CHECK(p.paths[0].second == p.packets);
        frames += p.paths[0].second;
        REQUIRE(p.rttSamples > 0);
        minAll = std::min(minAll, p.rttMinUs);
        const bool slow = std::find(p.route.begin(), p.route.end(), cable[0]) != p.route.end();
        if (slow)
        {
            ++slowRows;
            slowMin = p.rttMinUs;
        }
        else
        {
            fastMin = std::min(fastMin, p.rttMinUs);
            fastMax = std::max(fastMax, p.rttMinUs);
        }
    }
    CAPTURE(routed, slowMin, fastMin, fastMax, extraUs);
    // DRILL spreads the one QP over the four routes to pod 1; one crosses the slow cable.
    CHECK(routed == 4);
    REQUIRE(slowRows == 1);
    // The same simulation: the route rows add up to the per-entropy row.
    CHECK(packets == whole.packets);
    CHECK(samples == whole.rttSamples);
    uint64_t wholeFrames = 0;
    for (const auto& [links, n] : whole.paths)
    {
        wholeFrames += n;
    }
    CHECK(frames == wholeFrames);
    CHECK(minAll == Approx(whole.rttMinUs).margin(1e-9));
    // Healthy routes of one length have one smallest RTT (same rates and propagation; an ACK
    // returning over the slow cable adds 3 x 84 B, 20 ns); the slow one is higher by the
    // slow hop's extra serialisation.
    CHECK(fastMax - fastMin < 0.05);
    CHECK(slowMin - fastMin == Approx(extraUs).margin(0.05));
}

TEST_CASE("tusk locate names a 1/4-rate cable DRILL hides from per-route paths.csv alone",
          "[component][locate]")
{
    const auto run = RunText(Permutation("\"route\"", true));
    const fs::path dir = WriteAndStrip(run, "locate-route-fault");
    const auto doc = LocateJson(dir);
    CAPTURE(doc.dump(1).substr(0, 3000));
    CHECK(doc["evidence"] == "paths");
    CHECK(doc["path_rows"] == "route");
    REQUIRE(doc["named"].get<int>() >= 1);
    const auto& top = doc["ranking"][0];
    REQUIRE(top["named"].get<bool>());
    REQUIRE(top["links"].size() == 1);
    CHECK(IsCable(top["links"][0]));
    // Its fitted delay: the slow hop's extra serialisation of a full frame, 3 x 4,178 B x 8 /
    // 100 Gb/s; the other direction of the cable (frames cross it the other way) second.
    const double extraUs = 3.0 * double(ns3::Framing{}.WireBytes(4096)) * 8 / 100e9 * 1e6;
    CHECK(top["delay_us"].get<double>() == Approx(extraUs).margin(0.05));
    const auto& second = doc["ranking"][1];
    REQUIRE(second["links"].size() == 1);
    CHECK(IsCable(second["links"][0]));
    CHECK(second["named"].get<bool>());
    CHECK(second["delay_us"].get<double>() == Approx(extraUs).margin(0.05));
    // (Known, not asserted: agg0->tor0, below the cable, is named third with 0.41 µs. Every
    // route into tor0 crosses agg0->tor0 or agg1->tor0 once, so the fit knows that pair only up
    // to a common shift, and the descent leaves part of the slow routes' excess on it; the
    // explaining-away test looks upstream of a named class (PausedBy), not downstream.)

    // Per entropy (path_telemetry = true) the same run has one row per QP: no sibling, so
    // `auto` ranks from completion times.
    const auto entropies = RunText(Permutation("true", true));
    const fs::path dir2 = WriteAndStrip(entropies, "locate-route-entropy");
    const auto doc2 = LocateJson(dir2);
    CHECK(doc2["evidence"] == "flows");

    // The two modes are not pooled: a route row is one of an entropy's, so their siblings
    // differ (an input error naming the second run's paths.csv, exit 2 at the command line).
    // (Another seed: the same seed's flows.csv would be refused first, as a repeated run.)
    std::string seed2 = Permutation("true", true);
    seed2.replace(seed2.find("seed = 1"), 8, "seed = 2");
    const fs::path dir3 = WriteAndStrip(RunText(seed2), "locate-route-entropy-seed2");
    tusk::locate::CommandOptions pool;
    pool.resultsDirs = {dir3.string(), dir.string()};
    std::ostringstream ignored;
    try
    {
        tusk::locate::RunCommand(pool, ignored);
        FAIL("a per-entropy and a per-route run were pooled");
    }
    catch (const ns3::InputError& e)
    {
        CAPTURE(e.Message());
        CHECK(e.File() == (dir / "paths.csv").string());
        CHECK(e.Key() == "route");
        CHECK(std::string(e.Message()).find("one telemetry mode") != std::string::npos);
    }
}

TEST_CASE("tusk locate from per-route paths.csv names nothing on a healthy fabric",
          "[component][locate]")
{
    const auto run = RunText(Permutation("\"route\"", false));
    const auto doc = LocateJson(WriteAndStrip(run, "locate-route-healthy"));
    CAPTURE(doc.dump(1).substr(0, 3000));
    CHECK(doc["evidence"] == "paths");
    CHECK(doc["named"].get<int>() == 0);
}

} // namespace TUSK_TEST_FILE
