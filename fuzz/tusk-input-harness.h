// What the sweep, suite and locate fuzz targets do with one input, shared with their regression
// tests (tests/unit/fuzz-regressions-test.cc) so that a kept finding is read exactly as the
// target read it. Each function throws ns3::InputError for bad input and aborts (a finding)
// when a property below fails; nothing is run or written.
#ifndef TUSK_FUZZ_TUSK_INPUT_HARNESS_H
#define TUSK_FUZZ_TUSK_INPUT_HARNESS_H

#include "fabric/model/input-error.h"
#include "locate/locate-command.h"
#include "sweep/regress.h"
#include "sweep/sweep-plan.h"

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <sstream>
#include <string>

namespace tusk_fuzz
{

/** The sweep and suite inputs are read as files of this directory: it holds the base scenario
 *  they name, base.toml (a 2x2 leaf-spine), and nothing is written to it. */
inline const std::string kBaseScenarioDir = TUSK_SOURCE_DIR "/fuzz/base-scenario";

[[noreturn]] inline void
Finding(const std::string& what)
{
    std::fprintf(stderr, "tusk fuzz finding: %s\n", what.c_str());
    std::abort();
}

/**
 * A sweep file (ReadSweepString, as `tusk sweep` reads it); when it has at most 16 runs, its
 * plan (ExpandSweep: every run resolved through the scenario loader) and plan.json read back.
 * Finding: a [slurm] chunk (runs per array task) below 1.
 */
inline void
SweepPlanInput(const std::string& text)
{
    const tusk::SweepSpec spec = tusk::ReadSweepString(text, kBaseScenarioDir + "/fuzz.sweep.toml");
    if (spec.slurm.chunk < 1)
    {
        Finding("slurm.chunk read as " + std::to_string(spec.slurm.chunk));
    }
    size_t runs = 1;
    for (const auto& a : spec.axes)
    {
        runs = spec.zip ? a.values.size() : runs * a.values.size();
        if (runs > 16) // each run resolves a scenario: about a millisecond under ASan
        {
            return;
        }
    }
    const tusk::SweepPlan plan = tusk::ExpandSweep(spec, kBaseScenarioDir + "/results");
    if (tusk::PlanFromJson(tusk::PlanToJson(plan)).runs.size() != plan.runs.size())
    {
        Finding("plan.json does not read back");
    }
}

/**
 * A regression suite (ReadSuiteString, as `tusk regress` reads it); with at most 4 runs its
 * plan (SuitePlan; a value it refuses is not the suite reader's finding and is passed over);
 * with at most 512, the verdicts over made-up results (every run ok, each metric a value of
 * its seed), the table, the JUnit XML and `--update-baselines`' rewrite (UpdatedSuiteText).
 * Finding: a rewrite that does not read back as a suite (but for the refusal, on purpose, of
 * a new entry for a metric without a band).
 */
inline void
RegressSuiteInput(const std::string& text)
{
    const std::string file = kBaseScenarioDir + "/suite.toml";
    const tusk::RegressSuite suite = tusk::ReadSuiteString(text, file);
    size_t runs = 0;
    for (const auto& s : suite.scenarios)
    {
        runs += s.policies.size() * s.seeds.size();
    }
    if (runs <= 4)
    {
        try
        {
            (void)tusk::SuitePlan(suite, kBaseScenarioDir + "/results");
        }
        catch (const ns3::InputError&)
        {
        }
    }
    if (runs > 512)
    {
        return;
    }
    std::deque<tusk::SweepRun> sweepRuns; // stable addresses: IndexedRun points into it
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
        // A new entry for a metric without a band is refused on reading, on purpose.
        if (e.Message().find("no band") == std::string::npos)
        {
            Finding(std::string("--update-baselines wrote a suite that does not read back: ") +
                    e.what() + "\n" + updated);
        }
    }
}

/**
 * What `tusk locate` reads, flows.csv, links.csv and manifest.json, in one input separated by
 * lines "%%" (flows.csv, links.csv and, after a second separator, manifest.json)
 * (ReadObservations); with 1..256 flows, the localisation by every method with few
 * iterations, the table and the JSON.
 */
inline void
LocateInput(const std::string& text)
{
    namespace loc = tusk::locate;
    const std::string sep = "\n%%\n";
    const size_t a = text.find(sep);
    const size_t b = a == std::string::npos ? a : text.find(sep, a + sep.size());
    std::istringstream flows(text.substr(0, a));
    std::istringstream links(a == std::string::npos
                                 ? ""
                                 : text.substr(a + sep.size(),
                                               b == std::string::npos ? b : b - a - sep.size()));
    std::istringstream manifest(b == std::string::npos ? "" : text.substr(b + sep.size()));
    const loc::Observations obs = loc::ReadObservations(
        flows, "flows.csv", links, "links.csv", b == std::string::npos ? nullptr : &manifest);
    if (obs.flows.empty() || obs.flows.size() > 256)
    {
        return;
    }
    loc::CommandOptions o;
    o.tomography.sweeps = 20;
    o.tomography.burnIn = 5;
    o.tomography.bootstrap = 3;
    for (auto method : {loc::Method::Bayes, loc::Method::Nnls, loc::Method::Lasso})
    {
        o.tomography.method = method;
        o.method = loc::MethodName(method);
        const loc::LocateResult r = loc::Locate(obs, o.tomography);
        std::ostringstream out;
        loc::PrintTable(obs, r, o, out);
        (void)loc::ToJson(obs, r, o);
    }
}

} // namespace tusk_fuzz

#endif
