#include "core/engine/synth/datasetreport.h"

#include "core/util/printf.h"
#include "core/util/strings.h"

#include <algorithm>
#include <memory>

namespace pitwall::synth {

namespace {

double framesPerSecond(const GenerationStats& stats)
{
    return stats.seconds > 0 ? stats.frames / stats.seconds : 0.0;
}

} // namespace

nlohmann::json generationJson(const std::string& dir, const GenerationStats& stats)
{
    return {{"dir", dir},
            {"frames", stats.frames},
            {"episodes", stats.episodes},
            {"seconds", stats.seconds},
            {"frames_per_second", framesPerSecond(stats)},
            {"bytes", stats.bytes},
            {"complete", stats.complete}};
}

std::string generationText(const std::string& dir, const GenerationStats& stats)
{
    return stringPrintf("wrote %d frames in %d episodes to %s: %.2f s, %.1f frames/s, %s\n", stats.frames,
                        stats.episodes, dir.c_str(), stats.seconds, framesPerSecond(stats),
                        formatBytes(static_cast<double>(stats.bytes)).c_str());
}

SynthProgress decileProgress(int frames, std::function<void(const std::string&)> line)
{
    const auto start = std::chrono::steady_clock::now();
    const int step = std::max(1, frames / 10);
    auto nextReport = std::make_shared<int>(step);
    return [=](int done, int total) {
        if (done < *nextReport && done != total)
            return;
        while (*nextReport <= done)
            *nextReport += step;
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        line(stringPrintf("  [%3d%%] %d/%d frames, %.1f frames/s\n", 100 * done / total, done, total,
                          seconds > 0 ? done / seconds : 0.0));
    };
}

nlohmann::json datasetInfoJson(const SynthDataset& dataset, int framesChecked)
{
    const DatasetInfo& info = dataset.info();
    return {{"dir", dataset.directory()},
            {"frames", info.frames},
            {"episode_frames", info.episodeFrames},
            {"seed", info.seed},
            {"generator_version", info.generatorVersion},
            {"image", {info.sensors.camera.width, info.sensors.camera.height}},
            {"bev", {info.sensors.bev.width, info.sensors.bev.height}},
            {"frames_checked", framesChecked}};
}

std::string datasetInfoText(const SynthDataset& dataset, bool checked, int framesChecked)
{
    const DatasetInfo& info = dataset.info();
    std::string text = stringPrintf("%s: %d frames (%d per episode), seed %llu, generator version %d\n",
                                    dataset.directory().c_str(), info.frames, info.episodeFrames,
                                    static_cast<unsigned long long>(info.seed), info.generatorVersion);
    text +=
        stringPrintf("  camera %dx%d, %.0f deg; BEV %dx%d at %.2f px/m from x = %.1f m\n", info.sensors.camera.width,
                     info.sensors.camera.height, info.sensors.camera.horizontalFovDeg, info.sensors.bev.width,
                     info.sensors.bev.height, info.sensors.bev.pixelsPerMeter, info.sensors.bev.xMinM);
    if (checked)
        text += stringPrintf("  all %d frames decode\n", framesChecked);
    return text;
}

} // namespace pitwall::synth
