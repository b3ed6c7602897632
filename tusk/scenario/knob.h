/*
 * tusk: the knob table, one row per scenario key (internal to the tusk library).
 *
 * A knob is everything about one TOML key in one place: its name, type, unit, default, the
 * ns-3 attribute(s) the runner sets from it, the model parameter(s) it feeds, the kinds of
 * its table it is valid for, its documentation, and how it is read from TOML and written
 * back (the manifest echo). The rows drive
 *   - the reader (scenario-sections.h: every section reads its table through its rows),
 *   - `--set` (overrides of a table's kind drop the keys other kinds own),
 *   - the manifest echo (ScenarioToJson writes every row valid for the chosen kind),
 *   - the [ns3] check (an attribute a knob sets is refused there, naming the key),
 *   - model errors (a model names its own parameter; the runner names the key instead),
 *   - the key reference in docs/scenario-format.md (generated; a test compares it).
 * The default of a row is the value of a default-constructed owner (ScenarioSpec and its
 * sections), which for keys that set a model attribute is the attribute's initial value: a
 * default is written once.
 */
#ifndef TUSK_KNOB_H
#define TUSK_KNOB_H

#include "scenario/scenario-reader.h"
#include "scenario/scenario-text.h"

#include "fabric/model/fabric-units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tusk
{

/** A knob without its owner: what the reference, `tusk keys` and the checks need. */
struct KnobDoc
{
    std::string name;                    //!< the key in its table ("mtu_bytes")
    std::string type;                    //!< "integer ≥ 1", "size 256..9000", "number > 0", ...
    std::string unit;                    //!< "bytes", "µs", "Gb/s" ("" = none)
    std::string defaultText;             //!< reference text of the default
    std::vector<std::string> attributes; //!< ns-3 attributes the runner sets from it
    std::vector<std::string> params;     //!< model parameters it feeds ("LeafSpineParams.leaves")
    std::vector<std::string> kinds;      //!< valid only for these kinds of its table; {} = all
    std::string doc;                     //!< what it means (Markdown)

    bool ValidFor(const std::string& kind) const;
};

/** One row of the knob table for keys whose values live in an `Owner` (a spec section). */
template <class Owner>
struct Knob
{
    using ReadFn =
        std::function<void(ScenarioReader& r, const toml::node& n, const std::string& key, Owner& o)>;
    using WriteFn = std::function<nlohmann::json(const Owner& o)>;

    KnobDoc d;
    ReadFn read;   //!< check the value at `n` and store it in `o`
    WriteFn write; //!< the value in TOML units for the echo; null = not written

    /** The runner sets these ns-3 attributes from this key. */
    Knob& Attr(std::initializer_list<const char*> paths)
    {
        d.attributes.insert(d.attributes.end(), paths.begin(), paths.end());
        return *this;
    }
    /** The key feeds these model parameters (their errors are reported as this key). */
    Knob& Param(std::initializer_list<const char*> params)
    {
        d.params.insert(d.params.end(), params.begin(), params.end());
        return *this;
    }
    /** Valid only when its table's `kind` is one of these. */
    Knob& Kinds(std::vector<std::string> kinds)
    {
        d.kinds = std::move(kinds);
        return *this;
    }
    /** The reference's default text, when the default value alone does not say it. */
    Knob& Default(std::string text)
    {
        d.defaultText = std::move(text);
        return *this;
    }
    /** Appended to the default value in the reference ("= automatic", "= off"). */
    Knob& Note(const std::string& note)
    {
        m_note = note;
        return *this;
    }
    Knob& Unit(std::string unit)
    {
        d.unit = std::move(unit);
        return *this;
    }

    /** The KnobDoc with its default text from a default-constructed owner. */
    KnobDoc Doc(const Owner& defaults) const;

  private:
    std::string m_note;
};

/** Text of a JSON value as TOML writes it, for the reference ("4096", "\"dynamic\"", "[3]"). */
std::string TomlText(const nlohmann::json& v);

template <class Owner>
KnobDoc
Knob<Owner>::Doc(const Owner& defaults) const
{
    KnobDoc out = d;
    if (out.defaultText.empty() && write)
    {
        const nlohmann::json v = write(defaults);
        if (!v.is_null())
        {
            out.defaultText = "`" + TomlText(v) + "`";
            if (out.unit == "bytes" && v.is_number_unsigned())
            {
                const std::string note = BinarySizeNote(v.get<uint64_t>());
                out.defaultText += note.empty() ? "" : " " + note;
            }
        }
    }
    if (!m_note.empty())
    {
        out.defaultText += (out.defaultText.empty() ? "" : " ") + m_note;
    }
    return out;
}

/** The KnobDocs of rows, defaults from a default-constructed Owner. */
template <class Owner>
std::vector<KnobDoc>
Docs(const std::vector<Knob<Owner>>& rows, const Owner& defaults = Owner())
{
    std::vector<KnobDoc> out;
    for (const auto& k : rows)
    {
        out.push_back(k.Doc(defaults));
    }
    return out;
}

/** The key of `name` in table `path` ("nic.mtu_bytes"; top level: "seed"). */
inline std::string
KeyPath(const std::string& path, const std::string& name)
{
    return path.empty() ? name : path + "." + name;
}

/** Read every row valid for `kind` that table `t` holds, in row order (keys not checked). */
template <class Owner>
void
ReadKnobValues(ScenarioReader& r,
               const toml::table& t,
               const std::string& path,
               const std::vector<Knob<Owner>>& rows,
               Owner& owner,
               const std::string& kind = "")
{
    for (const auto& k : rows)
    {
        if (!k.d.ValidFor(kind))
        {
            continue;
        }
        if (const toml::node* n = r.Get(t, path, k.d.name))
        {
            k.read(r, *n, KeyPath(path, k.d.name), owner);
        }
    }
}

/**
 * \brief Check the keys of table `t` against `rows` (an unknown key names the closest valid
 * one; a key of another kind says which kinds it belongs to; `retired` keys get their
 * message), then read every row valid for `kind` that `t` holds, in row order.
 * \param extraValid keys the caller reads itself (nested tables)
 */
template <class Owner>
void
ReadKnobs(ScenarioReader& r,
          const toml::table& t,
          const std::string& path,
          const std::vector<Knob<Owner>>& rows,
          Owner& owner,
          const std::string& kind = "",
          const std::vector<std::string>& extraValid = {},
          const std::map<std::string, std::string>& retired = {})
{
    std::vector<std::string> valid;
    std::map<std::string, std::string> elsewhere = retired;
    for (const auto& k : rows)
    {
        if (k.d.ValidFor(kind))
        {
            valid.push_back(k.d.name);
        }
        else if (elsewhere.count(k.d.name) == 0)
        {
            elsewhere[k.d.name] = "`" + k.d.name + "` is valid only when " + path + ".kind is " +
                                  OneOf(k.d.kinds) + "; here " + path + ".kind is " + Quote(kind);
        }
    }
    valid.insert(valid.end(), extraValid.begin(), extraValid.end());
    r.CheckKeys(t, path, valid, elsewhere);
    ReadKnobValues(r, t, path, rows, owner, kind);
}

/** The echo of `owner`: every row valid for `kind` whose value is written, by key. */
template <class Owner>
nlohmann::json
WriteKnobs(const std::vector<Knob<Owner>>& rows, const Owner& owner, const std::string& kind = "")
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& k : rows)
    {
        if (k.write && k.d.ValidFor(kind))
        {
            nlohmann::json v = k.write(owner);
            if (!v.is_null())
            {
                j[k.d.name] = std::move(v);
            }
        }
    }
    return j;
}

// ---- row factories ------------------------------------------------------------------------

namespace knob
{

template <class T>
struct FieldTraits
{
    using Value = T;
    static bool Has(const T&) { return true; }
    static const T& Get(const T& v) { return v; }
};

template <class T>
struct FieldTraits<std::optional<T>>
{
    using Value = T;
    static bool Has(const std::optional<T>& v) { return v.has_value(); }
    static const T& Get(const std::optional<T>& v) { return *v; }
};

/**
 * \brief A row for the field `field` of Owner (a value or a std::optional of one): `read`
 * turns the node into the value, `write` the value into its echo (not called for an unset
 * optional, which is not written).
 */
template <class Owner, class M, class Base, class ReadValue, class WriteValue>
Knob<Owner>
Field(const char* name,
      M Base::*field,
      std::string type,
      std::string unit,
      std::string doc,
      ReadValue readValue,
      WriteValue writeValue)
{
    Knob<Owner> k;
    k.d.name = name;
    k.d.type = std::move(type);
    k.d.unit = std::move(unit);
    k.d.doc = std::move(doc);
    k.read = [field, readValue](ScenarioReader& r, const toml::node& n, const std::string& key,
                                Owner& o) { o.*field = readValue(r, n, key); };
    k.write = [field, writeValue](const Owner& o) -> nlohmann::json {
        const M& v = o.*field;
        if (!FieldTraits<M>::Has(v))
        {
            return nlohmann::json();
        }
        return writeValue(FieldTraits<M>::Get(v));
    };
    return k;
}

/** An integer in lo..hi (hi = the field type's maximum: "integer ≥ lo"). */
template <class Owner, class M, class Base>
Knob<Owner>
Integer(const char* name, M Base::*field, int64_t lo, int64_t hi, std::string doc)
{
    using T = typename FieldTraits<M>::Value;
    const bool open = hi >= static_cast<int64_t>(std::min<uint64_t>(
                               std::numeric_limits<T>::max(), std::numeric_limits<int64_t>::max()));
    const int64_t top = open ? static_cast<int64_t>(std::min<uint64_t>(
                                   std::numeric_limits<T>::max(), std::numeric_limits<int64_t>::max()))
                             : hi;
    return Field<Owner>(
        name, field,
        open ? "integer ≥ " + std::to_string(lo)
             : "integer " + std::to_string(lo) + ".." + std::to_string(hi),
        "", std::move(doc),
        [lo, top](ScenarioReader& r, const toml::node& n, const std::string& key) {
            return static_cast<T>(r.Int(&n, key, lo, top));
        },
        [](const T& v) { return nlohmann::json(v); });
}

/** A count: an integer ≥ lo in 32 bits. */
template <class Owner, class M, class Base>
Knob<Owner>
Count(const char* name, M Base::*field, uint32_t lo, std::string doc)
{
    return Integer<Owner>(name, field, lo, std::numeric_limits<uint32_t>::max(), std::move(doc));
}

template <class Owner, class M, class Base>
Knob<Owner>
Boolean(const char* name, M Base::*field, std::string doc)
{
    return Field<Owner>(
        name, field, "boolean", "", std::move(doc),
        [](ScenarioReader& r, const toml::node& n, const std::string& key) {
            return r.Bool(&n, key);
        },
        [](bool v) { return nlohmann::json(v); });
}

/**
 * \brief The physically meaningful range of a rate, time or size key, in its internal unit
 * (bit/s, ps, bytes), both ends included. Every such key has one: a value far outside any
 * real fabric (a link of 1e-9 Gb/s, a buffer of an exabyte) is an input error, not a run that
 * hangs or means nothing. For keys where 0 means "off" (Sign::NON_NEGATIVE), 0 is allowed
 * whatever `lo`.
 */
struct Bounds
{
    uint64_t lo;
    uint64_t hi;
};

namespace bounds
{
constexpr uint64_t kPsPerS = 1000ULL * kPsPerMs;
constexpr uint64_t kPsPerDay = 86'400ULL * kPsPerS;
/** Link rates (and a degraded link's, and ECN's per-rate thresholds): 1 Mb/s .. 100 Tb/s. */
constexpr Bounds kLinkRate{ns3::kMinLinkRateBps, ns3::kMaxLinkRateBps};
/** A congestion control's rates and rate steps: 1 kb/s .. 100 Tb/s (a flow may be throttled
 *  far below any link's rate). */
constexpr Bounds kCcRate{1000, ns3::kMaxLinkRateBps};
/** Link delays and latencies (propagation, switch forwarding, credit return): 0 .. 1 s. */
constexpr Bounds kLinkDelay{0, ns3::kMaxLinkDelayPs};
/** A long-haul link's delay: 1 ns .. 1 s. */
constexpr Bounds kLongHaulDelay{kPsPerNs, ns3::kMaxLinkDelayPs};
/** Points and spans of simulated time (starts, stops, durations, periods): up to one day; a
 *  positive one at least 1 ns. */
constexpr Bounds kSimTime{0, kPsPerDay};
constexpr Bounds kSimSpan{kPsPerNs, kPsPerDay};
/** A mean time between failures: 1 ns .. 100 days (ns-3 time ends at 106 days). */
constexpr Bounds kMtbf{kPsPerNs, 100 * kPsPerDay};
/** Protocol timers and intervals (RTO, PFC and DCQCN timers): 1 ns .. 10 s. */
constexpr Bounds kTimer{kPsPerNs, 10 * kPsPerS};
/** The time-series sampling interval: 0 (off) or 100 ns .. one day (a finer grid writes a
 *  row per link every few frames). */
constexpr Bounds kSampleInterval{100 * kPsPerNs, kPsPerDay};
/** Buffers, thresholds and windows: up to 1 TiB (switch buffers are megabytes; deep-buffer
 *  routers, gigabytes). */
constexpr uint64_t kMaxBufferBytes = 1ULL << 40;
/** Transfer and message sizes: up to 1024 TiB (a day at 10 Tb/s; fabric-units.h). */
constexpr uint64_t kMaxTransferBytes = ns3::kMaxTransferBytes;
} // namespace bounds

/** The reference's type text of a number kept in [b.lo, b.hi] (`scale` per unit). */
inline std::string
BoundedType(Bounds b, uint64_t scale, bool positive)
{
    return RangeText(positive ? std::max<uint64_t>(b.lo, 1) : b.lo, b.hi, scale, !positive, false);
}

/** A size in bytes: an integer or a size string ("64MiB"), in lo..hi. */
template <class Owner, class M, class Base>
Knob<Owner>
Size(const char* name,
     M Base::*field,
     uint64_t lo,
     uint64_t hi,
     std::string doc)
{
    using T = typename FieldTraits<M>::Value;
    const bool open = hi == std::numeric_limits<uint64_t>::max();
    std::string type = open ? (lo == 0 ? "size" : "size ≥ " + std::to_string(lo))
                            : "size " + std::to_string(lo) + ".." + SizeBoundText(hi);
    return Field<Owner>(
        name, field, type, "bytes", std::move(doc),
        [lo, hi](ScenarioReader& r, const toml::node& n, const std::string& key) {
            return static_cast<T>(r.Bytes(&n, key, lo, hi));
        },
        [](const T& v) { return nlohmann::json(static_cast<uint64_t>(v)); });
}

/** Sign of a number knob. */
enum class Sign
{
    NON_NEGATIVE, //!< ≥ 0
    POSITIVE,     //!< > 0
};

/** How a time is checked: any number of ps, or what an ns-3 timer takes (0 or ≥ 1 ns). */
enum class Clock
{
    ANY,
    TIMER,
};

/**
 * \brief A time kept in ps, written in the TOML unit `unitName` (`scale` ps per unit):
 * "ns", "µs", "ms", within `b`.
 */
template <class Owner, class M, class Base>
Knob<Owner>
Time(const char* name,
     M Base::*field,
     uint64_t scale,
     const char* unitName,
     Sign sign,
     Clock clock,
     Bounds b,
     std::string doc)
{
    const bool positive = sign == Sign::POSITIVE;
    return Field<Owner>(
        name, field, BoundedType(b, scale, positive), unitName, std::move(doc),
        [scale, positive, clock, b](ScenarioReader& r, const toml::node& n,
                                    const std::string& key) {
            return clock == Clock::TIMER ? r.TimePs(&n, key, scale, positive, b.lo, b.hi)
                                         : r.Scaled(&n, key, scale, positive, b.lo, b.hi);
        },
        [scale](uint64_t ps) { return InUnit(ps, scale); });
}

/** A rate kept in bit/s, written in Gb/s or Mb/s (`scale` bit/s per unit), within `b`. */
template <class Owner, class M, class Base>
Knob<Owner>
Rate(const char* name, M Base::*field, uint64_t scale, Sign sign, Bounds b, std::string doc)
{
    const bool positive = sign == Sign::POSITIVE;
    return Field<Owner>(
        name, field, BoundedType(b, scale, positive), scale == kBpsPerGbps ? "Gb/s" : "Mb/s",
        std::move(doc),
        [scale, positive, b](ScenarioReader& r, const toml::node& n, const std::string& key) {
            return r.Scaled(&n, key, scale, positive, b.lo, b.hi);
        },
        [scale](uint64_t bps) { return InUnit(bps, scale); });
}

/** A real number in [lo, hi] (integers accepted). */
template <class Owner, class M, class Base>
Knob<Owner>
Real(const char* name, M Base::*field, double lo, double hi, std::string type, std::string doc)
{
    return Field<Owner>(
        name, field, std::move(type), "", std::move(doc),
        [lo, hi](ScenarioReader& r, const toml::node& n, const std::string& key) {
            return r.Real(&n, key, lo, hi);
        },
        [](double v) { return JsonNumber(v); });
}

/** One of `choices`. */
template <class Owner, class M, class Base>
Knob<Owner>
Choice(const char* name, M Base::*field, std::vector<std::string> choices, std::string doc)
{
    return Field<Owner>(
        name, field, "string", "", std::move(doc),
        [choices](ScenarioReader& r, const toml::node& n, const std::string& key) {
            return r.Choice(&n, key, choices);
        },
        [](const std::string& v) { return nlohmann::json(v); });
}

/**
 * \brief One of the names of `choices`, kept as the value paired with it (an enum: a model's
 * attribute value), so that the name is converted once, where the key is read. A bad name is
 * refused as Choice refuses it; the echo writes the name.
 */
template <class Owner, class M, class Base>
Knob<Owner>
NamedChoice(const char* name,
            M Base::*field,
            std::vector<std::pair<std::string, typename FieldTraits<M>::Value>> choices,
            std::string doc)
{
    using T = typename FieldTraits<M>::Value;
    std::vector<std::string> names;
    for (const auto& c : choices)
    {
        names.push_back(c.first);
    }
    return Field<Owner>(
        name, field, "string", "", std::move(doc),
        [choices, names](ScenarioReader& r, const toml::node& n, const std::string& key) {
            const std::string v = r.Choice(&n, key, names); // refuses any other name
            const auto it = std::find_if(choices.begin(), choices.end(),
                                         [&v](const auto& c) { return c.first == v; });
            return it->second;
        },
        [choices](const T& v) {
            const auto it = std::find_if(choices.begin(), choices.end(),
                                         [&v](const auto& c) { return c.second == v; });
            return it != choices.end() ? nlohmann::json(it->first) : nlohmann::json();
        });
}

/** A free string. */
template <class Owner, class M, class Base>
Knob<Owner>
Text(const char* name, M Base::*field, std::string doc)
{
    return Field<Owner>(
        name, field, "string", "", std::move(doc),
        [](ScenarioReader& r, const toml::node& n, const std::string& key) {
            return r.String(&n, key);
        },
        [](const std::string& v) { return nlohmann::json(v); });
}

/** An existing file, made absolute against the scenario's directory. */
template <class Owner, class M, class Base>
Knob<Owner>
File(const char* name, M Base::*field, std::string doc)
{
    return Field<Owner>(
        name, field, "path", "", std::move(doc),
        [](ScenarioReader& r, const toml::node& n, const std::string& key) {
            return r.FilePath(&n, key);
        },
        [](const std::string& v) { return v.empty() ? nlohmann::json() : nlohmann::json(v); });
}

/** A row whose reading and writing are the caller's (cross-key checks, conversions). */
template <class Owner>
Knob<Owner>
Custom(const char* name,
       std::string type,
       std::string unit,
       std::string doc,
       typename Knob<Owner>::ReadFn read,
       typename Knob<Owner>::WriteFn write)
{
    Knob<Owner> k;
    k.d.name = name;
    k.d.type = std::move(type);
    k.d.unit = std::move(unit);
    k.d.doc = std::move(doc);
    k.read = std::move(read);
    k.write = std::move(write);
    return k;
}

} // namespace knob

} // namespace tusk

#endif
