/*
 * tusk: the scenario file layer (see scenario-toml.h and docs/scenario-format.md).
 *
 * Flow: parse the TOML text (toml++), apply the `--set` overrides to the parsed table
 * (scenario-overrides.cc), then read every section through its knob rows (section-*.cc,
 * knob.h), converting TOML units (ns, us, ms, Gbps, size strings) into internal units (ps,
 * bit/s, bytes). The first problem found throws ns3::InputError(file, line, key, message).
 */
#include "scenario/scenario-toml.h"

#include "scenario/toml-file-reader.h"

#include "scenario/knob-table.h"
#include "scenario/scenario-reader.h"
#include "scenario/scenario-sections.h"

#include <toml++/toml.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tusk
{

// kDefaultScenarioToml is generated at build time from scenarios/default.toml
// (tusk/CMakeLists.txt), so the file and the built-in default cannot drift apart.

namespace
{

using ns3::InputError;

ScenarioSpec
Read(toml::table& root,
     const std::string& displayName,
     const std::filesystem::path& baseDir,
     const std::vector<std::string>& overrides)
{
    ScenarioReader reader(displayName, baseDir);
    reader.RememberFileKinds(root, KindTables());
    for (const auto& o : overrides)
    {
        reader.ApplyOverride(root, o);
    }
    reader.DropOtherKindKeys(root, KindTables());
    ScenarioSpec spec;
    reader.SetKeyLines(&spec.keyLines);
    for (const auto& section : Sections())
    {
        section.read(reader, root, spec);
    }
    spec.sourceFile = displayName;
    return spec;
}

std::filesystem::path
BaseDirOf(const std::string& displayName)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path base = fs::path(displayName).parent_path();
    return base.empty() ? fs::current_path(ec) : fs::absolute(base, ec);
}

/** The TOML node with the content of JSON value `v` at `key` (null: an error). */
void
InsertJson(toml::table& t, const std::string& key, const nlohmann::json& v,
           const std::string& displayName, const std::string& path);

toml::array
JsonArray(const nlohmann::json& v, const std::string& displayName, const std::string& path)
{
    toml::array a;
    for (size_t i = 0; i < v.size(); ++i)
    {
        toml::table holder;
        InsertJson(holder, "v", v[i], displayName, path + "[" + std::to_string(i) + "]");
        a.push_back(*holder.get("v"));
    }
    return a;
}

void
InsertJson(toml::table& t, const std::string& key, const nlohmann::json& v,
           const std::string& displayName, const std::string& path)
{
    if (v.is_object())
    {
        toml::table sub;
        for (const auto& [k, x] : v.items())
        {
            InsertJson(sub, k, x, displayName, path.empty() ? k : path + "." + k);
        }
        t.insert_or_assign(key, std::move(sub));
    }
    else if (v.is_array())
    {
        t.insert_or_assign(key, JsonArray(v, displayName, path));
    }
    else if (v.is_boolean())
    {
        t.insert_or_assign(key, v.get<bool>());
    }
    else if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
    {
        throw InputError(displayName, 0, path, "expected an integer below 2^63; got " + v.dump());
    }
    else if (v.is_number_integer())
    {
        t.insert_or_assign(key, v.get<int64_t>());
    }
    else if (v.is_number_float())
    {
        t.insert_or_assign(key, v.get<double>());
    }
    else if (v.is_string())
    {
        t.insert_or_assign(key, v.get<std::string>());
    }
    else
    {
        throw InputError(displayName, 0, path, "expected a value; got " + v.dump());
    }
}

} // namespace

ScenarioSpec
LoadScenarioJson(const nlohmann::json& scenario,
                 const std::string& displayName,
                 const std::vector<std::string>& overrides)
{
    if (!scenario.is_object())
    {
        throw InputError(displayName, 0, "scenario", "expected a JSON object (a scenario)");
    }
    toml::table root;
    for (const auto& [k, v] : scenario.items())
    {
        InsertJson(root, k, v, displayName, k);
    }
    return Read(root, displayName, BaseDirOf(displayName), overrides);
}

std::string
ScenarioJsonToToml(const nlohmann::json& scenario, const std::string& displayName)
{
    if (!scenario.is_object())
    {
        throw InputError(displayName, 0, "scenario", "expected a JSON object (a scenario)");
    }
    toml::table root;
    for (const auto& [k, v] : scenario.items())
    {
        InsertJson(root, k, v, displayName, k);
    }
    std::ostringstream os;
    os << toml::toml_formatter(root);
    return os.str() + "\n";
}

nlohmann::json
ReadManifestJson(const std::string& manifestPath)
{
    std::ifstream in(manifestPath, std::ios::binary);
    if (!in)
    {
        throw InputError(manifestPath, 0, "", "cannot open the manifest");
    }
    try
    {
        return nlohmann::json::parse(in);
    }
    catch (const nlohmann::json::exception& e)
    {
        throw InputError(manifestPath, 0, "", std::string("not JSON: ") + e.what());
    }
}

ScenarioSpec
LoadManifestScenario(const std::string& manifestPath, const std::vector<std::string>& overrides)
{
    const nlohmann::json m = ReadManifestJson(manifestPath);
    if (!m.is_object() || !m.contains("scenario"))
    {
        throw InputError(manifestPath, 0, "scenario",
                         "expected a tusk manifest.json with a \"scenario\" object");
    }
    return LoadScenarioJson(m["scenario"], manifestPath, overrides);
}

ScenarioSpec
LoadScenarioString(const std::string& toml,
                   const std::string& displayName,
                   const std::vector<std::string>& overrides)
{
    toml::table root = ParseTomlText(toml, displayName);
    return Read(root, displayName, BaseDirOf(displayName), overrides);
}

ScenarioSpec
LoadScenarioFile(const std::string& path, const std::vector<std::string>& overrides)
{
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    {
        throw InputError(path, 0, "", "not a regular file: expected a TOML scenario file");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw InputError(path, 0, "", "cannot open the scenario file");
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
    {
        throw InputError(path, 0, "", "cannot read the scenario file");
    }
    toml::table root = ParseTomlText(text.str(), path);
    if (root.empty())
    {
        // Most likely a file truncated or not yet written; running every default in its name
        // would hide that (`tusk run` without a file refuses too).
        throw InputError(path, 0, "",
                         "the scenario file has no keys (empty, or comments only): give at "
                         "least `name` and a [workload] or [[jobs]] (docs/scenario-format.md); "
                         "`tusk compare` without a file runs the built-in default");
    }
    return Read(root, path, BaseDirOf(path), overrides);
}

nlohmann::json
ScenarioToJson(const ScenarioSpec& spec)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& section : Sections())
    {
        section.write(spec, j);
    }
    return j;
}

} // namespace tusk
