#include "scenario/scenario-inputs.h"

#include "cli/code-identity.h" // Sha256FileHex

#include "workload/model/chakra-trace.h"

#include <filesystem>

namespace tusk
{

std::vector<ScenarioInput>
ScenarioInputs(const ScenarioSpec& spec)
{
    std::vector<ScenarioInput> out;
    const auto fromFile = [](const std::string& kind) { return kind == "htsim" || kind == "hpcc"; };
    if (fromFile(spec.topology.kind) && !spec.topology.file.empty())
    {
        out.push_back({"topology.file", spec.topology.file});
    }
    if (fromFile(spec.workload.kind) && !spec.workload.file.empty())
    {
        out.push_back({"workload.file", spec.workload.file});
    }
    if (spec.workload.kind == "chakra" && !spec.workload.trace.empty())
    {
        for (const std::string& f : ns3::ChakraTraceFiles(spec.workload.trace))
        {
            out.push_back({"workload.trace", f});
        }
    }
    for (size_t j = 0; j < spec.jobs.size(); ++j)
    {
        if (!spec.jobs[j].file.empty())
        {
            out.push_back({"jobs[" + std::to_string(j) + "].file", spec.jobs[j].file});
        }
    }
    for (size_t b = 0; b < spec.background.size(); ++b)
    {
        if (!spec.background[b].cdfFile.empty())
        {
            out.push_back({"background[" + std::to_string(b) + "].cdf_file",
                           spec.background[b].cdfFile});
        }
    }
    return out;
}

nlohmann::json
InputsJson(const ScenarioSpec& spec)
{
    nlohmann::json inputs = nlohmann::json::array();
    for (const ScenarioInput& in : ScenarioInputs(spec))
    {
        std::error_code ec;
        const auto bytes = std::filesystem::file_size(in.path, ec);
        inputs.push_back({{"key", in.key},
                          {"path", in.path},
                          {"bytes", ec ? 0 : static_cast<uint64_t>(bytes)},
                          {"sha256", Sha256FileHex(in.path)}});
    }
    return inputs;
}

} // namespace tusk
