// libFuzzer target: one rank's Chakra execution trace (length-delimited protobuf messages),
// parsed, then lowered as a two-rank trace set in which both ranks run that trace (so that the
// collectives of the trace match across the group and the lowering gets past the group checks).
#include "fuzz-input.h"

#include "workload/model/chakra-trace.h"
#include "workload/model/chakra-workload.h"
#include "workload/model/workload-builder.h"

#include <string>
#include <vector>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    try
    {
        const ns3::ChakraRankTrace rank = ns3::ParseChakraTrace(bytes, "input.0.et");
        std::vector<ns3::ChakraRankTrace> ranks = {rank, rank};
        ranks[1].file = "input.1.et";
        ns3::WorkloadSpec spec;
        ns3::WorkloadBuilder builder(spec);
        ns3::ChakraWorkloadOptions options;
        options.hosts = {0, 1};
        options.algorithm = "auto";
        ns3::AppendChakraWorkload(builder, spec, ranks, options);
    }
    catch (const ns3::InputError&)
    {
        // bad input: the exit-2 path
    }
    return 0;
}
