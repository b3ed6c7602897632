// Resuming a sweep keeps only results made by the same code (docs/sweeps.md, "Resuming"):
// every manifest records the binary's code identity (`code_hash`, CodeIdentity: SHA-256 of the
// executable and tusk's libraries); a run whose manifest has another one (edited, missing, or
// made by a copy of the binary with one byte appended) is run again, and the sweep says how
// many were.

#include "cli-helpers.h"
#include "cli/code-identity.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>

namespace fs = std::filesystem;
using tusk_test::Scratch;
using tusk_test::Shell;
using tusk_test::Slurp;
using tusk_test::Tusk;
using tusk_test::Write;

namespace
{

ino_t
Inode(const fs::path& p)
{
    struct stat st
    {
    };
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return st.st_ino;
}

std::string
CodeHash(const fs::path& manifest)
{
    return nlohmann::json::parse(Slurp(manifest)).value("code_hash", "");
}

} // namespace

TEST_CASE("tusk sweep: results made by other code are run again and counted",
          "[component][sweep]")
{
    auto d = Scratch("sweep-code-identity");
    Write(d / "base.toml", tusk_test::kSmallScenario);
    Write(d / "s.toml", "name = \"c\"\nscenario = \"base.toml\"\n[[axis]]\nkey = \"seed\"\n"
                        "values = [1, 2]\n");
    const fs::path root = d / "out";
    const std::string sweep = "sweep " + (d / "s.toml").string() + " -j 2 --out " + root.string();
    auto o = Tusk(sweep);
    INFO(o.output);
    REQUIRE(o.status == 0);
    const std::string code = CodeHash(root / "seed=1" / "manifest.json");
    CHECK(code.size() == 64);
    CHECK(code.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(CodeHash(root / "seed=2" / "manifest.json") == code);

    // Same binary: nothing runs, nothing is said about code.
    o = Tusk(sweep);
    INFO(o.output);
    CHECK(o.output.find("0 ran") != std::string::npos);
    CHECK(o.output.find("other code") == std::string::npos);

    // One manifest says other code made it: that run (only) runs again, and the sweep says so.
    {
        auto m = nlohmann::json::parse(Slurp(root / "seed=1" / "manifest.json"));
        m["code_hash"] = std::string(64, '0');
        Write(root / "seed=1" / "manifest.json", m.dump(2));
    }
    const ino_t kept = Inode(root / "seed=2" / "manifest.json");
    o = Tusk(sweep);
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(o.output.find("1 ran (1 ok") != std::string::npos);
    CHECK(o.output.find("1 skipped") != std::string::npos);
    CHECK(o.output.find("1 run(s) run again because their results were made by other code") !=
          std::string::npos);
    CHECK(CodeHash(root / "seed=1" / "manifest.json") == code);
    CHECK(Inode(root / "seed=2" / "manifest.json") == kept);

    // A manifest without code_hash (an older tusk wrote it) is other code too.
    {
        auto m = nlohmann::json::parse(Slurp(root / "seed=2" / "manifest.json"));
        m.erase("code_hash");
        Write(root / "seed=2" / "manifest.json", m.dump(2));
    }
    o = Tusk(sweep);
    INFO(o.output);
    CHECK(o.output.find("1 ran (1 ok") != std::string::npos);
    CHECK(o.output.find("1 run(s) run again") != std::string::npos);

    // The binary copied with one byte appended is other code: both runs again, and the
    // manifests then carry the copy's identity.
    const fs::path copy = d / "tusk-copy";
    fs::copy_file(fs::path(TUSK_BINARY_DIR) / "bin" / "tusk", copy);
    std::ofstream(copy, std::ios::app | std::ios::binary) << '\0';
    o = Shell(copy.string() + " " + sweep);
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(o.output.find("2 ran (2 ok") != std::string::npos);
    CHECK(o.output.find("2 run(s) run again") != std::string::npos);
    const std::string copyCode = CodeHash(root / "seed=1" / "manifest.json");
    CHECK(copyCode.size() == 64);
    CHECK(copyCode != code);
    // Back to the build's binary: the copy's results are other code in turn.
    o = Tusk(sweep + " -q");
    CHECK(o.output.find("2 run(s) run again") != std::string::npos);
    CHECK(CodeHash(root / "seed=1" / "manifest.json") == code);
}

TEST_CASE("CodeIdentity: one SHA-256 per process, the one written into manifests",
          "[component][sweep]")
{
    const std::string& a = tusk::CodeIdentity();
    CHECK(&a == &tusk::CodeIdentity()); // computed once
    CHECK(a.size() == 64);
    // The test binary is not tusk: a different executable, a different identity.
    auto d = Scratch("code-identity-unit");
    Write(d / "base.toml", tusk_test::kSmallScenario);
    REQUIRE(Tusk("run " + (d / "base.toml").string() + " -q --out " + (d / "r").string()).status == 0);
    CHECK(CodeHash(d / "r" / "manifest.json") != a);
    CHECK(tusk::Sha256FileHex((d / "base.toml").string()) ==
          Shell("sha256sum " + (d / "base.toml").string()).output.substr(0, 64));
}
