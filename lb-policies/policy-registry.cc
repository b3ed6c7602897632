#include "policy-registry.h"

#include "ns3/type-id.h"

namespace ns3
{

const std::vector<PolicyInfo>&
SwitchPolicies()
{
    static const std::vector<PolicyInfo> policies = {
        {"ecmp", "ns3::EcmpLoadBalancer", "flow-hash ECMP over the 5-tuple, per-switch seed"},
        {"eecmp", "ns3::EcmpLoadBalancer", "E-ECMP: hash the 5-tuple and the destination QP",
         {{"HashFields", "FiveTupleDstQp"}}},
        {"qp4-split", "ns3::EcmpLoadBalancer",
         "QP scaling: 4 QPs per connection, each transfer split across them; E-ECMP",
         {{"HashFields", "FiveTupleDstQp"}}, "", 4, "split"},
        {"qp4-rr", "ns3::EcmpLoadBalancer",
         "QP scaling: 4 QPs per connection, messages round-robin over them (Meta); E-ECMP",
         {{"HashFields", "FiveTupleDstQp"}}, "", 4, "round-robin"},
        {"pinning", "ns3::PathPinningLoadBalancer",
         "path pinning: uplink = destination host mod uplinks (Meta's slice routing)"},
        {"letflow", "ns3::LetFlowLoadBalancer", "LetFlow: random port per flowlet"},
        {"conga", "ns3::CongaLoadBalancer",
         "CONGA: least congested path per flowlet, DRE with leaf-to-leaf feedback"},
        {"drill", "ns3::DrillLoadBalancer",
         "DRILL(2,1): per packet, least queue of 2 random + 1 remembered port"},
        {"ar", "ns3::LeastLoadedLoadBalancer",
         "adaptive routing: per packet, least egress queue, ties at random"},
        {"flowlet-ar", "ns3::LeastLoadedLoadBalancer",
         "adaptive routing in flowlet mode (switch DLB): a flow keeps its port until a 50 us "
         "gap, then the least egress queue, at every tier",
         {{"FlowletGap", "50us"}}},
        {"spray", "ns3::RandomSprayLoadBalancer", "per-packet random spraying at every switch"},
        {"rr-spray", "ns3::RoundRobinSprayLoadBalancer",
         "per-packet round-robin spraying at every switch"},
        {"host-spray", "ns3::EcmpLoadBalancer",
         "oblivious spraying at the NIC: new entropy per packet, ECMP switches",
         {}, "ns3::ObliviousSprayPathSelector"},
        {"host-random-spray", "ns3::EcmpLoadBalancer",
         "oblivious spraying at the NIC: uniformly random entropy per packet from a pool of 256, "
         "ECMP switches",
         {}, "ns3::RandomSprayPathSelector"},
        {"host-bitmap", "ns3::EcmpLoadBalancer",
         "bitmap spraying at the NIC: round-robin over 256 entropies, skipping those whose "
         "latest feedback was ECN/NACK/timeout; ECMP switches",
         {}, "ns3::BitmapPathSelector"},
        {"host-plb", "ns3::EcmpLoadBalancer",
         "PLB at the NIC: a new random entropy after 12 consecutive rounds with >= 50 % "
         "ECN-marked packets, paused after a timeout; ECMP switches",
         {}, "ns3::PlbPathSelector"},
        {"host-reps", "ns3::EcmpLoadBalancer",
         "REPS at the NIC: recycle the entropies of unmarked ACKs, explore when none, freeze "
         "exploration after a timeout or NACK; ECMP switches",
         {}, "ns3::RepsPathSelector"},
    };
    return policies;
}

const std::string&
PolicySource(const std::string& name)
{
    static const std::map<std::string, std::string> sources = {
        {"ecmp", "RFC 2992 (hash-threshold multipath)"},
        {"eecmp", "Gangidi et al., RDMA over Ethernet for Distributed AI Training at Meta "
                  "Scale, SIGCOMM 2024, 5.1"},
        {"qp4-split", "Gangidi et al., SIGCOMM 2024, 5.1 (QP scaling)"},
        {"qp4-rr", "Gangidi et al., SIGCOMM 2024, 5.1 (QP scaling, round-robin posting)"},
        {"pinning", "Gangidi et al., SIGCOMM 2024, 5.1 (path pinning)"},
        {"letflow", "Vanini et al., Let It Flow, NSDI 2017"},
        {"conga", "Alizadeh et al., CONGA, SIGCOMM 2014"},
        {"drill", "Ghorbani et al., DRILL, SIGCOMM 2017"},
        {"ar", "switch adaptive routing per packet (NVIDIA Spectrum-X AR, Broadcom DLB)"},
        {"flowlet-ar", "switch DLB flowlet mode (Broadcom DLB; htsim flowlet-sticky AR); "
                       "flowlets: Kandula et al., FLARE, CCR 2007"},
        {"spray", "Dixit et al., On the Impact of Packet Spraying, INFOCOM 2013"},
        {"rr-spray", "Cao et al., Per-packet Load-balanced Routing for Clos DCNs, CoNEXT 2013"},
        {"host-spray", "Ultra Ethernet 1.0 oblivious spraying (htsim UecMpOblivious)"},
        {"host-random-spray", "Ultra Ethernet 1.0 oblivious spraying"},
        {"host-bitmap", "Ultra Ethernet 1.0 bitmap load balancing (htsim UecMpBitmap)"},
        {"host-plb", "Qureshi et al., PLB, SIGCOMM 2022"},
        {"host-reps", "Bonato et al., REPS, 2024"},
    };
    static const std::string none;
    auto it = sources.find(name);
    return it == sources.end() ? none : it->second;
}

const PolicyInfo*
FindPolicy(const std::string& name)
{
    for (const auto& p : SwitchPolicies())
    {
        if (p.name == name)
        {
            return &p;
        }
    }
    return nullptr;
}

std::string
ResolveSwitchPolicy(const std::string& nameOrTypeId)
{
    if (const PolicyInfo* p = FindPolicy(nameOrTypeId))
    {
        return p->typeId;
    }
    TypeId tid;
    if (TypeId::LookupByNameFailSafe(nameOrTypeId, &tid) &&
        tid.IsChildOf(TypeId::LookupByName("ns3::LoadBalancer")))
    {
        return nameOrTypeId;
    }
    return "";
}

const std::vector<std::pair<std::string, std::string>>&
PathSelectorNames()
{
    static const std::vector<std::pair<std::string, std::string>> names = {
        {"fixed", "ns3::FixedPathSelector"},
        {"oblivious-spray", "ns3::ObliviousSprayPathSelector"},
        {"random-spray", "ns3::RandomSprayPathSelector"},
        {"bitmap", "ns3::BitmapPathSelector"},
        {"reps", "ns3::RepsPathSelector"},
        {"plb", "ns3::PlbPathSelector"},
    };
    return names;
}

std::string
ResolvePathSelector(const std::string& nameOrTypeId)
{
    for (const auto& [name, typeId] : PathSelectorNames())
    {
        if (name == nameOrTypeId || typeId == nameOrTypeId)
        {
            return typeId;
        }
    }
    TypeId tid;
    if (TypeId::LookupByNameFailSafe(nameOrTypeId, &tid) &&
        tid.IsChildOf(TypeId::LookupByName("ns3::PathSelector")))
    {
        return nameOrTypeId;
    }
    return "";
}

} // namespace ns3
