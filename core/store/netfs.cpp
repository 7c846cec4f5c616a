#include "core/store/netfs.h"

#include <sys/vfs.h>

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <set>

namespace pitwall {

namespace {
std::mutex g_mutex;
StoreWarningHandler g_handler;
std::set<std::string> g_warned; // kinds warned about in this process
} // namespace

std::string networkFileSystemName(long fsType)
{
    // Magic numbers of linux/magic.h and the file systems' own headers.
    switch (static_cast<unsigned long>(fsType) & 0xFFFFFFFFUL) {
    case 0x6969UL:
        return "NFS";
    case 0x517BUL:
    case 0xFF534D42UL:
    case 0xFE534D42UL:
        return "SMB/CIFS";
    case 0x0BD00BD0UL:
        return "Lustre";
    case 0x47504653UL:
        return "GPFS";
    case 0x00C36400UL:
        return "CephFS";
    case 0x5346414FUL:
        return "AFS";
    case 0x01021997UL:
        return "9P";
    default:
        return {};
    }
}

std::string networkFileSystemOf(const std::string& path)
{
    std::error_code error;
    std::filesystem::path folder = std::filesystem::absolute(path, error).parent_path();
    if (error)
        return {};
    struct statfs info {};
    if (statfs(folder.c_str(), &info) != 0)
        return {};
    return networkFileSystemName(static_cast<long>(info.f_type));
}

void setStoreWarningHandler(StoreWarningHandler handler)
{
    const std::lock_guard lock(g_mutex);
    g_handler = std::move(handler);
}

void warnIfNetworkFileSystem(const std::string& path)
{
    const std::string kind = networkFileSystemOf(path);
    if (kind.empty())
        return;
    StoreWarningHandler handler;
    {
        const std::lock_guard lock(g_mutex);
        if (!g_warned.insert(kind).second)
            return;
        handler = g_handler;
    }
    const std::string message =
        "warning: " + path + " is on " + kind +
        ", a network file system where SQLite's locking is unreliable: "
        "processes writing it at once can corrupt the results database. Keep it on a local disk (several machines "
        "sharing one study need a database server, which this Pitwall does not have yet).";
    if (handler)
        handler(message);
    else
        std::fprintf(stderr, "%s\n", message.c_str());
}

} // namespace pitwall
