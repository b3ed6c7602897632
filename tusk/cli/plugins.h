/*
 * tusk: plugins, shared libraries of one's own kinds (policies, path selectors, congestion
 * controls) loaded into the command line (docs/extending.md, "A plugin").
 *
 * A plugin is a shared library built against the installed package (find_package(tusk),
 * tusk::tusk) whose files register their kinds with static objects, as the built-in ones do.
 * `--plugin LIB.so` (repeatable) and $TUSK_PLUGIN_PATH (colon-separated .so files, or folders
 * whose *.so files are loaded in name order) load them with dlopen(RTLD_NOW | RTLD_GLOBAL)
 * before the scenario is read; from then on their names work everywhere a built-in name does.
 * Each run's manifest records the plugins loaded (path, SHA-256); `tusk rerun` loads them and
 * refuses a missing or changed one; a sweep's plan records them for its runs, its Slurm tasks
 * and a resumed sweep.
 */
#ifndef TUSK_PLUGINS_H
#define TUSK_PLUGINS_H

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace CLI
{
class App;
}

namespace tusk
{

/** A loaded plugin: its absolute, normalised path and the SHA-256 (hex) of its bytes. */
struct PluginRecord
{
    std::string path;
    std::string sha256;
};

/**
 * \brief Load the shared library at `path` (relative to the working directory) with
 * dlopen(RTLD_NOW | RTLD_GLOBAL); a library already loaded (same absolute path) is not loaded
 * again.
 * \param where what named it, for the error ("--plugin", "TUSK_PLUGIN_PATH", a manifest)
 * \throws ns3::InputError naming `where` and the path when there is no such file or dlopen
 *         fails (with dlerror's text: a missing symbol, a library it needs)
 */
const PluginRecord& LoadPlugin(const std::string& path, const std::string& where = "--plugin");

/**
 * \brief The library files a TUSK_PLUGIN_PATH value names, in order: each colon-separated
 * entry is a file, or a folder whose regular files ending in ".so" are taken sorted by name;
 * empty entries are skipped.
 * \throws ns3::InputError (file TUSK_PLUGIN_PATH) for an entry that does not exist
 */
std::vector<std::string> PluginPathFiles(const std::string& value);

/** The plugins loaded so far, in load order. */
const std::vector<PluginRecord>& LoadedPlugins();

/** LoadedPlugins() as JSON: [{"path": ..., "sha256": ...}, ...] (a manifest's, a plan's). */
nlohmann::json PluginsJson();

/**
 * \brief Load the plugins a run's manifest or a sweep's plan records (`recorded`: the JSON of
 * PluginsJson; null or absent = none). When plugins are loaded already (`--plugin`), nothing
 * more is loaded: each recorded one must be among them, by its SHA-256 (a moved file).
 * \param file the manifest or plan, for the error
 * \param allowChanged accept a plugin whose bytes changed since (a sweep rerunning every run)
 * \throws ns3::InputError naming `file`, key "plugins", when a recorded plugin is missing,
 *         cannot be loaded, or (unless allowChanged) its SHA-256 differs from the recorded one;
 *         with plugins loaded already, when one recorded is not among them
 */
void LoadRecordedPlugins(const nlohmann::json& recorded, const std::string& file,
                         bool allowChanged = false);

/**
 * \brief LoadRecordedPlugins of the run whose manifest.json is `manifestPath` (its "plugins";
 * nothing when it has none or is not JSON: reading its scenario reports that).
 * \throws ns3::InputError as LoadRecordedPlugins, naming the manifest
 */
void LoadManifestPlugins(const std::string& manifestPath);

/**
 * \brief `--plugin LIB.so` on the subcommands that read scenarios or list kinds (run, compare,
 * sweep, regress, rerun, policies, kinds and the Slurm task), and their loading.
 */
class PluginOptions
{
  public:
    /** Adds `--plugin` (repeatable) to each of those subcommands `app` has. */
    explicit PluginOptions(CLI::App& app);
    PluginOptions(const PluginOptions&) = delete; // the options write into m_paths
    PluginOptions& operator=(const PluginOptions&) = delete;

    /**
     * \brief When one of those subcommands was given: load $TUSK_PLUGIN_PATH's libraries,
     * then the `--plugin` ones, in order. Other subcommands load nothing.
     * \throws ns3::InputError for a library that cannot be loaded (exit status 2)
     */
    void Load() const;

  private:
    std::vector<CLI::App*> m_commands;
    std::vector<std::string> m_paths;
};

} // namespace tusk

#endif
