/*
 * tusk: [[jobs]] and [[jobs.collectives]], training jobs (workload.kind = "jobs").
 */
#include "scenario/scenario-sections.h"

#include "rdma/model/rdma-nic.h"
#include "workload/model/collective-schedule.h"
#include "workload/model/job-model.h"
#include "importers/model/simai-workload.h"

#include <algorithm>

namespace tusk
{

namespace
{

using namespace knob;
using J = JobEntry;
using C = JobCollectiveEntry;
const char* const kP = "jobs";
constexpr uint64_t kMax = bounds::kMaxTransferBytes;

/** A row read by the section itself (its checks need other keys), echoed by `write`. */
template <class Owner>
Knob<Owner>
Later(const char* name, std::string type, std::string unit, std::string doc,
      typename Knob<Owner>::WriteFn write)
{
    return Custom<Owner>(
        name, std::move(type), std::move(unit), std::move(doc),
        [](ScenarioReader&, const toml::node&, const std::string&, Owner&) {}, std::move(write));
}

const std::vector<Knob<C>>&
CollectiveRows()
{
    static const std::vector<Knob<C>> rows = {
        Later<C>("kind", "string", "",
                 "`\"all-reduce\"`, `\"all-gather\"`, `\"reduce-scatter\"`, `\"all-to-all\"`, "
                 "`\"broadcast\"`, `\"send-recv\"`, `\"permutation\"` or `\"incast\"` (case and "
                 "`_`/`-` ignored).",
                 [](const C& c) { return nlohmann::json(c.kind); })
            .Default("required"),
        Later<C>("algorithm", "string", "",
                 "all-reduce: `\"ring\"`, `\"halving-doubling\"`, `\"double-binary-tree\"`, "
                 "`\"hierarchical-ring\"`, `\"in-network\"` (needs `topology.in_network_reduction`); "
                 "all-gather, reduce-scatter: `\"ring\"`; all-to-all: "
                 "`\"direct\"`, `\"pairwise\"`; broadcast: `\"chain\"`; the others: `\"p2p\"`; "
                 "any kind: `\"auto\"`, NCCL's choice for an all-reduce by size, rank count and "
                 "servers of its group, in-network among them where the switches aggregate "
                 "(ns3-modules/workload/doc/workload.md), the kind's first for the others.",
                 [](const C& c) {
                     return c.algorithm.empty() ? nlohmann::json() : nlohmann::json(c.algorithm);
                 })
            .Default("the kind's first"),
        Text<C>("name", &C::name, "Label in `collectives.csv`.")
            .Default("the kind"),
        Choice<C>("group", &C::group, ns3::ProcessGroups::Kinds(),
                  "Process group kind (above)."),
        Later<C>("bytes", "size 0.." + SizeBoundText(kMax), "bytes",
                 "S as nccl-tests uses it (all-reduce/broadcast buffer, all-gather output, "
                 "reduce-scatter input, all-to-all send buffer; a message for send-recv, "
                 "permutation, incast). `0`: no traffic, only the compute.",
                 [](const C& c) { return nlohmann::json(c.bytes); })
            .Default("required"),
        Time<C>("compute_us", &C::computePs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kSimTime,
                "Compute before this collective starts."),
        Boolean<C>("blocking", &C::blocking,
                   "The next collective waits for this one to complete; `false` overlaps it with "
                   "what follows (the iteration still ends when it completes)."),
        Count<C>("every", &C::every, 1, "Run only in iterations i with (i+1) mod every = 0."),
        Count<C>("root", &C::root, 0,
                 "Broadcast root, incast destination, send-recv sender (rank within the group).")
            .Unit("rank"),
        Count<C>("peer", &C::peer, 0, "Send-recv receiver.").Unit("rank"),
        Boolean<C>("shift", &C::shift,
                   "Send-recv: every rank sends to the next one at once (pipeline-parallel "
                   "stages); `false`: only `root` → `peer`."),
        Count<C>("local_size", &C::localSize, 0,
                 "Hierarchical ring: ranks per server (consecutive members of the group); `0` = "
                 "`scale_up.gpus_per_server` when the group is made of whole servers, else 1 (a "
                 "flat ring)."),
    };
    return rows;
}

const std::vector<Knob<J>>&
JobRows()
{
    static const std::vector<Knob<J>> rows = {
        Text<J>("name", &J::name, "Name in results (`jobs.csv`, `collectives.csv`).")
            .Default("`\"job<i>\"`"),
        Later<J>("ranks", "integer ≥ 1", "",
                 "GPUs of the job. Default: the `hosts` of an explicit placement, the SimAI "
                 "file's `all_gpus`, the number of `hosts`, or all hosts.",
                 [](const J& j) { return j.ranks > 0 ? nlohmann::json(j.ranks) : nlohmann::json(); })
            .Default("see meaning"),
        Choice<J>("placement", &J::placement, ns3::PlacementPolicies(),
                  "`\"contiguous\"` (the first free hosts), `\"rack-aware\"` (whole racks first, "
                  "racks with most free hosts first; the rack is the rail group on a "
                  "rail-optimised fabric, else the host's switch), `\"random\"` (seeded by `seed` "
                  "and the job index) or `\"explicit\"` (rank r on `hosts[r]`)."),
        Custom<J>(
            "hosts", "host list", "",
            "The hosts to place on; for `\"explicit\"`, the host of every rank (required).",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, J& j) {
                j.hosts = r.HostList(&n, key, r.HostCount());
            },
            [](const J& j) { return j.hosts.empty() ? nlohmann::json() : nlohmann::json(j.hosts); })
            .Default("all free hosts"),
        Custom<J>(
            "tp", "integer ≥ 1", "", "Tensor-parallel degree. Not with `file` (the header gives it).",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, J& j) {
                j.tp = r.U32(&n, key, 1);
            },
            [](const J& j) { return j.file.empty() ? nlohmann::json(j.tp) : nlohmann::json(); })
            .Default("`1`"),
        Custom<J>(
            "pp", "integer ≥ 1", "", "Pipeline-parallel degree. Not with `file`.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, J& j) {
                j.pp = r.U32(&n, key, 1);
            },
            [](const J& j) { return j.file.empty() ? nlohmann::json(j.pp) : nlohmann::json(); })
            .Default("`1`"),
        Custom<J>(
            "ep", "integer ≥ 1", "", "Expert-parallel degree. Not with `file`.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, J& j) {
                j.ep = r.U32(&n, key, 1);
            },
            [](const J& j) { return j.file.empty() ? nlohmann::json(j.ep) : nlohmann::json(); })
            .Default("`1`"),
        Custom<J>(
            "dp", "integer ≥ 1", "",
            "Data-parallel degree. TP × PP × DP × EP must equal `ranks`: otherwise an error "
            "(exit 2) that spells the product out. Not with `file`.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, J& j) {
                j.dp = r.U32(&n, key, 1);
            },
            [](const J& j) {
                return j.file.empty() && j.dp > 0 ? nlohmann::json(j.dp) : nlohmann::json();
            })
            .Default("ranks / (tp × pp × ep)"),
        Count<J>("iterations", &J::iterations, 1, "Training steps."),
        Time<J>("start_us", &J::startPs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kSimTime,
                "Start of the first iteration; must be before `stop_time_ms`."),
        Time<J>("compute_us", &J::computePs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kSimTime,
                "Compute at the start of every iteration."),
        Count<J>("sync_every", &J::syncEvery, 1,
                 "DiLoCo-style periodic synchronisation: collectives on `dp`, `dpep` and "
                 "`cross-site` groups run only every H-th iteration (iterations i with (i+1) mod "
                 "H = 0)."),
        Integer<J>("channels", &J::channels, 1, 64,
                   "NCCL-like channels per collective, each with its own connection (QPs, "
                   "entropy). A collective whose smallest send is under `channels` bytes uses "
                   "that many channels (collectives.csv `channels`); the standalone "
                   "`workload.kind = \"ring-allreduce\"` refuses it instead."),
        Size<J>("chunk_bytes", &J::chunkBytes, 0, kMax,
                "Pipelining: each op's share on a channel is cut into chunks of at most this "
                "size; a step forwards a chunk as soon as it has arrived. `0` = one chunk."),
        Integer<J>("max_slices", &J::maxSlices, 1, 4096, "Cap on chunks per op and channel."),
        Integer<J>("qps_per_connection", &J::qpsPerConnection, 0, ns3::RdmaNic::kMaxQps,
                   "QPs per channel connection (bound as `nic.qps_per_connection`); `0` = "
                   "`nic.qps_per_connection`. channels × QPs = QPs between a GPU pair."),
        Choice<J>("ring_order", &J::ringOrder, {"rank", "rail-aligned"},
                  "`\"rank\"`: every channel's ring follows the group's rank order. "
                  "`\"rail-aligned\"`: channel c enters server s at GPU (c − s) mod G, so "
                  "server-to-server hops stay on one rail and the channels use different NICs "
                  "(needs `[scale_up]` servers)."),
        Later<J>("file", "path", "",
                 "A SimAI / AICB workload file (`HYBRID_TRANSFORMER_FWD_IN_BCKWD` format, "
                 "[data/simai/](../data/simai/README.md)): TP, PP, EP from its header, DP = "
                 "`ranks` / (TP × PP × EP) — a large workload is mapped onto fewer ranks by "
                 "scaling DP only, and the manifest's `jobs[].note` says so. Not modelled: `ga` "
                 "(gradient accumulation: an iteration is one forward and backward pass) and "
                 "`vpp` (virtual pipeline stages); `ga` > 1, or `vpp` > 1 with `pp` > 1, is a "
                 "warning naming the file, line and key (printed, and in the manifest's "
                 "`warnings`). Inconsistent headers and malformed lines are errors naming the "
                 "file's line.",
                 [](const J& j) { return j.file.empty() ? nlohmann::json() : nlohmann::json(j.file); })
            .Default("none"),
        Later<J>("collectives", "array of tables", "",
                 "The job's iteration, one `[[jobs.collectives]]` table per collective (below); "
                 "or `file`.",
                 [](const J& j) {
                     if (!j.file.empty())
                     {
                         return nlohmann::json();
                     }
                     nlohmann::json colls = nlohmann::json::array();
                     for (const auto& c : j.collectives)
                     {
                         colls.push_back(WriteKnobs(CollectiveRows(), c));
                     }
                     return colls;
                 })
            .Default("required without `file`"),
    };
    return rows;
}

void
ReadCollectives(ScenarioReader& r, const toml::array& colls, const std::string& jp, J& j)
{
    size_t ci = 0;
    for (auto&& ce : colls)
    {
        const std::string cp = jp + ".collectives[" + std::to_string(ci++) + "]";
        const toml::table& ct = *ce.as_table();
        r.NoteKey(cp, &ce);
        auto CK = [&](const std::string& key) { return cp + "." + key; };
        C c;
        ReadKnobs(r, ct, cp, CollectiveRows(), c);
        const toml::node* kn = ct.get("kind");
        if (kn == nullptr)
        {
            std::string kinds;
            for (const auto& k : ns3::CollectiveKinds())
            {
                kinds += (kinds.empty() ? "" : ", ") + k;
            }
            r.Fail(&ce, CK("kind"), "required: the collective (" + kinds + ")");
        }
        try
        {
            c.kind = ns3::CanonicalCollectiveKind(r.String(kn, CK("kind")));
        }
        catch (const ns3::InputError& e)
        {
            r.Fail(kn, CK("kind"), e.Message());
        }
        if (const toml::node* n = ct.get("algorithm"))
        {
            c.algorithm = r.String(n, CK("algorithm"));
            auto valid = ns3::CollectiveAlgorithms(c.kind);
            valid.push_back("auto");
            if (std::find(valid.begin(), valid.end(), c.algorithm) == valid.end())
            {
                r.Fail(n, CK("algorithm"),
                       "expected " + OneOf(valid) + " for " + c.kind + "; got " + Quote(c.algorithm));
            }
        }
        const toml::node* bn = ct.get("bytes");
        if (bn == nullptr)
        {
            r.Fail(&ce, CK("bytes"), "required: S, the per-rank size as nccl-tests uses it");
        }
        c.bytes = r.Bytes(bn, CK("bytes"), 0, kMax);
        j.collectives.push_back(c);
    }
}

void
ReadJob(ScenarioReader& r, const toml::node& node, const std::string& jp, size_t index,
        ScenarioSpec& spec)
{
    const toml::table& t = *node.as_table();
    r.NoteKey(jp, &node);
    auto K = [&](const std::string& key) { return jp + "." + key; };
    J j;
    ReadKnobs(r, t, jp, JobRows(), j);
    if (j.name.empty())
    {
        j.name = "job" + std::to_string(index);
    }
    const toml::node* hostsNode = t.get("hosts");
    if (j.placement == "explicit" && hostsNode == nullptr)
    {
        r.Fail(&node, K("hosts"), "required with placement = \"explicit\": the host of every rank");
    }
    if (const toml::node* n = t.get("start_us"); n != nullptr && j.startPs >= spec.stopTimePs)
    {
        r.Fail(n, K("start_us"),
               "expected a start before stop_time_ms (" + FormatDouble(spec.stopTimePs / 1e9) +
                   " ms); got " + FormatDouble(j.startPs / 1e6) + " us");
    }
    const toml::node* tpNode = t.get("tp");
    const toml::node* dpNode = t.get("dp");
    const toml::node* fileNode = t.get("file");
    const toml::array* colls =
        r.TableArray(t, jp, "collectives", "the collectives of one iteration");
    ns3::SimAiWorkload simai;
    if (fileNode != nullptr)
    {
        j.file = r.FilePath(fileNode, K("file"));
        simai = ns3::ReadSimAiWorkload(j.file); // its errors name the SimAI file and line
        if (colls != nullptr)
        {
            r.Fail(t.get("collectives"), K("collectives"),
                   "a job takes its iteration from `file` (a SimAI workload) or from [[" + jp +
                       ".collectives]], not both");
        }
        for (const char* key : {"tp", "pp", "ep", "dp"})
        {
            if (const toml::node* n = t.get(key))
            {
                r.Fail(n, K(key),
                       std::string("the parallel degrees come from the SimAI file's header; "
                                   "remove `") +
                           key + "` (set `ranks` to scale the data-parallel degree)");
            }
        }
    }
    else if (colls == nullptr || colls->empty())
    {
        r.Fail(&node, K("collectives"),
               "expected the job's iteration: [[" + jp +
                   ".collectives]] tables, or `file` = a SimAI workload");
    }
    // Ranks: given, or implied by an explicit placement, the SimAI file, the host pool, or the
    // whole topology.
    const uint64_t hostCount = r.HostCount();
    const toml::node* ranksNode = t.get("ranks");
    if (ranksNode != nullptr)
    {
        j.ranks = r.U32(ranksNode, K("ranks"), 1);
        if (hostCount > 0 && j.ranks > hostCount)
        {
            r.Fail(ranksNode, K("ranks"),
                   "expected at most the topology's " + std::to_string(hostCount) +
                       " hosts; got " + std::to_string(j.ranks));
        }
        if (hostsNode != nullptr && j.ranks > j.hosts.size())
        {
            r.Fail(ranksNode, K("ranks"),
                   "expected at most the " + std::to_string(j.hosts.size()) +
                       " hosts listed in `" + K("hosts") + "`" +
                       (j.placement == "explicit" ? " (explicit: exactly that many)" : "") +
                       "; got " + std::to_string(j.ranks));
        }
        if (j.placement == "explicit" && j.ranks != j.hosts.size())
        {
            r.Fail(ranksNode, K("ranks"),
                   "an explicit placement lists " + std::to_string(j.hosts.size()) +
                       " hosts for " + std::to_string(j.ranks) + " ranks");
        }
    }
    else if (j.placement == "explicit")
    {
        j.ranks = static_cast<uint32_t>(j.hosts.size());
    }
    else if (fileNode != nullptr)
    {
        j.ranks = simai.allGpus;
    }
    else if (hostsNode != nullptr)
    {
        j.ranks = static_cast<uint32_t>(j.hosts.size());
    }
    else if (hostCount > 0)
    {
        j.ranks = static_cast<uint32_t>(hostCount);
    }
    // TP * PP * DP * EP = ranks, checked now when the ranks are known (else when the run is
    // built).
    if (j.ranks > 0)
    {
        try
        {
            if (fileNode != nullptr)
            {
                ns3::SimAiDegrees(simai, j.ranks, nullptr);
            }
            else
            {
                ns3::ParallelDegrees d;
                d.tp = j.tp;
                d.pp = j.pp;
                d.dp = j.dp;
                d.ep = j.ep;
                ns3::ProcessGroups(j.ranks, d);
            }
        }
        catch (const ns3::InputError& e)
        {
            // At the degree the message names when it is in the file, else at the ranks.
            const toml::node* at = e.Key() == "job.dp" && dpNode != nullptr ? dpNode
                                   : ranksNode != nullptr                   ? ranksNode
                                   : tpNode != nullptr                      ? tpNode
                                                                            : &node;
            r.Fail(at, jp + "." + (fileNode != nullptr ? "ranks" : e.Key().substr(4)),
                   e.Message());
        }
    }
    if (colls != nullptr)
    {
        ReadCollectives(r, *colls, jp, j);
    }
    spec.jobs.push_back(j);
}

void
Read(ScenarioReader& r, const toml::table& root, ScenarioSpec& spec)
{
    const toml::array* jobs = r.TableArray(root, "", kP, "one per training job");
    const bool wantJobs = spec.workload.kind == "jobs";
    if (jobs == nullptr || jobs->empty())
    {
        if (wantJobs && !HasBackground(root))
        {
            r.Fail(root.get("workload"), kP,
                   "workload.kind is \"jobs\": expected at least one [[jobs]] table (or "
                   "[[background]] tables for background traffic alone)");
        }
        return;
    }
    if (!wantJobs)
    {
        r.Fail(root.get(kP), kP,
               "[[jobs]] describe the traffic only when workload.kind is \"jobs\"; here it is " +
                   Quote(spec.workload.kind));
    }
    size_t index = 0;
    for (auto&& e : *jobs)
    {
        ReadJob(r, e, "jobs[" + std::to_string(index) + "]", index, spec);
        ++index;
    }
}

void
Write(const ScenarioSpec& spec, nlohmann::json& root)
{
    if (spec.jobs.empty())
    {
        return;
    }
    nlohmann::json jobs = nlohmann::json::array();
    for (const auto& job : spec.jobs)
    {
        jobs.push_back(WriteKnobs(JobRows(), job));
    }
    root[kP] = jobs;
}

std::vector<KnobBlock>
Blocks()
{
    return {KnobBlock{"jobs", "jobs[i]", Docs(JobRows())},
            KnobBlock{"jobs.collectives", "jobs[i].collectives[j]", Docs(CollectiveRows())}};
}

} // namespace

Section
JobsKeys()
{
    return Section{kP, &Read, &Write, &Blocks};
}

} // namespace tusk
