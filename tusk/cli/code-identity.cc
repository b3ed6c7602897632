#include "cli/code-identity.h"

#include "sweep/sweep-plan.h" // Sha256Hex

#include <fmt/format.h>
#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>

#include <link.h>

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

} // namespace

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
        std::string lines = "exe " + Sha256FileHex("/proc/self/exe") + "\n";
        std::map<std::string, std::string> libs; // file name -> path, sorted by name
        dl_iterate_phdr(AddObject, &libs);
        for (const auto& [name, path] : libs)
        {
            lines += name + " " + Sha256FileHex(path) + "\n";
        }
        return Sha256Hex(lines);
    }();
    return identity;
}

} // namespace tusk
