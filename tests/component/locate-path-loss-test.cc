// A cable that loses 1 % of its frames under host spraying, found from per-path telemetry
// (paths.csv `losses`; docs/locate.md, "From per-path telemetry"). On a lossless (PFC) fabric
// with selective repeat a dropped frame is neither a trim nor a timeout, and under spraying
// most NACKs flag reordering; `losses` counts the copies that never reached the receiving NIC
// while a later copy of the same PSN did, charged to the lost copy's entropy.
//
// k = 4 fat tree (16 hosts, 100 Gb/s, PFC), three rounds of inter-pod shift permutations of
// 1 MiB per host, host REPS over selective repeat, `agg0-core0` losing 1 % of its frames
// (`kind = "loss"`, drop reason fcs). Oracles: the fabric's own drop log (drops.csv), which
// locate never reads: every data frame dropped is a lost copy of its (src, dst, entropy); then
// `tusk locate` on the run with link counters, time series, drops and the failure list removed
// names the cable first, with a loss rate near 1 %. Without the fault no copy is lost and
// nothing is named, also under oblivious spraying over go-back-N receivers, where reordering
// makes the senders resend a hundred thousand packets that all arrived (a NAK per gap, the
// window behind it discarded; a 1 ms RTO, as scenarios/uec-permutation.toml, because this
// combination also stalls until the 67 ms default fires). Under 1 s per run.

#include "cli-helpers.h"
#include "run-helpers.h"

#include "locate/locate-command.h"
#include "results/results-writer.h"
#include "scenario/scenario-toml.h"

#include "fabric/model/input-error.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

namespace fs = std::filesystem;
using namespace tusk_test;

namespace
{

/** The scenario: three rounds; in round r host i sends 1 MiB to host (i + 4 (r + 1)) mod 16,
 *  always to another pod, so every agg-core cable carries about 3 MiB each way. */
std::string
Scenario(const std::string& policy, bool fault, const std::string& receiver = "selective-repeat")
{
    std::ostringstream s;
    s << "name = \"locate-path-loss\"\nseed = 1\nstop_time_ms = 50\n"
      << "[topology]\nkind = \"fat-tree\"\nk = 4\n"
      << "[pfc]\nenabled = true\nlossless_priorities = [3]\n"
      << "[nic]\nrto_us = 1000\nreceiver = \"" << receiver << "\"\n"
      << "[lb]\npolicy = \"" << policy << "\"\n"
      << "[output]\npath_telemetry = true\ndrop_log = true\n";
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
              << "\nbytes = 1048576\nstart_us = " << 40 * r << "\n";
        }
    }
    return s.str();
}

using Key = std::tuple<uint32_t, uint32_t, uint32_t>; // src, dst, entropy

/** Data frames dropped, per (src, dst, entropy), from the run's drops.csv. */
std::map<Key, uint64_t>
DataDrops(const fs::path& dir)
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
        if (f[5] == "data")
        {
            ++out[{std::stoul(f[6]), std::stoul(f[7]), std::stoul(f[9])}];
        }
    }
    return out;
}

/** Run, write the results, and strip what locate must not read (as
 *  tests/regression/locate-hidden-fault-test.cc): links.csv keeps link_id, from, to; no drops,
 *  PFC events or time series; the manifest keeps only the NIC MTU. Returns the losses per
 *  (src, dst, entropy) paths.csv reported and the data drops drops.csv logged. */
struct RunOutcome
{
    fs::path dir;
    std::map<Key, uint64_t> losses;
    std::map<Key, uint64_t> drops;
    uint64_t resent = 0;
};

RunOutcome
RunAndStrip(const std::string& policy, bool fault,
            const std::string& receiver = "selective-repeat")
{
    const auto spec =
        tusk::LoadScenarioString(Scenario(policy, fault, receiver), "locate-path-loss.toml");
    auto r = Run(spec);
    REQUIRE(r.finished);
    RunOutcome o;
    o.dir = Scratch("locate-path-loss-" + policy + "-" + receiver + (fault ? "-fault" : "-healthy"));
    tusk::WriteRunFiles(r, o.dir.string());
    for (const auto& p : r.pathTelemetry)
    {
        if (p.losses)
        {
            o.losses[{p.src, p.dst, p.entropy}] += p.losses;
        }
        o.resent += p.retxPackets;
    }
    o.drops = DataDrops(o.dir);
    KeepLinkNames(o.dir);
    for (const char* f : {"drops.csv", "pfc_events.csv", "timeseries.csv", "switch_timeseries.csv"})
    {
        fs::remove(o.dir / f);
    }
    nlohmann::json m = nlohmann::json::parse(Slurp(o.dir / "manifest.json"));
    nlohmann::json kept;
    kept["scenario"]["nic"]["mtu_bytes"] = m["scenario"]["nic"]["mtu_bytes"];
    std::ofstream(o.dir / "manifest.json") << kept.dump();
    return o;
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

uint64_t
Total(const std::map<Key, uint64_t>& m)
{
    uint64_t n = 0;
    for (const auto& [k, v] : m)
    {
        n += v;
    }
    return n;
}

} // namespace

TEST_CASE("locate names a cable losing 1 percent under REPS from paths.csv losses",
          "[component][locate]")
{
    const RunOutcome o = RunAndStrip("host-reps", true);
    // The drop log's oracle: the cable dropped data frames (1 % of about 1,500 each way), and
    // each was a copy that a later one of its PSN replaced, charged to the entropy it was sent
    // with. A needless resend dropped after its original arrived is not judged, so losses may
    // fall short of the drops, never exceed them.
    const uint64_t drops = Total(o.drops);
    CAPTURE(drops, Total(o.losses));
    CHECK(drops >= 10);
    for (const auto& [k, n] : o.losses)
    {
        const auto it = o.drops.find(k);
        CHECK((it != o.drops.end() && n <= it->second));
    }
    CHECK(Total(o.losses) >= drops * 9 / 10);

    const auto doc = LocateJson(o.dir);
    CAPTURE(doc.dump(1).substr(0, 3000));
    CHECK(doc["evidence"] == "paths");
    REQUIRE(doc["named"].get<int>() >= 1);
    const auto& top = doc["ranking"][0];
    REQUIRE(top["named"].get<bool>());
    REQUIRE(top["links"].size() == 1);
    const std::string a = top["links"][0]["from"], b = top["links"][0]["to"];
    CHECK(((a == "agg0" && b == "core0") || (a == "core0" && b == "agg0")));
    // 1 % planted; a dozen drops each way estimate it within a factor of two.
    CHECK(top["loss_rate"].get<double>() > 0.005);
    CHECK(top["loss_rate"].get<double>() < 0.02);
    // Evidence of loss is not evidence of a slow link: its capacity lost is its loss.
    CHECK(top["rate_factor"].get<double>() == 1.0);
    CHECK(top["kind"] == "lossy"); // named for its losses, not its delay
    // Nothing else is named: the other links' paths lost nothing the cable does not explain.
    for (size_t i = 1; i < doc["ranking"].size(); ++i)
    {
        if (doc["ranking"][i]["named"].get<bool>())
        {
            const auto& l = doc["ranking"][i]["links"][0];
            const std::string x = l["from"], y = l["to"];
            CHECK(((x == "agg0" && y == "core0") || (x == "core0" && y == "agg0")));
        }
    }

    // A paths.csv row with more lost copies than packets sent is bad input naming the column.
    {
        std::ifstream in(o.dir / "paths.csv");
        std::string header, row, rest, line;
        std::getline(in, header);
        std::getline(in, row);
        while (std::getline(in, line))
        {
            rest += line + "\n";
        }
        std::vector<std::string> names, cells;
        for (std::stringstream h(header); std::getline(h, line, ',');)
        {
            names.push_back(line);
        }
        for (std::stringstream r(row); std::getline(r, line, ',');)
        {
            cells.push_back(line);
        }
        const auto col = [&](const std::string& n) {
            return static_cast<size_t>(std::find(names.begin(), names.end(), n) - names.begin());
        };
        REQUIRE(col("losses") < cells.size());
        cells[col("losses")] = std::to_string(std::stoull(cells[col("packets")]) + 1);
        std::string edited;
        for (size_t i = 0; i < cells.size(); ++i)
        {
            edited += (i ? "," : "") + cells[i];
        }
        std::ofstream(o.dir / "paths.csv") << header << "\n" << edited << "\n" << rest;
        tusk::locate::CommandOptions lo;
        lo.resultsDir = o.dir.string();
        lo.evidence = "paths";
        std::ostringstream out;
        try
        {
            tusk::locate::RunCommand(lo, out);
            FAIL("an impossible losses count was accepted");
        }
        catch (const ns3::InputError& e)
        {
            CHECK(e.Key() == "losses");
            CHECK(e.Line() == 2u);
        }
    }
    fs::remove_all(o.dir);
}

TEST_CASE("paths.csv losses stay 0 and locate names nothing without a fault under spraying",
          "[component][locate]")
{
    SECTION("REPS, selective repeat")
    {
        const RunOutcome o = RunAndStrip("host-reps", false);
        CHECK(o.drops.empty());
        CHECK(o.losses.empty());
        const auto doc = LocateJson(o.dir);
        CAPTURE(doc.dump(1).substr(0, 2000));
        CHECK(doc["evidence"] == "paths");
        CHECK(doc["named"].get<int>() == 0);
        fs::remove_all(o.dir);
    }
    SECTION("oblivious spraying, go-back-N: reordering resends are not losses")
    {
        const RunOutcome o = RunAndStrip("host-spray", false, "go-back-n");
        CHECK(o.drops.empty());
        CAPTURE(o.resent);
        CHECK(o.resent > 10000); // reordering: NAKs and their go-back-N resends
        CHECK(o.losses.empty());
        const auto doc = LocateJson(o.dir);
        CAPTURE(doc.dump(1).substr(0, 2000));
        CHECK(doc["named"].get<int>() == 0);
        fs::remove_all(o.dir);
    }
}
