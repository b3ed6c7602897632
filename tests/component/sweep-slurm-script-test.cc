// The Slurm backend's generated shell (docs/sweeps.md, "The Slurm backend") with a fake `sbatch`
// on PATH that records what it is given and prints a job id: a results root with a newline is
// refused (exit 2, nothing written, nothing submitted) instead of becoming a command on the
// compute node; a root full of shell syntax ($(...), quotes, ';') is quoted, so running the
// recorded array script and the index job's --wrap command runs the runs and nothing else;
// resubmitting submits only the run whose results other code made, and says so.

#include "cli-helpers.h"
#include "sweep/sweep-slurm.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <vector>

// Its own names apart from the other test files a unity build compiles with it
// (tests/CMakeLists.txt).
namespace TUSK_TEST_FILE
{

namespace fs = std::filesystem;
using tusk::ShellQuote;
using tusk_test::Lines;
using tusk_test::Scratch;
using tusk_test::Shell;
using tusk_test::Slurp;
using tusk_test::Tusk;
using tusk_test::Write;

namespace
{

const char* kTwoRuns = "name = \"s\"\nscenario = \"base.toml\"\n[[axis]]\nkey = \"seed\"\n"
                       "values = [1, 2]\n[slurm]\nchunk = 2\n";

/**
 * d/base.toml, d/s.toml (two runs, one array task), and a fake sbatch in d/bin: it copies its
 * arguments (one per line) to d/calls/args-N, the script it is given (its last argument, when
 * a file) to d/calls/script-N, and prints job id 100+N.
 */
void
SetUp(const fs::path& d)
{
    Write(d / "base.toml", tusk_test::kSmallScenario);
    Write(d / "s.toml", kTwoRuns);
    fs::create_directories(d / "bin");
    fs::create_directories(d / "calls");
    const std::string calls = ShellQuote((d / "calls").string());
    Write(d / "bin" / "sbatch",
          "#!/bin/sh\n"
          "n=$(ls " + calls + " | grep -c '^args-')\n"
          "printf '%s\\n' \"$@\" > " + calls + "/args-$n\n"
          "for last; do :; done\n"
          "[ -f \"$last\" ] && cp \"$last\" " + calls + "/script-$n\n"
          "echo $((100 + n))\n");
    fs::permissions(d / "bin" / "sbatch", fs::perms::owner_all);
}

/** `tusk sweep d/s.toml --backend slurm --out ROOT` with the fake sbatch first on PATH. */
tusk_test::Outcome
SubmitSweep(const fs::path& d, const std::string& root)
{
    return Shell("PATH=" + ShellQuote((d / "bin").string()) + ":\"$PATH\" " +
                 std::string(TUSK_BINARY_DIR) + "/bin/tusk sweep " +
                 ShellQuote((d / "s.toml").string()) + " --backend slurm --out " + ShellQuote(root));
}

/** The array script as tusk writes it: a shebang, one comment, one `exec` line, nothing else. */
void
CheckArrayScriptShape(const fs::path& file)
{
    const std::string script = Slurp(file);
    INFO(script);
    const auto lines = Lines(script);
    REQUIRE(lines.size() == 3);
    CHECK(lines[0] == "#!/bin/sh");
    CHECK(lines[1].rfind("# ", 0) == 0);
    CHECK(lines[2].rfind("exec '", 0) == 0);
    CHECK(Shell("bash -n " + ShellQuote(file.string())).status == 0);
}

} // namespace

TEST_CASE("tusk sweep --backend slurm: a newline in the results root is refused, not run",
          "[component][sweep][slurm]")
{
    auto d = Scratch("slurm-newline");
    SetUp(d);
    const fs::path marker = d / "injected";
    // On the compute node the comment line would end at the newline and the rest of the
    // path would be a command line of its own: `touch .../injected #/.sweep/slurm/plan-1.json`.
    const std::string root = (d / "out").string() + "\ntouch " + marker.string() + " #";
    auto o = SubmitSweep(d, root);
    INFO(o.output);
    CHECK(o.status == 2);
    CHECK(o.output.find("--out (the results root): ") != std::string::npos);
    CHECK(o.output.find("contains a control character (byte 0x0a") != std::string::npos);
    CHECK(!fs::exists(root)); // nothing written
    for (const auto& e : fs::directory_iterator(d / "calls"))
    {
        // Nothing should have been submitted; if it was, the script must not run the line.
        if (e.path().filename().string().rfind("script-", 0) == 0)
        {
            CheckArrayScriptShape(e.path());
            Shell("cd " + ShellQuote(d.string()) + " && SLURM_ARRAY_TASK_ID=0 sh " +
                  ShellQuote(e.path().string()));
        }
        CHECK(e.path().filename().string().rfind("args-", 0) != 0);
    }
    CHECK(!fs::exists(marker));
}

TEST_CASE("tusk sweep --backend slurm: a root full of shell syntax is quoted in the job scripts",
          "[component][sweep][slurm]")
{
    auto d = Scratch("slurm-quoting");
    SetUp(d);
    const fs::path marker = d / "injected";
    const std::string m = marker.string();
    const std::string root = (d / "out $(touch ").string() + m + ") `touch " + m + "` ';touch " +
                             m + ";' \"x\" $HOME";
    auto o = SubmitSweep(d, root);
    INFO(o.output);
    REQUIRE(o.status == 0);
    CHECK(o.output.find("submitted 2 runs as job array 100 (1 tasks") != std::string::npos);
    CHECK(o.output.find("index job 101") != std::string::npos);
    REQUIRE(fs::is_regular_file(d / "calls" / "script-0"));
    CheckArrayScriptShape(d / "calls" / "script-0");

    // Run array task 0 as Slurm would (in the results root), then the index job's command.
    o = Shell("cd " + ShellQuote(root) + " && SLURM_ARRAY_TASK_ID=0 sh " +
              ShellQuote((d / "calls" / "script-0").string()));
    INFO(o.output);
    CHECK(o.status == 0);
    std::string wrap;
    for (const auto& a : Lines(Slurp(d / "calls" / "args-1")))
    {
        if (a.rfind("--wrap=", 0) == 0)
        {
            wrap = a.substr(7);
        }
    }
    REQUIRE(!wrap.empty());
    o = Shell("cd " + ShellQuote(root) + " && sh -c " + ShellQuote(wrap));
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(fs::is_regular_file(fs::path(root) / "seed=1" / "manifest.json"));
    CHECK(fs::is_regular_file(fs::path(root) / "seed=2" / "manifest.json"));
    CHECK(fs::is_regular_file(fs::path(root) / "sweep.csv"));
    CHECK(!fs::exists(marker)); // no $(...), `...` or ';' of the path ran

    // Resubmitting: a run whose results another build made is submitted again, and counted.
    {
        const fs::path manifest = fs::path(root) / "seed=2" / "manifest.json";
        std::string text = Slurp(manifest);
        const size_t at = text.find("\"code_hash\": \"");
        REQUIRE(at != std::string::npos);
        text.replace(at + 14, 64, std::string(64, 'f'));
        Write(manifest, text);
    }
    o = SubmitSweep(d, root);
    INFO(o.output);
    CHECK(o.status == 0);
    CHECK(o.output.find("1 run(s) run again because their results were made by other code") !=
          std::string::npos);
    CHECK(o.output.find("submitted 1 runs as job array 102") != std::string::npos);
}

} // namespace TUSK_TEST_FILE
