#include "locate/evidence-choice.h"

#include <fmt/format.h>

#include <stdexcept>

namespace tusk
{
namespace locate
{

namespace
{

const char*
Label(const std::string& evidence, bool lossesOnly)
{
    if (evidence == "ar")
    {
        return "switch AR decisions (ar.csv)";
    }
    if (evidence == "probes")
    {
        return "probe losses and delays (probes.csv)";
    }
    if (evidence == "paths")
    {
        return lossesOnly ? "per-route losses only (paths.csv)"
                          : "per-path RTTs and losses (paths.csv)";
    }
    return "completion times (flows.csv)";
}

/** "K of N ... (>= half)" or "(< half)": the rule's half tests (2 K >= N, N > 0). */
std::string
HalfOf(size_t k, size_t n, const char* what)
{
    return fmt::format("{} of {} {} ({})", k, n, what,
                       n > 0 && 2 * k >= n ? "\u2265 half" : "< half");
}

std::string
ClassText(const std::vector<uint32_t>& cls, const LinkIndex& links)
{
    std::string name = links.Links().at(cls.front()).Name();
    if (cls.size() > 1)
    {
        name += fmt::format(" (+{} alike)", cls.size() - 1);
    }
    return name;
}

} // namespace

EvidenceChoice
ExplainEvidence(const EvidenceFacts& f, const LinkIndex& links)
{
    EvidenceChoice c;
    c.option = f.option;
    auto& n = c.numbers;
    std::vector<std::string> clauses;
    auto done = [&](const std::string& evidence, const std::string& rule, bool lossesOnly) {
        c.evidence = evidence;
        c.rule = rule;
        c.reason = Label(evidence, lossesOnly);
        for (size_t i = 0; i < clauses.size(); ++i)
        {
            c.reason += (i == 0 ? ": " : "; ") + clauses[i];
        }
        return c;
    };
    if (f.option != "auto")
    {
        if (f.option != "ar" && f.option != "paths" && f.option != "probes" &&
            f.option != "flows")
        {
            throw std::invalid_argument("ExplainEvidence: unknown --evidence " + f.option);
        }
        clauses.push_back(fmt::format("--evidence {}, as asked", f.option));
        if (f.option == "probes" && f.probePaths > 0)
        {
            clauses.push_back(fmt::format("with paths.csv's {} rows", f.probePaths));
        }
        return done(f.option, "asked", false);
    }
    // 0. probes.csv: pinned paths over links the traffic may avoid (said only when present:
    // the reasons of runs without probes stay as they were).
    if (f.probesPresent && f.probesWithoutRoutes)
    {
        n["probes_csv"] = true;
        n["probe_streams"] = 0;
        clauses.push_back("probes.csv: no probe stream has a route (no probe arrived, or the "
                          "hosts have several NIC ports, whose routes are not decoded)");
    }
    else if (f.probesPresent)
    {
        n["probes_csv"] = true;
        n["probe_streams"] = f.probeStreams;
        n["probe_paths_csv_rows"] = f.probePaths;
        clauses.push_back(fmt::format("probes.csv: {} rows of probe streams on pinned paths{}",
                                      f.probeStreams,
                                      f.probePaths > 0
                                          ? fmt::format(", with paths.csv's {} rows", f.probePaths)
                                          : std::string()));
        return done("probes", "probes_present", false);
    }
    // 1. ar.csv: the switches steered and at least half of the egresses can be judged.
    n["ar_csv"] = f.arPresent;
    if (!f.arPresent)
    {
        clauses.push_back("ar.csv absent");
    }
    else if (f.arRead)
    {
        n["ar_steered"] = f.arSteered;
        if (!f.arSteered)
        {
            clauses.push_back("ar.csv: no switch steered (hash or random choices say nothing of "
                              "a link's rate)");
        }
        else
        {
            n["ar_judged_share"] = f.arJudgedShare;
            const bool judged = f.arJudgedShare >= 0.5;
            clauses.push_back(fmt::format("ar.csv: the switches steered, and {:.0f} % of the "
                                          "egresses made enough decisions to be judged ({})",
                                          100 * f.arJudgedShare,
                                          judged ? "\u2265 half" : "< half"));
            if (judged)
            {
                n["ar_named"] = f.arNamed;
                n["flows_that_lost"] = f.flowsThatLost;
                if (f.arNamed > 0 || f.flowsThatLost == 0)
                {
                    return done("ar", "ar_steered", false);
                }
                // ar.csv sees what the switches steered away from; a link that loses frames
                // without being slower is not avoided, so its silence says nothing of it.
                clauses.push_back(fmt::format("ar.csv named no egress, and {} flows lost frames "
                                              "(a link that loses frames without being slower "
                                              "is not avoided: ar.csv cannot see it)",
                                              f.flowsThatLost));
            }
        }
    }
    // 2. paths.csv: most QPs used paths side by side.
    n["paths_csv"] = f.pathsPresent;
    if (!f.pathsPresent || !f.pathsRead)
    {
        if (f.pathsPresent)
        {
            throw std::logic_error("ExplainEvidence: paths.csv present but not read");
        }
        clauses.push_back("paths.csv absent");
        return done("flows", "flows_no_paths", false);
    }
    const PathEvidenceCounts& p = f.paths;
    n["qps"] = p.qps;
    n["side_by_side_qps"] = p.sideBySideQps;
    clauses.push_back(HalfOf(p.sideBySideQps, p.qps, "QPs used two or more paths side by side"));
    if (p.evidence == PathEvidence::Compared)
    {
        return done("paths", "paths_side_by_side", false);
    }
    // 3. the losses of rerouted QPs, when the first class named for losses tells routes apart.
    n["lossy_qps"] = p.lossyQps;
    n["rerouted_lossy_qps"] = p.reroutedLossyQps;
    if (p.lossyQps == 0)
    {
        clauses.push_back("no QP lost a copy");
        return done("flows", "flows_paths_not_comparable", false);
    }
    clauses.push_back(
        p.reroutedLossyQps == 0
            ? fmt::format("none of the {} QPs that lost copies was rerouted", p.lossyQps)
            : HalfOf(p.reroutedLossyQps, p.lossyQps, "QPs that lost copies were rerouted"));
    if (p.evidence != PathEvidence::LossesOnly)
    {
        return done("flows", "flows_paths_not_comparable", false);
    }
    if (!f.firstLossClass)
    {
        n["first_loss_class"] = nullptr;
        n["tells_routes_apart"] = false;
        clauses.push_back("the loss fit named no class");
        return done("flows", "flows_loss_class_shared", false);
    }
    nlohmann::json cls = nlohmann::json::array();
    for (uint32_t l : *f.firstLossClass)
    {
        cls.push_back(links.Links().at(l).Name());
    }
    n["first_loss_class"] = cls;
    n["tells_routes_apart"] = f.tellsRoutesApart;
    const std::string name = ClassText(*f.firstLossClass, links);
    if (f.tellsRoutesApart)
    {
        clauses.push_back(fmt::format("the first class named for losses, {}, is crossed by some "
                                      "of a rerouted lossy QP's routes and not others",
                                      name));
        return done("paths", "paths_rerouted_losses", true);
    }
    clauses.push_back(fmt::format("the first class named for losses, {}, is crossed by all or "
                                  "none of each rerouted lossy QP's routes (the routes add "
                                  "nothing to what completion times charge it)",
                                  name));
    return done("flows", "flows_loss_class_shared", false);
}

nlohmann::json
EvidenceChoiceJson(const EvidenceChoice& c)
{
    nlohmann::json j = {{"option", c.option},
                        {"evidence", c.evidence},
                        {"rule", c.rule},
                        {"reason", c.reason}};
    j["numbers"] = c.numbers;
    return j;
}

} // namespace locate
} // namespace tusk
