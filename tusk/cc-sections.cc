#include "cc-sections.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace tusk
{

namespace
{
constexpr double kMax = 1e15;
} // namespace

const std::vector<CcKey>&
CcKeys()
{
    using K = CcKey;
    static const std::vector<CcKey> keys = {
        // HPCC (Li et al. 2019, Algorithm 1).
        {"hpcc", "target_utilisation", "ns3::HpccCongestionControl::TargetUtilisation", K::REAL,
         0.01, 1, "η, the bottleneck utilisation HPCC aims at (0.95)."},
        {"hpcc", "max_stage", "ns3::HpccCongestionControl::MaxStage", K::INTEGER, 0, 1000,
         "maxStage: additive-increase rounds before a multiplicative step (5; the authors' "
         "simulations used 0)."},
        {"hpcc", "wai_bytes", "ns3::HpccCongestionControl::AdditiveIncreaseBytes", K::REAL, 0,
         kMax, "W_AI, bytes added to the window per update (80)."},
        {"hpcc", "rate_ai_mbps", "ns3::HpccCongestionControl::AdditiveIncreaseRate", K::RATE_MBPS,
         0, kMax, "W_AI as a rate, W_AI = rate × T (the HPCC simulator's RATE_AI); 0 = use "
         "`wai_bytes`."},
        {"hpcc", "fast_react", "ns3::HpccCongestionControl::FastReact", K::BOOL, 0, 1,
         "React to every ACK, not once per RTT (true)."},
        {"hpcc", "min_rate_mbps", "ns3::HpccCongestionControl::MinRate", K::RATE_MBPS, 1e-6,
         kMax, "Lowest rate W / T (100)."},
        // TIMELY (Mittal et al. 2015, Algorithm 1).
        {"timely", "alpha", "ns3::TimelyCongestionControl::Alpha", K::REAL, 0, 1,
         "EWMA weight of a new RTT difference (0.875)."},
        {"timely", "beta", "ns3::TimelyCongestionControl::Beta", K::REAL, 0, 1,
         "Multiplicative decrease factor (0.8)."},
        {"timely", "t_low_us", "ns3::TimelyCongestionControl::TLow", K::TIME_US, 0, kMax,
         "Tlow: below it only increases (50)."},
        {"timely", "t_high_us", "ns3::TimelyCongestionControl::THigh", K::TIME_US, 0.001, kMax,
         "Thigh: above it decreases (500)."},
        {"timely", "min_rtt_us", "ns3::TimelyCongestionControl::MinRtt", K::TIME_US, 0.001, kMax,
         "minRTT, the gradient's normaliser (20)."},
        {"timely", "rate_ai_mbps", "ns3::TimelyCongestionControl::AdditiveIncrease", K::RATE_MBPS,
         0, kMax, "δ, the additive increase (10)."},
        {"timely", "rate_hai_mbps", "ns3::TimelyCongestionControl::HyperIncrease", K::RATE_MBPS,
         0, kMax, "Hyper-active increase step; 0 = 5 δ."},
        {"timely", "hai_threshold", "ns3::TimelyCongestionControl::HaiThreshold", K::INTEGER, 0,
         1e6, "Updates with a gradient ≤ 0 in a row before HAI (5)."},
        {"timely", "min_rate_mbps", "ns3::TimelyCongestionControl::MinRate", K::RATE_MBPS, 1e-6,
         kMax, "Lowest rate (100)."},
        // Swift (Kumar et al. 2020, Algorithm 1).
        {"swift", "base_target_us", "ns3::SwiftCongestionControl::BaseTarget", K::TIME_US, 0,
         kMax, "Fixed part of the target delay (3)."},
        {"swift", "hop_scaling_us", "ns3::SwiftCongestionControl::HopScaling", K::TIME_US, 0,
         kMax, "h, target added per switch on the path (2.5)."},
        {"swift", "fs_range_us", "ns3::SwiftCongestionControl::FsRange", K::TIME_US, 0, kMax,
         "fs_range, the largest flow-based addition (5; 0 = none)."},
        {"swift", "fs_min_cwnd", "ns3::SwiftCongestionControl::FsMinCwnd", K::REAL, 1e-6, kMax,
         "fs_min_cwnd, packets (0.1)."},
        {"swift", "fs_max_cwnd", "ns3::SwiftCongestionControl::FsMaxCwnd", K::REAL, 1e-6, kMax,
         "fs_max_cwnd, packets (100)."},
        {"swift", "ai", "ns3::SwiftCongestionControl::AdditiveIncrease", K::REAL, 0, kMax,
         "ai, packets per RTT (1)."},
        {"swift", "beta", "ns3::SwiftCongestionControl::Beta", K::REAL, 0, 1,
         "β, multiplicative decrease gain (0.8)."},
        {"swift", "max_mdf", "ns3::SwiftCongestionControl::MaxMdf", K::REAL, 0, 1,
         "max_mdf, largest decrease per RTT (0.5)."},
        {"swift", "min_cwnd", "ns3::SwiftCongestionControl::MinCwnd", K::REAL, 1e-6, kMax,
         "Smallest window, packets (0.001)."},
        {"swift", "max_cwnd", "ns3::SwiftCongestionControl::MaxCwnd", K::REAL, 0, kMax,
         "Largest window, packets (0 = one BDP)."},
        {"swift", "initial_cwnd", "ns3::SwiftCongestionControl::InitialCwnd", K::REAL, 0, kMax,
         "Window of a new QP, packets (0 = `max_cwnd`)."},
        {"swift", "retx_reset_threshold", "ns3::SwiftCongestionControl::RetxResetThreshold",
         K::INTEGER, 1, 1e6, "Timeouts in a row that reset the window (5)."},
        // DCTCP (Alizadeh et al. 2010).
        {"dctcp", "g", "ns3::DctcpCongestionControl::Gain", K::REAL, 0, 1,
         "g, weight of a window's marked fraction in α (0.0625)."},
        {"dctcp", "initial_alpha", "ns3::DctcpCongestionControl::InitialAlpha", K::REAL, 0, 1,
         "α of a new QP (1)."},
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
         "Gain of the filtered delay (0.0125)."},
        {"nscc", "decrease_gain", "ns3::NsccCongestionControl::DecreaseGain", K::REAL, 0, 1,
         "γ, multiplicative decrease gain (0.8)."},
        {"nscc", "max_decrease", "ns3::NsccCongestionControl::MaxDecrease", K::REAL, 0, 1,
         "Largest decrease per base RTT (0.5)."},
        {"nscc", "proportional_gain", "ns3::NsccCongestionControl::ProportionalGain", K::REAL, 0,
         kMax, "α = this × MTU × a × b / target (4)."},
        {"nscc", "fair_increase", "ns3::NsccCongestionControl::FairIncrease", K::REAL, 0, kMax,
         "fi = this × MTU × a (5)."},
        {"nscc", "eta", "ns3::NsccCongestionControl::Eta", K::REAL, 0, kMax,
         "η = this × MTU × a per base RTT (0.15)."},
        {"nscc", "fast_increase_scale", "ns3::NsccCongestionControl::FastIncreaseScale", K::REAL,
         0, kMax, "Fast increase per acknowledged byte, × a (0.25)."},
        {"nscc", "fast_increase_delay_us", "ns3::NsccCongestionControl::FastIncreaseDelay",
         K::TIME_US, 0, kMax, "Fast increase below this queueing delay (1)."},
        {"nscc", "quick_adapt", "ns3::NsccCongestionControl::QuickAdapt", K::BOOL, 0, 1,
         "Quick adapt after losses and large delays (true)."},
        {"nscc", "quick_adapt_gate", "ns3::NsccCongestionControl::QuickAdaptGate", K::INTEGER, 0,
         30, "Quick adapt only below MaxWnd / 2^gate delivered (3)."},
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

const std::vector<std::string>&
CcSections()
{
    static const std::vector<std::string> s = {"hpcc", "timely", "swift", "dctcp", "nscc", "rccc"};
    return s;
}

const CcKey*
FindCcKey(const std::string& section, const std::string& key)
{
    for (const auto& k : CcKeys())
    {
        if (section == k.section && key == k.key)
        {
            return &k;
        }
    }
    return nullptr;
}

const CcKey*
FindCcKeyByAttribute(const std::string& path)
{
    for (const auto& k : CcKeys())
    {
        if (path == k.attribute)
        {
            return &k;
        }
    }
    return nullptr;
}

ns3::Ptr<ns3::AttributeValue>
CcAttributeValue(const CcKey& k, double value)
{
    switch (k.kind)
    {
    case CcKey::REAL:
        return ns3::Create<ns3::DoubleValue>(value);
    case CcKey::BOOL:
        return ns3::Create<ns3::BooleanValue>(value != 0);
    case CcKey::TIME_US:
        return ns3::Create<ns3::TimeValue>(
            ns3::PicoSeconds(static_cast<int64_t>(std::llround(value * 1e6))));
    case CcKey::RATE_MBPS:
        return ns3::Create<ns3::UintegerValue>(static_cast<uint64_t>(std::llround(value * 1e6)));
    case CcKey::INTEGER:
    case CcKey::BYTES:
    default:
        return ns3::Create<ns3::UintegerValue>(static_cast<uint64_t>(std::llround(value)));
    }
}

std::string
CcSectionOwner(const std::string& section)
{
    return section == "rccc" ? "" : section;
}

} // namespace tusk
