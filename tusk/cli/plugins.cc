#include "cli/plugins.h"
#include "cli/kinds.h"
#include <fmt/format.h>

#include "fabric/model/registry.h"

#include "sweep/sweep-plan.h" // Sha256Hex

#include "fabric/model/input-error.h"

#include "ns3/type-id.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <dlfcn.h>

namespace tusk
{

namespace fs = std::filesystem;
using ns3::InputError;

namespace
{

/** The subcommands that take --plugin: those that read scenarios or list kinds. */
const char* const kPluginCommands[] = {"run",   "compare",  "sweep", "regress",
                                       "rerun", "policies", "kinds", "sweep-task"};

std::vector<PluginRecord>&
Loaded()
{
    static std::vector<PluginRecord> loaded;
    return loaded;
}

std::string
FileSha256(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return Sha256Hex(bytes.str());
}

} // namespace

const PluginRecord&
LoadPlugin(const std::string& path, const std::string& where)
{
    const std::string abs = fs::absolute(path).lexically_normal().string();
    for (const auto& p : Loaded())
    {
        if (p.path == abs)
        {
            return p;
        }
    }
    if (!fs::is_regular_file(abs))
    {
        throw InputError(where, 0, "", "plugin " + abs + ": no such file");
    }
    // RTLD_GLOBAL: the plugin's TypeIds and registrations join the process's tables, and a
    // plugin may use another's symbols. Never closed: its objects live as long as the process.
    // A name the plugin registers that is taken already (a built-in kind, or the same library
    // under another path) is reported here, not an abort inside dlopen.
    std::vector<std::string> clashes;
    // What is registered before: a library that adds no kind (every registry `tusk kinds`
    // lists) and no ns-3 TypeId is not a tusk plugin, or is one loaded already.
    const std::string kindsBefore = KindsText();
    const uint16_t typeIdsBefore = ns3::TypeId::GetRegisteredN();
    ns3::SetPluginRegistrationErrors(&clashes);
    void* handle = ::dlopen(abs.c_str(), RTLD_NOW | RTLD_GLOBAL);
    ns3::SetPluginRegistrationErrors(nullptr);
    if (handle == nullptr)
    {
        const char* err = ::dlerror();
        throw InputError(where, 0, "",
                         "plugin " + abs + " cannot be loaded: " + (err ? err : "dlopen failed"));
    }
    if (!clashes.empty())
    {
        throw InputError(where, 0, "",
                         "plugin " + abs + " registers a name that is taken: " + clashes.front() +
                             (clashes.size() > 1
                                  ? fmt::format(" (and {} more)", clashes.size() - 1)
                                  : std::string()));
    }
    if (ns3::TypeId::GetRegisteredN() == typeIdsBefore && KindsText() == kindsBefore)
    {
        throw InputError(where, 0, "",
                         "plugin " + abs +
                             ": no tusk registration found (it registers no policy, path "
                             "selector, congestion control, loss recovery, topology, failure, "
                             "fabric or collective kind and no ns-3 TypeId): not a tusk plugin, "
                             "or one loaded already (docs/extending.md, \"A plugin\")");
    }
    Loaded().push_back({abs, FileSha256(abs)});
    return Loaded().back();
}

std::vector<std::string>
PluginPathFiles(const std::string& value)
{
    std::vector<std::string> files;
    std::stringstream ss(value);
    for (std::string entry; std::getline(ss, entry, ':');)
    {
        if (entry.empty())
        {
            continue;
        }
        if (fs::is_directory(entry))
        {
            std::vector<std::string> inFolder;
            for (const auto& f : fs::directory_iterator(entry))
            {
                if (f.is_regular_file() && f.path().extension() == ".so")
                {
                    inFolder.push_back(f.path().string());
                }
            }
            std::sort(inFolder.begin(), inFolder.end());
            files.insert(files.end(), inFolder.begin(), inFolder.end());
        }
        else if (fs::exists(entry))
        {
            files.push_back(entry);
        }
        else
        {
            throw InputError("TUSK_PLUGIN_PATH", 0, "",
                             "\"" + entry + "\": no such file or folder");
        }
    }
    return files;
}

const std::vector<PluginRecord>&
LoadedPlugins()
{
    return Loaded();
}

nlohmann::json
PluginsJson()
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : Loaded())
    {
        out.push_back({{"path", p.path}, {"sha256", p.sha256}});
    }
    return out;
}

void
LoadRecordedPlugins(const nlohmann::json& recorded, const std::string& file, bool allowChanged)
{
    if (!recorded.is_array())
    {
        return;
    }
    // Libraries given on this command line stand for the recorded ones with the same bytes
    // (a plugin moved); loading a recorded one beside them would register its names twice.
    const std::vector<PluginRecord> given = Loaded();
    for (const auto& p : recorded)
    {
        const std::string path = p.value("path", "");
        const std::string sha = p.value("sha256", "");
        if (!given.empty())
        {
            const bool found = std::any_of(given.begin(), given.end(), [&](const PluginRecord& g) {
                return g.sha256 == sha || (allowChanged && g.path == path);
            });
            if (!found)
            {
                throw InputError(file, 0, "plugins",
                                 "the plugin " + path + " (SHA-256 " + sha +
                                     ") it was made with is not among the --plugin libraries "
                                     "given; give it, or none to load it from that path");
            }
            continue;
        }
        if (!fs::is_regular_file(path))
        {
            throw InputError(file, 0, "plugins",
                             "the plugin " + path + " it was made with is missing (build it "
                             "again at that path, or run the scenario afresh)");
        }
        const std::string now = FileSha256(path);
        if (now != sha && !allowChanged)
        {
            throw InputError(file, 0, "plugins",
                             "the plugin " + path + " changed since (SHA-256 " + sha + ", now " +
                                 now + "): its results would not be comparable");
        }
        LoadPlugin(path, file);
    }
}

void
LoadManifestPlugins(const std::string& manifestPath)
{
    std::ifstream in(manifestPath);
    const auto m = nlohmann::json::parse(in, nullptr, false);
    if (m.is_object())
    {
        LoadRecordedPlugins(m.value("plugins", nlohmann::json()), manifestPath);
    }
}

PluginOptions::PluginOptions(CLI::App& app)
{
    for (const char* name : kPluginCommands)
    {
        CLI::App* cmd = nullptr;
        try
        {
            cmd = app.get_subcommand(name);
        }
        catch (const CLI::OptionNotFound&)
        {
            continue;
        }
        cmd->add_option("--plugin", m_paths,
                        "Load a shared library of one's own policies, path selectors or "
                        "congestion controls first (repeatable; also $TUSK_PLUGIN_PATH; "
                        "docs/extending.md)")
            ->allow_extra_args(false);
        m_commands.push_back(cmd);
    }
}

void
PluginOptions::Load() const
{
    if (std::none_of(m_commands.begin(), m_commands.end(),
                     [](const CLI::App* c) { return c->parsed(); }))
    {
        return;
    }
    if (const char* env = std::getenv("TUSK_PLUGIN_PATH"))
    {
        for (const auto& f : PluginPathFiles(env))
        {
            LoadPlugin(f, "TUSK_PLUGIN_PATH");
        }
    }
    for (const auto& p : m_paths)
    {
        LoadPlugin(p, "--plugin");
    }
}

} // namespace tusk
