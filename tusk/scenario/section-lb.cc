/*
 * tusk: [lb] and [lb.attributes], the load-balancing policy of both seams.
 */
#include "scenario/scenario-sections.h"

#include "lb-policies/policy-registry.h"

#include <algorithm>
#include <cctype>

namespace tusk
{

namespace
{

using namespace knob;
using S = LbSection;
const char* const kP = "lb";

/** A name of letters, digits and the characters in `extra`. */
bool
IsName(const std::string& s, const std::string& extra)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [&extra](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || extra.find(c) != std::string::npos;
    });
}

const std::vector<Knob<S>>&
Rows()
{
    static const std::vector<Knob<S>> rows = {
        Custom<S>(
            "policy", "string", "",
            "Load-balancing policy: a short name from `tusk policies` (`\"ecmp\"`, `\"eecmp\"`, "
            "`\"qp4-split\"`, `\"qp4-rr\"`, `\"pinning\"`, `\"letflow\"`, `\"conga\"`, "
            "`\"drill\"`, `\"ar\"`, `\"flowlet-ar\"`, `\"conweave\"`, `\"spray\"`, "
            "`\"rr-spray\"`, "
            "`\"host-spray\"`, `\"host-random-spray\"`, `\"host-bitmap\"`, `\"host-plb\"`, "
            "`\"host-reps\"`, `\"source-route\"`, `\"mrc\"`, `\"ethereal\"`; "
            "[lb-policies/README.md](../lb-policies/README.md) explains each) or an ns-3 "
            "LoadBalancer TypeId name (`\"ns3::...\"`). Letters, digits, `-`, `_`, `:`, `.`. "
            "Whether the name exists is checked when the run is built. A short name is a preset "
            "of both seams: the switch LoadBalancer with attribute values, and for some a host "
            "path selector (`host-spray`) or QP scaling (`qp4-*` fix 4 QPs per connection and "
            "`nic.qp_scaling`; `ethereal` splits a transfer into one QP per source route of the "
            "fabric, or `nic.qps_per_connection` QPs when the scenario sets it, each QP pinned "
            "to its route, and overrides `nic.qp_entropy`; `source-route` and `mrc` default "
            "`nic.ack_route` to `\"reverse\"`). The values used are in the manifest (`policy_type_id`, "
            "`path_selector_type_id`, `qps_per_connection`, `qp_scaling`, `resolved`). An "
            "attribute a preset sets is changed in `[lb.attributes]`, not `[ns3]`.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& lb) {
                std::string p = r.String(&n, key);
                if (!IsName(p, "-_:."))
                {
                    r.Fail(&n, key,
                           "expected a policy name like \"ecmp\" or a TypeId name like "
                           "\"ns3::EcmpLoadBalancer\"; got " +
                               Quote(p));
                }
                lb.policy = p;
            },
            [](const S& lb) { return nlohmann::json(lb.policy); }),
        Custom<S>(
            "path_selector", "string", "",
            "Host-side path selector of every QP: `\"fixed\"` (one entropy per QP, classic "
            "RoCEv2), `\"oblivious-spray\"` (a new entropy per packet, round-robin over a pool, "
            "`ns3::ObliviousSprayPathSelector::PoolSize`, 16384), `\"random-spray\"` (a "
            "uniformly random entropy per packet from a pool of "
            "`ns3::RandomSprayPathSelector::PoolSize`, 256), `\"bitmap\"` (round-robin over 256 "
            "entropies skipping those whose latest feedback was ECN, NACK or timeout), "
            "`\"reps\"` (REPS: recycle the entropies of unmarked ACKs through an 8-entry buffer, "
            "explore when empty, freeze exploration after a timeout or NACK; "
            "`ns3::RepsPathSelector::BufferSize`, `ExplorePoolSize`, `FreezeDuration`, "
            "`FreezeOnNack`), `\"plb\"` (PLB: one entropy until 12 consecutive rounds with at "
            "least 50 % ECN-marked packets, then a random new one; "
            "`ns3::PlbPathSelector::RoundTime`, `CongestedFraction`, `CongestedRounds`, "
            "`IdleCongestedRounds`, `RtoSuspend`, `RepathOnTimeout`, `PoolSize`), "
            "`\"path-set-spray\"` (source-routed: routes 0 .. "
            "`ns3::MrcPathSelector::PathSetSize` - 1 in turn, each naming the plane and every "
            "hop, for the `source-route` switch policy), `\"mrc\"` (MRC-style: that path set "
            "with steering away from ECN, trims and RTT excess, failover after "
            "`FailoverTime` of silence or `RetireLosses` losses in a row, probes after "
            "`ProbeInterval`; lb-policies/README.md), `\"ethereal\"` (one source route per "
            "QP, moved to the host's least-loaded route after `RepinLosses` NACKs in a row or a "
            "timeout, for the `ethereal` policy), or a "
            "PathSelector TypeId name. Selector attributes are set in "
            "`[ns3]`. Overrides the policy preset's.",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& lb) {
                std::string p = r.String(&n, key);
                if (!IsName(p, "-_:"))
                {
                    r.Fail(&n, key,
                           "expected one of " + ns3::PathSelectorNameList() +
                               " or a PathSelector TypeId name; got " + Quote(p));
                }
                lb.pathSelector = p;
            },
            [](const S& lb) {
                return lb.pathSelector.empty() ? nlohmann::json() : nlohmann::json(lb.pathSelector);
            })
            .Default("the policy's (`\"fixed\"`)")
            .Attr({"ns3::RdmaNic::PathSelector"}),
        Boolean<S>("same_seed_everywhere", &S::sameSeedEverywhere,
                   "Give every switch the same hash seed instead of one derived per switch. With "
                   "ECMP this reproduces hash polarisation: a switch of the next tier only sees "
                   "the flows whose hash chose it, and sends them all the same way (on a k = 4 "
                   "fat tree, 2 of the 4 cores carry everything; "
                   "`tests/component/lb-policies-test.cc`, oracle 10). For teaching; real switches "
                   "vary the seed or the hash per tier."),
    };
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
    ReadKnobs(r, t, kP, Rows(), spec.lb, "", {"attributes"});
    if (const toml::node* an = r.Get(t, kP, "attributes"))
    {
        const toml::table& a = r.Table(an, "lb.attributes");
        for (auto&& [k, v] : a)
        {
            const std::string name(k.str());
            const std::string key = "lb.attributes." + name;
            r.NoteKey(key, &v);
            if (!IsIdentifier(name))
            {
                r.Fail(&v, key,
                       "expected an attribute name (letters, digits, '_'); got " + Quote(name));
            }
            spec.lb.attributes[name] = r.ScalarText(&v, key);
        }
    }
}

void
Write(const ScenarioSpec& spec, nlohmann::json& root)
{
    nlohmann::json j = WriteKnobs(Rows(), spec.lb);
    nlohmann::json attributes = nlohmann::json::object();
    for (const auto& [k, v] : spec.lb.attributes)
    {
        attributes[k] = v;
    }
    j["attributes"] = attributes;
    root[kP] = j;
}

std::vector<KnobBlock>
Blocks()
{
    return {KnobBlock{kP, kP, Docs(Rows())}};
}

} // namespace

Section
LbKeys()
{
    return Section{kP, &Read, &Write, &Blocks};
}

} // namespace tusk
