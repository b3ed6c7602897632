/*
 * tusk: the scripting API, tusk as a library for scenario programs (docs/scripting.md).
 *
 * A scenario program loads or writes a scenario, changes keys exactly as `tusk run --set` does,
 * adds flows, failures, jobs or a whole topology in code, attaches callbacks to the trace
 * sources of the built fabric, runs it and reads the results as typed tables (RunResult:
 * flows, collectives, jobs, links, summary; runner.h) without parsing CSV. Runs can repeat in
 * one process (each run ends with Simulator::Destroy) and write the same bytes as `tusk run`.
 *
 *     tusk::Scenario s = tusk::Scenario::Load("scenarios/lossless-incast.toml");
 *     s.Set("lb.policy", "drill").Set("workload.degree", 8);
 *     tusk::RunResult r = s.Run();            // or s.Run("out/dir"): the files of `tusk run`
 *     std::cout << r.summary.p99Slowdown;
 *
 * Errors in input throw ns3::InputError carrying the CLI's "FILE:LINE: KEY: message".
 */
#ifndef TUSK_SCRIPTING_H
#define TUSK_SCRIPTING_H

#include "run/runner.h"
#include "scenario/scenario-spec.h"

#include "fabric/helper/fabric-helper.h"
#include "fabric/model/input-error.h"
#include "rdma/model/rdma-nic.h"

#include "ns3/callback.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace tusk
{

/**
 * \brief A topology written in code: hosts, switches and links with their own rates and
 * delays (an asymmetric fabric, a degraded spine, a shape no builder has). It becomes an
 * HPCC-format topology.txt (`topology.kind = "hpcc"`, docs/scenario-format.md), so a run's
 * manifest names a file that reproduces it.
 *
 * Numbering follows that format: nodes get ids in the order they are added; host h is the
 * h-th host added; in result tables hosts are named "host<h>" and switches "node<id>".
 * Every host must have exactly one link (checked when the scenario loads the file).
 */
class Topology
{
  public:
    /** Add a host; returns its node id. */
    uint32_t AddHost();
    /** Add a switch; returns its node id. */
    uint32_t AddSwitch();
    /**
     * \brief Add a full-duplex link between nodes `a` and `b`.
     * \param gbps line rate, Gb/s (1e9 bit/s), > 0
     * \param delayNs propagation delay, ns, >= 0
     * \throws ns3::InputError if a node id does not exist or a value is out of range
     */
    void AddLink(uint32_t a, uint32_t b, double gbps, double delayNs);
    /** The topology as HPCC topology.txt text. */
    std::string HpccText() const;
    uint32_t Nodes() const { return static_cast<uint32_t>(m_isSwitch.size()); }

  private:
    struct Link
    {
        uint32_t a, b;
        double gbps, delayNs;
    };
    std::vector<bool> m_isSwitch;
    std::vector<Link> m_links;
};

/**
 * \brief A scenario to run from a program, checked by the same code and with the same
 * messages as the TOML file and `--set`.
 *
 * Every change is checked at once. A change that is wrong itself (the problem names the key it
 * set, or is in the table it added) throws ns3::InputError and is undone. A problem elsewhere
 * means the scenario is not complete yet (`workload.kind = "flows"` before the first AddFlow):
 * the change is kept, and Check, Spec and Run throw the problem until a change resolves it.
 * Load and FromString keep the text's problems the same way.
 *
 * The scenario is its TOML text (the file, plus the tables Add* appended) and its `Set`
 * overrides, which apply after the text in the order given (as `--set` after the file).
 */
class Scenario
{
  public:
    /** The built-in default scenario (scenarios/default.toml). */
    Scenario();

    /**
     * \brief Read a TOML scenario file (relative `file` keys resolve against its directory).
     * \throws ns3::InputError if it cannot be read; its problems as Check
     */
    static Scenario Load(const std::string& path);

    /**
     * \brief A scenario from TOML text held in memory.
     * \param name the file name errors use; relative `file` keys resolve against its directory
     */
    static Scenario FromString(const std::string& toml, const std::string& name = "<script>");

    /**
     * \brief A scenario from JSON text with the layout of a TOML scenario (a Python dict, the
     * "scenario" object of a manifest.json), converted to TOML and read as FromString.
     * \throws ns3::InputError if it is not JSON, or holds a null
     */
    static Scenario FromJson(const std::string& json, const std::string& name = "<json>");

    /**
     * \brief Set one key, exactly as `tusk run --set key=value`: the value is parsed as a
     * TOML value, or taken as a plain string if it is not one ("drill", "64MiB",
     * "{kind = \"fat-tree\", k = 4}").
     * \throws ns3::InputError naming "--set", the key and what was expected
     */
    Scenario& Set(const std::string& key, const std::string& value);
    Scenario& Set(const std::string& key, const char* value) { return Set(key, std::string(value)); }
    /** Set a number or boolean key (units as the key name says: `_us`, `_gbps`, `_bytes`). */
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
    Scenario& Set(const std::string& key, T value)
    {
        if constexpr (std::is_same_v<T, bool>)
        {
            return Set(key, std::string(value ? "true" : "false"));
        }
        else if constexpr (std::is_integral_v<T>)
        {
            return Set(key, std::to_string(value));
        }
        else
        {
            return Set(key, FloatText(static_cast<double>(value)));
        }
    }

    /**
     * \brief Append one [[workload.flows]] entry (used when workload.kind = "flows").
     * \param src sending host id; \param dst receiving host id (≠ src)
     * \param bytes flow size, bytes (≥ 1); \param startUs start time, µs
     */
    Scenario& AddFlow(uint32_t src, uint32_t dst, uint64_t bytes, double startUs = 0);

    /**
     * \brief Append one [[failures]] entry. Its target key follows from the kind: a link
     * kind ("link_down", "link_up", "degrade", "loss", "gray", "flap") takes `link`, a
     * switch kind ("switch_down", "switch_up") `switch`, a NIC kind ("nic_down", "nic_up")
     * `host`. Other keys (loss_rate, hash_fraction, period_us, until_us, ...) go through
     * AddTable("failures", ...), as in docs/scenario-format.md.
     * \param atUs when, µs of simulated time
     * \param kind one of the kinds above
     * \param target "<from>-<to>" with vertex names as in links.csv ("leaf0-spine1") for a
     *        link, a switch's name ("spine3"), or a host id ("5") for a NIC
     * \param rateDivisor for "degrade" only (≥ 1): the link's rate becomes rate / rateDivisor
     * \throws ns3::InputError as the scenario loader does (an unknown kind, a host that is not
     *         an integer, a missing key the kind needs)
     */
    Scenario& AddFailure(double atUs, const std::string& kind, const std::string& target,
                         uint32_t rateDivisor = 0);

    /**
     * \brief Append one entry to an array of tables, its body as TOML lines:
     *     AddTable("jobs", "ranks = 8\n[[jobs.collectives]]\nkind = \"all-reduce\"\nbytes = \"64MiB\"");
     * \param array "jobs", "background", "failures", "workload.flows", "ecn.by_rate"
     */
    Scenario& AddTable(const std::string& array, const std::string& body);

    /**
     * \brief Use a topology written in code: writes `t` to `file` (HPCC topology.txt) and sets
     * topology.kind = "hpcc", topology.file = the absolute path of `file`.
     */
    Scenario& UseTopology(const Topology& t, const std::string& file);

    /**
     * \brief Connect `cb` to every trace source matching the ns-3 Config path `path` once the
     * fabric is built, before the simulation starts (Config::ConnectWithoutContext, or
     * Config::Connect with `withContext`: the callback then takes the matched path first).
     * Switch s is ns-3 node numHosts + s; host h is node h. Example path:
     * "/NodeList/20/DeviceList/0/$ns3::FabricNetDevice/QueueBytes" (a `*` matches every index).
     * \throws ns3::InputError at Run if the path matches no trace source
     */
    Scenario& Connect(const std::string& path, const ns3::CallbackBase& cb, bool withContext = false);

    /**
     * \brief Called once the fabric is built, before the simulation starts: attach to the
     * trace sources of particular switches and ports (ns3::Fabric: graph, switches, links).
     */
    Scenario& BeforeRun(
        std::function<void(ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&)> fn);

    /**
     * \brief Run the scenario. The simulator is reset afterwards, so a program can run many.
     * \param outDir "" for no files; else the results directory `tusk run --out outDir` writes,
     *        byte for byte (written atomically; an existing non-results directory is an error)
     * \param progress print `tusk run`'s progress line to stderr
     * \param poll called every 20 µs of simulated time; returning false stops the run
     * \return the tables and summary; RunResult::failure says why a run failed ("" if not)
     * \throws ns3::InputError for input problems found while building; RunInterrupted when
     *         `poll` stopped the run (nothing written)
     */
    RunResult Run(const std::string& outDir = "",
                  bool progress = false,
                  std::function<bool()> poll = nullptr) const;

    /** The validated spec as it stands (internal units: ps, bit/s, bytes). \throws as Check */
    const ScenarioSpec& Spec() const;
    /** \throws ns3::InputError the problem of a scenario that is not complete or not valid */
    void Check() const;
    /** The TOML text (file plus appended tables) and the overrides, as `tusk run` would take them. */
    const std::string& Text() const { return m_text; }
    const std::vector<std::string>& Overrides() const { return m_overrides; }

  private:
    /** `v` as a TOML float (the shortest text that reads back as `v`). */
    static std::string FloatText(double v);
    /** Load text + overrides; a problem at `changedKey` (or in its table) is thrown and the
     *  previous state kept, any other is kept pending. */
    void Reload(const std::string& text,
                const std::vector<std::string>& overrides,
                const std::string& changedKey);

    struct Connection
    {
        std::string path;
        ns3::CallbackBase cb;
        bool withContext;
    };

    std::string m_text;
    std::string m_name;
    bool m_fromFile = false; //!< m_text is the file `m_name` unchanged: load it as the CLI does
    std::vector<std::string> m_overrides;
    ScenarioSpec m_spec;                   //!< the last valid spec
    std::optional<ns3::InputError> m_pending; //!< why the current text + overrides are not valid
    std::vector<Connection> m_connections;
    std::vector<std::function<void(ns3::Fabric&, const std::vector<ns3::Ptr<ns3::RdmaNic>>&)>>
        m_beforeRun;
};

} // namespace tusk

#endif
