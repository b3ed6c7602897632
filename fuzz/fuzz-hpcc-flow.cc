// libFuzzer target: an HPCC flow.txt (node k = host k, as without an HPCC topology).
#include "fuzz-input.h"

#include "importers/model/hpcc-reader.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    tusk_fuzz::ReadAsFile("flow.txt", data, size, [](const std::string& path) {
        (void)ns3::ReadHpccFlows(path, {});
    });
    return 0;
}
