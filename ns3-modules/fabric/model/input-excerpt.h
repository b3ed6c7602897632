/*
 * tusk: quoting a piece of an input in an error message (ns3::InputError).
 */
#ifndef TUSK_INPUT_EXCERPT_H
#define TUSK_INPUT_EXCERPT_H

#include <cstddef>
#include <string>

namespace ns3
{

/**
 * \brief A piece of an input for an error message: in double quotes (or `quote`), at most
 * `maxBytes` bytes of `text` (then "..."), with the quote and '\\' escaped and control
 * characters as \xNN.
 *
 * Readers quote the offending token through this, never a whole line: a file named by mistake
 * where an input was expected (a system file, a key file) must not have its first line
 * repeated in an error, and a control character must not reach the terminal.
 */
inline std::string
QuoteExcerpt(const std::string& text, size_t maxBytes = 24, char quote = '"')
{
    static const char* const kHex = "0123456789abcdef";
    std::string out(1, quote);
    for (size_t i = 0; i < text.size() && i < maxBytes; ++i)
    {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7f)
        {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
        else
        {
            if (c == static_cast<unsigned char>(quote) || c == '\\')
            {
                out += '\\';
            }
            out += static_cast<char>(c);
        }
    }
    return out + quote + (text.size() > maxBytes ? "..." : "");
}

/**
 * \brief A token of a file as an InputError key: itself when it is a plain name (at most 24
 * letters, digits, '_', '-', '.' or '>', as field names and SRC->DST pairs are), else "" (a
 * line of a file that is not the input expected; the message quotes it with QuoteExcerpt).
 */
inline std::string
PlainKey(const std::string& token)
{
    if (token.size() > 24)
    {
        return "";
    }
    for (char c : token)
    {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                        c == '_' || c == '-' || c == '.' || c == '>';
        if (!ok)
        {
            return "";
        }
    }
    return token;
}

} // namespace ns3

#endif
