/*
 * tusk tests: a run's results as `tusk locate` may read them, and locate's JSON answer.
 */
#ifndef TUSK_TEST_LOCATE_HELPERS_H
#define TUSK_TEST_LOCATE_HELPERS_H

#include "cli-helpers.h"

#include "locate/locate-command.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tusk_test
{

/** Strip DIR to what locate may read (docs/locate.md, "It reads"): links.csv keeps link_id,
 *  from, to; no drops, PFC events or time series; the manifest keeps only the NIC MTU (and,
 *  with keepLinkRates, the configured host and fabric link rates). What
 *  names the fault (counters, drops, the failure list) is gone, so an answer cannot come from
 *  it. */
inline void
StripToLocateInputs(const std::filesystem::path& dir, bool keepLinkRates = false)
{
    KeepLinkNames(dir);
    for (const char* f : {"drops.csv", "pfc_events.csv", "timeseries.csv", "switch_timeseries.csv"})
    {
        std::filesystem::remove(dir / f);
    }
    const nlohmann::json m = nlohmann::json::parse(Slurp(dir / "manifest.json"));
    nlohmann::json kept;
    kept["scenario"]["nic"]["mtu_bytes"] = m["scenario"]["nic"]["mtu_bytes"];
    if (keepLinkRates) // the configured rates, which locate also reads (docs/locate.md)
    {
        for (const char* k : {"host_link_gbps", "fabric_link_gbps"})
        {
            kept["scenario"]["topology"][k] = m["scenario"]["topology"][k];
        }
    }
    std::ofstream(dir / "manifest.json") << kept.dump();
}

/** `tusk locate DIR --json --evidence EVIDENCE`, which must succeed, parsed. */
inline nlohmann::json
LocateJson(const std::filesystem::path& dir, const std::string& evidence = "auto")
{
    tusk::locate::CommandOptions o;
    o.resultsDir = dir.string();
    o.json = true;
    o.evidence = evidence;
    std::ostringstream out;
    REQUIRE(tusk::locate::RunCommand(o, out) == 0);
    return nlohmann::json::parse(out.str());
}

} // namespace tusk_test

#endif
