/*
 * tusk: [[background]], Poisson background traffic from flow-size CDFs (any workload kind).
 */
#include "scenario/scenario-sections.h"

#include "rdma/model/rdma-nic.h"
#include "workload/model/background-traffic.h"

namespace tusk
{

namespace
{

using namespace knob;
using B = BackgroundEntry;
const char* const kP = "background";

const std::vector<Knob<B>>&
Rows()
{
    static const std::vector<Knob<B>> rows = {
        Custom<B>(
            "cdf_file", "path", "",
            "Flow-size CDF: `size_bytes cdf_percent` lines (HPCC `traffic_gen/*.txt`, e.g. "
            "`data/hpcc/WebSearch_distribution.txt`).",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, B& b) {
                b.cdfFile = r.FilePath(&n, key);
                ns3::FlowSizeCdf::Read(b.cdfFile); // its errors name the CDF file and line
            },
            [](const B& b) { return nlohmann::json(b.cdfFile); })
            .Default("required")
            .Param({"BackgroundRequest.cdf"}),
        Custom<B>(
            "load", "number in (0, 1]", "",
            "Offered load per host, fraction of its link rate.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, B& b) {
                const bool number = n.is_integer() || n.is_floating_point();
                const double v = n.is_integer()          ? static_cast<double>(n.as_integer()->get())
                                 : n.is_floating_point() ? n.as_floating_point()->get()
                                                         : 0.0;
                if (!number || !(v > 0 && v <= 1))
                {
                    r.Fail(&n, key,
                           "expected an offered load in (0, 1] (a fraction of each host's link "
                           "rate); got " +
                               Describe(n));
                }
                b.load = v;
            },
            [](const B& b) { return JsonNumber(b.load); })
            .Param({"BackgroundRequest.load"}),
        Custom<B>(
            "hosts", "host list", "", "Hosts that send and receive (≥ 2).",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, B& b) {
                b.hosts = r.HostList(&n, key, r.HostCount());
                if (b.hosts.size() < 2)
                {
                    r.Fail(&n, key, "expected at least 2 hosts; got " + std::to_string(b.hosts.size()));
                }
            },
            [](const B& b) { return b.hosts.empty() ? nlohmann::json() : nlohmann::json(b.hosts); })
            .Default("all hosts")
            .Param({"BackgroundRequest.hosts"}),
        Time<B>("start_us", &B::startPs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kSimTime,
                "First possible arrival; before `stop_time_ms`."),
        Time<B>("duration_us", &B::durationPs, kPsPerUs, "µs", Sign::POSITIVE, Clock::ANY,
                bounds::kSimSpan,
                "Arrivals during this long.")
            .Param({"BackgroundRequest.durationPs"}),
        Custom<B>(
            "priority", "integer 0..7", "", "Traffic class of the flows.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, B& b) {
                b.priority = static_cast<int32_t>(r.Int(&n, key, 0, 7));
            },
            [](const B& b) { return b.priority >= 0 ? nlohmann::json(b.priority) : nlohmann::json(); })
            .Default("`nic.data_priority`"),
        Integer<B>("qps", &B::qps, 1, ns3::RdmaNic::kMaxQps,
                   "QPs per flow (bound as `nic.qps_per_connection`)."),
        Choice<B>("size_rounding", &B::sizeRounding, {"up", "hpcc"},
                  "How a size drawn from the CDF (a real number of bytes) becomes whole bytes. "
                  "`up` rounds up, so the sizes' CDF equals the file's at every point (a step at "
                  "4096 B gives flows of 4096 B). `hpcc` truncates as HPCC's `traffic_gen.py` "
                  "does (`int(...)`): each size is up to one byte short (4095 / 16383 / 65535 B "
                  "where the file says 4096 / 16384 / 65536 B), for flow lists identical to "
                  "HPCC's. See ns3-modules/workload/doc/workload.md.")
            .Param({"BackgroundRequest.sizeRounding"}),
        Integer<B>("seed", &B::seed, 0, std::numeric_limits<int64_t>::max(),
                   "Generator seed; `0` = derived from the run's `seed` and the table's index."),
    };
    return rows;
}

void
Read(ScenarioReader& r, const toml::table& root, ScenarioSpec& spec)
{
    const toml::array* entries = r.TableArray(root, "", kP, "Poisson background traffic");
    if (entries == nullptr)
    {
        return;
    }
    size_t index = 0;
    for (auto&& e : *entries)
    {
        const std::string bp = "background[" + std::to_string(index++) + "]";
        const toml::table& t = *e.as_table();
        r.NoteKey(bp, &e);
        if (t.get("cdf_file") == nullptr)
        {
            r.CheckKeys(t, bp, {"cdf_file", "load", "hosts", "start_us", "duration_us", "priority",
                                "qps", "seed", "size_rounding"});
            r.Fail(&e, bp + ".cdf_file",
                   "required: a flow-size CDF file (\"size_bytes cdf_percent\" lines, as HPCC's "
                   "traffic_gen)");
        }
        BackgroundEntry b;
        ReadKnobs(r, t, bp, Rows(), b);
        if (const toml::node* n = t.get("start_us"); n != nullptr && b.startPs >= spec.stopTimePs)
        {
            r.Fail(n, bp + ".start_us",
                   "expected a start before stop_time_ms (" + FormatDouble(spec.stopTimePs / 1e9) +
                       " ms)");
        }
        spec.background.push_back(b);
    }
}

void
Write(const ScenarioSpec& spec, nlohmann::json& root)
{
    if (spec.background.empty())
    {
        return;
    }
    nlohmann::json bg = nlohmann::json::array();
    for (const auto& b : spec.background)
    {
        bg.push_back(WriteKnobs(Rows(), b));
    }
    root[kP] = bg;
}

std::vector<KnobBlock>
Blocks()
{
    return {KnobBlock{kP, "background[i]", Docs(Rows())}};
}

} // namespace

bool
HasBackground(const toml::table& root)
{
    const toml::array* b = root.get_as<toml::array>(kP);
    return b != nullptr && !b->empty();
}

Section
BackgroundKeys()
{
    return Section{kP, &Read, &Write, &Blocks};
}

} // namespace tusk
