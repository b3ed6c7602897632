#include "locate/locate-command.h"
#include "locate/ar-signals.h"
#include "locate/evidence-choice.h"
#include "locate/path-report.h"
#include "locate/pool.h"

#include "fabric/model/input-error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace tusk
{
namespace locate
{

namespace
{

/** Refuses NaN and infinities, which pass CLI::Range (every comparison with NaN is false). */
const CLI::Validator kFinite(
    [](std::string& text) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(x))
        {
            return "expected a finite number, got " + text;
        }
        return "";
    },
    "FINITE");

/** Refuses a leading minus for an unsigned option (CLI11 wraps -1 to 2^64 - 1). */
const CLI::Validator kUnsigned(
    [](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        {
            return "expected an unsigned integer, got " + text;
        }
        return "";
    },
    "UINT");

} // namespace

CLI::App*
AddCommand(CLI::App& app, CommandOptions& o)
{
    auto* cmd = app.add_subcommand(
        "locate",
        "Rank the links most likely to be faulty (slow or lossy) from end-to-end observations "
        "only: each flow's completion time against its ideal, its retransmissions and its "
        "path(s) in flows.csv, or the NICs' per-path telemetry (paths.csv), the switches' AR "
        "counts (ar.csv) or monitoring probes (probes.csv), and the link names of links.csv "
        "(docs/locate.md)");
    cmd->add_option("results_dir", o.resultsDirs,
                    "A run directory (flows.csv with `path` or `paths`, links.csv); several "
                    "runs of one fabric (the same links.csv) are located together, their "
                    "evidence pooled: probes.csv, paths.csv and flows.csv rows concatenated, "
                    "ar.csv summed; all of them with probes.csv or none (docs/locate.md, "
                    "\"Several runs of one fabric\")")
        ->required();
    cmd->add_option("--top", o.top, "Show at most K suspects")
        ->check(CLI::Range(1u, 1000000u))
        ->capture_default_str();
    cmd->add_flag("--json", o.json, "One JSON document on stdout instead of the table");
    cmd->add_option("--method", o.method,
                    "bayes (binary tomography, Gibbs sampling), nnls (non-negative least squares "
                    "+ bootstrap) or lasso (reweighted L1 + bootstrap); for completion-time "
                    "evidence (per-path and AR evidence have their own fits)")
        ->check(CLI::IsMember({"bayes", "nnls", "lasso"}))
        ->capture_default_str();
    cmd->add_option("--evidence", o.evidence,
                    "auto: switch AR telemetry (ar.csv, [output] ar_telemetry) when the run's "
                    "switches steered, else per-path telemetry (paths.csv, [output] "
                    "path_telemetry) when the run has it and most QPs used several paths side "
                    "by side, or for the losses of QPs whose routes a switch changed (per-route "
                    "rows), else flow completion times (the output says which, and why: "
                    "evidence_choice); before all of them, monitoring probes (probes.csv, "
                    "[probes]) when the run sent them, with paths.csv's rows where the run has "
                    "it; ar, paths, probes or flows to choose")
        ->check(CLI::IsMember({"auto", "ar", "paths", "probes", "flows"}))
        ->capture_default_str();
    auto& t = o.tomography;
    cmd->add_option("--min-confidence", t.minConfidence,
                    "Name no link below this confidence (0..1; completion-time evidence). A link "
                    "is named only when at least 2 of the flows crossing it were also slow or "
                    "lossy, so 0 does not name a link without such evidence (a healthy run "
                    "still has no suspect); --json ranks every link class with its confidence, "
                    "named or not")
        ->check(kFinite)
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    cmd->add_option("--slow-factor", t.slowFactor,
                    "A flow is slow when its slowdown exceeds what sharing explains by this "
                    "factor (>= 1)")
        ->check(kFinite)
        ->check(CLI::Range(1.0, 1e6))
        ->capture_default_str();
    cmd->add_option("--loss-floor", t.lossFloor,
                    "A flow is lossy when at least this fraction of its packets was resent; "
                    "a class is named for its losses only when its flows lost at least this "
                    "fraction of the packets they put on it")
        ->check(kFinite)
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    cmd->add_option_function<std::string>(
           "--loss-evidence",
           [&t](const std::string& v) { t.classLoss = v == "class"; },
           "Completion-time loss evidence (method bayes): class = each class's lost frames "
           "(its flows', not yet explained by a class named before it) against the rate the "
           "other flows lost at, a Poisson test at 0.01 / classes (docs/locate.md, Method); "
           "flow = a flow losing more than --loss-floor counts as bad in the fit (before "
           "2026-12-06)")
        ->check(CLI::IsMember({"class", "flow"}))
        ->default_str("class");
    cmd->add_option("--seed", t.seed, "Seed of the Gibbs sampler and the bootstrap")
        ->check(kUnsigned)
        ->capture_default_str();
    CLI::Option* whatIf = cmd->add_flag("--what-if", o.whatIf,
                  "Cost the first named suspect: the bytes its siblings carried for it, the "
                  "queueing on the paths that avoid it, and two derived runs from the manifest "
                  "(no fault; the suspect as found plus one sibling cable down) with their CCT "
                  "and FCTs (docs/locate.md, \"What a hidden fault costs\"); one run only");
    cmd->add_option("--what-if-link", o.whatIfLink,
                    "FROM->TO: cost this link direction instead of the first named")
        ->needs(whatIf);
    cmd->add_option("--what-if-down", o.whatIfDown,
                    "FROM-TO: the cable the derived run also takes down (default: the suspect's "
                    "sibling that carried the most)")
        ->needs(whatIf);
    cmd->add_flag("--list-unobserved", o.listUnobserved,
                  "Also name, in the table, every link direction that no flow's data frames "
                  "(no probe, with probes.csv evidence) crossed (a fault there cannot be seen; "
                  "--json always lists them: unobserved_links)");
    cmd->add_option("--what-if-out", o.whatIfOut,
                    "Where the derived runs go (default RESULTS_DIR.what-if, beside the run)")
        ->needs(whatIf);
    return cmd;
}

namespace
{

std::string
ClassName(const Observations& obs, const Suspect& s)
{
    const auto& links = obs.links.Links();
    std::string name = links[s.links.front()].Name();
    if (s.links.size() > 1)
    {
        name += fmt::format(" (+{} alike)", s.links.size() - 1);
    }
    return name;
}

std::string
Percent(double x)
{
    return fmt::format("{:.2f}%", 100 * x);
}

/** Tier pair of a direction: "agg->core" (VertexTier of each end). */
std::string
TierPair(const DirectedLink& d)
{
    return VertexTier(d.from) + "->" + VertexTier(d.to);
}

/** Per tier pair: (unobserved, directions). */
std::map<std::string, std::pair<uint32_t, uint32_t>>
UnobservedByTier(const Observations& obs, const std::vector<uint32_t>& unused)
{
    std::map<std::string, std::pair<uint32_t, uint32_t>> tiers;
    for (const auto& d : obs.links.Links())
    {
        ++tiers[TierPair(d)].second;
    }
    for (uint32_t l : unused)
    {
        ++tiers[TierPair(obs.links.Links().at(l))].first;
    }
    return tiers;
}

} // namespace

nlohmann::json
UnobservedJson(const Observations& obs, const std::vector<uint32_t>& unused,
               const std::string& source)
{
    using nlohmann::json;
    json names = json::array();
    for (uint32_t l : unused)
    {
        names.push_back(obs.links.Links().at(l).Name());
    }
    json tiers = json::object();
    for (const auto& [t, n] : UnobservedByTier(obs, unused))
    {
        tiers[t] = {{"unobserved", n.first}, {"directions", n.second}};
    }
    return {{"unobserved_links", names},
            {"unobserved_by_tier", tiers},
            {"unobserved_from", source}};
}

std::string
UnobservedText(const Observations& obs, const std::vector<uint32_t>& unused,
               const std::string& source, bool listAll)
{
    if (unused.empty())
    {
        // Said only when asked: an empty answer would read as a command that did nothing.
        return listAll ? "unobserved: none (every link direction carried some flow's data "
                         "frames)\n"
                       : "";
    }
    std::string tiers;
    for (const auto& [t, n] : UnobservedByTier(obs, unused))
    {
        if (n.first)
        {
            tiers += fmt::format("{}{} {} of {}", tiers.empty() ? "" : ", ", t, n.first, n.second);
        }
    }
    const bool probes = std::string(source) == "probes.csv";
    std::string text = fmt::format(
        "unobserved: {} of {} link directions carried no {} ({} paths{}): a fault on them "
        "cannot be seen: {}{}\n",
        unused.size(), obs.links.Links().size(), probes ? "probe" : "flow's data frames",
        source, probes ? "" : "; ACKs are not counted", tiers,
        listAll ? "" : " (--list-unobserved names them)");
    if (listAll)
    {
        std::string names;
        for (uint32_t l : unused)
        {
            names += (names.empty() ? "" : ", ") + obs.links.Links().at(l).Name();
        }
        text += "unobserved directions: " + names + "\n";
    }
    return text;
}

void
PrintTable(const Observations& obs, const LocateResult& r, const CommandOptions& o,
           std::ostream& out)
{
    const auto& s = r.signals;
    const auto& inc = r.incidence;
    out << fmt::format("{}: {} flows with a path", o.resultsDir, obs.flows.size());
    if (obs.skippedFlows)
    {
        out << fmt::format(" ({} without one skipped)", obs.skippedFlows);
    }
    if (obs.skippedReductionFlows)
    {
        out << fmt::format(" ({} to or from aggregation endpoints skipped: an in-network "
                           "reduction times them)",
                           obs.skippedReductionFlows);
    }
    if (obs.notStartedFlows)
    {
        out << fmt::format(" ({} never started: the run stopped before their turn)",
                           obs.notStartedFlows);
    }
    out << fmt::format(", {} link directions in {} classes", obs.links.Links().size(),
                       inc.classes.size());
    if (inc.unusedLinks)
    {
        out << fmt::format(" ({} carried no flow: not observable)", inc.unusedLinks);
    }
    out << fmt::format(", method {}\n", MethodName(o.tomography.method));
    out << "evidence: flow completion times and paths (flows.csv)\n";
    out << fmt::format("slow flows: {} (slowdown > x{:.2f} what sharing explains, or "
                       "unfinished); lossy flows: {} (> {} of packets resent)\n",
                       s.slowCount, std::exp(s.excessThreshold), s.lossyCount,
                       Percent(s.lossThreshold));
    if (!r.classLoss.empty())
    {
        uint32_t lossNamed = 0;
        for (const auto& c : r.classLoss)
        {
            lossNamed += c.named;
        }
        double lost = 0;
        for (double l : s.lost)
        {
            lost += l;
        }
        out << fmt::format("loss per class: {:.0f} frames lost in all; {} classes whose flows lost "
                           "frames improbably often (Poisson, p <= {:g} / {} classes; each "
                           "explains its flows' losses)\n",
                           lost, lossNamed, o.tomography.lossAlpha, r.classLoss.size());
    }
    const uint32_t shown = std::min<uint32_t>(r.named, o.top);
    if (shown == 0)
    {
        out << fmt::format("no suspect: no link reaches confidence {:.2f} with at least {} slow "
                           "or lossy flows across it",
                           o.tomography.minConfidence, o.tomography.minBadFlows);
        if (!r.ranking.empty())
        {
            out << fmt::format(" (highest: {} at {:.2f})", ClassName(obs, r.ranking.front()),
                               r.ranking.front().confidence);
        }
        out << "\n";
        return;
    }
    size_t width = 4;
    for (uint32_t i = 0; i < shown; ++i)
    {
        width = std::max(width, ClassName(obs, r.ranking[i]).size());
    }
    out << fmt::format("{:>4}  {:<{}} {:>7}  {:<10} {:>6} {:>7} {:>8} {:>10} {:>10} {:>11}\n",
                       "rank", "link", width, "link_id", "kind", "rate", "loss", "score",
                       "confidence", "slow/flows", "lossy/flows");
    for (uint32_t i = 0; i < shown; ++i)
    {
        const Suspect& sp = r.ranking[i];
        out << fmt::format("{:>4}  {:<{}} {:>7}  {:<10} {:>6.2f} {:>7} {:>8.2f} {:>10.2f} {:>10} {:>11}\n",
                           i + 1, ClassName(obs, sp), width,
                           obs.links.Links()[sp.links.front()].linkId, sp.Kind(), sp.rateFactor,
                           Percent(sp.lossRate), sp.score, sp.confidence,
                           fmt::format("{}/{}", sp.slowFlows, sp.flows),
                           fmt::format("{}/{}", sp.lossyFlows, sp.flows));
    }
    for (uint32_t i = 0; i < shown; ++i)
    {
        const Suspect& sp = r.ranking[i];
        if (sp.links.size() > 1)
        {
            std::string names;
            for (uint32_t l : sp.links)
            {
                names += (names.empty() ? "" : ", ") + obs.links.Links()[l].Name();
            }
            out << fmt::format("rank {}: {} links no flow set tells apart: {}\n", i + 1,
                               sp.links.size(), names);
        }
    }
    for (const FlowTie& t : r.ties)
    {
        if (t.named < shown)
        {
            out << fmt::format("rank {}: tied with {} (rank {}): the same {} slow or lossy flows "
                               "cross both, which of the two it is those flows cannot say; "
                               "ranked above it by the fit's score ({:.2f} against {:.2f}; "
                               "{} against {} flows in all)\n",
                               t.named + 1, ClassName(obs, r.ranking[t.tied]), t.tied + 1,
                               t.badFlows, r.ranking[t.named].score, r.ranking[t.tied].score,
                               r.ranking[t.named].flows, r.ranking[t.tied].flows);
        }
    }
    if (r.named > shown)
    {
        out << fmt::format("({} more above the threshold: --top)\n", r.named - shown);
    }
    out << "rate = estimated rate / nominal (1/median excess slowdown of its slow flows); loss = "
           "estimated fraction of its packets lost; confidence: "
        << (o.tomography.method == Method::Bayes ? "posterior probability that it is faulty"
                                                 : "fraction of bootstrap refits that name it")
        << (r.classLoss.empty() ? "" : " (named for its losses: 1 - p-value x classes)")
        << "\n";
}

std::string
ToJson(const Observations& obs, const LocateResult& r, const CommandOptions& o)
{
    using nlohmann::json;
    const auto& s = r.signals;
    json doc = {
        {"results_dir", o.resultsDir},
        {"method", MethodName(o.tomography.method)},
        {"evidence", "flows"},
        {"flows", obs.flows.size()},
        {"skipped_flows", obs.skippedFlows},
        {"skipped_reduction_flows", obs.skippedReductionFlows},
        {"not_started_flows", obs.notStartedFlows},
        {"link_directions", obs.links.Links().size()},
        {"classes", r.incidence.classes.size()},
        {"unobserved_link_directions", r.incidence.unusedLinks},
        {"slow_flows", s.slowCount},
        {"lossy_flows", s.lossyCount},
        {"slow_factor_threshold", std::exp(s.excessThreshold)},
        {"loss_threshold", s.lossThreshold},
        {"loss_evidence", r.classLoss.empty() ? "flow" : "class"},
        {"min_confidence", o.tomography.minConfidence},
        {"named", r.named},
    };
    json ranking = json::array();
    for (uint32_t i = 0; i < std::min<size_t>(o.top, r.ranking.size()); ++i)
    {
        const Suspect& sp = r.ranking[i];
        json links = json::array();
        for (uint32_t l : sp.links)
        {
            const auto& d = obs.links.Links()[l];
            links.push_back({{"link_id", d.linkId}, {"from", d.from}, {"to", d.to}});
        }
        ranking.push_back({{"rank", i + 1},
                           {"named", sp.named},
                           {"links", links},
                           {"kind", sp.Kind()},
                           {"rate_factor", sp.rateFactor},
                           {"loss_rate", sp.lossRate},
                           {"score", sp.score},
                           {"confidence", sp.confidence},
                           {"flows", sp.flows},
                           {"slow_flows", sp.slowFlows},
                           {"lossy_flows", sp.lossyFlows}});
        if (!r.classLoss.empty())
        {
            const ClassLoss& cl = r.classLoss[sp.cls];
            ranking.back()["class_loss"] = {{"lost_frames", cl.lost},
                                            {"expected_frames", cl.expected},
                                            {"flows_that_lost", cl.lossyFlows},
                                            {"p_value", cl.pValue},
                                            {"p_value_alone", cl.pValueAlone},
                                            {"named", cl.named}};
        }
    }
    doc["ranking"] = ranking;
    if (!r.ties.empty())
    {
        auto linksOf = [&](const Suspect& sp) {
            json links = json::array();
            for (uint32_t l : sp.links)
            {
                const auto& d = obs.links.Links()[l];
                links.push_back({{"link_id", d.linkId}, {"from", d.from}, {"to", d.to}});
            }
            return links;
        };
        json ties = json::array();
        for (const FlowTie& t : r.ties)
        {
            ties.push_back({{"named_rank", t.named + 1},
                            {"tied_rank", t.tied + 1},
                            {"named_links", linksOf(r.ranking[t.named])},
                            {"tied_links", linksOf(r.ranking[t.tied])},
                            {"bad_flows", t.badFlows},
                            {"named_flows", r.ranking[t.named].flows},
                            {"tied_flows", r.ranking[t.tied].flows}});
        }
        doc["flow_ties"] = ties;
    }
    return doc.dump(2) + "\n";
}

namespace
{

/** What one evidence said: the table or JSON, and each ranked link's estimated rate. */
struct Verdict
{
    std::string text;
    std::string json;
    int first = -1;               //!< the first named directed link, -1 = none
    std::map<uint32_t, double> rate; //!< directed link -> estimated rate / nominal
    std::map<uint32_t, double> loss; //!< directed link -> estimated fraction of frames lost
    std::string evidence;
    EvidenceChoice choice;           //!< why this evidence (evidence == choice.evidence)
    std::vector<uint32_t> unobserved; //!< directions no flow's (path's) data crossed
    std::string unobservedFrom;      //!< whose paths were counted: "flows.csv" or "paths.csv"
};

void
NoteSuspects(Verdict& v, const std::vector<Suspect>& ranking)
{
    for (const auto& s : ranking)
    {
        for (uint32_t l : s.links)
        {
            v.rate.emplace(l, s.rateFactor);
            v.loss.emplace(l, s.lossRate);
        }
        if (v.first < 0 && s.named)
        {
            v.first = static_cast<int>(s.links.front());
        }
    }
}

/** The directed link "FROM->TO" or "FROM-TO" names. */
uint32_t
FindLink(const Observations& obs, const std::string& name)
{
    const auto& dl = obs.links.Links();
    for (uint32_t l = 0; l < dl.size(); ++l)
    {
        if (name == dl[l].from + "->" + dl[l].to || name == dl[l].from + "-" + dl[l].to)
        {
            return l;
        }
    }
    throw ns3::InputError("<command line>", 0, "--what-if-link",
                          fmt::format("links.csv has no link direction \"{}\" (expected "
                                      "FROM->TO, vertex names as links.csv writes them)",
                                      name));
}

/** The first of `dirs` without `name` (-1: every one has it) and the first with it (-1: none). */
std::pair<int, int>
Presence(const std::vector<std::string>& dirs, const char* name)
{
    int missing = -1, present = -1;
    for (size_t k = 0; k < dirs.size(); ++k)
    {
        const bool has = std::filesystem::exists(std::filesystem::path(dirs[k]) / name);
        int& slot = has ? present : missing;
        slot = slot < 0 ? static_cast<int>(k) : slot;
    }
    return {missing, present};
}

/** `name` in `dir`. */
std::string
FileOf(const std::string& dir, const char* name)
{
    return (std::filesystem::path(dir) / name).string();
}

/** `read(stream, file)` of the file `name` of each run, in order; a file that cannot be opened
 *  is bad input naming it. */
template <typename Read>
auto
ReadEachRun(const std::vector<std::string>& dirs, const char* name, Read read)
{
    std::vector<decltype(read(std::declval<std::istream&>(), std::string()))> runs;
    for (const auto& dir : dirs)
    {
        const std::string file = FileOf(dir, name);
        std::ifstream in(file);
        if (!in)
        {
            throw ns3::InputError(file, 0, "", "cannot open the file");
        }
        runs.push_back(read(in, file));
    }
    return runs;
}

/** SHA-256 of a file's bytes (OpenSSL EVP), 64 hex digits; empty when it cannot be read. */
std::string
Sha256OfFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        return "";
    }
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                                &EVP_MD_CTX_free);
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    {
        throw std::runtime_error("SHA-256 failed (OpenSSL EVP_DigestInit_ex)");
    }
    std::vector<char> block(1 << 16);
    while (in.read(block.data(), static_cast<std::streamsize>(block.size())) || in.gcount() > 0)
    {
        EVP_DigestUpdate(ctx.get(), block.data(), static_cast<size_t>(in.gcount()));
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_DigestFinal_ex(ctx.get(), md, &len);
    std::string hex;
    for (unsigned i = 0; i < len; ++i)
    {
        hex += fmt::format("{:02x}", md[i]);
    }
    return hex;
}

/**
 * Several runs pooled must be several observations: a folder given twice, two runs of the
 * same scenario and seed (the same frames and draws: a copy, or a re-run), or two runs whose
 * flows.csv or paths.csv are byte-identical (SHA-256: one seed in another simulator mode, an
 * edited manifest) would count one run's evidence twice and overstate its significance. \throws ns3::InputError naming both
 */
void
RefuseRepeatedRuns(const std::vector<std::string>& dirs)
{
    namespace fs = std::filesystem;
    std::map<std::string, std::string> byPath;
    std::map<std::string, std::string> byRun;
    std::map<std::string, std::string> byContent;
    for (const auto& dir : dirs)
    {
        std::error_code ec;
        const std::string path = fs::weakly_canonical(dir, ec).string();
        if (!ec && !byPath.emplace(path, dir).second)
        {
            throw ns3::InputError("<command line>", 0, dir,
                                  fmt::format("the same results folder as {}: a run's evidence "
                                              "is pooled once",
                                              byPath.at(path)));
        }
        std::ifstream in(FileOf(dir, "manifest.json"));
        const auto m = nlohmann::json::parse(in, nullptr, false);
        // (A manifest without them: ReadObservations says what is wrong with it.)
        if (!m.is_discarded() && m.is_object() && m.contains("scenario") && m.contains("seed"))
        {
            const std::string run = m.at("seed").dump() + " " + m.at("scenario").dump();
            if (!byRun.emplace(run, dir).second)
            {
                throw ns3::InputError(FileOf(dir, "manifest.json"), 0, "seed",
                                      fmt::format("the same scenario and seed as {}: the same "
                                                  "run, whose evidence would count twice (pool "
                                                  "runs of other seeds or times)",
                                                  byRun.at(run)));
            }
        }
        // By content: the same flows.csv (or paths.csv) is the same evidence, whatever the
        // manifest says (another simulator mode of one seed, a renamed or edited manifest).
        for (const char* name : {"flows.csv", "paths.csv"})
        {
            const std::string hash = Sha256OfFile(FileOf(dir, name));
            if (hash.empty())
            {
                continue;
            }
            const auto [it, fresh] = byContent.emplace(std::string(name) + " " + hash, dir);
            if (!fresh)
            {
                throw ns3::InputError(FileOf(dir, name), 0, "",
                                      fmt::format("byte-identical to {}'s (SHA-256 {}): the "
                                                  "same evidence, which would count twice "
                                                  "(pool runs of other seeds or times)",
                                                  it->second, hash.substr(0, 12)));
            }
        }
    }
}

/** Several runs located together must all have the evidence used: the first without it. */
[[noreturn]] void
MissingInPool(const std::vector<std::string>& dirs, int missing, int present, const char* name,
              const char* other)
{
    throw ns3::InputError(FileOf(dirs[static_cast<size_t>(missing)], name), 0, "",
                          fmt::format("no such file, where {} has one: runs located together "
                                      "must all have the evidence used ({})",
                                      dirs[static_cast<size_t>(present)], other));
}

/** Whether every run of `dirs` has `name`. Refused (exit 2, naming the run without it) when
 *  `--evidence asked` was given (`needs` says what writes the file), or under auto when some
 *  runs have it and others do not (`other`: the choices left). */
bool
EveryRunHas(const std::vector<std::string>& dirs, const char* name, const std::string& option,
            const char* asked, const char* needs, const char* other)
{
    const auto [missing, present] = Presence(dirs, name);
    if (option == asked && missing >= 0)
    {
        throw ns3::InputError(FileOf(dirs[static_cast<size_t>(missing)], name), 0, "",
                              fmt::format("no such file: --evidence {} needs a run with {}",
                                          asked, needs));
    }
    if (option == "auto" && missing >= 0 && present >= 0)
    {
        MissingInPool(dirs, missing, present, name, other);
    }
    return missing < 0;
}

/** The verdict of the per-path fit `r` (from probes.csv or paths.csv, `file`): its suspects,
 *  what no path crossed, the JSON and the table. */
Verdict
PathVerdict(Verdict v, const char* evidence, const char* file, const Observations& obs,
            const PathLocateResult& r, const CommandOptions& o)
{
    std::ostringstream text;
    v.evidence = evidence;
    NoteSuspects(v, r.ranking);
    v.unobserved = r.unused;
    v.unobservedFrom = file;
    v.json = PathJson(obs, r, o.resultsDir, o.top);
    PrintPathTable(obs, r, o.resultsDir, o.top, text);
    v.text = text.str();
    return v;
}

Verdict
Decide(const CommandOptions& o, const CommandOptions& opts, const Observations& obs,
       const std::vector<std::string>& dirs)
{
    Verdict v;
    std::ostringstream text;
    EvidenceFacts facts;
    facts.option = o.evidence;
    // 0. Probes (probes.csv): every link a probe crossed, on pinned paths, whatever the
    // policy did with the traffic; paths.csv's rows join them where every run has it.
    facts.probesPresent = EveryRunHas(dirs, "probes.csv", o.evidence, "probes",
                                      "[probes] interval_us > 0",
                                      "or choose --evidence ar, paths or flows");
    std::vector<std::vector<PathObservation>> probeRuns;
    if (facts.probesPresent && (o.evidence == "probes" || o.evidence == "auto"))
    {
        probeRuns = ReadEachRun(dirs, "probes.csv", [&](std::istream& in, const std::string& f) {
            auto run = ReadProbeObservations(in, f, obs.links);
            if (run.empty() && o.evidence == "probes")
            {
                throw ns3::InputError(f, 0, "paths",
                                      "no probe stream has a route: nothing to locate from "
                                      "probes (no probe arrived, or the hosts have several "
                                      "NIC ports, whose routes are not decoded)");
            }
            return run;
        });
        // auto: a run none of whose streams has a route (hosts with several NIC ports) says
        // nothing; the next evidence is looked at.
        facts.probesWithoutRoutes =
            std::any_of(probeRuns.begin(), probeRuns.end(),
                        [](const std::vector<PathObservation>& r) { return r.empty(); });
    }
    if (facts.probesPresent && !facts.probesWithoutRoutes &&
        (o.evidence == "probes" || o.evidence == "auto"))
    {
        auto runs = std::move(probeRuns);
        if (Presence(dirs, "paths.csv").first < 0)
        {
            auto telemetry =
                ReadEachRun(dirs, "paths.csv", [&](std::istream& in, const std::string& f) {
                    return ReadPathObservations(in, f, obs.links);
                });
            // Its delays only: the probes' losses are each pinned path's own, while a QP's
            // lost copies are placed by guess wherever its frames took several routes (spread
            // over a sprayed QP's routes, over a rerouted QP's paths, or all lost and traced),
            // and a guess beside the probes names the routes the copies were put on
            // (bench/locate, 2026-12-07, 128 hosts, 1 % loss: 7 of 20 runs named a sibling
            // under switch spraying, 4 under DRILL, 1 a host link under ConWeave).
            for (size_t k = 0; k < runs.size(); ++k)
            {
                for (auto& p : telemetry[k])
                {
                    if (!p.traced)
                    {
                        p.lost = 0;
                        p.delayOnly = true; // nor its packets in the loss fit's denominators
                        runs[k].push_back(std::move(p));
                    }
                }
            }
        }
        const std::vector<PathObservation> rows = PoolPathRows(std::move(runs));
        PathLocateOptions po;
        po.lossFloor = o.tomography.lossFloor;
        const PathLocateResult r = LocateFromPaths(obs, rows, po);
        facts.probeStreams = r.probeStreams;
        facts.probePaths = r.paths - r.probeStreams;
        v.choice = ExplainEvidence(facts, obs.links);
        return PathVerdict(std::move(v), "probes", "probes.csv", obs, r, o);
    }
    const bool haveAr = EveryRunHas(dirs, "ar.csv", o.evidence, "ar",
                                    "[output] ar_telemetry = true",
                                    "or choose --evidence paths or flows");
    facts.arPresent = haveAr;
    if (haveAr && (o.evidence == "ar" || o.evidence == "auto"))
    {
        const auto rows =
            PoolArRows(ReadEachRun(dirs, "ar.csv", [&obs](std::istream& in, const std::string& f) {
                return ReadArObservations(in, f, obs.links);
            }));
        // auto: only when the switches steered (a hash or random choice says nothing of a
        // link's rate) and made enough decisions per egress for at least half of the egresses
        // to be judged (a policy that decides once per flow counts a handful per egress: no
        // link could be named, so completion times or per-path telemetry say more).
        facts.arRead = true;
        facts.arSteered = ArHasAdaptiveDecisions(rows);
        facts.arJudgedShare = facts.arSteered ? ArJudgedShare(rows, ArLocateOptions{}) : 0.0;
        const ArLocateResult r = LocateFromAr(obs, rows, ArLocateOptions{});
        facts.arNamed = r.named;
        for (const auto& f : obs.flows)
        {
            facts.flowsThatLost +=
                f.retxPackets > f.spuriousRetx + f.inFlightPackets ? 1u : 0u;
        }
        v.choice = ExplainEvidence(facts, obs.links);
        if (v.choice.evidence == "ar")
        {
            v.evidence = "ar";
            for (const auto& s : r.ranking)
            {
                v.rate.emplace(s.link, s.rateFactor);
                if (v.first < 0 && s.named)
                {
                    v.first = static_cast<int>(s.link);
                }
            }
            // ar.csv counts decisions, not paths: what no flow crossed is flows.csv's (not
            // said when no flow has a path there).
            if (!obs.flows.empty())
            {
                v.unobserved = BuildIncidence(obs).unused;
                v.unobservedFrom = "flows.csv";
            }
            v.json = ArJson(obs, r, o.resultsDir, o.top);
            PrintArTable(obs, r, o.resultsDir, o.top, text);
            v.text = text.str();
            return v;
        }
    }
    bool havePaths = EveryRunHas(dirs, "paths.csv", o.evidence, "paths",
                                 "[output] path_telemetry = true",
                                 "or choose --evidence flows");
    facts.pathsPresent = havePaths;
    std::vector<PathObservation> rows;
    if (havePaths && (o.evidence == "paths" || o.evidence == "auto"))
    {
        std::string firstFile;
        bool firstPerRoute = false;
        auto runs = ReadEachRun(dirs, "paths.csv", [&](std::istream& in, const std::string& f) {
            auto run = ReadPathObservations(in, f, obs.links);
            if (run.empty())
            {
                throw ns3::InputError(f, 0, "paths",
                                      "no row has a path: nothing to locate from per-path "
                                      "telemetry");
            }
            // Rows per route and rows per entropy count a path's evidence differently (a
            // route row is one of an entropy's): pooled, they would mix two kinds of sibling.
            const bool perRoute = std::any_of(run.begin(), run.end(),
                                              [](const PathObservation& p) { return p.routed; });
            if (firstFile.empty())
            {
                firstFile = f;
                firstPerRoute = perRoute;
            }
            else if (perRoute != firstPerRoute)
            {
                const auto mode = [](bool route) {
                    return route ? "per route (path_telemetry = \"route\")"
                                 : "per entropy (path_telemetry = true)";
                };
                throw ns3::InputError(
                    f, 0, "route",
                    fmt::format("rows {} where {} has rows {}: locate pools runs of one "
                                "telemetry mode only (locate them apart, or run them alike)",
                                mode(perRoute), firstFile, mode(firstPerRoute)));
            }
            return run;
        });
        rows = PoolPathRows(std::move(runs));
        facts.pathsRead = true;
        facts.paths = CountPathEvidence(rows);
    }
    // auto: per-path delays need QPs whose paths were used side by side (PathsComparable);
    // where a QP's routes followed one another (a reroute) only its lost copies, placed by
    // likelihood, are comparable across routes, and they are used when the loss fit names a
    // class that tells such routes apart (AutoPathEvidence, TellsReroutedRoutesApart; else
    // completion times, which see delay faults).
    const PathEvidence pathEvidence =
        havePaths && o.evidence == "auto" ? facts.paths.evidence : PathEvidence::None;
    if (havePaths && (o.evidence == "paths" || pathEvidence != PathEvidence::None))
    {
        PathLocateOptions po;
        po.lossFloor = o.tomography.lossFloor;
        po.compareSequentialRoutes = pathEvidence != PathEvidence::LossesOnly;
        const PathLocateResult r = LocateFromPaths(obs, rows, po);
        // Losses only: when the first class named for losses tells a rerouted QP's routes
        // apart (else the routes add nothing to what completion times charge it).
        const auto firstLossy =
            std::find_if(r.ranking.begin(), r.ranking.end(), [](const Suspect& s) {
                return s.named && s.NamedForLosses();
            });
        if (pathEvidence == PathEvidence::LossesOnly)
        {
            if (firstLossy != r.ranking.end())
            {
                facts.firstLossClass = firstLossy->links;
                facts.tellsRoutesApart = TellsReroutedRoutesApart(rows, firstLossy->links);
            }
        }
        v.choice = ExplainEvidence(facts, obs.links);
        if (v.choice.evidence == "paths")
        {
            return PathVerdict(std::move(v), "paths", "paths.csv", obs, r, o);
        }
    }
    if (obs.flows.empty())
    {
        // A run stopped before anything was delivered has no path for a reason of its own.
        const std::string why =
            obs.notStartedFlows
                ? fmt::format("; {} of its flows never started and the others delivered "
                              "nothing yet: the run stopped too early to show any path",
                              obs.notStartedFlows)
                : "";
        throw ns3::InputError(obs.flowsFile, 0, "path",
                              "no flow has a path: nothing to locate (`path`/`paths` are empty; "
                              "flows.csv has none for hosts with several NIC ports, planes or "
                              "dual-ToR: run with [output] path_telemetry = true and "
                              "--evidence paths)" +
                                  why);
    }
    if (dirs.size() > 1)
    {
        // Every run pooled must have evidence: one without a flow with a path is refused.
        std::vector<bool> seen(dirs.size(), false);
        for (const auto& f : obs.flows)
        {
            seen[f.run] = true;
        }
        for (size_t k = 0; k < dirs.size(); ++k)
        {
            if (!seen[k])
            {
                throw ns3::InputError(FileOf(dirs[k], "flows.csv"), 0, "path",
                                      "no flow has a path: nothing to locate in this run, "
                                      "located with others");
            }
        }
    }
    v.choice = ExplainEvidence(facts, obs.links);
    if (v.choice.evidence != "flows")
    {
        throw std::logic_error("locate: the evidence rule chose " + v.choice.evidence +
                               " after its step");
    }
    const LocateResult r = Locate(obs, opts.tomography);
    v.evidence = "flows";
    v.unobserved = r.incidence.unused;
    v.unobservedFrom = "flows.csv";
    NoteSuspects(v, r.ranking);
    v.json = ToJson(obs, r, opts);
    PrintTable(obs, r, opts, text);
    v.text = text.str();
    return v;
}

} // namespace

int
RunCommand(const CommandOptions& options, std::ostream& out)
{
    const std::vector<std::string> dirs =
        options.resultsDirs.empty() ? std::vector<std::string>{options.resultsDir}
                                    : options.resultsDirs;
    const bool pooled = dirs.size() > 1;
    if (pooled && options.whatIf)
    {
        throw ns3::InputError("<command line>", 0, "--what-if",
                              fmt::format("costs a suspect of one run (it re-runs that run's "
                                          "scenario); {} runs were given: give one",
                                          dirs.size()));
    }
    CommandOptions o = options;
    o.resultsDir = dirs.front();
    if (pooled)
    {
        RefuseRepeatedRuns(dirs);
    }
    std::vector<Observations> runs;
    for (const auto& dir : dirs)
    {
        runs.push_back(ReadObservations(dir));
        if (runs.size() > 1)
        {
            CheckSameFabric(runs.front(), dirs.front(), runs.back(), dir);
        }
    }
    // A run that did not end well (stopped, failed): located all the same from what it
    // recorded, but said first, as its manifest says it (status and failure).
    std::string notRunOk;
    nlohmann::json failedRuns = nlohmann::json::array();
    for (size_t k = 0; k < runs.size(); ++k)
    {
        if (!runs[k].haveManifest)
        {
            notRunOk += fmt::format("note: {}: no manifest.json: the MTU is taken as 4096 B and "
                                    "the links' configured rates are unknown (no capacity "
                                    "estimate)\n",
                                    dirs[k]);
        }
        if (!runs[k].status.empty() && runs[k].status != "ok")
        {
            notRunOk += fmt::format("note: {}: the run failed (manifest status \"{}\"{}{}); "
                                    "located from what it recorded until it stopped\n",
                                    dirs[k], runs[k].status,
                                    runs[k].failure.empty() ? "" : ": ", runs[k].failure);
            failedRuns.push_back({{"results_dir", dirs[k]},
                                  {"status", runs[k].status},
                                  {"failure", runs[k].failure}});
        }
    }
    const Observations obs = PoolObservations(std::move(runs));
    if (pooled)
    {
        // The tables' first line: what was located.
        o.resultsDir = fmt::format("{} and {} more run{} of its fabric ({} runs pooled)",
                                   dirs.front(), dirs.size() - 1, dirs.size() > 2 ? "s" : "",
                                   dirs.size());
    }
    CommandOptions opts = o;
    opts.tomography.method = ParseMethod(o.method);
    if (o.whatIf && !o.whatIfRunner)
    {
        throw ns3::InputError("<command line>", 0, "--what-if",
                              "this program cannot run the derived scenarios (no runner)");
    }
    const int link = o.whatIfLink.empty() ? -1 : static_cast<int>(FindLink(obs, o.whatIfLink));
    Verdict v = Decide(o, opts, obs, dirs);
    {
        // Why this evidence (additive: `evidence` stays as it was).
        auto doc = nlohmann::json::parse(v.json);
        doc["evidence_choice"] = EvidenceChoiceJson(v.choice);
        v.json = doc.dump(2) + "\n";
        // The table's second line: its first says what was located (scripts read it).
        const size_t eol = v.text.find('\n');
        const size_t at = eol == std::string::npos ? v.text.size() : eol + 1;
        v.text.insert(at, "why this evidence: " + v.choice.reason + "\n");
        // What no flow crossed (since 2026-12-06): listed in the JSON, counted per tier in
        // the table (after it, so its lines keep their places).
        if (!v.unobservedFrom.empty())
        {
            doc.update(UnobservedJson(obs, v.unobserved, v.unobservedFrom));
            if (!doc.contains("unobserved_link_directions"))
            {
                doc["unobserved_link_directions"] = v.unobserved.size(); // ar.csv's has none
            }
            v.json = doc.dump(2) + "\n";
            v.text += UnobservedText(obs, v.unobserved, v.unobservedFrom, o.listUnobserved);
        }
    }
    if (pooled)
    {
        auto doc = nlohmann::json::parse(v.json);
        doc["results_dir"] = dirs.front();
        doc["results_dirs"] = dirs;
        doc["runs"] = dirs.size();
        v.json = doc.dump(2) + "\n";
    }
    if (!failedRuns.empty())
    {
        auto doc = nlohmann::json::parse(v.json);
        doc["failed_runs"] = failedRuns;
        v.json = doc.dump(2) + "\n";
    }
    v.text = notRunOk + v.text;
    if (v.evidence != "flows" && o.method != "bayes")
    {
        // Said on stderr: stdout may be one JSON document (--json).
        std::cerr << "tusk locate: --method " << o.method
                  << " applies to completion-time evidence (--evidence flows); the "
                  << v.evidence << " evidence has its own fit (docs/locate.md)\n";
    }
    if (!o.whatIf)
    {
        out << (opts.json ? v.json : v.text);
        return 0;
    }
    const int suspect = link >= 0 ? link : v.first;
    nlohmann::json w; // null: nothing to cost
    if (suspect >= 0)
    {
        WhatIfRequest q;
        q.resultsDir = o.resultsDir;
        if (o.whatIfOut.empty())
        {
            // Beside the run, as `tusk rerun` writes RESULTS_DIR.rerun.
            auto dir = std::filesystem::absolute(o.resultsDir).lexically_normal();
            if (!dir.has_filename())
            {
                dir = dir.parent_path();
            }
            q.outDir = dir.string() + ".what-if";
        }
        else
        {
            q.outDir = o.whatIfOut;
        }
        q.obs = &obs;
        q.link = static_cast<uint32_t>(suspect);
        const auto it = v.rate.find(q.link);
        q.rateFactor = it != v.rate.end() ? it->second : 1.0;
        // Only per-path telemetry and probes count lost frames. Completion-time evidence counts
        // resends (a go-back-N window per loss: 74 % "lost" for a 1 % link) and its rate
        // already carries what the losses cost the flows.
        const auto lost = v.loss.find(q.link);
        q.lossRate = (v.evidence == "paths" || v.evidence == "probes") && lost != v.loss.end()
                         ? lost->second
                         : 0.0;
        q.evidence = v.evidence;
        q.down = o.whatIfDown;
        w = o.whatIfRunner(q);
    }
    if (opts.json)
    {
        auto doc = nlohmann::json::parse(v.json);
        doc["what_if"] = w;
        out << doc.dump(2) << "\n";
    }
    else
    {
        out << v.text;
        PrintWhatIf(w, out);
    }
    return 0;
}

} // namespace locate
} // namespace tusk
