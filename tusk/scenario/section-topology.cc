/*
 * tusk: [topology] and the built-in topology kinds (leaf-spine, fat-tree, htsim, ring,
 * rail-optimised, pod-clos, hpcc, multi-site), each registered with its keys, builder and
 * checks (topology-kinds.h). The parameters are the builders' own structs
 * (fabric/helper/topology-builders.h), whose defaults are the keys' defaults.
 */
#include "run/run-stages.h"
#include "run/fabric-kinds.h"
#include "scenario/scenario-sections.h"
#include "scenario/topology-kinds.h"

#include "fabric/helper/in-network-endpoints.h"
#include "importers/model/hpcc-reader.h"
#include "importers/model/htsim-topo-reader.h"

#include <fmt/format.h>

#include <cmath>

namespace tusk
{

namespace
{

using namespace knob;

const char* const kP = "topology";

const char* const kDelayDoc = "One-way propagation delay of every link.";
const char* const kLatencyDoc = "Forwarding latency added at every switch.";

/** host_link_gbps, fabric_link_gbps, link_delay_ns, switch_latency_ns of a Clos kind. */
template <class P>
std::vector<Knob<P>>
LinkRows(const char* params, const char* hostDoc, const char* fabricDoc)
{
    auto param = [params](const char* field) { return std::string(params) + "." + field; };
    std::vector<Knob<P>> rows;
    rows.push_back(Rate<P>("host_link_gbps", &P::hostRateBps, kBpsPerGbps, Sign::POSITIVE,
                       bounds::kLinkRate, hostDoc)
                       .Attr({"ns3::FabricNetDevice::DataRate"}));
    rows.back().d.params.push_back(param("hostRateBps"));
    if (fabricDoc != nullptr)
    {
        if constexpr (std::is_same_v<P, ns3::PodClosParams>)
        {
        }
        else
        {
            rows.push_back(Rate<P>("fabric_link_gbps", &P::fabricRateBps, kBpsPerGbps,
                                   Sign::POSITIVE, bounds::kLinkRate, fabricDoc)
                               .Attr({"ns3::FabricNetDevice::DataRate"}));
            rows.back().d.params.push_back(param("fabricRateBps"));
        }
    }
    rows.push_back(Time<P>("link_delay_ns", &P::linkDelayPs, kPsPerNs, "ns", Sign::NON_NEGATIVE,
                           Clock::ANY, bounds::kLinkDelay, kDelayDoc)
                       .Attr({"ns3::FabricChannel::Delay"}));
    rows.push_back(Time<P>("switch_latency_ns", &P::switchLatencyPs, kPsPerNs, "ns",
                           Sign::NON_NEGATIVE, Clock::ANY, bounds::kLinkDelay, kLatencyDoc)
                       .Attr({"ns3::SwitchNode::ForwardingLatency"}));
    return rows;
}

template <class P>
std::vector<Knob<P>>
Concat(std::vector<Knob<P>> a, const std::vector<Knob<P>>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

/** The keys of a leaf-spine, for P = LeafSpineParams or a struct derived from it (one site of
 *  a multi-site fabric). */
template <class P>
std::vector<Knob<P>>
LeafSpineKeys()
{
    return Concat<P>(
        {
            Count<P>("leaves", &P::leaves, 1, "Leaf (ToR) switches.").Param({"LeafSpineParams.leaves"}),
            Count<P>("spines", &P::spines, 1, "Spine switches.").Param({"LeafSpineParams.spines"}),
            Count<P>("hosts_per_leaf", &P::hostsPerLeaf, 1,
                     "Hosts under each leaf; hosts = `leaves × hosts_per_leaf`.")
                .Param({"LeafSpineParams.hostsPerLeaf"}),
            Count<P>("links_per_spine", &P::linksPerSpine, 1,
                     "Parallel links between each leaf and each spine.")
                .Param({"LeafSpineParams.linksPerSpine"}),
        },
        LinkRows<P>("LeafSpineParams", "Host–leaf link rate.", "Leaf–spine link rate."));
}

/** `planes` and `plane_link_gbps` of a kind that copies its fabric into planes
 *  (fabric/helper/multi-plane.h); echoed only when set, so a one-plane manifest is unchanged. */
template <class P>
std::vector<Knob<P>>
PlaneRows(const char* params)
{
    auto param = [params](const char* field) { return std::string(params) + "." + field; };
    std::vector<Knob<P>> rows;
    rows.push_back(
        Count<P>("planes", &P::planes, 1,
                 "Planes (at most 16): the fabric is built this many times, each copy its own "
                 "switches and links (`p<k>.` before its switch names: `p2.leaf3`), and every "
                 "host NIC gets one port per plane at `plane_link_gbps`. The NIC sends a frame "
                 "on plane `UDP source port mod planes`: host spraying sprays planes, ECMP keeps "
                 "a QP on one plane. 1 = one fabric, today's names.")
                       .Default("`1`"));
    rows.back().d.params.push_back(param("planes"));
    rows.back().write = [](const P& p) {
        return p.planes == 1 ? nlohmann::json() : nlohmann::json(p.planes);
    };
    rows.push_back(Rate<P>("plane_link_gbps", &P::planeRateBps, kBpsPerGbps, Sign::NON_NEGATIVE,
                           bounds::kLinkRate,
                           "Rate of each host port when `planes` > 1 (or `dual_tor`); 0 = "
                           "`host_link_gbps / planes` (`dual_tor`: `host_link_gbps / 2`), equal "
                           "total bandwidth. Given with one plane and no `dual_tor`, it has "
                           "no effect and the run warns.")
                       .Default("`0`")
                       .Attr({"ns3::FabricNetDevice::DataRate"}));
    rows.back().d.params.push_back(param("planeRateBps"));
    rows.back().write = [](const P& p) {
        return p.planeRateBps == 0 ? nlohmann::json()
                                   : nlohmann::json(InUnit(p.planeRateBps, kBpsPerGbps));
    };
    return rows;
}

/** `dual_tor` of a kind whose ToRs pair up (DualHomeHosts, fabric/helper/multi-plane.h);
 *  echoed only when set, so a manifest without it is unchanged. */
template <class P>
Knob<P>
DualTorRow(const char* params)
{
    Knob<P> row = Boolean<P>(
        "dual_tor", &P::dualTor,
        "Dual-ToR hosts (non-stacked dual-ToR, MC-LAG style): ToRs 2i and 2i+1 form a pair and "
        "every host NIC has two ports, port 0 to the even ToR and port 1 to the odd one, each at "
        "`plane_link_gbps` (default `host_link_gbps / 2`); one fabric, names unchanged. The NIC "
        "sends a frame on port `UDP source port mod 2`, on the surviving port when one's link "
        "is down. Needs an even number of ToRs (fat tree: `k` a multiple of 4) and `planes = 1` "
        "(`planes = 2` is the dual-plane layout).");
    row.Default("`false`");
    row.d.params.push_back(std::string(params) + ".dualTor");
    row.write = [](const P& p) { return p.dualTor ? nlohmann::json(true) : nlohmann::json(); };
    return row;
}

/** `in_network_reduction` of a kind whose leaves and top switch can aggregate
 *  (fabric/helper/in-network-endpoints.h); echoed only when set, so a manifest without it is
 *  unchanged. */
template <class P>
Knob<P>
InNetworkRow()
{
    Knob<P> row = Boolean<P>(
        "in_network_reduction", &P::inNetworkReduction,
        "In-network reduction (SHARP / CollNet-style switch aggregation): every leaf (ToR) and "
        "the first switch of the top tier (the root) get an aggregation endpoint, host "
        "`agg.<switch>` after the real hosts, so all-reduce may run `algorithm = \"in-network\"` "
        "and `\"auto\"` may pick it (workload.md, In-network all-reduce). Needs `planes = 1` "
        "and no `dual_tor`.");
    row.Default("`false`");
    row.write = [](const P& p) {
        return p.inNetworkReduction ? nlohmann::json(true) : nlohmann::json();
    };
    return row;
}

const std::vector<Knob<ns3::LeafSpineParams>>&
LeafSpineRows()
{
    using P = ns3::LeafSpineParams;
    static const auto rows =
        Concat<P>(Concat<P>(LeafSpineKeys<P>(), PlaneRows<P>("LeafSpineParams")),
                  {DualTorRow<P>("LeafSpineParams"), InNetworkRow<P>()});
    return rows;
}

/** [topology] kind = "multi-site": the keys of one site (a leaf-spine), then the DCI and the
 *  long-haul links (fabric/helper/multi-site.h). */
const std::vector<Knob<ns3::MultiSiteParams>>&
MultiSiteRows()
{
    using P = ns3::MultiSiteParams;
    static const auto rows = Concat<P>(
        {
            Count<P>("sites", &P::sites, 2,
                     "Sites, each a leaf-spine of the keys below; hosts = `sites × leaves × "
                     "hosts_per_leaf`, site by site (host h on site h / (leaves × hosts_per_leaf)).")
                .Param({"MultiSiteParams.sites"}),
            Count<P>("dci_switches", &P::dciSwitches, 1,
                     "Data-centre-interconnect switches per site (`s<i>.dci<d>`); each links to "
                     "every spine of its site at `fabric_link_gbps`.")
                .Param({"MultiSiteParams.dciSwitches"}),
            Count<P>("long_haul_links", &P::longHaulLinks, 1,
                     "Parallel long-haul links between DCI switch d of every two sites (a full "
                     "mesh of sites).")
                .Param({"MultiSiteParams.longHaulLinks"}),
            Rate<P>("long_haul_gbps", &P::longHaulRateBps, kBpsPerGbps, Sign::POSITIVE,
                    bounds::kLinkRate,
                    "Rate of every long-haul link.")
                .Param({"MultiSiteParams.longHaulRateBps"})
                .Attr({"ns3::FabricNetDevice::DataRate"}),
            Time<P>("long_haul_delay_ms", &P::longHaulDelayPs, kPsPerMs, "ms", Sign::POSITIVE,
                    Clock::ANY, bounds::kLongHaulDelay,
                    "One-way delay of every long-haul link (0.1–10 ms: 20–2,000 km). Or "
                    "`long_haul_km`.")
                .Attr({"ns3::FabricChannel::Delay"}),
            Custom<P>(
                "long_haul_km", BoundedType(bounds::kLongHaulDelay, ns3::kFiberPsPerKm, true), "km",
                "Fiber length of every long-haul link instead of `long_haul_delay_ms`: the "
                "delay is 5 µs per km. Echoed as `long_haul_delay_ms`.",
                [](ScenarioReader& r, const toml::node& n, const std::string& key, P& p) {
                    const Bounds b = bounds::kLongHaulDelay;
                    p.longHaulDelayPs = r.Scaled(&n, key, ns3::kFiberPsPerKm, true, b.lo, b.hi);
                },
                [](const P&) { return nlohmann::json(); }),
            Size<P>("dci_buffer", &P::dciBufferBytes, 1, bounds::kMaxBufferBytes,
                    "Buffer of each DCI switch (deep-buffer routers have gigabytes of off-chip "
                    "memory: Broadcom Jericho2, 8 GB). The other switches keep "
                    "`buffer.total_bytes`."),
        },
        LeafSpineKeys<P>());
    return rows;
}

const std::vector<Knob<ns3::FatTreeParams>>&
FatTreeRows()
{
    using P = ns3::FatTreeParams;
    static const auto rows = Concat<P>(
        {
            Custom<P>(
                "k", "even integer ≥ 2", "", "Switch radix.",
                [](ScenarioReader& r, const toml::node& n, const std::string& key, P& p) {
                    p.k = r.U32(&n, key, 2);
                    if (p.k % 2 != 0)
                    {
                        r.Fail(&n, key, "expected an even integer >= 2; got " + std::to_string(p.k));
                    }
                },
                [](const P& p) { return nlohmann::json(p.k); })
                .Param({"FatTreeParams.k"}),
            Count<P>("oversubscription", &P::oversubscription, 1,
                     "Hosts per ToR = `k/2 × oversubscription` (ToR oversubscription "
                     "`oversubscription:1`).")
                .Param({"FatTreeParams.oversubscription"}),
        },
        Concat<P>(Concat<P>(LinkRows<P>("FatTreeParams", "Host–ToR link rate.",
                                        "ToR–aggregation and aggregation–core link rate."),
                            PlaneRows<P>("FatTreeParams")),
                  {DualTorRow<P>("FatTreeParams"), InNetworkRow<P>()}));
    return rows;
}

const std::vector<Knob<TopologySection>>&
FileRows()
{
    using P = TopologySection;
    static const std::vector<Knob<P>> rows = {
        File<P>("file", &P::file,
                "The `.topo` file (htsim) or `topology.txt` file (hpcc); see [Paths](#paths).")
            .Default("required"),
    };
    return rows;
}

const std::vector<Knob<ns3::RingParams>>&
RingRows()
{
    using P = ns3::RingParams;
    static const std::vector<Knob<P>> rows = {
        Count<P>("switches", &P::switches, 3, "Switches in the ring.").Param({"RingParams.switches"}),
        Count<P>("hosts_per_switch", &P::hostsPerSwitch, 1,
                 "Hosts under each switch (host h under switch h / hosts_per_switch)."),
        Rate<P>("link_gbps", &P::rateBps, kBpsPerGbps, Sign::POSITIVE,
            bounds::kLinkRate, "Every link's rate.")
            .Attr({"ns3::FabricNetDevice::DataRate"}),
        Time<P>("link_delay_ns", &P::delayPs, kPsPerNs, "ns", Sign::NON_NEGATIVE, Clock::ANY,
                bounds::kLinkDelay,
                "Every link's delay.")
            .Attr({"ns3::FabricChannel::Delay"}),
        Boolean<P>("clockwise_routes", &P::clockwiseRoutes,
                   "Route between switches only in the direction i → i+1: a cyclic buffer "
                   "dependency."),
    };
    return rows;
}

const std::vector<Knob<ns3::RailOptimisedParams>>&
RailRows()
{
    using P = ns3::RailOptimisedParams;
    static const auto rows = Concat<P>(
        {
            Count<P>("servers", &P::servers, 1, "GPU servers.").Param({"RailOptimisedParams.servers"}),
            Count<P>("gpus_per_server", &P::gpusPerServer, 1, "GPUs (NICs, rails) per server.")
                .Param({"RailOptimisedParams.gpusPerServer"}),
            Custom<P>(
                "servers_per_group", "integer ≥ 0", "",
                "Servers under one set of rail switches; `0` = all; must divide `servers`.",
                [](ScenarioReader& r, const toml::node& n, const std::string& key, P& p) {
                    p.serversPerGroup = r.U32(&n, key, 0);
                    if (p.serversPerGroup > 0 && p.servers % p.serversPerGroup != 0)
                    {
                        r.Fail(&n, key,
                               "expected 0 (all servers) or a divisor of servers (" +
                                   std::to_string(p.servers) + "); got " +
                                   std::to_string(p.serversPerGroup));
                    }
                },
                [](const P& p) { return nlohmann::json(p.serversPerGroup); })
                .Param({"RailOptimisedParams.serversPerGroup"}),
            Count<P>("spines", &P::spines, 1, "Spine switches.").Param({"RailOptimisedParams.spines"}),
            Count<P>("links_per_spine", &P::linksPerSpine, 1,
                     "Parallel links between each rail switch and each spine.")
                .Param({"RailOptimisedParams.linksPerSpine"}),
        },
        Concat<P>(LinkRows<P>("RailOptimisedParams", "GPU NIC – rail switch links.",
                              "Rail – spine links."),
                  PlaneRows<P>("RailOptimisedParams")));
    return rows;
}

const std::vector<Knob<ns3::PodClosParams>>&
PodClosRows()
{
    using P = ns3::PodClosParams;
    static const auto rows = Concat<P>(
        {
            Count<P>("pods", &P::pods, 1, "Pods.").Param({"PodClosParams.pods"}),
            Count<P>("racks_per_pod", &P::racksPerPod, 1, "Racks (ToRs) per pod.")
                .Param({"PodClosParams.racksPerPod"}),
            Count<P>("hosts_per_rack", &P::hostsPerRack, 1, "Hosts per rack.")
                .Param({"PodClosParams.hostsPerRack"}),
            Count<P>("cluster_switches", &P::clusterSwitches, 1,
                     "Tier-2 switches per pod; each ToR has one uplink to each, at hosts_per_rack × "
                     "host rate / cluster_switches.")
                .Param({"PodClosParams.clusterSwitches"}),
            Count<P>("aggregation_switches", &P::aggregationSwitches, 1,
                     "Tier-3 switches; each cluster switch has one uplink to each.")
                .Param({"PodClosParams.aggregationSwitches"}),
            Custom<P>(
                "oversubscription", "number ≥ 1", "",
                "Pod host capacity / pod uplink capacity (`7` = 1:7: 400/7 = 57.1 Gb/s per GPU "
                "leaves a pod).",
                [](ScenarioReader& r, const toml::node& n, const std::string& key, P& p) {
                    const bool number = n.is_integer() || n.is_floating_point();
                    const double v = n.is_integer()          ? static_cast<double>(n.as_integer()->get())
                                     : n.is_floating_point() ? n.as_floating_point()->get()
                                                             : 0.0;
                    if (!number || !std::isfinite(v) || v < 1)
                    {
                        r.Fail(&n, key, "expected a ratio >= 1 (7 for 1:7); got " + Describe(n));
                    }
                    p.oversubscription = v;
                },
                [](const P& p) { return JsonNumber(p.oversubscription); })
                .Param({"PodClosParams.oversubscription"}),
        },
        LinkRows<P>("PodClosParams", "Host – ToR links.", nullptr));
    return rows;
}

/** [topology] file, required by the file kinds: `what` names the file in the message. */
std::function<void(ScenarioReader&, const toml::table&, TopologySection&)>
ReadFile(const std::string& kind, const std::string& what)
{
    return [kind, what](ScenarioReader& r, const toml::table& t, TopologySection& topo) {
        if (t.get("file") == nullptr)
        {
            r.Fail(&t, "topology.file",
                   "required when topology.kind is " + Quote(kind) + ": the " + what);
        }
        ReadKnobValues(r, t, kP, FileRows(), topo);
    };
}

/** Hosts = a * b (* c), saturating at 2^64 - 1. */
uint64_t
Product(std::initializer_list<uint64_t> factors)
{
    unsigned __int128 n = 1;
    for (uint64_t f : factors)
    {
        n *= f;
        if (n > std::numeric_limits<uint64_t>::max())
        {
            return std::numeric_limits<uint64_t>::max();
        }
    }
    return static_cast<uint64_t>(n);
}

/** What a multi-plane fabric refuses: a fabric kind with credit flow control (a multi-plane
 *  NIC has one scheduler for all its ports, and credits are per port). */
void
CheckPlanes(const ScenarioSpec& s, uint32_t planes, bool dualTor = false)
{
    if (planes > 1 && FabricKindOf(s).UsesCredits())
    {
        throw s.KeyError("topology.planes",
                         "expected 1 with an InfiniBand fabric (multi-plane NICs run "
                         "Ethernet only); got " + std::to_string(planes));
    }
    if (dualTor && FabricKindOf(s).UsesCredits())
    {
        throw s.KeyError("topology.dual_tor",
                         "expected false with an InfiniBand fabric (multi-port NICs run "
                         "Ethernet only); got true");
    }
}

/** A warning when `plane_link_gbps` is given to a fabric with one plane and no `dual_tor`:
 *  the host links then run at `host_link_gbps` and the key has no effect. */
template <class P>
void
WarnUnusedPlaneRate(const char* kind, const P& p, bool dualTor, std::vector<std::string>& w)
{
    if (p.planeRateBps != 0 && p.planes <= 1 && !dualTor)
    {
        w.push_back(fmt::format(
            "topology.plane_link_gbps = {:g} has no effect on this {} fabric: it sets the host "
            "ports of a fabric with planes > 1 or dual_tor = true; with one plane and one ToR "
            "per host the host links run at host_link_gbps",
            static_cast<double>(p.planeRateBps) / 1e9, kind));
    }
}

/** `g` with aggregation endpoints when `p.inNetworkReduction` (a leaf-spine's or a fat tree's
 *  parameters); an InputError of AddAggregationEndpoints names the scenario's line. */
template <class P>
ns3::TopologyGraph
WithAggregationEndpoints(const ScenarioSpec& s, ns3::TopologyGraph g, const P& p)
{
    if (!p.inNetworkReduction)
    {
        return g;
    }
    try
    {
        ns3::AddAggregationEndpoints(g);
    }
    catch (const ns3::InputError& e)
    {
        throw s.KeyError(e.Key(), e.Message());
    }
    return g;
}

const TopologyKindRegistration kLeafSpine{
    [] {
        TopologyKindInfo k = WithKnobs("leaf-spine", "two-tier Clos: leaves (ToRs) and spines",
            &LeafSpineRows, [](auto& t) -> auto& { return t.leafSpine; });
        k.hostCount = [](const TopologySection& t) {
            return Product({t.leafSpine.leaves, t.leafSpine.hostsPerLeaf});
        };
        k.build = [](const ScenarioSpec& s) {
            return WithAggregationEndpoints(s, ns3::BuildLeafSpine(s.topology.leafSpine),
                                            s.topology.leafSpine);
        };
        k.check = [](const ScenarioSpec& s, const ns3::TopologyGraph&, uint64_t) {
            CheckPlanes(s, s.topology.leafSpine.planes, s.topology.leafSpine.dualTor);
        };
        k.warnings = [](const ScenarioSpec& s, std::vector<std::string>& w) {
            const auto& p = s.topology.leafSpine;
            WarnUnusedPlaneRate("leaf-spine", p, p.dualTor, w);
        };
        return k;
    }(),
    "Clos, A study of non-blocking switching networks, Bell Syst. Tech. J. 1953 (two tiers)"};

const TopologyKindRegistration kFatTree{
    [] {
        TopologyKindInfo k =
            WithKnobs("fat-tree", "three-tier k-ary fat tree, optionally oversubscribed at the ToR",
                      &FatTreeRows, [](auto& t) -> auto& { return t.fatTree; });
        k.hostCount = [](const TopologySection& t) {
            // k^3/4 * oversubscription, saturating (the builder rejects absurd sizes itself).
            const auto& p = t.fatTree;
            unsigned __int128 hosts =
                static_cast<unsigned __int128>(p.k) * p.k * p.k / 4 * p.oversubscription;
            return hosts > std::numeric_limits<uint64_t>::max()
                       ? std::numeric_limits<uint64_t>::max()
                       : static_cast<uint64_t>(hosts);
        };
        k.build = [](const ScenarioSpec& s) {
            return WithAggregationEndpoints(s, ns3::BuildFatTree(s.topology.fatTree),
                                            s.topology.fatTree);
        };
        k.check = [](const ScenarioSpec& s, const ns3::TopologyGraph&, uint64_t) {
            CheckPlanes(s, s.topology.fatTree.planes, s.topology.fatTree.dualTor);
        };
        k.warnings = [](const ScenarioSpec& s, std::vector<std::string>& w) {
            const auto& p = s.topology.fatTree;
            WarnUnusedPlaneRate("fat-tree", p, p.dualTor, w);
        };
        return k;
    }(),
    "Al-Fares et al., A scalable, commodity data center network architecture, SIGCOMM 2008"};

const TopologyKindRegistration kHtsim{
    [] {
        TopologyKindInfo k = WithKnobs("htsim", "an htsim .topo file",
            &FileRows, [](auto& t) -> auto& { return t; });
        k.read = ReadFile("htsim", ".topo file");
        k.build = [](const ScenarioSpec& s) { return ns3::ReadHtsimTopo(s.topology.file); };
        return k;
    }(),
    "htsim's .topo format (Raiciu et al., csg-htsim)"};

const TopologyKindRegistration kRing{
    [] {
        TopologyKindInfo k = WithKnobs("ring", "a ring of switches (PFC deadlock studies)",
            &RingRows, [](auto& t) -> auto& { return t.ring; });
        k.hostCount = [](const TopologySection& t) {
            return Product({t.ring.switches, t.ring.hostsPerSwitch});
        };
        k.build = [](const ScenarioSpec& s) { return ns3::BuildRing(s.topology.ring); };
        return k;
    }(),
    "Hu et al., Deadlocks in Datacenter Networks: Why Do They Form, and How to Avoid Them, "
    "HotNets 2016"};

const TopologyKindRegistration kRail{
    [] {
        TopologyKindInfo k = WithKnobs(
            "rail-optimised", "GPU servers whose NIC i connects to rail switch i, rails to spines",
            &RailRows, [](auto& t) -> auto& { return t.rail; });
        k.hostCount = [](const TopologySection& t) {
            return Product({t.rail.servers, t.rail.gpusPerServer});
        };
        k.build = [](const ScenarioSpec& s) { return ns3::BuildRailOptimised(s.topology.rail); };
        k.check = [](const ScenarioSpec& s, const ns3::TopologyGraph&, uint64_t) {
            CheckPlanes(s, s.topology.rail.planes);
        };
        k.warnings = [](const ScenarioSpec& s, std::vector<std::string>& w) {
            WarnUnusedPlaneRate("rail-optimised", s.topology.rail, false, w);
        };
        k.pod = TopologyKindInfo::POD_RACK; // a rail group
        k.gpusPerServer = [](const TopologySection& t) { return t.rail.gpusPerServer; };
        return k;
    }(),
    "NVIDIA DGX SuperPOD reference architecture (rail-optimised network)"};

const TopologyKindRegistration kPodClos{
    [] {
        TopologyKindInfo k = WithKnobs(
            "pod-clos", "three-tier pod Clos with oversubscription above the pods",
            &PodClosRows, [](auto& t) -> auto& { return t.podClos; });
        k.hostCount = [](const TopologySection& t) {
            return Product({t.podClos.pods, t.podClos.racksPerPod, t.podClos.hostsPerRack});
        };
        k.build = [](const ScenarioSpec& s) { return ns3::BuildPodClos(s.topology.podClos); };
        return k;
    }(),
    "Llama 3 Team, The Llama 3 Herd of Models, 2024, sec. 3.3.1"};

const TopologyKindRegistration kHpcc{
    [] {
        TopologyKindInfo k = WithKnobs("hpcc", "the HPCC simulator's topology.txt",
            &FileRows, [](auto& t) -> auto& { return t; });
        k.read = ReadFile("hpcc", "topology.txt file");
        k.build = [](const ScenarioSpec& s) {
            return ns3::ReadHpccTopology(s.topology.file).graph;
        };
        k.hostOfNode = [](const TopologySection& t) {
            return ns3::ReadHpccTopology(t.file).hostOfNode;
        };
        k.check = [](const ScenarioSpec& s, const ns3::TopologyGraph& g, uint64_t) {
            // A host with several links (dual-ToR) has a multi-port NIC: Ethernet only.
            const auto ports = ns3::IncidentLinks(g);
            for (uint32_t h = 0; h < g.numHosts && FabricKindOf(s).UsesCredits(); ++h)
            {
                if (ports[h].size() > 1)
                {
                    throw ns3::InputError(
                        s.FileOf("topology.file"), s.LineOf("topology.file"), "topology.file",
                        "expected one link per host with an InfiniBand fabric (multi-port NICs "
                        "run Ethernet only); " + g.vertices[h].name + " has " +
                            std::to_string(ports[h].size()));
                }
            }
        };
        return k;
    }(),
    "the HPCC simulator's topology.txt (Li et al., HPCC, SIGCOMM 2019; "
    "github.com/alibaba-edu/High-Precision-Congestion-Control)"};

/** Over a long haul every packet would time out before its ACK could return. */
void
CheckLongHaulRto(const ScenarioSpec& spec, uint64_t baseRttPs)
{
    if (spec.nic.rtoPs >= baseRttPs)
    {
        return;
    }
    throw ns3::InputError(spec.FileOf("nic.rto_us"),
                          spec.LineOf("nic.rto_us") ? spec.LineOf("nic.rto_us")
                                                    : spec.LineOf("topology.long_haul_delay_ms"),
                          "nic.rto_us",
                          fmt::format("the retransmission timeout ({:g} us) is shorter than the "
                                      "fabric's longest base RTT across the long haul ({:g} us): "
                                      "every packet would be resent before its ACK returns; set "
                                      "nic.rto_us above it (a deployed NIC's 67108.864 us)",
                                      spec.nic.rtoPs / 1e6, baseRttPs / 1e6));
}

/**
 * A VL's credits (fabric.vl_buffer_bytes) cover one round trip of its link; over a long haul
 * they cover a tiny part of it, and credits, not the link, set the rate (IBA vol. 1 7.9).
 */
void
WarnLongHaulCredits(const ScenarioSpec& spec, std::vector<std::string>& w)
{
    if (!FabricKindOf(spec).UsesCredits())
    {
        return;
    }
    const auto& ms = spec.topology.multiSite;
    const double rttS = 2.0 * static_cast<double>(ms.longHaulDelayPs) * 1e-12;
    const double bdpBytes = rttS * static_cast<double>(ms.longHaulRateBps) / 8;
    // At most 2048 credits of 64 B beyond those received (IBA 7.9.4), whatever the buffer.
    const double buf =
        std::min<double>(static_cast<double>(spec.fabric.vlBufferBytes), 2048.0 * 64);
    if (buf < bdpBytes)
    {
        w.push_back(fmt::format(
            "fabric.kind is \"infiniband\" over long-haul links: a VL's credits ({:.0f} bytes "
            "in flight at most) cover {:.3g} us of the long haul's {:.4g} us round trip, so "
            "each long-haul VL carries at most {:.3g} Gb/s of its {:.3g} (oracle 21, IBA "
            "vol. 1 7.9); deployed long-haul InfiniBand converts credits in range extenders, "
            "which tusk does not model",
            buf, buf * 8 / static_cast<double>(ms.longHaulRateBps) * 1e6, rttS * 1e6,
            buf * 8 / rttS / 1e9, static_cast<double>(ms.longHaulRateBps) / 1e9));
    }
}

const TopologyKindRegistration kMultiSite{
    [] {
        TopologyKindInfo k = WithKnobs(
            "multi-site", "leaf-spine sites joined by DCI switches and long-haul links",
            &MultiSiteRows, [](auto& t) -> auto& { return t.multiSite; });
        k.read = [](ScenarioReader& r, const toml::table& t, TopologySection& topo) {
            if (t.get("long_haul_delay_ms") != nullptr && t.get("long_haul_km") != nullptr)
            {
                r.Fail(t.get("long_haul_km"), "topology.long_haul_km",
                       "give either long_haul_delay_ms or long_haul_km (5 us per km), not both");
            }
            ReadKnobValues(r, t, kP, MultiSiteRows(), topo.multiSite);
        };
        k.hostCount = [](const TopologySection& t) {
            const auto& p = t.multiSite;
            return Product({p.sites, p.leaves, p.hostsPerLeaf});
        };
        k.build = [](const ScenarioSpec& s) { return ns3::BuildMultiSite(s.topology.multiSite); };
        k.check = [](const ScenarioSpec& spec, const ns3::TopologyGraph&, uint64_t baseRttPs) {
            CheckLongHaulRto(spec, baseRttPs);
        };
        k.warnings = &WarnLongHaulCredits;
        k.pod = TopologyKindInfo::POD_SITE;
        return k;
    }(),
    "long-haul RDMA between data centres (Microsoft, Empowering Azure Storage with RDMA, "
    "NSDI 2023)"};

/** The kinds of every key name of [topology], from the registered kinds' keys. */
std::vector<KindKey>
KindRules()
{
    std::vector<KindKey> rules;
    for (const auto& kind : TopologyKinds())
    {
        for (const auto& d : kind.docs())
        {
            auto it = std::find_if(rules.begin(), rules.end(),
                                   [&d](const KindKey& r) { return r.key == d.name; });
            if (it == rules.end())
            {
                rules.push_back(KindKey{d.name, {kind.name}});
            }
            else
            {
                it->kinds.push_back(kind.name);
            }
        }
    }
    return rules;
}

const std::vector<KindKey>&
Rules()
{
    static const std::vector<KindKey> rules = KindRules();
    return rules;
}

void
Read(ScenarioReader& r, const toml::table& root, ScenarioSpec& spec)
{
    auto& topo = spec.topology;
    const toml::table* tp = r.SectionTable(root, kP);
    if (tp == nullptr)
    {
        r.SetHostCount(TopologyHostCount(spec));
        return;
    }
    const toml::table& t = *tp;
    if (const toml::node* n = r.Get(t, kP, "kind"))
    {
        topo.kind = r.Choice(n, "topology.kind", TopologyKindNames());
    }
    r.CheckKindKeys(t, kP, topo.kind, Rules());
    FindTopologyKind(topo.kind)->read(r, t, topo);
    r.SetHostCount(TopologyHostCount(spec));
}

void
Write(const ScenarioSpec& spec, nlohmann::json& root)
{
    const auto& topo = spec.topology;
    const TopologyKindInfo* kind = FindTopologyKind(topo.kind);
    nlohmann::json j = kind ? kind->write(topo) : nlohmann::json::object();
    j["kind"] = topo.kind;
    root[kP] = j;
}

std::vector<KnobBlock>
Blocks()
{
    std::string doc;
    const auto names = TopologyKindNames();
    for (size_t i = 0; i < names.size(); ++i)
    {
        doc += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + ("`\"" + names[i] + "\"`");
    }
    Knob<TopologySection> kind = Choice<TopologySection>(
        "kind", &TopologySection::kind, names,
        doc + " (`tusk kinds` lists them; a plugin may add more).");
    // One block per kind; its rows are valid for that kind only.
    std::vector<KnobBlock> blocks{KnobBlock{"topology", kP, Docs<TopologySection>({kind})}};
    for (const auto& k : TopologyKinds())
    {
        std::vector<KnobDoc> docs = k.docs();
        for (auto& d : docs)
        {
            d.kinds = {k.name};
        }
        blocks.push_back(KnobBlock{"topology." + k.name, kP, std::move(docs)});
    }
    return blocks;
}

} // namespace

uint64_t
TopologyHostCount(const ScenarioSpec& spec)
{
    const TopologyKindInfo* kind = FindTopologyKind(spec.topology.kind);
    return kind && kind->hostCount ? kind->hostCount(spec.topology) : 0; // 0: known once read
}

KindTable
TopologyKindTable()
{
    return KindTable{kP, "leaf-spine", Rules()};
}

Section
TopologyKeys()
{
    return Section{kP, &Read, &Write, &Blocks};
}

} // namespace tusk
