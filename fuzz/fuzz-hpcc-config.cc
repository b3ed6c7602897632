// libFuzzer target: an HPCC simulator config.txt applied to the default scenario.
#include "fuzz-input.h"

#include "scenario/hpcc-config.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    tusk_fuzz::ReadAsFile("config.txt", data, size, [](const std::string& path) {
        tusk::ScenarioSpec spec;
        (void)tusk::ApplyHpccConfig(path, spec);
    });
    return 0;
}
