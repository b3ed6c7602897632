/*
 * `tusk locate --what-if`: the cost of a hidden fault (what-if.h).
 */
#include "results/what-if.h"

#include "locate/ar-signals.h"
#include "locate/path-signals.h"
#include "results/rerun.h"
#include "results/results-writer.h"
#include "run/run-stages.h"
#include "run/stats.h"
#include "scenario/scenario-toml.h"

#include "fabric/model/input-error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

namespace tusk
{

namespace fs = std::filesystem;
using nlohmann::json;
using locate::Observations;

namespace
{

/** Bytes per directed link (Observations::links order) from a run's telemetry. */
struct LinkBytes
{
    std::vector<double> bytes;
    std::string source; //!< the file they came from
};

LinkBytes
ReadLinkBytes(const std::string& dir, const Observations& obs)
{
    LinkBytes b;
    b.bytes.assign(obs.links.Links().size(), 0.0);
    const fs::path ar = fs::path(dir) / "ar.csv";
    const fs::path paths = fs::path(dir) / "paths.csv";
    const double mtu = obs.mtuBytes ? obs.mtuBytes : 4096.0;
    if (fs::exists(ar))
    {
        std::ifstream in(ar);
        for (const auto& a : locate::ReadArObservations(in, ar.string(), obs.links))
        {
            b.bytes[a.link] += static_cast<double>(a.bytes);
        }
        b.source = "ar.csv bytes";
    }
    else if (fs::exists(paths))
    {
        std::ifstream in(paths);
        for (const auto& p : locate::ReadPathObservations(in, paths.string(), obs.links))
        {
            if (p.traced)
            {
                continue; // every frame of it lost: no load
            }
            for (const auto& fp : p.paths)
            {
                for (uint32_t l : fp.hops)
                {
                    b.bytes[l] += fp.packets * mtu;
                }
            }
        }
        b.source = "paths.csv frames x MTU";
    }
    else
    {
        for (const auto& f : obs.flows)
        {
            for (const auto& fp : f.paths)
            {
                const double bytes = f.pathCounts ? fp.packets * mtu : static_cast<double>(f.bytes);
                for (uint32_t l : fp.hops)
                {
                    b.bytes[l] += bytes;
                }
            }
        }
        b.source = "flows.csv paths x MTU";
    }
    return b;
}

/** The links from the same switch to the same tier as `link`, itself excluded. */
std::vector<uint32_t>
Siblings(const Observations& obs, uint32_t link)
{
    const auto& dl = obs.links.Links();
    std::vector<uint32_t> out;
    for (uint32_t l = 0; l < dl.size(); ++l)
    {
        if (l != link && dl[l].from == dl[link].from &&
            locate::VertexTier(dl[l].to) == locate::VertexTier(dl[link].to))
        {
            out.push_back(l);
        }
    }
    return out;
}

json
LinkJson(const locate::DirectedLink& d)
{
    return {{"link_id", d.linkId}, {"from", d.from}, {"to", d.to}};
}

/** Directed link `name` of another run's links (the same topology), by its vertex names. */
int
SameLink(const Observations& other, const locate::DirectedLink& d)
{
    return other.links.Direction(d.linkId, d.from);
}

/** Queueing on the paths.csv rows that avoid the cable of `link`: RTT - base RTT. */
json
QueueingAvoiding(const std::string& dir, const Observations& obs, const locate::DirectedLink& d)
{
    const fs::path paths = fs::path(dir) / "paths.csv";
    if (!fs::exists(paths))
    {
        return {{"note", "needs paths.csv ([output] path_telemetry = true)"}};
    }
    // Base RTT per path length (links) from the manifest's path classes: what an idle fabric
    // gives one MTU-sized frame and its ACK.
    std::map<size_t, double> baseUs;
    const fs::path manifest = fs::path(dir) / "manifest.json";
    if (fs::exists(manifest))
    {
        const json m = ReadManifestJson(manifest.string());
        if (m.contains("path_classes") && m["path_classes"].is_array())
        {
            for (const auto& c : m["path_classes"])
            {
                if (c.contains("links") && c.contains("base_rtt_us"))
                {
                    baseUs[c["links"].get<size_t>()] = c["base_rtt_us"].get<double>();
                }
            }
        }
    }
    if (baseUs.empty())
    {
        return {{"note", "needs the manifest's path_classes (base RTTs)"}};
    }
    std::ifstream in(paths);
    const auto rows = locate::ReadPathObservations(in, paths.string(), obs.links);
    const int fwd = obs.links.Direction(d.linkId, d.from);
    const int rev = obs.links.Direction(d.linkId, d.to);
    std::vector<double> median, p99;
    for (const auto& p : rows)
    {
        if (p.rttSamples == 0 || p.traced)
        {
            continue;
        }
        bool crosses = false;
        for (const auto& fp : p.paths)
        {
            for (uint32_t l : fp.hops)
            {
                crosses = crosses || static_cast<int>(l) == fwd || static_cast<int>(l) == rev;
            }
        }
        const auto base = baseUs.find(p.paths.front().hops.size());
        if (crosses || base == baseUs.end())
        {
            continue;
        }
        median.push_back(p.rttMedianUs - base->second);
        if (!std::isnan(p.rttP99Us))
        {
            p99.push_back(p.rttP99Us - base->second);
        }
    }
    return {{"paths", median.size()},
            {"queue_median_us", median.empty() ? json() : json(Quantile(median, 0.5))},
            {"queue_p99_us", p99.empty() ? json() : json(Quantile(p99, 0.99))}};
}

/** A run's outcome from its manifest.json summary. */
json
Outcome(const std::string& name, const std::string& dir, const std::string& failures)
{
    const json m = ReadManifestJson((fs::path(dir) / "manifest.json").string());
    const json s = m.value("summary", json::object());
    auto num = [&](const char* key) { return s.contains(key) ? s[key] : json(); };
    return {{"name", name},
            {"dir", dir},
            {"failures", failures},
            {"finished", m.value("status", std::string()) == "ok"},
            // Why not, when it did not (the watchdog, the stop time): the manifest's words.
            {"status", m.value("status", std::string())},
            {"failure", m.contains("failure") && m["failure"].is_string() ? m["failure"]
                                                                         : json("")},
            {"cct_us", num("cct_us")},
            {"fct_p99_us", num("fct_p99_us")},
            {"fct_max_us", num("fct_max_us")},
            {"slowdown_mean", num("slowdown_mean")},
            {"sim_end_us", m.contains("sim_end_us") ? m["sim_end_us"] : json()}};
}

/** The configured rate of the link between vertices `a` and `b` of the spec's topology. */
uint64_t
ConfiguredRate(const ScenarioSpec& spec, const std::string& a, const std::string& b)
{
    const ns3::TopologyGraph g = BuildGraph(spec);
    for (const auto& l : g.links)
    {
        const auto& va = g.vertices[l.a].name;
        const auto& vb = g.vertices[l.b].name;
        if ((va == a && vb == b) || (va == b && vb == a))
        {
            return l.rateBps;
        }
    }
    return 0;
}

/** Run `spec` with `failures` into `dir`; a run that fails (unfinished) is kept and marked. */
void
Derive(ScenarioSpec spec, std::vector<FailureEntry> failures, const std::string& dir,
       bool progress)
{
    spec.failures = std::move(failures);
    spec.failureRates.clear();
    // The telemetry the costs are measured with; it does not change the simulation.
    spec.output.arTelemetry = true;
    spec.output.pathTelemetry = true;
    spec.output.dir = dir;
    RunOptions ro;
    ro.progress = progress;
    ro.streamRows = true; // the files are read back, not the rows
    fs::create_directories(fs::path(dir).parent_path());
    RunInto(spec, dir, ro);
}

} // namespace

json
RunWhatIf(const locate::WhatIfRequest& q)
{
    const Observations& obs = *q.obs;
    const auto& dl = obs.links.Links();
    const locate::DirectedLink& d = dl[q.link];
    json w;
    w["link"] = LinkJson(d);
    w["evidence"] = q.evidence;
    w["rate_factor"] = q.rateFactor;
    w["loss_rate"] = q.lossRate;
    w["out_dir"] = q.outDir;

    // Traffic moved, against an even split over the link and its siblings.
    const LinkBytes b = ReadLinkBytes(q.resultsDir, obs);
    const std::vector<uint32_t> siblings = Siblings(obs, q.link);
    double group = b.bytes[q.link];
    for (uint32_t s : siblings)
    {
        group += b.bytes[s];
    }
    const double even = group / static_cast<double>(siblings.size() + 1);
    json sib = json::array();
    double extra = 0;
    uint32_t busiest = q.link;
    for (uint32_t s : siblings)
    {
        sib.push_back({{"link", LinkJson(dl[s])}, {"bytes", b.bytes[s]}, {"extra_bytes", b.bytes[s] - even}});
        extra += b.bytes[s] - even;
        if (busiest == q.link || b.bytes[s] > b.bytes[busiest])
        {
            busiest = s;
        }
    }
    w["bytes"] = {{"source", b.source},
                  {"group_bytes", group},
                  {"even_share_bytes", even},
                  {"carried_bytes", b.bytes[q.link]},
                  {"avoided_bytes", even - b.bytes[q.link]},
                  {"siblings", sib},
                  {"siblings_extra_bytes", extra},
                  {"healthy", json()}};
    w["queueing"] = QueueingAvoiding(q.resultsDir, obs, d);

    // The derived runs, from the run's own scenario.
    const std::string manifest = (fs::path(q.resultsDir) / "manifest.json").string();
    const RerunManifest run = ReadRerunManifest(manifest);
    std::string down = q.down;
    if (down.empty())
    {
        if (busiest == q.link)
        {
            throw ns3::InputError("<command line>", 0, "--what-if-down",
                                  fmt::format("{} has no sibling link to take down; name a cable "
                                              "(FROM-TO)",
                                              d.Name()));
        }
        down = dl[busiest].from + "-" + dl[busiest].to;
    }
    const auto dash = down.find('-');
    if (dash == std::string::npos ||
        ConfiguredRate(run.spec, down.substr(0, dash), down.substr(dash + 1)) == 0)
    {
        throw ns3::InputError("<command line>", 0, "--what-if-down",
                              fmt::format("\"{}\" names no cable of the run's topology (expected "
                                          "FROM-TO, vertex names as links.csv writes them)",
                                          down));
    }
    const std::string cable = d.from + "-" + d.to;
    if (down == cable || down == d.to + "-" + d.from)
    {
        throw ns3::InputError("<command line>", 0, "--what-if-down",
                              fmt::format("\"{}\" is the suspect's own cable; name a sibling "
                                          "(FROM-TO) to take down beside it",
                                          down));
    }
    std::error_code ec;
    if (fs::exists(q.outDir, ec) && !fs::is_directory(q.outDir, ec))
    {
        throw ns3::InputError("<command line>", 0, "--what-if-out",
                              fmt::format("{} exists and is not a folder", q.outDir));
    }
    std::vector<FailureEntry> asFound;
    std::string asFoundText;
    if (q.rateFactor < 1.0)
    {
        FailureEntry f;
        f.kind = "degrade";
        f.link = cable;
        const double rate = static_cast<double>(ConfiguredRate(run.spec, d.from, d.to));
        f.rateBps = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(q.rateFactor * rate)));
        asFound.push_back(f);
        asFoundText = fmt::format("{} at {:.2f} of its rate, ", cable, q.rateFactor);
    }
    if (q.lossRate > 0.0)
    {
        // A suspect named for its losses: the derived run loses the same fraction on the cable
        // (a "loss" failure, both directions, as "degrade" slows both), else it would be costed
        // as a healthy cable.
        FailureEntry f;
        f.kind = "loss";
        f.link = cable;
        f.lossRate = std::min(1.0, q.lossRate);
        asFound.push_back(f);
        asFoundText += fmt::format("{} losing {:.2g} % of its frames, ", cable, 100 * *f.lossRate);
    }
    FailureEntry off;
    off.kind = "link_down";
    off.link = down;
    asFound.push_back(off);
    const std::string healthyDir = (fs::path(q.outDir) / "no-fault").string();
    const std::string plusDir = (fs::path(q.outDir) / "as-found-plus-down").string();
    Derive(run.spec, {}, healthyDir, q.progress);
    Derive(run.spec, asFound, plusDir, q.progress);
    w["runs"] = json::array({Outcome("as run", q.resultsDir, "the run's own"),
                             Outcome("no fault", healthyDir, "none"),
                             Outcome(fmt::format("as found + {} down", down), plusDir,
                                     asFoundText + down + " down")});

    // Against the no-fault run: what the suspect lost and its siblings gained.
    const Observations healthy = locate::ReadObservations(healthyDir);
    const LinkBytes hb = ReadLinkBytes(healthyDir, healthy);
    const int hl = SameLink(healthy, d);
    if (hl >= 0 && hb.source == b.source)
    {
        double gained = 0;
        for (uint32_t s : siblings)
        {
            const int hs = SameLink(healthy, dl[s]);
            gained += hs >= 0 ? b.bytes[s] - hb.bytes[hs] : 0.0;
        }
        w["bytes"]["healthy"] = {{"carried_bytes", hb.bytes[hl]},
                                 {"suspect_lost_bytes", hb.bytes[hl] - b.bytes[q.link]},
                                 {"siblings_gained_bytes", gained}};
    }
    if (w["queueing"].contains("paths"))
    {
        const json h = QueueingAvoiding(healthyDir, healthy, d);
        w["queueing"]["healthy"] = h;
        auto diff = [&](const char* key) {
            const auto& a = w["queueing"][key];
            const auto& z = h.value(key, json());
            return a.is_number() && z.is_number() ? json(a.get<double>() - z.get<double>()) : json();
        };
        w["queueing"]["added_median_us"] = diff("queue_median_us");
        w["queueing"]["added_p99_us"] = diff("queue_p99_us");
    }
    return w;
}

} // namespace tusk
