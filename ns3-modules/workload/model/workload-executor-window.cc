/*
 * tusk: WorkloadExecutor, jobs built iteration by iteration (SetupLazy): the executor's
 * per-transfer and per-trigger state for a job exists from the iteration's expansion to its
 * retirement. See workload-executor.h and job-window.h.
 */
#include "workload-executor.h"

#include "ns3/abort.h"

#include <algorithm>
#include <set>

namespace ns3
{

void
WorkloadExecutor::SetupLazy(std::shared_ptr<const WorkloadSpec> rest,
                            std::shared_ptr<JobWindow> jobs,
                            const std::vector<Ptr<RdmaNic>>& nics)
{
    NS_ABORT_MSG_IF(!rest || !jobs, "WorkloadExecutor::SetupLazy: no workload");
    Setup(std::move(rest), nics); // the other transfers, at their local indices for now
    m_window = std::move(jobs);
    m_restFirst = m_window->TransfersEnd();
    m_restTriggerFirst = m_window->TriggersEnd();
    m_restCollectiveFirst = m_window->CollectivesEnd();
    const WorkloadSpec& spec = *m_spec;
    const size_t n = m_restFirst + spec.transfers.size();
    const size_t g = m_restTriggerFirst + spec.triggers.size();
    CountLive(-static_cast<int64_t>(m_liveRecords));
    m_records.assign(n, TransferRecord());
    m_transfers = n;
    CountLive(static_cast<int64_t>(spec.transfers.size()));
    m_transferConnection.assign(n, nullptr);
    m_waiters.assign(g, {});
    m_activations.assign(g, 0);
    m_fired.assign(g, false);
    m_firedPs.assign(g, -1);
    m_multishotNext.assign(g, 0);
    for (uint32_t k = 0; k < spec.transfers.size(); ++k)
    {
        if (spec.transfers[k].trigger >= 0)
        {
            m_waiters[spec.transfers[k].trigger].push_back(static_cast<uint32_t>(m_restFirst + k));
        }
    }
}

const TransferSpec&
WorkloadExecutor::Tr(uint32_t t) const
{
    if (t >= m_restFirst)
    {
        return m_spec->transfers[t - m_restFirst];
    }
    const TransferSpec* ts = m_window->Transfer(t);
    if (ts == nullptr && m_window->KeepsRecords())
    {
        return m_window->Rebuilt(t); // after the run (rows, DescribeBlocked)
    }
    NS_ABORT_MSG_IF(ts == nullptr, "WorkloadExecutor: transfer " << t << " is not live");
    return *ts;
}

const TriggerSpec&
WorkloadExecutor::Tg(uint32_t g) const
{
    if (g >= m_restTriggerFirst)
    {
        return m_spec->triggers[g - m_restTriggerFirst];
    }
    static const TriggerSpec kRetired; // of a retired iteration (only DescribeBlocked asks)
    if (m_window->KeepsRecords())
    {
        return m_window->RebuiltTrigger(g);
    }
    const TriggerSpec* ts = m_window->Trigger(g);
    return ts ? *ts : kRetired;
}

const CollectiveSpec&
WorkloadExecutor::Coll(int32_t c) const
{
    if (static_cast<uint64_t>(c) >= m_restCollectiveFirst)
    {
        return m_spec->collectives[c - m_restCollectiveFirst];
    }
    static const CollectiveSpec kRetired;
    const CollectiveSpec* cs = m_window->Collective(c);
    return cs ? *cs : kRetired;
}

void
WorkloadExecutor::Register(const std::vector<JobWindow::Range>& ranges, bool scheduleUntriggered)
{
    if (m_expandHook)
    {
        // Before any of their starts is scheduled (fast mode's decisions run first).
        for (const auto& r : ranges)
        {
            m_expandHook(r);
        }
    }
    for (const auto& r : ranges)
    {
        CountLive(static_cast<int64_t>(r.end.transfer - r.first.transfer));
        for (uint64_t t = r.first.transfer; t < r.end.transfer; ++t)
        {
            const TransferSpec& ts = Tr(static_cast<uint32_t>(t));
            NS_ABORT_MSG_IF(ts.src >= m_nics.size() || ts.dst >= m_nics.size(),
                            "WorkloadExecutor: transfer " << ts.externalId
                                                          << " names a host beyond "
                                                          << m_nics.size());
            if (ts.trigger >= 0)
            {
                m_waiters[ts.trigger].push_back(static_cast<uint32_t>(t));
            }
            else if (scheduleUntriggered)
            {
                ScheduleStart(static_cast<uint32_t>(t));
            }
        }
    }
}

void
WorkloadExecutor::Retire(const JobWindow::Range& r)
{
    if (m_retireHook)
    {
        m_retireHook(r);
    }
    if (m_retireCb)
    {
        m_retireCb(r);
    }
    if (!m_replays.empty())
    {
        m_replays.erase(m_replays.lower_bound(r.first.transfer),
                        m_replays.lower_bound(r.end.transfer));
    }
    if (m_window->KeepsRecords())
    {
        // Its rows are built at the end from the records (and the PSN owners and responders'
        // history stay as a whole build has them), unless they are final now
        // (SetFinalUnitCallback): then they are built here and its records freed.
        if (m_finalUnitCb && m_recordsFreedEnd == r.first.transfer && Final(r))
        {
            m_finalUnitCb(r);
            FreeRecords(r);
            m_recordsFreedEnd = r.end.transfer;
        }
        ReleaseSpecsAndTriggers(r);
        return;
    }
    FreeRecords(r);
    ReleaseSpecsAndTriggers(r);
}

bool
WorkloadExecutor::Final(const JobWindow::Range& r) const
{
    for (uint64_t t = r.first.transfer; t < r.end.transfer; ++t)
    {
        const TransferRecord& rec = m_records[t];
        uint64_t dropped = 0;
        for (const uint64_t d : rec.pktsDropped)
        {
            dropped += d;
        }
        // A frame resent, dropped or received twice may have a copy still on the wire; one
        // sent once and received has none.
        if (rec.retxPackets > 0 || rec.pktsSent != rec.pktsReceived || dropped > 0 ||
            rec.duplicates > 0)
        {
            return false;
        }
    }
    return true;
}

void
WorkloadExecutor::FreeRecords(const JobWindow::Range& r)
{
    // Its messages' PSN owner entries: the oldest of each of its connections' QPs (a
    // connection's messages are posted in order, and the earlier units' are gone).
    // In pointer order, each once (as a std::set of them had them, without a node each).
    std::vector<const Connection*> connections;
    connections.reserve(r.end.transfer - r.first.transfer);
    for (uint64_t t = r.first.transfer; t < r.end.transfer; ++t)
    {
        if (const Connection* c = m_transferConnection[t])
        {
            connections.push_back(c);
        }
    }
    std::sort(connections.begin(), connections.end(), std::less<const Connection*>());
    connections.erase(std::unique(connections.begin(), connections.end()), connections.end());
    for (const Connection* c : connections)
    {
        // ... and their delivered-message history at the responders (late duplicates of a
        // retired transfer are not counted: OnLateDuplicate).
        for (const auto& peer : c->peers)
        {
            peer->ForgetDelivered(r.first.transfer, r.end.transfer);
        }
        for (const auto& o : c->owners)
        {
            auto& first = o->first;
            auto end = first.begin();
            while (end != first.end() && end->second >= r.first.transfer &&
                   end->second < r.end.transfer)
            {
                ++end;
            }
            first.erase(first.begin(), end);
        }
    }
    // Its lists now (a page shared with the next unit is freed only with it), then its pages.
    for (uint64_t t = r.first.transfer; t < r.end.transfer; ++t)
    {
        ReleaseRecord(static_cast<uint32_t>(t));
    }
    // Every transfer of a retired unit started (it finished).
    CountStartedHeld(-static_cast<int64_t>(r.end.transfer - r.first.transfer));
    m_records.Release(r.first.transfer, r.end.transfer);
    m_transferConnection.Release(r.first.transfer, r.end.transfer);
}

void
WorkloadExecutor::ReleaseSpecsAndTriggers(const JobWindow::Range& r)
{
    m_window->Drop(r);
    m_waiters.Release(r.first.trigger, r.end.trigger);
    m_activations.Release(r.first.trigger, r.end.trigger);
    m_fired.Release(r.first.trigger, r.end.trigger);
    m_firedPs.Release(r.first.trigger, r.end.trigger);
    m_multishotNext.Release(r.first.trigger, r.end.trigger);
    CountLive(-static_cast<int64_t>(r.end.transfer - r.first.transfer));
}

bool
WorkloadExecutor::Retired(uint32_t t) const
{
    if (!m_window || t >= m_restFirst)
    {
        return false;
    }
    return m_window->KeepsRecords() ? t < m_recordsFreedEnd : m_window->Transfer(t) == nullptr;
}

void
WorkloadExecutor::ForEachLiveId(const std::function<void(uint32_t)>& fn) const
{
    if (m_records.size() == 0)
    {
        return; // released (ReleaseRecords)
    }
    if (m_window && m_window->KeepsRecords())
    {
        // every record is kept, but those freed (SetFinalUnitCallback)
        for (uint64_t t = m_recordsFreedEnd; t < m_restFirst; ++t)
        {
            fn(static_cast<uint32_t>(t));
        }
    }
    else if (m_window)
    {
        for (const auto& r : m_window->LiveRanges())
        {
            for (uint64_t t = r.first.transfer; t < r.end.transfer; ++t)
            {
                fn(static_cast<uint32_t>(t));
            }
        }
    }
    for (uint64_t t = m_restFirst; t < m_transfers; ++t)
    {
        fn(static_cast<uint32_t>(t));
    }
}

} // namespace ns3
