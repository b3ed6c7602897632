/*
 * tusk: reading a TOML input file (sweep files, regression suites) with errors that name the
 * file, the line and the key, as every tusk input does (ns3::InputError, exit status 2).
 */
#ifndef TUSK_TOML_FILE_READER_H
#define TUSK_TOML_FILE_READER_H

#include <toml++/toml.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tusk
{

/** A TOML bare key: letters, digits, '_' and '-'. */
bool IsBareKey(const std::string& key);

/** The key as TOML writes it: bare, or "quoted". */
std::string QuoteKey(const std::string& key);

/** "a table", "a string", ... for messages. */
std::string DescribeNode(const toml::node& node);

/** Typed access to the values of one TOML file; every failure is an ns3::InputError. */
class TomlFileReader
{
  public:
    /** Read `file`; or, when `text` is given, that text as the content of `file` (which then
     *  only names it: messages, the directory that relative paths resolve against). */
    explicit TomlFileReader(std::string file, std::optional<std::string> text = std::nullopt);

    /** Parse the file (or the text); a missing file or a syntax error names the file (and
     *  line). `what` is "sweep file", "suite file", ... for the message. */
    toml::table Parse(const std::string& what) const;

    [[noreturn]] void Fail(const toml::node* n, const std::string& key, const std::string& msg) const;

    /** Fail on a key of `t` that is not in `allowed` (`where` prefixes the key in the message). */
    void CheckKeys(const toml::table& t, const std::string& where,
                   const std::vector<std::string>& allowed) const;

    std::string String(const toml::node& n, const std::string& key) const;
    std::vector<std::string> Strings(const toml::node& n, const std::string& key) const;
    /** An integer in [min, max]. */
    int64_t Integer(const toml::node& n, const std::string& key, int64_t min,
                    int64_t max = std::numeric_limits<int64_t>::max()) const;
    /** A finite integer or float (>= 0 when `nonNegative`). */
    double Number(const toml::node& n, const std::string& key, bool nonNegative) const;

    const std::string& File() const { return m_file; }

  protected:
    std::string m_file;
    std::optional<std::string> m_text; //!< the content, when not read from m_file
};

} // namespace tusk

#endif
