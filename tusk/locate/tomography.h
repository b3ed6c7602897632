/*
 * tusk locate: network tomography over the flow x link incidence matrix.
 *
 * From end-to-end observations only (observations.h), each flow gets two signals:
 *  - delay: its excess slowdown, log(slowdown / load-explained slowdown), where the
 *    load-explained slowdown is what sharing alone would cause on a healthy fabric: the harmonic
 *    mean, over the flow's lifetime, of the largest number of flows (packet-weighted) active at
 *    the same time on any link of its path. Under max-min fair sharing on links of equal rate a
 *    flow never gets less than rate / that number (every flow's max-min rate is at least its
 *    bottleneck's equal share), so a healthy flow's slowdown stays below it.
 *  - loss: the fraction of its packets that had to be resent, (retx - spurious) / packets.
 * A flow is slow (lossy) when its signal exceeds a robust threshold: the larger of a floor and
 * median + k * 1.4826 * MAD of all flows' signals. With loss per class (the default, Bayes) the
 * lost frames are summed per class and tested instead (TestClassLosses), and the fit sees only
 * slow flows.
 *
 * Links whose columns have the same support (crossed by exactly the same flows) cannot be told
 * apart by any method; they are merged into one class and reported together.
 *
 * Methods (docs/locate.md compares them on synthetic data):
 *  - Bayes: binary tomography. Each class is bad with prior 1 / classes; a flow is slow or lossy
 *    with probability 1 - beta if its path crosses a bad class, alpha if not (noisy OR), alpha and
 *    beta with Beta priors, learned. Gibbs sampling; a class's confidence is its posterior
 *    probability of being bad (Rao-Blackwellised over the sweeps).
 *  - NNLS: non-negative least squares of the delay signal on the binary incidence (a flow ends
 *    with its slowest path, so any link of any of its paths can explain all its delay) and of the
 *    loss signal -log(1 - loss) on the fractional incidence (a link drops only the packets that
 *    cross it), by coordinate descent; confidence = the fraction of bootstrap refits (flows
 *    resampled) in which the class is above the threshold.
 *  - LASSO: the same with an L1 penalty, iteratively reweighted (Candes, Wakin & Boyd 2008),
 *    then refitted without penalty on its support (debiased).
 */
#ifndef TUSK_LOCATE_TOMOGRAPHY_H
#define TUSK_LOCATE_TOMOGRAPHY_H

#include "locate/observations.h"

#include <Eigen/SparseCore>

#include <cstdint>
#include <string>
#include <vector>

namespace tusk
{
namespace locate
{

enum class Method
{
    Bayes,
    Nnls,
    Lasso,
};

/** "bayes", "nnls", "lasso". */
const char* MethodName(Method m);
/** \throws std::invalid_argument for an unknown name. */
Method ParseMethod(const std::string& name);

struct TomographyOptions
{
    Method method = Method::Bayes;
    /** A flow is slow when its slowdown exceeds the load-explained one by this factor (>= 1). */
    double slowFactor = 1.5;
    /** A flow is lossy when at least this fraction of its packets was resent; and a class is
     *  named for its losses (classLoss) only when its flows' lost frames are at least this
     *  fraction of the packets they put on it. */
    double lossFloor = 1e-3;
    /** Loss evidence per class (since 2026-12-06; TestClassLosses): Bayes takes only slow
     *  flows as bad and a class is named for its losses by the class test. false: as before,
     *  a lossy flow (above the per-flow threshold) counts as bad in the fit. NNLS and LASSO
     *  fit the per-flow loss signal either way. */
    bool classLoss = true;
    /** Class loss test: the probability of naming any healthy class (Bonferroni: each class
     *  is tested at lossAlpha / classes). */
    double lossAlpha = 0.01;
    /** Robust thresholds: median + madK * 1.4826 * MAD of the signal over all flows. */
    double madK = 5.0;
    /** Suspects below this confidence are not named. */
    double minConfidence = 0.5;
    /** Nor those crossed by fewer slow or lossy flows: a link that only one flow saw slow
     *  cannot be told from that flow's own trouble (its host, an incast elsewhere). */
    uint32_t minBadFlows = 2;
    /** Bayes: Gibbs sweeps after burn-in, and burn-in sweeps. */
    uint32_t sweeps = 600;
    uint32_t burnIn = 100;
    /** Bayes: prior probability that a class is bad; 0 = 1 / number of classes. */
    double prior = 0.0;
    /** NNLS / LASSO: bootstrap refits for the confidence. */
    uint32_t bootstrap = 50;
    /** LASSO: L1 penalty, in units of the delay (loss) threshold times one flow. */
    double lassoFlows = 1.0;
    /** MTU assumed when neither `paths` counts nor the manifest give packets. */
    uint32_t defaultMtuBytes = 4096;
    uint64_t seed = 1;
};

/** Per-flow signals (index = Observations::flows). */
struct FlowSignals
{
    std::vector<double> slowdown;  //!< FCT / ideal (unfinished: a lower bound, to the horizon)
    std::vector<double> baseline;  //!< load-explained slowdown (>= 1)
    std::vector<double> excess;    //!< max(0, log(slowdown / baseline))
    std::vector<double> loss;      //!< resent fraction of its packets, in [0, 1)
    std::vector<double> lost;      //!< frames it lost (resent, less needless resends), >= 0
    std::vector<double> packets;   //!< packets sent (path counts, or bytes / MTU + retx)
    std::vector<char> slow;        //!< excess above the threshold, or unfinished
    std::vector<char> lossy;       //!< loss above the threshold
    double excessThreshold = 0.0;  //!< log factor
    double lossThreshold = 0.0;    //!< fraction
    uint32_t slowCount = 0;
    uint32_t lossyCount = 0;
};

/** The incidence of flows on classes of indistinguishable directed links. */
struct Incidence
{
    /** flows x classes: share of the flow's packets that crossed the class (mean of members). */
    Eigen::SparseMatrix<double> share;
    /** flows x classes: 1 where the flow crossed the class. */
    Eigen::SparseMatrix<double> crosses;
    std::vector<std::vector<uint32_t>> classes; //!< directed links (Observations::links) per class
    uint32_t unusedLinks = 0;                   //!< directions no flow crossed: invisible
    /** Those directions (Observations::links indices, ascending; size unusedLinks): no flow's
     *  data path (flows.csv `path`/`paths`, data frames only, not their ACKs) crossed them, so
     *  a fault there changes no flow's evidence. Since 2026-12-06. */
    std::vector<uint32_t> unused;
};

/** One ranked class of links. */
/** What per-path telemetry named a class for: bit flags (Slow | Lossy). */
enum class NamedFor : uint8_t
{
    None = 0,  //!< not named for a fitted cause (completion-time evidence: its flows' counts)
    Slow = 1,  //!< its fitted delay
    Lossy = 2, //!< its lost copies
};

constexpr NamedFor
operator|(NamedFor a, NamedFor b)
{
    return static_cast<NamedFor>(static_cast<uint8_t>(a) | static_cast<uint8_t>(b));
}

/** Whether `flags` has every bit of `bit`. */
constexpr bool
Has(NamedFor flags, NamedFor bit)
{
    return (static_cast<uint8_t>(flags) & static_cast<uint8_t>(bit)) == static_cast<uint8_t>(bit) &&
           bit != NamedFor::None;
}

struct Suspect
{
    uint32_t cls = 0;              //!< index into Incidence::classes
    std::vector<uint32_t> links;   //!< its directed links
    double score = 0.0;            //!< Bayes: log Bayes factor of its flows; NNLS/LASSO: estimate / threshold
    double confidence = 0.0;       //!< in [0, 1]
    uint32_t flows = 0;            //!< flows crossing it
    uint32_t slowFlows = 0;        //!< of which slow
    uint32_t lossyFlows = 0;       //!< of which lossy
    double rateFactor = 1.0;       //!< estimated rate / nominal from its slow flows (1 = healthy)
    double lossRate = 0.0;         //!< estimated fraction of its packets lost
    bool named = false;            //!< above the confidence threshold (and the method's)
    /** Why it was named, when the evidence says (per-path telemetry names a class for its
     *  fitted delay, its losses or both: bit flags); None = from the counts of slow and lossy
     *  flows. */
    NamedFor namedFor = NamedFor::None;
    /** namedFor as text: "slow", "lossy", "slow+lossy", or "" for None. */
    std::string Reason() const;
    /** Named for its losses (NamedFor::Lossy set). */
    bool NamedForLosses() const;
    std::string Kind() const;      //!< Reason(), else "slow", "lossy", "slow+lossy", or "-"
};

/** A named class and another crossed by the very same slow or lossy flows (at least
 *  minBadFlows), differing only in flows that were neither: the flows cannot tell them apart.
 *  Indices into the ranking; `named` ranks above `tied`. */
struct FlowTie
{
    size_t named = 0;
    size_t tied = 0;
    uint32_t badFlows = 0; //!< the slow or lossy flows that cross both
};

/** One class in the class loss test (TestClassLosses). */
struct ClassLoss
{
    double lost = 0.0;        //!< unexplained lost frames of the flows crossing it
    double packets = 0.0;     //!< those flows' packets, all of them
    double exposure = 0.0;    //!< those flows' packets on it (times their share)
    double expected = 0.0;    //!< lost frames expected at the background rate: packets x q
    double pValue = 1.0;      //!< P(X >= lost), X ~ Poisson(expected)
    double pValueAlone = 1.0; //!< the p-value in the first round, before any class explained
    double logP = 0.0;        //!< ln pValue (a Chernoff bound where pValue underflows)
    uint32_t lossyFlows = 0;  //!< flows crossing it that lost at least one frame
    bool named = false;
    uint32_t round = 0;       //!< naming order (0 = first named), when named
};

/**
 * \brief Which classes lose frames, from the flows' lost frames summed per class (a flow that
 * lost one frame is evidence however many it sent). Greedy explaining away: in each round every
 * class not yet named gets l, the lost frames not yet explained of the flows that cross it, and
 * N, those flows' packets, and a Poisson p-value P(X >= l), X ~ Poisson(N q), q the rate at
 * which the other flows lost frames (their unexplained lost frames, at least half a frame, over
 * their packets: what the class's flows would lose if it were as healthy as the rest of the
 * fabric). Of the classes with at least `minBadFlows` flows that lost a frame, lost frames of at
 * least `lossFloor` of the packets those flows put on it (sum of packets x share: a class
 * charged with all its flows' losses) and a p-value of at most `lossAlpha` / classes, the one
 * with the smallest p-value (then the highest l / exposure) is named and its flows' lost frames
 * are explained (set to 0): a healthy link whose flows lost frames on the named one is left
 * with nothing. It stops when no class is left.
 * \return per class (Incidence::classes): a named class the values it was named with, the
 * others those against the lost frames the named ones left unexplained
 */
std::vector<ClassLoss> TestClassLosses(const Incidence& inc,
                                       const FlowSignals& s,
                                       const TomographyOptions& o);

struct LocateResult
{
    FlowSignals signals;
    Incidence incidence;
    std::vector<Suspect> ranking; //!< every class with a flow, best first
    uint32_t named = 0;           //!< how many of `ranking` (a prefix) are named
    std::vector<FlowTie> ties;    //!< by the named class's rank (since 2026-12-06)
    /** Per class (Incidence::classes): the class loss test; empty without classLoss or with
     *  NNLS / LASSO. */
    std::vector<ClassLoss> classLoss;
};

/** The median of v (the mean of the two middle values for an even count); 0 if empty. */
double Median(std::vector<double> v);
/** max(floor, median + k * 1.4826 * MAD of v): 1.4826 MAD estimates sigma for normal noise. */
double RobustThreshold(const std::vector<double>& v, double floor, double k);

/** \brief The per-flow signals (see the file comment). */
FlowSignals ComputeSignals(const Observations& obs, const TomographyOptions& o);

/** \brief Group links by identical support and build both incidence matrices. */
Incidence BuildIncidence(const Observations& obs);

/** \brief Signals, incidence, the chosen method, confidence and the ranking. */
LocateResult Locate(const Observations& obs, const TomographyOptions& o);

/**
 * \brief Non-negative least squares by cyclic coordinate descent,
 * min_x 1/2 sum_f m_f (y_f - (A x)_f)^2 + sum_c lambda_c x_c, x >= 0.
 * \param a flows x unknowns (column-major); \param y observations; \param m row multiplicities
 * (empty = all 1); \param lambda per-column L1 penalty (empty = 0: plain NNLS);
 * \param x start (warm) and result. Stops when no coordinate moves by more than tol (scaled
 * by its column norm) or after maxSweeps.
 */
void NnlsCoordinateDescent(const Eigen::SparseMatrix<double>& a,
                           const std::vector<double>& y,
                           const std::vector<double>& m,
                           const std::vector<double>& lambda,
                           std::vector<double>& x,
                           double tol = 1e-9,
                           uint32_t maxSweeps = 2000);

/** What NnlsGroupIntercepts fits. */
struct GroupNnlsFit
{
    std::vector<double> x;         //!< per column, >= 0; 0 where not identifiable
    std::vector<double> intercept; //!< per group: the weighted mean of y - A x over its rows
    /** Per column: sum_f m_f (A_fc - mean of A_.c over f's group)^2, the column's variation
     *  within its groups (the curvature of the profiled objective in x_c); x_c's conditional
     *  standard error is sigma / sqrt(contrast). */
    std::vector<double> contrast;
    /** Per column: false when the column is constant within every group it touches (contrast
     *  below 1e-9 of its squared norm): x_c is confounded with those groups' intercepts. */
    std::vector<bool> identifiable;
};

/**
 * \brief Non-negative least squares with a free (unconstrained) intercept per group of rows,
 * min over x >= 0 and a of 1/2 sum_f m_f (y_f - a_{g(f)} - (A x)_f)^2 + sum_c lambda_c x_c:
 * the fixed-effects (within) estimator with a sign constraint. For any x the best a_g is the
 * weighted mean of y - A x over group g, so the intercepts are profiled out and x is fitted to
 * the within-group deviations by cyclic coordinate descent from x = 0 (as NnlsCoordinateDescent;
 * each step O(column nonzeros + groups it touches), the centred matrix is never formed). Only
 * differences within a group are evidence: a column constant within every group it touches
 * (every row of those groups crosses it) cannot be told from the intercepts and is reported
 * not identifiable (x = 0). A set of columns that every row of each group crosses equally often
 * is identified only up to a common shift; starting from 0 the descent leaves such a set's
 * smallest member at 0 unless the data raise all of them.
 * \param group per row its group, < groups; rows with m_f = 0 take no part
 */
GroupNnlsFit NnlsGroupIntercepts(const Eigen::SparseMatrix<double>& a,
                                 const std::vector<double>& y,
                                 const std::vector<double>& m,
                                 const std::vector<uint32_t>& group,
                                 uint32_t groups,
                                 const std::vector<double>& lambda = {},
                                 double tol = 1e-9,
                                 uint32_t maxSweeps = 5000);

} // namespace locate
} // namespace tusk

#endif
