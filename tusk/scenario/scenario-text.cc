#include "scenario/scenario-text.h"

#include <fmt/format.h>

#include "scenario/scenario-toml.h"

#include "fabric/helper/closest-name.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>

namespace tusk
{

namespace
{

/** v = v * mul + add, false on overflow. */
bool
CheckedMulAdd(unsigned __int128& v, unsigned __int128 mul, unsigned __int128 add)
{
    const unsigned __int128 max = ~static_cast<unsigned __int128>(0);
    if (mul != 0 && v > (max - add) / mul)
    {
        return false;
    }
    v = v * mul + add;
    return true;
}

} // namespace


std::string
Quote(const std::string& s)
{
    std::string out = "\"";
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
            out += c;
        }
        else if (c == '\n')
        {
            out += "\\n";
        }
        else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        {
            // Other control characters as \u00XX (valid TOML and JSON): a value echoed in an
            // error never drives the terminal.
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        }
        else
        {
            out += c;
        }
    }
    return out + "\"";
}

std::string
Trim(const std::string& s)
{
    const char* ws = " \t\r\n";
    auto b = s.find_first_not_of(ws);
    if (b == std::string::npos)
    {
        return "";
    }
    auto e = s.find_last_not_of(ws);
    return s.substr(b, e - b + 1);
}

std::string
FormatDouble(double v)
{
    if (std::isnan(v))
    {
        return "nan";
    }
    if (std::isinf(v))
    {
        return v > 0 ? "inf" : "-inf";
    }
    char buf[64];
    if (v == std::floor(v) && std::fabs(v) < 1e15)
    {
        std::snprintf(buf, sizeof(buf), "%.0f", v);
        return buf;
    }
    for (int precision = 1; precision <= 17; ++precision)
    {
        std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
        if (std::strtod(buf, nullptr) == v)
        {
            break;
        }
    }
    return buf;
}

std::string
OneOf(const std::vector<std::string>& values)
{
    std::string s;
    for (size_t i = 0; i < values.size(); ++i)
    {
        if (i > 0)
        {
            s += (i + 1 == values.size()) ? " or " : ", ";
        }
        s += Quote(values[i]);
    }
    return s;
}

std::string
KeyStem(const std::string& key)
{
    static const std::vector<std::string> kUnits = {"ps", "ns", "us", "ms", "s", "sec",
                                                    "gbps", "mbps", "bps", "bytes", "byte",
                                                    "b", "kb", "kib", "mb", "mib", "gb", "gib"};
    auto us = key.rfind('_');
    if (us != std::string::npos && us > 0)
    {
        std::string suffix = key.substr(us + 1);
        std::transform(suffix.begin(), suffix.end(), suffix.begin(), [](unsigned char c) {
            return static_cast<char>(std::tolower(c));
        });
        if (std::find(kUnits.begin(), kUnits.end(), suffix) != kUnits.end())
        {
            return key.substr(0, us);
        }
    }
    return key;
}

std::string
ClosestKey(const std::string& key, const std::vector<std::string>& valid)
{
    std::vector<std::string> sameStem;
    for (const auto& v : valid)
    {
        if (KeyStem(v) == KeyStem(key))
        {
            sameStem.push_back(v);
        }
    }
    return ns3::ClosestName(key, sameStem.empty() ? valid : sameStem);
}

nlohmann::json
InUnit(uint64_t v, uint64_t scale)
{
    if (v % scale == 0)
    {
        return v / scale;
    }
    return static_cast<double>(v) / static_cast<double>(scale);
}

nlohmann::json
JsonNumber(double v)
{
    constexpr double kExact = 9007199254740992.0; // 2^53
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < kExact)
    {
        return static_cast<int64_t>(v);
    }
    return v;
}

std::string
BinarySizeNote(uint64_t bytes)
{
    static const char* const kUnits[] = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < 4; ++i)
    {
        const uint64_t unit = 1ULL << (10 * (4 - i));
        if (bytes >= unit && bytes % unit == 0)
        {
            return "(" + std::to_string(bytes / unit) + " " + kUnits[i] + ")";
        }
    }
    return "";
}

std::string
SizeBoundText(uint64_t bytes)
{
    static const char* const kUnits[] = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < 4; ++i)
    {
        const uint64_t unit = 1ULL << (10 * (4 - i));
        if (bytes >= unit && bytes % unit == 0)
        {
            return std::to_string(bytes / unit) + kUnits[i];
        }
    }
    return std::to_string(bytes);
}

std::string
RangeText(uint64_t lo, uint64_t hi, uint64_t scale, bool zeroAllowed, bool article)
{
    const auto inUnit = [scale](uint64_t v) {
        return FormatDouble(static_cast<double>(v) / static_cast<double>(scale));
    };
    const std::string range = inUnit(lo) + ".." + inUnit(hi);
    const std::string number = article ? "a number in " : "number ";
    return (zeroAllowed && lo > 0 ? "0 or " : "") + number + range;
}

bool
ParseSizeString(const std::string& text, uint64_t& bytes, std::string& why)
{
    const std::string s = Trim(text);
    if (s.empty())
    {
        why = "empty";
        return false;
    }
    if (s[0] == '-')
    {
        why = "a size cannot be negative";
        return false;
    }
    size_t i = 0;
    auto isDigit = [&](size_t j) { return j < s.size() && s[j] >= '0' && s[j] <= '9'; };
    unsigned __int128 mantissa = 0; // all digits, the decimal point removed
    unsigned __int128 divisor = 1;  // 10^(digits after the point)
    size_t intDigits = 0;
    while (isDigit(i))
    {
        if (!CheckedMulAdd(mantissa, 10, s[i] - '0'))
        {
            why = "too large";
            return false;
        }
        ++i;
        ++intDigits;
    }
    if (intDigits == 0)
    {
        why = "a number must come first";
        return false;
    }
    if (i < s.size() && s[i] == '.')
    {
        ++i;
        size_t fracDigits = 0;
        while (isDigit(i))
        {
            if (!CheckedMulAdd(mantissa, 10, s[i] - '0') || !CheckedMulAdd(divisor, 10, 0))
            {
                why = "too many digits";
                return false;
            }
            ++i;
            ++fracDigits;
        }
        if (fracDigits == 0)
        {
            why = "malformed number: digits must follow the decimal point";
            return false;
        }
    }
    if (i < s.size() && (s[i] == '.' || s[i] == ',' || s[i] == '_'))
    {
        why = "malformed number " + Quote(s.substr(0, s.find_first_not_of("0123456789.,_")));
        return false;
    }
    while (i < s.size() && s[i] == ' ')
    {
        ++i;
    }
    const std::string unit = s.substr(i);
    static const std::map<std::string, uint64_t> kUnits = {
        {"", 1},
        {"B", 1},
        {"kB", 1000ULL},
        {"KB", 1000ULL},
        {"MB", 1000ULL * 1000},
        {"GB", 1000ULL * 1000 * 1000},
        {"TB", 1000ULL * 1000 * 1000 * 1000},
        {"KiB", 1ULL << 10},
        {"MiB", 1ULL << 20},
        {"GiB", 1ULL << 30},
        {"TiB", 1ULL << 40},
    };
    auto it = kUnits.find(unit);
    if (it == kUnits.end())
    {
        why = "unknown unit " + Quote(unit) + "; units are B, kB, MB, GB, TB, KiB, MiB, GiB, TiB";
        return false;
    }
    unsigned __int128 total = mantissa;
    if (!CheckedMulAdd(total, it->second, 0))
    {
        why = "too large";
        return false;
    }
    if (total % divisor != 0)
    {
        why = "not a whole number of bytes";
        return false;
    }
    total /= divisor;
    if (total > std::numeric_limits<uint64_t>::max())
    {
        why = "too large";
        return false;
    }
    bytes = static_cast<uint64_t>(total);
    return true;
}

} // namespace tusk
