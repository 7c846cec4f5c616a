#include "core/search/resumereview.h"

#include "core/store/pglocation.h"
#include "core/store/store.h"
#include "core/util/paths.h"

#include "core/jobrun/jobcontrol.h"
#include "core/pool/hposettings.h"
#include "core/store/sqlitestore.h"
#include "core/util/error.h"
#include "core/util/printable.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <vector>

namespace pitwall {

namespace {

namespace fs = std::filesystem;

// A confirmation file is one line per search a user started: past kPruneAtBytes only the newest kKeepLines stay
// (older searches then ask for --yes once more), and a file far larger is not ours to read whole.
constexpr std::uintmax_t kMaxConfirmedFileBytes = 16u << 20;
constexpr std::uintmax_t kPruneAtBytes = 1u << 20;
constexpr std::size_t kKeepLines = 2000;

Json entry(const std::string& command, const std::string& logDir, const std::string& bestParamsPath)
{
    return Json{{"command", command}, {"log_dir", logDir}, {"best_params", bestParamsPath}};
}

bool isRecorded(const Json& wanted)
{
    std::error_code error;
    const fs::path file = confirmedResumesPath();
    if (!fs::is_regular_file(file, error) || fs::file_size(file, error) > kMaxConfirmedFileBytes)
        return false;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        const Json recorded = Json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (recorded == wanted)
            return true;
    }
    return false;
}

void pruneIfLarge(const fs::path& file)
{
    std::error_code error;
    const auto size = fs::file_size(file, error);
    if (error || size <= kPruneAtBytes || size > kMaxConfirmedFileBytes)
        return;
    std::vector<std::string> lines;
    {
        std::ifstream in(file);
        for (std::string line; std::getline(in, line);)
            lines.push_back(std::move(line));
    }
    const fs::path temporary = file.string() + ".tmp";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    std::string text;
    for (std::size_t i = lines.size() > kKeepLines ? lines.size() - kKeepLines : 0; i < lines.size(); ++i)
        text += lines[i] + "\n";
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    if (::close(fd) == 0 && written)
        fs::rename(temporary, file, error);
    else
        fs::remove(temporary, error);
}

} // namespace

std::string confirmedResumesPath()
{
    return (fs::path(userStateFolder()) / "confirmed-resumes.jsonl").string();
}

std::string ResumeReview::describe() const
{
    std::string text = "  command: " + (command.empty() ? std::string("(the built-in trainer)") : printable(command));
    text += "\n  logs in: " + printable(logDir);
    text += "\n  best parameters to: " + (bestParamsPath.empty()
                                              ? std::string("(not recorded; <output_dir>/<study>/best_params.yaml)")
                                              : printable(bestParamsPath));
    return text;
}

ResumeReview reviewResume(Store& store, const std::string& study)
{
    const StudyRecord record = store.requireStudy(study);
    const auto settings = readHpoSettings(record);
    if (!settings)
        throw InputError("study '" + printable(study) + "' was not started by pitwall hpo (it has no " +
                         kHpoSettingsAttr + " attribute); add workers to it with pitwall worker --trials-left N");
    ResumeReview review;
    review.study = study;
    review.command = settings->command;
    review.logDir = settings->logDir;
    if (const auto it = record.systemAttrs.find(kBestParamsAttr); it != record.systemAttrs.end() && it->is_string())
        review.bestParamsPath = it->get<std::string>();
    review.confirmed = isRecorded(entry(review.command, review.logDir, review.bestParamsPath));
    return review;
}

void throwUnconfirmedResume(const ResumeReview& review, const std::string& resumeWords)
{
    throw InputError::forOption(
        "yes", "resuming study '" + printable(review.study) + "' runs what its results file holds:\n" +
                   review.describe() +
                   "\nyou have not started or confirmed this on this machine (an edited or shared results file can "
                   "hold any command); check it, then run again with --yes: " +
                   resumeWords + " --yes");
}

std::optional<ResumeReview> reviewJobResume(const JobRecord& job, const std::string& defaultDb)
{
    const std::vector<std::string> words = resumeCommandLine(job);
    const std::string id = std::to_string(job.id);
    if (words.empty() || words.front() != job.kind)
        throw InputError("job " + id + " is recorded as a " + printable(job.kind) + " job but would run 'pitwall " +
                         printable(words.empty() ? std::string() : words.front()) +
                         " ...': its record was changed; start the work again instead of resuming it");
    if (job.kind != "hpo")
        return std::nullopt;
    const auto at = std::find(words.begin(), words.end(), "--resume");
    if (at == words.end() || at + 1 == words.end())
        throw InputError("job " + id + ": its resume command names no study");
    const std::string db = job.spec.value("db", defaultDb);
    if (!storeExists(db))
        throw InputError("job " + id + "'s results database " + printable(redactedLocation(db)) +
                         " is not there any more");
    auto store = openStore(db, OpenMode::ReadOnly);
    return reviewResume(*store, *(at + 1));
}

void checkJobResume(const JobRecord& job, const std::string& defaultDb, bool confirmed)
{
    const std::optional<ResumeReview> review = reviewJobResume(job, defaultDb);
    if (!review || review->confirmed)
        return;
    if (!confirmed)
        throwUnconfirmedResume(*review, "pitwall jobs resume " + std::to_string(job.id));
    if (const std::string warning = recordConfirmed(review->command, review->logDir, review->bestParamsPath);
        !warning.empty())
        throw RuntimeError(warning);
}

std::string recordConfirmed(const std::string& command, const std::string& logDir, const std::string& bestParamsPath)
{
    const Json wanted = entry(command, logDir, bestParamsPath);
    if (isRecorded(wanted))
        return "";
    const fs::path file = confirmedResumesPath();
    std::error_code error;
    fs::create_directories(file.parent_path(), error);
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    const auto cannot = [&](int code) {
        return "cannot record the search's command as yours in " + file.string() + " (" + std::strerror(code) +
               "): resuming it will ask for --yes";
    };
    if (fd < 0)
        return cannot(errno);
    const std::string line = wanted.dump() + "\n";
    const ssize_t written = ::write(fd, line.data(), line.size());
    const int writeError = errno;
    if (::close(fd) != 0 && written == static_cast<ssize_t>(line.size()))
        return cannot(errno);
    if (written != static_cast<ssize_t>(line.size()))
        return cannot(written < 0 ? writeError : ENOSPC);
    pruneIfLarge(file);
    return "";
}

} // namespace pitwall
