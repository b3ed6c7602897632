// A congestion control of one's own, for the plugin libmin-queue.so (docs/extending.md, "A
// congestion control"): every QP sends at a constant rate, ns3::ConstantRateCc::RateGbps (set
// it in a scenario's [ns3] table), whatever the fabric says. It registers its short name
// "constant-rate" from this file, as the built-in controls do; `nic.congestion_control =
// "constant-rate"` then selects it once the plugin is loaded.

// [cc]
#include "rdma/model/cc/cc-registry.h"
#include "rdma/model/cc/rdma-congestion-control.h"

#include "ns3/double.h"

#include <algorithm>

namespace ns3
{

/** \brief A constant sending rate per QP, at most the line rate; no window. */
class ConstantRateCc : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::ConstantRateCc")
                .SetParent<RdmaCongestionControl>()
                .SetGroupName("OwnPolicies")
                .AddConstructor<ConstantRateCc>()
                .AddAttribute("RateGbps", "Sending rate of every QP (Gb/s; at most the line rate).",
                              DoubleValue(10.0), MakeDoubleAccessor(&ConstantRateCc::m_rateGbps),
                              MakeDoubleChecker<double>(1e-3));
        return tid;
    }
    uint64_t GetRateBps() const override
    {
        return std::min<uint64_t>(m_setup.lineRateBps, static_cast<uint64_t>(m_rateGbps * 1e9));
    }
    const char* Name() const override { return "constant-rate"; }

  private:
    double m_rateGbps = 10.0;
};

NS_OBJECT_ENSURE_REGISTERED(ConstantRateCc);

namespace
{
const CongestionControlRegistration kRegistration{
    {"constant-rate", "ns3::ConstantRateCc", "a constant rate per QP, RateGbps (own control)"},
    "open-loop pacing, the baseline of any rate control"};
} // namespace

} // namespace ns3
// [/cc]
