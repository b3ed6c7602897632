/*
 * tusk: the identity of the code that computes results, recorded in every run's manifest
 * (`code_hash`) and compared when a sweep or `tusk regress --resume` keeps earlier results.
 */
#ifndef TUSK_CODE_IDENTITY_H
#define TUSK_CODE_IDENTITY_H

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
 * Computed once per process, on first call (about 50 ms for 45 MB). A plugin loader adds the
 * plugins it loads by extending this function: a shared object loaded before the first call
 * is in it already.
 * \throws std::runtime_error if a file cannot be read
 */
const std::string& CodeIdentity();

/** SHA-256 (64 hex digits) of a file's bytes, read in blocks. \throws std::runtime_error */
std::string Sha256FileHex(const std::string& path);

} // namespace tusk

#endif
