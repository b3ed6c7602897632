#include "locate/observations.h"
#include "locate/csv-reader.h"

#include "fabric/model/input-error.h"

#include <boost/tokenizer.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace fs = std::filesystem;

namespace tusk
{
namespace locate
{

namespace
{

using ns3::InputError;

/** links.csv: only link_id, from, to. */
LinkIndex
ReadLinks(const std::string& path, std::istream& in)
{
    CsvReader csv(path, in);
    const std::string why = "links.csv names each direction of a link by `link_id`, `from`, `to`";
    const size_t cId = csv.Require("link_id", why);
    const size_t cFrom = csv.Require("from", why);
    const size_t cTo = csv.Require("to", why);
    std::vector<DirectedLink> rows;
    std::vector<std::string> f;
    while (csv.Next(f))
    {
        DirectedLink d;
        d.linkId = csv.Integer<uint32_t>(f, cId, "link_id");
        d.from = f[cFrom];
        d.to = f[cTo];
        if (d.from.empty() || d.to.empty())
        {
            throw InputError(path, csv.Line(), d.from.empty() ? "from" : "to",
                             "expected a vertex name");
        }
        rows.push_back(std::move(d));
    }
    return LinkIndex(std::move(rows));
}

/** What tusk locate takes from manifest.json: the NIC MTU and the configured link rates. */
void
ReadManifest(std::istream& in, const std::string& file, Observations& obs)
{
    nlohmann::json m;
    try
    {
        m = nlohmann::json::parse(in);
    }
    catch (const nlohmann::json::parse_error& e)
    {
        // A damaged manifest would silently change the MTU and link rates the fit assumes.
        throw InputError(file, 0, "", std::string("not valid JSON (") + e.what() +
                                          "): tusk run writes it whole; restore it or run again");
    }
    obs.haveManifest = true;
    // Only the NIC's MTU and the links' configured rates: not the scenario's failures, not
    // the summary, not the rates links.csv says the links ended with.
    if (m.is_object())
    {
        // What the run itself says of how it ended, to say up front that it failed.
        if (m.contains("status") && m["status"].is_string())
        {
            obs.status = m["status"].get<std::string>();
        }
        if (m.contains("failure") && m["failure"].is_string())
        {
            obs.failure = m["failure"].get<std::string>();
        }
        if (m.contains("policy") && m["policy"].is_string())
        {
            obs.policy = m["policy"].get<std::string>();
        }
    }
    const auto scenario = m.is_object() ? m.find("scenario") : m.end();
    if (scenario == m.end() || !scenario->is_object())
    {
        return;
    }
    const auto lb = scenario->find("lb");
    if (obs.policy.empty() && lb != scenario->end() && lb->is_object() && lb->contains("policy") &&
        (*lb)["policy"].is_string())
    {
        obs.policy = (*lb)["policy"].get<std::string>();
    }
    const auto nic = scenario->find("nic");
    // An MTU outside what a scenario accepts (a hand-edited manifest) is ignored like a
    // missing one, never converted out of range.
    if (nic != scenario->end() && nic->is_object() && nic->contains("mtu_bytes") &&
        (*nic)["mtu_bytes"].is_number_unsigned() && (*nic)["mtu_bytes"].get<uint64_t>() >= 64 &&
        (*nic)["mtu_bytes"].get<uint64_t>() <= 65535)
    {
        obs.mtuBytes = static_cast<uint32_t>((*nic)["mtu_bytes"].get<uint64_t>());
    }
    const auto topo = scenario->find("topology");
    if (topo != scenario->end() && topo->is_object())
    {
        for (auto it = topo->begin(); it != topo->end(); ++it)
        {
            obs.topology[it.key()] = it.value().dump();
        }
        for (const char* key : {"host_link_gbps", "fabric_link_gbps"})
        {
            if (topo->contains(key) && (*topo)[key].is_number() && (*topo)[key].get<double>() > 0)
            {
                const double gbps = (*topo)[key].get<double>();
                (key[0] == 'h' ? obs.hostLinkGbps : obs.fabricLinkGbps) = gbps;
                const double bps = gbps * 1e9;
                obs.nominalRateBps =
                    obs.nominalRateBps > 0 ? std::min(obs.nominalRateBps, bps) : bps;
            }
        }
    }
}

} // namespace

double
FlowObservation::PathPackets() const
{
    double n = 0;
    for (const auto& p : paths)
    {
        n += p.packets;
    }
    return n;
}

namespace
{

/** An aggregation endpoint's vertex name (fabric/helper/in-network-endpoints.h). */
bool
IsAggregationVertex(const std::string& name)
{
    return name.rfind("agg.", 0) == 0;
}

} // namespace

LinkIndex::LinkIndex(std::vector<DirectedLink> rows)
    : m_rows(std::move(rows))
{
    for (uint32_t i = 0; i < m_rows.size(); ++i)
    {
        m_rowsOfId[m_rows[i].linkId].push_back(i);
        m_vertices.insert(m_rows[i].from);
        m_vertices.insert(m_rows[i].to);
        m_aggregationEndpoints =
            m_aggregationEndpoints || IsAggregationVertex(m_rows[i].from);
    }
}

bool
IsHostLink(const DirectedLink& link)
{
    auto isHost = [](const std::string& name) {
        const size_t dot = name.rfind('.');
        return name.compare(dot == std::string::npos ? 0 : dot + 1, 4, "host") == 0;
    };
    return isHost(link.from) || isHost(link.to);
}

double
ConfiguredLinkGbps(const Observations& obs, const DirectedLink& link)
{
    return IsHostLink(link) ? obs.hostLinkGbps : obs.fabricLinkGbps;
}

std::string
VertexTier(const std::string& name)
{
    size_t end = name.size();
    while (end > 0 && std::isdigit(static_cast<unsigned char>(name[end - 1])))
    {
        --end;
    }
    return name.substr(0, end);
}

int
LinkIndex::Direction(uint32_t linkId, const std::string& from) const
{
    const auto rows = m_rowsOfId.find(linkId);
    if (rows == m_rowsOfId.end())
    {
        return -1;
    }
    for (uint32_t i : rows->second)
    {
        if (m_rows[i].from == from)
        {
            return static_cast<int>(i);
        }
    }
    return -1;
}

std::vector<uint32_t>
LinkIndex::Walk(const std::string& text,
                const std::string& srcVertex,
                const std::string& dstVertex) const
{
    std::vector<uint32_t> hops;
    std::string at = srcVertex;
    size_t pos = 0;
    while (pos <= text.size())
    {
        size_t end = text.find('>', pos);
        if (end == std::string::npos)
        {
            end = text.size();
        }
        const std::string tok = text.substr(pos, end - pos);
        uint32_t id = 0;
        auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), id);
        if (tok.empty() || ec != std::errc() || p != tok.data() + tok.size())
        {
            throw std::invalid_argument(
                fmt::format("hop {} is \"{}\": expected a link_id of links.csv", hops.size() + 1,
                            tok));
        }
        const auto rows = m_rowsOfId.find(id);
        if (rows == m_rowsOfId.end())
        {
            throw std::invalid_argument(fmt::format("link_id {} is not in links.csv", id));
        }
        bool found = false;
        const bool fromEndpoint = hops.empty() && !Named(srcVertex);
        for (uint32_t r : rows->second)
        {
            if (fromEndpoint ? IsAggregationVertex(m_rows[r].from) : m_rows[r].from == at)
            {
                hops.push_back(r);
                at = m_rows[r].to;
                found = true;
                break;
            }
        }
        if (!found)
        {
            throw std::invalid_argument(fmt::format(
                "hop {} (link_id {}, {}-{}) does not start at {}, where the path has arrived",
                hops.size() + 1, id, m_rows[rows->second[0]].from, m_rows[rows->second[0]].to,
                at));
        }
        pos = end + 1;
    }
    if (at != dstVertex && (Named(dstVertex) || !IsAggregationVertex(at)))
    {
        throw std::invalid_argument(
            fmt::format("the path ends at {}, not at the flow's destination {}", at, dstVertex));
    }
    return hops;
}

std::string
FormatPaths(const std::vector<std::pair<std::vector<uint32_t>, uint64_t>>& paths)
{
    std::string s;
    for (const auto& [ids, packets] : paths)
    {
        if (!s.empty())
        {
            s += '|';
        }
        for (size_t i = 0; i < ids.size(); ++i)
        {
            s += (i ? ">" : "") + std::to_string(ids[i]);
        }
        s += ':' + std::to_string(packets);
    }
    return s;
}

Observations
ReadObservations(const std::string& resultsDir)
{
    const fs::path dir(resultsDir);
    if (fs::is_regular_file(dir))
    {
        throw InputError(resultsDir, 0, "",
                         "is a file; expected a run's results folder (the one holding flows.csv "
                         "and links.csv)");
    }
    if (!fs::is_directory(dir))
    {
        throw InputError(resultsDir, 0, "",
                         fs::exists(dir) ? "not a folder; expected a run's results folder"
                                         : "no such directory (expected a run's results)");
    }
    if (!fs::exists(dir / "flows.csv") && fs::exists(dir / "comparison.csv"))
    {
        throw InputError(resultsDir, 0, "",
                         "this is a comparison; give one of its run folders (one per policy)");
    }
    const std::string flowsFile = (dir / "flows.csv").string();
    const std::string linksFile = (dir / "links.csv").string();
    if (!fs::exists(flowsFile))
    {
        // A run with [output] flow_rows = "summary" wrote no flows.csv: say so.
        std::ifstream in(dir / "manifest.json");
        const nlohmann::json m = nlohmann::json::parse(in, nullptr, false);
        const bool summaryOnly = m.is_object() && m.contains("scenario") &&
                                 m["scenario"].is_object() && m["scenario"].contains("output") &&
                                 m["scenario"]["output"].is_object() &&
                                 m["scenario"]["output"].value("flow_rows", "") == "summary";
        throw InputError(flowsFile, 0, "",
                         summaryOnly ? "not written: the run had [output] flow_rows = "
                                       "\"summary\"; tusk locate reads flows.csv's paths "
                                       "(run it again with flow_rows = \"all\")"
                                     : "no such file (expected a run's results)");
    }
    if (!fs::exists(linksFile))
    {
        throw InputError(linksFile, 0, "",
                         "no such file: tusk locate names the links of flows.csv's paths by it");
    }
    std::ifstream flows(flowsFile);
    std::ifstream links(linksFile);
    if (!flows || !links)
    {
        throw InputError(links ? flowsFile : linksFile, 0, "", "cannot open the file");
    }
    const std::string manifestFile = (dir / "manifest.json").string();
    std::ifstream manifest(manifestFile);
    return ReadObservations(flows, flowsFile, links, linksFile, manifest ? &manifest : nullptr,
                            manifestFile);
}

Observations
ReadObservations(std::istream& flows,
                 const std::string& flowsFile,
                 std::istream& links,
                 const std::string& linksFile,
                 std::istream* manifest,
                 const std::string& manifestFile)
{
    Observations obs;
    obs.flowsFile = flowsFile;
    obs.links = ReadLinks(linksFile, links);
    if (manifest)
    {
        ReadManifest(*manifest, manifestFile, obs);
    }

    CsvReader csv(obs.flowsFile, flows);
    const auto cPath = csv.Find("path");
    const auto cPaths = csv.Find("paths");
    if (!cPath && !cPaths)
    {
        throw InputError(obs.flowsFile, 1, "path",
                         "missing column: tusk locate needs each flow's path (`path`: link ids "
                         "\"3>17>42>9\", or `paths`: \"3>17>42>9:120|3>18>43>9:98\" with packet "
                         "counts; docs/results-format.md)");
    }
    const std::string why = "one of a run's flows.csv columns (docs/results-format.md)";
    const size_t cId = csv.Require("flow_id", why);
    const size_t cSrc = csv.Require("src", why);
    const size_t cDst = csv.Require("dst", why);
    const size_t cBytes = csv.Require("bytes", why);
    const size_t cStart = csv.Require("start_us", why);
    const size_t cFct = csv.Require("fct_us", why);
    const size_t cIdeal = csv.Require("ideal_fct_us", why);
    const auto cDelivered = csv.Find("delivered_bytes");
    const auto cRetx = csv.Find("retx_packets");
    const auto cSpurious = csv.Find("spurious_retx");
    const auto cInFlight = csv.Find("pkts_in_flight");

    std::vector<std::string> f;
    while (csv.Next(f))
    {
        FlowObservation o;
        o.line = csv.Line();
        o.flowId = f[cId];
        o.src = csv.Integer<uint32_t>(f, cSrc, "src");
        o.dst = csv.Integer<uint32_t>(f, cDst, "dst");
        o.bytes = csv.Integer<uint64_t>(f, cBytes, "bytes");
        o.startUs = csv.Real(f, cStart, "start_us", true);
        if (std::isnan(o.startUs))
        {
            // Never started (results-format.md: the run stopped before its turn). An empty
            // fct_us must go with it: a finished flow that never started is a broken row.
            if (!f[cFct].empty())
            {
                throw InputError(obs.flowsFile, csv.Line(), "start_us",
                                 "empty for a flow with an fct_us (a finished flow must have "
                                 "started)");
            }
            ++obs.notStartedFlows;
            continue;
        }
        const double fct = csv.Real(f, cFct, "fct_us", true);
        o.idealUs = csv.Real(f, cIdeal, "ideal_fct_us");
        o.finished = !std::isnan(fct);
        o.finishUs = o.finished ? o.startUs + fct : std::numeric_limits<double>::quiet_NaN();
        o.deliveredBytes =
            cDelivered ? csv.Integer<uint64_t>(f, *cDelivered, "delivered_bytes") : o.bytes;
        o.retxPackets = cRetx ? csv.Integer<uint64_t>(f, *cRetx, "retx_packets") : 0;
        o.spuriousRetx = cSpurious ? csv.Integer<uint64_t>(f, *cSpurious, "spurious_retx") : 0;
        if (cInFlight && !f[*cInFlight].empty())
        {
            // Signed: sent - received - dropped, which a late duplicate can make negative.
            const auto n = csv.Integer<int64_t>(f, *cInFlight, "pkts_in_flight");
            o.inFlightPackets = n > 0 ? static_cast<uint64_t>(n) : 0;
        }
        obs.horizonUs = std::max(obs.horizonUs, o.finished ? o.finishUs : o.startUs);

        const bool counted = cPaths && !f[*cPaths].empty();
        const std::string column = counted ? "paths" : "path";
        const std::string text = counted ? f[*cPaths] : (cPath ? f[*cPath] : std::string());
        if (text.empty())
        {
            ++obs.skippedFlows; // inside a server (scale-up) or not recorded
            continue;
        }
        const std::string src = "host" + std::to_string(o.src);
        const std::string dst = "host" + std::to_string(o.dst);
        if (obs.links.HasAggregationEndpoints() &&
            (!obs.links.Named(src) || !obs.links.Named(dst)))
        {
            ++obs.skippedReductionFlows; // an in-network reduction's: times the reduction
            continue;
        }
        size_t pos = 0;
        while (pos <= text.size())
        {
            size_t end = text.find('|', pos);
            if (end == std::string::npos)
            {
                end = text.size();
            }
            std::string item = text.substr(pos, end - pos);
            FlowPath fp;
            if (counted)
            {
                const size_t colon = item.rfind(':');
                if (colon == std::string::npos)
                {
                    throw InputError(obs.flowsFile, o.line, column,
                                     fmt::format("path {} \"{}\": expected LINK>LINK>...:PACKETS",
                                                 o.paths.size() + 1, item));
                }
                const std::string n = item.substr(colon + 1);
                uint64_t packets = 0;
                auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), packets);
                if (n.empty() || ec != std::errc() || p != n.data() + n.size())
                {
                    throw InputError(obs.flowsFile, o.line, column,
                                     fmt::format("path {}: packet count \"{}\" is not an integer",
                                                 o.paths.size() + 1, n));
                }
                fp.packets = static_cast<double>(packets);
                item.resize(colon);
            }
            try
            {
                fp.hops = obs.links.Walk(item, src, dst);
            }
            catch (const std::invalid_argument& e)
            {
                throw InputError(obs.flowsFile, o.line, column,
                                 fmt::format("flow {} ({} to {}), path {}: {}", o.flowId, src, dst,
                                             o.paths.size() + 1, e.what()));
            }
            if (fp.packets > 0)
            {
                o.paths.push_back(std::move(fp));
            }
            pos = end + 1;
        }
        o.pathCounts = counted;
        if (o.paths.empty())
        {
            ++obs.skippedFlows;
            continue;
        }
        if (!(o.idealUs > 0))
        {
            throw InputError(obs.flowsFile, o.line, "ideal_fct_us",
                             "expected a positive ideal FCT for a flow with a path");
        }
        obs.flows.push_back(std::move(o));
    }
    return obs;
}

} // namespace locate
} // namespace tusk
