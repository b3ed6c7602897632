// libFuzzer target: a run's manifest.json as `tusk rerun` reads it (tusk::ReadRerunManifest:
// the status, the files list, the scenario; no simulation), and the scenario's JSON echo.
#include "fuzz-input.h"

#include "results/rerun.h"
#include "scenario/scenario-toml.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    tusk_fuzz::ReadAsFile("manifest.json", data, size, [](const std::string& path) {
        const tusk::RerunManifest m = tusk::ReadRerunManifest(path);
        (void)tusk::ScenarioToJson(m.spec).dump();
    });
    return 0;
}
