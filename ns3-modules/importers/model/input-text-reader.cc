/*
 * tusk: reading other simulators' text inputs (input-text-reader.h).
 */
#include "importers/model/input-text-reader.h"

#include "fabric/model/input-error.h"
#include "fabric/model/input-excerpt.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ns3
{

std::vector<std::string>
SplitBlanks(const std::string& line)
{
    std::vector<std::string> out;
    auto blank = [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
    };
    size_t i = 0;
    const size_t n = line.size();
    while (i < n)
    {
        while (i < n && blank(line[i]))
        {
            ++i;
        }
        size_t j = i;
        while (j < n && !blank(line[j]))
        {
            ++j;
        }
        if (j > i)
        {
            out.push_back(line.substr(i, j - i));
        }
        i = j;
    }
    return out;
}

InputTextReader::InputTextReader(std::string path, const std::string& what, Comments comments)
    : m_path(std::move(path)),
      m_file(m_path, std::ios::in | std::ios::binary),
      m_in(&m_file),
      m_comments(comments)
{
    if (!m_file.is_open())
    {
        throw InputError(m_path, 0, "file", "cannot open the " + what + ": " + std::strerror(errno));
    }
}

InputTextReader::InputTextReader(std::istream& in, std::string path, Comments comments)
    : m_path(std::move(path)),
      m_in(&in),
      m_comments(comments)
{
}

bool
InputTextReader::ReadRawLine()
{
    std::string raw;
    if (!std::getline(*m_in, raw))
    {
        if (m_in->bad())
        {
            Fail("file", "read error (is it a directory or an unreadable file?)");
        }
        return false;
    }
    ++m_line;
    if (m_line == 1 && raw.compare(0, 3, "\xEF\xBB\xBF") == 0)
    {
        raw.erase(0, 3); // UTF-8 byte-order mark
    }
    if (raw.find('\0') != std::string::npos)
    {
        Fail("file", "NUL byte in line: not a text file");
    }
    if (m_comments == HASH_TO_END)
    {
        raw.erase(std::min(raw.find('#'), raw.size()));
    }
    m_tokens = SplitBlanks(raw);
    m_pos = 0;
    if (m_comments == HASH_COMMENTS && !m_tokens.empty() && m_tokens[0][0] == '#')
    {
        m_tokens.clear();
    }
    return true;
}

bool
InputTextReader::NextLine()
{
    while (ReadRawLine())
    {
        if (!m_tokens.empty())
        {
            return true;
        }
    }
    m_tokens.clear();
    m_pos = 0;
    return false;
}

std::string
InputTextReader::NextToken(const std::string& key, const std::string& what)
{
    while (m_pos >= m_tokens.size())
    {
        if (!ReadRawLine())
        {
            Fail(key, "the file ends; expected " + what);
        }
    }
    return m_tokens[m_pos++];
}

void
InputTextReader::NextRecord(const std::string& key, size_t fields, const std::string& what)
{
    if (!NextLine())
    {
        Fail(key, "the file ends; expected " + what);
    }
    if (m_tokens.size() != fields)
    {
        std::string line;
        for (const std::string& t : m_tokens)
        {
            line += (line.empty() ? "" : " ") + t;
        }
        Fail(key, "expected " + what + ": " + std::to_string(fields) + " field" +
                      (fields == 1 ? "" : "s") + " on the line; got " +
                      std::to_string(m_tokens.size()) + ": " + QuoteExcerpt(line));
    }
}

uint64_t
InputTextReader::NextUnsigned(const std::string& key, const std::string& what)
{
    const std::string t = NextToken(key, what);
    if (t.empty() || t.size() > 19 ||
        !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
    {
        Fail(key, "expected " + what + "; got " + QuoteExcerpt(t));
    }
    return std::stoull(t);
}

void
InputTextReader::Fail(const std::string& key, const std::string& message) const
{
    FailAt(m_line, key, message);
}

void
InputTextReader::FailAt(unsigned line, const std::string& key, const std::string& message) const
{
    throw InputError(m_path, line, key, message);
}

} // namespace ns3
