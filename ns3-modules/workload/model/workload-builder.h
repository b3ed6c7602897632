/*
 * tusk: WorkloadBuilder, lowers collective schedules onto hosts with NCCL-like execution.
 *
 * Pure (no ns-3 objects, no Simulator): it appends transfers and triggers to a WorkloadSpec.
 *
 * NCCL-like execution of one CollectiveSchedule (collective-schedule.h):
 *  - channels: every op's bytes are split over C channels (NCCL_MIN/MAX_NCHANNELS); channel c of
 *    a communicator has its own connection (qpGroup = the communicator's base + c), hence its own
 *    QPs and entropy. Channel c may use its own rank order (hostsPerChannel), as NCCL's rings do.
 *  - chunking: each op's share on a channel is cut into K slices of at most chunkBytes
 *    (NCCL's chunk / slice); slice s of an op waits only for slice s of the ops it depends on,
 *    so a step forwards the first chunk as soon as it arrived (pipelining).
 *  - dependencies: a transfer waits for the recv-done (input arrived at its source) or the
 *    send-done (own previous send acknowledged) of its dependencies, the rule of
 *    collective-schedule.h: a ONESHOT trigger for one dependency, a BARRIER for several.
 *
 * Split, exact: op bytes b -> channel c: b_c = floor(b / C) + (c < b mod C); slice s of that:
 * floor(b_c / K) + (s < b_c mod K). K = ceil(ceil(maxOp / C) / chunkBytes), capped at
 * maxSlices and at floor(minOp / C) so that every piece has a byte; C is lowered to the
 * smallest op's bytes if that is smaller (NCCL also uses fewer channels for small messages).
 *
 * Transfer order: op, then channel, then slice, so one connection posts its slices in order.
 */
#ifndef TUSK_WORKLOAD_BUILDER_H
#define TUSK_WORKLOAD_BUILDER_H

#include "collective-schedule.h"
#include "workload-spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** How one collective is executed (NCCL-like). */
struct ExecutionOptions
{
    uint32_t channels = 1;   //!< C, channels (each its own connection), >= 1
    uint64_t chunkBytes = 0; //!< slice size per op and channel, bytes; 0 = one slice
    uint32_t maxSlices = 64; //!< cap on slices per op and channel, >= 1
    uint32_t qps = 0;        //!< QPs per connection; 0 = the executor's QpsPerConnection
    uint8_t priority = 3;    //!< traffic class of the transfers
};

/** When a collective's dependency-free ops start. */
struct StartCondition
{
    int32_t trigger = -1; //!< -1: at timePs (absolute); else when this trigger fires ...
    uint64_t timePs = 0;  //!< ... plus timePs (a delay), ps
};

/**
 * \brief Appends collectives, barriers and plain transfers to a WorkloadSpec it does not own.
 * The spec must outlive the builder. Transfer externalIds are their indices.
 */
class WorkloadBuilder
{
  public:
    explicit WorkloadBuilder(WorkloadSpec& spec);

    /**
     * \brief Reserve `count` consecutive qpGroup values for a communicator's channels.
     * \return the first; qpGroups of connections the builder has not handed out are never reused
     */
    uint32_t AllocateConnections(uint32_t count);

    /**
     * \brief Append one collective.
     *
     * \param schedule        the ops, in rank space (empty: a collective with no transfers)
     * \param hostsPerChannel host of each rank, one vector of `schedule.ranks` distinct hosts
     *                        per channel, or a single vector used by every channel
     * \param options         channels, chunking, QPs, priority
     * \param start           when the dependency-free ops start
     * \param qpGroupBase     connections are (src, dst, qpGroupBase + channel)
     * \param info            label fields copied into the CollectiveSpec (job, iteration, name,
     *                        group); kind, ranks, bytes, factor, channels, steps, algorithm and
     *                        slices are set here
     * \return the collective's index in spec.collectives
     * \throws InputError key "workload.hosts" (wrong host count, duplicates in a channel),
     *         "workload.channels" (0 channels), "workload.transfers" (more than kMaxTransfers)
     */
    uint32_t AddCollective(const CollectiveSchedule& schedule,
                           const std::vector<std::vector<uint32_t>>& hostsPerChannel,
                           const ExecutionOptions& options,
                           const StartCondition& start,
                           uint32_t qpGroupBase,
                           const CollectiveSpec& info = CollectiveSpec());

    /**
     * \brief A BARRIER trigger that fires when every transfer of the given collectives has been
     * delivered (recv-done). \return its index, or -1 when they have no transfers
     */
    int32_t AddBarrier(const std::vector<uint32_t>& collectives);

    /** \brief Append one plain transfer (externalId, qpGroup set here). \return its index */
    uint32_t AddTransfer(TransferSpec t);

    /** Transfers of collective c: indices [first, second). */
    std::pair<size_t, size_t> TransfersOf(uint32_t c) const { return m_ranges.at(c); }

    /** Largest transfer count a workload may reach (memory guard). */
    static constexpr size_t kMaxTransfers = 10'000'000;

    /** \brief Append a trigger (externalId = its index). \return its index */
    uint32_t AddTrigger(TriggerSpec::Kind kind, uint32_t threshold);

  private:
    void CheckRoom(size_t more) const;

    WorkloadSpec& m_spec;
    uint32_t m_nextQpGroup = 0;
    std::vector<std::pair<size_t, size_t>> m_ranges;
};

/**
 * \brief The transfers that can never start: they wait for a trigger that cannot collect the
 * activations it needs (a BARRIER or ONESHOT with fewer live activators than its threshold, a
 * MULTISHOT with fewer live activators than the waiters before them), where an activator is
 * live unless it is itself a transfer that can never start, or a trigger (TriggerSpec::onFire)
 * that can never fire; a trigger with atStart needs no activator. Fixed point over the trigger graph;
 * O(transfers + trigger references) per round.
 * \return their indices, increasing
 */
std::vector<uint32_t> TransfersThatCannotStart(const WorkloadSpec& spec);

} // namespace ns3

#endif
