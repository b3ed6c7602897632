/*
 * tusk: a sweep's plan as JSON (plan.json, the Slurm tasks' plan-N.json) and back.
 */
#include "sweep/sweep-plan.h"

namespace tusk
{

nlohmann::json
PlanToJson(const SweepPlan& plan)
{
    nlohmann::json j;
    j["name"] = plan.name;
    j["kind"] = plan.kind;
    j["keep_revision"] = plan.keepRevision;
    j["keep_code"] = plan.keepCode;
    j["source_file"] = plan.sourceFile;
    j["root"] = plan.root;
    j["axes"] = plan.axisNames;
    j["axis_keys"] = plan.axisKeys;
    j["value_columns"] = plan.valueColumns;
    j["slurm"] = {{"partition", plan.slurm.partition}, {"time", plan.slurm.time},
                  {"mem", plan.slurm.mem},             {"account", plan.slurm.account},
                  {"chunk", plan.slurm.chunk},         {"max_parallel", plan.slurm.maxParallel},
                  {"sbatch_args", plan.slurm.sbatchArgs}};
    j["plugins"] = nlohmann::json::array();
    for (const auto& p : plan.plugins)
    {
        j["plugins"].push_back({{"path", p.path}, {"sha256", p.sha256}});
    }
    j["runs"] = nlohmann::json::array();
    for (const auto& r : plan.runs)
    {
        j["runs"].push_back({{"id", r.id},
                             {"scenario", r.scenario},
                             {"sets", r.sets},
                             {"labels", r.labels},
                             {"values", r.values},
                             {"hash", r.hash},
                             {"policy", r.policy},
                             {"seed", r.seed}});
    }
    return j;
}

SweepPlan
PlanFromJson(const nlohmann::json& j)
{
    SweepPlan plan;
    plan.name = j.at("name");
    plan.kind = j.value("kind", "sweep");
    plan.keepRevision = j.value("keep_revision", "");
    plan.keepCode = j.value("keep_code", "");
    plan.sourceFile = j.at("source_file");
    plan.root = j.at("root");
    plan.axisNames = j.at("axes").get<std::vector<std::string>>();
    plan.axisKeys = j.value("axis_keys", std::vector<std::vector<std::string>>());
    plan.valueColumns = j.at("value_columns").get<std::vector<std::string>>();
    const auto& s = j.at("slurm");
    plan.slurm.partition = s.at("partition");
    plan.slurm.time = s.at("time");
    plan.slurm.mem = s.at("mem");
    plan.slurm.account = s.at("account");
    plan.slurm.chunk = s.at("chunk");
    plan.slurm.maxParallel = s.at("max_parallel");
    plan.slurm.sbatchArgs = s.at("sbatch_args").get<std::vector<std::string>>();
    for (const auto& p : j.value("plugins", nlohmann::json::array()))
    {
        plan.plugins.push_back({p.at("path"), p.at("sha256")});
    }
    for (const auto& r : j.at("runs"))
    {
        SweepRun run;
        run.id = r.at("id");
        run.scenario = r.at("scenario");
        run.sets = r.at("sets").get<std::vector<std::string>>();
        run.labels = r.at("labels").get<std::vector<std::pair<std::string, std::string>>>();
        run.values = r.at("values").get<std::vector<std::pair<std::string, std::string>>>();
        run.hash = r.at("hash");
        run.policy = r.at("policy");
        run.seed = r.at("seed");
        plan.runs.push_back(std::move(run));
    }
    return plan;
}

} // namespace tusk
