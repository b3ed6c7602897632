#include "results-writer.h"

#include "scenario-toml.h"
#include "tusk-version.h"

#include "fabric/model/fabric-net-device.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace tusk
{

namespace fs = std::filesystem;

namespace
{

/** ps as µs with 6 decimals: exact to the picosecond. */
std::string
Us(uint64_t ps)
{
    return fmt::format("{}.{:06d}", ps / 1000000, ps % 1000000);
}

std::string
Num(double v, int decimals = 6)
{
    if (std::isnan(v))
    {
        return "";
    }
    return fmt::format("{:.{}f}", v, decimals);
}

} // namespace

void
WriteFileAtomic(const std::string& path, const std::string& text)
{
    const std::string tmp = path + fmt::format(".tmp-{}", ::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
        {
            throw std::runtime_error("cannot write " + tmp);
        }
        out << text;
        out.flush();
        if (!out)
        {
            throw std::runtime_error("error writing " + tmp);
        }
    }
    fs::rename(tmp, path);
}

std::string
MakeStagingDir(const std::string& finalDir)
{
    fs::path final(finalDir);
    if (final.has_parent_path())
    {
        fs::create_directories(final.parent_path());
    }
    std::string tmpl = final.string() + ".staging-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data()))
    {
        throw std::runtime_error("cannot create a staging directory beside " + finalDir);
    }
    return std::string(buf.data());
}

void
CommitDirectory(const std::string& stagingDir, const std::string& finalDir)
{
    std::error_code ec;
    if (fs::exists(finalDir))
    {
        const std::string old = finalDir + fmt::format(".old-{}", ::getpid());
        fs::rename(finalDir, old);
        fs::rename(stagingDir, finalDir);
        fs::remove_all(old, ec);
    }
    else
    {
        fs::rename(stagingDir, finalDir);
    }
}

std::string
FlowsCsv(const RunResult& r)
{
    std::string s = "flow_id,src,dst,bytes,start_us,finish_us,fct_us,ideal_fct_us,slowdown,"
                    "finished,delivered_bytes,qps,entropy,retx_packets,ooo_packets,collective,"
                    "step,channel,policy\n";
    for (const auto& f : r.flows)
    {
        s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", f.id, f.src,
                         f.dst, f.bytes, f.started ? Us(f.startPs) : "",
                         f.finished ? Us(f.finishPs) : "", f.finished ? Us(f.fctPs) : "",
                         Us(f.idealFctPs), f.finished ? Num(f.slowdown, 9) : "",
                         f.finished ? 1 : 0, f.deliveredBytes, f.qps, f.entropy, f.retxPackets,
                         f.oooPackets, f.collective, f.step, f.channel, r.summary.policy);
    }
    return s;
}

std::string
CollectivesCsv(const RunResult& r)
{
    std::string s = "collective_id,kind,ranks,bytes_per_rank,channels,start_us,finish_us,cct_us,"
                    "lower_bound_us,algbw_GBps,busbw_GBps,busbw_factor,finished,step_end_us,"
                    "policy\n";
    for (const auto& c : r.collectives)
    {
        std::string steps;
        for (size_t i = 0; i < c.stepEndPs.size(); ++i)
        {
            steps += (i ? ";" : "") + Us(c.stepEndPs[i]);
        }
        s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", c.id, c.kind, c.ranks,
                         c.bytesPerRank, c.channels, Us(c.startPs),
                         c.finished ? Us(c.finishPs) : "", c.finished ? Us(c.cctPs) : "",
                         Us(c.lowerBoundPs), c.finished ? Num(c.algbwGBps) : "",
                         c.finished ? Num(c.busbwGBps) : "", Num(c.busbwFactor), c.finished ? 1 : 0,
                         steps, r.summary.policy);
    }
    return s;
}

std::string
LinksCsv(const RunResult& r)
{
    std::string s = "link_id,from,to,from_tier,to_tier,uplink,rate_gbps,tx_frames,tx_bytes,"
                    "mean_util,max_util,max_queue_bytes";
    for (int k = 0; k < kDropReasons; ++k)
    {
        s += fmt::format(",drops_{}", ns3::DropReasonName(static_cast<ns3::DropReason>(k)));
    }
    s += "\n";
    for (const auto& l : r.links)
    {
        s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}", l.link, l.from, l.to, l.fromTier,
                         l.toTier, l.uplink ? 1 : 0, Num(l.rateBps / 1e9, 3), l.txFrames,
                         l.txBytes, Num(l.meanUtilisation), Num(l.maxUtilisation),
                         l.maxQueueBytes);
        for (int k = 0; k < kDropReasons; ++k)
        {
            s += fmt::format(",{}", l.drops[k]);
        }
        s += "\n";
    }
    return s;
}

void
WriteRunFiles(const RunResult& r, const std::string& dir)
{
    WriteFileAtomic(dir + "/flows.csv", FlowsCsv(r));
    WriteFileAtomic(dir + "/collectives.csv", CollectivesCsv(r));
    WriteFileAtomic(dir + "/links.csv", LinksCsv(r));

    nlohmann::ordered_json m;
    m["tusk_version"] = TUSK_VERSION;
    m["git_revision"] = TUSK_GIT_REVISION;
    m["ns3_version"] = "3.37";
    m["scenario_name"] = r.spec.name;
    m["scenario_file"] = r.spec.sourceFile;
    m["seed"] = r.spec.seed;
    m["policy"] = r.summary.policy;
    m["policy_type_id"] = r.policyTypeId;
    m["status"] = r.failure.empty() ? "ok" : "failed";
    m["failure"] = r.failure;
    m["finished"] = r.finished;
    m["hosts"] = r.hosts;
    m["switches"] = r.switches;
    m["transfers"] = r.flows.size();
    m["unfinished_transfers"] = r.summary.unfinished;
    m["sim_end_us"] = static_cast<double>(r.simEndPs) / 1e6;
    m["wall_time_s"] = r.wallSeconds;
    m["events"] = r.events;
    m["packet_hops"] = r.packetHops;
    m["conservation"] = {{"sent_frames", r.conservation.sent},
                         {"received_frames", r.conservation.received},
                         {"dropped_frames", r.conservation.dropped},
                         {"in_flight_frames", r.conservation.inFlight},
                         {"holds", r.conservation.Holds()}};
    const RunSummary& s = r.summary;
    auto num = [](double v) { return std::isnan(v) ? nlohmann::ordered_json() : nlohmann::ordered_json(v); };
    m["summary"] = {{"cct_us", num(s.cctUs)},
                    {"algbw_GBps", num(s.algbwGBps)},
                    {"busbw_GBps", num(s.busbwGBps)},
                    {"slowdown_mean", num(s.meanSlowdown)},
                    {"slowdown_p50", num(s.p50Slowdown)},
                    {"slowdown_p99", num(s.p99Slowdown)},
                    {"slowdown_max", num(s.maxSlowdown)},
                    {"fct_p99_us", num(s.p99FctUs)},
                    {"fct_max_us", num(s.maxFctUs)},
                    {"uplink_util_max", s.uplinkMaxUtil},
                    {"uplink_util_mean", s.uplinkMeanUtil},
                    {"uplink_jain", s.uplinkJain},
                    {"drops", s.drops},
                    {"retx_packets", s.retxPackets},
                    {"ooo_packets", s.oooPackets}};
    m["scenario"] = ScenarioToJson(r.spec);
    m["files"] = {"flows.csv", "collectives.csv", "links.csv"};
    WriteFileAtomic(dir + "/manifest.json", m.dump(2) + "\n");
}

} // namespace tusk
