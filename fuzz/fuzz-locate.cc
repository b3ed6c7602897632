// libFuzzer target: what `tusk locate` reads (flows.csv, links.csv, manifest.json) and the
// localisation;
// tusk_fuzz::LocateInput in tusk-input-harness.h says what exactly.
#include "tusk-input-harness.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    try
    {
        tusk_fuzz::LocateInput(std::string(reinterpret_cast<const char*>(data), size));
    }
    catch (const ns3::InputError&)
    {
    }
    return 0;
}
