// libFuzzer target: a sweep file (what `tusk sweep` reads), its plan;
// tusk_fuzz::SweepPlanInput in tusk-input-harness.h says what exactly.
#include "tusk-input-harness.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    try
    {
        tusk_fuzz::SweepPlanInput(std::string(reinterpret_cast<const char*>(data), size));
    }
    catch (const ns3::InputError&)
    {
    }
    return 0;
}
