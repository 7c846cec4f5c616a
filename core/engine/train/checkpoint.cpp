#include "core/engine/train/checkpoint.h"

#include "core/util/error.h"
#include "core/util/paths.h"

#include <nlohmann/json.hpp>

#include <cstdio>
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
    fs::create_directories(m_dir / stageName(stage));
    const auto atomicWrite = [](const fs::path& target, const std::function<void(const std::string&)>& write) {
        const std::string temporary = target.string() + ".partial";
        write(temporary);
        fs::rename(temporary, target);
    };
    atomicWrite(file(stage, info.epoch, "model.pt"), [&](const std::string& path) {
        torch::serialize::OutputArchive archive;
        model.module().save(archive);
        archive.save_to(path);
    });
    atomicWrite(file(stage, info.epoch, "optim.pt"), [&](const std::string& path) { torch::save(optimizer, path); });
    atomicWrite(file(stage, info.epoch, "json"), [&](const std::string& path) {
        std::ofstream out(path);
        out << nlohmann::json{{"format", kCheckpointFormat},
                              {"epoch", info.epoch},
                              {"global_step", info.globalStep},
                              {"meters", metersToJson(info.meters)}}
                   .dump(2);
        if (!out)
            throw RuntimeError("cannot write checkpoint " + path);
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
