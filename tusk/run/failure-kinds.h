/*
 * tusk: failure kinds by short name (the values of `failures[i].kind`).
 *
 * Each kind registers itself with one static FailureKindRegistration: its name, the component
 * it acts on (a link, a switch, a host's NIC: the key that names it), whether it lasts until
 * `until_us`, which other keys of [[failures]] it takes, a check of the entry as read, a check
 * against the topology, and the function that schedules what it does on the built fabric
 * through a FailureDriver. The scenario reader, the checks and ScheduleFailures (run-failures.cc,
 * a loop over the entries) read the registration, never the name. The built-in kinds register
 * in failure-kinds.cc. See docs/extending.md, "A failure kind".
 */
#ifndef TUSK_FAILURE_KINDS_H
#define TUSK_FAILURE_KINDS_H

#include "scenario/scenario-reader.h"
#include "scenario/scenario-spec.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/model/gray-failure-model.h"
#include "fabric/model/kernel/run-clock.h"
#include "fabric/model/topology-graph.h"

#include "ns3/error-model.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tusk
{

/** What one impairing entry does to a link (the unset parts: nothing). */
struct Impairment
{
    uint64_t bps = 0;                        //!< degraded rate, bit/s
    ns3::Ptr<ns3::ErrorModel> lossA, lossB;  //!< receive error models of the link's two ends
    ns3::Ptr<ns3::GrayFailureModel> gray;    //!< one model for both directions
};

/**
 * \brief The failures as they act on the fabric: per graph link a count of the failures that
 * hold it down (a link is up when none does, so a link_down inside a switch_down stays down
 * until both end), the impairments active on each link, and the recomputation of the routes
 * after each change. A failure kind's schedule function calls it from scheduled events.
 */
class FailureDriver : public std::enable_shared_from_this<FailureDriver>
{
  public:
    FailureDriver(const ScenarioSpec& spec, const ns3::TopologyGraph& graph, const ns3::Fabric& fabric);

    /** The built link of graph link `graphLink`; nullptr if it was not built. */
    const ns3::FabricLink* Link(uint32_t graphLink) const { return m_links[graphLink]; }

    /**
     * \brief Entry `entry` starts (`on`) or stops impairing graph link `gl`. The link shows,
     * of each impairment, the latest-started entry still active on it: its degraded rate (the
     * configured rate when none is), its loss and gray models (none when none is). So a
     * repair ends its own entry only, never another's that overlaps it.
     */
    void Impair(uint32_t gl, size_t entry, bool on, const Impairment& what);

    /** One more (`up` false) or one less failure holds each of `links` down; a link whose
     *  count reaches 0 comes up, and routing converges [fabric] reconvergence_us later. */
    void SetUp(const std::vector<uint32_t>& links, bool up);

    /** Every switch's equal-cost table recomputed over the links that are up now. */
    void Reconverge() const;

  private:
    uint64_t m_reconvergencePs;
    const ns3::TopologyGraph& m_graph;
    const ns3::Fabric& m_fabric;
    std::vector<const ns3::FabricLink*> m_links;
    std::vector<uint32_t> m_downs;
    std::map<uint32_t, std::vector<std::pair<size_t, Impairment>>> m_impairments; //!< by link
};

/** An entry as read, for a kind's check of the keys it needs (FailureKindInfo::read). */
struct FailureReadCheck
{
    ScenarioReader& reader;
    const toml::node& entry;  //!< the [[failures]] table
    const toml::table& table; //!< the same, as a table
    std::string path;         //!< "failures[i]"
    FailureEntry& f;

    /** Refuse the entry unless it has `key` ("required: " + what). */
    void Require(const char* key, const std::string& what) const;
    /** Refuse the entry unless it has exactly one of `a` and `b`. */
    void ExactlyOne(const char* a, const char* b) const;
    /** Refuse the entry's `key` (or the entry, when it has no such key) with `message`. */
    [[noreturn]] void Fail(const char* key, const std::string& message) const;
};

/** An entry against the topology, for a kind's check (FailureKindInfo::check). */
struct FailureCheck
{
    const ScenarioSpec& spec;
    const ns3::TopologyGraph& graph;
    size_t index;                        //!< i of failures[i]
    const FailureEntry& f;
    const std::vector<uint32_t>& links;  //!< the graph links it acts on (never empty)

    /** Throw the InputError of failures[i].`key`. */
    [[noreturn]] void Fail(const std::string& key, const std::string& message) const;
};

/** An entry to schedule (FailureKindInfo::schedule). */
struct FailureSchedule
{
    const ScenarioSpec& spec;
    const ns3::TopologyGraph& graph;
    size_t index;                        //!< i of failures[i]
    const FailureEntry& f;
    std::vector<uint32_t> links;         //!< the graph links it acts on
    std::shared_ptr<FailureDriver> driver;
    int64_t& stream;                     //!< next free random stream; add what you assign

    /** Run `fn` at simulated time `ps` (a time the spec gave in ps; steady-state jumps keep
     *  it at that run time, ns3::RunClock). */
    template <class Fn>
    void At(uint64_t ps, Fn fn) const
    {
        ns3::RunClock::NoteAbsolute(ns3::Simulator::Schedule(ns3::PicoSeconds(ps), fn));
    }
};

/** A failure kind by short name. */
struct FailureKindInfo
{
    /** The component it acts on, and the key that names it. */
    enum Target : uint8_t
    {
        LINK,   //!< `link`: "<from>-<to>", parallel links all
        SWITCH, //!< `switch`: every link of the switch
        NIC,    //!< `host`: the host's link(s)
    };
    /** What it does to whether links are up, for the checks made at load time
     *  (LinksUpFromStart: routes of a run whose links are down from the start). */
    enum Effect : uint8_t
    {
        TAKES_DOWN, //!< holds its links down from at_us (until until_us)
        BRINGS_UP,  //!< frees its links from the failures that hold them down
        OTHER,      //!< anything else (a rate, losses, a flap that comes back up)
    };

    std::string name;        //!< short name, e.g. "link_down"
    std::string description; //!< one line for `tusk kinds`
    /** What it does, in Markdown, for the key reference (`failures[i].kind`). */
    std::string doc;
    Target target = LINK;
    Effect effect = OTHER;
    bool lasting = false;    //!< takes until_us (the repair)
    /** The other keys of [[failures]] it takes (rate_divisor, loss_rate, period_us, ...). */
    std::vector<std::string> keys;
    /** Check the keys it needs once read; null = nothing more. */
    std::function<void(const FailureReadCheck&)> read;
    /** Check it against the topology; null = nothing more. */
    std::function<void(const FailureCheck&)> check;
    /** The rate a link of `linkBps` runs at while it holds (INT needs a rate it can encode);
     *  null = it does not change rates. */
    std::function<uint64_t(const FailureEntry&, uint64_t linkBps)> rateBps;
    /** Schedule what it does (required). */
    std::function<void(const FailureSchedule&)> schedule;
    /** Where it comes from (a paper, a field study), for `tusk kinds`. */
    std::string source = "";
    /** `[[failure_rates]]` may draw it at random (`failure_rates[i].kind`, for the component
     *  of its target). Its keys must be among those a rate entry carries over to the failures
     *  it draws (kRateKeys: rate_divisor, rate_gbps, loss_rate); its `read` checks them there
     *  too. The kind with `effect` TAKES_DOWN is a component's default. */
    bool drawable = false;
};

/** The keys of [[failures]] a [[failure_rates]] entry carries to the failures it draws. */
inline const std::vector<std::string> kRateKeys = {"rate_divisor", "rate_gbps", "loss_rate"};
/** The value of `failure_rates[i].component` for a target: "link", "switch", "nic". */
const char* FailureComponentName(FailureKindInfo::Target target);
/** The kinds `[[failure_rates]]` may draw for `component` ("link", "switch", "nic"), the
 *  default (the kind that takes the component down) first; all drawable kinds for "". */
std::vector<std::string> DrawableFailureKinds(const std::string& component);

/**
 * \brief Registers a failure kind when its library loads (one static object in its own file).
 * Aborts the program at load time if the name is taken or the source or schedule function is
 * missing (a programming error).
 */
class FailureKindRegistration
{
  public:
    FailureKindRegistration(FailureKindInfo info, std::string source);
};

/** All failure kinds, sorted by name. */
const std::vector<FailureKindInfo>& FailureKinds();
/** The kind named `name`; nullptr if none is registered. */
const FailureKindInfo* FindFailureKind(const std::string& name);
/** The names, sorted (the choices of `failures[i].kind`). */
std::vector<std::string> FailureKindNames();
/** The names of the kinds that take `key` (a target key, until_us, or one of their keys). */
std::vector<std::string> FailureKindsTaking(const std::string& key);

} // namespace tusk

#endif
