/*
 * tusk: the pure decisions of fast mode's steady and sampled rules (docs/fast-mode.md), without
 * a Simulator: IterationMemo gathers the iterations, these functions judge them.
 */
#ifndef TUSK_ITERATION_RULES_H
#define TUSK_ITERATION_RULES_H

#include "workload-executor.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/** |a - b| <= tol * max(|a|, |b|) (tol a fraction). */
bool CloseWithin(double a, double b, double tol);

/**
 * Half-width of the two-sided Student-t confidence interval of the mean of `samples` at
 * `confidence` (a fraction in (0, 1), e.g. 0.95): t_{(1 + confidence) / 2, n - 1} * s / sqrt(n),
 * s the sample standard deviation (n - 1 in the denominator). Boost Math's students_t quantile.
 * \return the half-width, in the samples' unit; +infinity for fewer than 2 samples
 */
double MeanConfidenceHalfWidth(const std::vector<double>& samples, double confidence);

/** One iteration of a sampled rule's pool: its length (ps), its transfers' FCTs summed (ps)
 *  and counted, and the policies' random draws in its span (count). */
struct PoolIteration
{
    double lengthPs = 0;
    double fctSumPs = 0;
    uint64_t transfers = 0;
    double draws = 0;
};

/** What the sampled rule makes of a pool. */
enum class SampledVerdict
{
    Accept,        //!< replay from the pool
    WindowsDiffer, //!< the two windows' means (iteration time, FCT) or draws differ
    MeanUncertain  //!< they agree, but the pool does not pin its mean within the tolerance
};

/**
 * The sampled rule's test of a pool of 2W iterations, oldest first (docs/fast-mode.md, rule (c)):
 * the older W and the newer W agree within `tolerance` in mean iteration time, mean FCT over
 * their transfers and random draws; and the Student-t interval at `confidence` of the pool's
 * mean iteration time, and of its mean per-iteration mean FCT, has a half-width of at most
 * `tolerance` times that mean. `confidence` 0 skips the interval.
 * \param pool 2 * w iterations (fewer or more: WindowsDiffer)
 */
SampledVerdict JudgePool(const std::vector<PoolIteration>& pool, uint32_t w, double tolerance,
                         double confidence);

/** The q-quantile of `values` by nearest rank, x_(ceil(q n)) (rank clamped to [1, n]; as
 *  tusk's summary statistics take it). `values` is reordered (nth_element); empty: NaN. */
double NearestRankQuantile(std::vector<double>& values, double q);

/** A quantile of a sample and its distribution-free confidence interval (the sample's unit). */
struct QuantileInterval
{
    double estimate = 0; //!< the nearest-rank quantile, x_(ceil(q n))
    double lower = 0;    //!< x_(l)
    double upper = 0;    //!< x_(u)
};

/**
 * The q-quantile of `values` by nearest rank and its confidence interval from order statistics:
 * the number X of values at or below the true quantile is Binomial(n, q), so with l - 1 the
 * largest count whose CDF is at most (1 - confidence) / 2 and u - 1 the smallest whose CDF is
 * at least (1 + confidence) / 2 (both clamped to [1, n]), [x_(l), x_(u)] covers the true
 * q-quantile with probability P(l <= X <= u - 1), at least `confidence`,
 * whatever the distribution (Hahn and Meeker, Statistical Intervals, 1991, section 5.2; Boost
 * Math's binomial quantiles). When u - 1 would be n or more, the interval ends at the largest
 * value, and its coverage is below `confidence` (a sample too small for a p99's upper bound).
 * \param values reordered (nth_element); empty: all fields NaN
 * \param q in (0, 1), e.g. 0.99
 * \param confidence in (0, 1), e.g. 0.95
 */
QuantileInterval QuantileWithInterval(std::vector<double>& values, double q, double confidence);

/** Iterations `a` (length `lenA`, ps) and `b` agree within `tol`: their lengths and every
 *  transfer's FCT (recvDonePs - startPs), position by position. Different sizes: false. */
bool SameIteration(double lenA, const std::vector<TransferRecord>& a, double lenB,
                   const std::vector<TransferRecord>& b, double tol);

/** One iteration of a phase as the steady rule sees it; `records` null when it cannot be
 *  compared (replayed, its records freed, other traffic). */
struct PhaseIteration
{
    double lengthPs = 0;
    const std::vector<TransferRecord>* records = nullptr;
};

/** What the steady rule makes of a phase's iterations. */
enum class SteadyVerdict
{
    Agree,  //!< replay the newest
    Differ, //!< the newest `iterations` do not all agree (or are not all comparable)
    Trend,  //!< they agree, but the newest and the phase's iteration `span` - 1 periods back
            //!< do not: a drift or a cycle the newest few did not show
    Short   //!< they agree, but the phase's iteration `span` - 1 periods back is not comparable
};

/**
 * The steady rule for one period (docs/fast-mode.md, rule (b)): `phase` holds the phase's
 * iterations newest first (the memo, then one period, two periods ... back). The newest
 * `iterations` must each agree with the newest within `tol` (SameIteration); then, when
 * `span` > `iterations`, the newest must also agree with phase[span - 1] (the first and last
 * of the span). A sequence whose consecutive iterations differ by less than `tol` but which
 * moves by more over `span` - 1 periods is a trend, not a steady state.
 */
SteadyVerdict JudgePhase(const std::vector<PhaseIteration>& phase, uint32_t iterations,
                         uint32_t span, double tol);


/** One iteration of a job as the recurrence check sees it: its length (decision to the next
 *  iteration's decision, ps), its slowest transfer's FCT (ps), and its traffic (a hash: equal
 *  means the same traffic). */
struct IterationBrief
{
    double lengthPs = 0;
    double maxFctPs = 0;
    uint64_t pattern = 0;
};

/** What the recurrence check makes of a job's latest iterations. */
enum class RecurrenceVerdict
{
    Covered, //!< what would be replayed reproduces every iteration of the span
    Short,   //!< fewer than `span` iterations (or fewer than two periods): nothing is known of
             //!< a recurrence longer than what was seen
    Missed   //!< an iteration of the span is one the replay would not reproduce
};

/**
 * The steady rule's recurrence check (docs/fast-mode.md, rule (b), "a rare iteration with a
 * long period"): `history` holds a job's latest consecutive finished iterations, oldest first;
 * the latest `span` of them must repeat with `period`: each has the traffic of, and agrees
 * within `tol` in length and in slowest FCT with, the newest iteration of its phase (the one of
 * the latest `period` at a whole number of periods after it). A rare slow iteration that
 * recurs with any period up to `span` lies in every window of `span` iterations, so replaying
 * with a shorter period is refused (Missed) instead of replaying the fast iterations only.
 * `span` 0: Covered (no check). Fewer than `span` iterations, or `span` < 2 x `period`: Short.
 */
RecurrenceVerdict JudgeRecurrence(const std::vector<IterationBrief>& history, uint32_t period,
                                  uint32_t span, double tol);

/**
 * The sampled rule's recurrence check: the pool replayed (`pool`, any order) must bound the tail
 * of the latest `span` iterations of `history` (consecutive, oldest first) that have the pool's
 * traffic (pool[0].pattern): their largest length and largest slowest-FCT at most the pool's
 * largest, or within `tol` of it. A rare slow iteration outside the pool would otherwise never
 * be replayed (the pool cycles). `span` 0: Covered. Fewer than `span` iterations in `history`
 * or an empty pool: Short.
 */
RecurrenceVerdict JudgeTailCover(const std::vector<IterationBrief>& history,
                                 const std::vector<IterationBrief>& pool, uint32_t span,
                                 double tol);

} // namespace ns3

#endif
