#include "scenario/toml-file-reader.h"

#include "sweep/sweep-plan.h"

#include "fabric/model/input-error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

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

toml::table
TomlFileReader::Parse(const std::string& what) const
{
    try
    {
        return m_text ? toml::parse(std::string_view(*m_text), std::string_view(m_file))
                      : toml::parse_file(m_file);
    }
    catch (const toml::parse_error& e)
    {
        std::error_code ec;
        if (!m_text && !std::filesystem::exists(m_file, ec))
        {
            throw InputError(m_file, 0, "", "no such " + what);
        }
        throw InputError(m_file, static_cast<unsigned>(e.source().begin.line), "",
                         "TOML syntax error: " + std::string(e.description()));
    }
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
