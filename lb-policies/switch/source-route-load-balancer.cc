#include "source-route-load-balancer.h"

#include "lb-policies/policy-registry.h"

#include "fabric/helper/source-routes.h"
#include "fabric/model/input-error.h"

#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(SourceRouteLoadBalancer);

TypeId
SourceRouteLoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SourceRouteLoadBalancer")
            .SetParent<LoadBalancer>()
            .SetGroupName("LbPolicies")
            .AddConstructor<SourceRouteLoadBalancer>()
            .AddAttribute("Planes",
                          "Planes of the fabric (dimensionless): the route's lowest digit "
                          "chooses the plane, which the NIC has already done. Set by the "
                          "runner from the topology.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&SourceRouteLoadBalancer::m_planes),
                          MakeUintegerChecker<uint32_t>(1, 16))
            .AddAttribute("HopRadices",
                          "Equal-cost choices at each switch hop of a longest path, comma-"
                          "separated (\"16\" for a leaf-spine of 16 spines, \"4,4\" for a k = 8 "
                          "fat tree). Set by the runner from the topology.",
                          StringValue(""),
                          MakeStringAccessor(&SourceRouteLoadBalancer::SetRadices,
                                             &SourceRouteLoadBalancer::GetRadices),
                          MakeStringChecker());
    return tid;
}

SourceRouteLoadBalancer::SourceRouteLoadBalancer() = default;

void
SourceRouteLoadBalancer::SetRadices(const std::string& text)
{
    std::vector<uint32_t> radices;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
    {
        try
        {
            size_t used = 0;
            const unsigned long r = std::stoul(item, &used);
            if (used != item.size() || r == 0 || r > 65536)
            {
                throw std::invalid_argument(item);
            }
            radices.push_back(static_cast<uint32_t>(r));
        }
        catch (const std::exception&)
        {
            throw InputError("", 0, "ns3::SourceRouteLoadBalancer::HopRadices",
                             "expected comma-separated counts 1..65536 like \"4,4\"; got \"" +
                                 text + "\"");
        }
    }
    m_radices = radices;
    m_divisors = RouteDivisors(m_radices);
}

std::string
SourceRouteLoadBalancer::GetRadices() const
{
    SourceRouteLayout l;
    l.radices = m_radices;
    return l.RadixText();
}

uint32_t
SourceRouteLoadBalancer::Choice(const FrameMeta& frame, uint32_t count) const
{
    return RouteChoice(RouteOfEntropy(frame.srcPort), m_planes, m_divisors,
                       64u - std::min<uint32_t>(frame.ttl, 64u), count);
}

uint32_t
SourceRouteLoadBalancer::DoSelectEgress(const LbContext&, const FrameMeta& frame,
                                        const EgressCandidate*, uint32_t count)
{
    return Choice(frame, count);
}

bool
SourceRouteLoadBalancer::DoProbeEgress(const LbContext&,
                                       const FrameMeta& frame,
                                       const EgressCandidate*,
                                       uint32_t count,
                                       uint32_t& index) const
{
    index = Choice(frame, count);
    return true;
}

namespace
{
const PolicyRegistration kSourceRoute{
    {"source-route", "ns3::SourceRouteLoadBalancer",
     "static source routing: the host picks plane and every hop from a path set (route in the "
     "UDP source port), switches forward by it; hosts spray the path set round-robin",
     {},
     "ns3::PathSetSprayPathSelector",
     0,
     "",
     "",
     "",
     false,
     "",
     "reverse"},
    "OCP Multipath Reliable Connection (MRC) 1.0, 2026: SRv6 static source routing"};
const PolicyRegistration kMrc{
    {"mrc", "ns3::SourceRouteLoadBalancer",
     "MRC-style multipath: source-routed spraying over a path set, steering away from ECN, "
     "trims and RTT excess, retiring failed paths and probing them before reuse",
     {},
     "ns3::MrcPathSelector",
     0,
     "",
     "",
     "",
     false,
     "",
     "reverse"},
    "OCP Multipath Reliable Connection (MRC) 1.0, 2026 (EV states GOOD / ASSUMED_BAD, EV "
    "probes, ev_min_active: companion API mrc_ctl.h)"};
// Ethereal: no spraying. A transfer is split over QPs (subflows, QP scaling Split), each QP
// keeps one source route (EtherealPathSelector), and a host's QPs take the fabric's routes in
// turn (WorkloadExecutor QpEntropy Routes). Subflows per transfer: one per route unless
// nic.qps_per_connection says otherwise (SplitOverRoutes). Failover: a subflow whose route
// loses packets moves to the host's least-loaded route (EtherealPathSelector::Failover).
const PolicyRegistration kEthereal{
    {"ethereal", "ns3::SourceRouteLoadBalancer",
     "application-split single-path subflows: a transfer split into k QPs, each pinned to one "
     "source route, a host's subflows spread evenly over the routes; no spraying; a subflow "
     "whose route loses packets moves to the host's least-loaded route",
     {},
     "ns3::EtherealPathSelector",
     0,
     "split",
     "",
     "",
     false,
     "routes"},
    "Addanki, Goyal, Marinos, Schmid, Ethereal: Divide and Conquer Network Load Balancing in "
    "Large-Scale Distributed Training, arXiv 2407.00550, 2024"};
} // namespace

} // namespace ns3
