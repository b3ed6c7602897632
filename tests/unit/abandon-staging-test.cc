// AbandonActiveStaging, which the SIGINT/SIGTERM handler of `tusk` calls, removes the live
// staging folder with system calls only (results-dir.cc RemoveTreeAt; std::filesystem's
// remove_all allocated, and an interrupt inside malloc aborted there and left the folder: 6 of
// ~670 random kills). It must remove a tree deeper and wider than one getdents64 buffer, leave
// the previous results and everything beside them alone, and do nothing once the folder is gone.

#include "results/results-dir.h"
#include "scratch-dir.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace fs = std::filesystem;

TEST_CASE("AbandonActiveStaging removes a staging tree of many entries and sub-folders, and "
          "nothing else",
          "[unit][results]")
{
    const tusk_test::ScratchDir scratch("abandon-staging");
    const fs::path& root = scratch.Root();
    std::ofstream(root / "beside.txt") << "kept\n";
    const std::string out = (root / "out").string();
    std::string staging;
    {
        tusk::StagedResults staged(out, "run");
        staging = staged.Path();
        // 300 files of long names (more than one 4 KiB getdents64 buffer) and nested folders.
        for (int i = 0; i < 300; ++i)
        {
            std::ofstream(fs::path(staging) / ("a-rather-long-file-name-for-the-buffer-" +
                                               std::to_string(i) + ".csv"))
                << i << "\n";
        }
        fs::path deep = staging;
        for (int level = 0; level < 5; ++level)
        {
            deep /= "sub" + std::to_string(level);
            fs::create_directories(deep);
            std::ofstream(deep / "f.txt") << level << "\n";
        }
        REQUIRE(fs::exists(staging));
        tusk::AbandonActiveStaging();
        CHECK(!fs::exists(staging));
        CHECK(!fs::exists(out + ".lock"));
        CHECK(fs::exists(root / "beside.txt"));
        CHECK(!fs::exists(out)); // nothing was committed
        tusk::AbandonActiveStaging(); // the folder is gone: nothing to do, no error
    } // the destructor finds nothing left
    CHECK(fs::exists(root / "beside.txt"));
    int left = 0;
    for (const auto& e : fs::directory_iterator(root))
    {
        left += e.path().filename() != "beside.txt";
    }
    CHECK(left == 0);
}

} // namespace TUSK_TEST_FILE
