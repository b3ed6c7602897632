// A plugin for the command-line tests (tests/component/plugin-cli-test.cc): a shared library
// built apart from tusk whose files register a switch policy and a congestion control, as a
// researcher's plugin does (docs/extending.md, "A plugin"). `tusk --plugin` loads it.

#include "fabric/model/load-balancer.h"
#include "lb-policies/policy-registry.h"
#include "rdma/model/cc-registry.h"
#include "rdma/model/rdma-congestion-control.h"

namespace ns3
{

/** \brief Every packet to the last usable equal-cost egress (ports that are down or paused
 *  are skipped); the first candidate when none is usable. */
class ExampleLastPortLoadBalancer : public LoadBalancer
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ExampleLastPortLoadBalancer")
                                .SetParent<LoadBalancer>()
                                .SetGroupName("Example")
                                .AddConstructor<ExampleLastPortLoadBalancer>();
        return tid;
    }

  private:
    uint32_t DoSelectEgress(const LbContext&,
                            const FrameMeta&,
                            const EgressCandidate* candidates,
                            uint32_t count) override
    {
        for (uint32_t i = count; i-- > 0;)
        {
            if (candidates[i].linkUp && !candidates[i].paused)
            {
                return i;
            }
        }
        return 0;
    }
};

/** \brief Half the line rate, always. */
class ExampleHalfRateCc : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ExampleHalfRateCc")
                                .SetParent<RdmaCongestionControl>()
                                .SetGroupName("Example")
                                .AddConstructor<ExampleHalfRateCc>();
        return tid;
    }
    uint64_t GetRateBps() const override { return m_setup.lineRateBps / 2; }
    const char* Name() const override { return "example-half-rate"; }
};

NS_OBJECT_ENSURE_REGISTERED(ExampleLastPortLoadBalancer);
NS_OBJECT_ENSURE_REGISTERED(ExampleHalfRateCc);

namespace
{
const PolicyRegistration kPolicy{
    {"example-last-port", "ns3::ExampleLastPortLoadBalancer", "the last usable egress (test)"},
    "tests/plugin/example-plugin.cc"};
const CongestionControlRegistration kCc{
    {"example-half-rate", "ns3::ExampleHalfRateCc", "half the line rate (test)",
     CongestionControlInfo::NEEDS_BASE_RTT},
    "tests/plugin/example-plugin.cc"};
} // namespace

} // namespace ns3
