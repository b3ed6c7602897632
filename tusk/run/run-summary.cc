/*
 * tusk: the headline numbers of a run (RunSummary: the row of `tusk compare`, the manifest's
 * "summary"), computed once, here, from the run's tables. The Python analysis reads them from
 * the manifest.
 */
#include "run/run-stages.h"

#include "run/flow-summary.h"
#include "run/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace tusk
{

using namespace ns3;

namespace
{

double
PsToUs(uint64_t ps)
{
    return static_cast<double>(ps) / 1e6;
}

} // namespace

void
AddFlowCounters(RunSummary& s, const FlowRow& f)
{
    s.retxPackets += f.retxPackets;
    s.oooPackets += f.oooPackets;
    s.retxBytes += f.retxBytes;
    s.retxTimeoutPackets += f.retxTimeoutPackets;
    s.naks += f.naks;
    s.spuriousRetx += f.spuriousRetx;
    s.reorderMax = std::max(s.reorderMax, f.reorderMax);
}

RunSummary
Summarize(const RunResult& result, const std::string& policy, uint64_t trimmedFrames)
{
    RunSummary s;
    const QuantileMethod method = QuantileMethod::NearestRank; // as the analysis' default
    if (result.streamed.active)
    {
        // The rows went to flows.csv as the run ran (RunOptions::streamRows): the stream
        // computed these values from them, in the same order (row-stream.h).
        s = result.streamed.flowSummary;
    }
    else
    {
        // The values in vectors, in id order (the stream holds them in scratch files instead).
        struct InMemory
        {
            std::vector<double> of[kFlowStats];
            const std::vector<double>& At(FlowStat k) const { return of[static_cast<size_t>(k)]; }
            double Sum(FlowStat k) const { return std::accumulate(At(k).begin(), At(k).end(), 0.0); }
            double Mean(FlowStat k) const { return tusk::Mean(At(k)); }
            double Max(FlowStat k) const { return tusk::Max(At(k)); }
            double NearestRank(FlowStat k, double q) const
            {
                return Quantile(At(k), q, QuantileMethod::NearestRank);
            }
        } values;
        for (const auto& f : result.flows)
        {
            SummarizeFlow(s, f, [&values](FlowStat k, double v) {
                values.of[static_cast<size_t>(k)].push_back(v);
            });
        }
        FinishFlowSummary(s, result.flows.size(), values);
    }
    s.policy = policy;
    s.quantileMethod = QuantileMethodName(method);
    s.cctUs = std::numeric_limits<double>::quiet_NaN();
    s.algbwGBps = std::numeric_limits<double>::quiet_NaN(); // no finished collective: no value
    s.busbwGBps = std::numeric_limits<double>::quiet_NaN();
    s.lowerBoundUs = std::numeric_limits<double>::quiet_NaN();
    ForEachCollective(result, [&s](const CollectiveBrief& c) {
        if (c.finished && (std::isnan(s.cctUs) || PsToUs(c.cctPs) > s.cctUs))
        {
            s.cctUs = PsToUs(c.cctPs);
            s.algbwGBps = c.algbwGBps;
            s.busbwGBps = c.busbwGBps;
            s.lowerBoundUs = PsToUs(c.lowerBoundPs);
        }
    });
    std::vector<double> upUtil;
    for (const auto& l : result.links)
    {
        for (int k = 0; k < kDropReasons; ++k)
        {
            s.dropsByReason[k] += l.drops[k];
            if (static_cast<DropReason>(k) != DropReason::NIC_STALE)
            {
                s.drops += l.drops[k];
            }
        }
        if (l.uplink)
        {
            upUtil.push_back(l.meanUtilisation);
        }
    }
    // No switch-to-switch uplinks (one switch, a ring), or none that carried anything: there is
    // no balance to report, so the values are empty rather than a perfect-looking 1.
    const double none = std::numeric_limits<double>::quiet_NaN();
    s.uplinkMaxUtil = upUtil.empty() ? none : Max(upUtil);
    s.uplinkMeanUtil = upUtil.empty() ? none : Mean(upUtil);
    // Balance is judged among the uplinks of one switch (the choices one policy instance
    // has), then combined over switches weighted by their uplink bytes, so a switch that only
    // sends ACKs up does not count as much as one that sends the data.
    {
        std::map<std::string, std::vector<double>> bySwitch;
        for (const auto& l : result.links)
        {
            if (l.uplink)
            {
                bySwitch[l.from].push_back(static_cast<double>(l.txBytes));
            }
        }
        double sumMax = 0;
        double sumMean = 0;
        double jainWeighted = 0;
        double total = 0;
        for (const auto& [from, bytes] : bySwitch)
        {
            const double mean = Mean(bytes);
            sumMax += Max(bytes);
            sumMean += mean;
            jainWeighted += JainIndex(bytes) * mean * bytes.size();
            total += mean * bytes.size();
        }
        s.uplinkImbalance = sumMean > 0 ? sumMax / sumMean : none;
        s.uplinkJain = total > 0 ? jainWeighted / total : none;
    }
    double pausedSum = 0;
    double stallSum = 0;
    for (const auto& l : result.links)
    {
        s.pfcPauses += l.pfcPauseTx;
        s.ecnMarks += l.ecnMarks;
        pausedSum += static_cast<double>(l.pausedPs) / std::max<uint64_t>(result.simEndPs, 1);
        stallSum += static_cast<double>(l.creditStallPs) / std::max<uint64_t>(result.simEndPs, 1);
    }
    s.creditStallFraction = result.links.empty() ? 0 : stallSum / result.links.size();
    s.trimmedFrames = trimmedFrames;
    s.pausedFraction = result.links.empty() ? 0 : pausedSum / result.links.size();
    for (const auto& e : result.pfcEvents)
    {
        if (e.event.sent && e.event.quanta > 0)
        {
            s.pfcMaxDepth = std::max<uint32_t>(s.pfcMaxDepth, e.event.depth);
        }
    }
    return s;
}

} // namespace tusk
