/*
 * tusk: topology kinds by short name (the values of `topology.kind`).
 *
 * Each kind registers itself with one static TopologyKindRegistration: its name, its keys of
 * [topology] (knob rows: read, echoed, documented in `tusk keys`), the number of hosts its keys
 * give, its builder, and its scenario check (what the kind refuses once the graph is built).
 * The scenario reader, the runner and `tusk kinds` read the registration, never the name. The
 * built-in kinds register in section-topology.cc; a kind of one's own keeps its parameters in
 * TopologySection::own (OwnTopologyParams). See docs/extending.md, "A topology kind".
 */
#ifndef TUSK_TOPOLOGY_KINDS_H
#define TUSK_TOPOLOGY_KINDS_H

#include "scenario/knob.h"
#include "scenario/scenario-spec.h"

#include "fabric/model/topology-graph.h"

#include <nlohmann/json.hpp>

#include <any>
#include <functional>
#include <string>
#include <vector>

namespace tusk
{

/** A topology kind by short name: its keys, its builder, its checks. */
struct TopologyKindInfo
{
    /** What TopoVertex::pod means on hosts of this kind. */
    enum Pod : uint8_t
    {
        POD_NONE, //!< nothing the workload uses
        POD_RACK, //!< the rack of rack-aware placement (a rail group)
        POD_SITE, //!< the site of a multi-site fabric (jobs' siteOf, collectives across sites)
    };

    std::string name;        //!< short name, e.g. "leaf-spine"
    std::string description; //!< one line for `tusk kinds`
    /** Its keys' documentation, one KnobDoc per key of [topology] it takes (besides `kind`). */
    std::function<std::vector<KnobDoc>()> docs;
    /** Read its keys of [topology] (unknown keys are refused before) into the section. */
    std::function<void(ScenarioReader&, const toml::table&, TopologySection&)> read;
    /** Its keys as the manifest echoes them (without `kind`). */
    std::function<nlohmann::json(const TopologySection&)> write;
    /** Hosts its keys give, saturating; null or 0 = known only once it is built (a file). */
    std::function<uint64_t(const TopologySection&)> hostCount;
    /** Build the graph (InputError on bad parameters or a bad file). */
    std::function<ns3::TopologyGraph(const ScenarioSpec&)> build;
    /** What this kind refuses in the rest of the scenario, given the built graph and the
     *  fabric's base RTT (ps; 0 when no part of the run needs it); null = nothing. Throws
     *  InputError naming the key to change. */
    std::function<void(const ScenarioSpec&, const ns3::TopologyGraph&, uint64_t baseRttPs)> check;
    /** Settings valid but probably not meant on this kind, one line each (ScenarioWarnings);
     *  null = none. */
    std::function<void(const ScenarioSpec&, std::vector<std::string>&)> warnings;
    Pod pod = POD_NONE;
    /** GPUs per server its keys fix (scale_up.gpus_per_server must be this or 1); null or 0 =
     *  none. */
    std::function<uint32_t(const TopologySection&)> gpusPerServer;
    /** The file's node ids of each host, for a workload file that names nodes (`hpcc`); null =
     *  the hosts are numbered 0..n-1. */
    std::function<std::vector<int64_t>(const TopologySection&)> hostOfNode;
    /** Where it comes from (paper, another simulator's format), for `tusk kinds`. */
    std::string source = "";
};

/**
 * \brief Registers a topology kind when its library loads (one static object in its own
 * file). Aborts the program at load time if the name is taken, or the source or builder is
 * missing (a programming error).
 */
class TopologyKindRegistration
{
  public:
    TopologyKindRegistration(TopologyKindInfo info, std::string source);
};

/** All topology kinds, sorted by name. */
const std::vector<TopologyKindInfo>& TopologyKinds();
/** The kind named `name`; nullptr if none is registered. */
const TopologyKindInfo* FindTopologyKind(const std::string& name);
/** The names, sorted (the choices of `topology.kind`). */
std::vector<std::string> TopologyKindNames();

/** The parameters of a kind of one's own in `t.own`, default-constructed on first use. */
template <class P>
P&
OwnTopologyParams(TopologySection& t)
{
    if (std::any_cast<P>(&t.own) == nullptr)
    {
        t.own = P();
    }
    return *std::any_cast<P>(&t.own);
}

/** The parameters of a kind of one's own, or P's defaults when `t.own` holds none. */
template <class P>
const P&
OwnTopologyParams(const TopologySection& t)
{
    static const P defaults{};
    const P* p = std::any_cast<P>(&t.own);
    return p != nullptr ? *p : defaults;
}

/**
 * \brief A kind named `name` whose docs, read and write come from knob rows whose values live
 * in the `P` that `field(section)` gives (a generic lambda, called on a const and a non-const section:
 * `[](auto& t) -> auto& { return t.ring; }`, or OwnTopologyParams<P>).
 */
template <class P, class Field>
TopologyKindInfo
WithKnobs(std::string name, std::string description, const std::vector<Knob<P>>& (*rows)(),
          Field field)
{
    TopologyKindInfo info;
    info.name = std::move(name);
    info.description = std::move(description);
    info.docs = [rows]() { return Docs(rows()); };
    info.read = [rows, field](ScenarioReader& r, const toml::table& t, TopologySection& s) {
        ReadKnobValues(r, t, "topology", rows(), field(s));
    };
    info.write = [rows, field](const TopologySection& s) { return WriteKnobs(rows(), field(s)); };
    return info;
}

} // namespace tusk

#endif
