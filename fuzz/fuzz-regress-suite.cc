// libFuzzer target: a regression suite (what `tusk regress` reads), its verdicts and baseline
// rewrite;
// tusk_fuzz::RegressSuiteInput in tusk-input-harness.h says what exactly.
#include "tusk-input-harness.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    try
    {
        tusk_fuzz::RegressSuiteInput(std::string(reinterpret_cast<const char*>(data), size));
    }
    catch (const ns3::InputError&)
    {
    }
    return 0;
}
