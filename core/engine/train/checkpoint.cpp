#include "core/engine/train/checkpoint.h"

#include "core/util/error.h"
#include "core/util/filewrite.h"
#include "core/util/paths.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace pitwall::engine {

namespace fs = std::filesystem;

namespace {

nlohmann::json metersToJson(const StageMeters& meters)
{
    return nlohmann::json{{"samples", meters.samples},
                          {"step_seconds", meters.stepSeconds},
                          {"wall_seconds", meters.wallSeconds},
                          {"wait_ms", meters.waitMs},
                          {"steps", meters.steps},
                          {"last_loss", meters.lastLoss},
                          {"validation", meters.validation},
                          {"loss_scale", meters.lossScale}};
}

// `required`: every key must be there (the current format); else a missing key reads as 0 (format 1).
StageMeters metersFromJson(const nlohmann::json& j, bool required)
{
    const auto read = [&](const char* key, auto& field) {
        using Field = std::decay_t<decltype(field)>;
        field = required ? j.at(key).get<Field>() : j.value(key, Field{});
    };
    StageMeters meters;
    read("samples", meters.samples);
    read("step_seconds", meters.stepSeconds);
    read("wall_seconds", meters.wallSeconds);
    read("wait_ms", meters.waitMs);
    read("steps", meters.steps);
    read("last_loss", meters.lastLoss);
    read("validation", meters.validation);
    read("loss_scale", meters.lossScale);
    return meters;
}

CheckpointInfo infoFromJson(const nlohmann::json& j)
{
    const int format = j.value("format", 1);
    if (format > kCheckpointFormat)
        throw InputError("checkpoint format " + std::to_string(format) + " is newer than this build reads");
    const bool required = format == kCheckpointFormat;
    return CheckpointInfo{
        j.at("epoch").get<int>(), j.at("global_step").get<std::int64_t>(),
        metersFromJson(required ? j.at("meters") : j.value("meters", nlohmann::json::object()), required)};
}

// Flushes a written file (or a folder's entries, after a rename) to the disk.
void syncPath(const fs::path& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw RuntimeError("cannot open " + path.string() + " to flush the checkpoint");
    const int synced = ::fsync(fd);
    ::close(fd);
    if (synced != 0)
        throw RuntimeError("cannot flush checkpoint " + path.string() + " to the disk");
}

// The test hook kCrashInCheckpointVariable ("STAGE:EPOCH", the 0-based epoch) names this checkpoint.
bool crashRequested(Stage stage, int epoch)
{
    const char* wanted = std::getenv(kCrashInCheckpointVariable);
    return wanted && std::string(wanted) == std::string(stageName(stage)) + ":" + std::to_string(epoch);
}

// Leaves the temporary half written, as a crash during the write would, and dies with SIGKILL.
[[noreturn]] void crashMidWrite(const std::string& temporary)
{
    std::error_code ec;
    fs::resize_file(temporary, fs::file_size(temporary, ec) / 2, ec);
    ::raise(SIGKILL);
    std::abort();
}

} // namespace

fs::path CheckpointStore::file(Stage stage, int epoch, const char* suffix) const
{
    char name[64];
    std::snprintf(name, sizeof name, "epoch_%04d.%s", epoch, suffix);
    return m_dir / stageName(stage) / name;
}

fs::path CheckpointStore::modelFile(Stage stage, int epoch) const { return file(stage, epoch, "model.pt"); }

void CheckpointStore::save(Stage stage, const CheckpointInfo& info, Model& model, torch::optim::Optimizer& optimizer) const
{
    const fs::path dir = m_dir / stageName(stage);
    fs::create_directories(dir);
    const bool crash = crashRequested(stage, info.epoch);
    // Temporary, fsync, rename, fsync of the folder: after a crash or power loss a file is whole or absent.
    const auto atomicWrite = [&](const fs::path& target, const std::function<void(const std::string&)>& write) {
        const std::string temporary = target.string() + ".partial";
        write(temporary);
        if (crash && target.string().ends_with(".optim.pt"))
            crashMidWrite(temporary);
        syncPath(temporary);
        fs::rename(temporary, target);
        syncPath(dir);
    };
    atomicWrite(file(stage, info.epoch, "model.pt"), [&](const std::string& path) {
        torch::serialize::OutputArchive archive;
        model.module().save(archive);
        archive.save_to(path);
    });
    atomicWrite(file(stage, info.epoch, "optim.pt"), [&](const std::string& path) { torch::save(optimizer, path); });
    atomicWrite(file(stage, info.epoch, "json"), [&](const std::string& path) {
        OutputFile out(path, WriteMode::Truncate, kSharedFileMode); // every write checked, and the close
        out.write(nlohmann::json{{"format", kCheckpointFormat},
                                 {"epoch", info.epoch},
                                 {"global_step", info.globalStep},
                                 {"meters", metersToJson(info.meters)}}
                      .dump(2));
        out.close();
    });
}

std::optional<CheckpointInfo> CheckpointStore::latest(Stage stage) const
{
    std::optional<CheckpointInfo> best;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(m_dir / stageName(stage), ec)) {
        const fs::path path = entry.path();
        if (path.extension() != ".json")
            continue;
        try {
            const nlohmann::json j = nlohmann::json::parse(readTextFile(path));
            const CheckpointInfo info = infoFromJson(j);
            if (!fs::exists(file(stage, info.epoch, "model.pt")) || !fs::exists(file(stage, info.epoch, "optim.pt")))
                continue;
            if (!best || info.epoch > best->epoch)
                best = info;
        } catch (const std::exception&) {
            continue; // an unreadable marker is an unfinished epoch
        }
    }
    return best;
}

void CheckpointStore::loadModel(Stage stage, int epoch, Model& model) const
{
    const fs::path path = file(stage, epoch, "model.pt");
    if (!fs::exists(path))
        throw InputError(SourceLocation{path.string()}, "checkpoint not found");
    torch::serialize::InputArchive archive;
    archive.load_from(path.string());
    model.module().load(archive);
}

void CheckpointStore::loadOptimizer(Stage stage, int epoch, torch::optim::Optimizer& optimizer) const
{
    torch::load(optimizer, file(stage, epoch, "optim.pt").string());
}

} // namespace pitwall::engine
