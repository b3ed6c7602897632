/*
 * tusk: max-min fair rates by progressive filling (water-filling), the rates a set of
 * concurrent flows would get from an ideal fluid fabric that shares every link max-min fairly.
 * Used for the collective-aware ideal FCT (docs/analysis.md, "Collective-aware slowdown").
 */
#ifndef TUSK_FAIR_SHARE_H
#define TUSK_FAIR_SHARE_H

#include <cstdint>
#include <vector>

namespace ns3
{

/** How much of one flow's rate crosses one (directed) link: a fraction in (0, 1]. */
struct LinkUse
{
    uint32_t link;  //!< index into the capacity vector
    double share;   //!< fraction of the flow's rate on that link (1 on a single path)
};

/**
 * \brief Max-min fair rates of flows that split their traffic over links in fixed fractions.
 *
 * Flow f sends at rate x_f, of which share_{f,l} crosses link l; link l carries at most
 * capacity[l]. Progressive filling (Bertsekas & Gallager, Data Networks, 2nd ed., section
 * 6.5.2, generalised to fixed fractional routing): every unfrozen flow's rate rises together;
 * when a link saturates (sum_f share_{f,l} x_f = capacity[l]) the flows crossing it freeze at
 * the current level; repeat until every flow is frozen. The result is max-min fair: no flow's
 * rate can rise without lowering that of a flow whose rate is no larger.
 *
 * \param uses per flow, the links it crosses and the fraction of its rate on each; a link may
 *        appear at most once per flow; a flow with no links gets +infinity
 * \param capacity per link, its capacity (any unit, e.g. bit/s); must be > 0 for every link used
 * \return per flow, its rate in the capacity's unit
 * \throws std::invalid_argument on a link index out of range, a share outside (0, 1], or a
 *         capacity <= 0 on a used link
 */
std::vector<double> MaxMinFairRates(const std::vector<std::vector<LinkUse>>& uses,
                                    const std::vector<double>& capacity);

/**
 * \brief The rate a flow gets alone: min over its links of capacity / share (+infinity with no
 * links).
 */
double AloneRate(const std::vector<LinkUse>& use, const std::vector<double>& capacity);

} // namespace ns3

#endif
