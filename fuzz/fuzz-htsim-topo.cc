// libFuzzer target: an htsim topology (.topo), and the equal-cost routes of what it accepts
// (a topology the reader accepts must be routable without a crash).
#include "fuzz-input.h"

#include "fabric/helper/topology-builders.h"
#include "importers/model/htsim-topo-reader.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    tusk_fuzz::ReadAsFile("input.topo", data, size, [](const std::string& path) {
        const ns3::TopologyGraph g = ns3::ReadHtsimTopo(path);
        (void)ns3::ComputeEqualCostPorts(g);
    });
    return 0;
}
