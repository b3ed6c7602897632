/*
 * tusk: [dcqcn], DCQCN's reaction point and notification point
 * (nic.congestion_control = "dcqcn"). The presets are the model's
 * (ns3::DcqcnCongestionControl::Preset); a key overrides its preset's value.
 */
#include "scenario/scenario-sections.h"

#include "rdma/model/cc/dcqcn.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

namespace tusk
{

namespace
{

using namespace knob;
using S = DcqcnSection;
using ns3::Ptr;
const char* const kP = "dcqcn";
constexpr uint64_t kMax = bounds::kMaxBufferBytes;

/** One DCQCN attribute and the [dcqcn] field that overrides it. */
struct DcqcnField
{
    const char* attribute; //!< of ns3::DcqcnCongestionControl
    std::function<bool(const S&)> isSet;
    std::function<void(S&, const ns3::AttributeValue&)> fill;
    std::function<Ptr<ns3::AttributeValue>(const S&)> value;
};

template <class V, class T, class M>
DcqcnField
MakeField(const char* attribute, std::optional<M> S::*field)
{
    DcqcnField f;
    f.attribute = attribute;
    f.isSet = [field](const S& d) { return (d.*field).has_value(); };
    f.fill = [field](S& d, const ns3::AttributeValue& v) {
        const auto& typed = dynamic_cast<const V&>(v);
        if constexpr (std::is_same_v<V, ns3::TimeValue>)
        {
            d.*field = static_cast<M>(typed.Get().GetPicoSeconds());
        }
        else
        {
            d.*field = static_cast<M>(typed.Get());
        }
    };
    f.value = [field](const S& d) -> Ptr<ns3::AttributeValue> {
        if constexpr (std::is_same_v<V, ns3::TimeValue>)
        {
            return ns3::Create<V>(ns3::PicoSeconds(*(d.*field)));
        }
        else
        {
            return ns3::Create<V>(static_cast<T>(*(d.*field)));
        }
    };
    return f;
}

const std::vector<DcqcnField>&
Fields()
{
    static const std::vector<DcqcnField> fields = {
        MakeField<ns3::DoubleValue, double>("Gain", &S::g),
        MakeField<ns3::DoubleValue, double>("InitialAlpha", &S::initialAlpha),
        MakeField<ns3::TimeValue, uint64_t>("AlphaUpdatePeriod", &S::alphaUpdatePs),
        MakeField<ns3::TimeValue, uint64_t>("RateIncreaseTimer", &S::timerPs),
        MakeField<ns3::UintegerValue, uint64_t>("ByteCounter", &S::byteCounterBytes),
        MakeField<ns3::UintegerValue, uint64_t>("FastRecoveryStages", &S::fastRecoveryStages),
        MakeField<ns3::UintegerValue, uint64_t>("RateAi", &S::rateAiBps),
        MakeField<ns3::UintegerValue, uint64_t>("RateHai", &S::rateHaiBps),
        MakeField<ns3::UintegerValue, uint64_t>("MinRate", &S::minRateBps),
        MakeField<ns3::UintegerValue, uint64_t>("RateOnFirstCnp", &S::rateOnFirstCnpBps),
        MakeField<ns3::BooleanValue, bool>("ClampTargetRate", &S::clampTargetRate),
        MakeField<ns3::TimeValue, uint64_t>("MinDecreaseInterval", &S::minDecreaseIntervalPs),
        MakeField<ns3::BooleanValue, bool>("AlphaUpdateOnTimer", &S::alphaOnTimer),
        MakeField<ns3::BooleanValue, bool>("DecreaseOnTimer", &S::decreaseOnTimer),
    };
    return fields;
}

std::string
AttributePath(const char* attribute)
{
    return std::string("ns3::DcqcnCongestionControl::") + attribute;
}

template <class K>
K
Attr(K k, const char* attribute)
{
    k.d.attributes.push_back(AttributePath(attribute));
    return k;
}

const std::vector<Knob<S>>&
Rows()
{
    static const std::vector<Knob<S>> rows = {
        Choice<S>("preset", &S::preset, ns3::DcqcnCongestionControl::PresetNames(),
                  "Zhu et al. 2015 (`\"paper\"`), or the HPCC simulator's NIC-default style "
                  "(`\"hpcc\"`); every other key of the table overrides its preset's value. The "
                  "manifest echoes every value as used."),
        Attr(Real<S>("g", &S::g, 0, 1, "number 0..1", "α gain."), "Gain"),
        Attr(Real<S>("initial_alpha", &S::initialAlpha, 0, 1, "number 0..1", "α of a new QP."),
             "InitialAlpha"),
        Attr(Time<S>("alpha_update_us", &S::alphaUpdatePs, kPsPerUs, "µs", Sign::POSITIVE,
                     Clock::TIMER, bounds::kTimer, "K, the α update period."),
             "AlphaUpdatePeriod"),
        Attr(Time<S>("timer_us", &S::timerPs, kPsPerUs, "µs", Sign::POSITIVE, Clock::TIMER,
                     bounds::kTimer,
                     "T, rate-increase timer."),
             "RateIncreaseTimer"),
        Attr(Size<S>("byte_counter_bytes", &S::byteCounterBytes, 0, kMax, "B; `0` = off."),
             "ByteCounter"),
        Attr(Integer<S>("fast_recovery_stages", &S::fastRecoveryStages, 0, 1000, "F."),
             "FastRecoveryStages"),
        Attr(Rate<S>("rate_ai_mbps", &S::rateAiBps, kBpsPerMbps, Sign::NON_NEGATIVE,
                     bounds::kCcRate,
                     "R_AI, additive increase step."),
             "RateAi"),
        Attr(Rate<S>("rate_hai_mbps", &S::rateHaiBps, kBpsPerMbps, Sign::NON_NEGATIVE,
                     bounds::kCcRate,
                     "R_HAI, hyper increase step."),
             "RateHai"),
        Attr(Rate<S>("min_rate_mbps", &S::minRateBps, kBpsPerMbps, Sign::POSITIVE, bounds::kCcRate,
                     "Floor of a decrease."),
             "MinRate"),
        Attr(Rate<S>("rate_on_first_cnp_gbps", &S::rateOnFirstCnpBps, kBpsPerGbps,
                     Sign::NON_NEGATIVE, bounds::kCcRate, "Rate set on the first CNP; `0` = cut."),
             "RateOnFirstCnp"),
        Attr(Boolean<S>("clamp_target_rate", &S::clampTargetRate, "Rt ← Rc on every CNP."),
             "ClampTargetRate"),
        Attr(Time<S>("min_decrease_interval_us", &S::minDecreaseIntervalPs, kPsPerUs, "µs",
                     Sign::NON_NEGATIVE, Clock::TIMER, bounds::kTimer,
                     "CNPs closer than this to the last decrease are ignored (with "
                     "`decrease_on_timer`: the period of the decrease clock)."),
             "MinDecreaseInterval"),
        Attr(Boolean<S>("alpha_on_timer", &S::alphaOnTimer,
                        "α changes only every K: up by g if a CNP came since the last tick, "
                        "else down (a Mellanox NIC)."),
             "AlphaUpdateOnTimer"),
        Attr(Boolean<S>("decrease_on_timer", &S::decreaseOnTimer,
                        "A CNP flags the QP; the cut comes at the next tick of a "
                        "`min_decrease_interval_us` clock (a Mellanox NIC)."),
             "DecreaseOnTimer"),
        Time<S>("cnp_interval_us", &S::cnpIntervalPs, kPsPerUs, "µs", Sign::NON_NEGATIVE,
                Clock::TIMER,
            bounds::kTimer, "NP: at most one CNP per QP per interval (not part of a preset).")
            .Attr({"ns3::RdmaNic::CnpInterval"}),
    };
    return rows;
}

std::vector<KnobBlock>
Blocks()
{
    KnobBlock b{kP, kP, Docs(Rows())};
    // One column per preset: its values at a 25 Gb/s line rate, marked "per 25 Gb/s" where
    // the preset scales them with the line rate.
    constexpr uint64_t k25G = 25'000'000'000ULL;
    for (const auto& preset : ns3::DcqcnCongestionControl::PresetNames())
    {
        S at25;
        at25.preset = preset;
        ResolveDcqcnPreset(at25, k25G);
        S at100;
        at100.preset = preset;
        ResolveDcqcnPreset(at100, 4 * k25G);
        std::vector<std::string> column;
        for (const auto& k : Rows())
        {
            if (k.d.name == "preset")
            {
                column.emplace_back();
                continue;
            }
            const nlohmann::json v = k.write(at25);
            std::string text = v.is_null() ? "" : TomlText(v);
            if (k.write(at100) != v)
            {
                text += " per 25 Gb/s";
            }
            column.push_back(text);
        }
        b.presetColumns.emplace_back(preset, column);
    }
    return {b};
}

} // namespace

void
ResolveDcqcnPreset(DcqcnSection& d, uint64_t lineRateBps)
{
    for (const auto& [name, value] : ns3::DcqcnCongestionControl::Preset(d.preset, lineRateBps))
    {
        for (const auto& f : Fields())
        {
            if (name == f.attribute && !f.isSet(d))
            {
                f.fill(d, *value);
            }
        }
    }
}

std::vector<std::pair<std::string, ns3::Ptr<ns3::AttributeValue>>>
DcqcnAttributeValues(const DcqcnSection& resolved)
{
    std::vector<std::pair<std::string, Ptr<ns3::AttributeValue>>> out;
    for (const auto& f : Fields())
    {
        if (f.isSet(resolved))
        {
            out.emplace_back(AttributePath(f.attribute), f.value(resolved));
        }
    }
    return out;
}

Section
DcqcnKeys()
{
    PlainSectionOptions options;
    options.blocks = &Blocks;
    return PlainSection(kP, &Rows, &ScenarioSpec::dcqcn, options);
}

} // namespace tusk
