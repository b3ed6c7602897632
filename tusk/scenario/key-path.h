/*
 * tusk: key paths and override values, one reading for every place that names a scenario key
 * in text: `--set KEY.PATH=VALUE` (scenario-overrides.cc), a sweep's axis keys, its `[set]`
 * keys and its --set (sweep-plan.cc), a regression suite's `set`, the Python module's set().
 * docs/scenario-format.md, "Key paths", states the rules.
 */
#ifndef TUSK_KEY_PATH_H
#define TUSK_KEY_PATH_H

#include <toml++/toml.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace tusk
{

/** A malformed key path; what() says what is wrong (the caller adds file, line and key). */
class KeyPathError : public std::invalid_argument
{
  public:
    using std::invalid_argument::invalid_argument;
};

/** A parsed key path: its keys (unquoted) and, per key, the array index after it (-1: none). */
struct KeyPath
{
    std::vector<std::string> keys;
    std::vector<long> index;

    /** The path as --set and error messages write it: `failures[0].at_us`, quoting a key that
     *  is not bare (`ns3."ns3::X::Y"` is written `ns3.ns3::X::Y`, its free-form key as is). */
    std::string Text() const;
};

/**
 * \brief Parse a key path, TOML's dotted key with array indices:
 * - keys are separated by '.', with optional spaces or tabs around it (as in TOML);
 * - a key is bare (letters, digits, '_', '-'), "basic" quoted (escapes \" and \\) or
 *   'literal' quoted; no key is empty;
 * - a bare key may end in an index, `failures[0]`, N of at most 6 digits; a bare key of digits
 *   after an unindexed key is that key's index too (`failures.0`, as a sweep axis writes it);
 * - after `ns3.` and `lb.attributes.` the rest of the path is one free-form key (an ns-3
 *   attribute name or path: `ns3.ns3::RdmaNic::Mtu`), taken as typed, or quoted;
 * - leading and trailing spaces of the whole path are ignored.
 * \throws KeyPathError naming what is wrong (an unterminated quote, an empty key, a character
 *         a bare key cannot have, a malformed index, a trailing '.')
 */
KeyPath ParseKeyPath(const std::string& text);

/**
 * \brief An override's value text as a TOML value: the value, if the (trimmed) text is exactly
 * one TOML value (`4`, `2.5`, `true`, `[0, 1]`, `"text"`, `{k = 8}`); else the text as a
 * string (`spray`, `1GiB`, `0-7`). The result is a table whose key "v" holds the value.
 */
toml::table ParseOverrideValue(const std::string& text);

} // namespace tusk

#endif // TUSK_KEY_PATH_H
