#include "scenario/toml-file-reader.h"

#include "sweep/sweep-plan.h"

#include "fabric/model/input-error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace tusk
{

using ns3::InputError;

bool
IsBareKey(const std::string& k)
{
    return !k.empty() && std::all_of(k.begin(), k.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    });
}

std::string
QuoteKey(const std::string& k)
{
    return IsBareKey(k) ? k : "\"" + k + "\"";
}

std::string
DescribeNode(const toml::node& n)
{
    switch (n.type())
    {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    default: return "a date or time";
    }
}

TomlFileReader::TomlFileReader(std::string file, std::optional<std::string> text)
    : m_file(std::move(file)),
      m_text(std::move(text))
{
}

namespace
{

/** Line `line` (1-based) of `text`, without its end of line; "" past the end. */
std::string
LineOfText(const std::string& text, unsigned line)
{
    std::istringstream in(text);
    std::string s;
    for (unsigned i = 1; std::getline(in, s); ++i)
    {
        if (i == line)
        {
            if (!s.empty() && s.back() == '\r')
            {
                s.pop_back();
            }
            return s;
        }
    }
    return "";
}

std::string
Trim(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
    {
        return "";
    }
    return s.substr(b, s.find_last_not_of(" \t") + 1 - b);
}

/** The dotted path of the table the lines before `line` opened, arrays of tables indexed as
 *  the scenario's messages name them: "topology", "jobs[1]" for the second [[jobs]],
 *  "jobs[1].collectives[0]" for the first [[jobs.collectives]] after it; "" at the top level. */
std::string
TableBefore(const std::string& text, unsigned line)
{
    std::istringstream in(text);
    std::string s;
    std::string table;
    std::map<std::string, unsigned> count; // per array of tables, by its resolved parent path
    std::map<std::string, std::string> resolved; // an array's dotted name -> its latest path
    auto resolve = [&](const std::string& name) {
        // Each leading part that is an array of tables takes its latest element's index.
        std::string path;
        std::string dotted;
        std::istringstream parts(name);
        std::string part;
        while (std::getline(parts, part, '.'))
        {
            dotted += (dotted.empty() ? "" : ".") + Trim(part);
            const auto it = resolved.find(dotted);
            path = it != resolved.end() ? it->second : path + (path.empty() ? "" : ".") + Trim(part);
        }
        return std::make_pair(path, dotted);
    };
    for (unsigned i = 1; i < line && std::getline(in, s); ++i)
    {
        const std::string t = Trim(s);
        if (t.rfind("[[", 0) == 0 && t.find("]]") != std::string::npos)
        {
            const std::string name = Trim(t.substr(2, t.find("]]") - 2));
            const auto dot = name.rfind('.');
            const std::string parent =
                dot == std::string::npos ? "" : resolve(name.substr(0, dot)).first;
            const std::string leaf = Trim(dot == std::string::npos ? name : name.substr(dot + 1));
            const std::string base = parent.empty() ? leaf : parent + "." + leaf;
            table = base + "[" + std::to_string(count[base]++) + "]";
            resolved[resolve(name).second] = table;
        }
        else if (t.rfind('[', 0) == 0 && t.find(']') != std::string::npos)
        {
            table = resolve(Trim(t.substr(1, t.find(']') - 1))).first;
        }
    }
    return table;
}

bool
IsWord(const std::string& v)
{
    return !v.empty() && std::isalpha(static_cast<unsigned char>(v[0])) &&
           std::all_of(v.begin(), v.end(), [](char c) {
               return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
                      c == '.';
           });
}

/** What a common mistake in `key = value` means, or "" when the value is none of them (a
 *  bare word, a capitalised boolean, a number with a unit or with thousands commas). */
std::string
ValueHint(const std::string& key, const std::string& value)
{
    std::string hint;
    static const std::vector<std::string> kBooleanWords = {"True", "False", "TRUE", "FALSE",
                                                           "yes",  "no",    "on",   "off",
                                                           "Yes",  "No",    "On",   "Off"};
    if (std::find(kBooleanWords.begin(), kBooleanWords.end(), value) != kBooleanWords.end())
    {
        hint = "`" + value +
               "` is not a TOML value: a boolean is written true or false (lower case), a "
               "name in quotes (" +
               key + " = \"" + value + "\")";
    }
    else if (IsWord(value))
    {
        hint = "`" + value +
               "` is not a TOML value (a number, true or false, a quoted string, an array "
               "or a table): a number is written in digits, a name in quotes (" +
               key + " = \"" + value + "\")";
    }
    else if (!value.empty() && std::isdigit(static_cast<unsigned char>(value[0])))
    {
        const auto unit = std::find_if(value.begin(), value.end(), [](char c) {
            return std::isalpha(static_cast<unsigned char>(c)) && c != 'e' && c != 'E';
        });
        if (value.find(',') != std::string::npos &&
            std::all_of(value.begin(), value.end(),
                        [](char c) { return std::isdigit(static_cast<unsigned char>(c)) ||
                                            c == ','; }))
        {
            hint = "`" + value + "`: TOML groups digits with underscores (" + [&] {
                std::string v = value;
                std::replace(v.begin(), v.end(), ',', '_');
                return v;
            }() + "), not commas";
        }
        else if (unit != value.end())
        {
            hint = "`" + value +
                   "` is a number with a unit: where the key takes units, write it as a "
                   "quoted string (" +
                   key + " = \"" + value +
                   "\"; docs/scenario-format.md lists those keys), else as a plain number in "
                   "the unit the key's name gives";
        }
    }
    return hint;
}

/** The `key = value` pairs of an inline table's text `{ a = 1, b = "x" }` (commas inside
 *  quotes, brackets or nested braces do not split), trimmed; pieces without '=' are left out. */
std::vector<std::pair<std::string, std::string>>
InlineTablePairs(const std::string& value)
{
    std::vector<std::pair<std::string, std::string>> pairs;
    if (value.size() < 2 || value.front() != '{')
    {
        return pairs;
    }
    const auto close = value.rfind('}');
    const std::string inner = value.substr(1, (close == std::string::npos || close == 0
                                                   ? value.size()
                                                   : close) -
                                                  1);
    std::vector<std::string> pieces(1);
    int depth = 0;
    char quote = 0;
    for (char c : inner)
    {
        if (quote)
        {
            quote = c == quote ? 0 : quote;
        }
        else if (c == '"' || c == '\'')
        {
            quote = c;
        }
        else if (c == '[' || c == '{')
        {
            ++depth;
        }
        else if (c == ']' || c == '}')
        {
            --depth;
        }
        else if (c == ',' && depth == 0)
        {
            pieces.emplace_back();
            continue;
        }
        pieces.back() += c;
    }
    for (const auto& p : pieces)
    {
        const auto eq = p.find('=');
        if (eq != std::string::npos)
        {
            pairs.emplace_back(Trim(p.substr(0, eq)), Trim(p.substr(eq + 1)));
        }
    }
    return pairs;
}

} // namespace

TomlSyntaxHint
ExplainTomlSyntaxError(const std::string& text, unsigned line, const std::string& description)
{
    TomlSyntaxHint h;
    h.message = "TOML syntax error: " + description;
    const std::string l = LineOfText(text, line);
    const std::string t = Trim(l);
    if (t.empty() || t[0] == '[' || t[0] == '#')
    {
        return h;
    }
    const auto eq = t.find('=');
    if (eq == std::string::npos)
    {
        // A line without '=' is a key-value pair only where the parser expected one (not a
        // multi-line array's continuation).
        if (description.find("key-value pair") != std::string::npos ||
            description.find("expected '='") != std::string::npos)
        {
            h.message = "TOML syntax error: expected `key = value`, got `" + t +
                        "` (the parser said: " + description + ")";
        }
        return h;
    }
    const std::string key = Trim(t.substr(0, eq));
    std::string value = Trim(t.substr(eq + 1));
    if (const auto hash = value.find(" #"); hash != std::string::npos && value[0] != '"' &&
                                            value[0] != '\'')
    {
        value = Trim(value.substr(0, hash));
    }
    if (key.empty() || !std::all_of(key.begin(), key.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
                   c == '.' || c == '"';
        }))
    {
        return h;
    }
    const std::string table = TableBefore(text, line);
    h.key = table.empty() ? key : table + "." + key;
    std::string hint = ValueHint(key, value);
    if (hint.empty())
    {
        // An inline table (`link = { rate = 100Gbps }`): the same mistakes, inside it.
        for (const auto& [k, v] : InlineTablePairs(value))
        {
            hint = ValueHint(k, v);
            if (!hint.empty())
            {
                h.key += "." + k;
                break;
            }
        }
    }
    if (!hint.empty())
    {
        h.message = "TOML syntax error: " + hint + " (the parser said: " + description + ")";
    }
    return h;
}

toml::table
ParseTomlText(const std::string& text, const std::string& file)
{
    // UTF-16 or UTF-32 text (what some editors save): toml++ would report its first NUL
    // or byte-order mark as a syntax error on line 1.
    const bool utf16Bom = text.size() >= 2 && ((text[0] == '\xFF' && text[1] == '\xFE') ||
                                               (text[0] == '\xFE' && text[1] == '\xFF'));
    if (utf16Bom || text.find('\0') != std::string::npos)
    {
        throw InputError(file, 0, "",
                         std::string("not UTF-8 text: ") +
                             (utf16Bom ? "a UTF-16 byte-order mark" : "NUL bytes") +
                             " (TOML files are UTF-8; save it as UTF-8)");
    }
    try
    {
        return toml::parse(std::string_view(text), std::string_view(file));
    }
    catch (const toml::parse_error& e)
    {
        const auto line = static_cast<unsigned>(e.source().begin.line);
        const TomlSyntaxHint h = ExplainTomlSyntaxError(text, line, std::string(e.description()));
        throw InputError(file, line, h.key, h.message);
    }
}

toml::table
TomlFileReader::Parse(const std::string& what) const
{
    if (m_text)
    {
        return ParseTomlText(*m_text, m_file);
    }
    std::ifstream in(m_file, std::ios::binary);
    std::error_code ec;
    if (!in || !std::filesystem::is_regular_file(m_file, ec))
    {
        throw InputError(m_file, 0, "", "no such " + what);
    }
    std::ostringstream text;
    text << in.rdbuf();
    return ParseTomlText(text.str(), m_file);
}

void
TomlFileReader::Fail(const toml::node* n, const std::string& key, const std::string& msg) const
{
    throw InputError(m_file, LineOf(n), key, msg);
}

void
TomlFileReader::CheckKeys(const toml::table& t, const std::string& where,
                          const std::vector<std::string>& allowed) const
{
    for (auto&& [k, v] : t)
    {
        if (std::find(allowed.begin(), allowed.end(), std::string(k.str())) == allowed.end())
        {
            std::string list;
            for (const auto& a : allowed)
            {
                list += (list.empty() ? "" : ", ") + a;
            }
            Fail(&v, (where.empty() ? "" : where + ".") + std::string(k.str()),
                 "unknown key; expected one of " + list);
        }
    }
}

std::string
TomlFileReader::String(const toml::node& n, const std::string& key) const
{
    if (!n.is_string())
    {
        Fail(&n, key, "expected a string, got " + DescribeNode(n));
    }
    return n.as_string()->get();
}

std::vector<std::string>
TomlFileReader::Strings(const toml::node& n, const std::string& key) const
{
    if (!n.is_array())
    {
        Fail(&n, key, "expected an array of strings, got " + DescribeNode(n));
    }
    std::vector<std::string> out;
    for (auto&& v : *n.as_array())
    {
        out.push_back(String(v, key));
    }
    return out;
}

int64_t
TomlFileReader::Integer(const toml::node& n, const std::string& key, int64_t min,
                        int64_t max) const
{
    if (!n.is_integer() || n.as_integer()->get() < min || n.as_integer()->get() > max)
    {
        Fail(&n, key, fmt::format("expected an integer >= {}{}, got {}", min,
                                  max < std::numeric_limits<int64_t>::max()
                                      ? fmt::format(" and at most {}", max)
                                      : "",
                                  n.is_integer() ? TomlValueText(n) : DescribeNode(n)));
    }
    return n.as_integer()->get();
}

double
TomlFileReader::Number(const toml::node& n, const std::string& key, bool nonNegative) const
{
    if (!n.is_number())
    {
        Fail(&n, key, "expected a number, got " + DescribeNode(n));
    }
    const double v = n.is_integer() ? static_cast<double>(n.as_integer()->get())
                                    : n.as_floating_point()->get();
    if (!std::isfinite(v) || (nonNegative && v < 0))
    {
        Fail(&n, key, nonNegative ? "expected a finite number >= 0" : "expected a finite number");
    }
    return v;
}

} // namespace tusk
