/*
 * tusk: input errors.
 *
 * Every reader of user input (scenario TOML, htsim .cm/.topo, HPCC files, --set values)
 * reports a problem by throwing InputError. The `tusk` command catches it, prints
 * "FILE:LINE: KEY: MESSAGE" and exits with status 2 before anything is written.
 */
#ifndef TUSK_INPUT_ERROR_H
#define TUSK_INPUT_ERROR_H

#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \brief A problem in user input: names the file, the 1-based line (0 = unknown),
 * the key or field, and what was expected.
 */
class InputError : public std::runtime_error
{
  public:
    InputError(std::string file, unsigned line, std::string key, std::string message)
        : std::runtime_error(Format(file, line, key, message)),
          m_file(std::move(file)),
          m_line(line),
          m_key(std::move(key)),
          m_message(std::move(message))
    {
    }

    const std::string& File() const { return m_file; }
    unsigned Line() const { return m_line; }
    const std::string& Key() const { return m_key; }
    const std::string& Message() const { return m_message; }

  private:
    static std::string Format(const std::string& file,
                              unsigned line,
                              const std::string& key,
                              const std::string& message)
    {
        std::string s = file.empty() ? std::string("<input>") : file;
        if (line > 0)
        {
            s += ":" + std::to_string(line);
        }
        s += ": ";
        if (!key.empty())
        {
            s += key + ": ";
        }
        return s + message;
    }

    std::string m_file;
    unsigned m_line;
    std::string m_key;
    std::string m_message;
};

} // namespace ns3

#endif
