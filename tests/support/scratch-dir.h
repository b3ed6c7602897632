/*
 * Helper of the tests that write files: a private scratch folder, removed with everything in
 * it when the object goes out of scope (a failed REQUIRE unwinds through it too).
 */
#ifndef TUSK_TEST_SCRATCH_DIR_H
#define TUSK_TEST_SCRATCH_DIR_H

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace tusk_test
{

/**
 * A fresh folder under the system's temporary directory, made with mkdtemp(3) so that two
 * test processes at once (a CI build and a sanitizer build, two ctest shards) never share it,
 * and removed, contents included, by the destructor. Not copyable.
 */
class ScratchDir
{
  public:
    /** @param tag a few letters naming the test in the folder's name (tusk-TAG-XXXXXX). */
    explicit ScratchDir(const std::string& tag)
    {
        std::string tmpl =
            (std::filesystem::temp_directory_path() / ("tusk-" + tag + "-XXXXXX")).string();
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        if (::mkdtemp(buf.data()) == nullptr)
        {
            throw std::runtime_error("mkdtemp failed for " + tmpl);
        }
        m_root = buf.data();
    }

    ~ScratchDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(m_root, ec);
    }

    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    /** The folder itself. */
    const std::filesystem::path& Root() const { return m_root; }

    /** The path of `name` inside the folder (not created). */
    std::string Path(const std::string& name) const { return (m_root / name).string(); }

    /** Write `text` to `name` (binary, replacing it) and return its path; parent folders of a
     *  nested name are made. */
    std::string Write(const std::string& name, const std::string& text) const
    {
        const std::filesystem::path p = m_root / name;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream out(p, std::ios::binary);
        out << text;
        if (!out)
        {
            throw std::runtime_error("cannot write " + p.string());
        }
        return p.string();
    }

    /** Write `lines` to `name`, each followed by '\n' (line i of the file is lines[i - 1]). */
    std::string WriteLines(const std::string& name, const std::vector<std::string>& lines) const
    {
        std::string text;
        for (const auto& l : lines)
        {
            text += l;
            text += '\n';
        }
        return Write(name, text);
    }

  private:
    std::filesystem::path m_root;
};

} // namespace tusk_test

#endif
