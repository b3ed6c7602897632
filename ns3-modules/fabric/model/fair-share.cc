#include "fair-share.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

std::vector<double>
MaxMinFairRates(const std::vector<std::vector<LinkUse>>& uses, const std::vector<double>& capacity)
{
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const size_t nFlows = uses.size();
    const size_t nLinks = capacity.size();
    std::vector<std::vector<std::pair<uint32_t, double>>> onLink(nLinks); // (flow, share)
    for (size_t f = 0; f < nFlows; ++f)
    {
        for (const LinkUse& u : uses[f])
        {
            if (u.link >= nLinks)
            {
                throw std::invalid_argument("MaxMinFairRates: link " + std::to_string(u.link) +
                                            " out of range (" + std::to_string(nLinks) + " links)");
            }
            if (!(u.share > 0 && u.share <= 1))
            {
                throw std::invalid_argument("MaxMinFairRates: share outside (0, 1] on link " +
                                            std::to_string(u.link));
            }
            if (!(capacity[u.link] > 0))
            {
                throw std::invalid_argument("MaxMinFairRates: capacity <= 0 on link " +
                                            std::to_string(u.link));
            }
            onLink[u.link].emplace_back(static_cast<uint32_t>(f), u.share);
        }
    }
    std::vector<double> rate(nFlows, kInf);
    std::vector<bool> frozen(nFlows, false);
    std::vector<double> residual(capacity);
    std::vector<double> activeShare(nLinks, 0); // sum of unfrozen flows' shares per link
    size_t active = 0;
    for (size_t f = 0; f < nFlows; ++f)
    {
        if (uses[f].empty())
        {
            frozen[f] = true; // crosses no link: unconstrained
            continue;
        }
        ++active;
        for (const LinkUse& u : uses[f])
        {
            activeShare[u.link] += u.share;
        }
    }
    double level = 0; // the common rate of every unfrozen flow
    while (active > 0)
    {
        // The next link to saturate: the smallest residual / active share.
        double step = kInf;
        for (size_t l = 0; l < nLinks; ++l)
        {
            if (activeShare[l] > 0)
            {
                step = std::min(step, std::max(0.0, residual[l]) / activeShare[l]);
            }
        }
        level += step;
        for (size_t l = 0; l < nLinks; ++l)
        {
            residual[l] -= step * activeShare[l];
        }
        // Freeze the flows on every link now full (relative tolerance for rounding).
        for (size_t l = 0; l < nLinks; ++l)
        {
            if (activeShare[l] > 0 && residual[l] <= 1e-9 * capacity[l])
            {
                for (const auto& [f, share] : onLink[l])
                {
                    if (frozen[f])
                    {
                        continue;
                    }
                    frozen[f] = true;
                    rate[f] = level;
                    --active;
                    for (const LinkUse& u : uses[f])
                    {
                        activeShare[u.link] -= u.share;
                        if (activeShare[u.link] < 1e-12)
                        {
                            activeShare[u.link] = 0;
                        }
                    }
                }
            }
        }
    }
    return rate;
}

double
AloneRate(const std::vector<LinkUse>& use, const std::vector<double>& capacity)
{
    double r = std::numeric_limits<double>::infinity();
    for (const LinkUse& u : use)
    {
        r = std::min(r, capacity.at(u.link) / u.share);
    }
    return r;
}

} // namespace ns3
