/*
 * tusk: WorkloadExecutor, runs a WorkloadSpec on the fabric's RdmaNics.
 */
#ifndef TUSK_WORKLOAD_EXECUTOR_H
#define TUSK_WORKLOAD_EXECUTOR_H

#include "flat-index.h"
#include "job-window.h"
#include "paged-array.h"
#include "replay-agenda.h"
#include "scale-up-domain.h"
#include "workload-spec.h"

#include "rdma/model/rdma-nic.h"

#include "ns3/callback.h"
#include "ns3/event-impl.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ns3
{

class LeanSimulatorImpl;

/** What happened to one transfer but its path and message lists (TransferRecord): flags,
 *  times in ps (valid when the matching flag is set) and counters. */
struct TransferCounters
{
    bool started = false;
    bool recvDone = false; //!< every byte delivered at the receiver
    bool sendDone = false; //!< every byte acknowledged at the sender
    uint64_t startPs = 0;
    uint64_t recvDonePs = 0;
    uint64_t sendDonePs = 0;
    uint64_t deliveredBytes = 0; //!< bytes of completed messages (see DeliveredBytes)
    uint64_t retxPackets = 0;    //!< data packets retransmitted for it
    uint64_t retxBytes = 0;      //!< their payload bytes
    uint64_t retxTimeoutPackets = 0; //!< of retxPackets, sent after a retransmission timeout
    uint64_t oooPackets = 0;     //!< data packets that arrived out of order while it was received
    uint64_t reorderMax = 0;     //!< largest PSN - ePSN of those, packets
    uint64_t reorderSum = 0;     //!< sum of PSN - ePSN of those, packets
    uint64_t naks = 0;           //!< NAKs (or SACK-NAKs) its receivers sent
    uint64_t duplicates = 0;     //!< spurious retransmissions: packets that arrived twice
    uint32_t qps = 0;            //!< QPs it was spread over
    uint16_t entropy = 0;        //!< UDP source port of its first QP
    // Its data frames, by PSN (per-flow packet conservation: sent = received + dropped + in
    // flight). Counted from the QPs' PacketSent / PacketRetransmitted / PacketReceived traces
    // and OnDataDropped; 0 for transfers inside a scale-up server.
    uint64_t pktsSent = 0;     //!< data frames sent: first copies and resends
    uint64_t pktsReceived = 0; //!< data frames that reached the receiving QP (any kind)
    std::array<uint64_t, static_cast<size_t>(DropReason::COUNT)> pktsDropped{}; //!< by DropReason
    uint32_t pendingRecv = 0; //!< messages not yet delivered
    uint32_t pendingSend = 0; //!< messages not yet acknowledged
};

/** What happened to one transfer: its counters (TransferCounters) and the lists of its paths
 *  and messages. */
struct TransferRecord : TransferCounters
{
    /** The paths its data frames arrived by: (FrameMeta::path, frames), in order of first
     *  arrival (kUnknownPath for frames whose path did not fit). Counted at the receiving QP
     *  (PacketReceived), so frames dropped on the way are not in it. */
    std::vector<std::pair<uint64_t, uint64_t>> paths;
    /** The messages it was posted as, in order: (QP index in its connection, bytes). */
    std::vector<std::pair<uint32_t, uint64_t>> messages;
    /** Fast mode, a replayed transfer (WorkloadExecutor::SetReplay): the pooled record it
     *  replays, whose path and message lists are this transfer's. Its own `paths` and
     *  `messages` then stay empty (they are not copied for every replayed transfer), and this
     *  pointer holds the pool until the record is freed. Null for a transfer posted on the
     *  NICs. Read the lists through Paths() and Messages(). */
    std::shared_ptr<const TransferRecord> counterpart;

    /** Its paths (see `paths`): its own, or its counterpart's when replayed. */
    const std::vector<std::pair<uint64_t, uint64_t>>& Paths() const
    {
        return counterpart ? counterpart->Paths() : paths;
    }
    /** Its messages (see `messages`): its own, or its counterpart's when replayed. */
    const std::vector<std::pair<uint32_t, uint64_t>>& Messages() const
    {
        return counterpart ? counterpart->Messages() : messages;
    }
};

/**
 * \brief Executes a transfer graph: starts transfers at their times or when their trigger
 * fires, posts them on RC QPs, and activates triggers on completion.
 *
 * A connection is (src, dst, qpGroup); it owns QpsPerConnection QPs (or the `qps` of its
 * first transfer, when set), created when its first transfer starts, with entropies (UDP
 * source ports) from the dynamic range chosen by QpEntropy: independent random ports,
 * consecutive ports from a random base, or one shared port; or (Routes) source routes assigned
 * deterministically: the j-th QP that source host h creates carries route
 * (h x QpsPerConnection + j) mod QpRoutes, sent as UDP source port 49152 + route (the
 * encoding of fabric/helper/source-routes.h), so the QPs of all connections of one host
 * take the routes in turn and each route carries the same number of them, within one.
 * QP scaling (QpScaling): Split cuts
 * a transfer as evenly as possible into one message per QP; RoundRobin cuts it into messages
 * of at most QpMessageBytes and posts them on the connection's QPs in turn, continuing across
 * transfers (as Meta's collective library does). A transfer is delivered when all its
 * messages are. Transfers of one connection run in post order.
 * Trigger semantics are htsim's (see TriggerSpec), plus triggers that fire at the start
 * (TriggerSpec::atStart) and triggers that activate other triggers after a delay
 * (TriggerSpec::onFire, delayPs: compute nodes of an execution trace).
 *
 * With a ScaleUpDomain, a transfer between two GPUs of one server is carried by it instead of
 * the NICs (no QPs; qps = 0 in its record).
 *
 * Watchdog: with StallTimeout > 0, every StallTimeout the executor checks for progress (a
 * transfer started or completed, a byte delivered on any QP, a transfer active in the scale-up
 * domain, or a start scheduled for later). Without any while transfers remain unfinished,
 * nothing can ever finish them (a dead link, a dependency that cannot fire): it calls the stall
 * callback once, and IsStalled() turns true. DescribeBlocked() then names what is stuck.
 */
class WorkloadExecutor : public Object
{
  public:
    /** "TransferStarted", "TransferDelivered" (every byte at the receiver),
     *  "TransferAcknowledged" (every byte acknowledged at the sender): the transfer's index
     *  in the WorkloadSpec; the time is Simulator::Now(). */
    typedef void (*TransferTracedCallback)(uint32_t transfer);

    static TypeId GetTypeId();
    WorkloadExecutor();

    /** \param nics the NIC of every host, indexed by host id; `spec` is copied */
    void Setup(const WorkloadSpec& spec, const std::vector<Ptr<RdmaNic>>& nics);
    /** \brief As above, sharing `spec` instead of copying it (a large workload is held once:
     *  the caller keeps reading it, e.g. for results, and must not change it). */
    void Setup(std::shared_ptr<const WorkloadSpec> spec, const std::vector<Ptr<RdmaNic>>& nics);
    /**
     * \brief Run jobs built iteration by iteration: `jobs` holds the jobs' plans and takes the
     * ids below its TransfersEnd() / TriggersEnd() / CollectivesEnd(); `rest` holds the other
     * transfers (background flows), transfer k with id TransfersEnd() + k, its trigger
     * references already global (TriggersEnd() + its index in rest.triggers). An iteration is
     * expanded when its start trigger fires and retired (its specs, records, trigger state and
     * PSN owner entries freed, after the retire callback) when it and the job's earlier
     * iterations have finished. Results by id are those of a whole build of the same jobs.
     * A window of other units (JobWindow::Units, e.g. a standalone ring's steps, ring-steps.h)
     * runs the same way; when its units keep their records (KeepsRecords), retiring frees
     * their specs and trigger state only, and GetTransfer / GetTrigger build a retired or
     * unexpanded unit's specs again (JobWindow::Rebuilt) for the rows built after the run.
     */
    void SetupLazy(std::shared_ptr<const WorkloadSpec> rest,
                   std::shared_ptr<JobWindow> jobs,
                   const std::vector<Ptr<RdmaNic>>& nics);
    /** Called with a job iteration's id ranges just before it is retired: its transfers,
     *  collectives and records are still readable (GetTransfer, GetCollective, GetRecord,
     *  RecordWithPending, DeliveredBytes). */
    void SetRetireCallback(std::function<void(const JobWindow::Range&)> cb) { m_retireCb = cb; }
    /**
     * \brief A window whose units keep their records (KeepsRecords: a standalone ring's
     * steps): free a retired unit's records when its rows are final, calling `cb` with its id
     * ranges first (its records, and its specs through GetTransfer, still readable: build its
     * rows then). Final: every transfer of it was sent without a retransmission, every data
     * frame it sent received and none dropped (TransferRecord::retxPackets 0, pktsSent =
     * pktsReceived), so once it is delivered and acknowledged no late duplicate or drop of it
     * can come; and every earlier unit's records were freed (rows come in id order). From the
     * first unit that is not final on, every record stays to the end, as without this call.
     * Freed with the records: the connection pointers, the PSN owner entries and the
     * responders' delivered history of its transfers (as a retired job iteration's).
     */
    void SetFinalUnitCallback(std::function<void(const JobWindow::Range&)> cb)
    {
        m_finalUnitCb = std::move(cb);
    }
    /** Transfers below this id had their records freed (SetFinalUnitCallback; 0: none). */
    uint64_t RecordsFreedBelow() const { return m_recordsFreedEnd; }
    /** Transfer t (of the spec, or of a live job iteration with SetupLazy). */
    const TransferSpec& GetTransfer(uint32_t t) const { return Tr(t); }
    /** Collective c (likewise). */
    const CollectiveSpec& GetCollective(int32_t c) const { return Coll(c); }
    /** Whether SetupLazy's jobs are running (ids below its TransfersEnd are built lazily). */
    const JobWindow* GetJobWindow() const { return m_window.get(); }
    /** Data frames of retired transfers (SetupLazy: their rows are built) that reached the
     *  receiving QP or were dropped after retirement: late duplicates of a transfer delivered
     *  and acknowledged, e.g. spurious retransmissions under spraying. Their rows counted them
     *  in flight; packet conservation subtracts these. */
    uint64_t RetiredFramesSettled() const { return m_retiredSettled; }
    /** Data frames the records of replayed transfers (SetReplay) count in flight: each
     *  copies its memo transfer's counters as they were when that iteration retired, so its
     *  row shows the frames packet mode had on the wire then (a spurious retransmission's
     *  copies still on their way after the last ACK), but a replay sends no frame and none
     *  of them exists. Summed over every replayed transfer (pkts_sent - pkts_received - the
     *  drops of its memo record, where positive); packet conservation subtracts these. */
    uint64_t ReplayedFramesInFlight() const { return m_replayedInFlight; }
    /** Transfers whose spec and record this executor holds now: every transfer from Setup to
     *  ReleaseRecords; with SetupLazy, the other transfers and the live iterations' only. */
    uint64_t LiveTransfers() const { return m_liveRecords; }
    int64_t AssignStreams(int64_t stream);
    /** Schedule the transfers that start by time. Call before Simulator::Run. */
    void Start();

    /** Called once when every transfer is delivered and acknowledged. */
    void SetAllDoneCallback(Callback<void> cb) { m_allDone = cb; }
    /**
     * \brief An observer scheduled an event that only reads state (the steady-state probe,
     * tusk's simulator.steady_probe). The replay agenda joins actions into one batch event only
     * while no other event was scheduled in between (AddReplayAction); it may join across such
     * an event as if it were not there, so that a run with the observer schedules the same
     * events as one without it.
     */
    void NoteReadOnlyEvent() { ++m_readOnlyEvents; }
    /**
     * \brief Keep the times of the starts and delayed trigger activations scheduled from now
     * on (an observer's horizon: the steady-state probe's). Off by default: nothing is kept.
     */
    void TrackPendingStarts() { m_trackPending = true; }
    /**
     * \brief The earliest transfer start or delayed trigger activation (TriggerSpec::onFire:
     * a compute node's end) scheduled and not yet past, ps: a triggered transfer's start
     * after its delay (a step after a compute delay) is known once its trigger fires;
     * UINT64_MAX when none is (or TrackPendingStarts was not called).
     */
    uint64_t NextPendingStartPs();
    /** Carry transfers between GPUs of one server on `domain` (call before Start). */
    void SetScaleUpDomain(Ptr<ScaleUpDomain> domain);
    Ptr<ScaleUpDomain> GetScaleUpDomain() const { return m_scaleUp; }
    /** Called once when the watchdog finds no progress for StallTimeout (see class doc). */
    void SetStallCallback(Callback<void> cb) { m_stallCb = cb; }
    bool IsStalled() const { return m_stalled; }
    /** Simulated time the stall was detected, ps (valid when IsStalled). */
    uint64_t GetStallPs() const { return m_stallPs; }
    /**
     * \brief Describe the unfinished transfers, at most `max` lines: for each collective with
     * unfinished transfers (then for the other transfers), the first transfer that is in flight
     * and its delivered bytes, or the first one that never started and the trigger it waits for
     * (kind, activations so far / needed).
     */
    std::vector<std::string> DescribeBlocked(size_t max = 8) const;
    /** Every transfer delivered and acknowledged, and no trigger activation still delayed
     *  (TriggerSpec::onFire: a compute node still running). */
    bool AllDone() const { return m_done == m_transfers && m_pendingActivations == 0; }
    /** When trigger g fired, ps; -1 if it has not. */
    int64_t GetTriggerFiredPs(uint32_t g) const { return m_firedPs[g]; }

    const WorkloadSpec& GetSpec() const { return *m_spec; }
    /** Transfer t's record (a default record once freed). */
    const TransferRecord& GetRecord(uint32_t t) const { return m_records[t]; }
    /** Transfers delivered and acknowledged so far, and in all. */
    size_t DoneTransfers() const { return m_done; }
    size_t TotalTransfers() const { return m_transfers; }
    /** Transfer t's record with the counts of its messages still in progress added (what a
     *  run that stopped early can say about an unfinished transfer). */
    TransferRecord RecordWithPending(uint32_t t) const;
    /**
     * \brief Free transfer t's path and message lists (TransferRecord::paths, messages, or
     * its hold on a replayed one's counterpart) once its result row is built: the rest of its record stays, so DeliveredBytes, AllDone and
     * DescribeBlocked still answer. Call after the run, never during it.
     */
    void ReleaseRecord(uint32_t t);
    /**
     * \brief After the run, when AllDone(): free every transfer record and the per-transfer
     * bookkeeping (waiters, PSN owners), keeping the trigger firing times. GetRecord(t) then reads a default record
     * empty and AllDone() stays true. Does nothing when transfers remain unfinished (their
     * records explain the failure: DescribeBlocked).
     * \return whether the records were freed
     */
    bool ReleaseRecords();
    /** Transfer records held by every executor of this process (count, one per transfer from
     *  Setup until ReleaseRecords or Dispose): what a run keeps per transfer until its results
     *  are collected. Regression tests check it drops to 0 once results are collected. */
    static uint64_t LiveRecords();
    /** Records of started transfers held by every executor of this process: one from a
     *  transfer's start until its record is freed (a retired job iteration's or final ring
     *  unit's, ReleaseRecords, Dispose). Unlike LiveRecords, what a ring's records cost. */
    static uint64_t StartedRecordsHeld();
    /** Bytes delivered for transfer t, including the part in progress on its QPs. */
    uint64_t DeliveredBytes(uint32_t t) const;
    /**
     * \brief Steady-state jump (docs/fast-mode.md, "The jump"): take up to `packets` full-MTU
     * data packets never sent out of transfer t's message (RdmaQueuePair::SkipUnsentPackets),
     * counted as sent, received and delivered: its record's pktsSent, pktsReceived and
     * deliveredBytes, its paths in proportion to the frames each carried so far (largest
     * remainders first, ties to the earlier path), both QPs' counters; the PSN owners of its
     * QP renumbered as the QP renumbers. Only a started transfer posted as one message on the
     * NICs (not replayed, not inside a scale-up server) can skip.
     * \return the packets taken (0: t cannot skip now)
     */
    uint64_t SkipPackets(uint32_t t, uint64_t packets);
    /** How many packets SkipPackets(t, ...) could take now (0: none). */
    uint64_t SkippablePackets(uint32_t t) const;
    /** Transfer t's payload bytes per data packet (its source NIC's MTU). */
    uint32_t MtuBytes(uint32_t t) const;
    /** Replayed transfers' completions scheduled and not yet run (fast mode). */
    uint64_t PendingReplays() const { return m_pendingReplays; }
    /**
     * \brief Count a dropped frame for its transfer (call from a "Drop" trace sink). DATA
     * frames are matched by destination host, destination QP and FrameMeta::psn; other frames
     * and frames of unknown QPs are ignored.
     */
    void OnDataDropped(const FrameMeta& meta, DropReason reason);

    /**
     * \brief Fast mode (iteration-memo.h): `hook` is called with a trigger's index when it
     * fires, before the transfers waiting on it are scheduled (an event the hook schedules
     * for the time one of them starts runs before that start).
     */
    void SetFireHook(Callback<void, uint32_t> hook) { m_fireHook = hook; }
    /**
     * \brief Fast mode: when transfer first + k starts (k < records->size()), do not post it
     * on the NICs; copy records[k]'s counters, QPs and entropy (a finished transfer's record)
     * and point at records[k] for its path and message lists (TransferRecord::counterpart,
     * not copied), and complete the transfer (delivered, acknowledged, with the triggers that
     * activates) after the delays records[k] took from its start. `records` is shared, not
     * copied (the memo's iteration); it is held until the range is retired (SetupLazy) or the
     * executor disposed, and by each record replayed from it until that record is freed.
     * Call before the transfers start.
     *
     * A replayed transfer's start (once it is known to be replayed), delivery and
     * acknowledgement are actions of a ReplayAgenda: actions of one time that follow each
     * other with nothing else scheduled in between share one event, run in the order their
     * own events would have run (replay-agenda.h). Under a kernel other than
     * LeanSimulatorImpl, every action is its own event.
     */
    void SetReplay(uint64_t first, std::shared_ptr<const std::vector<TransferRecord>> records);
    /** Fast mode: called with a job iteration's id ranges when it is expanded (SetupLazy),
     *  before any of its transfers is scheduled (an event it schedules for the time one of
     *  them starts runs before that start). */
    void SetExpandHook(std::function<void(const JobWindow::Range&)> hook) { m_expandHook = hook; }
    /** Fast mode: called with a job iteration's id ranges just before it is retired, before
     *  the retire callback (its records are still readable). */
    void SetRetireHook(std::function<void(const JobWindow::Range&)> hook) { m_retireHook = hook; }
    /** Trigger g (of the spec, or of a live job iteration with SetupLazy; a default trigger
     *  otherwise). */
    const TriggerSpec& GetTrigger(uint32_t g) const { return Tg(g); }
    /** Transfers replayed so far (SetReplay, started). */
    uint64_t GetReplayedTransfers() const { return m_replayed; }
    /** The round-robin QP cursor of every connection, in the order the connections were
     *  created (QpScaling RoundRobin: where the next message goes; a new connection's is 0);
     *  fast mode compares them. */
    std::vector<uint32_t> GetQpCursors() const;

    /** Every QP created (requester side), for counters. */
    const std::vector<Ptr<RdmaQueuePair>>& GetQps() const { return m_allQps; }

    /**
     * \brief The QPs each host's NIC will create for `spec`, before running it: every
     * connection (src, dst, qpGroup) not inside one scale-up server makes its QP count (the
     * transfer's `qps`, or `qpsPerConnection` when 0) of QPs at the source and as many peers at
     * the destination, and QPs are never released. A count above RdmaNic::kMaxQps cannot be
     * numbered (24-bit BTH QPN); check it before the run, where it is an input error.
     * \param gpusPerServer hosts per scale-up server (ScaleUpDomain::SameServer); 1 = none
     * \return QPs per host id, size numHosts (transfers naming other hosts are skipped)
     */
    static std::vector<uint64_t> QpsPerHost(const WorkloadSpec& spec,
                                            uint32_t numHosts,
                                            uint32_t qpsPerConnection,
                                            uint32_t gpusPerServer);

  protected:
    void DoDispose() override;

  public:
    /** How a transfer is spread over a connection's QPs. */
    enum QpScaling
    {
        SPLIT = 0,       //!< one equal part per QP
        ROUND_ROBIN = 1, //!< QpMessageBytes messages, QP after QP
    };
    /** How the QPs of a connection choose their UDP source ports. */
    enum QpEntropy
    {
        RANDOM_PORTS = 0,     //!< each QP its own random port
        SEQUENTIAL_PORTS = 1, //!< base, base + 1, ... from a random base
        SHARED_PORT = 2,      //!< every QP the same random port
        ROUTES = 3,           //!< source routes, balanced per source host (see class doc)
    };

  private:
    /** The transfers of one QP's PSN space: message k starts at first[k].first. */
    struct PsnOwners
    {
        WorkloadExecutor* exec = nullptr;
        std::vector<std::pair<uint64_t, uint32_t>> first; //!< (first PSN, transfer), post order
        uint64_t end = 0;                                 //!< next PSN to assign
        /** The transfer PSN `psn` belongs to, or nullptr beyond what was posted. */
        TransferRecord* RecordOf(uint64_t psn) const;
        static void OnSent(PsnOwners* o, uint64_t psn, uint32_t bytes, uint16_t entropy);
        static void OnReceived(PsnOwners* o, uint64_t psn, bool trimmed, uint64_t path,
                               uint16_t entropy, bool resent);
    };

    struct Connection
    {
        std::vector<Ptr<RdmaQueuePair>> qps;   //!< requester side, at src
        std::vector<Ptr<RdmaQueuePair>> peers; //!< responder side, at dst
        std::vector<std::unique_ptr<PsnOwners>> owners; //!< per QP (trace sinks point here)
        uint32_t nextQp = 0;                   //!< round-robin: the next message's QP
    };

    Connection& GetConnection(const TransferSpec& t);
    void StartTransfer(uint32_t t);
    void ScheduleStart(uint32_t t);
    void Activate(uint32_t trigger);
    /** Mark the trigger fired: start its waiters, schedule its onFire activations. */
    void Fire(uint32_t trigger);
    void DelayedActivate(uint32_t trigger);
    void OnRecvDone(uint64_t cookie, const RecvMessageStats& stats);
    /** A duplicate of a packet of transfer `cookie` arrived after its message was delivered. */
    void OnLateDuplicate(uint64_t cookie);
    void OnSendDone(uint64_t cookie, const SendMessageStats& stats);
    void PostMessage(Connection& c, uint32_t qp, uint32_t t, uint64_t bytes);
    void CheckDone(uint32_t t);
    /** Every byte of t delivered / acknowledged: record the time, fire the trace, activate
     *  its triggers. */
    void CompleteRecv(uint32_t t);
    void CompleteSend(uint32_t t);
    /** Replay transfer t from record k of `pool` (SetReplay). */
    void ReplayTransfer(uint32_t t,
                        const std::shared_ptr<const std::vector<TransferRecord>>& pool,
                        uint64_t k);
    /** SetReplay's pool and index for transfer t: (the pool, k), or (nullptr, 0) when t is
     *  not replayed. */
    std::pair<const std::shared_ptr<const std::vector<TransferRecord>>*, uint64_t> ReplaySlot(
        uint32_t t) const;
    /** SetReplay's record for transfer t, or nullptr. */
    const TransferRecord* ReplayRecord(uint32_t t) const;
    void ReplayRecvDone(uint32_t t);
    void ReplaySendDone(uint32_t t);
    /** Put a replay action `delayPs` from now on the agenda (scheduling its batch's event if
     *  it opens one). */
    void AddReplayAction(uint64_t delayPs, uint32_t t, ReplayAgenda::Kind kind);
    /** The event of an agenda batch: run its actions in order. */
    void RunReplayBatch(uint32_t batch);
    /**
     * The event of agenda batch slot `batch` (RunReplayBatch), kept and scheduled again for
     * every batch the slot holds instead of an EventImpl allocated per batch (as MemberEvent,
     * fabric/model/kernel/member-event.h): a slot is reused only once its batch's event runs,
     * so each has at most one invocation pending. Cleared when the executor is disposed.
     */
    class BatchEvent : public EventImpl
    {
      public:
        BatchEvent(WorkloadExecutor* exec, uint32_t batch)
            : m_exec(exec),
              m_batch(batch)
        {
        }
        /** The executor is going away: a pending invocation does nothing. */
        void Clear() { m_exec = nullptr; }

      private:
        void Notify() override;
        WorkloadExecutor* m_exec;
        uint32_t m_batch;
    };
    void CheckStall();
    void OnScaleUpRecvDone(uint32_t t);
    void OnScaleUpSendDone(uint32_t t);
    // Jobs built iteration by iteration (workload-executor-window.cc).
    const TransferSpec& Tr(uint32_t t) const;
    const TriggerSpec& Tg(uint32_t g) const;
    const CollectiveSpec& Coll(int32_t c) const;
    /** Register expanded iterations' transfers: waiters, live counts; schedule the untriggered
     *  ones if `scheduleUntriggered`. */
    void Register(const std::vector<JobWindow::Range>& ranges, bool scheduleUntriggered);
    /** Free a finished iteration (see SetupLazy). */
    void Retire(const JobWindow::Range& range);
    /** Free the records of retired unit `range` and their PSN owner entries, responders'
     *  history and connection pointers. */
    void FreeRecords(const JobWindow::Range& range);
    /** Whether retired unit `range`'s rows are final (SetFinalUnitCallback). */
    bool Final(const JobWindow::Range& range) const;
    /** Free a retired unit's specs (the window's fragment) and its triggers' state. */
    void ReleaseSpecsAndTriggers(const JobWindow::Range& range);
    /** Whether transfer t belonged to a retired iteration. */
    bool Retired(uint32_t t) const;
    /** Add `delta` to the started transfers' records held (StartedRecordsHeld). */
    void CountStartedHeld(int64_t delta);
    /** Add `delta` to the transfers held (LiveTransfers, LiveRecords). */
    void CountLive(int64_t delta);
    /** Calls fn with the id of every transfer held, increasing (not a list of them: a ring
     *  keeps every record, 134 M ids at 8,192 ranks). */
    void ForEachLiveId(const std::function<void(uint32_t)>& fn) const;

    std::shared_ptr<const WorkloadSpec> m_spec = std::make_shared<const WorkloadSpec>();
    std::vector<Ptr<RdmaNic>> m_nics;
    uint32_t m_qpsPerConnection = 1;
    QpScaling m_qpScaling = SPLIT;
    uint64_t m_qpMessageBytes = 512 * 1024;
    QpEntropy m_qpEntropy = RANDOM_PORTS;
    uint32_t m_qpRoutes = 1;                   //!< Routes: the routes QPs take in turn
    std::map<uint32_t, uint32_t> m_routeQps;   //!< Routes: QPs created so far, per source host
    Ptr<UniformRandomVariable> m_entropyRng;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Connection> m_connections;
    /** m_connectionIndex's hash of (src, dst, qpGroup). */
    struct ConnectionKeyHash
    {
        size_t operator()(const std::tuple<uint32_t, uint32_t, uint32_t>& k) const
        {
            const uint64_t a = (static_cast<uint64_t>(std::get<0>(k)) << 32) | std::get<1>(k);
            return std::hash<uint64_t>()((a * 0x9E3779B97F4A7C15ULL) ^ std::get<2>(k));
        }
    };
    /** The connections of m_connections that have their QPs, by (src, dst, qpGroup), hashed:
     *  GetConnection's lookup for every posted or replayed transfer, without the map's walk
     *  (at 8,192 hosts a cache miss per level; the map and its order stay for the iterations
     *  over it), in a FlatIndex (one cache line a lookup, where an unordered_map's bucket and
     *  nodes took three). Its pointers stay valid: a map's elements do not move. */
    FlatIndex<std::tuple<uint32_t, uint32_t, uint32_t>, Connection*, ConnectionKeyHash>
        m_connectionIndex;
    PagedArray<const Connection*> m_transferConnection;
    PagedArray<TransferRecord> m_records;
    size_t m_transfers = 0;      //!< transfers in the spec (m_records may be released)
    uint64_t m_liveRecords = 0;  //!< m_records.size(), counted in LiveRecords()
    uint64_t m_retiredSettled = 0; //!< see RetiredFramesSettled
    uint64_t m_replayedInFlight = 0; //!< see ReplayedFramesInFlight
    uint64_t m_startedHeld = 0;    //!< records of started transfers held (StartedRecordsHeld)
    uint64_t m_recordsFreedEnd = 0; //!< see RecordsFreedBelow
    std::function<void(const JobWindow::Range&)> m_finalUnitCb; //!< SetFinalUnitCallback
    PagedArray<std::vector<uint32_t>> m_waiters; //!< per trigger, transfers waiting, in order
    PagedArray<uint32_t> m_activations;
    PagedArray<bool> m_fired;
    PagedArray<int64_t> m_firedPs; //!< per trigger, when it fired, ps (-1: not yet)
    uint64_t m_pendingActivations = 0; //!< onFire activations scheduled and not yet run
    PagedArray<uint32_t> m_multishotNext;
    std::shared_ptr<JobWindow> m_window;  //!< SetupLazy's jobs, or none
    uint64_t m_restFirst = 0;             //!< id of m_spec->transfers[0]
    uint64_t m_restTriggerFirst = 0;      //!< id of m_spec->triggers[0]
    uint64_t m_restCollectiveFirst = 0;   //!< id of m_spec->collectives[0]
    std::function<void(const JobWindow::Range&)> m_retireCb;
    std::vector<Ptr<RdmaQueuePair>> m_allQps;
    TracedCallback<uint32_t> m_startedTrace;
    TracedCallback<uint32_t> m_deliveredTrace;
    TracedCallback<uint32_t> m_acknowledgedTrace;
    std::vector<Ptr<RdmaQueuePair>> m_allPeers; //!< responder QPs, for the watchdog
    /** (destination host, its QPN) -> the PSN owners of that QP pair, for dropped frames. */
    std::map<std::pair<uint32_t, uint32_t>, const PsnOwners*> m_ownersByDst;
    size_t m_done = 0;
    Callback<void> m_allDone;
    Ptr<ScaleUpDomain> m_scaleUp;
    Time m_stallTimeout;
    Callback<void> m_stallCb;
    bool m_stalled = false;
    uint64_t m_stallPs = 0;
    uint64_t m_pendingStarts = 0; //!< starts scheduled and not yet run
    uint64_t m_progress = 0;      //!< starts and completions so far
    uint64_t m_lastProgress = 0;
    uint64_t m_lastDelivered = 0;
    Callback<void, uint32_t> m_fireHook;  //!< SetFireHook
    /** SetReplay: first transfer of a replayed range -> the records it replays. */
    std::map<uint64_t, std::shared_ptr<const std::vector<TransferRecord>>> m_replays;
    std::function<void(const JobWindow::Range&)> m_expandHook; //!< SetExpandHook
    std::function<void(const JobWindow::Range&)> m_retireHook; //!< SetRetireHook
    uint64_t m_pendingReplays = 0;        //!< replayed completions scheduled and not yet run
    ReplayAgenda m_agenda;                //!< replay actions, in batches (AddReplayAction)
    std::vector<Ptr<BatchEvent>> m_batchEvents; //!< by agenda batch slot, made on first use
    /** The kernel, when it is LeanSimulatorImpl (it counts the events scheduled), else null. */
    const LeanSimulatorImpl* m_kernel = nullptr;
    bool m_kernelKnown = false;           //!< m_kernel looked up
    uint64_t m_agendaEvents = 0;          //!< events the agenda's batches scheduled
    uint64_t m_readOnlyEvents = 0;        //!< NoteReadOnlyEvent's events
    bool m_trackPending = false;          //!< TrackPendingStarts
    /** The scheduled starts' and activations' times, ps (a min-heap; past ones are dropped
     *  when NextPendingStartPs looks). */
    std::vector<uint64_t> m_pendingTimes;
    uint64_t m_replayed = 0;
};

} // namespace ns3

#endif
