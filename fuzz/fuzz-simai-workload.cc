// libFuzzer target: a SimAI / AICB workload file, and the job iteration made from it.
#include "fuzz-input.h"

#include "importers/model/simai-workload.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    tusk_fuzz::ReadAsFile("workload.txt", data, size, [](const std::string& path) {
        const ns3::SimAiWorkload w = ns3::ReadSimAiWorkload(path);
        std::string note;
        (void)ns3::SimAiDegrees(w, w.allGpus, &note);
        (void)ns3::SimAiIteration(w);
    });
    return 0;
}
