/*
 * tusk: [topology], one set of keys per kind (leaf-spine, fat-tree, htsim, ring,
 * rail-optimised, pod-clos, hpcc, multi-site). The parameters are the builders' own structs
 * (fabric/helper/topology-builders.h), whose defaults are the keys' defaults.
 */
#include "scenario/scenario-sections.h"

#include <cmath>

namespace tusk
{

namespace
{

using namespace knob;

const char* const kP = "topology";

const std::vector<std::string> kKinds = {"leaf-spine", "fat-tree", "htsim",     "ring",
                                         "rail-optimised", "pod-clos", "hpcc", "multi-site"};

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

const std::vector<Knob<ns3::LeafSpineParams>>&
LeafSpineRows()
{
    static const auto rows = LeafSpineKeys<ns3::LeafSpineParams>();
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
        LinkRows<P>("FatTreeParams", "Host–ToR link rate.",
                    "ToR–aggregation and aggregation–core link rate."));
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
        LinkRows<P>("RailOptimisedParams", "GPU NIC – rail switch links.", "Rail – spine links."));
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

/** The kinds of every key name of [topology], from the kinds' rows. */
std::vector<KindKey>
KindRules()
{
    std::vector<KindKey> rules;
    auto add = [&rules](const std::string& kind, const auto& rows) {
        for (const auto& k : rows)
        {
            auto it = std::find_if(rules.begin(), rules.end(),
                                   [&k](const KindKey& r) { return r.key == k.d.name; });
            if (it == rules.end())
            {
                rules.push_back(KindKey{k.d.name, {kind}});
            }
            else
            {
                it->kinds.push_back(kind);
            }
        }
    };
    add("leaf-spine", LeafSpineRows());
    add("fat-tree", FatTreeRows());
    add("htsim", FileRows());
    add("ring", RingRows());
    add("rail-optimised", RailRows());
    add("pod-clos", PodClosRows());
    add("hpcc", FileRows());
    add("multi-site", MultiSiteRows());
    // The order of kinds in a rule follows kKinds.
    for (auto& rule : rules)
    {
        std::vector<std::string> ordered;
        for (const auto& kind : kKinds)
        {
            if (std::find(rule.kinds.begin(), rule.kinds.end(), kind) != rule.kinds.end())
            {
                ordered.push_back(kind);
            }
        }
        rule.kinds = ordered;
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
        topo.kind = r.Choice(n, "topology.kind", kKinds);
    }
    r.CheckKindKeys(t, kP, topo.kind, Rules());
    if (topo.kind == "leaf-spine")
    {
        ReadKnobValues(r, t, kP, LeafSpineRows(), topo.leafSpine);
    }
    else if (topo.kind == "fat-tree")
    {
        ReadKnobValues(r, t, kP, FatTreeRows(), topo.fatTree);
    }
    else if (topo.kind == "ring")
    {
        ReadKnobValues(r, t, kP, RingRows(), topo.ring);
    }
    else if (topo.kind == "rail-optimised")
    {
        ReadKnobValues(r, t, kP, RailRows(), topo.rail);
    }
    else if (topo.kind == "pod-clos")
    {
        ReadKnobValues(r, t, kP, PodClosRows(), topo.podClos);
    }
    else if (topo.kind == "multi-site")
    {
        if (t.get("long_haul_delay_ms") != nullptr && t.get("long_haul_km") != nullptr)
        {
            r.Fail(t.get("long_haul_km"), "topology.long_haul_km",
                   "give either long_haul_delay_ms or long_haul_km (5 us per km), not both");
        }
        ReadKnobValues(r, t, kP, MultiSiteRows(), topo.multiSite);
    }
    else // htsim, hpcc
    {
        if (t.get("file") == nullptr)
        {
            r.Fail(tp, "topology.file",
                   "required when topology.kind is " + Quote(topo.kind) + ": the " +
                       (topo.kind == "htsim" ? ".topo file" : "topology.txt file"));
        }
        ReadKnobValues(r, t, kP, FileRows(), topo);
    }
    r.SetHostCount(TopologyHostCount(spec));
}

void
Write(const ScenarioSpec& spec, nlohmann::json& root)
{
    const auto& topo = spec.topology;
    nlohmann::json j = nlohmann::json::object();
    if (topo.kind == "leaf-spine")
    {
        j = WriteKnobs(LeafSpineRows(), topo.leafSpine);
    }
    else if (topo.kind == "fat-tree")
    {
        j = WriteKnobs(FatTreeRows(), topo.fatTree);
    }
    else if (topo.kind == "ring")
    {
        j = WriteKnobs(RingRows(), topo.ring);
    }
    else if (topo.kind == "rail-optimised")
    {
        j = WriteKnobs(RailRows(), topo.rail);
    }
    else if (topo.kind == "pod-clos")
    {
        j = WriteKnobs(PodClosRows(), topo.podClos);
    }
    else if (topo.kind == "htsim" || topo.kind == "hpcc")
    {
        j = WriteKnobs(FileRows(), topo);
    }
    else if (topo.kind == "multi-site")
    {
        j = WriteKnobs(MultiSiteRows(), topo.multiSite);
    }
    j["kind"] = topo.kind;
    root[kP] = j;
}

std::vector<KnobBlock>
Blocks()
{
    Knob<TopologySection> kind = Choice<TopologySection>(
        "kind", &TopologySection::kind, kKinds,
        "`\"leaf-spine\"`, `\"fat-tree\"`, `\"htsim\"`, `\"ring\"`, `\"rail-optimised\"`, "
        "`\"pod-clos\"`, `\"hpcc\"` or `\"multi-site\"` (leaf-spine sites joined by long-haul "
        "links).");
    // One block per kind; its rows are valid for that kind only.
    auto ofKind = [](const std::string& kind, std::vector<KnobDoc> docs) {
        for (auto& d : docs)
        {
            d.kinds = {kind};
        }
        return KnobBlock{"topology." + kind, kP, std::move(docs)};
    };
    return {
        KnobBlock{"topology", kP, Docs<TopologySection>({kind})},
        ofKind("leaf-spine", Docs(LeafSpineRows())),
        ofKind("fat-tree", Docs(FatTreeRows())),
        ofKind("htsim", Docs(FileRows())),
        ofKind("ring", Docs(RingRows())),
        ofKind("rail-optimised", Docs(RailRows())),
        ofKind("pod-clos", Docs(PodClosRows())),
        ofKind("hpcc", Docs(FileRows())),
        ofKind("multi-site", Docs(MultiSiteRows())),
    };
}

} // namespace

uint64_t
TopologyHostCount(const ScenarioSpec& spec)
{
    const auto& topo = spec.topology;
    if (topo.kind == "leaf-spine")
    {
        return uint64_t(topo.leafSpine.leaves) * topo.leafSpine.hostsPerLeaf;
    }
    if (topo.kind == "fat-tree")
    {
        // k^3/4 * oversubscription, saturating (the builder rejects absurd sizes itself).
        const auto& p = topo.fatTree;
        unsigned __int128 hosts =
            static_cast<unsigned __int128>(p.k) * p.k * p.k / 4 * p.oversubscription;
        return hosts > std::numeric_limits<uint64_t>::max() ? std::numeric_limits<uint64_t>::max()
                                                            : static_cast<uint64_t>(hosts);
    }
    if (topo.kind == "ring")
    {
        return uint64_t(topo.ring.switches) * topo.ring.hostsPerSwitch;
    }
    if (topo.kind == "rail-optimised")
    {
        return uint64_t(topo.rail.servers) * topo.rail.gpusPerServer;
    }
    if (topo.kind == "pod-clos")
    {
        return uint64_t(topo.podClos.pods) * topo.podClos.racksPerPod * topo.podClos.hostsPerRack;
    }
    if (topo.kind == "multi-site")
    {
        const auto& p = topo.multiSite;
        return uint64_t(p.sites) * p.leaves * p.hostsPerLeaf;
    }
    return 0; // known only once the file is read
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
