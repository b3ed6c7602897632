#include "results/rerun.h"

#include "scenario/scenario-inputs.h"

#include "cli/plugins.h"

#include "results/results-dir.h"
#include "results/results-writer.h"
#include "scenario/scenario-toml.h"

#include "fabric/model/input-error.h"
#include "fabric/model/input-excerpt.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

namespace tusk
{

namespace fs = std::filesystem;
using ns3::InputError;

namespace
{

/** A plain file name: what a manifest's "files" may list (a file inside the results folder). */
bool
IsPlainFileName(const std::string& name)
{
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
    {
        return false;
    }
    for (char c : name)
    {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        {
            return false;
        }
    }
    return true;
}

/** A JSON value for a message: a string bounded and escaped (ns3::QuoteExcerpt), another
 *  value as its type and its JSON text, likewise ('number "5"'). */
std::string
Shown(const nlohmann::json& v)
{
    if (v.is_string())
    {
        return ns3::QuoteExcerpt(v.get<std::string>());
    }
    return std::string(v.type_name()) + " " +
           ns3::QuoteExcerpt(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

/** Whether two regular files hold the same bytes. */
bool
SameBytes(const fs::path& a, const fs::path& b)
{
    std::error_code ec1;
    std::error_code ec2;
    if (fs::file_size(a, ec1) != fs::file_size(b, ec2) || ec1 || ec2)
    {
        return false;
    }
    std::ifstream ia(a, std::ios::binary);
    std::ifstream ib(b, std::ios::binary);
    std::string ba(1 << 16, '\0');
    std::string bb(1 << 16, '\0');
    while (ia && ib)
    {
        ia.read(ba.data(), static_cast<std::streamsize>(ba.size()));
        ib.read(bb.data(), static_cast<std::streamsize>(bb.size()));
        if (ia.gcount() != ib.gcount() || ba.compare(0, ia.gcount(), bb, 0, ib.gcount()) != 0)
        {
            return false;
        }
    }
    return !ia.bad() && !ib.bad() && ia.eof() && ib.eof();
}

/** The entries of a folder (not followed: a symlink is a symlink), by name. */
std::map<std::string, fs::file_type>
Entries(const fs::path& dir)
{
    std::map<std::string, fs::file_type> out;
    for (const auto& e : fs::directory_iterator(dir))
    {
        out[e.path().filename().string()] = e.symlink_status().type();
    }
    return out;
}

} // namespace

RerunManifest
ReadRerunManifest(const std::string& manifestPath)
{
    const nlohmann::json m = ReadManifestJson(manifestPath);
    if (!m.is_object())
    {
        throw InputError(manifestPath, 0, "", "expected a JSON object (a run's manifest.json)");
    }
    RerunManifest r;
    const auto status = m.find("status");
    if (status == m.end() || !status->is_string() || (*status != "ok" && *status != "failed"))
    {
        throw InputError(manifestPath, 0, "status",
                         "expected \"ok\" or \"failed\"; " +
                             (status == m.end() ? std::string("missing") : "got " + Shown(*status)));
    }
    r.status = status->get<std::string>();
    const auto files = m.find("files");
    if (files == m.end() || !files->is_array())
    {
        throw InputError(manifestPath, 0, "files",
                         "expected an array of the result files' names; " +
                             (files == m.end() ? std::string("missing") : "got " + Shown(*files)));
    }
    for (size_t i = 0; i < files->size(); ++i)
    {
        const nlohmann::json& f = (*files)[i];
        if (!f.is_string() || !IsPlainFileName(f.get<std::string>()))
        {
            throw InputError(manifestPath, 0, fmt::format("files[{}]", i),
                             "expected the name of a file in the results folder (no '/', not "
                             "\".\" or \"..\"); got " + Shown(f));
        }
        r.files.push_back(f.get<std::string>());
    }
    if (!m.contains("scenario"))
    {
        throw InputError(manifestPath, 0, "scenario",
                         "expected a tusk manifest.json with a \"scenario\" object");
    }
    r.spec = LoadScenarioJson(m.at("scenario"), manifestPath);
    if (m.contains("inputs") && m.at("inputs").is_array())
    {
        r.inputs = m.at("inputs");
    }
    return r;
}

CLI::App*
AddRerunCommand(CLI::App& app, RerunOptions& o)
{
    auto* rerun = app.add_subcommand(
        "rerun",
        "Run again from a run's manifest.json alone and compare every result file of the two "
        "folders byte for byte (exit 0: reproduced). `tusk run RESULTS_DIR/manifest.json` runs "
        "it without comparing.");
    rerun->add_option("results_dir", o.resultsDir,
                      "A run directory (with manifest.json), or its manifest.json")->required();
    rerun->add_option("--out", o.out, "Results directory (default RESULTS_DIR.rerun)");
    rerun->add_flag("-q,--quiet", o.quiet, "No progress line on stderr");
    return rerun;
}

int
RunRerun(const RerunOptions& o, std::ostream& out)
{
    fs::path original = fs::path(o.resultsDir).lexically_normal();
    if (!original.has_filename() && original.has_parent_path())
    {
        original = original.parent_path(); // "run/" is the folder "run"
    }
    if (original.filename() == "manifest.json" && fs::is_regular_file(original))
    {
        original = original.parent_path(); // "run/manifest.json" names the folder "run"
    }
    if (original.empty() || original == ".")
    {
        // Run from inside the results folder: name it by its absolute path, so that the rerun
        // goes beside it (../RUN.rerun), not into it.
        std::error_code cwdError;
        original = fs::current_path(cwdError);
    }
    const fs::path manifestPath = original / "manifest.json";
    if (!fs::is_regular_file(manifestPath))
    {
        throw InputError(o.resultsDir, 0, "",
                         "not a run's results directory (no manifest.json); for a comparison, "
                         "rerun one of its policy folders");
    }
    // The plugins the run loaded, before its scenario names their kinds (plugins.h).
    LoadManifestPlugins(manifestPath.string());
    const RerunManifest before = ReadRerunManifest(manifestPath.string());
    std::string leaf = original.filename().string();
    if (leaf.empty() || leaf == ".")
    {
        leaf = fs::absolute(original).lexically_normal().filename().string();
    }
    const fs::path rerunDir = !o.out.empty() ? fs::path(o.out) : original.parent_path() / (leaf + ".rerun");
    // The rerun is written beside the run: never into it, and never into a folder that holds
    // it (a comparison's folder), which the commit would replace with the rerun alone.
    std::error_code ec;
    const fs::path a = fs::weakly_canonical(fs::absolute(rerunDir), ec);
    const fs::path b = fs::weakly_canonical(fs::absolute(original), ec);
    const auto within = [](const fs::path& inner, const fs::path& outer) {
        const auto r = inner.lexically_relative(outer);
        return !r.empty() && *r.begin() != "..";
    };
    if (within(b, a) || within(a, b))
    {
        throw InputError("<command line>", 0, o.out.empty() ? "results_dir" : "--out",
                         o.out.empty()
                             ? "its rerun would go to " + rerunDir.string() +
                                   ", inside or around the folder being rerun; give --out, a "
                                   "folder beside it"
                             : "is the results folder being rerun, or a folder that holds it "
                               "or lies inside it; give a folder beside it");
    }
    RunOptions ro;
    ro.progress = !o.quiet;
    ro.streamRows = true; // the files are compared, not the rows
    const RunResult r = RunInto(before.spec, rerunDir.string(), ro);

    // Compare what the two folders hold (not what the manifest says they hold).
    const auto was = Entries(original);
    const auto now = Entries(rerunDir);
    std::set<std::string> names(before.files.begin(), before.files.end());
    for (const auto* side : {&was, &now})
    {
        for (const auto& [name, type] : *side)
        {
            names.insert(name);
        }
    }
    names.erase("manifest.json");
    names.erase(kResultsMarker); // it records the process that wrote the folder
    out << fmt::format("comparing {}/ with {}/: every file of the two folders byte for byte, "
                       "manifest.json by its status, not the {} marker\n",
                       original.string(), rerunDir.string(), kResultsMarker);
    int differ = 0;
    for (const auto& name : names)
    {
        const auto a = was.find(name);
        const auto b = now.find(name);
        const bool inA = a != was.end();
        const bool inB = b != now.end();
        std::string verdict;
        if ((inA && a->second == fs::file_type::directory) || (inB && b->second == fs::file_type::directory))
        {
            out << fmt::format("{:<24} a folder, not compared\n", name + "/");
            continue;
        }
        if (!inA && !inB)
        {
            verdict = "DIFFERS: listed in the manifest, in neither folder";
        }
        else if (!inB)
        {
            verdict = "DIFFERS: only in the original";
        }
        else if (!inA)
        {
            verdict = "DIFFERS: only in the rerun";
        }
        else if (a->second != fs::file_type::regular || b->second != fs::file_type::regular)
        {
            verdict = "DIFFERS: not a regular file (not followed)";
        }
        else
        {
            verdict = SameBytes(original / name, rerunDir / name) ? "identical" : "DIFFERS";
        }
        differ += verdict == "identical" ? 0 : 1;
        out << fmt::format("{:<24} {}\n", name, verdict);
    }
    const std::string statusNow = r.failure.empty() ? "ok" : "failed";
    out << fmt::format("{:<24} status {} before, {} now{}\n", "manifest.json", before.status,
                       statusNow, before.status == statusNow ? "" : " (DIFFERS)");
    differ += before.status == statusNow ? 0 : 1;
    out << (differ == 0 ? "reproduced: " : "NOT reproduced: ") << original.string() << " -> "
        << rerunDir.string() << "/\n";
    // A file the scenario reads that changed since explains a difference: say which.
    const nlohmann::json inputsNow = InputsJson(before.spec);
    for (const auto& was : before.inputs)
    {
        bool same = false;
        for (const auto& now : inputsNow)
        {
            same = same || (now.value("key", "") == was.value("key", "") &&
                            now.value("path", "") == was.value("path", "") &&
                            now.value("sha256", "") == was.value("sha256", ""));
        }
        if (!same)
        {
            out << fmt::format("note: {} ({}) changed since the run: its SHA-256 differs from the "
                               "manifest's inputs\n",
                               was.value("key", "?"), was.value("path", "?"));
        }
    }
    if (!r.failure.empty())
    {
        std::cerr << "tusk: the run failed (as " << (before.status == "failed" ? "before" : "not before")
                  << "): " << r.failure << "\n";
    }
    return differ == 0 ? 0 : 1;
}

} // namespace tusk
