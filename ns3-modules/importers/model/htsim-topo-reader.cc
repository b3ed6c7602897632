/*
 * tusk: importer for htsim topology descriptions (`.topo`).
 *
 * Semantics follow uet-htsim's FatTreeTopology (htsim/sim/datacenter/fat_tree_topology.cpp:
 * load(), set_custom_params(), init_network(); fat_tree_topology.h), re-implemented here:
 *
 * - Header: `Nodes N` (hosts), `Tiers 2|3`, `Podsize P` (hosts per pod), before the first
 *   `Tier` line. Then one block per tier, `Tier 0` = ToR (leaf), `Tier 1` = aggregation
 *   (spine), `Tier 2` = core. Keys are case-insensitive, in any order within a block.
 * - A tier's `Downlink_speed_Gbps` and `Downlink_Latency_ns` describe the links from that
 *   tier down to the tier below: Tier 0's are the host-ToR links, Tier 1's the ToR-agg
 *   links, Tier 2's the agg-core links. `Radix_Down` / `Radix_Up` are port counts down and
 *   up, `Bundle` the number of parallel links from a switch of this tier to one switch of
 *   the tier below (host links are never bundled), `Oversubscribed` the ratio of down to up
 *   capacity, `Switch_Latency_ns` the forwarding latency of this tier's switches.
 * - Derived counts (htsim's set_custom_params):
 *     pods            = Nodes / Podsize
 *     ToRs per pod    = Podsize / Radix_Down[0]             (hosts per ToR = Radix_Down[0])
 *     ToR uplinks     = Nodes * speed[0] / (speed[1] * Oversubscribed[0])
 *     aggs per pod    = ToR uplinks / (pods * Radix_Down[1])
 *                       with aggs per pod * Bundle[1] == Radix_Up[0]
 *     agg uplinks     = ToR uplinks * speed[1] / (speed[2] * Oversubscribed[1])   (3 tiers)
 *     cores           = agg uplinks / Radix_Down[2]
 *                       with cores % aggs per pod == 0 and
 *                       cores * Bundle[2] / aggs per pod == Radix_Up[1]
 *   and Radix_Down[0] / Radix_Up[0] == Oversubscribed[0] (integer division, as htsim).
 * - Wiring (htsim's init_network): host h attaches to ToR h / Radix_Down[0]; every ToR
 *   connects with Bundle[1] parallel links to every aggregation switch of its pod (to every
 *   spine in a 2-tier fabric); aggregation switch a, at position p = a % (aggs per pod) in
 *   its pod, connects with Bundle[2] parallel links to cores p + (aggs per pod) * l for
 *   l = 0 .. Radix_Up[1] / Bundle[2] - 1.
 *
 * Differences from htsim, all of which reject input rather than build something else:
 * every problem is an InputError (htsim prints and exits, or asserts); values must be
 * plain non-negative integers (htsim's stoi accepts "12.5" as 12); duplicate header keys
 * and duplicate Tier blocks are errors; a `Tier n` block with n >= Tiers is an error;
 * a 2-tier file must have Podsize == Nodes (htsim would wire every leaf to every spine of
 * every pod, exceeding Radix_Up); all tiers must share one Switch_Latency_ns, since tusk
 * models one per-switch forwarding latency. `Queue_Up` / `Queue_Down` are accepted and
 * ignored: buffers come from the MMU configuration.
 */

#include "importers/model/htsim-topo-reader.h"

#include "fabric/helper/closest-name.h"
#include "fabric/helper/topology-builders.h"

#include "fabric/model/fabric-units.h"
#include "fabric/model/input-error.h"
#include "fabric/model/input-excerpt.h"
#include "importers/model/input-text-reader.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>

namespace ns3
{

namespace
{

/** Largest host count accepted (keeps vertex indices well inside uint32_t). */
constexpr uint64_t kMaxHosts = 1ULL << 24;
/** Largest vertex and link counts accepted, to fail cleanly instead of exhausting memory. */
constexpr uint64_t kMaxVertices = 1ULL << 25;
constexpr uint64_t kMaxLinks = 1ULL << 27;
/** Largest radix, bundle or oversubscription: port indices are uint16_t. */
constexpr uint64_t kMaxRadix = std::numeric_limits<uint16_t>::max();
/** Largest link speed, Gb/s (100 Tb/s, kMaxLinkRateBps); keeps every product below 2^63. The
 *  smallest, 1 Gb/s, is above kMinLinkRateBps: speeds are whole Gb/s. */
constexpr uint64_t kMaxGbps = kMaxLinkRateBps / 1'000'000'000ULL;
/** Largest latency, ns (1 s, kMaxLinkDelayPs). */
constexpr uint64_t kMaxLatencyNs = kMaxLinkDelayPs / 1000;

/** The keys of a .topo file. */
enum class Key
{
    NODES,
    TIERS,
    PODSIZE,
    TIER,
    DOWNLINK_SPEED_GBPS,
    RADIX_DOWN,
    RADIX_UP,
    DOWNLINK_LATENCY_NS,
    SWITCH_LATENCY_NS,
    OVERSUBSCRIBED,
    BUNDLE,
    QUEUE_UP,
    QUEUE_DOWN,
};

struct KeyInfo
{
    Key key;
    const char* name; //!< canonical spelling, as in htsim's example files
    uint64_t min;
    uint64_t max;
};

const std::array<KeyInfo, 13> kKeys = {{
    {Key::NODES, "Nodes", 1, kMaxHosts},
    {Key::TIERS, "Tiers", 2, 3},
    {Key::PODSIZE, "Podsize", 1, kMaxHosts},
    {Key::TIER, "Tier", 0, 2},
    {Key::DOWNLINK_SPEED_GBPS, "Downlink_speed_Gbps", 1, kMaxGbps},
    {Key::RADIX_DOWN, "Radix_Down", 1, kMaxRadix},
    {Key::RADIX_UP, "Radix_Up", 1, kMaxRadix},
    {Key::DOWNLINK_LATENCY_NS, "Downlink_Latency_ns", 0, kMaxLatencyNs},
    {Key::SWITCH_LATENCY_NS, "Switch_Latency_ns", 0, kMaxLatencyNs},
    {Key::OVERSUBSCRIBED, "Oversubscribed", 1, kMaxRadix},
    {Key::BUNDLE, "Bundle", 1, kMaxRadix},
    {Key::QUEUE_UP, "Queue_Up", 0, std::numeric_limits<uint64_t>::max()},
    {Key::QUEUE_DOWN, "Queue_Down", 0, std::numeric_limits<uint64_t>::max()},
}};

/** One value read from the file, with the line it came from (0 = not set). */
struct Field
{
    uint64_t value = 0;
    unsigned line = 0;

    bool
    IsSet() const
    {
        return line != 0;
    }
};

/** The per-tier keys, indexed by Key for the tier keys. */
struct TierSpec
{
    unsigned line = 0; //!< line of the `Tier n` line, 0 if the block is absent
    Field speedGbps;
    Field radixDown;
    Field radixUp;
    Field latencyNs;
    Field switchLatencyNs;
    Field oversub;
    Field bundle;
    Field queueUp;
    Field queueDown;

    Field*
    Get(Key k)
    {
        switch (k)
        {
            case Key::DOWNLINK_SPEED_GBPS:
                return &speedGbps;
            case Key::RADIX_DOWN:
                return &radixDown;
            case Key::RADIX_UP:
                return &radixUp;
            case Key::DOWNLINK_LATENCY_NS:
                return &latencyNs;
            case Key::SWITCH_LATENCY_NS:
                return &switchLatencyNs;
            case Key::OVERSUBSCRIBED:
                return &oversub;
            case Key::BUNDLE:
                return &bundle;
            case Key::QUEUE_UP:
                return &queueUp;
            case Key::QUEUE_DOWN:
                return &queueDown;
            default:
                return nullptr;
        }
    }

    /** Value of an optional key whose htsim default is 1 (Oversubscribed, Bundle). */
    static uint64_t
    OrOne(const Field& f)
    {
        return f.IsSet() ? f.value : 1;
    }

    /** Line to blame for a problem with field f: its own line, else the Tier line. */
    unsigned
    LineOf(const Field& f) const
    {
        return f.IsSet() ? f.line : line;
    }
};

std::string
ToLower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    return s;
}

const KeyInfo*
FindKey(const std::string& token)
{
    const std::string lower = ToLower(token);
    for (const auto& k : kKeys)
    {
        if (ToLower(k.name) == lower)
        {
            return &k;
        }
    }
    return nullptr;
}

const KeyInfo&
Info(Key key)
{
    for (const auto& k : kKeys)
    {
        if (k.key == key)
        {
            return k;
        }
    }
    return kKeys[0]; // unreachable: every Key is in kKeys
}

std::string
Name(Key key)
{
    return Info(key).name;
}

/** The parser and builder for one file; every error names m_path. */
class HtsimTopoReader
{
  public:
    explicit HtsimTopoReader(std::string path)
        : m_path(std::move(path))
    {
    }

    TopologyGraph Read();

  private:
    [[noreturn]] void
    Fail(unsigned line, const std::string& key, const std::string& msg) const
    {
        throw InputError(m_path, line, key, msg);
    }

    /** One line's tokens (comments removed, never empty). */
    void ParseLine(unsigned lineNo, const std::vector<std::string>& tok);
    uint64_t ParseValue(unsigned lineNo,
                        const KeyInfo& key,
                        const std::vector<std::string>& tok) const;
    void CheckComplete() const;
    TopologyGraph Build() const;

    std::string m_path;
    Field m_nodes;
    Field m_tiers;
    Field m_podsize;
    std::array<TierSpec, 3> m_tier;
    int m_current = -1;           //!< tier block being read, -1 in the header
    unsigned m_firstTierLine = 0; //!< line of the first `Tier` line
};

TopologyGraph
HtsimTopoReader::Read()
{
    struct stat st;
    if (::stat(m_path.c_str(), &st) != 0)
    {
        Fail(0,
             "",
             std::string("expected a readable htsim .topo file; got ") + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
    {
        Fail(0, "", "expected a regular htsim .topo file; got a directory or special file");
    }
    InputTextReader in(m_path, "htsim .topo file", InputTextReader::HASH_TO_END);
    while (in.NextLine())
    {
        ParseLine(in.Line(), in.Tokens());
    }
    CheckComplete();
    return Build();
}

uint64_t
HtsimTopoReader::ParseValue(unsigned lineNo,
                            const KeyInfo& key,
                            const std::vector<std::string>& tok) const
{
    if (tok.size() != 2)
    {
        Fail(lineNo,
             key.name,
             "expected exactly one value after the key; got " + std::to_string(tok.size() - 1));
    }
    const std::string& s = tok[1];
    const bool digits = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return c >= '0' && c <= '9';
    });
    if (!digits)
    {
        Fail(lineNo, key.name, "expected a non-negative integer; got " + QuoteExcerpt(s));
    }
    // At most 19 digits fit in uint64_t without overflow; longer values are out of range.
    uint64_t v = 0;
    for (size_t i = 0; i < s.size() && i < 19; ++i)
    {
        v = v * 10 + static_cast<uint64_t>(s[i] - '0');
    }
    if (s.size() > 19 || v < key.min || v > key.max)
    {
        Fail(lineNo,
             key.name,
             "expected an integer in [" + std::to_string(key.min) + ", " + std::to_string(key.max)
                 + "]; got " + s);
    }
    return v;
}

void
HtsimTopoReader::ParseLine(unsigned lineNo, const std::vector<std::string>& tok)
{
    const KeyInfo* key = FindKey(tok[0]);
    if (key == nullptr)
    {
        std::vector<std::string> names;
        std::string all;
        for (const auto& k : kKeys)
        {
            names.emplace_back(k.name);
            all += (all.empty() ? "" : ", ") + std::string(k.name);
        }
        // The token is the key, when it looks like one (a file that is not a .topo: quoted).
        const std::string near = CloseName(tok[0], names, LetterCase::INSENSITIVE);
        Fail(lineNo,
             PlainKey(tok[0]),
             std::string("expected a known key") +
                 (PlainKey(tok[0]).empty() ? "; got " + QuoteExcerpt(tok[0]) : "") +
                 (near.empty() ? "" : " (did you mean '" + near + "'?)") + "; valid keys: " + all);
    }
    const uint64_t value = ParseValue(lineNo, *key, tok);

    switch (key->key)
    {
        case Key::NODES:
        case Key::TIERS:
        case Key::PODSIZE: {
            if (m_current >= 0)
            {
                Fail(
                    lineNo,
                    key->name,
                    "expected header keys (Nodes, Tiers, Podsize) before the first Tier line (line "
                        + std::to_string(m_firstTierLine) + "); got it inside Tier "
                        + std::to_string(m_current));
            }
            Field& f = key->key == Key::NODES ? m_nodes
                     : key->key == Key::TIERS ? m_tiers
                                              : m_podsize;
            if (f.IsSet())
            {
                Fail(lineNo,
                     key->name,
                     "expected one " + std::string(key->name)
                         + " line; got a second one (first on line " + std::to_string(f.line)
                         + ")");
            }
            f.value = value;
            f.line = lineNo;
            return;
        }
        case Key::TIER: {
            if (m_tiers.IsSet() && value >= m_tiers.value)
            {
                Fail(lineNo,
                     key->name,
                     "expected a tier index in [0, " + std::to_string(m_tiers.value - 1)
                         + "] (Tiers is " + std::to_string(m_tiers.value) + "); got "
                         + std::to_string(value));
            }
            TierSpec& t = m_tier[value];
            if (t.line != 0)
            {
                Fail(lineNo,
                     key->name,
                     "expected one 'Tier " + std::to_string(value)
                         + "' block; got a second one (first on line " + std::to_string(t.line)
                         + ")");
            }
            t.line = lineNo;
            m_current = static_cast<int>(value);
            if (m_firstTierLine == 0)
            {
                m_firstTierLine = lineNo;
            }
            return;
        }
        default:
            break;
    }

    // A tier key.
    if (m_current < 0)
    {
        Fail(lineNo,
             key->name,
             "expected a 'Tier <n>' line before this tier key; got it in the header");
    }
    if (key->key == Key::RADIX_UP && m_current == 2)
    {
        Fail(lineNo,
             key->name,
             "expected no Radix_Up in Tier 2 (core switches have no uplinks); got "
                 + std::to_string(value));
    }
    if (key->key == Key::QUEUE_UP && m_current == 2)
    {
        Fail(lineNo,
             key->name,
             "expected no Queue_Up in Tier 2 (core switches have no uplinks); got "
                 + std::to_string(value));
    }
    Field* f = m_tier[m_current].Get(key->key);
    if (f->IsSet())
    {
        Fail(lineNo,
             key->name,
             "expected one " + std::string(key->name) + " in Tier " + std::to_string(m_current)
                 + "; got a second one (first on line " + std::to_string(f->line) + ")");
    }
    f->value = value;
    f->line = lineNo;
}

void
HtsimTopoReader::CheckComplete() const
{
    // Header keys: blame the line where the header ended (the first Tier line).
    for (const auto& [field, key] : {std::pair<const Field*, Key>{&m_nodes, Key::NODES},
                                     {&m_tiers, Key::TIERS},
                                     {&m_podsize, Key::PODSIZE}})
    {
        if (!field->IsSet())
        {
            Fail(m_firstTierLine,
                 Name(key),
                 "expected a '" + Name(key) + " <n>' line in the header; got none");
        }
    }
    const uint64_t tiers = m_tiers.value;
    for (uint64_t t = 0; t < tiers; ++t)
    {
        const TierSpec& ts = m_tier[t];
        if (ts.line == 0)
        {
            Fail(m_tiers.line,
                 "Tier",
                 "expected a 'Tier " + std::to_string(t) + "' block (Tiers is "
                     + std::to_string(tiers) + "); got none");
        }
        const auto require = [&](const Field& f, Key key) {
            if (!f.IsSet())
            {
                Fail(ts.line,
                     Name(key),
                     "expected " + Name(key) + " in the Tier " + std::to_string(t)
                         + " block; got none");
            }
        };
        require(ts.speedGbps, Key::DOWNLINK_SPEED_GBPS);
        require(ts.latencyNs, Key::DOWNLINK_LATENCY_NS);
        require(ts.radixDown, Key::RADIX_DOWN);
        if (t + 1 < tiers)
        {
            require(ts.radixUp, Key::RADIX_UP);
        }
    }
    // tusk has one per-switch latency (TopologyGraph::switchLatencyPs).
    for (uint64_t t = 1; t < tiers; ++t)
    {
        const Field& a = m_tier[0].switchLatencyNs;
        const Field& b = m_tier[t].switchLatencyNs;
        if (a.value != b.value)
        {
            Fail(b.IsSet() ? b.line : m_tier[t].line,
                 Name(Key::SWITCH_LATENCY_NS),
                 "expected the same Switch_Latency_ns in every tier (tusk models one per-switch "
                 "latency), "
                     + std::to_string(a.value) + " as in Tier 0; got " + std::to_string(b.value)
                     + " in Tier " + std::to_string(t));
        }
    }
}

TopologyGraph
HtsimTopoReader::Build() const
{
    const uint64_t nodes = m_nodes.value;
    const uint64_t tiers = m_tiers.value;
    const uint64_t podsize = m_podsize.value;
    const TierSpec& t0 = m_tier[0];
    const TierSpec& t1 = m_tier[1];
    const TierSpec& t2 = m_tier[2];
    const std::string radixDown = Name(Key::RADIX_DOWN);
    const std::string radixUp = Name(Key::RADIX_UP);
    const std::string bundle = Name(Key::BUNDLE);
    const std::string oversub = Name(Key::OVERSUBSCRIBED);
    const auto str = [](uint64_t v) { return std::to_string(v); };

    if (TierSpec::OrOne(t0.bundle) != 1)
    {
        Fail(t0.LineOf(t0.bundle),
             bundle,
             "expected 1 in Tier 0 (host links are not bundled); got " + str(t0.bundle.value));
    }
    // Bundles must divide the radixes they are carved from (htsim set_custom_params).
    for (uint64_t t = 0; t < tiers; ++t)
    {
        const TierSpec& ts = m_tier[t];
        const uint64_t b = TierSpec::OrOne(ts.bundle);
        if (ts.radixDown.value % b != 0)
        {
            Fail(ts.LineOf(ts.bundle),
                 bundle,
                 "expected a divisor of Tier " + str(t) + " Radix_Down (" + str(ts.radixDown.value)
                     + "); got " + str(b));
        }
    }
    for (uint64_t t = 0; t + 1 < tiers; ++t)
    {
        const TierSpec& ts = m_tier[t];
        const uint64_t bu = TierSpec::OrOne(m_tier[t + 1].bundle);
        if (ts.radixUp.value % bu != 0)
        {
            Fail(ts.LineOf(ts.radixUp),
                 radixUp,
                 "expected a multiple of Tier " + str(t + 1) + " Bundle (" + str(bu) + ") in Tier "
                     + str(t) + "; got " + str(ts.radixUp.value));
        }
    }
    if (nodes % podsize != 0)
    {
        Fail(m_podsize.line,
             Name(Key::PODSIZE),
             "expected a divisor of Nodes (" + str(nodes) + "); got " + str(podsize));
    }
    if (tiers == 2 && podsize != nodes)
    {
        Fail(m_podsize.line,
             Name(Key::PODSIZE),
             "expected Podsize == Nodes (" + str(nodes)
                 + ") for 2 tiers (a leaf-spine is one pod); got " + str(podsize));
    }
    const uint64_t pods = nodes / podsize;
    const uint64_t hostsPerTor = t0.radixDown.value;
    if (podsize % hostsPerTor != 0)
    {
        Fail(t0.LineOf(t0.radixDown),
             radixDown,
             "expected a divisor of Podsize (" + str(podsize) + ") in Tier 0 (hosts per ToR); got "
                 + str(hostsPerTor));
    }
    const uint64_t torsPerPod = podsize / hostsPerTor;

    const uint64_t s0 = t0.speedGbps.value;
    const uint64_t s1 = t1.speedGbps.value;
    const uint64_t os0 = TierSpec::OrOne(t0.oversub);
    if ((nodes * s0) % (s1 * os0) != 0)
    {
        Fail(t0.LineOf(t0.oversub),
             oversub,
             "expected Nodes * Tier 0 speed / (Tier 1 speed * Oversubscribed) to be a whole number "
             "of "
             "ToR uplinks; got "
                 + str(nodes) + " * " + str(s0) + " / (" + str(s1) + " * " + str(os0) + ")");
    }
    const uint64_t torUplinks = nodes * s0 / (s1 * os0);
    if (t0.radixDown.value / t0.radixUp.value != os0)
    {
        Fail(t0.LineOf(t0.radixUp),
             radixUp,
             "expected Tier 0 Radix_Down / Radix_Up == Oversubscribed (" + str(os0) + "); got "
                 + str(t0.radixDown.value) + " / " + str(t0.radixUp.value));
    }
    if (torUplinks % (pods * t1.radixDown.value) != 0)
    {
        Fail(t1.LineOf(t1.radixDown),
             radixDown,
             "expected Tier 1 Radix_Down to divide the " + str(torUplinks) + " ToR uplinks over "
                 + str(pods) + " pod(s) into whole aggregation switches; got "
                 + str(t1.radixDown.value));
    }
    const uint64_t aggsPerPod = torUplinks / (pods * t1.radixDown.value);
    const uint64_t b1 = TierSpec::OrOne(t1.bundle);
    if (aggsPerPod * b1 != t0.radixUp.value)
    {
        Fail(t0.LineOf(t0.radixUp),
             radixUp,
             "expected Tier 0 Radix_Up == " + str(aggsPerPod)
                 + " aggregation switches per pod * Tier 1 Bundle " + str(b1) + " = "
                 + str(aggsPerPod * b1) + "; got " + str(t0.radixUp.value));
    }

    uint64_t cores = 0;
    uint64_t b2 = 1;
    uint64_t aggUpLinksPerAgg = 0; // Radix_Up[1]: links from one agg to the cores
    if (tiers == 3)
    {
        const uint64_t s2 = t2.speedGbps.value;
        const uint64_t os1 = TierSpec::OrOne(t1.oversub);
        if ((torUplinks * s1) % (s2 * os1) != 0)
        {
            Fail(t1.LineOf(t1.oversub),
                 oversub,
                 "expected ToR uplinks * Tier 1 speed / (Tier 2 speed * Oversubscribed) to be a "
                 "whole "
                 "number of aggregation uplinks; got "
                     + str(torUplinks) + " * " + str(s1) + " / (" + str(s2) + " * " + str(os1)
                     + ")");
        }
        const uint64_t aggUplinks = torUplinks * s1 / (s2 * os1);
        if (aggUplinks % t2.radixDown.value != 0)
        {
            Fail(t2.LineOf(t2.radixDown),
                 radixDown,
                 "expected a divisor of the " + str(aggUplinks)
                     + " aggregation uplinks in Tier 2; got " + str(t2.radixDown.value));
        }
        cores = aggUplinks / t2.radixDown.value;
        if (cores % aggsPerPod != 0)
        {
            Fail(t2.LineOf(t2.radixDown),
                 radixDown,
                 "expected a core count (" + str(aggUplinks)
                     + " aggregation uplinks / Radix_Down) that is a "
                       "multiple of the "
                     + str(aggsPerPod) + " aggregation switches per pod; got " + str(cores)
                     + " cores");
        }
        b2 = TierSpec::OrOne(t2.bundle);
        aggUpLinksPerAgg = t1.radixUp.value;
        // Each aggregation switch reaches cores / aggsPerPod cores (exact: checked above) with
        // Bundle[2] links each; compared without forming cores * b2, which could overflow.
        const uint64_t coresPerAgg = cores / aggsPerPod;
        if (coresPerAgg > kMaxRadix || coresPerAgg * b2 != aggUpLinksPerAgg)
        {
            Fail(t1.LineOf(t1.radixUp),
                 radixUp,
                 "expected Tier 1 Radix_Up == " + str(cores) + " cores / " + str(aggsPerPod)
                     + " aggregation switches per pod * Tier 2 Bundle " + str(b2) + "; got "
                     + str(aggUpLinksPerAgg));
        }
    }

    const uint64_t tors = pods * torsPerPod;
    const uint64_t aggs = pods * aggsPerPod;
    const uint64_t vertices = nodes + tors + aggs + cores;
    // ToR-agg: each ToR has aggsPerPod * b1 (== Radix_Up[0]) uplinks; agg-core: each agg has
    // Radix_Up[1] uplinks (a multiple of b2, checked above).
    const uint64_t links = nodes + tors * aggsPerPod * b1 + aggs * aggUpLinksPerAgg;
    if (vertices > kMaxVertices || links > kMaxLinks)
    {
        Fail(m_nodes.line,
             Name(Key::NODES),
             "expected at most " + str(kMaxVertices) + " vertices and " + str(kMaxLinks)
                 + " links; got " + str(vertices) + " and " + str(links));
    }

    TopologyGraph g;
    g.numHosts = static_cast<uint32_t>(nodes);
    g.switchLatencyPs = t0.switchLatencyNs.value * 1000;
    const bool leafSpine = tiers == 2;
    g.description = "htsim " + str(tiers) + "-tier " + (leafSpine ? "leaf-spine" : "fat tree")
                  + " from " + m_path + ": " + str(nodes) + " hosts, " + str(tors)
                  + (leafSpine ? " leaves, " : " ToRs, ") + str(aggs)
                  + (leafSpine ? " spines" : " aggs, " + str(cores) + " cores");

    const auto podOf = [&](uint64_t index, uint64_t perPod) -> uint32_t {
        return leafSpine ? 0 : static_cast<uint32_t>(index / perPod);
    };
    g.vertices.reserve(vertices);
    for (uint64_t h = 0; h < nodes; ++h)
    {
        g.vertices.push_back(TopoVertex{TopoVertex::HOST, 0, podOf(h, podsize), "host" + str(h)});
    }
    for (uint64_t t = 0; t < tors; ++t)
    {
        g.vertices.push_back(TopoVertex{
            TopoVertex::SWITCH, 1, podOf(t, torsPerPod), (leafSpine ? "leaf" : "tor") + str(t)});
    }
    for (uint64_t a = 0; a < aggs; ++a)
    {
        g.vertices.push_back(TopoVertex{
            TopoVertex::SWITCH, 2, podOf(a, aggsPerPod), (leafSpine ? "spine" : "agg") + str(a)});
    }
    for (uint64_t c = 0; c < cores; ++c)
    {
        g.vertices.push_back(TopoVertex{TopoVertex::SWITCH, 3, 0, "core" + str(c)});
    }

    const auto u32 = [](uint64_t v) { return static_cast<uint32_t>(v); };
    const uint64_t firstTor = nodes;
    const uint64_t firstAgg = firstTor + tors;
    const uint64_t firstCore = firstAgg + aggs;
    g.links.reserve(links);
    // Host links: Tier 0 downlinks.
    const uint64_t rate0 = s0 * 1'000'000'000ULL;
    const uint64_t delay0 = t0.latencyNs.value * 1000;
    for (uint64_t h = 0; h < nodes; ++h)
    {
        g.links.push_back(TopoLink{u32(h), u32(firstTor + h / hostsPerTor), rate0, delay0});
    }
    // ToR-agg links: Tier 1 downlinks, Bundle[1] parallel links per pair.
    const uint64_t rate1 = s1 * 1'000'000'000ULL;
    const uint64_t delay1 = t1.latencyNs.value * 1000;
    for (uint64_t t = 0; t < tors; ++t)
    {
        const uint64_t pod = t / torsPerPod; // always 0 for 2 tiers (one pod)
        for (uint64_t j = 0; j < aggsPerPod; ++j)
        {
            for (uint64_t b = 0; b < b1; ++b)
            {
                g.links.push_back(TopoLink{
                    u32(firstTor + t), u32(firstAgg + pod * aggsPerPod + j), rate1, delay1});
            }
        }
    }
    // Agg-core links: Tier 2 downlinks.
    if (tiers == 3)
    {
        const uint64_t rate2 = t2.speedGbps.value * 1'000'000'000ULL;
        const uint64_t delay2 = t2.latencyNs.value * 1000;
        for (uint64_t a = 0; a < aggs; ++a)
        {
            const uint64_t pos = a % aggsPerPod;
            for (uint64_t l = 0; l < aggUpLinksPerAgg / b2; ++l)
            {
                const uint64_t core = pos + aggsPerPod * l;
                if (core >= cores)
                {
                    // Cannot happen after the Radix_Up check above; kept as a guard.
                    Fail(t1.LineOf(t1.radixUp),
                         radixUp,
                         "expected uplinks to fit " + str(cores) + " cores");
                }
                for (uint64_t b = 0; b < b2; ++b)
                {
                    g.links.push_back(
                        TopoLink{u32(firstAgg + a), u32(firstCore + core), rate2, delay2});
                }
            }
        }
    }
    return g;
}

} // namespace

TopologyGraph
ReadHtsimTopo(const std::string& path)
{
    return HtsimTopoReader(path).Read();
}

} // namespace ns3
