/*
 * tusk: training jobs. See job-model.h.
 */
#include "job-model.h"
#include "job-plan.h"
#include "collective-registry.h"
#include "uniform-below.h"

#include "fabric/model/input-error.h"

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <set>

namespace ns3
{

namespace
{

[[noreturn]] void
Fail(const std::string& field, const std::string& message)
{
    throw InputError("", 0, "job." + field, message);
}

} // namespace

ProcessGroups::ProcessGroups(uint32_t ranks, const ParallelDegrees& d)
    : m_ranks(ranks),
      m_tp(d.tp),
      m_pp(d.pp),
      m_dp(d.dp),
      m_ep(d.ep)
{
    if (ranks == 0)
    {
        Fail("ranks", "expected at least 1 rank; got 0");
    }
    for (auto [name, v] : {std::pair<const char*, uint32_t>{"tp", d.tp}, {"pp", d.pp}, {"ep", d.ep}})
    {
        if (v == 0)
        {
            Fail(name, std::string("expected a degree >= 1; got 0"));
        }
    }
    const uint64_t model = uint64_t(d.tp) * d.pp * d.ep;
    const std::string product = "TP * PP * EP = " + std::to_string(d.tp) + " * " +
                                std::to_string(d.pp) + " * " + std::to_string(d.ep) + " = " +
                                std::to_string(model);
    if (d.dp == 0)
    {
        if (ranks % model != 0)
        {
            Fail("dp", "cannot derive DP: " + product + " does not divide the " +
                           std::to_string(ranks) + " ranks (TP * PP * DP * EP must equal the "
                           "ranks)");
        }
        m_dp = static_cast<uint32_t>(ranks / model);
    }
    else if (model * d.dp != ranks)
    {
        Fail("dp", "TP * PP * DP * EP = " + std::to_string(d.tp) + " * " + std::to_string(d.pp) +
                       " * " + std::to_string(d.dp) + " * " + std::to_string(d.ep) + " = " +
                       std::to_string(model * d.dp) + ", but the job has " +
                       std::to_string(ranks) + " ranks; they must be equal");
    }
}

uint32_t
ProcessGroups::Rank(uint32_t tp, uint32_t ep, uint32_t dp, uint32_t pp) const
{
    return tp + m_tp * (ep + m_ep * (dp + m_dp * pp));
}

const std::vector<std::string>&
ProcessGroups::Kinds()
{
    static const std::vector<std::string> kinds = {"world", "tp",   "pp",        "dp",
                                                   "ep",    "dpep", "site", "cross-site"};
    return kinds;
}

std::vector<std::vector<uint32_t>>
ProcessGroups::Groups(const std::string& kind) const
{
    std::vector<std::vector<uint32_t>> groups;
    if (kind == "world")
    {
        groups.emplace_back();
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            groups.back().push_back(r);
        }
        return groups;
    }
    if (kind == "site" || kind == "cross-site")
    {
        Fail("group", "process group \"" + kind + "\" needs a multi-site topology "
                      "(topology.kind = \"multi-site\")");
    }
    // Which coordinates vary inside a group: t(p), e(p), d(p), p(p).
    bool vary[4] = {kind == "tp", kind == "ep" || kind == "dpep", kind == "dp" || kind == "dpep",
                    kind == "pp"};
    if (!(vary[0] || vary[1] || vary[2] || vary[3]))
    {
        std::string list;
        for (const auto& k : Kinds())
        {
            list += (list.empty() ? "" : ", ") + k;
        }
        Fail("group", "unknown process group \"" + kind + "\"; expected one of " + list);
    }
    const uint32_t size[4] = {m_tp, m_ep, m_dp, m_pp};
    // Key of a rank = its coordinates with the varying ones zeroed.
    std::map<uint32_t, size_t> index;
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        uint32_t c[4];
        uint32_t x = r;
        for (int i = 0; i < 4; ++i)
        {
            c[i] = x % size[i];
            x /= size[i];
        }
        for (int i = 0; i < 4; ++i)
        {
            if (vary[i])
            {
                c[i] = 0;
            }
        }
        const uint32_t key = Rank(c[0], c[1], c[2], c[3]);
        auto it = index.find(key);
        if (it == index.end())
        {
            it = index.emplace(key, groups.size()).first;
            groups.emplace_back();
        }
        groups[it->second].push_back(r);
    }
    return groups;
}

const std::vector<std::string>&
PlacementPolicies()
{
    static const std::vector<std::string> p = {"contiguous", "rack-aware", "random", "explicit"};
    return p;
}

std::vector<uint32_t>
PlaceRanks(const PlacementRequest& r)
{
    if (r.ranks == 0)
    {
        Fail("ranks", "expected at least 1 rank; got 0");
    }
    if (r.policy == "explicit")
    {
        if (r.pool.size() != r.ranks)
        {
            Fail("ranks", "an explicit placement lists " + std::to_string(r.pool.size()) +
                              " hosts for " + std::to_string(r.ranks) + " ranks");
        }
        return r.pool;
    }
    if (r.pool.size() < r.ranks)
    {
        Fail("ranks", "the job needs " + std::to_string(r.ranks) + " hosts; only " +
                          std::to_string(r.pool.size()) + " are free");
    }
    if (r.policy == "contiguous")
    {
        return std::vector<uint32_t>(r.pool.begin(), r.pool.begin() + r.ranks);
    }
    if (r.policy == "random")
    {
        std::vector<uint32_t> v = r.pool;
        std::mt19937_64 rng(r.seed);
        // Partial Fisher-Yates: position i gets a uniform choice among the remaining hosts.
        for (uint32_t i = 0; i < r.ranks; ++i)
        {
            const uint64_t j = i + UniformBelow(rng, v.size() - i);
            std::swap(v[i], v[j]);
        }
        v.resize(r.ranks);
        return v;
    }
    if (r.policy == "rack-aware")
    {
        std::map<uint32_t, std::vector<uint32_t>> racks;
        for (uint32_t h : r.pool)
        {
            if (h >= r.rackOf.size())
            {
                Fail("placement", "no rack known for host " + std::to_string(h));
            }
            racks[r.rackOf[h]].push_back(h);
        }
        std::vector<std::pair<uint32_t, const std::vector<uint32_t>*>> order;
        for (const auto& [rack, hosts] : racks)
        {
            order.emplace_back(rack, &hosts);
        }
        std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
            return a.second->size() > b.second->size();
        });
        std::vector<uint32_t> out;
        for (const auto& [rack, hosts] : order)
        {
            for (uint32_t h : *hosts)
            {
                if (out.size() < r.ranks)
                {
                    out.push_back(h);
                }
            }
        }
        return out;
    }
    std::string list;
    for (const auto& p : PlacementPolicies())
    {
        list += (list.empty() ? "" : ", ") + p;
    }
    Fail("placement", "unknown placement \"" + r.policy + "\"; expected one of " + list);
}

std::vector<uint32_t>
RailAlignedRingOrder(const std::vector<uint32_t>& hosts,
                     const std::vector<uint32_t>& serverOf,
                     uint32_t G,
                     uint32_t channel)
{
    const size_t n = hosts.size();
    if (serverOf.empty() || G < 2 || n < G || n % G != 0)
    {
        return hosts;
    }
    for (size_t b = 0; b < n; b += G)
    {
        for (size_t j = 0; j < G; ++j)
        {
            if (hosts[b + j] >= serverOf.size() ||
                serverOf[hosts[b + j]] != serverOf[hosts[b]])
            {
                return hosts;
            }
        }
    }
    std::vector<uint32_t> out(n);
    const size_t servers = n / G;
    for (size_t s = 0; s < servers; ++s)
    {
        const size_t entry = (channel % G + G - s % G) % G; // (c - s) mod G
        for (size_t j = 0; j < G; ++j)
        {
            out[s * G + j] = hosts[s * G + (entry + j) % G];
        }
    }
    return out;
}

std::vector<std::vector<uint32_t>>
SiteGroups(const std::vector<uint32_t>& hosts,
           const std::vector<uint32_t>& siteOf,
           const std::string& kind)
{
    if (kind != "site" && kind != "cross-site")
    {
        throw InputError("", 0, "job.group", "expected \"site\" or \"cross-site\"; got \"" + kind + "\"");
    }
    if (siteOf.empty())
    {
        throw InputError("", 0, "job.group",
                         "process group \"" + kind + "\" needs a multi-site topology "
                         "(topology.kind = \"multi-site\")");
    }
    // Ranks of every site, sites in order of their first rank.
    std::vector<uint32_t> order;
    std::map<uint32_t, std::vector<uint32_t>> bySite;
    for (uint32_t r = 0; r < hosts.size(); ++r)
    {
        if (hosts[r] >= siteOf.size())
        {
            throw InputError("", 0, "job.group",
                             "host " + std::to_string(hosts[r]) + " has no site");
        }
        auto& ranks = bySite[siteOf[hosts[r]]];
        if (ranks.empty())
        {
            order.push_back(siteOf[hosts[r]]);
        }
        ranks.push_back(r);
    }
    std::vector<std::vector<uint32_t>> groups;
    if (kind == "site")
    {
        for (uint32_t s : order)
        {
            groups.push_back(bySite[s]);
        }
        return groups;
    }
    for (uint32_t s : order)
    {
        const auto& ranks = bySite[s];
        for (size_t i = 0; i < ranks.size(); ++i)
        {
            if (groups.size() <= i)
            {
                groups.emplace_back();
            }
            groups[i].push_back(ranks[i]);
        }
    }
    for (auto& g : groups)
    {
        std::sort(g.begin(), g.end());
    }
    return groups;
}

void
AppendJob(WorkloadBuilder& b, WorkloadSpec& spec, const JobSpec& job)
{
    const JobPlan plan(b, spec, job);
    for (uint32_t i = 0; i < plan.Iterations(); ++i)
    {
        plan.Append(b, i);
    }
    spec.jobs.push_back(plan.Info());
}

} // namespace ns3
