// A scenario that names a file that is not a tusk input (a system file, a file of secrets) as
// one of its inputs fails with exit 2, and the error quotes at most a bounded piece of the
// offending token (ns3::QuoteExcerpt, fabric/model/input-excerpt.h), never the file's line,
// and no control character of it reaches the terminal.

#include "cli-helpers.h"

#include "fabric/model/input-excerpt.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace fs = std::filesystem;
using tusk_test::Scratch;
using tusk_test::Slurp;
using tusk_test::Tusk;
using tusk_test::Write;

namespace
{

/** The [topology] table of the small scenario (everything before its [workload]). */
const std::string kTopology = [] {
    const std::string s = tusk_test::kSmallScenario;
    const size_t from = s.find("[topology]");
    return s.substr(from, s.find("[workload]") - from);
}();

/** How a scenario names an input file PATH, one per reader. */
struct Use
{
    std::string what;
    std::string scenario; // "@" stands for the path
    std::string args;     // extra command-line arguments ("@" likewise)
    int status = 2;       // 0: the run goes on, its warnings printed
};

std::vector<Use>
Uses()
{
    const std::string perm = kTopology + "[workload]\nkind = \"permutation\"\nbytes = \"100KB\"\n";
    return {
        {"htsim .cm", kTopology + "[workload]\nkind = \"htsim\"\nfile = \"@\"\n", ""},
        {"flow-size CDF", perm + "[[background]]\ncdf_file = \"@\"\n", ""},
        {"htsim .topo",
         "[topology]\nkind = \"htsim\"\nfile = \"@\"\n[workload]\nkind = \"permutation\"\nbytes = \"100KB\"\n", ""},
        {"HPCC topology.txt",
         "[topology]\nkind = \"hpcc\"\nfile = \"@\"\n[workload]\nkind = \"permutation\"\nbytes = \"100KB\"\n", ""},
        {"HPCC flow.txt", kTopology + "[workload]\nkind = \"hpcc\"\nfile = \"@\"\n", ""},
        {"SimAI workload", perm + "[[jobs]]\nfile = \"@\"\n", ""},
        // None of its lines starts with a key the HPCC simulator reads: not a config, refused.
        {"HPCC config.txt", perm, "--hpcc-config '@'"},
    };
}

std::string
Substitute(std::string text, const std::string& path)
{
    for (size_t at; (at = text.find('@')) != std::string::npos;)
    {
        text.replace(at, 1, path);
    }
    return text;
}

/** Run each use of `file`; the error must be exit 2 and must not contain `line`. */
void
CheckNotQuoted(const fs::path& d, const fs::path& file, const std::string& line)
{
    for (const auto& u : Uses())
    {
        CAPTURE(u.what, file);
        Write(d / "s.toml", "name = \"x\"\n" + Substitute(u.scenario, file.string()));
        fs::remove_all(d / "out");
        // Not quiet: warnings (an HPCC config's unknown keys) are printed too.
        const auto o = Tusk("run " + (d / "s.toml").string() + " " +
                            Substitute(u.args, file.string()) + " --out " + (d / "out").string());
        INFO(o.output);
        CHECK(o.status == u.status);
        CHECK(o.output.find(u.status == 2 ? "tusk: error: " : "tusk: warning: ") != std::string::npos);
        CHECK(o.output.find(line) == std::string::npos);
        for (char c : o.output)
        {
            CHECK((c == '\n' || static_cast<unsigned char>(c) >= 0x20));
        }
        CHECK(fs::exists(d / "out") == (u.status == 0));
    }
}

} // namespace

TEST_CASE("input errors never repeat a line of a file that is not a tusk input",
          "[component][cli][input]")
{
    auto d = Scratch("input-excerpt");
    // A file of secrets: its first line must not appear in any error.
    const std::string secret = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    Write(d / "secrets.env", secret + "\nsecond line\n");
    CheckNotQuoted(d, d / "secrets.env", secret);
    // One long word, the other shape of a secret (and of /etc/passwd's lines).
    const std::string word = "ghp_0123456789abcdefghijklmnopqrstuvwxyzABCD";
    Write(d / "token", word + "\n");
    CheckNotQuoted(d, d / "token", word);
    // A terminal escape in the file does not reach the terminal.
    Write(d / "escape", "\x1b]0;pwned\x07\x1b[2J 1 2\n");
    CheckNotQuoted(d, d / "escape", "\x1b");
    // A system file.
    std::ifstream passwd("/etc/passwd");
    std::string first;
    if (passwd && std::getline(passwd, first) && first.size() > 24)
    {
        CheckNotQuoted(d, "/etc/passwd", first);
    }
}

TEST_CASE("QuoteExcerpt: bounded, escaped, quoted", "[component][input]")
{
    CHECK(ns3::QuoteExcerpt("100Gbps") == "\"100Gbps\"");
    CHECK(ns3::QuoteExcerpt("a\"b\\c") == "\"a\\\"b\\\\c\"");
    CHECK(ns3::QuoteExcerpt(std::string("a\nb\x1b", 4)) == "\"a\\x0ab\\x1b\"");
    CHECK(ns3::QuoteExcerpt(std::string(30, 'x')) == "\"" + std::string(24, 'x') + "\"...");
    CHECK(ns3::QuoteExcerpt("abcdef", 3) == "\"abc\"...");
    CHECK(ns3::QuoteExcerpt("it's", 24, '\'') == "'it\\'s'");
}

TEST_CASE("a scenario value with control characters is echoed escaped in the error",
          "[component][input]")
{
    // A terminal escape in a string value (valid TOML) must not reach the terminal.
    const fs::path d = Scratch("input-escape");
    Write(d / "bad.toml", "[lb]\npolicy = \"\\u001b]0;pwn\\u0007\\u001b[31mred\"\n");
    const auto o = Tusk("run " + (d / "bad.toml").string() + " -q --out " + (d / "r").string());
    CHECK(o.status == 2);
    CHECK(o.output.find('\x1b') == std::string::npos);
    CHECK(o.output.find('\x07') == std::string::npos);
    CHECK_THAT(o.output, Catch::Contains("\\u001b[31mred"));
    CHECK_FALSE(fs::exists(d / "r"));
}

} // namespace TUSK_TEST_FILE
