#include "cli/compare-command.h"

#include "cli/exit-status.h"
#include "results/comparison-table.h"
#include "results/results-dir.h"
#include "results/results-writer.h"
#include "results/tool-outputs.h"
#include "run/runner.h"

#include "fabric/model/input-error.h"
#include "lb-policies/policy-registry.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <iostream>
#include <sstream>
#include <sys/stat.h>

namespace tusk
{

namespace
{

void
WriteIndex(const std::string& path, const std::vector<RunResult>& runs,
           const std::vector<std::string>& dirs)
{
    sqlite3* db = nullptr;
    // An OS error (no space, file too large) is a WriteError naming the file and the OS's words.
    auto check = [&](int rc, int ok) {
        if (rc != ok)
        {
            const int err = db ? sqlite3_system_errno(db) : 0;
            const std::string what = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
            sqlite3_close(db);
            throw err ? WriteError(path, err) : WriteError(path + ": " + what);
        }
    };
    check(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const char* schema =
        "CREATE TABLE runs (run_dir TEXT, scenario TEXT, policy TEXT, seed INTEGER, status TEXT, "
        "cct_us REAL, algbw_GBps REAL, busbw_GBps REAL, slowdown_mean REAL, slowdown_p99 REAL, "
        "slowdown_max REAL, fct_p99_us REAL, fct_max_us REAL, uplink_util_max REAL, "
        "uplink_util_mean REAL, drops INTEGER, retx_packets INTEGER, ooo_packets INTEGER, "
        "unfinished INTEGER, events INTEGER, wall_time_s REAL);";
    check(sqlite3_exec(db, schema, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    check(sqlite3_prepare_v2(db,
                             "INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?);",
                             -1, &st, nullptr),
          SQLITE_OK);
    for (size_t i = 0; i < runs.size(); ++i)
    {
        const RunResult& r = runs[i];
        const RunSummary& s = r.summary;
        int k = 1;
        auto real = [&](double v) {
            if (std::isnan(v))
            {
                sqlite3_bind_null(st, k++);
            }
            else
            {
                sqlite3_bind_double(st, k++, v);
            }
        };
        sqlite3_bind_text(st, k++, dirs[i].c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, k++, r.spec.name.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, k++, s.policy.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, k++, static_cast<sqlite3_int64>(r.spec.seed));
        sqlite3_bind_text(st, k++, r.failure.empty() ? "ok" : "failed", -1, SQLITE_STATIC);
        real(s.cctUs);
        real(s.algbwGBps);
        real(s.busbwGBps);
        real(s.meanSlowdown);
        real(s.p99Slowdown);
        real(s.maxSlowdown);
        real(s.p99FctUs);
        real(s.maxFctUs);
        real(s.uplinkMaxUtil);
        real(s.uplinkMeanUtil);
        sqlite3_bind_int64(st, k++, static_cast<sqlite3_int64>(s.drops));
        sqlite3_bind_int64(st, k++, static_cast<sqlite3_int64>(s.retxPackets));
        sqlite3_bind_int64(st, k++, static_cast<sqlite3_int64>(s.oooPackets));
        sqlite3_bind_int64(st, k++, static_cast<sqlite3_int64>(s.unfinished));
        sqlite3_bind_int64(st, k++, static_cast<sqlite3_int64>(r.events));
        real(r.wallSeconds);
        const int rc = sqlite3_step(st);
        if (rc != SQLITE_DONE)
        {
            sqlite3_finalize(st);
        }
        check(rc, SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    check(sqlite3_close(db), SQLITE_OK);
    db = nullptr;
}

int
DoCompare(const CommonOptions& o, const std::string& policiesArg)
{
    std::vector<std::string> policies;
    std::stringstream ss(policiesArg);
    for (std::string p; std::getline(ss, p, ',');)
    {
        if (!p.empty())
        {
            if (std::find(policies.begin(), policies.end(), p) != policies.end())
            {
                throw ns3::InputError("<command line>", 0, "--policies",
                                      "policy \"" + p + "\" is listed twice");
            }
            policies.push_back(p);
        }
    }
    if (policies.empty())
    {
        throw ns3::InputError("<command line>", 0, "--policies", "expected a comma-separated list");
    }
    // Load every variant first: bad input is reported before anything runs or is written.
    std::vector<ScenarioSpec> specs;
    for (const auto& p : policies)
    {
        specs.push_back(Load(o, {"lb.policy=" + p}));
        if (ns3::ResolveSwitchPolicy(specs.back().lb.policy).empty())
        {
            throw ns3::InputError("<command line>", 0, "--policies",
                                  "unknown policy \"" + p + "\"; expected one of " +
                                      ns3::PolicyNameList());
        }
    }
    PrintImportNote(o, specs[0]);
    for (const auto& w : ScenarioWarnings(specs[0]))
    {
        std::cerr << "tusk: warning: " << w << "\n"; // -q hides progress, not warnings
    }
    const std::string out =
        !o.out.empty()                 ? o.out
        : !specs[0].output.dir.empty() ? specs[0].output.dir
                                       : DefaultOut(specs[0], fmt::format("compare-s{}", specs[0].seed));
    StagedResults staged(out, "compare"); // removed unless committed
    const std::string& staging = staged.Path();
    std::vector<RunResult> runs;
    std::vector<std::string> dirs;
    for (const auto& spec : specs)
    {
        const std::string dir = staging + "/" + spec.lb.policy;
        if (::mkdir(dir.c_str(), 0755) != 0)
        {
            throw WriteError(dir, errno);
        }
        if (!o.quiet)
        {
            std::cerr << fmt::format("[tusk] running {} with {}\n", spec.name, spec.lb.policy);
        }
        RunOptions ro;
        ro.progress = !o.quiet;
        ro.pcapDir = dir;
        if (runs.empty()) // the same fabric and traffic for every policy: said once
        {
            ro.warn = [](const std::string& w) {
                std::cerr << "tusk: warning: " << w << "\n"; // -q hides progress, not warnings
            };
        }
        runs.push_back(RunScenario(spec, ro));
        WriteRunFiles(runs.back(), dir);
        dirs.push_back(spec.lb.policy);
    }
    WriteFileAtomic(staging + "/comparison.csv", ComparisonCsv(runs));
    WriteIndex(staging + "/index.sqlite", runs, dirs);
    staged.Commit();
    std::cout << fmt::format("{}: {} hosts, {} switches, {} transfers, seed {}\n", specs[0].name,
                             runs[0].hosts, runs[0].switches, FlowCount(runs[0]), specs[0].seed);
    std::cout << PathClassesLine(runs[0]) << HpccPairRttLine(runs[0]);
    std::cout << SettingsLine(runs[0].spec);
    PrintComparisonTable(runs, std::cout);
    for (const auto& r : runs) // steady_probe, steady_jump: what each run could skip or skipped
    {
        const std::string probe = SteadyProbeLine(r) + SteadyJumpLine(r);
        if (!probe.empty())
        {
            std::cout << r.summary.policy << ": " << probe;
        }
    }
    std::cout << "results in " << out << "/ (comparison.csv, index.sqlite, one folder per policy)\n";
    std::cout << "plots and an HTML report: tusk report " << out << "\n";
    int rc = 0;
    for (const auto& r : runs)
    {
        if (!r.failure.empty())
        {
            std::cerr << "tusk: " << r.summary.policy << " run failed: " << r.failure << "\n";
            rc = kExitRunFailed;
        }
    }
    return rc;
}

} // namespace

CompareCommand::CompareCommand(CLI::App& app)
    : m_cmd(app.add_subcommand(
          "compare",
          "Run a scenario once per policy (same topology, traffic and seed) and print one table. "
          "Without a scenario file, runs the built-in default (a ring all-reduce on a leaf-spine)."))
{
    AddCommon(m_cmd, m_options, false);
    m_cmd->add_option("--policies", m_policies, "Comma-separated policies (see `tusk policies`)")
        ->capture_default_str();
}

bool
CompareCommand::Parsed() const
{
    return m_cmd->parsed();
}

int
CompareCommand::Run()
{
    return DoCompare(m_options, m_policies);
}

} // namespace tusk
