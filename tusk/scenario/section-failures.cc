/*
 * tusk: [[failures]] (links, switches and NICs that fail, degrade, lose frames or flap at given
 * times) and [[failure_rates]] (random failures drawn from per-component rates).
 */
#include "scenario/scenario-sections.h"
#include "run/failure-kinds.h"

namespace tusk
{

namespace
{

using namespace knob;
using F = FailureEntry;
using R = FailureRateEntry;
const char* const kP = "failures";
const char* const kRatesP = "failure_rates";

/** `failures[i].kind`'s text for the key reference: each registered kind's doc. */
std::string
KindDoc()
{
    std::string doc;
    for (const auto& k : FailureKinds())
    {
        doc += (doc.empty() ? "" : " ") + ("`\"" + k.name + "\"`: " + k.doc);
    }
    return doc;
}

/** The rows, valid-for kinds from the registered failure kinds (FailureKindsTaking): built on
 *  each use, so that a plugin's kinds count. */
std::vector<Knob<F>>
Rows()
{
    const std::vector<std::string> kKinds = FailureKindNames();
    const std::vector<std::string> kLinkKinds = FailureKindsTaking("link");
    const std::vector<std::string> kLastingKinds = FailureKindsTaking("until_us");
    auto kindsTaking = [](const char* key) { return FailureKindsTaking(key); };
    std::vector<Knob<F>> rows = {
        Time<F>("at_us", &F::atPs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY, bounds::kSimTime,
                "When the event happens (simulated time); before `stop_time_ms`.")
            .Default("required"),
        Choice<F>("kind", &F::kind, kKinds,
                  KindDoc() + " A kind of one's own registers itself (`tusk kinds` lists them).")
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
            .Kinds(kLinkKinds)
            .Default("required"),
        Text<F>("switch", &F::switchName,
                "The switch, by its name in `links.csv` (`\"spine3\"`, `\"agg5\"`): all its "
                "links go down (or up).")
            .Kinds(kindsTaking("switch"))
            .Default("required"),
        Integer<F>("host", &F::host, 0, std::numeric_limits<uint32_t>::max(),
                   "The host (rank) whose NIC link(s) go down (or up).")
            .Kinds(kindsTaking("host"))
            .Default("required"),
        Count<F>("rate_divisor", &F::rateDivisor, 1,
                 "The link's rate becomes its configured rate / this. Give this or "
                 "`rate_gbps`.")
            .Kinds(kindsTaking("rate_divisor"))
            .Default("one of the two"),
        Rate<F>("rate_gbps", &F::rateBps, kBpsPerGbps, Sign::POSITIVE, bounds::kLinkRate,
                "The link's rate becomes this. Give this or `rate_divisor`.")
            .Kinds(kindsTaking("rate_gbps"))
            .Default("one of the two"),
        Real<F>("loss_rate", &F::lossRate, 0.0, 1.0, "number 0..1",
                "Probability that a frame is corrupted (`loss`) or, for a flow in a bad bucket, "
                "lost (`gray`), per frame, independently (an ns-3 RNG stream of the run).")
            .Unit("per frame")
            .Kinds(kindsTaking("loss_rate"))
            .Default("required for `loss`; `1` for `gray`"),
        Real<F>("hash_fraction", &F::hashFraction, 0.0, 1.0, "number 0..1",
                "Fraction of the 4,096 hash buckets that are bad (rounded to whole buckets); "
                "which flows fall in them is fixed per flow by the run seed and the entry.")
            .Kinds(kindsTaking("hash_fraction"))
            .Default("required"),
        Time<F>("period_us", &F::periodPs, kPsPerUs, "µs", Sign::POSITIVE, Clock::ANY,
                bounds::kSimSpan,
                "One down/up cycle of a flapping link.")
            .Kinds(kindsTaking("period_us"))
            .Default("required"),
        Time<F>("down_us", &F::downPs, kPsPerUs, "µs", Sign::POSITIVE, Clock::ANY, bounds::kSimSpan,
                "How long the link stays down in each cycle; less than `period_us`.")
            .Kinds(kindsTaking("down_us"))
            .Default("required"),
        Time<F>("until_us", &F::untilPs, kPsPerUs, "µs", Sign::POSITIVE, Clock::ANY,
                bounds::kSimSpan,
                "When it ends (the repair): a link, switch or NIC comes back up, a degraded "
                "link gets its rate back, a lossy or gray link stops losing frames; a flapping "
                "link starts no cycle at or after it. After `at_us`.")
            .Kinds(kLastingKinds)
            .Default("never (flap: this or `count`)"),
        Count<F>("count", &F::count, 1, "Number of down/up cycles of a flapping link.")
            .Kinds(kindsTaking("count"))
            .Default("this or `until_us`"),
        Integer<F>("drawn_from", &F::drawnFrom, 0, std::numeric_limits<uint32_t>::max(),
                   "Set by the runner on the failures it drew from `[[failure_rates]]` entry "
                   "i (the manifest lists them). Such entries are drawn again from the rates "
                   "when the file is run, so a manifest reruns identically; remove the key to "
                   "keep an entry as written.")
            .Default("none"),
    };
    return rows;
}

const std::vector<Knob<R>>&
RateRows()
{
    // The kinds and their keys come from the failure kinds' registrations (drawable ones).
    auto drawableTaking = [](const char* key) {
        std::vector<std::string> out;
        for (const auto& k : FailureKindsTaking(key))
        {
            if (FindFailureKind(k)->drawable)
            {
                out.push_back(k);
            }
        }
        return out;
    };
    static const std::vector<Knob<R>> rows = {
        Choice<R>("component", &R::component, {"link", "switch", "nic"},
                  "What fails: every link (by name, parallel links together), every switch, "
                  "or every host's NIC, each independently.")
            .Default("required"),
        Choice<R>("kind", &R::kind, DrawableFailureKinds(""),
                  "What a failure does, as in `[[failures]]`: links `\"link_down\"`, "
                  "`\"degrade\"` or `\"loss\"`; switches `\"switch_down\"`; NICs "
                  "`\"nic_down\"`.")
            .Default("the component's `_down`"),
        Time<R>("mtbf_us", &R::mtbfPs, kPsPerUs, "µs", Sign::POSITIVE, Clock::ANY, bounds::kMtbf,
                "Mean time between failures of one component: failures start as a Poisson "
                "process of rate 1 / `mtbf_us` per component while it is up.")
            .Default("required"),
        Time<R>("duration_us", &R::durationPs, kPsPerUs, "µs", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kSimTime,
                "Time to repair: each failure ends this much later (the failure's `until_us`). "
                "0 = never repaired."),
        Count<R>("rate_divisor", &R::rateDivisor, 1, "As in `[[failures]]`, for `degrade`.")
            .Kinds(drawableTaking("rate_divisor"))
            .Default("one of the two"),
        Rate<R>("rate_gbps", &R::rateBps, kBpsPerGbps, Sign::POSITIVE, bounds::kLinkRate,
                "As in `[[failures]]`, for `degrade`.")
            .Kinds(drawableTaking("rate_gbps"))
            .Default("one of the two"),
        Real<R>("loss_rate", &R::lossRate, 0.0, 1.0, "number 0..1",
                "As in `[[failures]]`, for `loss`.")
            .Unit("per frame")
            .Kinds(drawableTaking("loss_rate"))
            .Default("required"),
        Choice<R>("links", &R::links, {"all", "host", "fabric"},
                  "`component = \"link\"` only: every link, the host links, or the "
                  "switch-to-switch links.")
            .Kinds(DrawableFailureKinds("link")),
    };
    return rows;
}

/** `key` of the table `t` at `fp`, required. */
void
Require(ScenarioReader& r, const toml::node& e, const toml::table& t, const std::string& fp,
        const char* key, const std::string& what)
{
    if (t.get(key) == nullptr)
    {
        r.Fail(&e, fp + "." + key, "required: " + what);
    }
}

void
Read(ScenarioReader& r, const toml::table& root, ScenarioSpec& spec)
{
    const toml::array* entries = r.TableArray(
        root, "", kP, "one per link, switch or NIC failure, repair, degradation or loss");
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
        Require(r, e, t, fp, "at_us", "when the failure happens, in microseconds");
        const auto rows = Rows();
        const std::vector<std::string> kinds = FailureKindNames();
        Require(r, e, t, fp, "kind", OneOf(kinds));
        FailureEntry f;
        f.line = r.LineOf(&e);
        f.kind = r.Choice(t.get("kind"), K("kind"), kinds);
        ReadKnobs(r, t, fp, rows, f, f.kind);
        const FailureKindInfo& kind = *FindFailureKind(f.kind);
        // The component it names, then what the kind itself needs.
        switch (kind.target)
        {
        case FailureKindInfo::LINK:
            Require(r, e, t, fp, "link",
                    "\"<from>-<to>\", vertex names as in links.csv (e.g. \"leaf0-spine1\")");
            break;
        case FailureKindInfo::SWITCH:
            Require(r, e, t, fp, "switch", "the switch's name as in links.csv (e.g. \"spine3\")");
            break;
        case FailureKindInfo::NIC:
            Require(r, e, t, fp, "host", "the host id whose NIC fails");
            break;
        }
        if (kind.read)
        {
            kind.read(FailureReadCheck{r, e, t, fp, f});
        }
        if (f.atPs >= spec.stopTimePs)
        {
            r.Fail(t.get("at_us"), K("at_us"),
                   "expected a time before stop_time_ms (" + FormatDouble(spec.stopTimePs / 1e9) +
                       " ms)");
        }
        if (f.untilPs && *f.untilPs <= f.atPs)
        {
            r.Fail(t.get("until_us"), K("until_us"),
                   "expected a time after at_us (" + FormatDouble(f.atPs / 1e6) + " us)");
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
    const auto rows = Rows();
    for (const auto& f : spec.failures)
    {
        fl.push_back(WriteKnobs(rows, f, f.kind));
    }
    root[kP] = fl;
}

std::vector<KnobBlock>
Blocks()
{
    KnobBlock b{kP, "failures[i]", Docs(Rows())};
    b.kindColumn = true;
    return {b};
}

void
ReadRates(ScenarioReader& r, const toml::table& root, ScenarioSpec& spec)
{
    const toml::array* entries = r.TableArray(
        root, "", kRatesP, "one per component type that fails at random (links, switches, NICs)");
    if (entries == nullptr)
    {
        return;
    }
    size_t index = 0;
    for (auto&& e : *entries)
    {
        const std::string fp = std::string(kRatesP) + "[" + std::to_string(index++) + "]";
        const toml::table& t = *e.as_table();
        r.NoteKey(fp, &e);
        auto K = [&](const std::string& key) { return fp + "." + key; };
        Require(r, e, t, fp, "component", "\"link\", \"switch\" or \"nic\"");
        Require(r, e, t, fp, "mtbf_us", "the mean time between failures of one component, in "
                                        "microseconds");
        FailureRateEntry f;
        f.line = r.LineOf(&e);
        f.component = r.Choice(t.get("component"), K("component"), {"link", "switch", "nic"});
        // The kinds it may draw and the default, from the failure kinds' registrations.
        const std::vector<std::string> kinds = DrawableFailureKinds(f.component);
        f.kind = t.get("kind") ? r.Choice(t.get("kind"), K("kind"), kinds) : kinds[0];
        ReadKnobs(r, t, fp, RateRows(), f, f.kind);
        if (const FailureKindInfo& kind = *FindFailureKind(f.kind); kind.read)
        {
            FailureEntry drawn; // what the kind's check sees: its keys are the entry's
            drawn.kind = f.kind;
            kind.read(FailureReadCheck{r, e, t, fp, drawn});
        }
        spec.failureRates.push_back(f);
    }
}

void
WriteRates(const ScenarioSpec& spec, nlohmann::json& root)
{
    if (spec.failureRates.empty())
    {
        return;
    }
    nlohmann::json fl = nlohmann::json::array();
    for (const auto& f : spec.failureRates)
    {
        fl.push_back(WriteKnobs(RateRows(), f, f.kind));
    }
    root[kRatesP] = fl;
}

std::vector<KnobBlock>
RateBlocks()
{
    KnobBlock b{kRatesP, "failure_rates[i]", Docs(RateRows())};
    b.kindColumn = true;
    return {b};
}

} // namespace

Section
FailuresKeys()
{
    return Section{kP, &Read, &Write, &Blocks};
}

Section
FailureRatesKeys()
{
    return Section{kRatesP, &ReadRates, &WriteRates, &RateBlocks};
}

} // namespace tusk
