/*
 * tusk: key paths and override values (key-path.h).
 */
#include "scenario/key-path.h"

#include "scenario/scenario-text.h"
#include "scenario/toml-file-reader.h"

#include <algorithm>
#include <cctype>

namespace tusk
{

namespace
{

bool
IsBareChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

bool
IsSpace(char c)
{
    return c == ' ' || c == '\t';
}

bool
IsDigits(const std::string& s)
{
    return !s.empty() && s.size() <= 6 && s.find_first_not_of("0123456789") == std::string::npos;
}

/** Whether the keys read so far end where the free-form key starts (`ns3`, `lb.attributes`). */
bool
FreeFormNext(const KeyPath& p)
{
    const auto& k = p.keys;
    const bool unindexed = std::all_of(p.index.begin(), p.index.end(), [](long i) { return i < 0; });
    return unindexed && ((k.size() == 1 && k[0] == "ns3") ||
                         (k.size() == 2 && k[0] == "lb" && k[1] == "attributes"));
}

class Reader
{
  public:
    explicit Reader(const std::string& text)
        : m_text(text)
    {
    }

    KeyPath Read()
    {
        KeyPath p;
        SkipSpace();
        if (m_i == m_text.size())
        {
            throw KeyPathError("empty key path");
        }
        bool freeForm = false;
        while (true)
        {
            bool lastQuoted = false;
            freeForm = freeForm || FreeFormNext(p);
            if (freeForm && p.keys.size() > 1 && !FreeFormNext(p))
            {
                // Inside the free-form key: a further '.' and what follows belong to it.
                p.keys.back() += "." + Segment(true, &lastQuoted);
            }
            else
            {
                bool quoted = false;
                const std::string key = Segment(freeForm, &quoted);
                lastQuoted = quoted;
                const bool indexOfPrevious = !freeForm && !quoted && !p.keys.empty() &&
                                             p.index.back() < 0 && IsDigits(key);
                if (indexOfPrevious)
                {
                    p.index.back() = std::stol(key); // failures.0 is failures[0]
                }
                else
                {
                    p.keys.push_back(key);
                    p.index.push_back(freeForm || quoted ? -1 : Index(key));
                }
            }
            if (m_i < m_text.size() && !IsSpace(m_text[m_i]) && m_text[m_i] != '.' &&
                m_text[m_i] != '[' && !lastQuoted)
            {
                throw KeyPathError("a key cannot have '" + std::string(1, m_text[m_i]) +
                                   "' (bare keys: letters, digits, '_', '-'; quote others)");
            }
            SkipSpace();
            if (m_i == m_text.size())
            {
                return p;
            }
            if (m_text[m_i] != '.')
            {
                throw KeyPathError("'.' expected after `" + p.keys.back() + "`, found '" +
                                   std::string(1, m_text[m_i]) + "'");
            }
            ++m_i;
            SkipSpace();
            if (m_i == m_text.size())
            {
                throw KeyPathError("the key path ends with '.'");
            }
        }
    }

  private:
    void SkipSpace()
    {
        while (m_i < m_text.size() && IsSpace(m_text[m_i]))
        {
            ++m_i;
        }
    }

    /** One key: quoted, or bare (free-form: any character but spaces, '.' and quotes). */
    std::string Segment(bool freeForm, bool* quoted)
    {
        std::string key;
        const char open = m_text[m_i];
        if (open == '"' || open == '\'')
        {
            if (quoted)
            {
                *quoted = true;
            }
            const size_t start = m_i++;
            while (true)
            {
                if (m_i == m_text.size())
                {
                    throw KeyPathError("unterminated quoted key " + m_text.substr(start));
                }
                const char c = m_text[m_i++];
                if (c == open)
                {
                    break;
                }
                if (open == '"' && c == '\\')
                {
                    if (m_i == m_text.size() || (m_text[m_i] != '"' && m_text[m_i] != '\\'))
                    {
                        throw KeyPathError("a quoted key may escape only \\\" and \\\\");
                    }
                    key += m_text[m_i++];
                    continue;
                }
                key += c;
            }
            if (key.empty())
            {
                throw KeyPathError("an empty quoted key");
            }
            return key;
        }
        while (m_i < m_text.size())
        {
            const char c = m_text[m_i];
            const bool ok = freeForm ? !IsSpace(c) && c != '.' && c != '"' && c != '\''
                                     : IsBareChar(c);
            if (!ok)
            {
                break;
            }
            key += c;
            ++m_i;
        }
        if (key.empty())
        {
            throw KeyPathError(m_i == m_text.size() || m_text[m_i] == '.'
                                   ? "an empty key"
                                   : "a key cannot have '" + std::string(1, m_text[m_i]) +
                                         "' (bare keys: letters, digits, '_', '-'; quote others)");
        }
        return key;
    }

    /** `[N]` after a bare key, or -1. */
    long Index(const std::string& key)
    {
        if (m_i == m_text.size() || m_text[m_i] != '[')
        {
            return -1;
        }
        const size_t close = m_text.find(']', m_i);
        const std::string digits =
            close == std::string::npos ? "" : m_text.substr(m_i + 1, close - m_i - 1);
        if (!IsDigits(digits))
        {
            const size_t end = close == std::string::npos ? m_text.size() : close + 1;
            throw KeyPathError("malformed index in `" + key + m_text.substr(m_i, end - m_i) +
                               "`: expected NAME[N] with N a non-negative integer of at most 6 "
                               "digits, e.g. failures[0].at_us");
        }
        m_i = close + 1;
        return std::stol(digits);
    }

    const std::string& m_text;
    size_t m_i = 0;
};

} // namespace

std::string
KeyPath::Text() const
{
    std::string s;
    for (size_t k = 0; k < keys.size(); ++k)
    {
        const bool freeForm = (k == 1 && keys[0] == "ns3") ||
                              (k == 2 && keys[0] == "lb" && keys[1] == "attributes");
        s += (k ? "." : "") + (freeForm ? keys[k] : QuoteKey(keys[k]));
        if (index[k] >= 0)
        {
            s += "[" + std::to_string(index[k]) + "]";
        }
    }
    return s;
}

KeyPath
ParseKeyPath(const std::string& text)
{
    return Reader(text).Read();
}

toml::table
ParseOverrideValue(const std::string& text)
{
    const std::string value = Trim(text);
    try
    {
        toml::table v = toml::parse(std::string_view("v = " + value));
        if (v.size() == 1 && v.get("v") != nullptr)
        {
            return v;
        }
    }
    catch (const toml::parse_error&)
    {
    }
    toml::table v;
    v.insert("v", value);
    return v;
}

} // namespace tusk
