// AtomicFile (results-dir.h): a file written in pieces is invisible under its name until
// Commit, and one never committed leaves nothing behind. WriteFileAtomic and the streamed
// rows (row-stream.h) write through it.

#include "results/results-dir.h"
#include "scratch-dir.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <unistd.h>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace
{

namespace fs = std::filesystem;

std::string
Slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

} // namespace

TEST_CASE("an AtomicFile written in pieces replaces its path only when committed",
          "[unit][results]")
{
    const tusk_test::ScratchDir scratch("atomic-file-commit");
    const fs::path& d = scratch.Root();
    tusk::WriteFileAtomic((d / "a.csv").string(), "old\n");
    {
        tusk::AtomicFile f((d / "a.csv").string());
        f.Write("x,y\n");
        f.Write(std::string("1,2\n"));
        f.Write("3,4\nrest", 4);
        CHECK(Slurp(d / "a.csv") == "old\n"); // the previous file until Commit
        f.Commit();
    }
    CHECK(Slurp(d / "a.csv") == "x,y\n1,2\n3,4\n");
    CHECK(std::distance(fs::directory_iterator(d), fs::directory_iterator()) == 1); // no .tmp-
}

TEST_CASE("an AtomicFile not committed leaves the path as it was and no temporary file",
          "[unit][results]")
{
    const tusk_test::ScratchDir scratch("atomic-file-abandon");
    const fs::path& d = scratch.Root();
    tusk::WriteFileAtomic((d / "a.csv").string(), "old\n");
    {
        tusk::AtomicFile f((d / "a.csv").string());
        f.Write("new\n");
        CHECK(fs::exists(d / ("a.csv.tmp-" + std::to_string(::getpid()))));
    } // an exception on the way: destroyed uncommitted
    CHECK(Slurp(d / "a.csv") == "old\n");
    CHECK(std::distance(fs::directory_iterator(d), fs::directory_iterator()) == 1);
    // A folder that cannot hold it: WriteError naming the path (exit 3 in tusk).
    const std::string missing = (d / "no-such-folder" / "b.csv").string();
    CHECK_THROWS_WITH(tusk::AtomicFile(missing), missing + ": No such file or directory");
}

} // namespace TUSK_TEST_FILE
