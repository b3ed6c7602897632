// libFuzzer target: a sweep file (tusk::ReadSweepString, what `tusk sweep` reads) and, when it
// has at most kMaxRuns runs, its plan (ExpandSweep: every run resolved through the scenario
// loader, with fuzz/base-scenario/base.toml) and the plan's JSON (plan.json) read
// back. Nothing is run. A [slurm] chunk below 1 (runs per array task) is a finding (abort).
#include "fuzz-input.h"

#include "sweep-plan.h"

#include <cstdlib>
#include <cstdio>

namespace
{
/** Runs expanded per input: each resolves a scenario (about a millisecond under ASan). */
constexpr size_t kMaxRuns = 16;
} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::string dir = tusk_fuzz::kBaseScenarioDir;
    try
    {
        const tusk::SweepSpec spec = tusk::ReadSweepString(text, dir + "/fuzz.sweep.toml");
        if (spec.slurm.chunk < 1)
        {
            std::fprintf(stderr, "slurm.chunk read as %u: runs per array task must be >= 1\n",
                         spec.slurm.chunk);
            std::abort();
        }
        size_t runs = 1;
        for (const auto& a : spec.axes)
        {
            runs = spec.zip ? a.values.size() : runs * a.values.size();
            if (runs > kMaxRuns)
            {
                return 0;
            }
        }
        const tusk::SweepPlan plan = tusk::ExpandSweep(spec, dir + "/results");
        const tusk::SweepPlan back = tusk::PlanFromJson(tusk::PlanToJson(plan));
        if (back.runs.size() != plan.runs.size())
        {
            std::fprintf(stderr, "plan.json does not read back: %zu runs, %zu read\n",
                         plan.runs.size(), back.runs.size());
            std::abort();
        }
    }
    catch (const ns3::InputError&)
    {
    }
    return 0;
}
