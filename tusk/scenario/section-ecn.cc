/*
 * tusk: [ecn], RED-style ECN marking at switch egress (DCQCN's congestion point), with
 * thresholds per port rate in [[ecn.by_rate]].
 */
#include "scenario/scenario-sections.h"

namespace tusk
{

namespace
{

using namespace knob;
const char* const kP = "ecn";
constexpr uint64_t kMax = bounds::kMaxBufferBytes;
/** Kmax = Kmin is a step: every frame arriving above the threshold is marked (Pmax then has no
 *  effect), as InfiniBand's single FECN threshold and DCTCP's K. */
const char* const kOrderMessage =
    "expected kmax_bytes >= kmin_bytes (equal: a step, every frame marked above the threshold)";

/** One [[ecn.by_rate]] entry. */
struct ByRate
{
    uint64_t rateBps = 0;
    EcnThresholds th;
};

/** kmin_bytes, kmax_bytes, pmax of an EcnThresholds held in Owner at `field`. */
template <class Owner>
std::vector<Knob<Owner>>
ThresholdRows(EcnThresholds Owner::*field, bool writeAlways)
{
    auto threshold = [field, writeAlways](const char* name, auto member, uint64_t lo,
                                          const char* doc) {
        return Custom<Owner>(
            name, "size " + std::to_string(lo) + ".." + SizeBoundText(kMax), "bytes", doc,
            [field, member, lo](ScenarioReader& r, const toml::node& n, const std::string& key,
                                Owner& o) { (o.*field).*member = r.Bytes(&n, key, lo, kMax); },
            [field, member, writeAlways](const Owner& o) {
                return writeAlways || o.WritesFallback() ? nlohmann::json((o.*field).*member)
                                                         : nlohmann::json();
            });
    };
    return {
        threshold("kmin_bytes", &EcnThresholds::kminBytes, 0,
                  "Kmin: marking probability 0 at a queue ≤ Kmin (instantaneous queue)."),
        threshold("kmax_bytes", &EcnThresholds::kmaxBytes, 1,
                  "Kmax: probability rises linearly to Pmax at Kmax, and is 1 above; Kmax = Kmin "
                  "is a step (mark every frame above the threshold; InfiniBand's FECN "
                  "threshold, DCTCP's K)."),
        Custom<Owner>(
            "pmax", "number 0..1", "", "Pmax: the marking probability at Kmax.",
            [field](ScenarioReader& r, const toml::node& n, const std::string& key, Owner& o) {
                (o.*field).pmax = r.Real(&n, key, 0, 1);
            },
            [field, writeAlways](const Owner& o) {
                return writeAlways || o.WritesFallback() ? JsonNumber((o.*field).pmax)
                                                         : nlohmann::json();
            }),
    };
}

/** [ecn] as an owner of rows: its thresholds are echoed unless only by_rate was given. */
struct EcnTop : EcnSection
{
    bool WritesFallback() const { return fallbackGiven || byRate.empty(); }
};

/** One [[ecn.by_rate]] entry as an owner of rows. */
struct EcnByRate : ByRate
{
    bool WritesFallback() const { return true; }
};

const std::vector<Knob<EcnTop>>&
Rows()
{
    static const std::vector<Knob<EcnTop>> rows = [] {
        std::vector<Knob<EcnTop>> r = {
            Boolean<EcnTop>("enabled", &EcnTop::enabled,
                            "CE-mark ECN-capable data frames at switch egress (DCQCN's congestion "
                            "point)."),
            Boolean<EcnTop>("mark_at_dequeue", &EcnTop::markAtDequeue,
                            "Decide the mark as the frame leaves the queue, on the bytes behind "
                            "it (the HPCC simulator's switch), not as it joins.")
                .Attr({"ns3::SwitchPort::EcnMarkAtDequeue"}),
        };
        for (auto& k : ThresholdRows<EcnTop>(&EcnTop::fallback, false))
        {
            r.push_back(k);
        }
        return r;
    }();
    return rows;
}

const std::vector<Knob<EcnByRate>>&
ByRateRows()
{
    static const std::vector<Knob<EcnByRate>> rows = [] {
        std::vector<Knob<EcnByRate>> r = {
            Rate<EcnByRate>("gbps", &EcnByRate::rateBps, kBpsPerGbps, Sign::POSITIVE,
                            bounds::kLinkRate,
                            "The port rate these thresholds are for.")
                .Default("required"),
        };
        for (auto k : ThresholdRows<EcnByRate>(&EcnByRate::th, true))
        {
            r.push_back(k.Default("the `[ecn]` value"));
        }
        return r;
    }();
    return rows;
}

void
Read(ScenarioReader& r, const toml::table& root, ScenarioSpec& spec)
{
    const toml::table* tp = r.SectionTable(root, kP);
    if (tp == nullptr)
    {
        return;
    }
    const toml::table& t = *tp;
    EcnTop e;
    static_cast<EcnSection&>(e) = spec.ecn;
    ReadKnobs(r, t, kP, Rows(), e, "", {"by_rate"});
    const bool fallbackKeys = t.get("kmin_bytes") || t.get("kmax_bytes") || t.get("pmax");
    if (e.fallback.kmaxBytes < e.fallback.kminBytes)
    {
        r.Fail(t.get("kmax_bytes"), "ecn.kmax_bytes", kOrderMessage);
    }
    e.thresholdsGiven = fallbackKeys || t.get("by_rate") != nullptr;
    if (const toml::node* n = r.Get(t, kP, "by_rate"))
    {
        const toml::array* a = n->as_array();
        if (a == nullptr)
        {
            r.Fail(n, "ecn.by_rate",
                   "expected an array of tables [[ecn.by_rate]] with gbps, kmin_bytes, "
                   "kmax_bytes, pmax");
        }
        for (const auto& entry : *a)
        {
            const toml::table& rt = r.Table(&entry, "ecn.by_rate");
            if (rt.get("gbps") == nullptr)
            {
                r.CheckKeys(rt, "ecn.by_rate", {"gbps", "kmin_bytes", "kmax_bytes", "pmax"});
                r.Fail(&entry, "ecn.by_rate.gbps", "every [[ecn.by_rate]] entry needs gbps");
            }
            EcnByRate b;
            b.th = e.fallback;
            ReadKnobs(r, rt, "ecn.by_rate", ByRateRows(), b);
            if (b.th.kmaxBytes < b.th.kminBytes)
            {
                r.Fail(&entry, "ecn.by_rate.kmax_bytes", kOrderMessage);
            }
            e.byRate[b.rateBps] = b.th;
        }
        e.fallbackGiven = fallbackKeys;
    }
    spec.ecn = e;
}

void
Write(const ScenarioSpec& spec, nlohmann::json& root)
{
    EcnTop e;
    static_cast<EcnSection&>(e) = spec.ecn;
    nlohmann::json j = WriteKnobs(Rows(), e);
    if (!e.byRate.empty())
    {
        nlohmann::json rates = nlohmann::json::array();
        for (const auto& [rate, th] : e.byRate)
        {
            EcnByRate b;
            b.rateBps = rate;
            b.th = th;
            rates.push_back(WriteKnobs(ByRateRows(), b));
        }
        j["by_rate"] = rates;
    }
    root[kP] = j;
}

std::vector<KnobBlock>
Blocks()
{
    return {KnobBlock{kP, kP, Docs(Rows())},
            KnobBlock{"ecn.by_rate", "ecn.by_rate", Docs(ByRateRows())}};
}

} // namespace

Section
EcnKeys()
{
    return Section{kP, &Read, &Write, &Blocks};
}

} // namespace tusk
