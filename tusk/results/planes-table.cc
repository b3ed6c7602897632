/*
 * tusk: planes.csv, the results of a multi-plane fabric per plane (planes-table.h).
 */
#include "results/planes-table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>

namespace tusk
{

int
PlaneOfNodeName(std::string_view name)
{
    // "p<digits>.<rest>", as ReplicatePlanes names a plane's switches.
    if (name.size() < 3 || name[0] != 'p')
    {
        return -1;
    }
    size_t i = 1;
    int k = 0;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && k < 1'000'000)
    {
        k = 10 * k + (name[i] - '0');
        ++i;
    }
    if (i == 1 || i >= name.size() - 1 || name[i] != '.')
    {
        return -1;
    }
    return k;
}

namespace
{

struct PlaneTotals
{
    uint64_t links = 0;
    uint64_t hostTx = 0;
    uint64_t hostRx = 0;
    uint64_t fabricTx = 0;
    uint64_t uplinks = 0;
    uint64_t uplinkBytes = 0;
    uint64_t uplinkMaxBytes = 0;
    double uplinkUtilSum = 0;
    double uplinkUtilMax = 0;
    uint64_t maxQueue = 0;
    uint64_t drops = 0;
    uint64_t ecn = 0;
    uint64_t pauses = 0;
};

} // namespace

std::string
PlanesCsv(const std::vector<LinkRow>& links)
{
    std::map<int, PlaneTotals> planes;
    for (const auto& l : links)
    {
        const int from = PlaneOfNodeName(l.from);
        const int to = PlaneOfNodeName(l.to);
        const int k = from >= 0 ? from : to;
        if (k < 0)
        {
            continue;
        }
        auto& t = planes[k];
        ++t.links;
        if (from < 0)
        {
            t.hostTx += l.txBytes;
        }
        else if (to < 0)
        {
            t.hostRx += l.txBytes;
        }
        else
        {
            t.fabricTx += l.txBytes;
        }
        if (l.uplink)
        {
            ++t.uplinks;
            t.uplinkBytes += l.txBytes;
            t.uplinkMaxBytes = std::max(t.uplinkMaxBytes, l.txBytes);
            t.uplinkUtilSum += l.meanUtilisation;
            t.uplinkUtilMax = std::max(t.uplinkUtilMax, l.maxUtilisation);
        }
        t.maxQueue = std::max(t.maxQueue, l.maxQueueBytes);
        for (uint64_t d : l.drops)
        {
            t.drops += d;
        }
        t.ecn += l.ecnMarks;
        t.pauses += l.pfcPauseTx;
    }
    if (planes.empty())
    {
        return "";
    }
    uint64_t hostTotal = 0;
    for (const auto& [k, t] : planes)
    {
        hostTotal += t.hostTx;
    }
    std::string s = "plane,links,host_tx_bytes,host_rx_bytes,host_share,fabric_tx_bytes,"
                    "uplink_util_mean,uplink_util_max,uplink_imbalance,max_queue_bytes,drops,"
                    "ecn_marks,pfc_pause_tx\n";
    for (const auto& [k, t] : planes)
    {
        const std::string share =
            hostTotal > 0 ? fmt::format("{:.6f}", double(t.hostTx) / hostTotal) : "";
        const std::string imbalance =
            t.uplinkBytes > 0
                ? fmt::format("{:.6f}", double(t.uplinkMaxBytes) * t.uplinks / t.uplinkBytes)
                : "";
        const double utilMean = t.uplinks > 0 ? t.uplinkUtilSum / t.uplinks : 0;
        s += fmt::format("{},{},{},{},{},{},{:.6f},{:.6f},{},{},{},{},{}\n", k, t.links, t.hostTx,
                         t.hostRx, share, t.fabricTx, utilMean, t.uplinkUtilMax, imbalance,
                         t.maxQueue, t.drops, t.ecn, t.pauses);
    }
    return s;
}

bool
HasPlanes(const std::vector<LinkRow>& links)
{
    return std::any_of(links.begin(), links.end(), [](const LinkRow& l) {
        return PlaneOfNodeName(l.from) >= 0 || PlaneOfNodeName(l.to) >= 0;
    });
}

} // namespace tusk
