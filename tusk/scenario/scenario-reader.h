/*
 * tusk: the core of the scenario reader (internal to the tusk library).
 *
 * ScenarioReader holds one parsed TOML document with its origin (file line, or `--set`), and
 * reads values out of it with the checks and messages every key shares: types, ranges, units,
 * size strings, host lists, files. Every problem throws ns3::InputError(file, line, key,
 * message). The keys themselves are in the knob table (knob.h, scenario-sections.h); the
 * `--set` overrides are applied by the member functions in scenario-overrides.cc.
 */
#ifndef TUSK_SCENARIO_READER_H
#define TUSK_SCENARIO_READER_H

#include "fabric/model/input-error.h"

#include <toml++/toml.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tusk
{

/** The file name of errors in `--set` overrides. */
extern const char* const kSetFile;

/** A key that is valid only for some values of its table's `kind`. */
struct KindKey
{
    std::string key;
    std::vector<std::string> kinds;
};

/** A table whose valid keys depend on its `kind` ([topology], [workload]). */
struct KindTable
{
    std::string name;        //!< "topology"
    std::string defaultKind; //!< the kind when the file does not say
    std::vector<KindKey> keys;
};

/** The value of a node for "got ..." in messages ("the integer 4", "an array"). */
std::string Describe(const toml::node& n);

/** A name of letters, digits and '_', not starting with a digit. */
bool IsIdentifier(const std::string& s);

/** "ns3::RdmaNic::AckInterval": at least two identifiers joined by "::". */
bool IsAttributePath(const std::string& s);

class ScenarioReader
{
  public:
    /**
     * \param file the name errors give (the scenario path as given)
     * \param baseDir the directory relative `file` paths in the document are resolved against
     */
    ScenarioReader(std::string file, std::filesystem::path baseDir);

    // --- overrides (scenario-overrides.cc) ---
    /** Apply one `key.path=value` override to the parsed document. */
    void ApplyOverride(toml::table& root, const std::string& text);
    /** Before the overrides: remember the file's `kind` of every table in `kindTables`. */
    void RememberFileKinds(const toml::table& root, const std::vector<KindTable>& kindTables);
    /**
     * After the overrides: where `--set` changed a table's `kind`, drop the file's keys that
     * apply only to other kinds, so that `--set topology.kind=htsim --set topology.file=x.topo`
     * works on a leaf-spine scenario. Keys shared with the new kind, keys set with --set and
     * unknown keys stay (and are checked as usual).
     */
    void DropOtherKindKeys(toml::table& root, const std::vector<KindTable>& kindTables) const;

    // --- origin of nodes and errors ---
    bool FromOverride(const toml::node* n) const
    {
        return n != nullptr && m_overrideNodes.count(n) > 0;
    }
    /** 1-based line of n in the file; 0 for --set values and absent nodes. */
    unsigned LineOf(const toml::node* n) const;
    /** Throw the InputError of key `key` at node n (the table's line if n is its table). */
    [[noreturn]] void Fail(const toml::node* n, const std::string& key, const std::string& message) const;
    const std::string& File() const { return m_file; }

    // --- tables and keys ---
    /** Where keyLines are recorded (spec.keyLines of the spec being read). */
    void SetKeyLines(std::map<std::string, unsigned>* keyLines) { m_keyLines = keyLines; }
    /** Record the line of `key` (for errors found after loading). */
    void NoteKey(const std::string& key, const toml::node* n) { (*m_keyLines)[key] = LineOf(n); }
    /** Child `key` of table t (nullptr if absent); records its line under `path`.`key`. */
    const toml::node* Get(const toml::table& t, const std::string& path, const std::string& key);
    /** The table in node n (key `path`), or an error. */
    const toml::table& Table(const toml::node* n, const std::string& path) const;
    /** The top-level table `[key]` of root (nullptr if the scenario has none), or an error. */
    const toml::table* SectionTable(const toml::table& root, const std::string& key);
    /**
     * Every key of t must be in `valid`; a key in `elsewhere` gets that message, any other
     * names the closest valid key.
     */
    void CheckKeys(const toml::table& t,
                   const std::string& prefix,
                   const std::vector<std::string>& valid,
                   const std::map<std::string, std::string>& elsewhere = {}) const;
    /** CheckKeys for a table whose valid keys depend on its `kind`. */
    void CheckKindKeys(const toml::table& t,
                       const std::string& prefix,
                       const std::string& kind,
                       const std::vector<KindKey>& rules) const;
    /** An array of tables ([[key]]) in t; nullptr if absent. */
    const toml::array* TableArray(const toml::table& t,
                                  const std::string& path,
                                  const std::string& key,
                                  const std::string& what);

    // --- values (each names `key` in its errors) ---
    int64_t Int(const toml::node* n, const std::string& key, int64_t lo, int64_t hi) const;
    uint32_t U32(const toml::node* n, const std::string& key, uint32_t lo) const
    {
        return static_cast<uint32_t>(Int(n, key, lo, std::numeric_limits<uint32_t>::max()));
    }
    /**
     * \brief A number (integer or float) in TOML units, times `scale`, rounded to an integer.
     * A value other than 0 must lie in [lo, hi] (in the internal unit, before rounding); 0 is
     * refused when `positive`, else allowed whatever `lo` ("0 = off").
     */
    uint64_t Scaled(const toml::node* n,
                    const std::string& key,
                    uint64_t scale,
                    bool positive,
                    uint64_t lo = 0,
                    uint64_t hi = std::numeric_limits<uint64_t>::max()) const;
    /** Scaled() for a time in ps that ns-3 timers take: 0 or at least 1 ns. */
    uint64_t TimePs(const toml::node* n,
                    const std::string& key,
                    uint64_t scale,
                    bool positive,
                    uint64_t lo = 0,
                    uint64_t hi = std::numeric_limits<uint64_t>::max()) const;
    bool Bool(const toml::node* n, const std::string& key) const;
    /** A number (integer or float) in [lo, hi]. */
    double Real(const toml::node* n, const std::string& key, double lo, double hi) const;
    std::string String(const toml::node* n, const std::string& key) const;
    std::string Choice(const toml::node* n,
                       const std::string& key,
                       const std::vector<std::string>& allowed) const;
    /** An integer or a size string, in [lo, hi] bytes. */
    uint64_t Bytes(const toml::node* n, const std::string& key, uint64_t lo, uint64_t hi) const;
    /** A scalar as text: strings as-is, numbers and booleans as TOML writes them. */
    std::string ScalarText(const toml::node* n, const std::string& key) const;
    /** An existing regular file, made absolute. */
    std::string FilePath(const toml::node* n, const std::string& key) const;
    /** An array of host ids or a range string; ids < hostCount when hostCount > 0. */
    std::vector<uint32_t> HostList(const toml::node* n,
                                   const std::string& key,
                                   uint64_t hostCount) const;
    uint32_t HostId(const toml::node* n, const std::string& key, uint64_t hostCount) const;

    /** Hosts of the topology read so far; 0 = not known while reading (htsim, hpcc files). */
    uint64_t HostCount() const { return m_hostCount; }
    void SetHostCount(uint64_t hosts) { m_hostCount = hosts; }

  private:
    /** Remember n and everything inside it as coming from --set. */
    void MarkOverride(const toml::node* n);
    /** Forget what MarkOverride remembered about n and everything inside it. */
    void Forget(const toml::node* n);

    std::string m_file;
    std::filesystem::path m_baseDir;
    std::set<const toml::node*> m_overrideNodes;        //!< nodes created by --set
    std::map<const toml::node*, std::string> m_rawText; //!< --set value text by value node
    std::map<std::string, unsigned>* m_keyLines = nullptr;
    uint64_t m_hostCount = 0;
    std::map<std::string, std::string> m_fileKinds; //!< table -> its kind in the file
};

} // namespace tusk

#endif
