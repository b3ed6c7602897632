/*
 * tusk locate from switch AR telemetry (ar.csv): reading it and ranking egress links by their
 * share deficit. See ar-signals.h.
 */
#include "locate/ar-signals.h"

#include "locate/csv-reader.h"
#include "locate/tomography.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace tusk
{
namespace locate
{

namespace
{

/** The reasons that say the switch steered (ar.csv's pkts_<reason> columns). */
const char* const kAdaptiveReasons[] = {"pkts_least_backlog", "pkts_flowlet", "pkts_conga_metric",
                                        "pkts_conweave_reroute"};

} // namespace

std::vector<ArObservation>
ReadArObservations(std::istream& in, const std::string& file, const LinkIndex& links)
{
    CsvReader csv(file, in);
    const std::string why = "one of ar.csv's columns (docs/results-format.md, \"ar.csv\")";
    const size_t cSwitch = csv.Require("switch", why);
    const size_t cLink = csv.Require("link_id", why);
    const size_t cTo = csv.Require("to", why);
    const size_t cCand = csv.Require("candidates", why);
    const size_t cOffered = csv.Require("offered", why);
    const size_t cDecisions = csv.Require("decisions", why);
    const size_t cPackets = csv.Require("packets", why);
    const size_t cBytes = csv.Require("bytes", why);
    const size_t cRandom = csv.Require("pkts_random", why);
    std::vector<size_t> cAdaptive;
    for (const char* name : kAdaptiveReasons)
    {
        cAdaptive.push_back(csv.Require(name, why));
    }
    std::vector<ArObservation> out;
    std::vector<std::string> f;
    while (csv.Next(f))
    {
        ArObservation a;
        a.line = csv.Line();
        const uint32_t id = csv.Integer<uint32_t>(f, cLink, "link_id");
        const int dir = links.Direction(id, f[cSwitch]);
        if (dir < 0 || links.Links()[static_cast<size_t>(dir)].to != f[cTo])
        {
            throw ns3::InputError(file, a.line, "link_id",
                                  fmt::format("links.csv has no link {} from {} to {}", id,
                                              f[cSwitch], f[cTo]));
        }
        a.link = static_cast<uint32_t>(dir);
        a.candidates = csv.Integer<uint32_t>(f, cCand, "candidates");
        if (a.candidates < 2)
        {
            throw ns3::InputError(file, a.line, "candidates",
                                  fmt::format("expected 2 or more (a choice), got {}", a.candidates));
        }
        a.offered = csv.Integer<uint64_t>(f, cOffered, "offered");
        a.decisions = csv.Integer<uint64_t>(f, cDecisions, "decisions");
        if (a.decisions > a.offered)
        {
            throw ns3::InputError(file, a.line, "decisions",
                                  fmt::format("{} decisions chose it but it was offered in {}",
                                              a.decisions, a.offered));
        }
        a.packets = csv.Integer<uint64_t>(f, cPackets, "packets");
        a.bytes = csv.Integer<uint64_t>(f, cBytes, "bytes");
        for (size_t k = 0; k < cAdaptive.size(); ++k)
        {
            a.steeredPackets += csv.Integer<uint64_t>(f, cAdaptive[k], kAdaptiveReasons[k]);
        }
        a.randomPackets = csv.Integer<uint64_t>(f, cRandom, "pkts_random");
        if (a.randomPackets > a.decisions)
        {
            throw ns3::InputError(file, a.line, "pkts_random",
                                  fmt::format("{} frames by a uniform draw but {} decisions "
                                              "(each draw is a decision)",
                                              a.randomPackets, a.decisions));
        }
        out.push_back(a);
    }
    return out;
}

bool
ArHasAdaptiveDecisions(const std::vector<ArObservation>& rows)
{
    return std::any_of(rows.begin(), rows.end(),
                       [](const ArObservation& a) { return a.steeredPackets > 0; });
}

double
ArJudgedShare(const std::vector<ArObservation>& rows, const ArLocateOptions& o)
{
    std::map<uint32_t, double> expected; // per directed link, as LocateFromAr sums it
    for (const auto& a : rows)
    {
        expected[a.link] += static_cast<double>(a.offered) / a.candidates;
    }
    if (expected.empty())
    {
        return 0.0;
    }
    const auto judged = std::count_if(expected.begin(), expected.end(), [&o](const auto& e) {
        return e.second >= o.minExpected;
    });
    return static_cast<double>(judged) / static_cast<double>(expected.size());
}

ArLocateResult
LocateFromAr(const Observations& obs, const std::vector<ArObservation>& rows,
             const ArLocateOptions& o)
{
    const auto& dl = obs.links.Links();
    ArLocateResult res;
    // Bytes, decisions and uniform draws of each group: the egresses of one switch with one
    // candidate count (each decision of the group chose one of them).
    std::map<std::pair<std::string, uint32_t>, double> groupBytes;
    std::map<std::pair<std::string, uint32_t>, std::pair<double, double>> groupDraws;
    std::set<std::string> switches;
    for (const auto& a : rows)
    {
        groupBytes[{dl[a.link].from, a.candidates}] += static_cast<double>(a.bytes);
        auto& g = groupDraws[{dl[a.link].from, a.candidates}];
        g.first += static_cast<double>(a.decisions);
        g.second += static_cast<double>(a.randomPackets);
        switches.insert(dl[a.link].from);
        res.decisions += a.decisions;
    }
    res.switches = switches.size();
    struct Acc
    {
        ArSuspect s;
        double variance = 0;
        double steeredExpected = 0; //!< expected', decisions not drawn uniformly
        double steeredVariance = 0;
        double steeredDecisions = 0; //!< decisions', its decisions not drawn uniformly
        double expectedBytes = 0;
        double siblingBytes = 0; //!< the mean bytes of its siblings, summed over its rows
        uint64_t bytes = 0;
    };
    std::map<uint32_t, Acc> byLink;
    for (const auto& a : rows)
    {
        Acc& acc = byLink[a.link];
        acc.s.link = a.link;
        const double p = 1.0 / a.candidates;
        acc.s.expected += static_cast<double>(a.offered) * p;
        acc.variance += static_cast<double>(a.offered) * p * (1 - p);
        // The decisions offered it that were not uniform draws: its group's share of them.
        const auto& g = groupDraws[{dl[a.link].from, a.candidates}];
        const double notDrawn = g.first > 0 ? 1.0 - g.second / g.first : 1.0;
        const double offered = static_cast<double>(a.offered) * notDrawn;
        acc.steeredExpected += offered * p;
        acc.steeredVariance += offered * p * (1 - p);
        acc.steeredDecisions += static_cast<double>(a.decisions - a.randomPackets);
        acc.s.decisions += a.decisions;
        acc.s.offered += a.offered;
        acc.s.candidates = std::max(acc.s.candidates, a.candidates);
        acc.bytes += a.bytes;
        const double group = groupBytes[{dl[a.link].from, a.candidates}];
        acc.expectedBytes += group * p;
        acc.siblingBytes += (group - static_cast<double>(a.bytes)) / (a.candidates - 1);
    }
    res.egresses = byLink.size();
    res.minExpected = o.minExpected;

    std::vector<ArSuspect> all;
    std::vector<double> deficits;
    for (auto& [link, acc] : byLink)
    {
        ArSuspect& s = acc.s;
        s.decisionShare = s.expected > 0 ? static_cast<double>(s.decisions) / s.expected : 1.0;
        s.byteShare = acc.expectedBytes > 0 ? static_cast<double>(acc.bytes) / acc.expectedBytes
                                            : 1.0;
        // A share of 0 (never chosen) is the strongest evidence; keep the logarithm finite.
        const double share = std::max(1e-6, std::min(s.decisionShare, s.byteShare));
        s.deficit = -std::log(share);
        // Two tests of an even choice, each exact under it: over every decision, and over the
        // decisions not drawn uniformly (the draws only add variance when a slow port's
        // deficit is in its backlog choices, as under DRILL's light load; when ports tie less
        // often with a slow port among them, the draws carry the deficit, as in the
        // all-reduce's core uplinks). The larger counts.
        const double zAll =
            acc.variance > 0
                ? (s.expected - static_cast<double>(s.decisions)) / std::sqrt(acc.variance)
                : 0.0;
        const double zNotDrawn =
            acc.steeredVariance > 0
                ? (acc.steeredExpected - acc.steeredDecisions) / std::sqrt(acc.steeredVariance)
                : 0.0;
        s.z = std::max(zAll, zNotDrawn);
        s.rateFactor = acc.siblingBytes > 0
                           ? std::clamp(static_cast<double>(acc.bytes) / acc.siblingBytes, 0.0, 1.0)
                           : 1.0;
        s.capacityLost = 1.0 - s.rateFactor;
        if (s.expected >= o.minExpected)
        {
            deficits.push_back(s.deficit);
        }
        all.push_back(s);
    }
    res.deficitCut = std::max(-std::log(o.maxShare),
                              RobustThreshold(deficits, -std::log(o.maxShare), o.madK));
    // Candidates above every cut, largest deficit first; one whose downstream switch already
    // has a named egress is explained by it (that switch's queues back up into this port).
    std::stable_sort(all.begin(), all.end(), [](const ArSuspect& a, const ArSuspect& b) {
        return a.deficit > b.deficit;
    });
    std::set<std::string> namedSwitches;
    for (auto& s : all)
    {
        const bool above = s.expected >= o.minExpected && s.deficit >= res.deficitCut &&
                           s.z >= o.zMin;
        if (!above)
        {
            continue;
        }
        if (namedSwitches.count(dl[s.link].to))
        {
            s.explained = true;
            continue;
        }
        s.named = true;
        namedSwitches.insert(dl[s.link].from);
    }
    // Named first, then those with enough decisions to be judged, each by deficit.
    std::stable_sort(all.begin(), all.end(), [&o](const ArSuspect& a, const ArSuspect& b) {
        const bool ja = a.expected >= o.minExpected, jb = b.expected >= o.minExpected;
        return std::tie(a.named, ja) > std::tie(b.named, jb);
    });
    for (const auto& s : all)
    {
        res.named += s.named;
    }
    res.ranking = std::move(all);
    return res;
}

} // namespace locate
} // namespace tusk
