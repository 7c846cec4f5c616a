#include "core/jobrun/jobreport.h"

#include "core/store/pglocation.h"
#include "core/store/store.h"

#include "core/jobrun/jobcontrol.h"
#include "core/report/table.h"
#include "core/store/sqlitestore.h"
#include "core/util/error.h"
#include "core/util/printf.h"
#include "core/util/strings.h"
#include "core/util/timefmt.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace pitwall {

namespace {

constexpr auto kLogPollInterval = std::chrono::milliseconds(200);

} // namespace

namespace {

void requireDatabase(const std::string& db)
{
    if (!storeExists(db))
        throw InputError(redactedLocation(db) + ": no such results database (give --db FILE or set $PITWALL_DB)");
}

// Whether this process can write the file and create the -wal and -shm files beside it (access() also says no
// for a read-only mount and an immutable file, even to root). A PostgreSQL server says so itself when written.
bool canWrite(const std::string& db)
{
    if (isPostgresLocation(db))
        return true;
    const std::filesystem::path folder = std::filesystem::absolute(db).parent_path();
    return ::access(db.c_str(), W_OK) == 0 && ::access(folder.c_str(), W_OK) == 0;
}

} // namespace

bool reapVanishedJobs(const std::string& db, const std::vector<JobRecord>& jobs, double now)
{
    const bool vanished = std::any_of(jobs.begin(), jobs.end(),
                                      [&](const JobRecord& j) { return jobVanishedReason(j, now).has_value(); });
    return vanished && canWrite(db) && JobStore(db).reapVanished(now) > 0;
}

std::unique_ptr<JobStore> openJobStoreForReading(const std::string& db)
{
    requireDatabase(db);
    auto store = std::make_unique<JobStore>(db, OpenMode::ReadOnly);
    reapVanishedJobs(db, store->jobs(false), nowSeconds());
    return store;
}

std::unique_ptr<JobStore> openJobStoreForWriting(const std::string& db)
{
    requireDatabase(db);
    if (!canWrite(db))
        throw InputError(db + ": the results database cannot be written here (its file, its folder or its mount is "
                              "read-only), so its jobs can be listed and shown but not stopped or resumed from here");
    return std::make_unique<JobStore>(db);
}

JobRecord requireJob(JobStore& store, std::int64_t id)
{
    auto job = store.job(id);
    if (!job)
        throw InputError("no job " + std::to_string(id) + " in " + store.path() +
                         " (pitwall jobs list --all shows them)");
    return *job;
}

std::string jobMessage(const JobRecord& job)
{
    std::string message = isFinal(job.state) && !job.error.empty() ? job.error : job.progressMessage;
    const auto studies = jobStudies(job);
    if (message.empty() && !studies.empty())
        message = "study " + join(studies, ", ");
    return message;
}

Json jobsJson(const std::vector<JobRecord>& jobs, double now)
{
    Json out = Json::array();
    for (const JobRecord& j : jobs)
        out.push_back(jobToJson(j, now));
    return out;
}

std::string jobsTableText(const std::vector<JobRecord>& jobs, double now)
{
    Table table({"ID", "Kind", "State", "Progress", "Elapsed", "ETA", "Host", "PID", "Message"});
    for (const JobRecord& j : jobs)
        table.addRow({std::to_string(j.id), j.kind, jobStateName(j.state), formatFixed(j.progress * 100, 0) + " %",
                      formatDuration(jobElapsedSeconds(j, now)),
                      j.etaSeconds && !isFinal(j.state) ? formatDuration(*j.etaSeconds) : "–", j.host,
                      std::to_string(j.pid), jobMessage(j)});
    return table.toText();
}

std::string jobDetailsText(const JobRecord& j, double now)
{
    std::string text =
        stringPrintf("job %lld: %s, %s\n", static_cast<long long>(j.id), j.kind.c_str(), jobStateName(j.state));
    text +=
        stringPrintf("  command   pitwall %s\n",
                     j.spec.contains("argv") ? join(j.spec["argv"].get<std::vector<std::string>>(), " ").c_str() : "?");
    text += stringPrintf("  in        %s\n", j.spec.value("cwd", std::string("?")).c_str());
    text += stringPrintf("  process   %s pid %lld\n", j.host.c_str(), static_cast<long long>(j.pid));
    if (const auto slurm = j.spec.find("slurm_job"); slurm != j.spec.end() && slurm->is_string())
        text += stringPrintf("  workers   slurm job %s (scontrol show job %s)\n", slurm->get<std::string>().c_str(),
                             slurm->get<std::string>().c_str());
    text += stringPrintf("  created   %s\n", formatTimestamp(j.createTime).c_str());
    if (j.startTime)
        text += stringPrintf("  started   %s (%s)\n", formatTimestamp(*j.startTime).c_str(),
                             formatDuration(jobElapsedSeconds(j, now)).c_str());
    if (j.endTime)
        text += stringPrintf("  ended     %s, exit %s\n", formatTimestamp(*j.endTime).c_str(),
                             j.exitCode ? std::to_string(*j.exitCode).c_str() : "–");
    text +=
        stringPrintf("  progress  %.0f %% %s%s\n", j.progress * 100, j.progressMessage.c_str(),
                     j.etaSeconds && !isFinal(j.state) ? (" (ETA " + formatDuration(*j.etaSeconds) + ")").c_str() : "");
    if (!j.error.empty())
        text += stringPrintf("  error     %s\n", j.error.c_str());
    if (!j.logFile.empty())
        text += stringPrintf("  log       %s\n", j.logFile.c_str());
    for (const JobLink& l : j.links)
        text += stringPrintf("  %-9s %s\n", l.kind.c_str(), l.ref.c_str());
    return text;
}

void copyJobLog(JobStore& store, std::int64_t id, std::ostream& out, bool follow)
{
    JobRecord j = requireJob(store, id);
    std::ifstream in(j.logFile, std::ios::binary);
    if (!in && !follow)
        throw InputError(j.logFile + ": cannot read job " + std::to_string(id) + "'s log");
    std::string chunk(65536, '\0');
    for (;;) {
        while (in) {
            in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
            out.write(chunk.data(), in.gcount());
        }
        out.flush();
        if (!follow || isFinal(j.state) || jobVanishedReason(j, nowSeconds()))
            break;
        std::this_thread::sleep_for(kLogPollInterval);
        in.clear();
        if (!in.is_open())
            in.open(j.logFile, std::ios::binary);
        store.reapVanished(nowSeconds());
        j = requireJob(store, id);
    }
}

} // namespace pitwall
