/*
 * tusk: SteadyJumper, the rule of steady-state jumps (`simulator.steady_jump`,
 * docs/fast-mode.md, "The jump"): pure logic over the probe's windows, no Simulator.
 */
#ifndef TUSK_STEADY_JUMPER_H
#define TUSK_STEADY_JUMPER_H

#include "run/steady-judge.h"

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tusk
{

/** A transfer's history of whole windows holds at most this many times K windows: the
 *  slope of a rate over n windows is known to about n^-1.5, so the history bounds how long
 *  the jumps of a steady stretch may be (SteadyJumper's trend test). */
constexpr uint32_t kHistoryWindowsPerK = 64;

/** What steady-state jumps did over a run (the manifest's "steady_jump"). */
struct SteadyJumpStats
{
    bool active = false;          //!< simulator.steady_jump was on
    uint32_t maxSpans = 0;        //!< the longest jump, in spans of K windows
    uint64_t jumps = 0;           //!< jumps made
    uint64_t skippedPs = 0;       //!< simulated time skipped, ps
    uint64_t longestPs = 0;       //!< the longest jump, ps
    uint64_t skippedPackets = 0;  //!< data packets taken out and counted delivered
    uint64_t skippedBytes = 0;    //!< their payload, bytes
    /** Jumps whose K windows after were compared with the K before, and those whose rates
     *  disagreed beyond the tolerance (the bound fell back to one span). */
    uint64_t rechecks = 0;
    uint64_t rechecksOff = 0;
    /** The largest relative difference of a transfer's rate after a jump from its rate
     *  before, over the re-checks. */
    double recheckErrorMax = 0;
    /** Jumps not re-checked: every transfer of the jump ended, or a start, failure or end
     *  left no transfer active through the K windows after it (the bound fell back to one
     *  span). */
    uint64_t notRechecked = 0;
    /** Steady windows in which a jump was refused, by reason (SteadyJumper::Refuse). */
    std::map<std::string, uint64_t> refused;
    /** Windows not steady, by the first reason (SteadyReasonName). */
    std::map<std::string, uint64_t> notSteady;
};

/**
 * \brief The rule: fed the probe's windows (their ends in the run's time, RunClock), it
 * proposes a jump when the fabric was steady over the last K windows (SteadyJudge::Judge)
 * and all K lie after the previous jump.
 *
 * A jump's length is the horizon (SteadyJudge::HorizonPs: K windows before the first active
 * transfer would end at its mean rate over the K windows; at most to `capPs`, the next time
 * the scenario gave), at most the bound: `bound` spans of K W. The bound starts at one span.
 * K windows after each jump the jump is re-checked: every transfer of the jump still active
 * then has its mean rate over those K windows compared with its rate before; within the
 * tolerance (the largest relative difference) the bound doubles, up to maxJumpSpans, and
 * otherwise, or when no transfer was left to compare, it falls back to one span. A jump
 * shorter than one window is not proposed.
 *
 * A transfer's rate is its mean over its history: its whole windows of the current steady
 * stretch (the K windows of the stretch's first steady verdict and one more per verdict
 * since; a start's transient and an earlier regime left out), at least 4K and at most the
 * last 64K (kHistoryWindowsPerK), in simulated time (a jump adds no window). The K windows alone would cut the rate at a packet in 3 (at 50 Gb/s
 * and W = 10 µs, 15 packets a window: 2 %, and a jump of 32 spans carries that 2 % over
 * 960 µs); a history of n windows cuts it at a packet in n times as many. A transfer with
 * fewer than 2K whole windows, or with fewer than 4 / tolerance packets' payload in its
 * history, refuses the jump ("history").
 *
 * The trend test: a jump freezes the congestion controls' clocks, so a rate that is still
 * climbing or falling (a DCQCN sender recovering at its additive increase, a TIMELY sender
 * climbing by its RTT gradient) resumes its climb only after the jump: every skipped window
 * delays the rest of the climb by a window. The steepest slope a moving transfer's history
 * allows (the least-squares slope of its bytes per window, plus its 95 % Student-t half-width,
 * Boost Math) gives a budget: the windows the jumps of one steady stretch may skip in all,
 * such that that slope over them moves the rate by at most the tolerance. A jump is cut to
 * what is left of the budget of its least steady transfer, and refused when less than a
 * window is left ("trend"). A rate without slope or noise (a flow alone at line rate) has no
 * limit; a noisy one is bounded by its noise, however flat.
 */
class SteadyJumper
{
  public:
    /** A proposed jump. */
    struct Jump
    {
        uint64_t spanPs = 0; //!< how long, ps
        /** Every active transfer with its mean rate over its history, bytes per ps, sorted
         *  by id. */
        std::vector<std::pair<uint32_t, double>> rates;
        /** The shortest history among the moving transfers, windows: the links' rates are
         *  taken over as many of the last windows. */
        uint32_t windows = 0;
    };

    /** `p.maxJumpSpans` is the largest bound (≥ 1). */
    explicit SteadyJumper(const SteadyParams& p);

    /**
     * \brief Add the newest window and judge the last K.
     * \param w the window, its end in the run's time
     * \param capPs the next time the scenario gave after w.endPs (a timed start, a failure,
     *        the stop), run time, ps; UINT64_MAX when none
     * \return a jump to make now, or nothing; after a jump is proposed the caller says
     *         Made or Refuse before the next Add
     */
    std::optional<Jump> Add(SteadyWindow w, uint64_t capPs);

    /** The proposed jump was made, `spanPs` long (at most the proposal's), taking `packets`
     *  data packets of `bytes` payload; `rates` as proposed. */
    void Made(const Jump& jump, uint64_t spanPs, uint64_t packets, uint64_t bytes);
    /** The proposed jump was not made, for `reason` (the manifest's name). */
    void Refuse(const std::string& reason);
    /** Windows were not judged (nothing to jump; fast mode replaying): the K windows, the
     *  histories and a pending re-check are dropped, the bound falls back to one span. */
    void Break();

    const SteadyJumpStats& Stats() const { return m_stats; }
    /** The next jump's bound, spans. */
    uint32_t BoundSpans() const { return m_bound; }

  private:
    /** K windows after the last jump: compare their rates with the jump's. */
    void Recheck();
    /** Fill `j`'s rates and windows from the histories: "" when every moving transfer has
     *  its history and passes the trend test, else why not ("history", "trend"). */
    std::string RatesFromHistory(Jump& j) const;

    SteadyParams m_p;
    std::deque<SteadyWindow> m_last; //!< the last K windows, oldest first
    uint64_t m_sinceJump = 0;        //!< windows added since the last jump (or the start)
    uint64_t m_steadyRun = 0;        //!< consecutive steady verdicts up to the newest window
    double m_stretchSkippedWindows = 0; //!< windows the current stretch's jumps skipped
    uint32_t m_bound = 1;            //!< the next jump's bound, spans
    std::vector<std::pair<uint32_t, double>> m_jumpRates; //!< the last jump's, until re-checked
    /** Per active transfer: its bytes in its last whole windows (at most 64K), oldest
     *  first. */
    struct History
    {
        std::deque<double> bytes;
        uint64_t remaining = 0; //!< payload left at the newest window's end, bytes
    };
    std::map<uint32_t, History> m_history;
    /** The windows the jumps of a steady stretch may skip for `h` (the class's trend
     *  test; infinite for a rate without a slope). */
    double SkipBudgetWindows(const History& h) const;
    SteadyJumpStats m_stats;
};

} // namespace tusk

#endif
