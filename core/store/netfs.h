#pragma once
// SQLite on a network file system: its locks (POSIX advisory locks and the WAL's shared memory) are unreliable on
// NFS, SMB/CIFS, Lustre and the like, so several writers can corrupt a results database kept there. Opening one
// warns, once per process and file system; the message says what to do instead.

#include <functional>
#include <string>

namespace pitwall {

// The network file system kind for statfs(2)'s f_type ("NFS", "SMB/CIFS", "Lustre", "GPFS", "CephFS", "AFS",
// "9P"); empty for a local file system and for FUSE (sshfs and a local NTFS look the same there).
std::string networkFileSystemName(long fsType);
// The network file system that the folder of `path` is on; empty when local or when statfs fails.
std::string networkFileSystemOf(const std::string& path);

// Where the warning goes: standard error unless a handler is set (the window shows it in its status bar). The
// handler may be called from any thread that opens a store. An empty handler restores standard error.
using StoreWarningHandler = std::function<void(const std::string&)>;
void setStoreWarningHandler(StoreWarningHandler handler);
// Warns about `path` when it is on a network file system, once per process and kind.
void warnIfNetworkFileSystem(const std::string& path);

} // namespace pitwall
