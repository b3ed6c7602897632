/*
 * tusk: [[failures]] and [[failure_rates]]: links, switches and NICs that fail, degrade, lose
 * frames or flap, at given times or drawn from per-component rates.
 */
#include "run/run-stages.h"
#include "run/failure-kinds.h"
#include "scenario/scenario-text.h"

#include "fabric/helper/closest-name.h"
#include "fabric/model/fabric-units.h"
#include "fabric/model/gray-failure-model.h"
#include "rdma/model/headers/roce-int-header.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <boost/random/exponential_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/seed_seq.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <memory>
#include <unordered_set>

namespace tusk
{

using namespace ns3;

namespace
{

std::string
LinkName(const TopologyGraph& graph, const TopoLink& l)
{
    return graph.vertices[l.a].name + "-" + graph.vertices[l.b].name;
}

/** The graph links named by "<from>-<to>" (either order; parallel links all). */
std::vector<uint32_t>
NamedLinks(const std::string& name, const TopologyGraph& graph)
{
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < graph.links.size(); ++i)
    {
        const std::string& a = graph.vertices[graph.links[i].a].name;
        const std::string& b = graph.vertices[graph.links[i].b].name;
        if (name == a + "-" + b || name == b + "-" + a)
        {
            out.push_back(i);
        }
    }
    return out;
}

/** The graph links with an end at vertex `v`. */
std::vector<uint32_t>
LinksOf(uint32_t v, const TopologyGraph& graph)
{
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < graph.links.size(); ++i)
    {
        if (graph.links[i].a == v || graph.links[i].b == v)
        {
            out.push_back(i);
        }
    }
    return out;
}

/** The switch vertex named `name`, or -1. */
int64_t
SwitchVertex(const std::string& name, const TopologyGraph& graph)
{
    for (uint32_t v = graph.numHosts; v < graph.vertices.size(); ++v)
    {
        if (graph.vertices[v].name == name)
        {
            return v;
        }
    }
    return -1;
}

/** The registered kind of failure `f` (the reader refuses others; a spec built in code with
 *  an unknown kind is refused by CheckFailures). */
const FailureKindInfo&
KindOf(const ScenarioSpec& spec, size_t i)
{
    const FailureEntry& f = spec.failures[i];
    const FailureKindInfo* kind = FindFailureKind(f.kind);
    if (kind == nullptr)
    {
        throw InputError(spec.sourceFile, f.line, fmt::format("failures[{}].kind", i),
                         "unknown failure kind \"" + f.kind + "\"; expected one of " +
                             OneOf(FailureKindNames()) + " (`tusk kinds`)");
    }
    return *kind;
}

/** The graph links failure `f` of kind `kind` acts on (checked by CheckFailures). */
std::vector<uint32_t>
FailureLinks(const FailureKindInfo& kind, const FailureEntry& f, const TopologyGraph& graph)
{
    switch (kind.target)
    {
    case FailureKindInfo::LINK:
        return NamedLinks(f.link, graph);
    case FailureKindInfo::SWITCH: {
        const int64_t v = SwitchVertex(f.switchName, graph);
        return v < 0 ? std::vector<uint32_t>{} : LinksOf(static_cast<uint32_t>(v), graph);
    }
    case FailureKindInfo::NIC:
        break;
    }
    return f.host && *f.host < graph.numHosts ? LinksOf(*f.host, graph) : std::vector<uint32_t>{};
}

constexpr uint32_t kDrawTag = 0x6661696cu; //!< "fail": [[failure_rates]] draws
constexpr uint32_t kGrayTag = 0x67726179u; //!< "gray": gray failures' hash seeds

/** The seed sequence of [[failure_rates]] / [[failures]] entry `i` of a run seeded `seed`: all
 *  64 bits of the seed, the entry, and what it is for (so two uses never share numbers). */
boost::random::seed_seq
EntrySeedSeq(uint64_t seed, uint32_t i, uint32_t tag)
{
    return boost::random::seed_seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                                   i, tag};
}

} // namespace

std::vector<FailureWindow>
FailureWindows(const ScenarioSpec& spec, const TopologyGraph* graph)
{
    std::vector<FailureWindow> w;
    for (const auto& f : spec.failures)
    {
        std::vector<uint32_t> links;
        if (graph != nullptr)
        {
            const FailureKindInfo* kind = FindFailureKind(f.kind);
            links = kind != nullptr ? FailureLinks(*kind, f, *graph) : std::vector<uint32_t>{};
        }
        uint64_t end = f.atPs;
        if (f.kind == "flap")
        {
            end = f.untilPs ? *f.untilPs
                  : f.count && f.periodPs ? f.atPs + *f.count * *f.periodPs
                                          : UINT64_MAX;
        }
        else if (f.untilPs)
        {
            // A timed failure: it starts and is repaired; both change the fabric.
            w.push_back({*f.untilPs, *f.untilPs, links});
        }
        w.push_back({f.atPs, end, std::move(links)});
    }
    return w;
}

FailureDriver::FailureDriver(const ScenarioSpec& spec, const TopologyGraph& graph, const Fabric& fabric)
    : m_reconvergencePs(spec.fabric.reconvergencePs),
      m_graph(graph),
      m_fabric(fabric),
      m_links(graph.links.size(), nullptr),
      m_downs(graph.links.size(), 0)
{
    for (const auto& l : fabric.links)
    {
        m_links[l.graphLink] = &l;
    }
}

void
FailureDriver::Impair(uint32_t gl, size_t entry, bool on, const Impairment& what)
{
    const FabricLink* l = m_links[gl];
    if (l == nullptr)
    {
        return;
    }
    auto& active = m_impairments[gl];
    if (on)
    {
        active.emplace_back(entry, what);
    }
    else
    {
        active.erase(std::remove_if(active.begin(), active.end(),
                                    [entry](const auto& a) { return a.first == entry; }),
                     active.end());
    }
    uint64_t bps = m_graph.links[gl].rateBps;
    Ptr<ErrorModel> lossA, lossB;
    Ptr<GrayFailureModel> gray;
    for (const auto& [e, imp] : active)
    {
        if (imp.bps)
        {
            bps = imp.bps;
        }
        if (imp.lossA)
        {
            lossA = imp.lossA;
            lossB = imp.lossB;
        }
        if (imp.gray)
        {
            gray = imp.gray;
        }
    }
    if (what.bps)
    {
        l->devA->SetDataRate(DataRate(bps));
        l->devB->SetDataRate(DataRate(bps));
    }
    if (what.lossA)
    {
        l->devA->SetReceiveErrorModel(lossA);
        l->devB->SetReceiveErrorModel(lossB);
    }
    if (what.gray)
    {
        l->devA->SetGrayFailure(gray);
        l->devB->SetGrayFailure(gray);
    }
}

void
FailureDriver::SetUp(const std::vector<uint32_t>& links, bool up)
{
    bool changed = false;
    for (uint32_t gl : links)
    {
        const FabricLink* l = m_links[gl];
        if (l == nullptr || (up && m_downs[gl] == 0))
        {
            continue; // an up for a link no failure holds down changes nothing
        }
        m_downs[gl] = up ? m_downs[gl] - 1 : m_downs[gl] + 1;
        if (m_downs[gl] == (up ? 0u : 1u))
        {
            l->devA->SetLinkUp(up);
            l->devB->SetLinkUp(up);
            changed = true;
        }
    }
    if (changed && m_reconvergencePs > 0)
    {
        // Routing converges: every switch's equal-cost table is recomputed over the links
        // that are up then (until then a switch only skips its own dead ports).
        Simulator::Schedule(PicoSeconds(m_reconvergencePs),
                            [self = shared_from_this()]() { self->Reconverge(); });
    }
}

void
FailureDriver::Reconverge() const
{
    std::vector<bool> up(m_graph.links.size(), true);
    for (const auto& l : m_fabric.links)
    {
        up[l.graphLink] = l.devA->IsLinkUp() && l.devB->IsLinkUp();
    }
    auto routes = std::make_shared<const EqualCostTable>(ComputeEqualCostPorts(m_graph, up));
    for (uint32_t s = 0; s < m_fabric.switches.size(); ++s)
    {
        m_fabric.switches[s]->SetForwardingTable(routes, s);
    }
}

uint32_t
GrayHashSeed(uint64_t runSeed, size_t entry)
{
    boost::random::seed_seq seq = EntrySeedSeq(runSeed, static_cast<uint32_t>(entry), kGrayTag);
    std::array<uint32_t, 1> out{};
    seq.generate(out.begin(), out.end());
    return out[0];
}

void
CheckIntRates(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    if (!CongestionControlOf(spec).Needs(ns3::CongestionControlInfo::USES_INT))
    {
        return;
    }
    auto check = [&](uint64_t rate, unsigned line, const std::string& key, const std::string& what) {
        uint8_t code = 0;
        if (!IntHop::RateCode(rate, code))
        {
            throw InputError(spec.sourceFile, line, key,
                             fmt::format("nic.congestion_control = \"{}\" stamps INT records, "
                                         "which encode a port rate as 10, 25, 40, 50, 100, 200, "
                                         "400 or 800 Gb/s; {} is {} Gb/s",
                                         spec.nic.congestionControl, what, rate / 1e9));
        }
    };
    for (const auto& l : graph.links)
    {
        check(l.rateBps, spec.LineOf("nic.congestion_control"), "nic.congestion_control",
              "link " + LinkName(graph, l));
    }
    for (size_t i = 0; i < spec.failures.size(); ++i)
    {
        const FailureEntry& f = spec.failures[i];
        const FailureKindInfo& kind = KindOf(spec, i);
        if (!kind.rateBps)
        {
            continue;
        }
        for (uint32_t l : FailureLinks(kind, f, graph))
        {
            check(kind.rateBps(f, graph.links[l].rateBps), f.line,
                  fmt::format("failures[{}].{}", i, f.rateBps ? "rate_gbps" : "rate_divisor"),
                  "the degraded link " + f.link);
        }
    }
}

void
CheckFailures(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    for (size_t i = 0; i < spec.failures.size(); ++i)
    {
        const FailureEntry& f = spec.failures[i];
        auto fail = [&](const std::string& key, const std::string& message) {
            throw InputError(spec.sourceFile, f.line, fmt::format("failures[{}].{}", i, key),
                             message);
        };
        // The keys each kind needs (rate_divisor or rate_gbps, loss_rate, a flap's period_us,
        // down_us and until_us or count) are checked once, where they are read
        // (section-failures.cc and the kind's read check); here only what needs the topology:
        // the component it names, then the kind's own check.
        const FailureKindInfo& kind = KindOf(spec, i);
        const std::vector<uint32_t> links = FailureLinks(kind, f, graph);
        if (kind.target == FailureKindInfo::SWITCH && SwitchVertex(f.switchName, graph) < 0)
        {
            std::vector<std::string> names;
            for (uint32_t v = graph.numHosts; v < graph.vertices.size(); ++v)
            {
                names.push_back(graph.vertices[v].name);
            }
            const std::string near = ClosestName(f.switchName, names);
            fail("switch", "no switch \"" + f.switchName + "\" in the topology; expected a " +
                               "switch name as in links.csv" +
                               (near.empty() ? "" : " (did you mean \"" + near + "\"?)"));
        }
        if (kind.target == FailureKindInfo::NIC && (!f.host || *f.host >= graph.numHosts))
        {
            fail("host", fmt::format("expected a host id below {} (the topology's hosts)",
                                     graph.numHosts));
        }
        if (kind.target == FailureKindInfo::LINK && links.empty())
        {
            // The example is a link of this topology: a switch-to-switch one when there is one.
            auto it = std::find_if(graph.links.begin(), graph.links.end(), [&](const TopoLink& l) {
                return l.a >= graph.numHosts && l.b >= graph.numHosts;
            });
            it = it == graph.links.end() ? graph.links.begin() : it;
            const std::string example =
                it == graph.links.end() ? ""
                                        : graph.vertices[it->a].name + "-" + graph.vertices[it->b].name;
            fail("link", "no link \"" + f.link +
                             "\" in the topology; expected \"<from>-<to>\" with vertex names as "
                             "in links.csv" +
                             (example.empty() ? "" : " (e.g. \"" + example + "\")"));
        }
        if (kind.check && !links.empty())
        {
            kind.check(FailureCheck{spec, graph, i, f, links});
        }
    }
}

std::vector<bool>
LinksUpFromStart(const ScenarioSpec& spec, const TopologyGraph& graph, std::vector<size_t>& entries)
{
    std::vector<bool> up(graph.links.size(), true);
    std::vector<bool> freed(graph.links.size(), false);
    for (size_t i = 0; i < spec.failures.size(); ++i)
    {
        const FailureEntry& f = spec.failures[i];
        const FailureKindInfo& kind = KindOf(spec, i);
        if (kind.effect == FailureKindInfo::BRINGS_UP)
        {
            for (uint32_t l : FailureLinks(kind, f, graph))
            {
                freed[l] = true;
            }
        }
    }
    for (size_t i = 0; i < spec.failures.size(); ++i)
    {
        const FailureEntry& f = spec.failures[i];
        const FailureKindInfo& kind = KindOf(spec, i);
        if (f.atPs != 0 || f.untilPs || kind.effect != FailureKindInfo::TAKES_DOWN)
        {
            continue;
        }
        bool holds = false;
        for (uint32_t l : FailureLinks(kind, f, graph))
        {
            if (!freed[l])
            {
                up[l] = false;
                holds = true;
            }
        }
        if (holds)
        {
            entries.push_back(i);
        }
    }
    return up;
}

std::vector<FailureEntry>
DrawFailures(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    std::vector<FailureEntry> drawn;
    for (uint32_t i = 0; i < spec.failureRates.size(); ++i)
    {
        const FailureRateEntry& rate = spec.failureRates[i];
        // The components, in the topology's order: a link by its name (parallel links fail
        // together, as a [[failures]] entry names them), a switch, a host's NIC.
        std::vector<FailureEntry> targets;
        if (rate.component == "link")
        {
            std::unordered_set<std::string> seen;
            for (const auto& l : graph.links)
            {
                const bool hostLink = l.a < graph.numHosts || l.b < graph.numHosts;
                if ((rate.links == "host" && !hostLink) || (rate.links == "fabric" && hostLink))
                {
                    continue;
                }
                const std::string name = LinkName(graph, l);
                if (!seen.insert(name).second)
                {
                    continue;
                }
                FailureEntry f;
                f.link = name;
                targets.push_back(f);
            }
        }
        else if (rate.component == "switch")
        {
            for (uint32_t v = graph.numHosts; v < graph.vertices.size(); ++v)
            {
                FailureEntry f;
                f.switchName = graph.vertices[v].name;
                targets.push_back(f);
            }
        }
        else
        {
            for (uint32_t h = 0; h < graph.numHosts; ++h)
            {
                FailureEntry f;
                f.host = h;
                targets.push_back(f);
            }
        }
        // One engine per entry, seeded by the run seed and the entry's index: an entry's draws
        // do not change when another entry is added. Boost's distributions give the same
        // numbers on every platform (the standard library's may not).
        boost::random::seed_seq seq = EntrySeedSeq(spec.seed, i, kDrawTag);
        boost::random::mt19937_64 engine(seq);
        boost::random::exponential_distribution<double> gap(1.0 / static_cast<double>(rate.mtbfPs));
        for (const FailureEntry& target : targets)
        {
            uint64_t t = 0;
            while (true)
            {
                const double next = static_cast<double>(t) + gap(engine);
                if (next >= static_cast<double>(spec.stopTimePs))
                {
                    break;
                }
                FailureEntry f = target;
                f.atPs = static_cast<uint64_t>(next / 1000.0) * 1000; // whole ns

                f.kind = rate.kind;
                f.rateDivisor = rate.rateDivisor;
                f.rateBps = rate.rateBps;
                f.lossRate = rate.lossRate;
                f.drawnFrom = i;
                f.line = rate.line;
                if (rate.durationPs > 0)
                {
                    f.untilPs = f.atPs + rate.durationPs;
                }
                drawn.push_back(f);
                if (rate.durationPs == 0)
                {
                    break; // never repaired: it cannot fail again
                }
                t = *f.untilPs;
            }
        }
    }
    std::stable_sort(drawn.begin(), drawn.end(),
                     [](const FailureEntry& a, const FailureEntry& b) { return a.atPs < b.atPs; });
    return drawn;
}

std::vector<FailureEntry>
WithDrawnFailures(const ScenarioSpec& spec, const TopologyGraph& graph)
{
    std::vector<FailureEntry> out;
    for (const auto& f : spec.failures)
    {
        if (!f.drawnFrom)
        {
            out.push_back(f); // drawn ones (a manifest's) are drawn again, identically
        }
    }
    for (auto& f : DrawFailures(spec, graph))
    {
        out.push_back(std::move(f));
    }
    return out;
}

int64_t
ScheduleFailures(const ScenarioSpec& spec,
                 const TopologyGraph& graph,
                 const Fabric& fabric,
                 int64_t firstStream)
{
    if (spec.failures.empty())
    {
        return 0;
    }
    auto driver = std::make_shared<FailureDriver>(spec, graph, fabric);
    int64_t stream = firstStream;
    for (size_t i = 0; i < spec.failures.size(); ++i)
    {
        const FailureEntry& f = spec.failures[i];
        const FailureKindInfo& kind = KindOf(spec, i);
        kind.schedule(FailureSchedule{spec, graph, i, f, FailureLinks(kind, f, graph), driver, stream});
    }
    return stream - firstStream;
}

} // namespace tusk
