/*
 * tusk: the congestion controls beyond DCQCN, [hpcc], [timely], [swift], [dctcp] and [nscc]
 * (the section of nic.congestion_control), and receiver credits, [rccc] (nic.receiver_credit).
 * One row per key, each setting one attribute of its model; a key not given is the
 * attribute's initial value, and the echo of a section in use writes every key as used.
 */
#include "scenario/scenario-sections.h"

#include "fabric/model/input-error.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <fmt/format.h>

#include <cmath>

namespace tusk
{

namespace
{

using namespace knob;
using S = std::map<std::string, double>;
constexpr double kMax = 1e15;

/** One key: its section, name, the attribute it sets, how it is read, its range. */
struct CcKey
{
    enum Kind
    {
        REAL,      //!< a number (DoubleValue)
        INTEGER,   //!< a whole number (UintegerValue)
        BOOL,      //!< true / false (BooleanValue)
        TIME_US,   //!< µs (TimeValue)
        RATE_MBPS, //!< Mb/s (an UintegerValue in bit/s)
        BYTES,     //!< bytes or a size string (UintegerValue)
    };
    const char* section;
    const char* key;
    const char* attribute;
    Kind kind;
    double lo; //!< smallest value, in the key's unit
    double hi; //!< largest value, in the key's unit
    const char* help;
};

const std::vector<CcKey>&
CcKeys()
{
    using K = CcKey;
    static const std::vector<CcKey> keys = {
        // HPCC (Li et al. 2019, Algorithm 1).
        {"hpcc", "target_utilisation", "ns3::HpccCongestionControl::TargetUtilisation", K::REAL,
         0.01, 1, "η, the bottleneck utilisation HPCC aims at."},
        {"hpcc", "max_stage", "ns3::HpccCongestionControl::MaxStage", K::INTEGER, 0, 1000,
         "maxStage: additive-increase rounds before a multiplicative step (the authors' "
         "simulations used 0)."},
        {"hpcc", "wai_bytes", "ns3::HpccCongestionControl::AdditiveIncreaseBytes", K::REAL, 0,
         kMax, "W_AI, bytes added to the window per update."},
        {"hpcc", "rate_ai_mbps", "ns3::HpccCongestionControl::AdditiveIncreaseRate", K::RATE_MBPS,
         0, kMax, "W_AI as a rate, W_AI = rate × T (the HPCC simulator's RATE_AI); 0 = use "
         "`wai_bytes`."},
        {"hpcc", "fast_react", "ns3::HpccCongestionControl::FastReact", K::BOOL, 0, 1,
         "React to every ACK, not once per RTT."},
        {"hpcc", "min_rate_mbps", "ns3::HpccCongestionControl::MinRate", K::RATE_MBPS, 1e-6,
         kMax, "Lowest rate W / T."},
        // TIMELY (Mittal et al. 2015, Algorithm 1).
        {"timely", "alpha", "ns3::TimelyCongestionControl::Alpha", K::REAL, 0, 1,
         "EWMA weight of a new RTT difference."},
        {"timely", "beta", "ns3::TimelyCongestionControl::Beta", K::REAL, 0, 1,
         "Multiplicative decrease factor."},
        {"timely", "t_low_us", "ns3::TimelyCongestionControl::TLow", K::TIME_US, 0, kMax,
         "Tlow: below it only increases."},
        {"timely", "t_high_us", "ns3::TimelyCongestionControl::THigh", K::TIME_US, 0.001, kMax,
         "Thigh: above it decreases."},
        {"timely", "min_rtt_us", "ns3::TimelyCongestionControl::MinRtt", K::TIME_US, 0.001, kMax,
         "minRTT, the gradient's normaliser."},
        {"timely", "rate_ai_mbps", "ns3::TimelyCongestionControl::AdditiveIncrease", K::RATE_MBPS,
         0, kMax, "δ, the additive increase."},
        {"timely", "rate_hai_mbps", "ns3::TimelyCongestionControl::HyperIncrease", K::RATE_MBPS,
         0, kMax, "Hyper-active increase step; 0 = 5 δ."},
        {"timely", "hai_threshold", "ns3::TimelyCongestionControl::HaiThreshold", K::INTEGER, 0,
         1e6, "Updates with a gradient ≤ 0 in a row before HAI."},
        {"timely", "min_rate_mbps", "ns3::TimelyCongestionControl::MinRate", K::RATE_MBPS, 1e-6,
         kMax, "Lowest rate."},
        // Swift (Kumar et al. 2020, Algorithm 1).
        {"swift", "base_target_us", "ns3::SwiftCongestionControl::BaseTarget", K::TIME_US, 0,
         kMax, "Fixed part of the target delay."},
        {"swift", "hop_scaling_us", "ns3::SwiftCongestionControl::HopScaling", K::TIME_US, 0,
         kMax, "h, target added per switch on the path."},
        {"swift", "fs_range_us", "ns3::SwiftCongestionControl::FsRange", K::TIME_US, 0, kMax,
         "fs_range, the largest flow-based addition (0 = none)."},
        {"swift", "fs_min_cwnd", "ns3::SwiftCongestionControl::FsMinCwnd", K::REAL, 1e-6, kMax,
         "fs_min_cwnd."},
        {"swift", "fs_max_cwnd", "ns3::SwiftCongestionControl::FsMaxCwnd", K::REAL, 1e-6, kMax,
         "fs_max_cwnd."},
        {"swift", "ai", "ns3::SwiftCongestionControl::AdditiveIncrease", K::REAL, 0, kMax,
         "ai, per RTT."},
        {"swift", "beta", "ns3::SwiftCongestionControl::Beta", K::REAL, 0, 1,
         "β, multiplicative decrease gain."},
        {"swift", "max_mdf", "ns3::SwiftCongestionControl::MaxMdf", K::REAL, 0, 1,
         "max_mdf, largest decrease per RTT."},
        {"swift", "min_cwnd", "ns3::SwiftCongestionControl::MinCwnd", K::REAL, 1e-6, kMax,
         "Smallest window."},
        {"swift", "max_cwnd", "ns3::SwiftCongestionControl::MaxCwnd", K::REAL, 0, kMax,
         "Largest window (0 = one BDP)."},
        {"swift", "initial_cwnd", "ns3::SwiftCongestionControl::InitialCwnd", K::REAL, 0, kMax,
         "Window of a new QP (0 = `max_cwnd`)."},
        {"swift", "retx_reset_threshold", "ns3::SwiftCongestionControl::RetxResetThreshold",
         K::INTEGER, 1, 1e6, "Timeouts in a row that reset the window."},
        // DCTCP (Alizadeh et al. 2010).
        {"dctcp", "g", "ns3::DctcpCongestionControl::Gain", K::REAL, 0, 1,
         "g, weight of a window's marked fraction in α."},
        {"dctcp", "initial_alpha", "ns3::DctcpCongestionControl::InitialAlpha", K::REAL, 0, 1,
         "α of a new QP."},
        {"dctcp", "ai_bytes", "ns3::DctcpCongestionControl::AdditiveIncrease", K::BYTES, 0, kMax,
         "Bytes added per window of unmarked ACKs (0 = one MTU)."},
        {"dctcp", "rate_ai_mbps", "ns3::DctcpCongestionControl::AdditiveIncreaseRate",
         K::RATE_MBPS, 0, kMax,
         "The increase as a rate × T (the HPCC simulator's DCTCP_RATE_AI); 0 = `ai_bytes`."},
        {"dctcp", "initial_window_bytes", "ns3::DctcpCongestionControl::InitialWindowBytes",
         K::BYTES, 0, kMax, "Window of a new QP (0 = `max_window_bytes`)."},
        {"dctcp", "min_window_bytes", "ns3::DctcpCongestionControl::MinWindowBytes", K::BYTES, 0,
         kMax, "Smallest window (0 = one MTU)."},
        {"dctcp", "max_window_bytes", "ns3::DctcpCongestionControl::MaxWindowBytes", K::BYTES, 0,
         kMax, "Largest window (0 = one BDP)."},
        // NSCC (UEC 1.0).
        {"nscc", "initial_window_bytes", "ns3::NsccCongestionControl::InitialWindowBytes",
         K::BYTES, 0, kMax, "Window of a new QP (0 = the largest)."},
        {"nscc", "min_window_bytes", "ns3::NsccCongestionControl::MinWindowBytes", K::BYTES, 0,
         kMax, "Smallest window (0 = one MTU)."},
        {"nscc", "max_window_bytes", "ns3::NsccCongestionControl::MaxWindowBytes", K::BYTES, 0,
         kMax, "Largest window (0 = 1.5 BDP at the base RTT)."},
        {"nscc", "target_qdelay_us", "ns3::NsccCongestionControl::TargetQueueingDelay",
         K::TIME_US, 0, kMax, "target_Qdelay (0 = the base RTT; use 0.75 of it with trimming)."},
        {"nscc", "delay_ewma_gain", "ns3::NsccCongestionControl::DelayEwmaGain", K::REAL, 0, 1,
         "Gain of the filtered delay."},
        {"nscc", "decrease_gain", "ns3::NsccCongestionControl::DecreaseGain", K::REAL, 0, 1,
         "γ, multiplicative decrease gain."},
        {"nscc", "max_decrease", "ns3::NsccCongestionControl::MaxDecrease", K::REAL, 0, 1,
         "Largest decrease per base RTT."},
        {"nscc", "proportional_gain", "ns3::NsccCongestionControl::ProportionalGain", K::REAL, 0,
         kMax, "α = this × MTU × a × b / target."},
        {"nscc", "fair_increase", "ns3::NsccCongestionControl::FairIncrease", K::REAL, 0, kMax,
         "fi = this × MTU × a."},
        {"nscc", "eta", "ns3::NsccCongestionControl::Eta", K::REAL, 0, kMax,
         "η = this × MTU × a per base RTT."},
        {"nscc", "fast_increase_scale", "ns3::NsccCongestionControl::FastIncreaseScale", K::REAL,
         0, kMax, "Fast increase per acknowledged byte, × a."},
        {"nscc", "fast_increase_delay_us", "ns3::NsccCongestionControl::FastIncreaseDelay",
         K::TIME_US, 0, kMax, "Fast increase below this queueing delay."},
        {"nscc", "quick_adapt", "ns3::NsccCongestionControl::QuickAdapt", K::BOOL, 0, 1,
         "Quick adapt after losses and large delays."},
        {"nscc", "quick_adapt_gate", "ns3::NsccCongestionControl::QuickAdaptGate", K::INTEGER, 0,
         30, "Quick adapt only below MaxWnd / 2^gate delivered."},
        // InfiniBand congestion control (IBA vol. 1, annex A10), fabric.kind = "infiniband".
        {"ib-cc", "ccti_increase", "ns3::IbCongestionControl::CctiIncrease", K::INTEGER, 1, 8191,
         "CCTI_Increase: table entries the index rises per BECN."},
        {"ib-cc", "ccti_limit", "ns3::IbCongestionControl::CctiLimit", K::INTEGER, 1, 8191,
         "CCTI_Limit: the last table entry."},
        {"ib-cc", "ccti_min", "ns3::IbCongestionControl::CctiMin", K::INTEGER, 0, 8191,
         "CCTI_Min: the timer never lowers the index below it."},
        {"ib-cc", "ccti_timer_us", "ns3::IbCongestionControl::CctiTimer", K::TIME_US, 0.001,
         kMax, "CCTI_Timer: the index falls by one every this long."},
        {"ib-cc", "cct_step_us", "ns3::IbCongestionControl::CctStep", K::TIME_US, 0, kMax,
         "Inter-packet delay per table entry: CCT[i] = i × this."},
        // Receiver credits (UEC 1.0 RCCC), with nic.receiver_credit = true.
        {"rccc", "initial_credit_bytes", "ns3::RdmaNic::InitialCreditBytes", K::BYTES, 0, kMax,
         "Speculative credit of a new QP (0 = one BDP)."},
        {"rccc", "grant_bytes", "ns3::RdmaNic::CreditGrantBytes", K::BYTES, 0, kMax,
         "Credit per grant (0 = 4 MTUs)."},
        {"rccc", "window_bytes", "ns3::RdmaNic::CreditWindowBytes", K::BYTES, 0, kMax,
         "The receiver grants while less is outstanding (0 = one BDP)."},
    };
    return keys;
}

const char* const kCcSections[] = {"hpcc", "timely", "swift", "dctcp", "nscc", "ib-cc", "rccc"};

/** The attribute's initial value in the key's unit. */
double
AttributeDefault(const CcKey& k)
{
    switch (k.kind)
    {
    case CcKey::REAL:
        return AttributeDefaultDouble(k.attribute);
    case CcKey::BOOL:
        return AttributeDefaultBool(k.attribute) ? 1 : 0;
    case CcKey::TIME_US:
        return static_cast<double>(AttributeDefaultPs(k.attribute)) / kPsPerUs;
    case CcKey::RATE_MBPS:
        return static_cast<double>(AttributeDefaultUint(k.attribute)) / 1e6;
    case CcKey::INTEGER:
    case CcKey::BYTES:
    default:
        return static_cast<double>(AttributeDefaultUint(k.attribute));
    }
}

/** The echo of value `v` of key `k`. */
nlohmann::json
Echo(const CcKey& k, double v)
{
    switch (k.kind)
    {
    case CcKey::BOOL:
        return v != 0;
    case CcKey::INTEGER:
    case CcKey::BYTES:
        return static_cast<uint64_t>(v);
    default:
        return JsonNumber(v);
    }
}

/** The attribute value of `v` (in the key's unit). */
ns3::Ptr<ns3::AttributeValue>
AttributeValueOf(const CcKey& k, double v)
{
    switch (k.kind)
    {
    case CcKey::REAL:
        return ns3::Create<ns3::DoubleValue>(v);
    case CcKey::BOOL:
        return ns3::Create<ns3::BooleanValue>(v != 0);
    case CcKey::TIME_US:
        return ns3::Create<ns3::TimeValue>(
            ns3::PicoSeconds(static_cast<int64_t>(std::llround(v * kPsPerUs))));
    case CcKey::RATE_MBPS:
        return ns3::Create<ns3::UintegerValue>(static_cast<uint64_t>(std::llround(v * 1e6)));
    case CcKey::INTEGER:
    case CcKey::BYTES:
    default:
        return ns3::Create<ns3::UintegerValue>(static_cast<uint64_t>(std::llround(v)));
    }
}

std::string
TypeText(const CcKey& k)
{
    const bool open = k.hi >= kMax;
    switch (k.kind)
    {
    case CcKey::BOOL:
        return "boolean";
    case CcKey::INTEGER:
        return "integer " + FormatDouble(k.lo) + ".." + FormatDouble(k.hi);
    case CcKey::BYTES:
        return "size " + FormatDouble(k.lo) + ".." + SizeBoundText(static_cast<uint64_t>(k.hi));
    default:
        if (!open)
        {
            return "number " + FormatDouble(k.lo) + ".." + FormatDouble(k.hi);
        }
        return k.lo == 0 ? "number ≥ 0" : k.lo <= 1e-3 ? "number > 0" : "number ≥ " + FormatDouble(k.lo);
    }
}

std::string
UnitText(const CcKey& k)
{
    const std::string key = k.key;
    auto endsWith = [&key](const std::string& s) {
        return key.size() > s.size() && key.compare(key.size() - s.size(), s.size(), s) == 0;
    };
    switch (k.kind)
    {
    case CcKey::TIME_US:
        return "µs";
    case CcKey::RATE_MBPS:
        return "Mb/s";
    case CcKey::BYTES:
        return "bytes";
    default:
        return endsWith("_bytes") ? "bytes" : endsWith("cwnd") || key == "ai" ? "packets" : "";
    }
}

/** `k` with its range cut to the physically meaningful one of its kind (knob.h, Bounds):
 *  rates 1 kb/s .. 100 Tb/s, times up to 10 s, sizes up to 1 TiB. */
CcKey
Bounded(CcKey k)
{
    switch (k.kind)
    {
    case CcKey::RATE_MBPS:
        k.lo = k.lo > 0 ? std::max(k.lo, double(bounds::kCcRate.lo) / kBpsPerMbps) : 0;
        k.hi = std::min(k.hi, double(bounds::kCcRate.hi) / kBpsPerMbps);
        break;
    case CcKey::TIME_US:
        k.hi = std::min(k.hi, double(bounds::kTimer.hi) / kPsPerUs);
        break;
    case CcKey::BYTES:
        k.hi = std::min(k.hi, double(bounds::kMaxBufferBytes));
        break;
    default:
        if (std::string(k.key).find("_bytes") != std::string::npos)
        {
            k.hi = std::min(k.hi, double(bounds::kMaxBufferBytes));
        }
        break;
    }
    return k;
}

/** The knob of key `given` (bounded): it reads into and echoes from
 *  spec.ccSettings["section.key"]. */
Knob<S>
MakeKnob(const CcKey& given)
{
    const CcKey k = Bounded(given);
    const std::string full = std::string(k.section) + "." + k.key;
    return Custom<S>(
               k.key, TypeText(k), UnitText(k), k.help,
               [k](ScenarioReader& r, const toml::node& n, const std::string& key, S& s) {
                   switch (k.kind)
                   {
                   case CcKey::BOOL:
                       s[key] = r.Bool(&n, key) ? 1 : 0;
                       break;
                   case CcKey::INTEGER:
                       s[key] = static_cast<double>(r.Int(&n, key, static_cast<int64_t>(k.lo),
                                                          static_cast<int64_t>(k.hi)));
                       break;
                   case CcKey::BYTES:
                       s[key] = static_cast<double>(
                           r.Bytes(&n, key, static_cast<uint64_t>(k.lo),
                                   static_cast<uint64_t>(k.hi)));
                       break;
                   default:
                       s[key] = r.Real(&n, key, k.lo, k.hi);
                       break;
                   }
               },
               [k, full](const S& s) {
                   const auto it = s.find(full);
                   return Echo(k, it != s.end() ? it->second : AttributeDefault(k));
               })
        .Attr({k.attribute});
}

/** The rows of `section`, built once. */
const std::vector<Knob<S>>&
Rows(const std::string& section)
{
    static const std::map<std::string, std::vector<Knob<S>>> rows = [] {
        std::map<std::string, std::vector<Knob<S>>> m;
        for (const auto& k : CcKeys())
        {
            m[k.section].push_back(MakeKnob(k));
        }
        return m;
    }();
    return rows.at(section);
}

/** The congestion control a section belongs to ("" for [rccc], which works with any). */
std::string
Owner(const std::string& section)
{
    return section == "rccc" ? "" : section;
}

Section
CcSection(const std::string& name)
{
    Section s;
    s.key = name;
    s.read = [name](ScenarioReader& r, const toml::table& root, ScenarioSpec& spec) {
        if (const toml::node* tn = r.Get(root, "", name))
        {
            ReadKnobs(r, r.Table(tn, name), name, Rows(name), spec.ccSettings);
        }
    };
    // In use: every key as used. Not in use: the keys given (ScenarioWarnings says they do
    // nothing), so that a rerun warns alike.
    s.write = [name](const ScenarioSpec& spec, nlohmann::json& root) {
        if (CcSectionInUse(spec, name))
        {
            root[name] = WriteKnobs(Rows(name), spec.ccSettings);
            return;
        }
        nlohmann::json given = nlohmann::json::object();
        for (const auto& k : Rows(name))
        {
            if (spec.ccSettings.count(KeyPath(name, k.d.name)))
            {
                given[k.d.name] = k.write(spec.ccSettings);
            }
        }
        if (!given.empty())
        {
            root[name] = given;
        }
    };
    s.blocks = [name]() { return std::vector<KnobBlock>{KnobBlock(name, name, Docs(Rows(name)))}; };
    return s;
}

} // namespace

std::vector<Section>
CcKeySections()
{
    std::vector<Section> out;
    for (const char* name : kCcSections)
    {
        out.push_back(CcSection(name));
    }
    return out;
}

bool
CcSectionInUse(const ScenarioSpec& spec, const std::string& section)
{
    const std::string owner = Owner(section);
    return owner.empty() ? spec.nic.receiverCredit : owner == spec.nic.congestionControl;
}

std::vector<std::string>
CcSectionNames()
{
    return {std::begin(kCcSections), std::end(kCcSections)};
}

void
CheckCcSettings(const ScenarioSpec& spec)
{
    if (!CcSectionInUse(spec, "ib-cc"))
    {
        return;
    }
    auto setting = [&spec](const std::string& key, const char* attribute) {
        const auto it = spec.ccSettings.find(key);
        return it != spec.ccSettings.end() ? static_cast<uint64_t>(it->second)
                                           : AttributeDefaultUint(attribute);
    };
    const uint64_t lo = setting("ib-cc.ccti_min", "ns3::IbCongestionControl::CctiMin");
    const uint64_t hi = setting("ib-cc.ccti_limit", "ns3::IbCongestionControl::CctiLimit");
    if (lo > hi)
    {
        const std::string key =
            spec.ccSettings.count("ib-cc.ccti_min") ? "ib-cc.ccti_min" : "ib-cc.ccti_limit";
        throw spec.KeyError(key,
                            fmt::format("ccti_min ({}) must not exceed ccti_limit ({}): the "
                                        "index starts at ccti_min and never rises above "
                                        "ccti_limit",
                                        lo, hi));
    }
}

std::vector<std::pair<std::string, ns3::Ptr<ns3::AttributeValue>>>
CcAttributeValues(const ScenarioSpec& spec)
{
    std::vector<std::pair<std::string, ns3::Ptr<ns3::AttributeValue>>> out;
    for (const auto& k : CcKeys())
    {
        const auto it = spec.ccSettings.find(std::string(k.section) + "." + k.key);
        if (it != spec.ccSettings.end() && CcSectionInUse(spec, k.section))
        {
            out.emplace_back(k.attribute, AttributeValueOf(k, it->second));
        }
    }
    return out;
}

} // namespace tusk
