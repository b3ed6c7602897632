// libFuzzer target: a regression suite (tusk::ReadSuiteString, what `tusk regress` reads), then
// without running anything:
//  - its plan (SuitePlan: every run resolved through the scenario loader, with the base
//    scenario of fuzz-base-scenario.h) when it has at most kMaxPlanRuns runs;
//  - the verdicts over made-up results (every run ok, each metric a value of its seed):
//    Evaluate, the table, the JUnit XML, and `--update-baselines`' rewrite of the suite text
//    (UpdatedSuiteText), which must read back as a suite: a rewrite that breaks the user's
//    file is a finding (abort).
#include "fuzz-input.h"

#include "regress.h"

#include <cstdio>
#include <cstdlib>
#include <deque>

namespace
{
/** Runs resolved per input (each loads a scenario) and runs made up for the verdicts. */
constexpr size_t kMaxPlanRuns = 4;
constexpr size_t kMaxFakeRuns = 512;
} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::string dir = tusk_fuzz::kBaseScenarioDir;
    const std::string file = dir + "/suite.toml";
    tusk::RegressSuite suite;
    try
    {
        suite = tusk::ReadSuiteString(text, file);
    }
    catch (const ns3::InputError&)
    {
        return 0;
    }
    size_t runs = 0;
    for (const auto& s : suite.scenarios)
    {
        runs += s.policies.size() * s.seeds.size();
    }
    if (runs <= kMaxPlanRuns)
    {
        try
        {
            (void)tusk::SuitePlan(suite, dir + "/results");
        }
        catch (const ns3::InputError&)
        {
        }
    }
    if (runs > kMaxFakeRuns)
    {
        return 0;
    }
    std::deque<tusk::SweepRun> sweepRuns; // IndexedRun points into it
    std::vector<tusk::IndexedRun> indexed;
    for (const auto& s : suite.scenarios)
    {
        for (const auto& p : s.policies)
        {
            for (uint64_t seed : s.seeds)
            {
                tusk::SweepRun& r = sweepRuns.emplace_back();
                r.labels = {{"scenario", s.name}, {"policy", p}, {"seed", std::to_string(seed)}};
                r.seed = seed;
                tusk::IndexedRun ir;
                ir.run = &r;
                ir.status = "ok";
                ir.exitStatus = 0;
                ir.summary = nlohmann::ordered_json::object();
                for (const auto& m : s.metrics)
                {
                    ir.summary[m] = 1.5 * static_cast<double>(seed % 1000) + 1;
                }
                indexed.push_back(std::move(ir));
            }
        }
    }
    const std::vector<tusk::Check> checks = tusk::Evaluate(suite, indexed);
    (void)tusk::CheckTable(checks);
    (void)tusk::JUnitXml(suite, checks, indexed);
    std::string diff;
    const std::string updated =
        tusk::UpdatedSuiteText(suite, text, checks, "2026-01-01", "0123abc", diff);
    try
    {
        (void)tusk::ReadSuiteString(updated, file);
    }
    catch (const ns3::InputError& e)
    {
        std::fprintf(stderr, "--update-baselines made a suite that does not read back: %s\n%s\n",
                     e.what(), updated.c_str());
        std::abort();
    }
    return 0;
}
