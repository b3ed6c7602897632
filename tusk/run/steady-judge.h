/*
 * tusk: SteadyJudge, the steady-state judgement of the steady-state probe
 * (`simulator.steady_probe`, docs/fast-mode.md, "Steady-state fast-forward within an
 * iteration"): pure logic over windows of samples, no Simulator, so that it can be unit
 * tested and the fast-forward built later can reuse it.
 */
#ifndef TUSK_STEADY_JUDGE_H
#define TUSK_STEADY_JUDGE_H

#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace tusk
{

/**
 * \brief What the probe saw of the whole fabric in one window of simulated time: the flows
 * active at its end with their progress in it, every switch egress queue at its end, every
 * active QP's congestion-control state at its end, and the counts of events in it.
 */
struct SteadyWindow
{
    /** An active transfer (started, not yet acknowledged). */
    struct Flow
    {
        uint32_t id = 0;             //!< transfer id
        uint64_t windowBytes = 0;    //!< payload bytes delivered in the window, bytes
        uint64_t remainingBytes = 0; //!< payload bytes not yet delivered at the window's end
    };
    /** An active QP's congestion-control state (RdmaCcState's words; NaN = not kept). */
    struct Cc
    {
        uint64_t qp = 0; //!< the QP's index among the executor's QPs
        /** rate (bit/s), target rate (bit/s), alpha (0..1), window (bytes) */
        std::array<double, 4> words{};
    };

    uint64_t endPs = 0;            //!< the window's end, ps
    std::vector<Flow> flows;       //!< sorted by id
    std::vector<uint64_t> queues;  //!< every switch egress port's queued bytes, fixed order
    std::vector<Cc> cc;            //!< sorted by qp
    uint32_t flowStarts = 0;       //!< transfers started in the window
    uint32_t flowEnds = 0;         //!< transfers acknowledged in the window
    uint64_t pfcFrames = 0;        //!< PFC frames (PAUSE or RESUME) sent in the window
    uint64_t drops = 0;            //!< frames dropped in the window
    uint64_t ecnMarks = 0;         //!< frames CE-marked in the window
    bool failure = false;          //!< a scheduled failure or repair fell in the window
    /** Fast mode replays an active transfer (its delivery is not simulated packet by packet,
     *  so its bytes per window say nothing of a steady state). */
    bool replayed = false;
    /** An active QP's congestion control has state beyond its words (StateIsComplete is
     *  false): a jump would have to carry that state too. */
    bool ccPartial = false;
};

/** Why the fabric was not steady over the last K windows (or that it was). */
enum class SteadyReason : uint8_t
{
    STEADY,
    WARMING,    //!< fewer than K windows probed since the run started
    IDLE,       //!< no active transfer at the newest window's end: nothing to skip
    REPLAYED,   //!< fast mode replayed an active transfer in one of the K windows
    FAILURE,    //!< a scheduled failure or repair in one of the K windows
    FLOW_START, //!< a transfer started in one of the K windows
    FLOW_END,   //!< a transfer was acknowledged in one of the K windows
    PFC,        //!< a PFC frame was sent in one of the K windows
    DROP,       //!< a frame was dropped in one of the K windows
    STALLED,    //!< transfers are active but none delivered a byte in a window (a timeout)
    ECN_REGIME, //!< some of the K windows had CE marks and some had none
    RATE,       //!< a transfer's bytes per window varied beyond the tolerance
    QUEUE,      //!< a switch queue's length varied beyond the tolerance
    CC_STATE,   //!< a QP's congestion-control state varied beyond the tolerance
    COUNT,
};

/** The manifest's name of a reason ("flow_start", "pfc", ...). */
const char* SteadyReasonName(SteadyReason r);

/** What the judgement allows. */
struct SteadyParams
{
    uint32_t windows = 3;           //!< K: windows that must agree, >= 2
    double tolerance = 0.02;        //!< relative variation allowed (rates, queues, CC state)
    uint64_t windowPs = 0;          //!< W, ps (the horizon's margin is K W)
    /** A transfer's bytes per window may differ by this much whatever the tolerance: a
     *  window's edge cuts at a packet, so one MTU of payload, bytes. */
    uint64_t rateFloorBytes = 4096;
    /** A queue may differ by this much whatever the tolerance (two frames), bytes. */
    uint64_t queueFloorBytes = 8392;
    /** Bounded jumps, checked again: 0 (the default) lets a jump run to its horizon. N > 0
     *  bounds each jump to a number of spans (the K windows' span, K W) that starts at 1,
     *  doubles after each jump whose credit agreed with what was delivered (within the
     *  tolerance, measured at the first window after the jump) up to N, and falls back to 1
     *  after one that did not. */
    uint32_t maxJumpSpans = 0;
};

/** The ledger of one judgement (SteadyJudge): its windows, their verdicts and the
 *  hypothetical fast-forwards they allowed. Summed over components (SteadyComponents), a
 *  window counts once per component judged in it and a jump's time is component-time. */
struct SteadyLedger
{
    uint64_t probed = 0;       //!< windows judged
    uint64_t steady = 0;       //!< windows ending a steady stretch of K windows
    uint64_t jumps = 0;        //!< hypothetical fast-forwards
    uint64_t skippablePs = 0;  //!< simulated time they would have skipped, ps
    uint64_t skippableBytes = 0; //!< payload bytes they would have credited, bytes
    /** Steady windows in which an active QP's congestion control kept state beyond the
     *  words compared (RdmaCongestionControl::StateIsComplete false). */
    uint64_t steadyCcPartial = 0;
    /** Windows probed inside the hypothetical jumps (ending at or before a jump's end), and
     *  those of them the packet simulation did not find steady: what a jump would have
     *  glossed over. */
    uint64_t jumpedWindows = 0;
    uint64_t jumpedNotSteady = 0;
    /** Jumps whose horizon a transfer's end bounded, whose end was then seen (a window with a
     *  transfer acknowledged after the jump), and the largest and summed |error| of the
     *  predicted end (the jump's end + K windows) against that window's end, ps. */
    uint64_t endsPredicted = 0;
    /** Transfers acknowledged inside a hypothetical jump (in a window ending at or before the
     *  jump's end): a jump would have run past their end, so it was wrong. */
    uint64_t endsInJumps = 0;
    uint64_t endErrorMaxPs = 0;
    uint64_t endErrorSumPs = 0;
    /** Jumps whose credit was measured: at the first window ending at or after the jump's
     *  end, the bytes the jump's transfers would have been credited at their rates (from the
     *  jump's start to that window's end) against the bytes the packet simulation delivered
     *  to them over the same time (a transfer that ended: its whole remainder). */
    uint64_t jumpsMeasured = 0;
    double bytesCredited = 0;     //!< summed over the measured jumps, bytes
    double bytesDelivered = 0;    //!< summed over the measured jumps, bytes
    double bytesErrorSum = 0;     //!< sum of |credited - delivered| per jump, bytes
    double bytesErrorMaxRel = 0;  //!< the largest |credited - delivered| / delivered of a jump
    /** Measured jumps whose relative credit error exceeded the tolerance (under
     *  maxJumpSpans, the re-checks that sent the bound back to one span). */
    uint64_t jumpsOff = 0;
    /** Windows not steady, by the first reason (SteadyReasonName). */
    std::map<std::string, uint64_t> notSteady;

    /** Add `o`'s counts to these (the error maximum is the larger). */
    void Add(const SteadyLedger& o);
};

/** The per-component judgement's figures (SteadyComponents; the manifest's
 *  "steady_probe.components"). Its ledger sums the components' ledgers. */
struct SteadyComponentStats : SteadyLedger
{
    /** Components seen: distinct identities (transfer and port sets) over the run. */
    uint64_t seen = 0;
    /** The most components judged in one window. */
    uint64_t mostInWindow = 0;
    /** Component-time judged: windows x components judged, times W, ps. */
    uint64_t componentPs = 0;
    /** Jumps whose component changed (a transfer joined or left, a merge, a split, a new
     *  port) before the jump's end: the jump would have passed over that change. */
    uint64_t jumpsBroken = 0;
    /** Windows in which a transfer's route could not be attributed to ports (a path that did
     *  not fit FrameMeta::path, a host with several links): every transfer of such a window
     *  was one component. */
    uint64_t windowsUnattributed = 0;
};

/** The ledgers of the judgements run with bounded jumps (SteadyParams::maxJumpSpans), the
 *  fabric's and the components'. */
struct SteadyBoundedStats
{
    uint32_t maxJumpSpans = 0;
    SteadyLedger fabric;
    SteadyComponentStats components;
};

/** What the probe found over a run (the manifest's "steady_probe"): the ledger of the whole
 *  fabric judged as one component, and the per-component judgement's. */
struct SteadyProbeStats : SteadyLedger
{
    bool active = false;       //!< the probe ran (simulator.steady_probe)
    uint64_t windowPs = 0;     //!< W, ps
    uint32_t windows = 0;      //!< K
    double tolerance = 0;      //!< the relative tolerance
    uint64_t startedBytes = 0; //!< payload bytes of the transfers that started, bytes
    SteadyComponentStats components; //!< per component (SteadyComponents)
    /** The same windows judged again with bounded, re-checked jumps, one per bound
     *  (kSteadyJumpBounds). */
    std::vector<SteadyBoundedStats> bounded;
};

/** The payload transfer `id` delivered over the windows of `last` (0 where it is absent),
 *  bytes. */
uint64_t BytesOver(const std::deque<SteadyWindow>& last, uint32_t id);

/** The bounds (spans) the probe judges with besides the unbounded judgement. */
constexpr uint32_t kSteadyJumpBounds[] = {4, 64, 1024};

/**
 * \brief The judgement: fed one window at a time, it says whether the fabric was steady over
 * the last K windows and keeps the ledger of the fast-forwards that steadiness would allow.
 *
 * Steady over the last K windows: a transfer was active at the newest window's end; fast mode
 * replayed none of the active transfers in them; no failure, transfer start or end, PFC frame or drop in any of them; CE marks in all of them or
 * in none; every transfer active through them delivered a number of bytes per window that
 * varies (max - min) by at most the tolerance times the max (or one MTU); every switch queue's
 * length varies by at most the tolerance times its max (or two frames); every congestion
 * control word of a QP active through them varies by at most the tolerance times its max
 * (alpha, a fraction, by the tolerance itself).
 *
 * While steady, the horizon is the time until the first active transfer would finish at its
 * mean rate over the K windows, less a margin of K windows, and at most the time to `capPs`
 * (the next known discontinuity). A hypothetical jump of that horizon is counted (time, and
 * every active transfer's bytes at its rate) when it is positive and the K windows all lie
 * after the previous jump's end: after a jump the stretch restarts.
 */
class SteadyJudge
{
  public:
    explicit SteadyJudge(const SteadyParams& params);

    /**
     * \brief Add the newest window and judge the last K.
     * \param w the window (its flows, queues and cc sorted as documented)
     * \param capPs the next known discontinuity after w.endPs (a timed arrival, a failure,
     *        the stop time), ps; UINT64_MAX when none is known
     * \return the first reason the fabric was not steady, or STEADY
     */
    SteadyReason Add(SteadyWindow w, uint64_t capPs);

    /**
     * \brief Transfer ends after the newest window, in the run's last, partial window (the run
     * stops at its last acknowledgement, before that window's probe): counted as Add counts a
     * window's ends (`ends_in_jumps` when `endPs` is within the last jump; the end error of
     * the first end after a jump), at `endPs` itself rather than a window's end.
     * \param endPs when the run stopped, ps (≥ LastPs())
     * \param ends transfers acknowledged since the newest window
     * \param allDone every transfer was acknowledged by `endPs`: a jump not yet measured (its
     *        end at or past the run's, or in the last, partial window) is measured at `endPs`,
     *        each of its transfers having delivered its whole remainder
     */
    void AddTailEnds(uint64_t endPs, uint32_t ends, bool allDone = false);

    /** Judge `last` (oldest first, at least one window) as Add does, without the ledger. */
    static SteadyReason Judge(const std::deque<SteadyWindow>& last, const SteadyParams& p);

    /** The horizon of a steady `last`, ps (0 when no transfer moves); see the class. */
    static uint64_t HorizonPs(const std::deque<SteadyWindow>& last, const SteadyParams& p);

    const SteadyProbeStats& Stats() const { return m_stats; }
    const SteadyParams& Params() const { return m_p; }
    /** The end of the last hypothetical jump, ps (0: none yet). */
    uint64_t JumpEndPs() const { return m_stats.jumps > 0 ? m_jumpEndPs : 0; }
    /** The newest window's end, ps (0: none added). */
    uint64_t LastPs() const { return m_last.empty() ? 0 : m_last.back().endPs; }

  private:
    /** A transfer end seen at `endPs`: the first after a jump a transfer's end bounded is
     *  compared with where the horizon put it (the ledger's end error). */
    void NoteEnd(uint64_t endPs);

    /** At `nowPs`, at or after the last jump's end, with `active` the transfers still active
     *  then (sorted by id): compare the jump's credit with what was delivered. */
    void MeasureJump(uint64_t nowPs, const std::vector<SteadyWindow::Flow>& active);

    SteadyParams m_p;
    std::deque<SteadyWindow> m_last; //!< the last K windows, oldest first
    uint64_t m_jumpEndPs = 0;        //!< the end of the last hypothetical jump, ps
    uint64_t m_jumpStartPs = 0;      //!< its start, ps
    /** Its transfers: (id, payload bytes remaining at its start, rate in bytes per ps). */
    struct JumpFlow
    {
        uint32_t id = 0;
        uint64_t remainingBytes = 0;
        double bytesPerPs = 0;
    };
    std::vector<JumpFlow> m_jumpFlows; //!< sorted by id; empty once measured
    uint32_t m_boundSpans = 1;         //!< the next jump's bound under maxJumpSpans
    /** The predicted end of the first transfer after the last jump, ps; 0 = none pending. */
    uint64_t m_predictedEndPs = 0;
    SteadyProbeStats m_stats;
};

} // namespace tusk

#endif
