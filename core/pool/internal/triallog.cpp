#include "core/pool/internal/triallog.h"

#include "core/util/error.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace pitwall::sched_internal {

void LineSplitter::feed(std::string_view data, std::vector<OutputLine>& lines)
{
    while (!data.empty()) {
        const std::size_t newline = data.find('\n');
        const std::string_view part = data.substr(0, newline);
        const std::size_t room = m_maxLineBytes - std::min(m_maxLineBytes, m_pending.size());
        m_pending.append(part.substr(0, room));
        m_cut += part.size() - std::min(room, part.size());
        if (newline == std::string_view::npos)
            return;
        lines.push_back({std::move(m_pending), m_cut});
        m_pending.clear();
        m_cut = 0;
        data.remove_prefix(newline + 1);
    }
}

void LineSplitter::finish(std::vector<OutputLine>& lines)
{
    if (!m_pending.empty() || m_cut > 0)
        lines.push_back({std::move(m_pending), m_cut});
    m_pending.clear();
    m_cut = 0;
}

TrialLog::TrialLog(std::string path, std::size_t headBytes, std::size_t tailBytes)
    : m_path(std::move(path)), m_headBytes(headBytes), m_tailBytes(std::max<std::size_t>(tailBytes, 1))
{
    m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    struct stat info {};
    if (m_fd < 0 || ::fstat(m_fd, &info) != 0) {
        const int error = errno;
        if (m_fd >= 0)
            ::close(m_fd);
        throw RuntimeError("cannot open the trial log " + m_path + ": " + std::strerror(error));
    }
    m_size = static_cast<std::uint64_t>(info.st_size);
}

TrialLog::~TrialLog()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

void TrialLog::writeAt(std::uint64_t offset, std::string_view text)
{
    while (!text.empty()) {
        const ssize_t n = ::pwrite(m_fd, text.data(), text.size(), static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            throw RuntimeError("cannot write the trial log " + m_path + ": " + std::strerror(n < 0 ? errno : ENOSPC));
        offset += static_cast<std::uint64_t>(n);
        text.remove_prefix(static_cast<std::size_t>(n));
    }
}

void TrialLog::rewriteTail()
{
    const std::size_t drop = m_tail.size() - m_tailBytes;
    m_tail.erase(0, drop);
    m_leftOut += drop;
    const std::string marker =
        "\n[pitwall] ... " + std::to_string(m_leftOut) + " bytes of output left out here (trial.log keeps the first " +
        std::to_string(m_headBytes) + " bytes and the last " + std::to_string(m_tailBytes) + " or more) ...\n";
    writeAt(m_tailStart, marker);
    writeAt(m_tailStart + marker.size(), m_tail);
    m_size = m_tailStart + marker.size() + m_tail.size();
    if (::ftruncate(m_fd, static_cast<off_t>(m_size)) != 0)
        throw RuntimeError("cannot write the trial log " + m_path + ": " + std::strerror(errno));
}

void TrialLog::write(std::string_view text)
{
    if (!m_inTail) {
        const std::size_t room = m_size < m_headBytes ? static_cast<std::size_t>(m_headBytes - m_size) : 0;
        const std::size_t n = std::min(room, text.size());
        writeAt(m_size, text.substr(0, n));
        m_size += n;
        text.remove_prefix(n);
        if (text.empty())
            return;
        m_inTail = true;
        m_tailStart = m_size;
    }
    writeAt(m_size, text);
    m_size += text.size();
    m_tail.append(text);
    if (m_tail.size() > 2 * m_tailBytes)
        rewriteTail();
}

} // namespace pitwall::sched_internal
