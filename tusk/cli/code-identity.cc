#include "cli/code-identity.h"

#include "sweep/sweep-plan.h" // Sha256Hex

#include <fmt/format.h>
#include <openssl/evp.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>

#include <link.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace tusk
{

namespace
{

bool
IsSystemLibrary(const std::string& path)
{
    for (const char* dir : {"/usr/", "/lib/", "/lib64/", "/lib32/"})
    {
        if (path.rfind(dir, 0) == 0)
        {
            return true;
        }
    }
    return false;
}

int
AddObject(dl_phdr_info* info, size_t, void* data)
{
    auto& libs = *static_cast<std::map<std::string, std::string>*>(data);
    const std::string path = info->dlpi_name ? info->dlpi_name : "";
    // The executable itself comes first with an empty name; the vDSO has a name without '/'.
    if (path.find('/') != std::string::npos && !IsSystemLibrary(path))
    {
        libs[std::filesystem::path(path).filename().string()] = path;
    }
    return 0;
}

/** What a cache entry is keyed by and checked against (code-identity.h). */
struct FileStamp
{
    uint64_t dev = 0;
    uint64_t ino = 0;
    int64_t size = 0;
    int64_t mtimeNs = 0;
    int64_t ctimeNs = 0;

    bool operator==(const FileStamp& o) const
    {
        return dev == o.dev && ino == o.ino && size == o.size && mtimeNs == o.mtimeNs &&
               ctimeNs == o.ctimeNs;
    }
};

bool
StampOf(const std::string& path, FileStamp& out)
{
    struct stat st
    {
    };
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    {
        return false;
    }
    out.dev = static_cast<uint64_t>(st.st_dev);
    out.ino = static_cast<uint64_t>(st.st_ino);
    out.size = static_cast<int64_t>(st.st_size);
    out.mtimeNs = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    out.ctimeNs = static_cast<int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
    return true;
}

constexpr const char* kEntryHeader = "tusk file-sha256 1";

std::string
EntryText(const FileStamp& f, const std::string& sha)
{
    return fmt::format("{}\n{} {} {} {} {} {}\n",
                       kEntryHeader,
                       f.dev,
                       f.ino,
                       f.size,
                       f.mtimeNs,
                       f.ctimeNs,
                       sha);
}

/** The entry's hash if it is exactly EntryText(f, hash) with a 64-digit hash, else "". */
std::string
ReadEntry(const std::string& file, const FileStamp& f)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
    {
        return "";
    }
    std::string text(256, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    const std::string prefix = EntryText(f, "");
    // prefix ends with " \n": the hash goes between them.
    const size_t head = prefix.size() - 1;
    if (text.size() != head + 64 + 1 || text.compare(0, head, prefix, 0, head) != 0 ||
        text.back() != '\n')
    {
        return "";
    }
    std::string sha = text.substr(head, 64);
    if (sha.find_first_not_of("0123456789abcdef") != std::string::npos)
    {
        return "";
    }
    return sha;
}

/** Writes the entry through a temporary file renamed into place; failures are ignored. */
void
WriteEntry(const std::string& dir, const std::string& file, const std::string& text)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
    {
        return;
    }
    const std::string tmp = fmt::format("{}.tmp{}", file, static_cast<long>(::getpid()));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.close();
        if (!out)
        {
            std::filesystem::remove(tmp, ec);
            return;
        }
    }
    std::filesystem::rename(tmp, file, ec);
    if (ec)
    {
        std::filesystem::remove(tmp, ec);
    }
}

} // namespace

std::string
HashCacheDir()
{
    if (const char* v = std::getenv("TUSK_HASH_CACHE"))
    {
        return v;
    }
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && x[0] == '/')
    {
        return std::string(x) + "/tusk/file-sha256";
    }
    if (const char* h = std::getenv("HOME"); h && h[0] == '/')
    {
        return std::string(h) + "/.cache/tusk/file-sha256";
    }
    return "";
}

std::string
Sha256FileHexCached(const std::string& path, const std::string& cacheDir, int64_t nowNs)
{
    FileStamp before;
    if (cacheDir.empty() || !StampOf(path, before))
    {
        return Sha256FileHex(path);
    }
    const std::string entry = fmt::format("{}/{:x}-{:x}", cacheDir, before.dev, before.ino);
    if (std::string sha = ReadEntry(entry, before); !sha.empty())
    {
        return sha;
    }
    if (nowNs < 0)
    {
        timespec ts{};
        ::clock_gettime(CLOCK_REALTIME, &ts);
        nowNs = static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
    }
    std::string sha = Sha256FileHex(path);
    FileStamp after;
    if (StampOf(path, after) && after == before &&
        before.mtimeNs <= nowNs - kHashCacheSettleNs && before.ctimeNs <= nowNs - kHashCacheSettleNs)
    {
        WriteEntry(cacheDir, entry, EntryText(before, sha));
    }
    return sha;
}

std::string
Sha256FileHex(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
    }
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    {
        throw std::runtime_error("SHA-256 failed (OpenSSL EVP_DigestInit_ex)");
    }
    std::string buf(1 << 20, '\0');
    while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0)
    {
        if (EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(in.gcount())) != 1)
        {
            throw std::runtime_error("SHA-256 failed (OpenSSL EVP_DigestUpdate)");
        }
    }
    if (in.bad())
    {
        throw std::runtime_error("cannot read " + path);
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx.get(), md, &len) != 1)
    {
        throw std::runtime_error("SHA-256 failed (OpenSSL EVP_DigestFinal_ex)");
    }
    std::string hex;
    for (unsigned int i = 0; i < len; ++i)
    {
        hex += fmt::format("{:02x}", md[i]);
    }
    return hex;
}

const std::string&
CodeIdentity()
{
    static const std::string identity = [] {
        const std::string cache = HashCacheDir();
        std::string lines = "exe " + Sha256FileHexCached("/proc/self/exe", cache) + "\n";
        std::map<std::string, std::string> libs; // file name -> path, sorted by name
        dl_iterate_phdr(AddObject, &libs);
        for (const auto& [name, path] : libs)
        {
            lines += name + " " + Sha256FileHexCached(path, cache) + "\n";
        }
        return Sha256Hex(lines);
    }();
    return identity;
}

} // namespace tusk
