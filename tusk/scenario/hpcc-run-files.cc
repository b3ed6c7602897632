/*
 * tusk: the run keys of an HPCC simulator config.txt. See hpcc-run-files.h.
 */
#include "scenario/hpcc-run-files.h"

#include "fabric/model/input-error.h"
#include "fabric/model/input-excerpt.h"
#include "importers/model/hpcc-reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

namespace tusk
{

namespace
{

struct Line
{
    unsigned number = 0;
    std::vector<std::string> words; //!< the key, then its values
};

std::string
Resolve(const std::string& config, const Line& l)
{
    const std::string& key = l.words[0];
    if (l.words.size() != 2)
    {
        throw ns3::InputError(config, l.number, key, "expected one path");
    }
    const fs::path given(l.words[1]);
    const fs::path dir = fs::absolute(config).parent_path();
    std::vector<fs::path> tries;
    if (given.is_absolute())
    {
        tries.push_back(given);
    }
    else
    {
        tries.push_back(dir / given);
        if (!given.empty() && *given.begin() == dir.filename())
        {
            tries.push_back(dir.parent_path() / given);
        }
        tries.push_back(dir / given.filename());
    }
    std::string tried;
    for (const auto& t : tries)
    {
        std::error_code ec;
        if (fs::is_regular_file(t, ec))
        {
            return t.lexically_normal().string();
        }
        tried += (tried.empty() ? "" : ", ") + t.lexically_normal().string();
    }
    throw ns3::InputError(config, l.number, key,
                          "no such file " + ns3::QuoteExcerpt(l.words[1]) + " (looked for " +
                              tried + ")");
}

} // namespace

HpccRunFiles
ReadHpccRunFiles(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw ns3::InputError(path, 0, "--hpcc-config", "cannot open the file");
    }
    std::map<std::string, Line> byKey; // the last line of a key counts, as in the simulator
    unsigned number = 0;
    for (std::string raw; std::getline(in, raw);)
    {
        ++number;
        if (number == 1 && raw.compare(0, 3, "\xEF\xBB\xBF") == 0)
        {
            raw.erase(0, 3); // a UTF-8 byte-order mark, as InputTextReader (hpcc-config.cc) skips
        }
        std::istringstream ss(raw);
        Line l;
        l.number = number;
        for (std::string w; ss >> w;)
        {
            l.words.push_back(w);
        }
        if (!l.words.empty() && l.words[0][0] != '#')
        {
            byKey[l.words[0]] = l;
        }
    }
    HpccRunFiles f;
    auto source = [&](const std::string& scenarioKey, const Line& l) {
        std::string text;
        for (const auto& w : l.words)
        {
            text += (text.empty() ? "" : " ") + w;
        }
        f.sources.emplace_back(scenarioKey, path + ":" + std::to_string(l.number) + " " + text);
    };
    for (const char* key : {"TOPOLOGY_FILE", "FLOW_FILE"})
    {
        const auto it = byKey.find(key);
        if (it == byKey.end())
        {
            throw ns3::InputError(path, 0, key,
                                  "without a scenario file, --hpcc-config runs the config's "
                                  "TOPOLOGY_FILE and FLOW_FILE; this config has no " +
                                      std::string(key) + " line");
        }
        const std::string file = Resolve(path, it->second);
        (std::string(key) == "TOPOLOGY_FILE" ? f.topology : f.flow) = file;
        source(std::string(key) == "TOPOLOGY_FILE" ? "topology.file" : "workload.file", it->second);
    }
    if (const auto it = byKey.find("SIMULATOR_STOP_TIME"); it != byKey.end())
    {
        const Line& l = it->second;
        char* end = nullptr;
        const double s = l.words.size() == 2 ? std::strtod(l.words[1].c_str(), &end) : -1;
        if (l.words.size() != 2 || end != l.words[1].c_str() + l.words[1].size() ||
            !std::isfinite(s) || s <= 0 || s > 86400)
        {
            throw ns3::InputError(path, l.number, "SIMULATOR_STOP_TIME",
                                  "expected a time in seconds in (0, 86400]");
        }
        f.stopTimeS = s;
        source("stop_time_ms", l);
    }
    uint64_t first = UINT64_MAX;
    for (const auto& t : ns3::ReadHpccFlows(f.flow, ns3::ReadHpccTopology(f.topology).hostOfNode))
    {
        first = std::min(first, t.startPs);
    }
    f.firstStartPs = first == UINT64_MAX ? 0 : first;
    f.fctOutput = byKey.count("FCT_OUTPUT_FILE") > 0;
    f.pfcOutput = byKey.count("PFC_OUTPUT_FILE") > 0;
    for (const char* key : {"FCT_OUTPUT_FILE", "PFC_OUTPUT_FILE"})
    {
        if (const auto it = byKey.find(key); it != byKey.end())
        {
            source("output.formats", it->second);
        }
    }
    return f;
}

std::vector<std::string>
HpccRunSets(const HpccRunFiles& files)
{
    // TOML basic strings: backslashes and quotes escaped.
    auto quoted = [](const std::string& s) {
        std::string q = "\"";
        for (char c : s)
        {
            if (c == '\\' || c == '"')
            {
                q += '\\';
            }
            q += c;
        }
        return q + "\"";
    };
    std::vector<std::string> sets = {"topology.kind=\"hpcc\"",
                                     "topology.file=" + quoted(files.topology),
                                     "workload.kind=\"hpcc\"",
                                     "workload.file=" + quoted(files.flow),
                                     fmt::format("workload.start_us={}", files.firstStartPs / 1e6),
                                     fmt::format("stop_time_ms={}", files.stopTimeS * 1000)};
    if (files.fctOutput || files.pfcOutput)
    {
        sets.push_back("output.formats=[\"hpcc\"]");
    }
    return sets;
}

} // namespace tusk
