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

} // namespace ns3

#endif
