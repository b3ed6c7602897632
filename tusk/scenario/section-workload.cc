/*
 * tusk: [workload] and [[workload.flows]]: the traffic, one set of keys per kind.
 */
#include "scenario/scenario-sections.h"

#include "workload/model/chakra-trace.h"
#include "workload/model/collective-registry.h"

#include <algorithm>

namespace tusk
{

namespace
{

using namespace knob;
using S = WorkloadSection;
const char* const kP = "workload";

const std::vector<std::string> kKinds = {"ring-allreduce", "permutation", "incast", "htsim",
                                         "flows",          "jobs",        "hpcc",   "chakra"};
const std::vector<std::string> kPatterns = {"ring-allreduce", "permutation", "incast"};

/** "a start before stop_time_ms" check of a start time at node n. */
void
CheckStart(ScenarioReader& r, const toml::node* n, const std::string& key, uint64_t startPs,
           uint64_t stopPs, bool withValue)
{
    if (startPs >= stopPs)
    {
        r.Fail(n, key,
               "expected a start before stop_time_ms (" + FormatDouble(stopPs / 1e9) + " ms)" +
                   (withValue ? "; got " + FormatDouble(startPs / 1e6) + " us" : ""));
    }
}

const std::vector<Knob<FlowEntry>>&
FlowRows()
{
    using F = FlowEntry;
    static const std::vector<Knob<F>> rows = {
        Custom<F>(
            "src", "integer ≥ 0", "host id", "Sending host.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, F& f) {
                f.src = r.HostId(&n, key, r.HostCount());
            },
            [](const F& f) { return nlohmann::json(f.src); })
            .Default("required"),
        Custom<F>(
            "dst", "integer ≥ 0", "host id", "Receiving host, ≠ `src`.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, F& f) {
                f.dst = r.HostId(&n, key, r.HostCount());
                if (f.dst == f.src)
                {
                    r.Fail(&n, key,
                           "expected a host other than src " + std::to_string(f.src) + "; got " +
                               std::to_string(f.dst));
                }
            },
            [](const F& f) { return nlohmann::json(f.dst); })
            .Default("required"),
        Size<F>("bytes", &F::bytes, 1, bounds::kMaxTransferBytes, "Flow size.")
            .Default("required"),
        Time<F>("start_us", &F::startPs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kSimTime,
                "Start time; must be before `stop_time_ms`."),
    };
    return rows;
}

const std::vector<Knob<S>>&
Rows()
{
    static const std::vector<Knob<S>> rows = {
        Choice<S>("kind", &S::kind, kKinds,
                  "`\"ring-allreduce\"`, `\"permutation\"`, `\"incast\"`, `\"htsim\"`, "
                  "`\"flows\"`, `\"jobs\"` (training jobs from `[[jobs]]`), `\"hpcc\"` (an "
                  "HPCC `flow.txt`) or `\"chakra\"` (Chakra execution traces, one file per rank)."),
        Size<S>("bytes", &S::bytes, 1, bounds::kMaxTransferBytes,
                "Per-rank buffer size S as nccl-tests uses it (collectives), or bytes per flow.")
            .Kinds(kPatterns)
            .Param({"bytes", "bytesPerRank"}),
        Custom<S>(
            "hosts", "host list", "",
            "Hosts taking part (ring order for the ring). At least 2; no duplicates; ids below "
            "the topology's host count.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& w) {
                w.hosts = r.HostList(&n, key, r.HostCount());
            },
            [](const S& w) { return nlohmann::json(w.hosts); })
            .Default("all hosts, in order")
            .Kinds({"ring-allreduce", "permutation", "incast", "chakra"})
            .Param({"hosts", "ranks", "senders"}),
        Count<S>("channels", &S::channels, 1,
                 "NCCL-like channels: the buffer is split over this many rings, each with its own "
                 "QP.")
            .Kinds({"ring-allreduce", "chakra"})
            .Param({"channels"}),
        Custom<S>(
            "trace", "path", "",
            "Chakra execution traces: a folder holding `<prefix>.<rank>.et` for ranks 0 .. n-1, "
            "or a pattern with `%d` for the rank (`traces/llm.%d.et`); rank r runs on "
            "`hosts[r]` (host r without `hosts`); see [Paths](#paths).",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& w) {
                w.trace = r.AbsolutePath(&n, key);
                try
                {
                    ns3::ChakraTraceFiles(w.trace);
                }
                catch (const ns3::InputError& e)
                {
                    r.Fail(&n, key, e.File() + ": " + e.Message());
                }
            },
            [](const S& w) { return w.trace.empty() ? nlohmann::json() : nlohmann::json(w.trace); })
            .Default("required")
            .Kinds({"chakra"}),
        Custom<S>(
            "comm_groups", "table", "",
            "Communicator groups of the trace's collectives by `pg_name`: `{ \"1\" = [0, 1, 2, 3] }` "
            "lists the ranks of group 1 (ASTRA-sim's comm-group file). `pg_name` \"\" or \"0\" is "
            "every rank.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& w) {
                if (!n.is_table())
                {
                    r.Fail(&n, key, "expected a table of rank lists; got " + Describe(n));
                }
                for (auto&& [name, list] : *n.as_table())
                {
                    const std::string k = key + "." + std::string(name.str());
                    if (!list.is_array() || list.as_array()->empty())
                    {
                        r.Fail(&list, k, "expected a non-empty array of ranks; got " + Describe(list));
                    }
                    std::vector<uint32_t> ranks;
                    for (auto&& e : *list.as_array())
                    {
                        if (!e.is_integer() || e.as_integer()->get() < 0 ||
                            e.as_integer()->get() > INT32_MAX)
                        {
                            r.Fail(&e, k, "expected a rank (an integer >= 0); got " + Describe(e));
                        }
                        const auto rank = static_cast<uint32_t>(e.as_integer()->get());
                        if (std::find(ranks.begin(), ranks.end(), rank) != ranks.end())
                        {
                            r.Fail(&e, k, "rank " + std::to_string(rank) + " is listed twice");
                        }
                        ranks.push_back(rank);
                    }
                    w.commGroups[std::string(name.str())] = ranks;
                }
            },
            [](const S& w) {
                return w.commGroups.empty() ? nlohmann::json() : nlohmann::json(w.commGroups);
            })
            .Default("none")
            .Kinds({"chakra"}),
        Custom<S>(
            "algorithm", "string", "",
            "Collective algorithm: one registered for a kind (`tusk kinds`), applied to the "
            "collectives whose kind has it (the others keep their default), or `\"auto\"`: "
            "NCCL's choice for each all-reduce by size and rank count (ring or double binary "
            "tree; ns3-modules/workload/doc/workload.md).",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& w) {
                w.algorithm = r.String(&n, key);
                std::vector<std::string> valid = {"auto"};
                for (const auto& a : ns3::CollectiveAlgorithmTable())
                {
                    if (std::find(valid.begin(), valid.end(), a.algorithm) == valid.end())
                    {
                        valid.push_back(a.algorithm);
                    }
                }
                if (std::find(valid.begin(), valid.end(), w.algorithm) == valid.end())
                {
                    r.Fail(&n, key, "expected " + OneOf(valid) + "; got " + Quote(w.algorithm));
                }
            },
            [](const S& w) { return w.algorithm.empty() ? nlohmann::json() : nlohmann::json(w.algorithm); })
            .Default("each kind's default")
            .Kinds({"chakra"}),
        Custom<S>(
            "incast_dst", "integer ≥ 0", "host id",
            "Destination host; the senders are `hosts` minus `incast_dst`.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& w) {
                w.incastDst = r.HostId(&n, key, r.HostCount());
            },
            [](const S& w) { return nlohmann::json(w.incastDst); })
            .Kinds({"incast"}),
        Time<S>("start_us", &S::startPs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kSimTime,
                "Start time of the generated traffic; for hpcc, of the earliest flow (the others "
                "keep their offsets: HPCC files start flows after seconds of warm-up); must be "
                "before `stop_time_ms`.")
            .Kinds({"ring-allreduce", "permutation", "incast", "hpcc"}),
        File<S>("file", &S::file,
                "An htsim connection matrix (`.cm`), or an HPCC `flow.txt` (`src dst priority "
                "dport size_bytes start_s`; node ids mapped as for `topology.kind = \"hpcc\"`, "
                "else node k = host k; the file's priority is the traffic class); see "
                "[Paths](#paths).")
            .Default("required")
            .Kinds({"htsim", "hpcc"}),
        Time<S>("watchdog_ms", &S::watchdogPs, kPsPerMs, "ms", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kSimTime,
                "No progress (no transfer started or finished, no byte delivered, nothing "
                "scheduled for later) for this long while transfers remain stops the run (exit "
                "1) and names every collective that cannot complete and what it waits for. Never "
                "less than 4 base RTTs of the longest path (long-haul links). `0` = off.")
            .Attr({"ns3::WorkloadExecutor::StallTimeout"}),
        Custom<S>(
            "flows", "array of tables", "",
            "The flows, one `[[workload.flows]]` table each (below). With `[[background]]` "
            "tables it may be omitted (or empty): the background traffic then runs on its own.",
            [](ScenarioReader&, const toml::node&, const std::string&, S&) {
                // Read by ReadFlows (it needs the stop time and the host count).
            },
            [](const S& w) {
                nlohmann::json flows = nlohmann::json::array();
                for (const auto& f : w.flows)
                {
                    flows.push_back(WriteKnobs(FlowRows(), f));
                }
                return flows;
            })
            .Default("required unless there is a `[[background]]` table")
            .Kinds({"flows"}),
    };
    return rows;
}

void
ReadFlows(ScenarioReader& r, const toml::node* tn, const toml::table& t, const toml::table& root,
          ScenarioSpec& spec)
{
    const std::string key = "workload.flows";
    const toml::node* fn = r.Get(t, kP, "flows");
    const bool background = HasBackground(root);
    if (fn == nullptr && background)
    {
        return; // only the [[background]] traffic
    }
    if (fn == nullptr)
    {
        r.Fail(tn, key,
               "required when workload.kind is \"flows\" and there is no [[background]] table: "
               "one [[workload.flows]] table per flow");
    }
    const std::string expect =
        "expected an array of tables ([[workload.flows]] with src, dst, bytes, start_us)";
    if (!fn->is_array() || (fn->as_array()->empty() && !background))
    {
        r.Fail(fn, key,
               expect + "; got " +
                   (fn->is_array() ? std::string("an empty array") : Describe(*fn)));
    }
    size_t index = 0;
    for (auto&& e : *fn->as_array())
    {
        const std::string fp = key + "[" + std::to_string(index++) + "]";
        if (!e.is_table())
        {
            r.Fail(&e, fp, expect + "; got an array holding " + Describe(e));
        }
        const toml::table& ft = *e.as_table();
        r.NoteKey(fp, &e);
        for (const char* required : {"src", "dst", "bytes"})
        {
            if (ft.get(required) == nullptr)
            {
                r.CheckKeys(ft, fp, {"src", "dst", "bytes", "start_us"});
                r.Fail(&e, fp + "." + required, std::string("required in every flow: ") + required);
            }
        }
        FlowEntry f;
        ReadKnobs(r, ft, fp, FlowRows(), f);
        if (const toml::node* sn = ft.get("start_us"))
        {
            CheckStart(r, sn, fp + ".start_us", f.startPs, spec.stopTimePs, true);
        }
        spec.workload.flows.push_back(f);
    }
}

void
Read(ScenarioReader& r, const toml::table& root, ScenarioSpec& spec)
{
    const toml::table* tp = r.SectionTable(root, kP);
    auto& w = spec.workload;
    const toml::table empty;
    const toml::table& t = tp ? *tp : empty;
    if (const toml::node* n = r.Get(t, kP, "kind"))
    {
        w.kind = r.Choice(n, "workload.kind", kKinds);
    }
    ReadKnobs(r, t, kP, Rows(), w, w.kind);

    // Enough hosts for the collective / pattern.
    if (std::find(kPatterns.begin(), kPatterns.end(), w.kind) != kPatterns.end())
    {
        const toml::node* hn = t.get("hosts");
        const toml::node* dstNode = t.get("incast_dst");
        const uint64_t hostCount = r.HostCount();
        uint64_t n = w.hosts.empty() ? hostCount : w.hosts.size();
        bool known = !w.hosts.empty() || hostCount > 0;
        if (w.kind == "incast")
        {
            bool dstListed = w.hosts.empty() ||
                             std::find(w.hosts.begin(), w.hosts.end(), w.incastDst) != w.hosts.end();
            uint64_t senders = dstListed && n > 0 ? n - 1 : n;
            if (known && senders < 1)
            {
                r.Fail(hn ? hn : (dstNode ? dstNode : tp),
                       hn ? "workload.hosts" : "workload.incast_dst",
                       "expected at least one sender besides incast_dst " +
                           std::to_string(w.incastDst) + "; got none");
            }
        }
        else if (known && n < 2)
        {
            r.Fail(hn ? hn : tp, "workload.hosts",
                   "expected at least 2 hosts for " + Quote(w.kind) + "; got " + std::to_string(n));
        }
    }
    else if (w.kind == "htsim" || w.kind == "hpcc")
    {
        if (t.get("file") == nullptr)
        {
            r.Fail(tp, "workload.file",
                   "required when workload.kind is " + Quote(w.kind) + ": the " +
                       (w.kind == "htsim" ? ".cm file" : "HPCC flow.txt file"));
        }
    }
    else if (w.kind == "flows")
    {
        ReadFlows(r, tp, t, root, spec);
    }
    else if (w.kind == "chakra" && t.get("trace") == nullptr)
    {
        r.Fail(tp, "workload.trace",
               "required when workload.kind is \"chakra\": a folder of <prefix>.<rank>.et files "
               "or a pattern with %d");
    }
    // kind = "jobs": the traffic is in [[jobs]] (section-jobs.cc).
    CheckStart(r, t.get("start_us"), "workload.start_us", w.startPs, spec.stopTimePs, true);
}

void
Write(const ScenarioSpec& spec, nlohmann::json& root)
{
    root[kP] = WriteKnobs(Rows(), spec.workload, spec.workload.kind);
}

std::vector<KnobBlock>
Blocks()
{
    KnobBlock b{kP, kP, Docs(Rows())};
    b.kindColumn = true;
    return {b, KnobBlock{"workload.flows", "workload.flows[i]", Docs(FlowRows())}};
}

} // namespace

KindTable
WorkloadKindTable()
{
    KindTable t{kP, "ring-allreduce", {}};
    for (const auto& k : Rows())
    {
        if (k.d.name != "kind")
        {
            t.keys.push_back(KindKey{k.d.name, k.d.kinds.empty() ? kKinds : k.d.kinds});
        }
    }
    return t;
}

Section
WorkloadKeys()
{
    return Section{kP, &Read, &Write, &Blocks};
}

} // namespace tusk
