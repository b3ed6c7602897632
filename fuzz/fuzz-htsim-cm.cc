// libFuzzer target: an htsim connection matrix (.cm) and the workload made from it.
#include "fuzz-input.h"

#include "importers/model/htsim-cm-reader.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    tusk_fuzz::ReadAsFile("input.cm", data, size, [](const std::string& path) {
        (void)ns3::ReadHtsimCm(path);
    });
    return 0;
}
