// libFuzzer target: a scenario TOML file (tusk::LoadScenarioString) and what is done with a
// scenario that loads: its JSON echo (the manifest) and its warnings.
#include "fuzz-input.h"

#include "run/runner.h"
#include "scenario/scenario-toml.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try
    {
        // Relative file keys resolve inside the private directory, where nothing else is.
        const tusk::ScenarioSpec spec =
            tusk::LoadScenarioString(text, tusk_fuzz::Dir() + "/fuzz.toml");
        (void)tusk::ScenarioToJson(spec).dump();
        (void)tusk::ScenarioWarnings(spec);
    }
    catch (const ns3::InputError&)
    {
    }
    return 0;
}
