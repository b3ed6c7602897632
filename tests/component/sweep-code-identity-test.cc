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
#include <fcntl.h>
#include <sys/stat.h>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

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

namespace
{

/** ctime (ns since the epoch) of a file: what the hash cache checks and cannot be set back. */
int64_t
CtimeNs(const fs::path& p)
{
    struct stat st
    {
    };
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return static_cast<int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
}

std::string
Sha256Sum(const fs::path& p)
{
    return Shell("sha256sum " + p.string()).output.substr(0, 64);
}

size_t
Entries(const fs::path& dir)
{
    if (!fs::exists(dir))
    {
        return 0;
    }
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

} // namespace

TEST_CASE("Sha256FileHexCached: a cached hash serves only the same file unchanged, a changed "
          "file is hashed again, a file not yet settled is not cached",
          "[component][sweep]")
{
    auto d = Scratch("hash-cache");
    const fs::path f = d / "lib.so";
    const fs::path cache = d / "cache";
    Write(f, std::string(4096, 'a'));
    const std::string a = Sha256Sum(f);
    const int64_t settled = CtimeNs(f) + tusk::kHashCacheSettleNs + 1'000'000;

    // Not settled (hashed within the settling time of its last change): correct, not cached.
    CHECK(tusk::Sha256FileHexCached(f.string(), cache.string(), CtimeNs(f)) == a);
    CHECK(Entries(cache) == 0);
    // Settled: cached, one entry.
    CHECK(tusk::Sha256FileHexCached(f.string(), cache.string(), settled) == a);
    REQUIRE(Entries(cache) == 1);
    const fs::path entry = fs::directory_iterator(cache)->path();

    // The entry is what is read: a forged hash in it is returned while the file is the same
    // (this is how the cases below show that a changed file does not read it).
    const std::string text = Slurp(entry);
    const std::string forged = std::string(64, '0');
    Write(entry, text.substr(0, text.size() - 65) + forged + "\n");
    CHECK(tusk::Sha256FileHexCached(f.string(), cache.string(), settled) == forged);

    // Rewritten in place, same size, the modification time set back to the cached one: its
    // ctime moved, so it is hashed again.
    struct stat st
    {
    };
    REQUIRE(::stat(f.c_str(), &st) == 0);
    Write(f, std::string(4096, 'b'));
    const timespec times[2] = {st.st_atim, st.st_mtim};
    REQUIRE(::utimensat(AT_FDCWD, f.c_str(), times, 0) == 0);
    const std::string b = Sha256Sum(f);
    REQUIRE(b != a);
    CHECK(tusk::Sha256FileHexCached(f.string(), cache.string(), settled) == b);
    // Not yet settled after that change, so the forged entry is still there but unused.
    CHECK(tusk::Sha256FileHexCached(f.string(), cache.string(), CtimeNs(f)) == b);

    // Replaced by another file (rename: another inode, or a reused one with a new ctime).
    Write(d / "new.so", std::string(4096, 'c'));
    fs::rename(d / "new.so", f);
    const std::string c = Sha256Sum(f);
    CHECK(tusk::Sha256FileHexCached(f.string(), cache.string(), CtimeNs(f) + 2 * tusk::kHashCacheSettleNs) == c);
    CHECK(tusk::Sha256FileHexCached(f.string(), cache.string(), CtimeNs(f) + 2 * tusk::kHashCacheSettleNs) == c);

    // A malformed entry, or no cache at all: hashed.
    for (const auto& e : fs::directory_iterator(cache))
    {
        Write(e.path(), "tusk file-sha256 1\ngarbage\n");
    }
    CHECK(tusk::Sha256FileHexCached(f.string(), cache.string(), 0) == c);
    CHECK(tusk::Sha256FileHexCached(f.string(), "", 0) == c);
}

TEST_CASE("CodeIdentity: the same code_hash with the hash cache, without it and from it",
          "[component][sweep]")
{
    auto d = Scratch("code-identity-cache");
    Write(d / "base.toml", tusk_test::kSmallScenario);
    const fs::path cache = d / "cache";
    const std::string run = fs::path(TUSK_BINARY_DIR).string() + "/bin/tusk run " +
                            (d / "base.toml").string() + " -q --out ";
    REQUIRE(Shell("TUSK_HASH_CACHE= " + run + (d / "none").string()).status == 0);
    REQUIRE(Shell("TUSK_HASH_CACHE=" + cache.string() + " " + run + (d / "first").string())
                .status == 0);
    REQUIRE(Shell("TUSK_HASH_CACHE=" + cache.string() + " " + run + (d / "second").string())
                .status == 0);
    const std::string none = CodeHash(d / "none" / "manifest.json");
    CHECK(none.size() == 64);
    CHECK(CodeHash(d / "first" / "manifest.json") == none);
    CHECK(CodeHash(d / "second" / "manifest.json") == none);
}

} // namespace TUSK_TEST_FILE
