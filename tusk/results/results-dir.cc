#include "results/results-dir.h"

#include "tusk-version.h"

#include "fabric/model/input-error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tusk
{

namespace fs = std::filesystem;

const char* const kResultsMarker = ".tusk-results";

namespace
{

/**
 * The StagedResults alive in this process, for AbandonActiveStaging, which runs in a signal
 * handler: plain character arrays, read there without allocating ("" = none).
 */
char g_activeStaging[PATH_MAX];
char g_activeLock[PATH_MAX];

/** Copy `from` into a registration array ("" when it does not fit: then nothing is removed). */
void
Register(char (&to)[PATH_MAX], const std::string& from)
{
    const size_t n = from.size() < PATH_MAX ? from.size() : 0;
    std::memcpy(to, from.data(), n);
    to[n] = '\0';
}

/**
 * Remove `name` (a file or a folder and all it holds) under the folder `parentFd`, with system
 * calls only (openat, getdents64, unlinkat, close): async-signal-safe, unlike
 * std::filesystem::remove_all, which allocates (an interrupt that arrived inside malloc then
 * aborted in malloc and left the folder behind). Entries are removed while their folder is
 * read, so it is read again until a pass finds nothing; at most 16 levels deep.
 */
void
RemoveTreeAt(int parentFd, const char* name, int depth)
{
    if (::unlinkat(parentFd, name, 0) == 0 || depth > 16)
    {
        return;
    }
    const int fd = ::openat(parentFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
    {
        return;
    }
    alignas(8) char buf[4096];
    for (int pass = 0; pass < 1000; ++pass)
    {
        bool found = false;
        ::lseek(fd, 0, SEEK_SET);
        for (;;)
        {
            const ssize_t n = ::getdents64(fd, buf, sizeof buf);
            if (n <= 0)
            {
                break;
            }
            for (ssize_t off = 0; off < n;)
            {
                const auto* d = reinterpret_cast<const struct dirent64*>(buf + off);
                off += d->d_reclen;
                const char* e = d->d_name;
                if (e[0] == '.' && (e[1] == '\0' || (e[1] == '.' && e[2] == '\0')))
                {
                    continue;
                }
                found = true;
                RemoveTreeAt(fd, e, depth + 1);
            }
        }
        if (!found)
        {
            break;
        }
    }
    ::close(fd);
    ::unlinkat(parentFd, name, AT_REMOVEDIR);
}

/**
 * SIGINT and SIGTERM held back for this object's life: the interrupt handler
 * (AbandonActiveStaging) must never run between the creation of a staging folder and its
 * registration in g_activeStaging, or while that string is being written, or it would leave the
 * folder behind (a sweep killed while starting a run did exactly that).
 */
class InterruptsHeld
{
  public:
    InterruptsHeld()
    {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGINT);
        sigaddset(&s, SIGTERM);
        ::pthread_sigmask(SIG_BLOCK, &s, &m_old);
    }
    ~InterruptsHeld()
    {
        ::pthread_sigmask(SIG_SETMASK, &m_old, nullptr); // a held signal is delivered here
    }
    InterruptsHeld(const InterruptsHeld&) = delete;
    InterruptsHeld& operator=(const InterruptsHeld&) = delete;

  private:
    sigset_t m_old;
};

/** A staging folder without its owner record is removed once this old (its maker died at once). */
constexpr auto kEmptyStagingAge = std::chrono::seconds(60);

std::string
ReadText(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string
Trimmed(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    {
        s.pop_back();
    }
    return s;
}

std::string
BootId()
{
    return Trimmed(ReadText("/proc/sys/kernel/random/boot_id"));
}

/** Field 22 of /proc/PID/stat (start time in clock ticks since boot), "" if no such process. */
std::string
ProcessStart(long pid)
{
    const std::string stat = ReadText(fmt::format("/proc/{}/stat", pid));
    const size_t paren = stat.rfind(')');
    if (paren == std::string::npos)
    {
        return "";
    }
    std::istringstream in(stat.substr(paren + 1));
    std::string field;
    for (int i = 0; i < 20 && in >> field; ++i)
    {
    }
    return field;
}

/** Who writes a staging folder: this process. */
nlohmann::ordered_json
ThisOwner()
{
    return {{"host", HostName()},
            {"boot_id", BootId()},
            {"pid", static_cast<long>(::getpid())},
            {"pid_start", ProcessStart(::getpid())}};
}

enum class Owner
{
    Alive,
    Gone,
    Unknown //!< another host, or no owner record
};

Owner
OwnerState(const nlohmann::json& owner)
{
    if (!owner.is_object() || !owner.contains("pid") || !owner["pid"].is_number_integer() ||
        owner.value("host", "") != HostName())
    {
        return Owner::Unknown;
    }
    if (owner.value("boot_id", "") != BootId())
    {
        return Owner::Gone; // this host rebooted since
    }
    const std::string start = ProcessStart(owner["pid"].get<long>());
    return !start.empty() && start == owner.value("pid_start", "") ? Owner::Alive : Owner::Gone;
}

/** The entries of `dir`, sorted by path; `readable` false (and what was read) on an error. */
std::vector<fs::directory_entry>
SortedEntries(const fs::path& dir, bool* readable = nullptr)
{
    std::error_code ec;
    std::vector<fs::directory_entry> entries;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    {
        entries.push_back(*it);
    }
    if (readable)
    {
        *readable = !ec;
    }
    std::sort(entries.begin(), entries.end());
    return entries;
}

/** The marker of `dir` if it has one tusk can read (format known), else null. */
nlohmann::json
ReadMarker(const fs::path& dir)
{
    std::error_code ec;
    if (!fs::is_regular_file(dir / kResultsMarker, ec))
    {
        return nullptr;
    }
    nlohmann::json m = nlohmann::json::parse(ReadText(dir / kResultsMarker), nullptr, false);
    if (!m.is_object() || !m.contains("tusk_results") || !m["tusk_results"].is_number_integer() ||
        m["tusk_results"].get<int>() < 1 || m["tusk_results"].get<int>() > kResultsMarkerFormat)
    {
        return nullptr;
    }
    return m;
}

/** Regular files (and links) below `dir`, relative to `root`, sorted; not the top marker. */
void
ListFiles(const fs::path& root, const fs::path& dir, std::vector<std::string>& out)
{
    for (const auto& e : SortedEntries(dir))
    {
        if (e.is_directory() && !e.is_symlink())
        {
            ListFiles(root, e.path(), out);
        }
        else if (!(dir == root && e.path().filename() == kResultsMarker))
        {
            out.push_back(e.path().lexically_relative(root).string());
        }
    }
}

/**
 * Files below `dir` (a folder inside the results folder `root`, whose marker lists `listed`)
 * that tusk did not write, as paths relative to `top`. A folder with a marker of its own is a
 * results folder of its own (a report, a rerun): checked against its own list.
 */
void
CollectForeign(const fs::path& top, const fs::path& root, const fs::path& dir,
               const std::set<std::string>& listed, std::vector<std::string>& out)
{
    std::error_code ec;
    bool readable = true;
    const auto entries = SortedEntries(dir, &readable);
    if (!readable)
    {
        out.push_back(dir.lexically_relative(top).string() + "/ (cannot be read)");
        return; // what it holds cannot be told: never tusk's own
    }
    for (const auto& e : entries)
    {
        const std::string rel = e.path().lexically_relative(root).string();
        if (dir == root && e.path().filename() == kResultsMarker)
        {
            continue;
        }
        if (e.is_directory(ec) && !e.is_symlink(ec))
        {
            const nlohmann::json m = ReadMarker(e.path());
            if (m.is_null())
            {
                CollectForeign(top, root, e.path(), listed, out);
            }
            else if (m.value("state", "") == "complete")
            {
                const auto files = m.value("files", std::vector<std::string>{});
                CollectForeign(top, e.path(), e.path(), {files.begin(), files.end()}, out);
            }
            // else: a staging folder of tusk's inside (a report being written): tusk's own
        }
        else if (listed.count(rel) == 0)
        {
            out.push_back(e.path().lexically_relative(top).string());
        }
    }
}

/** "a, b, c, d, e and 7 more" */
std::string
SomeOf(const std::vector<std::string>& names)
{
    constexpr size_t kShown = 5;
    std::string s;
    for (size_t i = 0; i < names.size() && i < kShown; ++i)
    {
        s += (i ? ", " : "") + names[i];
    }
    if (names.size() > kShown)
    {
        s += fmt::format(" and {} more", names.size() - kShown);
    }
    return s;
}

bool
IsEmptyDir(const fs::path& p)
{
    std::error_code ec;
    return fs::is_empty(p, ec) && !ec;
}

} // namespace

std::string
DestinationPath(const std::string& dir)
{
    fs::path p(dir);
    const std::string leaf = p.filename().string();
    if (leaf.empty() || leaf == "." || leaf == "..")
    {
        // "out/", ".", "..": the folder by its own name, so that its lock and staging folders
        // go beside it, not into it.
        p = fs::absolute(p).lexically_normal();
        if (!p.has_filename())
        {
            p = p.parent_path();
        }
    }
    if (p.empty() || fs::absolute(p).lexically_normal() == fs::absolute(p).root_path())
    {
        throw ns3::InputError(dir, 0, "--out", "is the root folder; choose a folder for the results");
    }
    return p.string();
}

namespace
{

/** Create the parent of `finalDir`; the path of its lock file. */
std::string
LockPathOf(const std::string& finalDir)
{
    const fs::path final(finalDir);
    if (final.has_parent_path())
    {
        std::error_code ec;
        fs::create_directories(final.parent_path(), ec);
        if (ec)
        {
            throw ns3::InputError(finalDir, 0, "--out",
                                  "cannot create its parent directory: " + ec.message());
        }
    }
    return finalDir + ".lock";
}

/** Write all `n` bytes at `data` to `fd`; false with errno set on an error. */
bool
WriteAll(int fd, const char* data, size_t n)
{
    const char* p = data;
    size_t left = n;
    while (left > 0)
    {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            return false;
        }
        p += n;
        left -= static_cast<size_t>(n);
    }
    return true;
}

} // namespace

std::string
HostName()
{
    char buf[256] = {};
    ::gethostname(buf, sizeof(buf) - 1);
    return buf;
}

WriteError::WriteError(const std::string& path, int err)
    : std::runtime_error(path + ": " + std::strerror(err))
{
}

WriteError::WriteError(const std::string& message)
    : std::runtime_error(message)
{
}

AtomicFile::AtomicFile(std::string path)
    : m_path(std::move(path)),
      m_tmp(m_path + fmt::format(".tmp-{}", ::getpid()))
{
    m_fd = ::open(m_tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (m_fd < 0)
    {
        throw WriteError(m_path, errno);
    }
}

AtomicFile::~AtomicFile()
{
    if (m_fd >= 0)
    {
        ::close(m_fd);
    }
    if (!m_tmp.empty())
    {
        ::unlink(m_tmp.c_str());
    }
}

void
AtomicFile::Write(const char* data, size_t n)
{
    if (!WriteAll(m_fd, data, n))
    {
        throw WriteError(m_path, errno);
    }
}

void
AtomicFile::Commit()
{
    const bool synced = ::fsync(m_fd) == 0;
    const int err = errno;
    const bool closed = ::close(m_fd) == 0;
    m_fd = -1;
    if (!synced || !closed || ::rename(m_tmp.c_str(), m_path.c_str()) != 0)
    {
        const int e = !synced ? err : errno;
        ::unlink(m_tmp.c_str());
        m_tmp.clear();
        throw WriteError(m_path, e);
    }
    m_tmp.clear();
}

void
WriteFileAtomic(const std::string& path, const std::string& text)
{
    AtomicFile f(path);
    f.Write(text);
    f.Commit();
}

PathLock::PathLock(const std::string& path, const std::string& holder, const std::string& subject,
                   bool removeOnRelease)
    : m_path(path),
      m_remove(removeOnRelease)
{
    // A released lock file may be unlinked: lock the file the path names now, or try again.
    for (int attempt = 0; attempt < 100 && m_fd < 0; ++attempt)
    {
        // O_NOFOLLOW: a symlink in the lock's place is never followed (its target would be
        // truncated); a file there that is not a lock tusk wrote (a pid) is the user's.
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
        {
            throw ns3::InputError(subject, 0, "", fmt::format("cannot create the lock file {}: {}",
                                                              path, std::strerror(errno)));
        }
        struct stat st{};
        const std::string content = Trimmed(ReadText(path));
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 32 ||
            content.find_first_not_of("0123456789") != std::string::npos)
        {
            ::close(fd);
            throw ns3::InputError(subject, 0, "",
                                  fmt::format("{} exists and is not a lock file tusk wrote (a "
                                              "pid); refusing to use or remove it",
                                              path));
        }
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0)
        {
            const int err = errno;
            const std::string pid = Trimmed(ReadText(path));
            ::close(fd);
            if (err == EWOULDBLOCK)
            {
                throw ns3::InputError(
                    subject, 0, "",
                    fmt::format("{} (pid {}) is writing it (it holds {}); refusing to write it at "
                                "the same time",
                                holder, pid.empty() ? "unknown" : pid, path));
            }
            throw ns3::InputError(subject, 0, "",
                                  fmt::format("cannot lock {}: {}", path, std::strerror(err)));
        }
        struct stat held{};
        struct stat named{};
        if (::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 &&
            held.st_dev == named.st_dev && held.st_ino == named.st_ino)
        {
            m_fd = fd;
        }
        else
        {
            ::close(fd);
        }
    }
    if (m_fd < 0)
    {
        throw ns3::InputError(subject, 0, "", "cannot lock " + path + ": it keeps being replaced");
    }
    const std::string pid = fmt::format("{}\n", ::getpid());
    if (::ftruncate(m_fd, 0) != 0 || !WriteAll(m_fd, pid.data(), pid.size()))
    {
        // The pid is only for the message of a refused second writer; the lock holds anyway.
    }
}

PathLock::~PathLock()
{
    if (m_remove)
    {
        ::unlink(m_path.c_str()); // while still held: a waiting opener retries on the new file
    }
    ::close(m_fd);
}

std::vector<std::string>
ForeignFiles(const std::string& dir)
{
    std::vector<std::string> out;
    const fs::path root(dir);
    const nlohmann::json m = ReadMarker(root);
    std::set<std::string> listed;
    if (!m.is_null())
    {
        const auto files = m.value("files", std::vector<std::string>{});
        listed.insert(files.begin(), files.end());
    }
    CollectForeign(root, root, root, listed, out);
    return out;
}

std::string
ReplaceRefusal(const std::string& dir)
{
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(dir, ec);
    if (!fs::exists(st))
    {
        return "";
    }
    if (fs::is_symlink(st))
    {
        return "is a symbolic link; tusk replaces only a results folder it wrote itself (remove "
               "the link, or choose another --out)";
    }
    if (!fs::is_directory(st))
    {
        return "exists and is not a directory; refusing to replace it";
    }
    if (IsEmptyDir(dir))
    {
        return "";
    }
    const fs::path root(dir);
    if (!fs::exists(root / kResultsMarker, ec))
    {
        // What it holds, one level only: `--out ~` must not walk a home directory to say so.
        std::vector<std::string> all;
        for (const auto& e : SortedEntries(root))
        {
            std::error_code entryEc;
            const bool folder = e.is_directory(entryEc) && !e.is_symlink(entryEc);
            all.push_back(e.path().filename().string() + (folder ? "/" : ""));
        }
        if (fs::exists(root / "manifest.json", ec) || fs::exists(root / "comparison.csv", ec))
        {
            return fmt::format("has no {} marker: results of a tusk from before the marker, or "
                               "not tusk's (it holds {}); tusk replaces only the results folders "
                               "it marked: remove it yourself (rm -r {}) or choose another --out",
                               kResultsMarker, SomeOf(all), dir);
        }
        return fmt::format("is not a tusk results folder (no {} marker; it holds {}); refusing "
                           "to replace it: choose another --out",
                           kResultsMarker, SomeOf(all));
    }
    const nlohmann::json m = ReadMarker(root);
    if (m.is_null())
    {
        return fmt::format("its {} marker is not one this tusk reads (format {} expected; a "
                           "newer tusk?); refusing to replace it",
                           kResultsMarker, kResultsMarkerFormat);
    }
    if (m.value("state", "") != "complete")
    {
        return "is a tusk staging folder, not results; refusing to replace it";
    }
    const std::vector<std::string> foreign = ForeignFiles(dir);
    if (!foreign.empty())
    {
        return fmt::format("holds {} file{} tusk did not write: {}; refusing to replace it (move "
                           "them elsewhere, or choose another --out)",
                           foreign.size(), foreign.size() == 1 ? "" : "s", SomeOf(foreign));
    }
    return "";
}

std::vector<std::string>
RemoveStaleStaging(const std::string& parent, const std::string& name)
{
    std::vector<std::string> left;
    std::error_code ec;
    for (const auto& e : SortedEntries(parent))
    {
        const std::string n = e.path().filename().string();
        const size_t staging = n.find(".staging-");
        const size_t old = n.find(".old-");
        const size_t at = staging != std::string::npos ? staging : old;
        const bool ours = at != std::string::npos && (name.empty() || n.substr(0, at) == name);
        if (!ours || !e.is_directory(ec) || e.is_symlink(ec))
        {
            continue;
        }
        if (staging != std::string::npos)
        {
            const nlohmann::json m = ReadMarker(e.path());
            if (m.is_null())
            {
                // Killed before its owner record was written: nothing in it but that record's
                // temporary file, if anything. Removed once old enough not to be starting now.
                bool bare = true;
                for (const auto& f : SortedEntries(e.path()))
                {
                    bare = bare && f.path().filename().string().rfind(
                                       std::string(kResultsMarker) + ".tmp-", 0) == 0;
                }
                const auto age = fs::file_time_type::clock::now() - fs::last_write_time(e.path(), ec);
                if (!ec && bare && age > kEmptyStagingAge)
                {
                    fs::remove_all(e.path(), ec);
                }
                else
                {
                    left.push_back(e.path().string());
                }
                continue;
            }
            switch (OwnerState(m.value("owner", nlohmann::json())))
            {
            case Owner::Gone:
                fs::remove_all(e.path(), ec);
                break;
            case Owner::Unknown:
                left.push_back(e.path().string());
                break;
            case Owner::Alive:
                break;
            }
            continue;
        }
        // NAME.old-PID: the previous results, moved aside by a commit of process PID. Only a
        // folder that is tusk's results (its marker and nothing it does not list), or an empty
        // one, is ever removed or put back; anything else of that name is the user's and is
        // not touched.
        const std::string pidText = n.substr(old + 5);
        const bool tusks = fs::is_empty(e.path(), ec) ||
                           (!ReadMarker(e.path()).is_null() &&
                            ReplaceRefusal(e.path().string()).empty());
        if (pidText.empty() || pidText.size() > 9 ||
            pidText.find_first_not_of("0123456789") != std::string::npos || !tusks)
        {
            continue;
        }
        if (!ProcessStart(std::stol(pidText)).empty())
        {
            continue; // alive (or a pid of another host that lives here too: leave it)
        }
        const fs::path dest = e.path().parent_path() / n.substr(0, old);
        if (fs::exists(fs::symlink_status(dest, ec)))
        {
            fs::remove_all(e.path(), ec); // replaced since: garbage
        }
        else
        {
            fs::rename(e.path(), dest, ec); // killed between the two renames: put it back
        }
    }
    return left;
}

StagedResults::StagedResults(const std::string& destination, const std::string& kind)
    : m_final(DestinationPath(destination)),
      m_kind(kind),
      m_lock(LockPathOf(m_final), "another tusk", m_final, true)
{
    const std::string& finalDir = m_final;
    // First what killed writers left (an .old-* folder may be put back in place), then the check.
    const fs::path final(finalDir);
    const std::string parent = final.has_parent_path() ? final.parent_path().string() : ".";
    for (const auto& l : RemoveStaleStaging(parent, final.filename().string()))
    {
        std::fprintf(stderr,
                     "tusk: warning: %s is left alone: no live owner can be told (another host, "
                     "or an older tusk); remove it yourself if no tusk is writing it\n",
                     l.c_str());
    }
    const std::string refusal = ReplaceRefusal(finalDir);
    if (!refusal.empty())
    {
        throw ns3::InputError(finalDir, 0, "--out", refusal);
    }
    const InterruptsHeld held; // until the folder is registered for the interrupt handler
    std::string tmpl = finalDir + ".staging-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data()))
    {
        throw ns3::InputError(finalDir, 0, "--out",
                              std::string("cannot write results beside it: ") + std::strerror(errno));
    }
    m_staging = buf.data();
    ::chmod(m_staging.c_str(), 0755); // mkdtemp makes it 0700
    nlohmann::ordered_json m;
    m["tusk_results"] = kResultsMarkerFormat;
    m["kind"] = m_kind;
    m["state"] = "staging";
    m["tusk_version"] = TUSK_VERSION;
    m["owner"] = ThisOwner(); // what tells a later writer whether this folder is stale
    try
    {
        WriteFileAtomic(m_staging + "/" + kResultsMarker, m.dump(2) + "\n");
    }
    catch (...)
    {
        std::error_code ec;
        fs::remove_all(m_staging, ec); // the destructor does not run for a throwing constructor
        throw;
    }
    Register(g_activeStaging, m_staging);
    Register(g_activeLock, m_final + ".lock");
}

StagedResults::~StagedResults()
{
    const InterruptsHeld held; // the handler never sees a half-cleared path
    if (!m_committed)
    {
        std::error_code ec;
        fs::remove_all(m_staging, ec);
    }
    g_activeStaging[0] = '\0';
    g_activeLock[0] = '\0';
}

void
StagedResults::Commit()
{
    const std::string refusal = ReplaceRefusal(m_final);
    if (!refusal.empty())
    {
        throw ns3::InputError(m_final, 0, "--out",
                              refusal + " (it changed while tusk ran; the new results are discarded)");
    }
    std::vector<std::string> files;
    ListFiles(m_staging, m_staging, files);
    nlohmann::ordered_json m;
    m["tusk_results"] = kResultsMarkerFormat;
    m["kind"] = m_kind;
    m["state"] = "complete";
    m["tusk_version"] = TUSK_VERSION;
    m["owner"] = ThisOwner(); // who wrote it
    m["files"] = files;
    WriteFileAtomic(m_staging + "/" + kResultsMarker, m.dump(2) + "\n");

    std::error_code ec;
    if (!fs::exists(fs::symlink_status(m_final, ec)))
    {
        if (::rename(m_staging.c_str(), m_final.c_str()) != 0)
        {
            throw WriteError(m_final, errno);
        }
    }
    else if (::renameat2(AT_FDCWD, m_staging.c_str(), AT_FDCWD, m_final.c_str(), RENAME_EXCHANGE) == 0)
    {
        fs::remove_all(m_staging, ec); // now the previous results
    }
    else if (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)
    {
        // No atomic exchange here (NFS): move the previous results aside first.
        const std::string old = m_final + fmt::format(".old-{}", ::getpid());
        if (::rename(m_final.c_str(), old.c_str()) != 0)
        {
            throw WriteError(m_final, errno);
        }
        if (::rename(m_staging.c_str(), m_final.c_str()) != 0)
        {
            const int err = errno;
            ::rename(old.c_str(), m_final.c_str());
            throw WriteError(m_final, err);
        }
        fs::remove_all(old, ec);
    }
    else
    {
        throw WriteError(m_final, errno);
    }
    m_committed = true;
}

void
AbandonActiveStaging()
{
    if (g_activeStaging[0] != '\0')
    {
        RemoveTreeAt(AT_FDCWD, g_activeStaging, 0);
        if (g_activeLock[0] != '\0')
        {
            ::unlink(g_activeLock);
        }
    }
}

} // namespace tusk
