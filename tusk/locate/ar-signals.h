/*
 * tusk locate from switch adaptive-routing telemetry (ar.csv, written with `[output]
 * ar_telemetry = true`): what each switch's load balancer counted of its choices among
 * equal-cost egress ports.
 *
 * A switch that steers by egress backlog (flowlet AR, DRILL), by path congestion (CONGA) or
 * around busy paths (ConWeave), or whose flowlets break where the queue builds (LetFlow),
 * sends a slow egress less than its siblings: the slow port drains 1/D as fast, so its backlog
 * is larger more often when the policy compares. The deficit is seen at the switch that owns
 * the egress, whatever the flows' completion times say. Per directed link e (an egress of its
 * switch):
 *   decision share  rho_D = decisions_e / expected_e,  expected_e = sum over rows of
 *                   offered / candidates (what an even choice among the candidates offered
 *                   would have given it)
 *   byte share      rho_B = bytes_e / sum over its rows of (bytes of the row's group /
 *                   candidates), a group being the egresses of one switch with one candidate
 *                   count
 *   deficit         d_e = -ln min(rho_D, rho_B)
 * A link is named when its deficit reaches -ln(maxShare) (its share at most maxShare of an
 * even one), is above the robust threshold median + madK x 1.4826 x MAD of every egress's
 * deficit, the even choice would have given it at least minExpected decisions, and its
 * decision deficit is not chance: expected - decisions >= zMin x sqrt(expected (1 - 1/c)),
 * the binomial deviation of an even random choice, over every decision or over the decisions
 * that were not uniform draws (pkts_random: DRILL or AR when the ports it compared tied,
 * LetFlow's new flowlet), whichever is larger: decisions' = decisions - its draws, expected' =
 * sum over rows of offered x (1 - draws of the group / decisions of the group) / c (a group
 * being the egresses of one switch with one candidate count, as below). Each tests an even
 * choice (taking the larger at most doubles the chance a healthy egress passes). A draw is uniform once the compared ports tied: when a slow port's deficit
 * is in the backlog choices (DRILL at 1,024 hosts with 64 KiB flows, where about half the
 * decisions are draws) the draws only add variance, and a slow egress's z over every decision
 * falls by about sqrt(2); when ports tie less often with a slow one among them (core uplinks
 * under the all-reduce) the draws carry the deficit (docs/locate.md, 1,024 hosts, 2026-12-06).
 * An upstream egress whose deficit the switch it feeds explains (that switch has a named egress with a larger deficit: its queues
 * back up into the upstream port by PFC) is not named itself. The estimated rate / nominal is
 * its bytes over the mean bytes of its siblings (the other egresses of its groups), at most 1:
 * an adaptive switch sends a link about what it drains, so 1 - rate is the capacity the
 * fabric lost there (a lower bound when the switch was not loaded enough to steer fully).
 *
 * Reads only ar.csv and the names of links.csv (Observations::links). A policy that does not
 * steer (ECMP's hash, random spraying) gives no evidence: ArHasAdaptiveDecisions says so.
 */
#ifndef TUSK_LOCATE_AR_SIGNALS_H
#define TUSK_LOCATE_AR_SIGNALS_H

#include "locate/observations.h"

#include <istream>
#include <string>
#include <vector>

namespace tusk
{
namespace locate
{

/** One row of ar.csv: one egress port of one switch with one candidate-set size. */
struct ArObservation
{
    unsigned line = 0;
    uint32_t link = 0;        //!< directed link (index into Observations::links): switch -> to
    uint32_t candidates = 0;  //!< >= 2
    uint64_t offered = 0;
    uint64_t decisions = 0;
    uint64_t packets = 0;
    uint64_t bytes = 0;
    uint64_t steeredPackets = 0; //!< frames by an adaptive reason (least_backlog, flowlet,
                                 //!< conga_metric, conweave_reroute)
    uint64_t randomPackets = 0;  //!< frames by a uniform draw (pkts_random): each a fresh
                                 //!< decision that a link's rate did not steer
};

/**
 * \brief Read ar.csv (`file` names it in messages) against `links`.
 * \throws ns3::InputError naming the file, line and column: a missing column, a malformed
 *         number, candidates below 2, decisions above offered, a link id links.csv does not
 *         have or whose ends are not (switch, to)
 */
std::vector<ArObservation> ReadArObservations(std::istream& in, const std::string& file,
                                              const LinkIndex& links);

/** Whether any switch steered (frames by an adaptive reason): else ar.csv says nothing. */
bool ArHasAdaptiveDecisions(const std::vector<ArObservation>& rows);

/** Options of the AR ranking. */
struct ArLocateOptions
{
    /** A named link's share (of an even one) is at most this. */
    double maxShare = 0.7;
    /** Robust threshold over every egress's deficit: median + madK x 1.4826 x MAD. */
    double madK = 5.0;
    /** Binomial deviations the decision deficit must reach. */
    double zMin = 4.0;
    /** Decisions an even choice would have given a link before it can be named. */
    double minExpected = 20.0;
};

/**
 * \brief The share of the egress link directions with an ar.csv row that the ranking can
 * judge: those an even choice among the candidates offered would have given at least
 * `o.minExpected` decisions (expected = sum over its rows of offered / candidates, as
 * LocateFromAr computes it). A policy that decides once per flow or flowlet (ConWeave at the
 * source ToR, flowlet-ar on flows without gaps) counts a few decisions per egress however
 * much it steered: no egress there can be named, faulty or not, and `tusk locate --evidence
 * auto` ranks from paths.csv or flows.csv instead when fewer than half can be judged.
 * 0 without rows.
 */
double ArJudgedShare(const std::vector<ArObservation>& rows, const ArLocateOptions& o);

/** One egress link's evidence. */
struct ArSuspect
{
    uint32_t link = 0;          //!< directed link index
    double expected = 0;        //!< decisions an even choice would have given it
    uint64_t decisions = 0;
    uint64_t offered = 0;
    uint32_t candidates = 0;    //!< the largest candidate count it was offered in
    double decisionShare = 1;   //!< rho_D
    double byteShare = 1;       //!< rho_B
    double deficit = 0;         //!< -ln min(rho_D, rho_B)
    double z = 0;               //!< decision deficit in binomial deviations: the larger of
                                //!< over every decision and over those not drawn uniformly
    double rateFactor = 1;      //!< estimated rate / nominal: bytes over its siblings' mean, <= 1
    double capacityLost = 0;    //!< 1 - rateFactor
    bool named = false;
    bool explained = false;     //!< above the cuts, but explained by a named egress downstream
};

struct ArLocateResult
{
    /** every egress with a row; named first, then those with minExpected decisions, each
     *  by deficit */
    std::vector<ArSuspect> ranking;
    uint32_t named = 0;
    size_t egresses = 0;        //!< directed links with an ar.csv row
    size_t switches = 0;        //!< switches with an ar.csv row
    uint64_t decisions = 0;     //!< fresh decisions over all switches
    double deficitCut = 0;      //!< the naming threshold on the deficit
    double minExpected = 0;     //!< ArLocateOptions::minExpected, as used
};

/** \brief Rank egress links by their share deficit (see the file comment). */
ArLocateResult LocateFromAr(const Observations& obs, const std::vector<ArObservation>& rows,
                            const ArLocateOptions& o);

/** The table: evidence line, counts, then the first `top` named links (or "no suspect"). */
void PrintArTable(const Observations& obs, const ArLocateResult& r, const std::string& resultsDir,
                  uint32_t top, std::ostream& out);
/** One JSON object: "evidence": "ar", the counts and `ranking` (first `top` links). */
std::string ArJson(const Observations& obs, const ArLocateResult& r, const std::string& resultsDir,
                   uint32_t top);

} // namespace locate
} // namespace tusk

#endif
