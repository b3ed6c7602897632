// Shared by the fuzz targets: hand libFuzzer's bytes to a reader that takes a file path.
//
// Such a reader gets each input written to one file in a private temporary directory and read
// back from there. (Readers with a text entry point, the scenario, sweep, suite and locate
// readers, are given the bytes directly: fuzz-scenario-toml.cc, tusk-input-harness.h.)
// A reader may throw ns3::InputError (bad input: the exit-2 path), nothing else: any other
// exception escapes to libFuzzer, which reports it as a crash.
#ifndef TUSK_FUZZ_INPUT_H
#define TUSK_FUZZ_INPUT_H

#include "fabric/model/input-error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tusk_fuzz
{

/** The private directory of this process, made on first use under $TMPDIR (or /tmp). */
inline const std::string&
Dir()
{
    static const std::string dir = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/tusk-fuzz-XXXXXX";
        if (!mkdtemp(templ.data()))
        {
            std::perror("tusk fuzz: mkdtemp");
            std::abort();
        }
        return templ;
    }();
    return dir;
}

/** Write `data` to Dir()/name and return the path. */
inline std::string
WriteFile(const std::string& name, const uint8_t* data, size_t size)
{
    const std::string path = Dir() + "/" + name;
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0)
    {
        std::perror("tusk fuzz: write");
        std::abort();
    }
    return path;
}

/** Run `read(path)` on the input written as `name`; bad input (InputError) is fine. */
template <typename F>
void
ReadAsFile(const std::string& name, const uint8_t* data, size_t size, F read)
{
    const std::string path = WriteFile(name, data, size);
    try
    {
        read(path);
    }
    catch (const ns3::InputError&)
    {
    }
}

} // namespace tusk_fuzz

#endif
