/*
 * tusk: the top-level keys of a scenario file (name, seed, stop_time_ms, require_finish).
 */
#include "scenario/scenario-sections.h"

#include <algorithm>
#include <cctype>

namespace tusk
{

namespace
{

const std::vector<Knob<ScenarioSpec>>&
Rows()
{
    using namespace knob;
    using S = ScenarioSpec;
    static const std::vector<Knob<S>> rows = {
        Custom<S>(
            "name", "string", "",
            "Scenario name; names the results directory, so only letters, digits, `.`, `_`, `-` "
            "(not first: `.`, `-`).",
            [](ScenarioReader& r, const toml::node& n, const std::string& key, S& s) {
                std::string name = r.String(&n, key);
                bool ok = !name.empty() && name[0] != '.' && name[0] != '-' &&
                          std::all_of(name.begin(), name.end(), [](char c) {
                              return std::isalnum(static_cast<unsigned char>(c)) || c == '-' ||
                                     c == '_' || c == '.';
                          });
                if (!ok)
                {
                    r.Fail(&n, key,
                           "expected a name of letters, digits, '.', '_' and '-', not starting "
                           "with '.' or '-' (it names the results directory); got " +
                               Quote(name));
                }
                s.name = name;
            },
            [](const S& s) { return nlohmann::json(s.name); }),
        Integer<S>("seed", &S::seed, 0, std::numeric_limits<int64_t>::max(),
                   "Run seed: ns-3's `RngRun` and the seed every random choice derives from."),
        Time<S>("stop_time_ms", &S::stopTimePs, kPsPerMs, "ms", Sign::POSITIVE, Clock::ANY,
                bounds::kSimSpan,
                "Simulated-time limit."),
        Boolean<S>("require_finish", &S::requireFinish,
                   "Transfers still unfinished at `stop_time_ms` make the run fail (exit status "
                   "1)."),
    };
    return rows;
}

void
Read(ScenarioReader& r, const toml::table& root, ScenarioSpec& spec)
{
    std::vector<std::string> tables;
    for (const auto& s : Sections())
    {
        if (!s.key.empty())
        {
            tables.push_back(s.key);
        }
    }
    ReadKnobs(r, root, "", Rows(), spec, "", tables);
}

void
Write(const ScenarioSpec& spec, nlohmann::json& root)
{
    root.update(WriteKnobs(Rows(), spec));
}

std::vector<KnobBlock>
Blocks()
{
    return {KnobBlock{"top", "", Docs(Rows())}};
}

} // namespace

Section
TopLevelKeys()
{
    return Section{"", &Read, &Write, &Blocks};
}

} // namespace tusk
