/*
 * tusk: [[failures]], links taken down, brought up or degraded at given times.
 */
#include "scenario-sections.h"

namespace tusk
{

namespace
{

using namespace knob;
using F = FailureEntry;
const char* const kP = "failures";

const std::vector<Knob<F>>&
Rows()
{
    static const std::vector<Knob<F>> rows = {
        Time<F>("at_us", &F::atPs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY,
                "When the event happens (simulated time); before `stop_time_ms`.")
            .Default("required"),
        Choice<F>("kind", &F::kind, {"link_down", "link_up", "degrade"},
                  "`\"link_down\"`: both ports stop sending and drop what arrives (drop reason "
                  "`link_down`); frames queued at the ports wait; switches stop choosing the port "
                  "at once (local failover), and a switch with no other port towards the "
                  "destination drops with `link_down`. `\"link_up\"`: the link carries traffic "
                  "again. `\"degrade\"`: both ports' rate becomes the link's configured rate / "
                  "`rate_divisor` (the frame on the wire finishes at the old rate).")
            .Default("required"),
        Custom<F>(
            "link", "string", "",
            "`\"<from>-<to>\"`, vertex names as in `links.csv` (`\"leaf0-spine1\"`, "
            "`\"host3-leaf0\"`), either order. Parallel links between the two vertices are all "
            "affected. An unknown name is an input error (exit 2) naming the entry's line and "
            "`failures[i].link`.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, F& f) {
                f.link = r.String(&n, key);
                if (f.link.find('-') == std::string::npos)
                {
                    r.Fail(&n, key,
                           "expected \"<from>-<to>\" (e.g. \"leaf0-spine1\"); got " + Quote(f.link));
                }
            },
            [](const F& f) { return nlohmann::json(f.link); })
            .Default("required"),
        Custom<F>(
            "rate_divisor", "integer ≥ 1", "",
            "The divisor of a degraded link's rate; an error with any other kind.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, F& f) {
                if (f.kind != "degrade")
                {
                    r.Fail(&n, key, "only a \"degrade\" failure has a rate_divisor");
                }
                f.rateDivisor = r.U32(&n, key, 1);
            },
            [](const F& f) {
                return f.kind == "degrade" ? nlohmann::json(f.rateDivisor) : nlohmann::json();
            })
            .Default("required for `degrade`"),
    };
    return rows;
}

void
Read(ScenarioReader& r, const toml::table& root, ScenarioSpec& spec)
{
    const toml::array* entries =
        r.TableArray(root, "", kP, "one per link failure, repair or degradation");
    if (entries == nullptr)
    {
        return;
    }
    size_t index = 0;
    for (auto&& e : *entries)
    {
        const std::string fp = "failures[" + std::to_string(index++) + "]";
        const toml::table& t = *e.as_table();
        r.NoteKey(fp, &e);
        auto K = [&](const std::string& key) { return fp + "." + key; };
        r.CheckKeys(t, fp, {"at_us", "kind", "link", "rate_divisor"});
        if (t.get("at_us") == nullptr)
        {
            r.Fail(&e, K("at_us"), "required: when the failure happens, in microseconds");
        }
        if (t.get("kind") == nullptr)
        {
            r.Fail(&e, K("kind"), "required: \"link_down\", \"link_up\" or \"degrade\"");
        }
        if (t.get("link") == nullptr)
        {
            r.Fail(&e, K("link"),
                   "required: \"<from>-<to>\", vertex names as in links.csv (e.g. "
                   "\"leaf0-spine1\")");
        }
        FailureEntry f;
        f.line = r.LineOf(&e);
        ReadKnobs(r, t, fp, Rows(), f);
        if (f.atPs >= spec.stopTimePs)
        {
            r.Fail(t.get("at_us"), K("at_us"),
                   "expected a time before stop_time_ms (" + FormatDouble(spec.stopTimePs / 1e9) +
                       " ms)");
        }
        if (f.kind == "degrade" && t.get("rate_divisor") == nullptr)
        {
            r.Fail(&e, K("rate_divisor"),
                   "required for kind = \"degrade\": the link's rate is divided by it (an "
                   "integer >= 1)");
        }
        spec.failures.push_back(f);
    }
}

void
Write(const ScenarioSpec& spec, nlohmann::json& root)
{
    if (spec.failures.empty())
    {
        return;
    }
    nlohmann::json fl = nlohmann::json::array();
    for (const auto& f : spec.failures)
    {
        fl.push_back(WriteKnobs(Rows(), f));
    }
    root[kP] = fl;
}

std::vector<KnobBlock>
Blocks()
{
    return {KnobBlock{kP, "failures[i]", Docs(Rows())}};
}

} // namespace

Section
FailuresKeys()
{
    return Section{kP, &Read, &Write, &Blocks};
}

} // namespace tusk
