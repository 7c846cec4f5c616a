#pragma once
// Which file a results database is. SQLite finds a database by its path, so a file deleted or replaced (another
// file moved or copied over it) while processes hold it open would split a study between two files: rows written
// through the connections opened before go to the deleted file, and rows of connections opened after go to the
// new one with ids that mean other studies' trials there. So the SQLite backend remembers the device and inode of
// the file it opened for writing at each path, and refuses to go on when the path names another file:
// - every write transaction first checks that the path still names the file its connection opened (one stat);
// - a connection opened while another write connection of this process holds the path must find that same file
//   there (so nothing is opened, or created, in place of a deleted file);
// - a process started by one that holds the file learns it through kStoreFileVariable (heldStoreFile()), so a
//   worker started after the replacement refuses the new file too.
// A read-only connection checks nothing: it writes nothing.

#include "core/util/error.h"

#include <string>

namespace pitwall {

// The results database's file is no longer at its path (deleted, or replaced by another file) while Pitwall had
// it open for writing; nothing more was written. A RuntimeError (exit status 1): the file changed under Pitwall,
// the command's input was not wrong. The message names the file and what happened to it.
class StoreFileChangedError : public RuntimeError {
public:
    using RuntimeError::RuntimeError;
};

// The environment variable through which a process hands the database file it holds to the processes it starts:
// "DEVICE:INODE:ABSOLUTE_PATH".
inline constexpr const char* kStoreFileVariable = "PITWALL_STORE_FILE";

// The value of kStoreFileVariable for the database at `location` (as openStore() takes it) while this process
// holds it open for writing; empty when it does not. Thread-safe.
std::string heldStoreFile(const std::string& location);

} // namespace pitwall
