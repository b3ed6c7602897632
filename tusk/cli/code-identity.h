/*
 * tusk: the identity of the code that computes results, recorded in every run's manifest
 * (`code_hash`) and compared when a sweep or `tusk regress --resume` keeps earlier results.
 */
#ifndef TUSK_CODE_IDENTITY_H
#define TUSK_CODE_IDENTITY_H

#include <cstdint>
#include <string>

namespace tusk
{

/**
 * \brief SHA-256 (64 hex digits) of the code of this process: the executable
 * (/proc/self/exe) and every shared object loaded from outside the system's library
 * directories (/usr, /lib, /lib64: Debian's ns-3, libc, OpenSSL...), which are tusk's own
 * libraries (libtusk-*.so: the models, the policies, the runner). It is the SHA-256 of the
 * lines "exe <sha256 of the executable's bytes>" and "<library file name> <sha256 of its
 * bytes>" (libraries sorted by file name), so a copy of the same build has the same identity
 * and a rebuild that changes any byte of them has another.
 *
 * Computed once per process, on first call. Each file's SHA-256 comes from
 * Sha256FileHexCached() with the default cache (HashCacheDir()): hashed once per build, not
 * once per run (about 50 ms and 63 MB read for a RelWithDebInfo build; docs/performance.md,
 * 2026-12-05 evening). A plugin loader adds the plugins it loads by extending this function:
 * a shared object loaded before the first call is in it already.
 * \throws std::runtime_error if a file cannot be read
 */
const std::string& CodeIdentity();

/** SHA-256 (64 hex digits) of a file's bytes, read in blocks. \throws std::runtime_error */
std::string Sha256FileHex(const std::string& path);

/**
 * \brief Sha256FileHex(path), remembered in cacheDir per file identity.
 *
 * An entry is keyed by the file's device and inode and holds its size, modification time and
 * status-change time (ctime, nanoseconds) with the SHA-256; it is used only when all five are
 * those of the file now. ctime cannot be set by a program: any write, truncation, rename onto
 * the path (another inode) or timestamp change sets it to the current time. An entry is
 * written only when the file's mtime and ctime are at least kHashCacheSettleNs before the
 * hashing started and the file's stat is the same after hashing as before: a file still being
 * written, or changed within the file system's timestamp granularity (a jiffy on Linux), is
 * hashed every time until it has settled, so a changed file never gets an earlier hash.
 * Any problem with the cache (missing, unreadable, malformed, not writable) falls back to
 * hashing; an empty cacheDir hashes without a cache.
 * \param path the file (e.g. /proc/self/exe: its stat is the executable's)
 * \param cacheDir directory of entries, created if missing; "" for none
 * \param nowNs the wall-clock time (ns since the epoch) the hash is taken at; tests pass
 *        another, the default (-1) reads CLOCK_REALTIME
 * \throws std::runtime_error if the file cannot be read
 */
std::string Sha256FileHexCached(const std::string& path,
                                const std::string& cacheDir,
                                int64_t nowNs = -1);

/** How long (ns) a file must have been unchanged before its hash is cached: 2 s. */
constexpr int64_t kHashCacheSettleNs = 2'000'000'000;

/**
 * \brief The default cache of file hashes: $TUSK_HASH_CACHE if set (empty: no cache), else
 * $XDG_CACHE_HOME/tusk/file-sha256, else $HOME/.cache/tusk/file-sha256, else none ("").
 */
std::string HashCacheDir();

} // namespace tusk

#endif
