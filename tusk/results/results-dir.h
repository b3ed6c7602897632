/*
 * tusk: results directories on disk, written so that no user data is ever lost
 * (docs/results-format.md, "Results folders: the marker, locks and exit statuses").
 *
 * - Every folder tusk commits (a run, a comparison, a report) holds `.tusk-results`, a JSON
 *   marker only tusk writes: its format version, the kind of results, the writing process and
 *   the files it committed. A destination is replaced only if it holds such a marker and
 *   nothing but the files that marker lists (and folders that are tusk results themselves);
 *   anything else is refused (exit 2), naming the foreign files. A folder without the marker
 *   (results of a tusk older than the marker, or not tusk's) is refused too: remove it yourself.
 * - A destination is locked while it is written (`NAME.lock` beside it, flock): a second tusk
 *   writing the same destination is refused (exit 2) with the holder's pid.
 * - Results are written into `NAME.staging-XXXXXX` (its marker names the owner: host, boot,
 *   pid and the pid's start time) and swapped into place; staging folders whose owner is gone
 *   (SIGKILL, full disk) are removed by the next writer of that destination, and by a sweep
 *   for its whole tree. A live owner's folder is never touched.
 * - An OS error while writing (full disk, file size limit) is a WriteError: exit 3, the path
 *   and the OS's words; the previous results stay as they were.
 */
#ifndef TUSK_RESULTS_DIR_H
#define TUSK_RESULTS_DIR_H

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace tusk
{

/** Exit status when results could not be written (an OS error: no space, file too large). */
constexpr int kExitWriteFailed = 3;

/** The marker file of a results folder. */
extern const char* const kResultsMarker;
/** Its format version; a marker of a later version is not understood (refused). */
constexpr int kResultsMarkerFormat = 1;

/**
 * \brief An OS error while writing results: what() is "PATH: the OS's words" (strerror), e.g.
 * "out.staging-x1/flows.csv: No space left on device". `tusk` exits kExitWriteFailed.
 */
class WriteError : public std::runtime_error
{
  public:
    /** `path` could not be written: errno `err`. */
    WriteError(const std::string& path, int err);
    /** A message of its own (already naming the path). */
    explicit WriteError(const std::string& message);
};

/**
 * \brief An exclusive lock (flock) on the file `path` (created if missing), held until
 * destruction. The holder's pid is written into the file.
 * \param holder what a refusal says holds it, e.g. "another `tusk sweep`"
 * \param subject what is locked, e.g. "results/x" (the refusal's file name)
 * \param removeOnRelease unlink the lock file when released (a lock beside a destination)
 * \throws ns3::InputError (exit 2) naming the holder's pid if another process holds it, or if
 *         the lock file cannot be created
 */
class PathLock
{
  public:
    PathLock(const std::string& path, const std::string& holder, const std::string& subject,
             bool removeOnRelease);
    ~PathLock();
    PathLock(const PathLock&) = delete;
    PathLock& operator=(const PathLock&) = delete;

  private:
    std::string m_path;
    int m_fd = -1;
    bool m_remove;
};

/**
 * \brief The destination folder `dir` by its own name: "out/" is "out", "." and ".." their
 * absolute paths (so that its lock and staging folders go beside it, never into it).
 * \throws ns3::InputError (exit 2) for the root folder
 */
std::string DestinationPath(const std::string& dir);

/**
 * \brief What keeps `dir` from being replaced by new results: "" if it may be replaced (it
 * does not exist, is empty, or holds a valid marker and nothing but what that marker lists and
 * nested tusk results folders), else the reason, naming up to five foreign files ("and N more").
 */
std::string ReplaceRefusal(const std::string& dir);

/** The paths (relative to `dir`, sorted) in `dir` that tusk did not write as its results. */
std::vector<std::string> ForeignFiles(const std::string& dir);

/**
 * \brief Remove the staging folders (`*.staging-*`) and old results (`*.old-*`) in `parent`
 * whose writer is gone (its pid is dead on this host, or this host rebooted); with a non-empty
 * `name`, only those of the destination `parent/name`. A live owner's folder, and one whose
 * owner cannot be told (another host, no owner record), is left alone. An `.old-*` folder whose
 * destination is missing is renamed back into place instead (the previous results).
 * \return the folders left alone because their owner cannot be told
 */
std::vector<std::string> RemoveStaleStaging(const std::string& parent, const std::string& name = "");

/**
 * \brief A results folder being written: the destination is locked (`NAME.lock`), checked
 * (ReplaceRefusal), stale staging folders of it are removed, and an empty staging folder with
 * its owner marker is made beside it (same filesystem). Commit() writes the marker listing the
 * files and swaps the staging folder into place; an uncommitted staging folder is removed on
 * destruction (an exception: nothing is written, the previous results are intact).
 * \throws ns3::InputError (exit 2) if the destination may not be replaced, is locked, or its
 *         parent cannot be written
 */
class StagedResults
{
  public:
    /** `kind`: "run", "compare", ... (the marker's `kind`). */
    StagedResults(const std::string& finalDir, const std::string& kind);
    ~StagedResults();
    StagedResults(const StagedResults&) = delete;
    StagedResults& operator=(const StagedResults&) = delete;

    /** The staging folder to write into. */
    const std::string& Path() const { return m_staging; }

    /**
     * \brief Write the marker and put the staging folder in place of the destination (an
     * atomic exchange where the filesystem has one), then remove the previous results.
     * \throws ns3::InputError if files foreign to tusk appeared in the destination meanwhile;
     *         WriteError on an OS error (nothing replaced)
     */
    void Commit();

  private:
    std::string m_final;
    std::string m_kind;
    std::string m_staging;
    PathLock m_lock;
    bool m_committed = false;
};

/**
 * \brief Remove the staging folder of the StagedResults alive in this process, and its lock
 * file, for a handler of SIGINT/SIGTERM that is about to end the process. Async-signal-safe:
 * system calls only, no allocation.
 */
void AbandonActiveStaging();

/** This machine's host name (gethostname). */
std::string HostName();

/**
 * \brief A file written atomically, in as many pieces as the writer likes: into `PATH.tmp-PID`
 * beside it (the same directory, so the same filesystem), then synced and renamed to PATH by
 * Commit(). Until then PATH is as it was; the temporary file of one not committed (an
 * exception) is removed on destruction. WriteFileAtomic is one Write and a Commit; the
 * streamed rows (row-stream.h) write flows.csv, collectives.csv and waits.csv through it.
 */
class AtomicFile
{
  public:
    /** \throws WriteError naming `path` if the temporary file cannot be created */
    explicit AtomicFile(std::string path);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    /** Append `n` bytes at `data`. \throws WriteError naming the path */
    void Write(const char* data, size_t n);
    void Write(const std::string& text) { Write(text.data(), text.size()); }
    /**
     * \brief Sync, close and rename it to its path.
     * \throws WriteError naming the path with the first failure's errno (the sync's, else the
     *         close's or the rename's); the temporary file is removed, the path unchanged
     */
    void Commit();

  private:
    std::string m_path;
    std::string m_tmp; //!< "" once committed or removed
    int m_fd = -1;
};

/**
 * \brief Write `text` to `path` atomically (AtomicFile: a temporary file in the same directory,
 * then rename).
 * \throws WriteError on an OS error (the temporary file is removed, `path` is unchanged)
 */
void WriteFileAtomic(const std::string& path, const std::string& text);

} // namespace tusk

#endif
