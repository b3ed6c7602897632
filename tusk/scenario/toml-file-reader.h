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

/**
 * \brief Parse TOML text, the one reading of every TOML input (scenarios, sweep files,
 * regression suites); `file` names it in messages and in the nodes' source regions.
 * \throws ns3::InputError (file, the line of the error, "TOML syntax error: ...")
 */
toml::table ParseTomlText(const std::string& text, const std::string& file);

/** What a TOML syntax error means to a scenario's author: the full key of the line (""
 *  when the line is not `key = value`) and a message that starts "TOML syntax error: ". */
struct TomlSyntaxHint
{
    std::string key;
    std::string message;
};

/**
 * \brief Explain toml++'s `description` of a syntax error on line `line` (1-based) of
 * `text` in the terms of the mistakes authors make: a bare word where a quoted string is
 * meant (`kind = fat-tree`), a capitalised or yes/no boolean, a number with a unit written
 * bare (`10us`), digits grouped with commas. The parser's own words are kept after the
 * hint; a line that fits no such case keeps them alone. The key is the line's, prefixed by
 * the table the lines before it opened (`jobs[1].compute_us` for the second [[jobs]]).
 */
TomlSyntaxHint ExplainTomlSyntaxError(const std::string& text,
                                      unsigned line,
                                      const std::string& description);

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
