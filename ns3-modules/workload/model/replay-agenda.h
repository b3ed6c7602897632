/*
 * tusk: ReplayAgenda, the pending actions of fast mode's replayed transfers (the start,
 * delivery and acknowledgement of each, WorkloadExecutor::SetReplay) grouped into batches, one
 * simulator event per batch instead of one per action.
 *
 * Pure (no ns-3 objects, no Simulator): the executor asks it where an action goes, schedules
 * one event for each new batch, and runs the batch's actions in order when that event runs.
 *
 * Order. The simulator runs the events of one time in the order they were scheduled, and a
 * replayed run must make the same choices as if every action were its own event (a trigger
 * fired first starts its waiters first, and so on). An action therefore joins the open batch
 * of its time only when nothing else has been scheduled since that batch's last action was
 * added (the caller passes the count of events others scheduled, e.g. the kernel's count minus
 * the agenda's own events); otherwise it opens a new batch, whose event then runs after
 * whatever was scheduled in between, as the action's own event would have. Events the
 * agenda's own batches add for other times do not break a batch: they cannot run between two
 * actions of one time. A batch is closed when its event starts running; an action added for
 * that same time then opens a new batch, run after the events already due then, as its own
 * event would have been. So the actions run in exactly the order of one event each.
 */
#ifndef TUSK_REPLAY_AGENDA_H
#define TUSK_REPLAY_AGENDA_H

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

class ReplayAgenda
{
  public:
    /** What happens to a replayed transfer. */
    enum Kind : uint8_t
    {
        START,        //!< it starts (WorkloadExecutor::StartTransfer)
        DELIVERED,    //!< its last byte is delivered
        ACKNOWLEDGED, //!< its last byte is acknowledged
    };
    struct Action
    {
        uint32_t transfer = 0;
        Kind kind = START;
    };
    /** `foreign` value that never lets an action join a batch (one batch, one event each). */
    static constexpr uint64_t kNeverJoin = UINT64_MAX;

    /**
     * \brief Add `action` for time `atPs`.
     * \param foreign events scheduled by others so far (a count that only grows), or
     *        kNeverJoin
     * \return the batch it went into, and whether that batch is new (the caller then
     *         schedules one event for it at atPs and passes the batch to Take when it runs)
     */
    std::pair<uint32_t, bool> Add(uint64_t atPs, Action action, uint64_t foreign);

    /**
     * \brief The event of `batch` runs: close it and hand over its actions, in the order
     * they were added. Give the vector back with Recycle once they have run (actions added
     * meanwhile go to other batches).
     */
    std::vector<Action> Take(uint32_t batch);
    /** Return a vector Take handed over (its capacity is reused). */
    void Recycle(std::vector<Action>&& actions);

    /** Actions added and not yet taken. */
    uint64_t Pending() const { return m_pending; }
    /** Batches opened so far (each one event). */
    uint64_t BatchesOpened() const { return m_opened; }
    /** Forget everything (the batches' events must not run afterwards). */
    void Clear();

  private:
    struct Batch
    {
        uint64_t atPs = 0;
        uint64_t foreign = 0;        //!< `foreign` when its last action was added
        std::vector<Action> actions; //!< empty when free
        bool open = false;
    };
    std::vector<Batch> m_batches;
    std::vector<uint32_t> m_free;                     //!< batch slots not in use
    using OpenMap = std::unordered_map<uint64_t, uint32_t>;
    OpenMap m_openAt;                                 //!< time -> its open batch
    /** Entries taken out of m_openAt (C++17 node handles), reused by the next insertion so
     *  that opening and closing a batch allocates nothing. */
    std::vector<OpenMap::node_type> m_openNodes;
    std::vector<std::vector<Action>> m_spare;         //!< recycled action vectors
    uint64_t m_pending = 0;
    uint64_t m_opened = 0;
};

} // namespace ns3

#endif
