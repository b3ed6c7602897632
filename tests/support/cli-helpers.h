/*
 * Helpers of the tests that run the `tusk` command as a user would: run it, collect its output
 * and exit status, make scratch directories and files.
 */
#ifndef TUSK_TEST_CLI_HELPERS_H
#define TUSK_TEST_CLI_HELPERS_H

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <sys/wait.h>

namespace tusk_test
{

/** A small scenario for command-line tests: a permutation of 200 KB on a 4-host leaf-spine. */
inline const char* const kSmallScenario = R"(name = "small"
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
host_link_gbps = 100
fabric_link_gbps = 100
[workload]
kind = "permutation"
bytes = "200KB"
)";

struct Outcome
{
    int status;
    std::string output; // stdout + stderr
};

/** Run a shell command line; its exit status (-1 if it did not exit) and output. */
inline Outcome
Shell(const std::string& cmd)
{
    Outcome o{0, ""};
    FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
    REQUIRE(p);
    std::array<char, 4096> buf{};
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0)
    {
        o.output.append(buf.data(), n);
    }
    const int raw = ::pclose(p);
    o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    return o;
}

/** `tusk ARGS` (the binary of this build). */
inline Outcome
Tusk(const std::string& args)
{
    return Shell(std::string(TUSK_BINARY_DIR) + "/bin/tusk " + args);
}

/**
 * An empty scratch directory in this build's tree: two checkouts testing at once (worktrees
 * on one machine) would otherwise empty each other's directories under /tmp.
 */
inline std::filesystem::path
Scratch(const std::string& name)
{
    std::filesystem::path d =
        std::filesystem::path(TUSK_BINARY_DIR) / "test-scratch" / ("tusk-cli-test-" + name);
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
}

inline void
Write(const std::filesystem::path& p, const std::string& text)
{
    std::ofstream(p) << text;
}

/** A whole file as a string. */
inline std::string
Slurp(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/** The lines of `text` (without their '\n'). */
inline std::vector<std::string>
Lines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
    {
        out.push_back(l);
    }
    return out;
}

/** Replace DIR/links.csv by only its name columns (link_id, from, to). */
inline void
KeepLinkNames(const std::filesystem::path& dir)
{
    std::ifstream in(dir / "links.csv");
    std::string out, line;
    while (std::getline(in, line))
    {
        std::stringstream ss(line);
        std::string id, from, to;
        std::getline(ss, id, ',');
        std::getline(ss, from, ',');
        std::getline(ss, to, ',');
        out += id + "," + from + "," + to + "\n";
    }
    in.close();
    std::ofstream(dir / "links.csv") << out;
}

} // namespace tusk_test

#endif
