#pragma once
// Bounds on what a trial command's output can cost its worker: one stdout line is kept up to a length limit (the
// rest of an over-long line is dropped and counted), and trial.log keeps the head and the tail of everything.
//
// Why the worker writes the log itself: the command's stderr used to be appended to trial.log by the command, so
// nothing could bound the file. Now stderr comes through a pipe like stdout (internal/spawn.h), and everything
// that goes into trial.log (stderr, stdout lines that are not protocol JSON, Pitwall's own "[pitwall]" lines) is
// written by the worker through one TrialLog. Once the file holds `headBytes`, what follows is kept in memory
// too; when that reaches 2 x `tailBytes`, the oldest part is dropped and the tail is rewritten in place after
// the head, behind one line saying how many bytes were left out there. So the file never grows past about
// headBytes + 2 x tailBytes, the worker holds at most 2 x tailBytes of it, and a worker killed at any moment
// leaves a log that ends with the command's latest output. (Simpler than rotating files, and no race with a
// child writing the same file.)
//
// Threads: one owner thread per object.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pitwall::sched_internal {

inline constexpr std::size_t kMaxOutputLineBytes = std::size_t(1) << 20; // one stdout line: 1 MiB
inline constexpr std::size_t kTrialLogHeadBytes = std::size_t(1) << 20;  // trial.log: the first 1 MiB ...
inline constexpr std::size_t kTrialLogTailBytes = std::size_t(1) << 20;  // ... and the last 1-2 MiB

struct OutputLine {
    std::string text;           // without the newline, at most the splitter's maxLineBytes
    std::uint64_t cutBytes = 0; // bytes of the line after maxLineBytes that were dropped (0: complete)
};

// Splits a byte stream into lines, keeping at most `maxLineBytes` of each.
class LineSplitter {
public:
    explicit LineSplitter(std::size_t maxLineBytes = kMaxOutputLineBytes) : m_maxLineBytes(maxLineBytes) {}
    // Appends the lines that `data` completes to `lines`.
    void feed(std::string_view data, std::vector<OutputLine>& lines);
    // The end of the stream: a last line without a newline, if any, goes to `lines`.
    void finish(std::vector<OutputLine>& lines);

private:
    std::size_t m_maxLineBytes;
    std::string m_pending;
    std::uint64_t m_cut = 0;
};

// A trial's log file, bounded as described above. Opened for writing without following a symbolic link and
// created 0600 when missing; an existing file is continued (its size counts against the head).
class TrialLog {
public:
    // RuntimeError naming the file when it cannot be opened.
    explicit TrialLog(std::string path, std::size_t headBytes = kTrialLogHeadBytes,
                      std::size_t tailBytes = kTrialLogTailBytes);
    ~TrialLog();
    TrialLog(const TrialLog&) = delete;
    TrialLog& operator=(const TrialLog&) = delete;

    // RuntimeError naming the file when it cannot be written (a full disk).
    void write(std::string_view text);
    const std::string& path() const { return m_path; }
    std::uint64_t leftOutBytes() const { return m_leftOut; }

private:
    void writeAt(std::uint64_t offset, std::string_view text);
    void rewriteTail();

    std::string m_path;
    int m_fd = -1;
    std::size_t m_headBytes, m_tailBytes;
    std::uint64_t m_size = 0;      // where the next byte goes (the file's length)
    std::uint64_t m_tailStart = 0; // where the head ends, once it is full
    bool m_inTail = false;
    std::string m_tail; // what the file holds after the head (and its marker line)
    std::uint64_t m_leftOut = 0;
};

} // namespace pitwall::sched_internal
