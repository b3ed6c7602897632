// libFuzzer target: an HPCC topology.txt, and the equal-cost routes of what it accepts.
#include "fuzz-input.h"

#include "fabric/helper/topology-builders.h"
#include "importers/model/hpcc-reader.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    tusk_fuzz::ReadAsFile("topology.txt", data, size, [](const std::string& path) {
        const ns3::HpccTopology t = ns3::ReadHpccTopology(path);
        (void)ns3::ComputeEqualCostPorts(t.graph);
    });
    return 0;
}
