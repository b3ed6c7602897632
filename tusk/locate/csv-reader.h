/*
 * tusk locate: a CSV file read row by row, columns looked up by header name, every error an
 * ns3::InputError naming the file, line and column. A UTF-8 byte-order mark before the header
 * is skipped (since 2026-12-06; it made the first column "missing"); a UTF-16 one is refused,
 * and so is a line with a NUL byte (UTF-16 saved without a mark).
 */
#ifndef TUSK_LOCATE_CSV_READER_H
#define TUSK_LOCATE_CSV_READER_H

#include "fabric/model/input-error.h"

#include <boost/tokenizer.hpp>
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <istream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tusk
{
namespace locate
{

/** One CSV file read row by row, with columns looked up by header name. */
class CsvReader
{
  public:
    /** Read `in`, the content of the file `path` (which names it in messages). */
    CsvReader(std::string path, std::istream& in)
        : m_path(std::move(path)),
          m_in(in)
    {
        std::vector<std::string> header;
        if (!Next(header))
        {
            throw ns3::InputError(m_path, 1, "", "empty file: expected a CSV header line");
        }
        for (size_t i = 0; i < header.size(); ++i)
        {
            // Rows are checked against the number of columns: a name given twice would make
            // that count short of the header's, and a row short of a column read.
            if (!m_columns.emplace(header[i], i).second)
            {
                throw ns3::InputError(m_path, 1, header[i], "the column appears twice in the header");
            }
        }
    }

    const std::string& Path() const { return m_path; }
    unsigned Line() const { return m_line; }

    /** The index of a column, or nothing. */
    std::optional<size_t> Find(const std::string& name) const
    {
        auto it = m_columns.find(name);
        return it == m_columns.end() ? std::nullopt : std::optional<size_t>(it->second);
    }

    size_t Require(const std::string& name, const std::string& why) const
    {
        auto c = Find(name);
        if (!c)
        {
            throw ns3::InputError(m_path, 1, name, "missing column; " + why);
        }
        return *c;
    }

    /** The next row's fields; false at the end of the file. */
    bool Next(std::vector<std::string>& fields)
    {
        std::string line;
        while (std::getline(m_in, line))
        {
            ++m_line;
            if (m_line == 1)
            {
                StripByteOrderMark(line);
            }
            if (line.find('\0') != std::string::npos)
            {
                // UTF-16 saved without a byte-order mark has a NUL beside every ASCII
                // character: no column name would match, and "missing column" would mislead.
                throw ns3::InputError(m_path, m_line, "",
                                      "contains NUL bytes: not UTF-8 text (UTF-16 saved "
                                      "without a byte-order mark?); save the file as UTF-8");
            }
            if (!line.empty() && line.back() == '\r')
            {
                line.pop_back();
            }
            if (line.empty())
            {
                continue;
            }
            fields.clear();
            try
            {
                boost::tokenizer<boost::escaped_list_separator<char>> tok(line);
                fields.assign(tok.begin(), tok.end());
            }
            catch (const boost::escaped_list_error& e)
            {
                throw ns3::InputError(m_path, m_line, "", std::string("malformed CSV: ") + e.what());
            }
            if (m_line > 1 && fields.size() != m_columns.size())
            {
                throw ns3::InputError(m_path, m_line, "",
                                 fmt::format("{} fields, but the header has {} columns",
                                             fields.size(), m_columns.size()));
            }
            return true;
        }
        return false;
    }

    template <typename T>
    T Integer(const std::vector<std::string>& f, size_t col, const std::string& name) const
    {
        T v{};
        const std::string& s = f[col];
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size() || s.empty())
        {
            throw ns3::InputError(m_path, m_line, name,
                             fmt::format("expected a non-negative integer, got \"{}\"", s));
        }
        return v;
    }

    /** A number; NaN for an empty field when `emptyOk`. */
    double Real(const std::vector<std::string>& f, size_t col, const std::string& name,
                bool emptyOk = false) const
    {
        const std::string& s = f[col];
        if (s.empty() && emptyOk)
        {
            return std::numeric_limits<double>::quiet_NaN();
        }
        double v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size() || s.empty() || !std::isfinite(v) ||
            v < 0)
        {
            throw ns3::InputError(m_path, m_line, name,
                             fmt::format("expected a non-negative number{}, got \"{}\"",
                                         emptyOk ? " or nothing" : "", s));
        }
        return v;
    }

  private:
    /** A UTF-8 byte-order mark (EF BB BF, which spreadsheet programs write at the start of a
     *  CSV saved "as UTF-8") is not part of the first column's name: removed, as the importers'
     *  InputTextReader removes it. A UTF-16 mark says the whole file is in another encoding,
     *  which no column name would match: refused naming it. */
    void StripByteOrderMark(std::string& line) const
    {
        if (line.compare(0, 3, "\xEF\xBB\xBF") == 0)
        {
            line.erase(0, 3);
        }
        else if (line.compare(0, 2, "\xFF\xFE") == 0 || line.compare(0, 2, "\xFE\xFF") == 0)
        {
            throw ns3::InputError(m_path, 1, "",
                                  "starts with a UTF-16 byte-order mark: expected UTF-8 (or "
                                  "ASCII) text; save the file as UTF-8");
        }
    }

    std::string m_path;
    std::istream& m_in;
    unsigned m_line = 0;
    std::map<std::string, size_t> m_columns;
};

} // namespace locate
} // namespace tusk

#endif
