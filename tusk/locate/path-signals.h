/*
 * tusk locate from per-path telemetry (paths.csv, written with `[output] path_telemetry =
 * true`): what a spraying NIC knows of each entropy value (path) it used, its RTT samples and
 * its losses, and the links the path crossed.
 *
 * A slow link hidden by adaptive spraying still shows on the paths that cross it: every packet
 * that crosses a link whose rate is divided by D is serialised D times slower there, so the
 * smallest RTT any of those paths saw (queueing apart) grows by (D - 1) x one frame's
 * serialisation time at the nominal rate, however few packets the load balancer still sends
 * that way. So per path p, with hops H_p (directed links):
 *   y_p = rtt_min_p - base_p   (µs; base_p = the smallest rtt_min of the same QP's paths of
 *                               that length)
 * (the excess over the sender's other paths cancels what all of them share: the two host
 * links, a busy receiver's downlink queue, the NICs). A path whose QP has no other path of its
 * length (ECMP, and switch-side adaptive routing, where a QP keeps one entropy value) has no
 * reference: y_p would be 0 by construction, so it is left out of the delay fit, and
 * `tusk locate --evidence auto` ranks from completion times when most QPs are like that
 * (PathsComparable).
 * The model is y_p = a_q + sum of the delays x_l of its links + noise, x >= 0, with a free
 * intercept a_q per comparison group q (QP and path length): what the QP's paths share,
 * including the queueing common to them, which y_p (measured from the QP's *fastest* path)
 * leaves positive on average. Fitted by non-negative least squares with the intercepts
 * profiled out (NnlsGroupIntercepts, each compared path one observation): only differences
 * between a QP's paths are evidence. Links crossed by exactly the same paths are one class
 * (BuildIncidence). A class every path of each of its QPs crosses (a QP's host links under
 * spraying) is confounded with the intercepts: not identifiable, its delay is not estimated
 * (NaN) and it is never named for delay (before 2026-12-05 the fit had no intercepts and
 * gave such classes the QPs' common offset, ~0.8 µs, which pooled OPS runs named). A class
 * is named when its delay reaches half a frame's serialisation time at the nominal rate (a
 * link at 2/3 of its rate adds that much), is above the exponential tail cut of the
 * identifiable classes' positive delays (ExponentialTailCut: a 1 % event among them) and
 * (since 2026-12-06) above that of its own tier's classes (the from and to vertex kinds of
 * each of its links: under oblivious spraying a congested fabric's ToR uplinks queue several
 * times as much as its core links, and the pooled cut named the most queued healthy uplink
 * in 12 of 20 no-fault 128-host permutation runs of 2 x 2 MiB per host), is at
 * least the normal quantile of delayAlpha / identifiable classes standard errors above 0
 * (sigma / sqrt(its within-QP variation), sigma = 1.4826 x the median absolute residual),
 * at least two of its paths are above their QP's fitted intercept by that floor, and (since
 * 2026-12-05, evening) its paths are slow more often than paths of the same RTT-sample count
 * are: path p is slow for class c when it is t = max(floor, x_c / 2) above its QP's fastest
 * path and its residual plus c's fitted share reaches t, and the count is tested against the
 * per-bin (floor(log2 samples)) rate at which paths are that slow with no share added, by the
 * binomial bound on a Poisson-binomial tail at delayAlpha / identifiable classes (Bonferroni). A path REPS tried once has one RTT sample, whose minimum carries that
 * packet's heavy-tailed queueing; the busy paths that set sigma fit almost exactly, so the
 * z-guard alone named sparse healthy classes of such paths. A class named for
 * delay alone is *explained* (not named) when at least half of its slow paths continue, after
 * it, into a named class with a larger delay, or reach the switch one of its links leaves
 * (PausedBy): PFC backs that link's queue up into it (congestion spreading); a class holding the
 * reverse direction of one of its links (the same cable) is not explained by it. Its estimated rate
 * / nominal is 1 / (1 + x / serialisation time). Losses (FitLossClasses): each path's lost
 * copies (paths.csv trims + losses, the copies that never reached the receiver while a later
 * one did; trims + timeouts for a paths.csv without `losses`; never NACKs, which under
 * spraying mostly flag reordering) are summed per class and tested against the loss rate of
 * the other packets (Poisson), the most significant class named and its paths' losses
 * explained, in turn; named at a rate of 0.1 % or more with two lossy paths. A class named
 * for losses alone reports its loss rate and rate 1 (no evidence that it is slow). A row whose
 * every copy was lost (no `paths`) is placed on its `traced_path`, the route a probe with its
 * headers takes (the sender's traceroute), in the loss fit only.
 *
 * Per route (paths.csv with a `route` column, `[output] path_telemetry = "route"`, since
 * 2026-12-05): each row is one route a QP's frames took (the ACK echoes it), so under
 * switch-side adaptive routing, where a QP keeps one entropy value, the routes the switches
 * spread it over are its siblings and the same fit applies; a QP the switches kept on one
 * route still has no sibling. A row without a route holds the copies no route is given: its
 * losses are spread over its entropy's routes by their frames (or placed on its traced path),
 * in the loss fit only; where the QP's routes followed one another (a reroute), by likelihood
 * (PlaceLostCopies, since 2026-12-05). Such routes are not compared for delay by `--evidence
 * auto` (PathsComparable), but their losses are: since 2026-12-06 `auto` ranks from them when
 * a rerouted QP lost copies and the first class the loss fit names tells a lossy QP's routes
 * apart (AutoPathEvidence, TellsReroutedRoutesApart), the delay fit then leaving those routes
 * out (PathLocateOptions::compareSequentialRoutes).
 *
 * Reads only paths.csv (its telemetry columns, `paths` and `traced_path`), the names of links.csv and, of the
 * manifest, the MTU and configured link rates (Observations).
 */
#ifndef TUSK_LOCATE_PATH_SIGNALS_H
#define TUSK_LOCATE_PATH_SIGNALS_H

#include "locate/observations.h"
#include "locate/tomography.h"

#include <istream>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace tusk
{
namespace locate
{

/** One row of paths.csv: one entropy value of one sending QP. Times in µs. */
struct PathObservation
{
    unsigned line = 0;
    uint32_t src = 0;
    uint32_t dst = 0;
    uint32_t qpn = 0;
    uint64_t packets = 0;
    uint64_t rttSamples = 0;
    double rttMinUs = 0;
    double rttMedianUs = 0;
    double rttP99Us = 0;  //!< rtt_p99_us (NaN when the file has no such column)
    uint64_t ecnAcks = 0;
    /** trims + losses (copies the fabric lost: paths.csv `losses`); trims + timeouts for a
     *  paths.csv without `losses`. Never NACKs: under spraying they mostly flag reordering. */
    uint64_t lost = 0;
    std::vector<FlowPath> paths; //!< directed links (Observations::links) and frames
    /** No frame of it arrived: `paths` is its one traced path (paths.csv `traced_path`, the
     *  route a probe with its headers takes), carrying its `packets`, all lost; or, in a
     *  per-route paths.csv (a `route` column), the lost copies of an entropy's row without a
     *  route, spread over the routes its entropy's frames arrived by (their frames as
     *  weights). Placed for the loss fit only: not compared for delay, not counted in a
     *  link's load. */
    bool traced = false;
    /** A per-route row (paths.csv `route` not empty): one route of one entropy value. */
    bool routed = false;
    /** A per-route row's first and last frame arrival (paths.csv `first_us`, `last_us`), µs;
     *  NaN when the file has no such columns. */
    double firstUs = std::numeric_limits<double>::quiet_NaN();
    double lastUs = std::numeric_limits<double>::quiet_NaN();
    /** Evidence of delay only: left out of the loss fits (its lost copies and its packets;
     *  paths.csv's rows read beside probes.csv, whose losses are each pinned path's own). */
    bool delayOnly = false;
    /** Its run when several are located together (PoolPathRows; 0-based), else 0: a QP is
     *  (run, src, dst, qpn), compared with its own siblings only. */
    uint32_t run = 0;
    /** A probe stream's probe size (probes.csv `bytes`), 0 for paths.csv's rows and a
     *  probes.csv without the column: rows compared for delay share it (a larger probe is
     *  serialised longer at every hop). */
    uint32_t probeBytes = 0;
    /** Evidence of loss only: left out of the delay fit. A probe stream's rows of a smaller
     *  size than the file's largest (ReadProbeObservations): the largest probes show a slow
     *  link's extra serialisation most, and a fit over several sizes would average it down. */
    bool lossOnly = false;
};

/**
 * \brief Read paths.csv (`file` names it in messages) against `links`: the rows with a path
 * (`paths`), and those whose copies were all lost with their `traced_path` (`traced`).
 * \throws ns3::InputError naming the file, line and column: a missing column, a malformed
 *         number or path, a link id links.csv does not have, a path not from host<src> to
 *         host<dst>
 */
std::vector<PathObservation> ReadPathObservations(std::istream& in, const std::string& file,
                                                  const LinkIndex& links);

/** PathObservation::qpn of a probe stream's row (ReadProbeObservations): no QP has it (RDMA
 *  NICs number QPs from 2), so a stream's rows are compared with each other only. */
constexpr uint32_t kProbeStreamQpn = 0;

/**
 * \brief Read probes.csv (`[probes]`; tusk/run/probe-mesh.h) as path rows: one per probe
 * stream (source, destination, UDP source port), qpn kProbeStreamQpn, its judged probes as
 * `packets`, its received ones as RTT samples with the one-way delays in place of RTTs, its
 * `losses` as lost copies, its routes as `paths` (the traced path, `traced`, when none
 * arrived). Its entropies are the stream's siblings: the same fits apply.
 * \throws ns3::InputError naming the file, line and column: a missing column, a malformed
 *         number or path, judged != received + losses, a second row for one stream
 */
std::vector<PathObservation> ReadProbeObservations(std::istream& in, const std::string& file,
                                                   const LinkIndex& links);

/** Options of the path-based ranking. */
struct PathLocateOptions
{
    /** A class's delay must reach this fraction of one frame's serialisation time. */
    double delayFloorFrames = 0.5;
    /** Loss rate floor of a path and of a named class. */
    double lossFloor = 1e-3;
    /** Paths above the floor a named class needs. */
    uint32_t minBadPaths = 2;
    /** A group of links is named for copies spread per packet (FitSpreadLosses) with at
     *  least this many lossy QPs: two fit in many small groups (a host's link, a ToR's uplinks)
     *  besides the fault's, and the smallest containing both has the smallest p-value, whoever
     *  lost them (one-run DRILL bench, 2026-12-06: 2 of 20 named a healthy group, each from two
     *  QPs; four runs: every named group had 4 or more). */
    uint32_t minSpreadLossyQps = 3;
    /** Probes of two sizes: fewer large probes than this per route (the median over the
     *  routes compared) and the output warns that a busy healthy link may be named slow. A
     *  route's least large-probe delay is a minimum over few samples: in a loaded fabric it
     *  keeps waits that the small probes' least, over ten times as many spread over every
     *  phase of the traffic (its start, its tail), escaped, and a host whose few large probes
     *  missed the quiet moments shows a size excess on every route (128-host permutation bench,
     *  2026-12-07: a median of 4 per route named a healthy link, a host's in 16 of them, in 21
     *  of 140 runs without a fault; 8 per route, in 1 of 140). */
    uint32_t minLargeProbesPerRoute = 8;
    /** Paths with fewer RTT samples are left out of the delay fit. */
    uint32_t minRttSamples = 1;
    /** A tier (the from and to vertex kinds of a link: `tor`->`agg`) gets its own delay tail
     *  cut (PathLocateResult::tierDelayCutUs) when at least this many of its identifiable
     *  classes have a positive fitted delay: the median that sets the cut's scale is taken
     *  over them, and fewer say little about a tier's queueing. */
    uint32_t minTierClasses = 8;
    /** A class is named for its losses when the chance that a healthy one loses as many is
     *  at most this over the number of classes (Bonferroni). */
    double lossAlpha = 0.01;
    /** A class is named for its delay only when it is at least the one-sided normal quantile
     *  of delayAlpha / identifiable classes standard errors above 0 (Bonferroni). */
    double delayAlpha = 0.01;
    /** Compare the per-route rows of a QP whose routes were used one after the other (their
     *  arrival spans overlap by less than half the shorter; a reroute, a new flowlet) in the
     *  delay fit. `--evidence paths` does; `--evidence auto` does not when it ranks from
     *  paths.csv for the losses of such QPs (AutoPathEvidence): their smallest RTTs were taken
     *  under different queueing and differ by when, not by which links. */
    bool compareSequentialRoutes = true;
};

/** What the loss fit (FitLossClasses) says of one class. */
struct LossClass
{
    double lost = 0;        //!< lost copies on it (each path's, times its share)
    double packets = 0;     //!< packets on it (each path's, times its share)
    double rate = 0;        //!< lost / packets: the estimated loss rate
    double pValue = 1;      //!< P(a healthy class loses as many), at the rate of the others
    uint32_t lossyPaths = 0;
    bool named = false;
    /** The named class whose lost copies, in the round it was named, were this class's too,
     *  path for path (the same paths, the same copies): the copies cannot tell the two apart,
     *  only their delivered packets differ (which the p-value weighed). -1: none. Since
     *  2026-12-06. */
    int tiedWith = -1;
    double tiedRate = 0;    //!< its loss rate in that round (lost / its packets)
    double tiedPValue = 1;  //!< its p-value in that round
};

/**
 * \brief Which classes lose frames, from each path's lost copies (paths.csv trims + losses)
 * and packets. Greedy explaining away: in each round, every class not yet named gets its lost
 * copies l and packets n (sums over the paths that cross it, times their share) of the losses
 * not yet explained, and a Poisson p-value P(X >= l) with X ~ Poisson(n q), q the loss rate of
 * the other packets (what it would lose if it were as healthy as the rest; 0 on a lossless
 * fabric, where any loss stands out). Of those with at least `minLossyPaths` paths that lost
 * a copy, a rate l / n of at least `lossFloor` and a p-value of at most `alpha` / classes,
 * the one with the smallest p-value (then the highest rate) is named, its paths' losses are
 * explained (times its share) and the next round starts; it stops when none is left. Another
 * candidate of the round whose lost copies are the named one's, path for path, is marked tied
 * with it (LossClass::tiedWith): the copies cannot say which of the two lost them. A
 * link's loss multiplies along a path (1 - prod(1 - p)), which for 1 % and a few hops is their
 * sum: the paths' losses are counted, not fitted. \param share paths x classes (Incidence)
 * \return per class; rate, lost and packets of a named class are those it was named with
 */
std::vector<LossClass> FitLossClasses(const Eigen::SparseMatrix<double>& share,
                                      const std::vector<double>& lost,
                                      const std::vector<double>& packets, double lossFloor,
                                      uint32_t minLossyPaths, double alpha);

/**
 * \brief The loss fit's shares (paths x classes, as Incidence::share) with the lost copies no
 * route was given placed by their likelihood. A per-route paths.csv's row without a route holds
 * the copies of an entropy that never arrived, and the sender does not learn which of the
 * entropy's routes they took: ReadPathObservations spreads them over those routes by their
 * frames (PathObservation::traced with several `paths`). When a switch reroutes a QP (ConWeave)
 * or a flowlet moves, the route over the lossy link may carry only part of the frames, so that
 * link gets part of each copy while a link every route crosses (the receiver's host link) gets
 * all of it, and the loss fit named host links instead of the cable (2026-12-05, bench). Here
 * each such copy is placed on route r with probability proportional to r's frames times r's
 * loss probability on the classes that tell the row's routes apart (the sum of their loss
 * rates; the classes every route crosses are on the copy's path whichever it took), the rates being the classes' lost
 * copies over their packets under that placement: expectation-maximisation of the
 * classes' loss rates (the rows with one path, or with delivered frames, are fixed). A row
 * whose routes no other loss tells apart keeps its frames' split (the likelihood is flat there:
 * a route used by this row alone stays where its frames put it); a route through a link that
 * loses elsewhere takes the copy. \param maxIterations a bound on the EM steps (each moves no
 * weight by more than it changes the rates; stops when no weight moves by 1e-9)
 * Only the QPs whose routes were used one after the other (their per-route rows' arrival spans
 * overlap by less than half the shorter, as PathsComparable; rows without arrival times are
 * not): under per-packet spreading (DRILL) a copy's route is drawn anew, sibling links carry
 * the same QPs alike, the likelihood is flat along what would tell them apart and the EM
 * fitted noise (named a healthy class in 8/20 pooled placements, bench, 2026-12-05).
 * \return the shares, rows without such copies unchanged
 */
Eigen::SparseMatrix<double> PlaceLostCopies(const Incidence& inc,
                                            const std::vector<PathObservation>& paths,
                                            uint32_t maxIterations = 1000);

/** A set of directed links crossed by (nearly) the same QPs (run, src, dst, qpn), named by
 *  FitSpreadLosses for the lost copies of QPs spread per packet. */
struct SpreadLossGroup
{
    std::vector<uint32_t> links; //!< its directed links (Observations::links), ascending
    uint32_t qps = 0;            //!< QPs whose delivered frames crossed one of its links
    uint32_t lossyQps = 0;       //!< of them, QPs with spread lost copies it explains
    double lost = 0;             //!< those QPs' lost copies
    /** lost over the frames (delivered) of its QPs that crossed one of its links, on average:
     *  the loss rate of one of its links, had that link lost them all. */
    double rate = 0;
    double pValue = 1;           //!< binomial P(X >= lossyQps), X ~ Bin(qps, outside rate)
};

/** FitSpreadLosses's answer. */
struct SpreadLossFit
{
    /** Per row of `paths`: a row of lost copies spread over routes used side by side (taken
     *  out of the per-class loss fit, FitLossClasses, when the fit ran). */
    std::vector<bool> spreadRow;
    uint32_t lossyQps = 0;               //!< QPs with spread lost copies
    uint32_t qps = 0;                    //!< QPs with delivered frames
    size_t groups = 0;                   //!< groups of links (the Bonferroni count)
    std::vector<SpreadLossGroup> named;  //!< in the order they were named
};

/**
 * \brief Which links lose the copies of QPs a switch spread per packet (DRILL), counted per
 * QP. A per-route paths.csv's row without a route holds an entropy's lost copies; where its
 * routes were used side by side (arrival spans overlapping by half the shorter, as
 * PathsComparable), each copy's route was drawn anew and is unknown: all the sibling links
 * of a tier carry the same QPs alike (a ToR's uplinks, a pod's uplinks to the core), and by
 * frames a copy falls whole only on the links every route of its QP crosses, its host links,
 * which won the per-class loss fit (named in 4/20 pooled placements, the cable in none;
 * bench, 2026-12-05). The copies cannot say which sibling lost them; they do say which QPs
 * lost, and a lossy cable makes several QPs that share it lose, where a host link explains
 * the QPs of one host only. So the links are grouped by the QPs that crossed them (a link's
 * QP set: every QP with a delivered frame over it; links whose sets' intersection holds 90 %
 * of their union are one group, as per-packet spreading leaves a QP's few frames off a
 * sibling now and then), and a group of n QPs is tested by how many of them lost a spread
 * copy, k: P(X >= k), X ~ Bin(n, q), q the share of the QPs outside the group that lost one
 * (explained or not). Greedy, as FitLossClasses: the smallest p-value (then more lossy QPs,
 * then fewer links) among the groups with at least `minLossyQps` lossy QPs and
 * p <= alpha / groups is named and its QPs explained; then the next round. A host link's
 * group (its host's QPs) is named when most of its few QPs lost (a lossy host link: 1 % of
 * a QP's 256 frames is 2.6 copies). The named group holds the faulty link and its
 * siblings: one tier's links that no end-to-end evidence tells apart under per-packet
 * spreading (docs/locate.md, *What it cannot see*). Rows of other QPs (one route, routes used
 * one after the other, per-entropy files) are not touched: spreadRow false, nothing named.
 */
SpreadLossFit FitSpreadLosses(const std::vector<PathObservation>& paths, uint32_t minLossyQps,
                              double alpha);

/** Two classes the loss fit could not tell apart (LossClass::tiedWith): the same lost copies
 *  on the same paths crossed both, in the round `named` was named. Indices into the ranking. */
struct LossTie
{
    size_t named = 0;         //!< the class the fit named
    size_t tied = 0;          //!< the class that carried the same lost copies
    double lost = 0;          //!< those copies (times the paths' shares)
    uint32_t lossyPaths = 0;  //!< paths with at least half a copy of them
    double namedRate = 0;     //!< lost / packets of the named class
    double tiedRate = 0;      //!< lost / packets of the tied class (more delivered packets)
    double namedPValue = 1;
    double tiedPValue = 1;
};

/** The ranking from paths; Suspect's `flows` count paths, `slowFlows` / `lossyFlows` paths
 *  above the floors; `score` the delay over the floor (or the loss over its floor). */
struct PathLocateResult
{
    std::vector<Suspect> ranking; //!< every class with a path, best first; named ones first
    uint32_t named = 0;
    size_t paths = 0;             //!< rows of paths.csv with a path
    size_t probeStreams = 0;      //!< of them, probes.csv's rows (ReadProbeObservations)
    /** The probe sizes among them (probes.csv `bytes`): with two, a stream has a row of each. */
    size_t probeSizes = 0;
    bool perRoute = false;        //!< the rows are per route (paths.csv `route`), not per entropy
    size_t classes = 0;
    uint32_t unusedLinks = 0;     //!< directions no path crossed
    std::vector<uint32_t> unused; //!< those directions (Observations::links, ascending)
    double frameUs = 0;           //!< one frame's serialisation time at the nominal rate, µs
    double delayFloorUs = 0;      //!< the naming floor of a class's delay, µs
    uint32_t slowPaths = 0;
    uint32_t lossyPaths = 0;
    size_t comparedPaths = 0;     //!< paths in the delay fit: their QP has another of their length
    /** Paths left out of the delay fit because their QP's routes were used one after the other
     *  (PathLocateOptions::compareSequentialRoutes false); 0 otherwise. */
    size_t sequentialPaths = 0;
    uint32_t explained = 0;       //!< classes above the cuts explained by a named one downstream
    /** QPs whose lost copies were spread over routes used side by side, fitted per QP
     *  (FitSpreadLosses) instead of per class; 0 when none. Since 2026-12-06. */
    uint32_t spreadLossyQps = 0;
    uint32_t unidentifiable = 0;  //!< classes every path of each of their QPs crosses
    double delayCutUs = 0;        //!< the cut a named class's delay passed (floor, tail), µs
    /** Per tier ("tor->agg": the vertex kinds of a link's ends, VertexTier) with at least
     *  PathLocateOptions::minTierClasses positive delays: the exponential tail cut of its own
     *  identifiable classes' delays, µs. A class's delay must pass delayCutUs and the cut of
     *  every tier its links are in (the larger decides). Since 2026-12-06. */
    std::map<std::string, double> tierDelayCutUs;
    double residualSigmaUs = 0;   //!< robust scale of the delay fit's residuals, µs
    double zCut = 0;              //!< the standard errors a named class's delay needs
    /** Per ranking entry: its fitted delay, µs; NaN when not identifiable (every path of each
     *  of its QPs crosses it: its delay cancels from every comparison). */
    std::vector<double> delayUs;
    std::vector<double> delayZ;   //!< per ranking entry: its delay in standard errors (0: n/a)
    /** Per ranking entry: the p-value of its slow-path count against the rate at which paths
     *  of the same RTT-sample count are slow (1: not tested, delay 0 or not identifiable). */
    std::vector<double> slowCountP;
    double slowCountAlpha = 0;    //!< the p-value a named class's slow-path count needs
    std::vector<double> markRate; //!< per ranking entry: ECN-echoing ACKs / RTT samples of its paths
    /** Probes of two sizes (probes.csv `bytes`, `large_bytes`): the sizes compared, the routes
     *  with both sizes' smallest delays, and the p-value a class's count of excess routes
     *  needs (delayAlpha / classes with routes); 0 without. Since 2026-12-07. */
    uint32_t sizeSmallBytes = 0;
    uint32_t sizeLargeBytes = 0;
    size_t sizeRoutes = 0;
    double sizeAlpha = 0;
    /** The median over those routes of their large and small probes received (the streams
     *  of a route pooled). */
    double sizeLargePerRoute = 0;
    double sizeSmallPerRoute = 0;
    uint32_t sizeMinLargePerRoute = 0; //!< PathLocateOptions::minLargeProbesPerRoute
    /** Fewer large probes per route than sizeMinLargePerRoute: the output warns. */
    bool SizeFewLarge() const
    {
        return sizeRoutes > 0 && sizeLargePerRoute < static_cast<double>(sizeMinLargePerRoute);
    }
    /** Classes above every delay cut that the size excess measured at their nominal rate
     *  (median excess below the floor): queueing, not named slow. */
    uint32_t nominalByProbes = 0;
    /** Per ranking entry: the median size excess of its routes, µs (the large probes'
     *  smallest delay over the small ones', less the nominal serialisation of the difference
     *  on every link: pathchar's reading; NaN: no route with both sizes crosses it), those
     *  routes, the p-value of its count above threshold, and whether it named the class. */
    std::vector<double> sizeExcessUs;
    std::vector<double> sizeExcessQ1Us; //!< per ranking entry: their lower quartile, µs (NaN: none)
    std::vector<size_t> sizeExcessRoutes;
    std::vector<double> sizeExcessP;
    std::vector<bool> sizeNamed;
    /** The loss fit's ties (LossTie), by the named class's rank; the ranking is the fit's
     *  (the tied class stays where its own score puts it). Since 2026-12-06. */
    std::vector<LossTie> lossTies;
};

/**
 * \brief Whether paths.csv can tell a QP's paths apart: true when at least half of its QPs
 * (src, dst, qpn) have two or more rows (entropy values) of one path length; with per-route
 * rows (PathObservation::routed) with arrival times, two routes count only when they were used
 * side by side: their spans of arrivals (first_us..last_us) overlap by at least half of the
 * shorter one (a switch spreading per packet, DRILL), not one after the other (a reroute,
 * ConWeave; see the definition). Under ECMP and
 * switch-side adaptive routing every QP sends on one entropy value, so no path has a sibling
 * to be compared with and the per-path delays are all 0; completion times are the evidence.
 */
bool PathsComparable(const std::vector<PathObservation>& paths);

/** What `--evidence auto` may take from paths.csv (AutoPathEvidence). */
enum class PathEvidence
{
    None,       //!< nothing comparable: completion times
    Compared,   //!< delays and losses (PathsComparable)
    LossesOnly, //!< losses of QPs whose routes were used one after the other; no such delays
};

/**
 * \brief What `--evidence auto` may rank from in `paths`: Compared when PathsComparable;
 * otherwise LossesOnly when at least half of the QPs whose rows hold lost copies (and at least
 * one) have two or more per-route rows with arrival times used one after the other (no two of
 * its routes' arrival spans overlap by half the shorter); otherwise None. Why losses and not
 * delays: a route's smallest RTT depends on when the route was used (the fabric's queueing
 * then), so the routes of a rerouted QP cannot be compared for delay; a lost copy depends on
 * which links the copy crossed, not when (on a fabric that drops nothing else; the loss fit
 * tests against the other packets' loss rate where it does), and PlaceLostCopies gives the
 * copies a route by likelihood, so the losses are comparable across routes used at different
 * times. Completion times cannot place them: a rerouted flow's resends count against every
 * link of all its routes. Half of the lossy QPs, as PathsComparable asks half of the QPs to
 * have siblings: for a QP with one route paths.csv's losses say what its completion time does.
 */
PathEvidence AutoPathEvidence(const std::vector<PathObservation>& paths);

/** The numbers AutoPathEvidence's rule looks at (QPs are (run, src, dst, qpn)). */
struct PathEvidenceCounts
{
    size_t qps = 0;              //!< QPs with a row that has a path of its own (not traced)
    size_t sideBySideQps = 0;    //!< of which with two rows of one length used side by side
    size_t lossyQps = 0;         //!< QPs whose rows hold lost copies
    size_t reroutedLossyQps = 0; //!< of which with two or more per-route rows, one after the other
    PathEvidence evidence = PathEvidence::None; //!< AutoPathEvidence's answer from these
};

/** rief AutoPathEvidence with the counts it decided from (`--evidence auto` states them). */
PathEvidenceCounts CountPathEvidence(const std::vector<PathObservation>& paths);

/**
 * \brief Whether a link class (its directed links `cls`) tells apart the routes of a QP that
 * lost copies and used its routes one after the other: some of its per-route rows cross a link
 * of `cls` and some do not. Per-route losses differ from completion-time evidence only in
 * which of a rerouted QP's routes a copy is put on; a class that every route of each of its
 * lossy QPs crosses (their host links) is charged each copy in full either way, so for it the
 * routes add nothing and completion times, which weigh the slow flows too, decide
 * (`--evidence auto`, PathEvidence::LossesOnly).
 */
bool TellsReroutedRoutesApart(const std::vector<PathObservation>& paths,
                              const std::vector<uint32_t>& cls);

/**
 * \brief The fraction of `rows` (indices into `paths`) whose every path that crosses a link of
 * `up` crosses a link of `down` after it (downstream, in the order the frames went); 0 for no
 * rows. Under PFC a slow link's queue pauses the links feeding it, and theirs the links feeding
 * them: paths through such an upstream link are slow because they continue into the slow one.
 */
double FeedsInto(const std::vector<PathObservation>& paths, const std::vector<size_t>& rows,
                 const std::vector<uint32_t>& up, const std::vector<uint32_t>& down);

/**
 * \brief As FeedsInto, but a path also feeds `down` when, after crossing `up`, it reaches the
 * switch a link of `down` leaves (vertex names from `links`), whether or not it takes that
 * link: under PFC a switch whose egress is slow fills its buffer and pauses its ingress links,
 * so every path through them waits, whichever egress it then takes (head-of-line blocking
 * one hop upstream of the slow link; the victim's paths need not cross it). Vertices are
 * those the path visits after `up` (its `to` and beyond), and since 2026-12-05 (late evening)
 * `up`'s own switch: a link leaving the switch a link of `down` leaves (a sibling egress of
 * the slow one) carries frames that entered that switch over the ingress links it paused, so
 * they waited before taking `up` (DRILL per route, 128-host permutation p00, `agg8->tor8` at
 * 1/4: `agg8->core0`, `core2`, `core3` were named beside it). Since 2026-12-05.
 */
double PausedBy(const std::vector<PathObservation>& paths, const std::vector<size_t>& rows,
                const std::vector<uint32_t>& up, const std::vector<uint32_t>& down,
                const LinkIndex& links);

/** \brief Rank link classes from path telemetry (see the file comment). `obs` gives the
 *  links, MTU and nominal rate (flows are not used). */
PathLocateResult LocateFromPaths(const Observations& obs,
                                 const std::vector<PathObservation>& paths,
                                 const PathLocateOptions& o);

} // namespace locate
} // namespace tusk

#endif
