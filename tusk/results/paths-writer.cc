/*
 * tusk: paths.csv, the per-path telemetry table (docs/results-format.md, "paths.csv").
 */
#include "results/paths-writer.h"

#include "locate/observations.h"
#include "results/results-dir.h"

#include <fmt/format.h>

namespace tusk
{

const char* const kPathsCsvHeader =
    "src,dst,qpn,entropy,packets,bytes,retx_packets,rtt_samples,rtt_min_us,rtt_median_us,"
    "rtt_p99_us,ecn_acks,trims,nacks,timeouts,losses,paths,traced_path\n";

std::string
PathsCsv(const RunResult& r)
{
    // path_telemetry = "route": one more column, the row's route (empty: what no route is
    // given); `true` writes the file as before it existed.
    const bool routes = r.spec.output.pathTelemetryRoutes;
    std::string s = kPathsCsvHeader;
    if (routes)
    {
        s.back() = ',';
        s += "route,first_us,last_us\n";
    }
    s.reserve(s.size() + r.pathTelemetry.size() * 96);
    for (const auto& p : r.pathTelemetry)
    {
        s += fmt::format("{},{},{},{},{},{},{},{},{:.3f},{:.3f},{:.3f},{},{},{},{},{},{},", p.src,
                         p.dst, p.qpn, p.entropy, p.packets, p.bytes, p.retxPackets, p.rttSamples,
                         p.rttMinUs, p.rttMedianUs, p.rttP99Us, p.ecnAcks, p.trims, p.nacks,
                         p.timeouts, p.losses, locate::FormatPaths(p.paths));
        for (size_t i = 0; i < p.tracedPath.size(); ++i)
        {
            s += (i ? ">" : "") + std::to_string(p.tracedPath[i]);
        }
        if (routes)
        {
            s += ',';
            for (size_t i = 0; i < p.route.size(); ++i)
            {
                s += (i ? ">" : "") + std::to_string(p.route[i]);
            }
            s += p.route.empty() ? std::string(",,")
                                 : fmt::format(",{:.3f},{:.3f}", p.firstArrivalUs,
                                               p.lastArrivalUs);
        }
        s += '\n';
    }
    return s;
}

bool
WritePathTelemetry(const RunResult& r, const std::string& dir)
{
    if (!r.spec.output.pathTelemetry)
    {
        return false;
    }
    WriteFileAtomic(dir + "/paths.csv", PathsCsv(r));
    return true;
}

std::string
ArCsvHeader()
{
    std::string s = "switch,port,link_id,to,candidates,offered,decisions,packets,bytes";
    for (int k = 0; k < ns3::kEgressReasons; ++k)
    {
        s += fmt::format(",pkts_{}", ns3::EgressReasonName(static_cast<ns3::EgressReason>(k)));
    }
    return s + "\n";
}

std::string
ArCsv(const RunResult& r)
{
    std::string s = ArCsvHeader();
    s.reserve(s.size() + r.arTelemetry.size() * 64);
    for (const auto& a : r.arTelemetry)
    {
        s += fmt::format("{},{},{},{},{},{},{},{},{}", a.switchName, a.port, a.link, a.to,
                         a.candidates, a.offered, a.decisions, a.packets, a.bytes);
        for (uint64_t n : a.packetsByReason)
        {
            s += fmt::format(",{}", n);
        }
        s += "\n";
    }
    return s;
}

bool
WriteArTelemetry(const RunResult& r, const std::string& dir)
{
    if (!r.spec.output.arTelemetry)
    {
        return false;
    }
    WriteFileAtomic(dir + "/ar.csv", ArCsv(r));
    return true;
}

const char* const kProbesCsvHeader = "src,dst,entropy,bytes,sent,judged,received,losses,owd_min_us,"
                                     "owd_median_us,owd_p99_us,paths,traced_path\n";

std::string
ProbesCsv(const RunResult& r)
{
    std::string s = kProbesCsvHeader;
    s.reserve(s.size() + r.probes.size() * 96);
    for (const auto& p : r.probes)
    {
        s += fmt::format("{},{},{},{},{},{},{},{},{:.3f},{:.3f},{:.3f},{},", p.src, p.dst,
                         p.entropy, p.bytes, p.sent, p.judged, p.received, p.losses, p.owdMinUs, p.owdMedianUs,
                         p.owdP99Us, locate::FormatPaths(p.paths));
        for (size_t i = 0; i < p.tracedPath.size(); ++i)
        {
            s += (i ? ">" : "") + std::to_string(p.tracedPath[i]);
        }
        s += '\n';
    }
    return s;
}

bool
WriteProbes(const RunResult& r, const std::string& dir)
{
    if (r.spec.probes.intervalPs == 0)
    {
        return false;
    }
    WriteFileAtomic(dir + "/probes.csv", ProbesCsv(r));
    return true;
}

} // namespace tusk
