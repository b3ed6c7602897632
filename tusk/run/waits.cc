#include "run/waits.h"

#include <algorithm>
#include <unordered_map>

namespace tusk
{

namespace
{

/** A transfer's own ideal time: as flows.csv has it when given, else `bytes` as one message. */
uint64_t
IdealOf(const WaitTransfer& w, const IdealFn& ideal)
{
    return w.idealPs > 0 ? w.idealPs : ideal(w.src, w.dst, w.bytes);
}

} // namespace

void
CompleteWaitRow(WaitRow& row, uint64_t stepIdealPs, std::vector<bool>& delayed)
{
    row.stepIdealPs = stepIdealPs;
    if (!row.arrived || !row.ready)
    {
        return; // no wait: its data did not arrive, or it never began the step
    }
    const uint64_t need = row.readyPs + row.idealPs;
    row.waitPs = row.arrivalPs > need ? row.arrivalPs - need : 0;
    const uint64_t from = std::max(row.readyPs, row.sent ? row.sentPs : 0) + row.idealPs;
    row.networkWaitPs = row.arrivalPs > from ? row.arrivalPs - from : 0;
    row.delay = stepIdealPs > 0 ? static_cast<double>(row.waitPs) / stepIdealPs : 0;
    for (size_t j = 0; j < kDelayThresholds.size(); ++j)
    {
        if (row.delay > kDelayThresholds[j])
        {
            delayed[row.rank * kDelayThresholds.size() + j] = true;
        }
    }
}

CollectiveWaits
ComputeWaits(uint32_t collective,
             const std::vector<uint32_t>& ranks,
             uint32_t steps,
             uint64_t startPs,
             const std::vector<WaitTransfer>& transfers,
             const IdealFn& ideal)
{
    CollectiveWaits out;
    const size_t n = ranks.size();
    std::unordered_map<uint32_t, uint32_t> rankOf;
    for (uint32_t i = 0; i < n; ++i)
    {
        rankOf.emplace(ranks[i], i); // a host twice in a group: its first rank
    }
    // Per step and rank: the transfers it sends and receives, in transfer order. Two flat
    // lists indexed by (step x n + rank), counted then filled (not a vector per step and
    // rank: a collective of a million-row fast-mode run would allocate one per cell).
    constexpr int32_t kNoRank = -1;
    std::vector<int32_t> srcRank(transfers.size(), kNoRank);
    std::vector<int32_t> dstRank(transfers.size(), kNoRank);
    const size_t cells = static_cast<size_t>(steps) * n;
    std::vector<uint32_t> sendStart(cells + 1, 0);
    std::vector<uint32_t> recvStart(cells + 1, 0);
    uint64_t lastDelivery = 0;
    bool allDelivered = !transfers.empty();
    for (uint32_t t = 0; t < transfers.size(); ++t)
    {
        const WaitTransfer& w = transfers[t];
        if (!w.delivered)
        {
            allDelivered = false;
        }
        else if (out.criticalTransfer < 0 || w.deliveredPs > lastDelivery)
        {
            lastDelivery = w.deliveredPs;
            out.criticalTransfer = t;
        }
        if (w.step < 0 || static_cast<uint32_t>(w.step) >= steps)
        {
            continue;
        }
        const size_t row = static_cast<size_t>(w.step) * n;
        if (auto it = rankOf.find(w.src); it != rankOf.end())
        {
            srcRank[t] = static_cast<int32_t>(it->second);
            ++sendStart[row + it->second + 1];
        }
        if (auto it = rankOf.find(w.dst); it != rankOf.end())
        {
            dstRank[t] = static_cast<int32_t>(it->second);
            ++recvStart[row + it->second + 1];
        }
    }
    for (size_t i = 0; i < cells; ++i)
    {
        sendStart[i + 1] += sendStart[i];
        recvStart[i + 1] += recvStart[i];
    }
    std::vector<uint32_t> sendList(sendStart.back());
    std::vector<uint32_t> recvList(recvStart.back());
    {
        std::vector<uint32_t> sendAt(sendStart.begin(), sendStart.end() - 1);
        std::vector<uint32_t> recvAt(recvStart.begin(), recvStart.end() - 1);
        for (uint32_t t = 0; t < transfers.size(); ++t)
        {
            const size_t row = static_cast<size_t>(transfers[t].step) * n;
            if (srcRank[t] != kNoRank)
            {
                sendList[sendAt[row + srcRank[t]]++] = t;
            }
            if (dstRank[t] != kNoRank)
            {
                recvList[recvAt[row + dstRank[t]]++] = t;
            }
        }
    }
    /** The transfers of a cell, [begin, end) of a list. */
    struct Cell
    {
        const uint32_t* b;
        const uint32_t* e;
        const uint32_t* begin() const { return b; }
        const uint32_t* end() const { return e; }
        bool empty() const { return b == e; }
    };
    const auto sends = [&](uint32_t k, uint32_t r) {
        const size_t i = static_cast<size_t>(k) * n + r;
        return Cell{sendList.data() + sendStart[i], sendList.data() + sendStart[i + 1]};
    };
    const auto recvs = [&](uint32_t k, uint32_t r) {
        const size_t i = static_cast<size_t>(k) * n + r;
        return Cell{recvList.data() + recvStart[i], recvList.data() + recvStart[i + 1]};
    };
    if (!allDelivered)
    {
        out.criticalTransfer = -1;
    }

    std::vector<bool> delayed(n * kDelayThresholds.size(), false);
    std::vector<uint32_t> sources; // a row's sources: sorted and made unique (a set's order)
    out.rows.reserve(cells);
    std::vector<uint64_t> lastArrival(n, startPs); // latest arrival of each rank so far
    std::vector<bool> allArrived(n, true);         // and whether all its data so far arrived
    for (uint32_t k = 0; k < steps; ++k)
    {
        const size_t first = out.rows.size();
        uint64_t stepIdeal = 0;
        for (uint32_t r = 0; r < n; ++r)
        {
            const Cell in = recvs(k, r);
            if (in.empty())
            {
                continue; // nothing to wait for in this step
            }
            WaitRow row;
            row.collective = collective;
            row.step = k;
            row.rank = r;
            row.host = ranks[r];
            // Ready: when the rank began the step, i.e. posted its first send of it; a rank that
            // sends nothing in the step is ready when its earlier steps' data had all arrived
            // (the collective's start for its first step).
            // A rank that never began the step is not ready (a run stopped early): a send of
            // it never started, or, sending nothing, some earlier data of it never arrived.
            const Cell mine = sends(k, r);
            bool sendStarted = false;
            uint64_t ready = UINT64_MAX;
            for (uint32_t t : mine)
            {
                if (transfers[t].started)
                {
                    sendStarted = true;
                    ready = std::min(ready, transfers[t].startPs);
                }
            }
            row.ready = mine.empty() ? allArrived[r] : sendStarted;
            row.readyPs = !row.ready ? 0 : sendStarted ? ready : lastArrival[r];
            row.sent = true;
            row.arrived = true;
            uint64_t bytes = 0;
            uint64_t ownIdeal = 0; // the slowest of its transfers alone (QP splits included)
            sources.clear();
            for (uint32_t t : in)
            {
                const WaitTransfer& w = transfers[t];
                bytes += w.bytes;
                ownIdeal = std::max(ownIdeal, IdealOf(w, ideal));
                sources.push_back(w.src);
                row.sent = row.sent && w.started;
                row.sentPs = std::max(row.sentPs, w.started ? w.startPs : 0);
                if (!w.delivered)
                {
                    row.arrived = false;
                    continue;
                }
                if (row.lastTransfer < 0 || w.deliveredPs > row.arrivalPs)
                {
                    row.arrivalPs = w.deliveredPs;
                    row.lastTransfer = t;
                }
            }
            if (!row.arrived)
            {
                row.arrivalPs = 0;
                row.lastTransfer = -1;
                allArrived[r] = false;
            }
            else
            {
                const auto it = rankOf.find(transfers[row.lastTransfer].src);
                row.fromRank = it == rankOf.end() ? -1 : it->second;
                lastArrival[r] = std::max(lastArrival[r], row.arrivalPs);
            }
            // Ideal: all the step's bytes into the rank, from its farthest source, alone on
            // the idle fabric (the incast of an all-to-all step shares the last link).
            // One transfer split over QPs needs its own (longer) packet sequence's time.
            row.idealPs = ownIdeal;
            std::sort(sources.begin(), sources.end());
            sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
            for (const uint32_t src : sources)
            {
                row.idealPs = std::max(row.idealPs, ideal(src, row.host, bytes));
            }
            stepIdeal = std::max(stepIdeal, row.idealPs);
            out.rows.push_back(row);
        }
        for (size_t i = first; i < out.rows.size(); ++i)
        {
            CompleteWaitRow(out.rows[i], stepIdeal, delayed);
        }
    }
    // The critical path: from the transfer that ended the collective, back through the
    // transfer whose arrival let its sender begin its step (the sender's previous step's last
    // arrival, when it came before the send started), to the first step. The straggler is the
    // one on it that took longest beyond its own ideal time.
    if (out.criticalTransfer >= 0)
    {
        std::vector<std::vector<int64_t>> rowAt(steps, std::vector<int64_t>(n, -1));
        for (size_t i = 0; i < out.rows.size(); ++i)
        {
            rowAt[out.rows[i].step][out.rows[i].rank] = static_cast<int64_t>(i);
        }
        int64_t t = out.criticalTransfer;
        int64_t worst = -1;
        uint64_t worstExcess = 0;
        for (uint32_t guard = 0; t >= 0 && guard <= steps; ++guard)
        {
            const WaitTransfer& w = transfers[t];
            const uint64_t took = w.deliveredPs - w.startPs;
            const uint64_t need = IdealOf(w, ideal);
            const uint64_t excess = took > need ? took - need : 0;
            if (worst < 0 || excess > worstExcess)
            {
                worst = t;
                worstExcess = excess;
            }
            const auto it = rankOf.find(w.src);
            if (w.step <= 0 || static_cast<size_t>(w.step) > rowAt.size() ||
                it == rankOf.end())
            {
                break;
            }
            const int64_t i = rowAt[w.step - 1][it->second];
            if (i < 0 || !out.rows[i].arrived || out.rows[i].arrivalPs > w.startPs)
            {
                break;
            }
            t = out.rows[i].lastTransfer;
        }
        out.criticalTransfer = worst;
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        for (size_t j = 0; j < kDelayThresholds.size(); ++j)
        {
            out.ranksDelayed[j] += delayed[r * kDelayThresholds.size() + j] ? 1 : 0;
        }
    }
    return out;
}

} // namespace tusk
